// JSON-RPC 2.0 messages as MCP uses them: classifying what arrives, building what goes out.
import Base

/// JSON-RPC and MCP error codes the server answers with.
public enum RPCErrorCode {
    public static let parseError = -32700
    public static let invalidRequest = -32600
    public static let methodNotFound = -32601
    public static let invalidParams = -32602
    public static let internalError = -32603
    /// MCP: a resource URI the server does not have.
    public static let resourceNotFound = -32002
    /// MCP 2026-07-28: the request's `_meta` names a protocol version the server does not speak.
    public static let unsupportedProtocolVersion = -32022
}

/// One message from the client, classified.
public enum IncomingMessage: Sendable, Hashable {
    case request(id: JSONValue, method: String, params: JSONValue?)
    case notification(method: String, params: JSONValue?)
    case response(id: JSONValue, result: JSONValue?, error: JSONValue?)
    /// Not a valid JSON-RPC message; `id` when one could be read, for the error response.
    case invalid(id: JSONValue?, reason: String)

    /// Parses one line. Throws `JSONValue.ParseError` when it is not JSON (answered with -32700).
    public static func parse(_ line: [UInt8]) throws -> IncomingMessage {
        classify(try JSONValue.parse(bytes: line))
    }

    /// Classifies a parsed JSON value (a batch, a missing `jsonrpc` or a null id is invalid).
    public static func classify(_ value: JSONValue) -> IncomingMessage {
        guard case .object(let o) = value else {
            if case .array = value { return .invalid(id: nil, reason: "batches are not supported; send one message per line") }
            return .invalid(id: nil, reason: "a message must be a JSON object")
        }
        let id = o["id"]
        let validID: JSONValue?
        switch id {
        case .string?, .number?: validID = id
        default: validID = nil
        }
        guard o["jsonrpc"]?.stringValue == "2.0" else { return .invalid(id: validID, reason: "\"jsonrpc\" must be \"2.0\"") }
        if let methodValue = o["method"] {
            guard let method = methodValue.stringValue else { return .invalid(id: validID, reason: "\"method\" must be a string") }
            let params = o["params"]
            if let params, params.objectValue == nil, params != .null {
                return .invalid(id: validID, reason: "\"params\" must be an object")
            }
            guard id != nil else { return .notification(method: method, params: params) }
            guard let validID else { return .invalid(id: nil, reason: "\"id\" must be a string or a number") }
            return .request(id: validID, method: method, params: params)
        }
        if let validID, o["result"] != nil || o["error"] != nil {
            return .response(id: validID, result: o["result"], error: o["error"])
        }
        return .invalid(id: validID, reason: "neither a request, a notification nor a response")
    }
}

/// Outgoing messages, one line of JSON each (JSON escapes every newline inside strings).
public enum RPC {
    public static func result(id: JSONValue, _ result: JSONValue) -> String {
        JSONValue.object(["jsonrpc": "2.0", "id": id, "result": result]).serialized
    }

    public static func error(id: JSONValue?, code: Int, message: String, data: JSONValue? = nil) -> String {
        var error: [String: JSONValue] = ["code": .number(Double(code)), "message": .string(message)]
        if let data { error["data"] = data }
        return JSONValue.object(["jsonrpc": "2.0", "id": id ?? .null, "error": .object(error)]).serialized
    }

    public static func request(id: JSONValue, method: String, params: JSONValue) -> String {
        JSONValue.object(["jsonrpc": "2.0", "id": id, "method": .string(method), "params": params]).serialized
    }

    /// The top-level id of a message too large to read, from its first or last bytes, when it can
    /// be told apart from an `"id"` nested in the params: the first key of the object (after an
    /// optional `"jsonrpc":"2.0"`), or the last key closed by the one final `}`.
    public static func idOfOversized(head: [UInt8], tail: [UInt8]) -> JSONValue? {
        let headText = String(decoding: head, as: UTF8.self)
        let tailText = String(decoding: tail, as: UTF8.self)
        let compactHead = headText.filter { !$0.isWhitespace }
        for prefix in ["{\"id\":", "{\"jsonrpc\":\"2.0\",\"id\":"] where compactHead.hasPrefix(prefix) {
            if let id = leadingValue(compactHead.dropFirst(prefix.count)) { return id }
        }
        // `…,"id":5}` at the very end, with exactly one closing brace after the value.
        let trimmed = tailText.reversed().drop(while: { $0.isWhitespace })
        guard trimmed.first == "}" else { return nil }
        let body = String(trimmed.dropFirst().reversed())
        guard let range = body.range(of: "\"id\":", options: .backwards) ?? body.range(of: "\"id\" :", options: .backwards) else { return nil }
        let before = body[..<range.lowerBound].reversed().drop(while: { $0.isWhitespace })
        guard before.first == "," else { return nil }
        let value = body[range.upperBound...].trimmingSpaces
        guard let id = leadingValue(Substring(value)), id.serialized.count >= value.count else { return nil }
        return id
    }

    /// A number or a simple string at the start of `text`.
    private static func leadingValue(_ text: Substring) -> JSONValue? {
        if text.first == "\"" {
            guard let end = text.dropFirst().firstIndex(of: "\"") else { return nil }
            let inner = text[text.index(after: text.startIndex)..<end]
            guard !inner.contains("\\") else { return nil }
            return .string(String(inner))
        }
        let digits = text.prefix(while: { $0.isNumber || $0 == "-" })
        guard !digits.isEmpty, let n = Double(digits) else { return nil }
        return .number(n)
    }
}

extension Substring {
    var trimmingSpaces: String { String(drop(while: { $0.isWhitespace }).reversed().drop(while: { $0.isWhitespace }).reversed()) }
}
