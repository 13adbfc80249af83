// OpenAI-compatible Chat Completions adapter (OpenAI, OpenRouter, Ollama, llama.cpp, vLLM, LM Studio).
import Base
import Foundation
import HTTP
import Agent
import Synchronization

/// `POST {base}/chat/completions` with `stream: true`, bearer key (optional for local servers).
///
/// Continuation items (family "openai-chat"), echoed on the assistant message they came with:
/// - kind "reasoning_details", payload = the JSON array OpenRouter streamed, fragments merged by
///   `index` (text concatenated), sent back as `reasoning_details`.
/// - kind "reasoning_content", payload = the reasoning text (llama.cpp), sent back as `reasoning_content`.
/// - kind "reasoning", payload = the reasoning text (Ollama and others that stream `delta.reasoning`
///   without details), sent back as `reasoning`.
/// These fields are not standard (OpenAI and Cerebras refuse unknown message fields), so an item
/// is sent back only to the base URL and model that produced it. Call ids over 40 characters
/// (OpenAI's limit; ids made up here for servers that send none are longer) are sent as
/// stand-ins (`WireCallIDs`).
///
/// The context note (`ChatRequest.contextNote`) ends the request: appended to the last user
/// message's text (a separate `system` or second `user` message breaks strict chat templates of
/// local servers), or a user message of its own after tool results. OpenRouter always reports
/// usage in the stream's last chunk; its spec no longer declares the old `usage` request field.
public struct ChatCompletionsModel: ChatModel {
    public let config: AdapterConfig
    let transport: any HTTPTransport
    /// Field for the output limit: "max_tokens" (most servers) or "max_completion_tokens" (OpenAI).
    public var maxTokensField: String
    public var provider: String { config.provider }
    public var model: String { config.model }
    public var continuationFamily: String { "openai-chat" }
    /// Stamped on the continuation items this model receives; only items with this origin are replayed.
    public var continuationOrigin: String { config.continuationOrigin(family: continuationFamily) }

    /// What a local server's answers already showed (each said once per model).
    let localWarnings = LocalAnswerChecks.Said()

    public init(config: AdapterConfig, transport: any HTTPTransport, maxTokensField: String? = nil) {
        self.config = config
        self.transport = transport
        self.maxTokensField = maxTokensField ?? (config.provider == "openai" ? "max_completion_tokens" : "max_tokens")
    }

    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        let body = requestBody(request)
        let http = httpRequest(body: body)
        let driver = StreamDriver(transport: transport, mapper: ErrorMapper(config: config), now: { Date().timeIntervalSince1970 },
                                  origin: continuationOrigin, attachments: request.attachments)
        let local = ModelCatalog.localProviders.contains(config.provider)
            ? LocalAnswerChecks(provider: config.provider, toolTokens: request.tools.isEmpty ? 0 : TokenEstimator.tokens(request.tools),
                                systemTokens: TokenEstimator.tokens(request.system), said: localWarnings)
            : nil
        return makeEventStream { out in
            var decoder = ChatCompletionsDecoder()
            decoder.local = local
            // The web plugin puts search results into the prompt whether or not the answer cites
            // them: the turn carries outside content even when it is only a tool call.
            decoder.web.searched = Self.declaresWebPlugin(body)
            try await driver.run(http, decoder: decoder, out: out)
        }
    }

    public func httpRequest(_ request: ChatRequest) -> HTTPRequest { httpRequest(body: requestBody(request)) }

    func httpRequest(body: JSONValue) -> HTTPRequest {
        var headers = [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Accept", "text/event-stream")]
        if let key = config.apiKey, !key.isEmpty { headers.append(HTTPHeader("Authorization", "Bearer \(key)")) }
        headers += config.extraHeaders
        return HTTPRequest(url: "\(config.baseURL)/chat/completions", headers: headers,
                           body: WireJSON.body(body), timeouts: config.timeouts)
    }

    public func requestBody(_ request: ChatRequest) -> JSONValue {
        var body: [String: JSONValue] = [
            "model": .string(config.model),
            "stream": true,
            "stream_options": ["include_usage": true],
            "messages": .array(Self.messages(system: request.system, request.messages, origin: continuationOrigin,
                                             contextNote: request.contextNote)),
            maxTokensField: .number(Double(request.maxOutputTokens)),
        ]
        if !request.tools.isEmpty {
            body["tools"] = .array(request.tools.map { tool in
                ["type": "function",
                 "function": ["name": .string(tool.name), "description": .string(tool.description),
                              "parameters": tool.parameters, "strict": false]]
            })
            body["tool_choice"] = "auto"
        }
        // OpenRouter's web plugin searches for any model; its results come back as url_citation annotations.
        if config.provider == "openrouter" && config.nativeWebSearch && request.purpose == .answer {
            body["plugins"] = [["id": "web", "max_results": 5]]
        }
        return WireJSON.merge(body, config.extraBody)
    }

    /// Whether a request body asks OpenRouter's web plugin to search (ours, or one `extraBody` adds).
    static func declaresWebPlugin(_ body: JSONValue) -> Bool {
        body["plugins"]?.arrayValue?.contains { $0["id"]?.stringValue == "web" } ?? false
    }

    /// `origin`: the items of this origin are replayed (`continuationOrigin`). `contextNote`: the
    /// volatile tail, sent last.
    static func messages(system: String, _ messages: [Message], origin: String, contextNote: String = "") -> [JSONValue] {
        let ids = WireCallIDs(messages, rule: .chatCompletions)
        var out: [JSONValue] = []
        if !system.isEmpty { out.append(["role": "system", "content": .string(system)]) }
        for message in messages {
            switch message.role {
            case .user:
                var text = ""
                for part in message.parts {
                    switch part {
                    case .text(let t): text += t
                    case .toolResult(let r): out.append(toolMessage(r, id: ids.wire(r.callID)))
                    default: break
                    }
                }
                if !message.attachments.isEmpty {
                    var content: [JSONValue] = text.isEmpty ? [] : [["type": "text", "text": .string(text)]]
                    content += message.attachments.map(AttachmentParts.chatCompletions)
                    out.append(["role": "user", "content": .array(content)])
                } else if !text.isEmpty || message.toolResults.isEmpty {
                    out.append(["role": "user", "content": .string(text)])
                }
            case .tool:
                for r in message.toolResults { out.append(toolMessage(r, id: ids.wire(r.callID))) }
            case .assistant:
                var m: [String: JSONValue] = ["role": "assistant"]
                let text = message.text
                let calls = message.toolCalls
                if !text.isEmpty || calls.isEmpty { m["content"] = .string(text) }
                if !calls.isEmpty {
                    m["tool_calls"] = .array(calls.map { call in
                        ["id": .string(ids.wire(call.id)), "type": "function",
                         "function": ["name": .string(call.name), "arguments": .string(call.arguments)]]
                    })
                }
                var replayed = false
                for case .continuation(let item) in message.parts where item.provider == "openai-chat" && item.origin == origin {
                    switch item.kind {
                    case "reasoning_details":
                        // Written by the decoder as a JSON array; a corrupt one cannot be echoed at all.
                        if let details = try? JSONValue.parse(item.payload) { m["reasoning_details"] = details; replayed = true }
                    case "reasoning_content", "reasoning":
                        m[item.kind] = .string(item.payload)
                        replayed = true
                    default:
                        break
                    }
                }
                // Nothing left to say (only another provider's continuation): no empty assistant message.
                if text.isEmpty && calls.isEmpty && !replayed { continue }
                out.append(.object(m))
            }
        }
        if !contextNote.isEmpty { appendNote(contextNote, to: &out) }
        return out
    }

    /// The note after the last user message's text, or as a user message of its own.
    static func appendNote(_ note: String, to out: inout [JSONValue]) {
        guard let last = out.last, last["role"] == "user" else {
            out.append(["role": "user", "content": .string(note)])
            return
        }
        if let text = last["content"]?.stringValue {
            out[out.count - 1] = ["role": "user", "content": .string(text.isEmpty ? note : text + "\n\n" + note)]
        } else {
            let parts = last["content"]?.arrayValue ?? []
            out[out.count - 1] = ["role": "user", "content": .array(parts + [["type": "text", "text": .string(note)]])]
        }
    }

    static func toolMessage(_ r: ToolResult, id: String) -> JSONValue {
        ["role": "tool", "tool_call_id": .string(id), "content": .string(r.content)]
    }
}

/// Assembles Chat Completions chunks into ChatEvents.
struct ChatCompletionsDecoder: WireDecoder {
    /// Each event's JSON, read in place; one document reused for the whole stream.
    let json = JSONDocument()
    struct PendingCall {
        var index: Int?
        var id: String
        var name: String
        var arguments: String
    }
    var calls: [PendingCall] = []
    var finishReason: String?
    var done = false
    var isComplete: Bool { done }
    var usage: Usage?
    var responseID: String?
    /// Checks of a local server's answer (markers, tools not given to the model); nil for hosted.
    var local: LocalAnswerChecks?
    var reasoningContent = ""
    var reasoning = ""
    /// Perplexity's `citations`/`search_results` (repeated on every chunk: read once) and
    /// OpenRouter's url_citation annotations.
    var web = WebSources(backend: "openrouter")
    /// reasoning_details merged by index, in first-seen order.
    var details: [(index: Int, value: [String: JSONValue], pieces: [String: String])] = []

    mutating func decode(_ event: SSEEventView) throws -> [ChatEvent] {
        if done { return [] }
        // The end marker, possibly padded with spaces or tabs; a blank payload carries nothing.
        var marker = event.data[...]
        while let b = marker.first, b == 0x20 || b == 0x09 { marker = marker.dropFirst() }
        while let b = marker.last, b == 0x20 || b == 0x09 { marker = marker.dropLast() }
        if marker.isEmpty { return [] }
        if marker.elementsEqual("[DONE]".utf8) {
            done = true
            return []
        }
        return try json.withEvent(event) { try decode($0) }
    }

    /// Decodes one event's JSON, lent by `json` for this call only.
    private mutating func decode(_ chunk: JSONRef) throws -> [ChatEvent] {
        // Some servers put `"error": null` on every chunk; only a real value is an error.
        if (chunk["error"].map { !$0.isNull } ?? false) || chunk["object"]?.isString("error") == true {
            throw ProviderStreamError.provider(ProviderErrorBody.parse(chunk) ?? ProviderErrorBody(message: nil, code: nil))
        }
        var out: [ChatEvent] = []
        if responseID == nil, let id = chunk["id"]?.stringValue, !id.isEmpty {
            responseID = id
            out.append(.responseID(id))
        }
        if let u = chunk["usage"], u.objectValue != nil {
            let reasoningTokens = u["completion_tokens_details"]?["reasoning_tokens"]?.intValue ?? 0
            usage = Usage(inputTokens: u["prompt_tokens"]?.intValue ?? 0,
                          cachedInputTokens: u["prompt_tokens_details"]?["cached_tokens"]?.intValue ?? 0,
                          outputTokens: u["completion_tokens"]?.intValue ?? 0,
                          reasoningTokens: reasoningTokens)
        }
        if web.citations.isEmpty, let cited = chunk["citations"]?.arrayValue, !cited.isEmpty {
            web.backend = "perplexity"
            for c in cited { if let url = c.stringValue { web.cite(WebSources.Link(url: url)) } }
        }
        if web.searches.isEmpty, let results = chunk["search_results"]?.arrayValue, !results.isEmpty {
            web.backend = "perplexity"
            let links = results.compactMap { r -> WebSources.Link? in
                guard let url = r["url"]?.stringValue else { return nil }
                let date = r["date"]?.stringValue.map { "date: \($0)" } ?? ""
                return WebSources.Link(url: url, title: r["title"]?.stringValue ?? "", text: r["snippet"]?.stringValue ?? date)
            }
            web.searches.append(WebSources.Search(query: "", results: links))
            // Titles for the citations that name the same pages.
            for i in web.citations.indices where web.citations[i].title.isEmpty {
                web.citations[i].title = links.first { $0.url == web.citations[i].url }?.title ?? ""
            }
        }
        for choice in chunk["choices"]?.arrayValue ?? [] where (choice["index"]?.intValue ?? 0) == 0 {
            let delta = choice["delta"] ?? choice["message"]
            for a in delta?["annotations"]?.arrayValue ?? [] where a["type"]?.isString("url_citation") == true {
                let c = a["url_citation"]
                if let url = c?["url"]?.stringValue {
                    web.cite(WebSources.Link(url: url, title: c?["title"]?.stringValue ?? "", text: c?["content"]?.stringValue ?? ""))
                }
            }
            if let text = delta?["content"]?.stringValue, !text.isEmpty {
                local?.saw(text)
                out.append(.textDelta(text))
            }
            if let r = delta?["reasoning_content"]?.stringValue { reasoningContent += r }
            if let r = delta?["reasoning"]?.stringValue { reasoning += r }
            for d in delta?["reasoning_details"]?.arrayValue ?? [] { mergeDetail(d.value) }
            for fragment in delta?["tool_calls"]?.arrayValue ?? [] { addFragment(fragment) }
            if let reason = choice["finish_reason"]?.stringValue {
                if reason == "error" {
                    let err = ProviderErrorBody.parse(chunk) ?? ProviderErrorBody(
                        message: "the provider ended the answer with an error" + (choice["native_finish_reason"]?.stringValue.map { " (\($0))" } ?? ""),
                        code: choice["native_finish_reason"]?.stringValue)
                    throw ProviderStreamError.provider(err)
                }
                finishReason = reason
            }
        }
        return out
    }

    mutating func addFragment(_ fragment: JSONRef) {
        let index = fragment["index"]?.intValue
        let id = fragment["id"]?.stringValue ?? ""
        let fn = fragment["function"]
        let name = fn?["name"]?.stringValue ?? ""
        // Arguments are a JSON string fragment; a few servers send a whole object instead.
        let rawArgs = fn?["arguments"]
        let args = rawArgs?.stringValue ?? (rawArgs?.objectValue != nil ? rawArgs?.serialized ?? "" : "")
        // Which call does this fragment continue? Key by `index`; without one, the latest call.
        // A new non-empty id always starts a new call (index reuse, or servers without index).
        var target: Int?
        if let index {
            target = calls.lastIndex { $0.index == index }
        } else if !calls.isEmpty {
            target = calls.count - 1
        }
        if let t = target, !id.isEmpty, !calls[t].id.isEmpty, calls[t].id != id { target = nil }
        if let t = target {
            if calls[t].id.isEmpty { calls[t].id = id }
            if calls[t].name.isEmpty { calls[t].name = name }
            // Past the cap the call is rejected anyway: holding more only uses memory.
            if calls[t].arguments.utf8.count < AnswerLimits.adapterArgumentCeiling { calls[t].arguments += args }
        } else if calls.count <= AnswerLimits.standard.stopAfterCalls {
            // (one more than the agent accepts, so it sees that the answer made too many)
            calls.append(PendingCall(index: index, id: id, name: name, arguments: args))
        }
    }

    mutating func mergeDetail(_ d: JSONValue) {
        guard var obj = d.objectValue else { return }
        let index = obj["index"]?.intValue ?? details.count
        guard let at = details.firstIndex(where: { $0.index == index }) else {
            details.append((index, obj, [:]))
            return
        }
        // Text pieces are appended in place and merged at the end (concatenating into the
        // JSON value per fragment copied the whole text each time).
        for key in ["text", "summary", "data", "signature"] {
            if let piece = obj.removeValue(forKey: key)?.stringValue { details[at].pieces[key, default: ""] += piece }
        }
        for (k, v) in obj where details[at].value[k] == nil || details[at].value[k] == .null { details[at].value[k] = v }
    }

    /// The merged reasoning_details objects.
    var mergedDetails: [JSONValue] {
        details.map { detail in
            var value = detail.value
            for (key, rest) in detail.pieces { value[key] = .string((value[key]?.stringValue ?? "") + rest) }
            return .object(value)
        }
    }

    mutating func finish() throws -> [ChatEvent] {
        guard finishReason != nil || done else { throw ProviderStreamError.truncated }
        var out: [ChatEvent] = []
        if !web.isEmpty { out.append(.continuation(web.item)) }
        if !details.isEmpty {
            let payload = JSONValue.array(mergedDetails).serialized
            out.append(.continuation(ContinuationItem(provider: "openai-chat", kind: "reasoning_details", payload: payload)))
        } else if !reasoning.isEmpty {
            out.append(.continuation(ContinuationItem(provider: "openai-chat", kind: "reasoning", payload: reasoning)))
        }
        if !reasoningContent.isEmpty {
            out.append(.continuation(ContinuationItem(provider: "openai-chat", kind: "reasoning_content", payload: reasoningContent)))
        }
        // Servers that send no call id get one unique to this response (the ledger keys writes by it).
        let prefix = responseID ?? "call-" + UUID().uuidString.lowercased()
        for (n, call) in calls.enumerated() {
            let id = call.id.isEmpty ? "\(prefix)-\(n + 1)" : call.id
            out.append(.toolCall(ToolCall(id: id, name: call.name, arguments: call.arguments)))
        }
        if let usage { out.append(.usage(usage)) }
        if let local { out += local.notices(usage: usage).map { .notice($0) } }
        let mapped: FinishReason
        if !calls.isEmpty {
            mapped = .toolCalls // finish_reason is not trusted for tool use
        } else {
            switch finishReason {
            case "stop", nil: mapped = .stop
            case "length": mapped = .length
            case "content_filter": mapped = .contentFilter
            case "tool_calls", "function_call": mapped = .stop
            default: mapped = .other
            }
        }
        out.append(.finish(mapped))
        return out
    }
}

/// What ofj checks in a local server's answer, because a server set up wrong still answers 200:
/// chat-template markers in the text (the server's template does not match the model), and a
/// prompt count far below the tool specs sent (the template dropped the tools). Each is said once
/// per model, as a notice line.
struct LocalAnswerChecks: Sendable {
    final class Said: Sendable {
        let flags = Mutex(Set<String>())
        /// True the first time `what` is said.
        func first(_ what: String) -> Bool { flags.withLock { $0.insert(what).inserted } }
    }
    var provider: String
    /// Estimated tokens of the request's tool specs (0 without tools).
    var toolTokens: Int
    /// Estimated tokens of the system prompt (sent whether or not the template shows the tools).
    var systemTokens: Int
    let said: Said
    /// The start of the answer's text (markers show up early).
    var text = ""

    init(provider: String, toolTokens: Int, systemTokens: Int = 0, said: Said) {
        self.provider = provider
        self.toolTokens = toolTokens
        self.systemTokens = systemTokens
        self.said = said
    }

    mutating func saw(_ delta: String) {
        if text.utf8.count < 16_384 { text += delta }
    }

    func notices(usage: Usage?) -> [String] {
        var out: [String] = []
        if let marker = TemplateMarkers.first(in: text), said.first("markers") {
            out.append("The model's text contains chat-template markers (\(marker.prefix(24))): the server's chat template does not match the model; "
                       + "start the server with the model's own template (llama-server --jinja; see docs/PROVIDERS.md, \"Local servers\").")
        }
        // A server that showed the model the tools counted at least the system prompt and every
        // spec; one that dropped them counted the system prompt and the messages. Fewer than the
        // system prompt and half the specs means the specs were not there (the everyday set is
        // ~2k tokens, so a first message of up to ~1k tokens is still told apart).
        if let input = usage?.inputTokens, input > 0, toolTokens >= 200, input < systemTokens + toolTokens / 2, said.first("tools") {
            out.append("The server counted \(input) prompt tokens for a request whose tool specs alone are ~\(toolTokens): the server did not give the "
                       + "model the tools; start llama-server with --jinja and a template with tools (llama-cpp-python: a tool-capable chat format, "
                       + "not chatml-function-calling).")
        }
        return out
    }
}
