// libFuzzer target: the SSE parser (Sources/HTTP/SSEParser.swift). Besides crashing, it fails
// when the events depend on how the bytes were split into chunks (the network decides that).
import HTTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSSE(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    var whole = SSEParser()
    let expected = whole.feed(bytes) + whole.finish()

    // Chunk sizes 1...8 taken from the input itself, with an empty chunk before each 1-byte one.
    var split = SSEParser()
    var events: [SSEEvent] = []
    var at = 0
    var k = 0
    while at < bytes.count {
        let n = 1 + Int(bytes[k % bytes.count]) % 8
        k += 1
        if n == 1 { events += split.feed(bytes[at..<at]) }
        events += split.feed(bytes[at..<min(bytes.count, at + n)])
        at += n
    }
    events += split.finish()
    if events != expected || split.nonSSEText != whole.nonSSEText || split.sawNonSSEText != whole.sawNonSSEText {
        fatalError("SSE events depend on chunking: \(expected.count) whole vs \(events.count) split")
    }
    return 0
}
