// OpenAI Responses API adapter (OpenAI /v1/responses and Azure OpenAI v1), stateless with encrypted reasoning.
import Base
import Foundation
import HTTP
import Agent

/// Stateless Responses API: `store:false`, `include:["reasoning.encrypted_content"]`.
/// - OpenAI: `POST {base}/responses` (base "https://api.openai.com/v1"), bearer key.
/// - Azure: `POST {endpoint}/openai/v1/responses`, `api-key` header, deployment as model, no api-version.
///
/// Continuation items (family "openai-responses", or "azure-responses" so blobs never cross
/// backends), replayed only to the base URL and model that produced them:
/// - kind "reasoning", payload = `{"type":"reasoning","id":…,"encrypted_content":…,"summary":[…]}`
///   taken from `response.output_item.done`, replayed before the function_call it preceded.
///   Reasoning items without encrypted content are not kept (replaying them fails under store:false).
/// - kind "message", payload = `{"id":"msg_…"}`: the id of an assistant message item that came
///   right after a kept reasoning item. The API refuses a reasoning item followed by a message
///   without its id ("provided without its required following item"), and a message id without
///   its reasoning item, so the pair is replayed together (the text as an output message with
///   that id) or the reasoning item is left out.
///
/// - kind "server_item", payload = a `web_search_call` output item exactly as received (id,
///   status, action), with `nativeWebSearch` (the request declares `{"type":"web_search"}` and
///   asks for `web_search_call.action.sources`); replayed at its position, after the reasoning item
///   that preceded it. What it found and the answer's `url_citation`s also come as a `WebSources` item.
///
/// A `web_search_call` goes back only with the reasoning item it followed (or, when no reasoning
/// preceded it, alone): one whose reasoning item was not kept (no encrypted content) is not kept
/// either, and one whose reasoning item is not replayed is left out with it.
///
/// Images carry `detail` ("auto"), which the spec requires. The context note
/// (`ChatRequest.contextNote`) ends the input: an `input_text` after the last user message's
/// parts, or a user message of its own after tool outputs.
///
/// Call ids over 64 characters (the API's limit) are sent as stand-ins (`WireCallIDs`).
public struct ResponsesModel: ChatModel {
    public enum Flavor: String, Sendable {
        case openAI, azure
    }
    public let config: AdapterConfig
    public let flavor: Flavor
    let transport: any HTTPTransport
    public var provider: String { config.provider }
    public var model: String { config.model }
    public var continuationFamily: String { flavor == .azure ? "azure-responses" : "openai-responses" }
    /// Stamped on the continuation items this model receives; only items with this origin are replayed.
    public var continuationOrigin: String { config.continuationOrigin(family: continuationFamily) }

    public init(config: AdapterConfig, flavor: Flavor = .openAI, transport: any HTTPTransport) {
        self.config = config
        self.flavor = flavor
        self.transport = transport
    }

    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        let first = httpRequest(request, includeReasoning: true)
        let hasReasoning = Self.hasReasoningItems(request.messages, family: continuationFamily, origin: continuationOrigin)
        let withoutItems = hasReasoning ? httpRequest(request, includeReasoning: false) : nil
        let plain = httpRequest(request, includeReasoning: false, askForReasoning: false)
        let driver = StreamDriver(transport: transport, mapper: ErrorMapper(config: config), now: { Date().timeIntervalSince1970 },
                                  origin: continuationOrigin, attachments: request.attachments)
        let family = continuationFamily
        let declared = Set(request.tools.map(\.name))
        return makeEventStream { out in
            do {
                try await driver.run(first, decoder: ResponsesDecoder(family: family, declaredTools: declared), out: out)
            } catch let error as ChatError {
                // Both retries happen only on a refusal before any output (httpStatus set).
                guard let status = error.httpStatus, status == 400 || status == 404 else { throw error }
                let lowered = error.message.lowercased()
                if let withoutItems, error.message.contains("rs_") || error.message.contains("ws_") || error.code == "invalid_encrypted_content" {
                    // A stored reasoning item the server cannot verify or find: once without them.
                    try await driver.run(withoutItems, decoder: ResponsesDecoder(family: family, declaredTools: declared), out: out)
                } else if status == 400, lowered.contains("encrypted") || lowered.contains("'include'") || lowered.contains("reasoning") {
                    // A model (or Azure deployment) without reasoning refuses the include: once without it.
                    try await driver.run(plain, decoder: ResponsesDecoder(family: family, declaredTools: declared), out: out)
                } else {
                    throw error
                }
            }
        }
    }

    public var url: String {
        flavor == .azure ? "\(config.baseURL)/openai/v1/responses" : "\(config.baseURL)/responses"
    }

    /// `includeReasoning`: replay stored reasoning items; `askForReasoning`: send
    /// `include:["reasoning.encrypted_content"]` (models without reasoning may refuse it).
    public func httpRequest(_ request: ChatRequest, includeReasoning: Bool = true, askForReasoning: Bool = true) -> HTTPRequest {
        var headers = [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Accept", "text/event-stream")]
        if let key = config.apiKey, !key.isEmpty {
            headers.append(flavor == .azure ? HTTPHeader("api-key", key) : HTTPHeader("Authorization", "Bearer \(key)"))
        }
        headers += config.extraHeaders
        return HTTPRequest(url: url, headers: headers, body: WireJSON.body(requestBody(request, includeReasoning: includeReasoning, askForReasoning: askForReasoning)),
                           timeouts: config.timeouts)
    }

    public func requestBody(_ request: ChatRequest, includeReasoning: Bool = true, askForReasoning: Bool = true) -> JSONValue {
        var body: [String: JSONValue] = [
            "model": .string(config.model),
            "stream": true,
            "store": false,
            "include": ["reasoning.encrypted_content"],
            "input": .array(input(request, includeReasoning: includeReasoning)),
            "max_output_tokens": .number(Double(request.maxOutputTokens)),
        ]
        if !askForReasoning { body["include"] = nil }
        var tools: [JSONValue] = request.tools.map { tool in
            ["type": "function", "name": .string(tool.name), "description": .string(tool.description),
             "parameters": tool.parameters, "strict": false]
        }
        if config.nativeWebSearch && request.purpose == .answer {
            tools.append(["type": "web_search"])
            body["include"] = .array((body["include"]?.arrayValue ?? []) + ["web_search_call.action.sources"])
        }
        if !tools.isEmpty {
            body["tools"] = .array(tools)
            body["tool_choice"] = "auto"
        }
        return WireJSON.merge(body, config.extraBody)
    }

    static func hasReasoningItems(_ messages: [Message], family: String, origin: String) -> Bool {
        messages.contains { m in
            m.parts.contains {
                if case .continuation(let c) = $0 { return c.provider == family && c.origin == origin && (c.kind == "reasoning" || c.kind == "server_item") } else { return false }
            }
        }
    }

    func input(_ request: ChatRequest, includeReasoning: Bool) -> [JSONValue] {
        let ids = WireCallIDs(request.messages, rule: .responses)
        var out: [JSONValue] = []
        if !request.system.isEmpty { out.append(["role": "developer", "content": .string(request.system)]) }
        for message in request.messages {
            switch message.role {
            case .user, .tool:
                var text = ""
                for part in message.parts {
                    switch part {
                    case .text(let t): text += t
                    case .toolResult(let r):
                        out.append(["type": "function_call_output", "call_id": .string(ids.wire(r.callID)), "output": .string(r.content)])
                    default: break
                    }
                }
                var content: [JSONValue] = text.isEmpty ? [] : [["type": "input_text", "text": .string(text)]]
                content += message.attachments.map { AttachmentParts.responses($0) }
                if !content.isEmpty { out.append(["role": "user", "content": .array(content)]) }
            case .assistant:
                out += assistantItems(message, ids: ids, includeReasoning: includeReasoning)
            }
        }
        if !request.contextNote.isEmpty {
            let note: JSONValue = ["type": "input_text", "text": .string(request.contextNote)]
            if let last = out.last, last["role"] == "user", let content = last["content"]?.arrayValue {
                out[out.count - 1] = ["role": "user", "content": .array(content + [note])]
            } else {
                out.append(["role": "user", "content": [note]])
            }
        }
        return out
    }

    /// One assistant message as input items, in the order they were received.
    private func assistantItems(_ message: Message, ids: WireCallIDs, includeReasoning: Bool) -> [JSONValue] {
        enum Item {
            case reasoning(JSONValue)
            case text(String, messageID: String?)
            case call(JSONValue)
            /// A server tool's output item (web_search_call), sent back as received; `withReasoning`:
            /// it followed a reasoning item (directly, or after other server items that did).
            case server(JSONValue, withReasoning: Bool)
        }
        var items: [Item] = []
        var text = ""
        func flush(messageID: String? = nil) {
            if !text.isEmpty { items.append(.text(text, messageID: messageID)) }
            text = ""
        }
        for part in message.parts {
            switch part {
            case .text(let t):
                text += t
            case .toolCall(let call):
                flush()
                // No item `id`: under store:false echoed fc_ ids are rejected by some backends.
                items.append(.call(["type": "function_call", "call_id": .string(ids.wire(call.id)), "name": .string(call.name),
                                    "arguments": .string(call.arguments)]))
            case .continuation(let item) where item.provider == continuationFamily && item.origin == continuationOrigin:
                switch item.kind {
                case "reasoning" where includeReasoning:
                    flush()
                    // Written by the decoder; a corrupt item is left out (the API then just lacks the reasoning).
                    if let value = try? JSONValue.parse(item.payload) { items.append(.reasoning(value)) }
                case "message":
                    flush(messageID: (try? JSONValue.parse(item.payload))?["id"]?.stringValue)
                case "server_item" where includeReasoning:
                    flush()
                    let chained: Bool
                    switch items.last {
                    case .reasoning?: chained = true
                    case .server(_, let withReasoning)?: chained = withReasoning
                    default: chained = false
                    }
                    if let value = try? JSONValue.parse(item.payload) { items.append(.server(value, withReasoning: chained)) }
                default:
                    break
                }
            default:
                break
            }
        }
        flush()
        // A reasoning item goes only with the item that followed it: a call, or the message whose id
        // is known. A message id goes only right after its reasoning item.
        var out: [JSONValue] = []
        var afterReasoning = false
        // Whether the reasoning item the current run of server items follows went out.
        var reasoningSent = false
        for (k, item) in items.enumerated() {
            switch item {
            case .reasoning(let value):
                let next = k + 1 < items.count ? items[k + 1] : nil
                switch next {
                case .call?, .server?, .text(_, messageID: _?)?:
                    out.append(value)
                    afterReasoning = true
                    reasoningSent = true
                    continue
                default:
                    reasoningSent = false
                }
            case .text(let t, let messageID):
                if afterReasoning, let messageID {
                    out.append(["type": "message", "id": .string(messageID), "role": "assistant", "status": "completed",
                                "content": [["type": "output_text", "text": .string(t), "annotations": []]]])
                } else {
                    out.append(["role": "assistant", "content": .string(t)])
                }
            case .call(let value):
                out.append(value)
            case .server(let value, let withReasoning):
                // Never without the reasoning item it came with: the API refuses that pair split.
                if withReasoning && !reasoningSent { continue }
                out.append(value)
                afterReasoning = false
                continue
            }
            afterReasoning = false
            reasoningSent = false
        }
        return out
    }
}

/// Decodes Responses API stream events.
struct ResponsesDecoder: WireDecoder {
    /// Each event's JSON, read in place; one document reused for the whole stream.
    let json = JSONDocument()
    var family: String
    /// Tools the request declared; a call to an undeclared "parallel" is Azure's wrapper.
    var declaredTools: Set<String>
    var completed = false
    var isComplete: Bool { completed }
    var status: String?
    var incompleteReason: String?
    var usage: Usage?
    var sawCall = false
    var emittedCalls = Set<String>()
    /// The latest output item was a reasoning item kept as a continuation item.
    var lastItemWasKeptReasoning = false
    /// The latest output items are a reasoning item that was not kept (no encrypted content),
    /// maybe followed by web_search_calls: those cannot be replayed without it either.
    var afterDroppedReasoning = false
    var responseID: String?
    /// Text already streamed per item, to fill in from `output_text.done` if deltas were missing.
    var streamedText: [String: String] = [:]
    /// What web_search_call items found and the answer cited.
    var web = WebSources(backend: "openai")

    init(family: String, declaredTools: Set<String> = []) {
        self.family = family
        self.declaredTools = declaredTools
    }

    mutating func decode(_ event: SSEEventView) throws -> [ChatEvent] {
        if completed { return [] }
        return try json.withEvent(event) { try decode($0, event) }
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
            throw ProviderStreamError.provider(ProviderErrorBody.parse(e) ?? ProviderErrorBody(message: e["message"]?.stringValue, code: e["code"]?.stringValue))
        case "response.failed":
            let err = e["response"]?["error"]
            throw ProviderStreamError.provider(ProviderErrorBody(message: err?["message"]?.stringValue ?? "the response failed",
                                                                 code: err?["code"]?.stringValue))
        case "response.created", "response.in_progress":
            if responseID == nil, let id = e["response"]?["id"]?.stringValue {
                responseID = id
                out.append(.responseID(id))
            }
        case "response.output_text.delta", "response.refusal.delta":
            if let d = e["delta"]?.stringValue, !d.isEmpty {
                streamedText[e["item_id"]?.stringValue ?? "", default: ""] += d
                out.append(.textDelta(d))
            }
        case "response.output_text.done":
            // Deltas are authoritative; only fill a gap if none arrived for this item.
            let id = e["item_id"]?.stringValue ?? ""
            if streamedText[id] == nil, let t = e["text"]?.stringValue, !t.isEmpty {
                streamedText[id] = t
                out.append(.textDelta(t))
            }
        case "response.output_item.done":
            guard let item = e["item"] else { break }
            let afterKeptReasoning = lastItemWasKeptReasoning
            lastItemWasKeptReasoning = false
            let droppedBefore = afterDroppedReasoning
            afterDroppedReasoning = false
            switch item["type"]?.stringValue {
            case "reasoning":
                afterDroppedReasoning = true
                if let blob = item["encrypted_content"]?.stringValue, !blob.isEmpty, let id = item["id"]?.stringValue {
                    afterDroppedReasoning = false
                    var kept: [String: JSONValue] = ["type": "reasoning", "id": .string(id), "encrypted_content": .string(blob)]
                    kept["summary"] = item["summary"]?.value ?? .array([])
                    out.append(.continuation(ContinuationItem(provider: family, kind: "reasoning", payload: JSONValue.object(kept).serialized)))
                    lastItemWasKeptReasoning = true
                }
            case "message":
                // The reasoning item just kept must be replayed with this message's id (see ResponsesModel).
                if afterKeptReasoning, let id = item["id"]?.stringValue, !id.isEmpty {
                    let payload: JSONValue = ["id": .string(id)]
                    out.append(.continuation(ContinuationItem(provider: family, kind: "message", payload: payload.serialized)))
                }
            case "web_search_call":
                if let value = item.value.objectValue {
                    // Replayable only with the reasoning item it followed; that one was not kept.
                    if droppedBefore {
                        afterDroppedReasoning = true
                    } else {
                        out.append(.continuation(ContinuationItem(provider: family, kind: "server_item", payload: JSONValue.object(value).serialized)))
                    }
                    noteSearch(JSONValue.object(value))
                }
            case "function_call":
                sawCall = true
                let call = ToolCall(id: item["call_id"]?.stringValue ?? item["id"]?.stringValue ?? "",
                                    name: item["name"]?.stringValue ?? "",
                                    arguments: item["arguments"]?.stringValue ?? "")
                emittedCalls.insert(call.id)
                out += expandParallelWrapper(call).map { .toolCall($0) }
            default:
                break
            }
        case "response.output_text.annotation.added":
            if let a = e["annotation"], a["type"]?.isString("url_citation") == true, let url = a["url"]?.stringValue {
                web.cite(WebSources.Link(url: url, title: a["title"]?.stringValue ?? ""))
            }
        case "response.completed", "response.incomplete":
            completed = true
            let r = e["response"]
            status = r?["status"]?.stringValue ?? ("response.completed" ~= type ? "completed" : "incomplete")
            incompleteReason = r?["incomplete_details"]?["reason"]?.stringValue
            // Calls the stream never announced with output_item.done (seen from some proxies).
            for item in r?["output"]?.arrayValue ?? [] where item["type"]?.stringValue == "function_call" {
                guard let callID = item["call_id"]?.stringValue, !emittedCalls.contains(callID) else { continue }
                sawCall = true
                emittedCalls.insert(callID)
                out += expandParallelWrapper(ToolCall(id: callID, name: item["name"]?.stringValue ?? "",
                                                      arguments: item["arguments"]?.stringValue ?? "")).map { .toolCall($0) }
            }
            if let u = r?["usage"], u.objectValue != nil {
                usage = Usage(inputTokens: u["input_tokens"]?.intValue ?? 0,
                              cachedInputTokens: u["input_tokens_details"]?["cached_tokens"]?.intValue ?? 0,
                              outputTokens: u["output_tokens"]?.intValue ?? 0,
                              reasoningTokens: u["output_tokens_details"]?["reasoning_tokens"]?.intValue ?? 0)
            }
        default:
            break
        }
        return out
    }

    /// A web_search_call's action: a search (query, sources), or a page opened or searched.
    mutating func noteSearch(_ item: JSONValue) {
        // A web_search_call is evidence of a search even when it says nothing of what it found.
        web.searched = true
        guard let action = item["action"] else { return }
        switch action["type"]?.stringValue {
        case "search":
            let links = (action["sources"]?.arrayValue ?? []).compactMap { s in s["url"]?.stringValue.map { WebSources.Link(url: $0) } }
            let query = action["query"]?.stringValue ?? (action["queries"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: " | ")
            web.searches.append(WebSources.Search(query: query, results: links))
        case "open_page", "find_in_page":
            if let url = action["url"]?.stringValue { web.searches.append(WebSources.Search(query: "", results: [WebSources.Link(url: url)])) }
        default:
            break
        }
    }

    /// Azure gpt-5.4 sometimes wraps parallel calls in one call named "parallel" with
    /// `{"tool_uses":[{"recipient_name":"functions.x","parameters":{…}}]}`. Unless the app really
    /// declared a tool of that name, expand it into the calls it stands for, with ids derived from
    /// the wrapper's call_id (the API is stateless, so they are replayed as ordinary calls).
    func expandParallelWrapper(_ call: ToolCall) -> [ToolCall] {
        guard call.name == "parallel", !declaredTools.contains("parallel"),
              let uses = (try? call.parsedArguments())?["tool_uses"]?.arrayValue, !uses.isEmpty else { return [call] }
        var calls: [ToolCall] = []
        for (n, use) in uses.enumerated() {
            guard var name = use["recipient_name"]?.stringValue else { return [call] }
            if name.hasPrefix("functions.") { name.removeFirst("functions.".count) }
            let args = use["parameters"] ?? .object([:])
            calls.append(ToolCall(id: "\(call.id)_\(n + 1)", name: name, arguments: args.serialized))
        }
        return calls
    }

    mutating func finish() throws -> [ChatEvent] {
        guard completed else { throw ProviderStreamError.truncated }
        var out: [ChatEvent] = []
        if !web.isEmpty { out.append(.continuation(web.item)) }
        if let usage { out.append(.usage(usage)) }
        if sawCall {
            out.append(.finish(.toolCalls))
        } else if status == "incomplete" {
            out.append(.finish(incompleteReason == "content_filter" ? .contentFilter : .length))
        } else {
            out.append(.finish(.stop))
        }
        return out
    }
}
