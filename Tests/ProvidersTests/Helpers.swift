// Shared helpers for provider tests: run an adapter over a fake transport and inspect what came out.
import Base
import Foundation
import Testing
import Agent
import HTTP
import Providers
import TestSupport

/// The outcome of one streamed model turn.
struct TurnResult {
    var events: [ChatEvent]
    var error: ChatError?

    var text: String {
        events.compactMap { if case .textDelta(let t) = $0 { return t } else { return nil } }.joined()
    }
    var toolCalls: [ToolCall] {
        events.compactMap { if case .toolCall(let c) = $0 { return c } else { return nil } }
    }
    var continuations: [ContinuationItem] {
        events.compactMap { if case .continuation(let c) = $0 { return c } else { return nil } }
    }
    var usage: Usage? {
        events.compactMap { if case .usage(let u) = $0 { return u } else { return nil } }.last
    }
    var finish: FinishReason? {
        events.compactMap { if case .finish(let f) = $0 { return f } else { return nil } }.last
    }
    var responseID: String? {
        events.compactMap { if case .responseID(let r) = $0 { return r } else { return nil } }.first
    }

    /// The assistant message a runner would store: consecutive text deltas joined into one text
    /// part, every other event kept in arrival order.
    var assistantMessage: Message {
        var parts: [MessagePart] = []
        for e in events {
            switch e {
            case .textDelta(let t):
                if case .text(let prev)? = parts.last { parts[parts.count - 1] = .text(prev + t) } else { parts.append(.text(t)) }
            case .toolCall(let c): parts.append(.toolCall(c))
            case .continuation(let c): parts.append(.continuation(c))
            default: break
            }
        }
        return Message(role: .assistant, parts: parts)
    }
}

func runTurn(_ model: some ChatModel, _ request: ChatRequest) async -> TurnResult {
    var events: [ChatEvent] = []
    do {
        for try await e in model.stream(request) { events.append(e) }
        return TurnResult(events: events, error: nil)
    } catch let error as ChatError {
        return TurnResult(events: events, error: error)
    } catch {
        Issue.record("non-ChatError thrown: \(error)")
        return TurnResult(events: events, error: nil)
    }
}

func json(_ text: String) throws -> JSONValue { try JSONValue.parse(text) }

func json(_ bytes: [UInt8]) throws -> JSONValue { try JSONValue.parse(bytes: bytes) }

/// Tool specs as a recorded request declared them (shape differs per wire format).
func toolSpecs(_ tools: [JSONValue]?) -> [ToolSpec] {
    (tools ?? []).flatMap { t -> [ToolSpec] in
        if let decls = t["functionDeclarations"]?.arrayValue {
            return decls.map { ToolSpec(name: $0["name"]?.stringValue ?? "", description: $0["description"]?.stringValue ?? "",
                                        parameters: $0["parameters"] ?? .object([:])) }
        }
        let f = t["function"] ?? t
        return [ToolSpec(name: f["name"]?.stringValue ?? "", description: f["description"]?.stringValue ?? "",
                         parameters: f["parameters"] ?? f["input_schema"] ?? t["input_schema"] ?? .object([:]))]
    }
}

/// A fake transport serving `body` in random chunks of at most `maxChunk` bytes.
func transport(_ body: String, status: Int = 200, headers: [HTTPHeader] = [HTTPHeader("Content-Type", "text/event-stream")],
               maxChunk: Int = 37, seed: UInt64 = 1) -> FakeHTTPTransport {
    FakeHTTPTransport(FakeHTTPTransport.Reply(status: status, headers: headers, body: Array(body.utf8), maxChunk: maxChunk, seed: seed))
}

let testKey = "sk-test-SECRETKEY-0123456789abcdefXYZ"

func config(_ provider: String, base: String, model: String, keyVariable: String = "TEST_API_KEY") -> AdapterConfig {
    AdapterConfig(provider: provider, baseURL: base, apiKey: testKey, model: model, keyVariable: keyVariable)
}

func requestJSON(_ transport: FakeHTTPTransport, _ index: Int = 0) throws -> JSONValue {
    let requests = transport.requests
    try #require(requests.count > index)
    return try json(requests[index].body)
}

/// Decodes the same body under many chunkings and checks every run gives identical events.
func expectSplitInvariant(_ make: (FakeHTTPTransport) -> any ChatModel, body: String, request: ChatRequest) async -> TurnResult {
    let reference = await runTurn(make(transport(body, maxChunk: 1 << 20)), request)
    for seed in 1...12 as ClosedRange<UInt64> {
        let maxChunk = [1, 2, 3, 7, 16, 64, 300, 4096][Int(seed) % 8]
        let other = await runTurn(make(transport(body, maxChunk: maxChunk, seed: seed)), request)
        #expect(other.events == reference.events, "chunking seed \(seed) max \(maxChunk)")
        #expect(other.error == reference.error)
    }
    return reference
}

/// `value` without Anthropic's `cache_control` markers: they say where the provider may cache,
/// not what the model reads, so a request compares with a recording made without them.
func withoutCacheMarkers(_ value: JSONValue?) -> JSONValue? {
    guard let value else { return nil }
    if let o = value.objectValue {
        var out: [String: JSONValue] = [:]
        for (k, v) in o where k != "cache_control" { out[k] = withoutCacheMarkers(v) }
        return .object(out)
    }
    if let a = value.arrayValue { return .array(a.compactMap { withoutCacheMarkers($0) }) }
    return value
}

/// The paths (e.g. `tools[2]`, `messages[0].content[1]`) of every `cache_control` in `value`.
func cacheMarkerPaths(_ value: JSONValue, _ path: String = "") -> [String] {
    if let o = value.objectValue {
        return o.keys.sorted().flatMap { k -> [String] in
            k == "cache_control" ? [path] : cacheMarkerPaths(o[k] ?? .null, path.isEmpty ? k : path + "." + k)
        }
    }
    if let a = value.arrayValue { return a.enumerated().flatMap { cacheMarkerPaths($0.element, path + "[\($0.offset)]") } }
    return []
}
