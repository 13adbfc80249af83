// libFuzzer target: the MCP stdio framing and JSON-RPC classification. Byte 0 picks the chunk size
// (1–16 bytes, or whole) and a small line limit; the rest is what a client writes to `ofj mcp`.
// Fails when feeding in chunks gives other frames than feeding whole, when a line frame is over the
// limit or holds a newline, or when an error response the server would send is not one JSON line.
import Base
import MCP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMCPFraming(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size > 0, let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let chunk = Int(bytes[0] & 0x0F) + 1
    let limit = bytes[0] & 0x80 != 0 ? 64 : LineFramer.defaultLimit
    let input = Array(bytes.dropFirst())

    var whole = LineFramer(limit: limit)
    var expected = whole.feed(input)
    if let last = whole.finish() { expected.append(last) }

    var chunked = LineFramer(limit: limit)
    var got: [Frame] = []
    var i = 0
    while i < input.count {
        got += chunked.feed(input[i..<min(input.count, i + chunk)])
        i += chunk
    }
    if let last = chunked.finish() { got.append(last) }
    guard got == expected else { fatalError("chunked framing differs from whole framing") }

    for frame in got {
        switch frame {
        case .line(let line):
            guard line.count <= limit, !line.contains(UInt8(ascii: "\n")), !line.isEmpty else { fatalError("bad line frame") }
            let reply: String
            do {
                switch try IncomingMessage.parse(line) {
                case .invalid(let id, let reason): reply = RPC.error(id: id, code: RPCErrorCode.invalidRequest, message: reason)
                case .request(let id, let method, _): reply = RPC.error(id: id, code: RPCErrorCode.methodNotFound, message: method)
                case .notification, .response: continue
                }
            } catch {
                reply = RPC.error(id: nil, code: RPCErrorCode.parseError, message: "parse error: \(error)")
            }
            guard !reply.contains("\n"), (try? JSONValue.parse(reply)) != nil else { fatalError("a reply is not one JSON line") }
        case .oversized(let size, let head, let tail):
            guard size > limit, head.count <= LineFramer.keptEdge, tail.count <= LineFramer.keptEdge else { fatalError("bad oversized frame") }
            let id = RPC.idOfOversized(head: head, tail: tail)
            if let id, id.stringValue == nil, id.doubleValue == nil { fatalError("an id that is neither string nor number") }
            let reply = RPC.error(id: id, code: RPCErrorCode.invalidRequest, message: "too large")
            guard (try? JSONValue.parse(reply)) != nil else { fatalError("oversized reply is not JSON") }
        }
    }
    return 0
}
