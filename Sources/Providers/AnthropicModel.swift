// Anthropic Messages adapter: tool_use with streamed JSON input, thinking blocks with signatures.
import Base
import Foundation
import HTTP
import Agent

/// `POST {base}/messages` (base "https://api.anthropic.com/v1"), `x-api-key` + `anthropic-version`.
///
/// Continuation items (family "anthropic"): kind "thinking", payload = the exact block
/// (`{"type":"thinking","thinking":…,"signature":…}` or `{"type":"redacted_thinking","data":…}`),
/// replayed at its position, i.e. before the tool_use it preceded, and only to the base URL and
/// model that produced it.
///
/// With `nativeWebSearch` the request declares the server tools `web_search_20250305` and
/// `web_fetch_20250910` (beta header `web-fetch-2025-09-10`). Their blocks come back as kind
/// "server_block" items: `server_tool_use` (id, name, input) and each `…_tool_result` block as
/// received (encrypted content included), both without `caller`, as the recorded second turn
/// sends them; replayed at their position. What they found and the text's citations are also
/// emitted as a `WebSources` item for the Research module.
///
/// History from other providers is made acceptable: text blocks that are empty or only
/// whitespace are left out (the API refuses them), and call ids outside `^[a-zA-Z0-9_-]+$`
/// (e.g. `functions.add:0`) are sent as stand-ins (`WireCallIDs`).
///
/// Prompt caching (`cache_control: ephemeral`, at most 4 breakpoints, none on a summary request):
/// after the tools, after the system prompt, on the last block before the context note (what the
/// next request reads from the cache) and on the last block of the user turn before (where the
/// previous request wrote it). The context note (`ChatRequest.contextNote`) is the last block of
/// the last user turn, after every breakpoint.
public struct AnthropicModel: ChatModel {
    public let config: AdapterConfig
    let transport: any HTTPTransport
    public var provider: String { config.provider }
    public var model: String { config.model }
    public var continuationFamily: String { "anthropic" }
    /// Stamped on the continuation items this model receives; only items with this origin are replayed.
    public var continuationOrigin: String { config.continuationOrigin(family: continuationFamily) }
    public static let apiVersion = "2023-06-01"
    /// The beta that turns on the web fetch server tool.
    public static let webFetchBeta = "web-fetch-2025-09-10"
    /// The server tools declared with `nativeWebSearch`; at most 5 uses of each per request.
    public static let serverTools: [JSONValue] = [
        ["type": "web_search_20250305", "name": "web_search", "max_uses": 5],
        ["type": "web_fetch_20250910", "name": "web_fetch", "max_uses": 5],
    ]

    public init(config: AdapterConfig, transport: any HTTPTransport) {
        self.config = config
        self.transport = transport
    }

    /// How many times a turn paused by a long server-tool run (`pause_turn`) is continued.
    static let maxPauseContinuations = 3

    /// One model turn. A turn the API pauses (`stop_reason: pause_turn`, when its server tools run
    /// long) is continued within the same turn: what it produced so far goes back as the last
    /// assistant message, as the API asks, and the continuation streams on; usage is summed and
    /// one finish ends the turn.
    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        let driver = StreamDriver(transport: transport, mapper: ErrorMapper(config: config), now: { Date().timeIntervalSince1970 },
                                  origin: continuationOrigin, attachments: request.attachments)
        let model = self
        return makeEventStream { out in
            var current = request
            var carried = Usage()
            for round in 0...Self.maxPauseContinuations {
                let pause = round < Self.maxPauseContinuations ? PausedTurn(usage: carried) : nil
                try await driver.run(model.httpRequest(current), decoder: AnthropicDecoder(pause: pause, carried: carried), out: out)
                guard let pause, pause.paused else { return }
                current.messages.append(Message(role: .assistant, parts: pause.partsToSendBack(origin: model.continuationOrigin)))
                carried = pause.usage
            }
        }
    }

    public func httpRequest(_ request: ChatRequest) -> HTTPRequest {
        var headers = [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Accept", "text/event-stream"),
                       HTTPHeader("anthropic-version", Self.apiVersion)]
        if let key = config.apiKey, !key.isEmpty { headers.append(HTTPHeader("x-api-key", key)) }
        if config.nativeWebSearch && request.purpose == .answer { headers.append(HTTPHeader("anthropic-beta", Self.webFetchBeta)) }
        headers += config.extraHeaders
        return HTTPRequest(url: "\(config.baseURL)/messages", headers: headers, body: WireJSON.body(requestBody(request)),
                           timeouts: config.timeouts)
    }

    public func requestBody(_ request: ChatRequest) -> JSONValue {
        let caches = request.purpose == .answer
        var body: [String: JSONValue] = [
            "model": .string(config.model),
            "max_tokens": .number(Double(request.maxOutputTokens)),
            "stream": true,
            "messages": .array(Self.messages(request.messages, origin: continuationOrigin, contextNote: request.contextNote, cacheBreakpoints: caches)),
        ]
        if !request.system.isEmpty {
            var block: [String: JSONValue] = ["type": "text", "text": .string(request.system)]
            if caches { block["cache_control"] = Self.cacheControl }
            body["system"] = [.object(block)]
        }
        var tools: [JSONValue] = request.tools.map { tool in
            ["name": .string(tool.name), "description": .string(tool.description), "input_schema": tool.parameters]
        }
        if config.nativeWebSearch && request.purpose == .answer { tools += Self.serverTools }
        if caches, let last = tools.last?.objectValue {
            var marked = last
            marked["cache_control"] = Self.cacheControl
            tools[tools.count - 1] = .object(marked)
        }
        if !tools.isEmpty {
            body["tools"] = .array(tools)
            body["tool_choice"] = ["type": "auto"]
        }
        return WireJSON.merge(body, config.extraBody)
    }

    /// A prompt-cache breakpoint (5-minute cache, the default).
    static let cacheControl: JSONValue = ["type": "ephemeral"]

    /// `origin`: the items of this origin are replayed (`continuationOrigin`). `contextNote`: the
    /// volatile tail, the last block of the last user turn. `cacheBreakpoints`: mark the end of
    /// that turn's stable blocks and of the user turn before it.
    static func messages(_ messages: [Message], origin: String, contextNote: String = "", cacheBreakpoints: Bool = false) -> [JSONValue] {
        let ids = WireCallIDs(messages, rule: .anthropic)
        var out = AlternatingTurns()
        for message in messages {
            var blocks: [JSONValue] = []
            switch message.role {
            case .user, .tool:
                var results: [JSONValue] = []
                for part in message.parts {
                    switch part {
                    case .text(let t) where !isBlank(t): blocks.append(["type": "text", "text": .string(t)])
                    case .toolResult(let r): results.append(toolResult(r, id: ids.wire(r.callID)))
                    default: break
                    }
                }
                blocks += message.attachments.map(AttachmentParts.anthropic)
                out.append("user", results + blocks) // tool_result blocks must come first
            case .assistant:
                var text = ""
                func flush() {
                    if !isBlank(text) { blocks.append(["type": "text", "text": .string(text)]) }
                    text = ""
                }
                for part in message.parts {
                    switch part {
                    case .text(let t):
                        text += t
                    case .toolCall(let call):
                        flush()
                        blocks.append(["type": "tool_use", "id": .string(ids.wire(call.id)), "name": .string(call.name),
                                       "input": WireJSON.argumentsObject(call)])
                    case .continuation(let item) where item.provider == "anthropic" && (item.kind == "thinking" || item.kind == "server_block")
                                                        && item.origin == origin:
                        flush()
                        // Payloads are written by the decoder below; one that no longer parses cannot be
                        // sent in any form, and the provider then says what is missing.
                        if let block = try? JSONValue.parse(item.payload) { blocks.append(block) }
                    default:
                        break
                    }
                }
                flush()
                out.append("assistant", blocks)
            }
        }
        let users = out.indices(of: "user")
        if cacheBreakpoints {
            for i in users.suffix(2) { out.updateBlocks(at: i) { $0 = markLastCacheable($0) } }
        }
        if !isBlank(contextNote) {
            let note: JSONValue = ["type": "text", "text": .string(contextNote)]
            if let last = users.last { out.updateBlocks(at: last) { $0.append(note) } } else { out.append("user", [note]) }
        }
        return out.json(blocksKey: "content")
    }

    /// `blocks` with a cache breakpoint on the last block that may carry one (not thinking).
    static func markLastCacheable(_ blocks: [JSONValue]) -> [JSONValue] {
        guard let k = blocks.lastIndex(where: { !["thinking", "redacted_thinking"].contains($0["type"]?.stringValue ?? "") }),
              var block = blocks[k].objectValue else { return blocks }
        var out = blocks
        block["cache_control"] = cacheControl
        out[k] = .object(block)
        return out
    }

    static func toolResult(_ r: ToolResult, id: String) -> JSONValue {
        var block: [String: JSONValue] = ["type": "tool_result", "tool_use_id": .string(id)]
        // An empty text block is refused; a result without content is not.
        if !isBlank(r.content) { block["content"] = [["type": "text", "text": .string(r.content)]] }
        if r.isError { block["is_error"] = true }
        return .object(block)
    }

    /// "text content blocks must contain non-whitespace text": such text is left out.
    static func isBlank(_ text: String) -> Bool { text.allSatisfy(\.isWhitespace) }
}

/// What a paused turn produced so far (text and the blocks to replay), and its usage, for the
/// request that continues it. Written by the decoder of one request, read after it ended.
final class PausedTurn {
    var paused = false
    var parts: [MessagePart] = []
    var usage: Usage

    init(usage: Usage) { self.usage = usage }

    func note(_ event: ChatEvent) {
        switch event {
        case .textDelta(let t):
            if case .text(let previous)? = parts.last { parts[parts.count - 1] = .text(previous + t) } else { parts.append(.text(t)) }
        case .continuation(let item) where item.provider == "anthropic":
            parts.append(.continuation(item))
        default:
            break
        }
    }

    /// The parts as the last assistant message: stamped with the origin (so they are replayed), and
    /// the final text without trailing whitespace (the API refuses it in a final assistant message).
    func partsToSendBack(origin: String) -> [MessagePart] {
        var out = parts.map { part -> MessagePart in
            guard case .continuation(var item) = part else { return part }
            item.origin = origin
            return .continuation(item)
        }
        if case .text(let t)? = out.last {
            var trimmed = t
            while trimmed.last?.isWhitespace == true { trimmed.removeLast() }
            out[out.count - 1] = .text(trimmed)
        }
        return out
    }
}

/// Decodes Anthropic Messages stream events.
struct AnthropicDecoder: WireDecoder {
    /// Each event's JSON, read in place; one document reused for the whole stream.
    let json = JSONDocument()
    enum Block {
        case text
        case thinking(thinking: String, signature: String)
        case redacted(data: String)
        case toolUse(id: String, name: String, json: String, start: JSONValue?)
        /// A server tool the provider runs itself (web_search, web_fetch): replayed, never run here.
        case serverUse(id: String, name: String, start: JSONValue?)
        case other
    }
    var blocks: [Int: Block] = [:]
    /// Streamed pieces of open blocks (tool input JSON, thinking text, signature), by block
    /// index, appended in place: rebuilding the enum payload per delta copied the whole text.
    var pieces: [Int: (first: String, second: String)] = [:]
    var stopped = false
    var isComplete: Bool { stopped }
    var stopReason: String?
    var usage = Usage()
    var sawCall = false
    var responseID: String?
    /// What the server tools found and the text cited.
    var web = WebSources(backend: "anthropic")
    /// Server tool inputs by id (the query or URL a result belongs to).
    var serverInputs: [String: JSONValue] = [:]
    /// Set when a `pause_turn` stop may be continued: collects what the turn produced.
    var pause: PausedTurn?
    /// Usage of the earlier requests of a paused turn, added to this one's.
    var carried: Usage

    init(pause: PausedTurn? = nil, carried: Usage = Usage()) {
        self.pause = pause
        self.carried = carried
    }

    mutating func decode(_ event: SSEEventView) throws -> [ChatEvent] {
        if stopped { return [] }
        let events = try json.withEvent(event) { try decode($0, event) }
        if let pause { for e in events { pause.note(e) } }
        return events
    }

    /// Decodes one event's JSON, lent by `json` for this call only.
    private mutating func decode(_ e: JSONRef, _ event: SSEEventView) throws -> [ChatEvent] {
        let type = EventType(e, event)
        var out: [ChatEvent] = []
        // Any payload with a top-level "error" is an error, whatever its framing (proxies, gateways).
        if e["error"] != nil && e["type"]?.isString("response.failed") != true, let err = ProviderErrorBody.parse(e) {
            throw ProviderStreamError.provider(err)
        }
        switch type {
        case "error":
            throw ProviderStreamError.provider(ProviderErrorBody.parse(e) ?? ProviderErrorBody(message: nil, code: nil))
        case "message_start":
            let m = e["message"]
            if responseID == nil, let id = m?["id"]?.stringValue {
                responseID = id
                out.append(.responseID(id))
            }
            if let u = m?["usage"] { applyUsage(u) }
        case "content_block_start":
            let index = e["index"]?.intValue ?? 0
            let b = e["content_block"]
            switch b?["type"]?.stringValue {
            case "text":
                blocks[index] = .text
                if let t = b?["text"]?.stringValue, !t.isEmpty { out.append(.textDelta(t)) }
            case "thinking":
                blocks[index] = .thinking(thinking: b?["thinking"]?.stringValue ?? "", signature: b?["signature"]?.stringValue ?? "")
            case "redacted_thinking":
                blocks[index] = .redacted(data: b?["data"]?.stringValue ?? "")
            case "tool_use":
                // `input` is {} at start and the real input streams as input_json_delta fragments;
                // some proxies put the whole input here instead, so keep it as a fallback.
                var start: JSONValue?
                if let input = b?["input"], let fields = input.objectValue, !fields.isEmpty { start = .object(fields) }
                blocks[index] = .toolUse(id: b?["id"]?.stringValue ?? "", name: b?["name"]?.stringValue ?? "", json: "", start: start)
            case "server_tool_use":
                var start: JSONValue?
                if let input = b?["input"], let fields = input.objectValue, !fields.isEmpty { start = .object(fields) }
                blocks[index] = .serverUse(id: b?["id"]?.stringValue ?? "", name: b?["name"]?.stringValue ?? "", start: start)
            case let t? where t.hasSuffix("_tool_result"):
                // Complete at start (encrypted content and all): kept exactly, replayed at this position.
                blocks[index] = .other
                if var block = b?.value.objectValue {
                    // As the recorded second turn sends it back: no caller, no null fields (page_age).
                    block["caller"] = nil
                    let block = Self.withoutNulls(.object(block))
                    out.append(.continuation(ContinuationItem(provider: "anthropic", kind: "server_block", payload: block.serialized)))
                    noteServerResult(block)
                }
            default:
                blocks[index] = .other
            }
        case "content_block_delta":
            let index = e["index"]?.intValue ?? 0
            let d = e["delta"]
            let deltaType = d?["type"]
            switch blocks[index] {
            case .text? where deltaType?.isString("text_delta") == true:
                if let t = d?["text"]?.stringValue, !t.isEmpty { out.append(.textDelta(t)) }
            case .text? where deltaType?.isString("citations_delta") == true:
                if let c = d?["citation"], let url = c["url"]?.stringValue {
                    web.cite(WebSources.Link(url: url, title: c["title"]?.stringValue ?? "", text: c["cited_text"]?.stringValue ?? ""))
                }
            case .thinking? where deltaType?.isString("thinking_delta") == true:
                pieces[index, default: ("", "")].first += d?["thinking"]?.stringValue ?? ""
            case .thinking? where deltaType?.isString("signature_delta") == true:
                pieces[index, default: ("", "")].second += d?["signature"]?.stringValue ?? ""
            case .toolUse? where deltaType?.isString("input_json_delta") == true,
                 .serverUse? where deltaType?.isString("input_json_delta") == true:
                // Past the cap the call is rejected anyway: holding more only uses memory.
                if pieces[index]?.first.utf8.count ?? 0 < AnswerLimits.adapterArgumentCeiling {
                    pieces[index, default: ("", "")].first += d?["partial_json"]?.stringValue ?? ""
                }
            default:
                break
            }
        case "content_block_stop":
            let index = e["index"]?.intValue ?? 0
            let streamed = pieces.removeValue(forKey: index) ?? ("", "")
            switch blocks[index] {
            case .thinking(let thinking, let signature)?:
                let block: JSONValue = ["type": "thinking", "thinking": .string(thinking + streamed.first), "signature": .string(signature + streamed.second)]
                out.append(.continuation(ContinuationItem(provider: "anthropic", kind: "thinking", payload: block.serialized)))
            case .redacted(let data)?:
                let block: JSONValue = ["type": "redacted_thinking", "data": .string(data)]
                out.append(.continuation(ContinuationItem(provider: "anthropic", kind: "thinking", payload: block.serialized)))
            case .toolUse(let id, let name, let started, let start)?:
                sawCall = true
                let json = started + streamed.first
                let arguments = json.allSatisfy(\.isWhitespace) ? (start?.serialized ?? json) : json
                out.append(.toolCall(ToolCall(id: id, name: name, arguments: arguments)))
            case .serverUse(let id, let name, let start)?:
                let json = streamed.first
                let input = json.allSatisfy(\.isWhitespace) ? (start ?? .object([:])) : ((try? JSONValue.parse(json)) ?? start ?? .object([:]))
                serverInputs[id] = input
                let block: JSONValue = ["type": "server_tool_use", "id": .string(id), "name": .string(name), "input": input]
                out.append(.continuation(ContinuationItem(provider: "anthropic", kind: "server_block", payload: block.serialized)))
            default:
                break
            }
            blocks[index] = nil
        case "message_delta":
            if let r = e["delta"]?["stop_reason"]?.stringValue { stopReason = r }
            if let u = e["usage"] { applyUsage(u) }
        case "message_stop":
            stopped = true
        default:
            break // ping and future event types
        }
        return out
    }

    static func withoutNulls(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let o): return .object(o.filter { !$0.value.isNull }.mapValues(withoutNulls))
        case .array(let a): return .array(a.map(withoutNulls))
        default: return value
        }
    }

    /// Search results and fetched pages of a `…_tool_result` block, for `web`.
    mutating func noteServerResult(_ block: JSONValue) {
        let input = block["tool_use_id"]?.stringValue.flatMap { serverInputs[$0] }
        let content = block["content"]
        switch block["type"]?.stringValue {
        case "web_search_tool_result":
            // An error result is an object ({type: web_search_tool_result_error}); results are an array.
            guard let results = content?.arrayValue else { return }
            let links = results.compactMap { r -> WebSources.Link? in
                guard let url = r["url"]?.stringValue else { return nil }
                let age = r["page_age"]?.stringValue.map { "page age: \($0)" } ?? ""
                return WebSources.Link(url: url, title: r["title"]?.stringValue ?? "", text: age)
            }
            web.searches.append(WebSources.Search(query: input?["query"]?.stringValue ?? "", results: links))
        case "web_fetch_tool_result":
            guard content?["type"]?.stringValue == "web_fetch_result", let url = content?["url"]?.stringValue else { return }
            let document = content?["content"]
            // Text documents only: a PDF's bytes are not text a person can read back.
            let source = document?["source"]
            let text = source?["type"]?.stringValue == "text" && source?["media_type"]?.stringValue != "application/pdf"
                ? String((source?["data"]?.stringValue ?? "").prefix(WebSourcesLimits.pageCharacters)) : ""
            web.pages.append(WebSources.Link(url: url, title: document?["title"]?.stringValue ?? "", text: text))
        default:
            break
        }
    }

    /// message_start has the input counts; message_delta has cumulative output (and may repeat input).
    mutating func applyUsage(_ u: JSONRef) {
        let cacheRead = u["cache_read_input_tokens"]?.intValue
        let cacheWrite = u["cache_creation_input_tokens"]?.intValue
        if let input = u["input_tokens"]?.intValue {
            // Anthropic's input_tokens excludes cache reads and writes; the port counts all input.
            usage.inputTokens = input + (cacheRead ?? 0) + (cacheWrite ?? 0)
        }
        if let cacheRead { usage.cachedInputTokens = cacheRead }
        if let cacheWrite { usage.cacheWriteTokens = cacheWrite }
        if let output = u["output_tokens"]?.intValue { usage.outputTokens = output }
    }

    mutating func finish() throws -> [ChatEvent] {
        guard stopped else { throw ProviderStreamError.truncated }
        var out: [ChatEvent] = []
        if !web.isEmpty { out.append(.continuation(web.item)) }
        if let pause, stopReason == "pause_turn", !sawCall {
            // Continued by the next request of the same turn: no usage or finish yet.
            pause.paused = true
            pause.usage = carried + usage
            return out
        }
        usage = carried + usage
        if !usage.isEmpty { out.append(.usage(usage)) }
        let mapped: FinishReason
        if sawCall {
            mapped = .toolCalls
        } else {
            switch stopReason {
            case "end_turn", "stop_sequence", nil: mapped = .stop
            case "max_tokens", "model_context_window_exceeded": mapped = .length
            case "refusal": mapped = .contentFilter
            case "tool_use": mapped = .toolCalls
            default: mapped = .other
            }
        }
        out.append(.finish(mapped))
        return out
    }
}
