// Google Gemini adapter: streamGenerateContent?alt=sse, function calls and thought signatures.
import Base
import Foundation
import HTTP
import Agent

/// Gemini Developer API (`{base}/models/{model}:streamGenerateContent?alt=sse`, key in the
/// `x-goog-api-key` header, never in the URL).
///
/// Continuation items (family "gemini"):
/// - kind "function_call", payload `{"callID":…, "thoughtSignature"?:…, "synthesizedID"?:true}`:
///   the signature that came on that call's part, and whether the id was made up here because
///   the model sent none (such ids are not sent back).
/// - kind "signed_part", payload = the exact part JSON (`{"text":…,"thoughtSignature":…}`, maybe
///   `"thought":true`): a non-call part that carried a signature, replayed as-is at its position.
///   Its text is also streamed as a text delta just before the item, and removed again from the
///   preceding text on replay so it is not sent twice.
///
/// - kind "server_part", payload = the exact part: a `toolCall` or `toolResponse` of Google's own
///   tools (search, URL context), which a request with `includeServerSideToolInvocations` gets
///   back. Never run here. Replayed at its position only as a whole pair (same `id`) with both
///   signatures; otherwise both are left out (one without its signature is refused with 400).
///
/// With `nativeWebSearch` the request also declares `{"google_search":{}}` and `{"url_context":{}}`;
/// beside function declarations (Gemini 3 only: older models refuse the combination, so they
/// get the function tools alone) with `toolConfig.includeServerSideToolInvocations: true` and
/// `functionCallingConfig.mode: VALIDATED` (AUTO is not supported with the flag). A 400 that
/// still refuses the combination is retried once without Google's tools, said in one notice,
/// and later requests of this model leave them out. Grounding: `groundingMetadata` (queries,
/// chunks, supports) and `urlContextMetadata` become a `WebSources` item.
///
/// Contents follow Google's rules for function responses: a content with `functionResponse`
/// parts holds nothing else. An attachment shown for a tool result (read_attachment, a fetched
/// PDF) goes inside that `functionResponse.parts` on Gemini 3, else in the next user content.
/// Images Gemini does not take (GIF) are never sent as inline data.
///
/// The context note (`ChatRequest.contextNote`) ends the request: a text part after the last
/// user content's parts, or a user content of its own after function responses.
///
/// Signatures go back only to the base URL and model that produced them; a synthesized-id marker
/// is honoured from any Gemini origin (it says the id is ofj's, not the model's). Tools are
/// declared with `parametersJsonSchema` (the full JSON Schema, so map-typed fields declared with
/// `additionalProperties` stay visible), and without any schema when they take no arguments.
public struct GeminiModel: ChatModel {
    public let config: AdapterConfig
    let transport: any HTTPTransport
    public var provider: String { config.provider }
    public var model: String { config.model }
    public var continuationFamily: String { "gemini" }
    /// Stamped on the continuation items this model receives; only items with this origin are replayed.
    public var continuationOrigin: String { config.continuationOrigin(family: continuationFamily, model: Self.bareModel(config.model)) }

    /// Set once Google refused its own tools beside function declarations for this model: later
    /// requests leave them out (and the person was told once).
    let combinationRefused = Flag()

    public init(config: AdapterConfig, transport: any HTTPTransport) {
        self.config = config
        self.transport = transport
    }

    /// The line the person sees when a request went again without Google Search.
    public static let combinationNotice = "Gemini refused Google Search beside ofj's tools, so this answer and the rest of the session go without web search."

    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        let http = httpRequest(request)
        let combined = combinesTools(request)
        let plain = combined ? httpRequest(request, nativeSearch: false) : nil
        let driver = StreamDriver(transport: transport, mapper: ErrorMapper(config: config), now: { Date().timeIntervalSince1970 },
                                  origin: continuationOrigin, attachments: request.attachments)
        let refused = combinationRefused
        return makeEventStream { out in
            do {
                try await driver.run(http, decoder: GeminiDecoder(), out: out)
            } catch let error as ChatError {
                // Only a refusal before any output (httpStatus set) that names the combination.
                guard let plain, error.httpStatus == 400, Self.refusesCombination(error.message) else { throw error }
                refused.set()
                try await driver.run(plain, decoder: GeminiDecoder(), out: out)
                out.yield(.notice(Self.combinationNotice))
            }
        }
    }

    /// Google's 400s for built-in tools beside function declarations (the flag missing, or a
    /// model that cannot combine them).
    static func refusesCombination(_ message: String) -> Bool {
        let m = message.lowercased()
        return m.contains("include_server_side_tool_invocations") || m.contains("includeserversidetoolinvocations")
            || m.contains("built-in tools") || m.contains("tool use with function calling is unsupported")
    }

    /// Whether Google's own tools may go beside function declarations: Gemini 3 models only.
    static func canCombineTools(_ model: String) -> Bool { bareModel(model).lowercased().contains("gemini-3") }

    /// Whether `request` declares Google's tools beside function declarations.
    func combinesTools(_ request: ChatRequest) -> Bool {
        nativeSearch(request) && !request.tools.isEmpty
    }

    /// Whether `request` declares Google Search and URL context.
    func nativeSearch(_ request: ChatRequest) -> Bool {
        guard config.nativeWebSearch, request.purpose == .answer, !combinationRefused.value else { return false }
        return request.tools.isEmpty || Self.canCombineTools(config.model)
    }

    /// The HTTP request for `request` (public for tests and diagnostics; carries the key header).
    public func httpRequest(_ request: ChatRequest, nativeSearch: Bool? = nil) -> HTTPRequest {
        let model = Self.bareModel(config.model)
        let escaped = model.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: ":/?#"))) ?? model
        var headers = [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Accept", "text/event-stream")]
        if let key = config.apiKey { headers.append(HTTPHeader("x-goog-api-key", key)) }
        headers += config.extraHeaders
        return HTTPRequest(url: "\(config.baseURL)/models/\(escaped):streamGenerateContent?alt=sse", headers: headers,
                           body: WireJSON.body(requestBody(request, nativeSearch: nativeSearch)), timeouts: config.timeouts)
    }

    /// `nativeSearch`: declare Google's tools (nil: as configured for this request).
    public func requestBody(_ request: ChatRequest, nativeSearch: Bool? = nil) -> JSONValue {
        let native = nativeSearch ?? self.nativeSearch(request)
        var body: [String: JSONValue] = ["contents": .array(Self.contents(request.messages, model: config.model, origin: continuationOrigin,
                                                                          contextNote: request.contextNote))]
        if !request.system.isEmpty {
            body["systemInstruction"] = ["parts": [["text": .string(request.system)]], "role": "user"]
        }
        var tools: [JSONValue] = []
        if !request.tools.isEmpty {
            tools.append(["functionDeclarations": .array(request.tools.map { tool in
                var declaration: [String: JSONValue] = ["name": .string(tool.name), "description": .string(tool.description)]
                if Self.takesArguments(tool.parameters) { declaration["parametersJsonSchema"] = tool.parameters }
                return .object(declaration)
            })])
            // Beside Google's tools the flag is required, and with it AUTO is not supported.
            body["toolConfig"] = native
                ? ["functionCallingConfig": ["mode": "VALIDATED"], "includeServerSideToolInvocations": true]
                : ["functionCallingConfig": ["mode": "AUTO"]]
        }
        if native { tools += [["google_search": .object([:])], ["url_context": .object([:])]] }
        if !tools.isEmpty { body["tools"] = .array(tools) }
        var generation: [String: JSONValue] = ["maxOutputTokens": .number(Double(request.maxOutputTokens))]
        var extra = config.extraBody
        if let g = extra.removeValue(forKey: "generationConfig")?.objectValue {
            for (k, v) in g { generation[k] = v }
        }
        body["generationConfig"] = .object(generation)
        return WireJSON.merge(body, extra)
    }

    /// The model name without the "models/" resource prefix.
    static func bareModel(_ model: String) -> String {
        model.hasPrefix("models/") ? String(model.dropFirst(7)) : model
    }

    /// False for a schema that declares no arguments (`{}`, or an object with no properties, nothing
    /// required and no map of extra properties): such a tool is declared without a schema, as
    /// Google documents, instead of an object schema with empty `properties`.
    static func takesArguments(_ schema: JSONValue) -> Bool {
        guard let o = schema.objectValue else { return true }
        if let properties = o["properties"], properties.objectValue?.isEmpty != true { return true }
        if let extra = o["additionalProperties"], extra != false { return true }
        if let required = o["required"], required.arrayValue?.isEmpty != true { return true }
        let composite = ["anyOf", "oneOf", "allOf", "$ref", "patternProperties", "minProperties"]
        return composite.contains { o[$0] != nil }
    }

    // MARK: - Transcript → contents

    /// Google's documented placeholder for function calls whose signature is unknown (history
    /// written by another provider); Gemini 3 rejects such calls without one.
    public static let foreignHistorySignature = "skip_thought_signature_validator"

    /// `origin`: the continuation items of this origin are replayed (`continuationOrigin`).
    /// `contextNote`: the volatile tail, sent last.
    static func contents(_ messages: [Message], model: String = "", origin: String, contextNote: String = "") -> [JSONValue] {
        // Ids made up locally (the model sent none) are not sent back, on calls or responses,
        // whichever Gemini model or server made the history.
        var synthesized = Set<String>()
        for m in messages where m.role == .assistant {
            for case .continuation(let item) in m.parts where item.provider == "gemini" && item.kind == "function_call" {
                if let p = try? JSONValue.parse(item.payload), p["synthesizedID"]?.boolValue == true, let id = p["callID"]?.stringValue {
                    synthesized.insert(id)
                }
            }
        }
        let nestsMedia = canCombineTools(model) // multimodal function responses: Gemini 3 only
        var out = AlternatingTurns()
        for message in messages {
            switch message.role {
            case .user:
                var parts: [JSONValue] = []
                var responses: [JSONValue] = []
                for part in message.parts {
                    switch part {
                    case .text(let t) where !t.isEmpty: parts.append(["text": .string(t)])
                    case .toolResult(let r): responses.append(functionResponse(r, synthesized: synthesized))
                    default: break
                    }
                }
                out.append("user", responses, separate: true)
                var attachments = message.attachments
                if nestsMedia, let last = out.turns.last, last.separate, !attachments.isEmpty {
                    // Shown for a tool result just before: inside that functionResponse.
                    let (nested, rest) = nest(attachments, into: last.blocks)
                    if rest.count < attachments.count {
                        out.updateBlocks(at: out.turns.count - 1) { $0 = nested }
                        attachments = rest
                        // The line introducing them is the result's own `attachment_id` now.
                        if attachments.isEmpty { parts = [] }
                    }
                }
                out.append("user", parts + attachments.map(AttachmentParts.gemini))
            case .tool:
                out.append("user", message.toolResults.map { functionResponse($0, synthesized: synthesized) }, separate: true)
            case .assistant:
                out.append("model", modelParts(message, model: model, origin: origin))
            }
        }
        if !contextNote.isEmpty {
            let note: JSONValue = ["text": .string(contextNote)]
            if let last = out.turns.last, last.role == "user", !last.separate {
                out.updateBlocks(at: out.turns.count - 1) { $0.append(note) }
            } else {
                out.append("user", [note])
            }
        }
        return out.json(blocksKey: "parts")
    }

    /// `parts` (function responses) with each attachment a response names (`attachment_id`) put
    /// in that response's `parts`, and the attachments no response names (or of a type function
    /// responses do not take: images PNG, JPEG and WebP, and PDFs).
    static func nest(_ attachments: [AttachmentRef], into parts: [JSONValue]) -> ([JSONValue], [AttachmentRef]) {
        var out = parts
        var rest: [AttachmentRef] = []
        for a in attachments {
            let index = out.firstIndex { $0["functionResponse"]?["response"]?["attachment_id"]?.stringValue == a.id }
            guard !a.id.isEmpty, AttachmentParts.geminiTakes(a.format), let index, var fr = out[index]["functionResponse"]?.objectValue else {
                rest.append(a)
                continue
            }
            fr["parts"] = .array((fr["parts"]?.arrayValue ?? []) + [AttachmentParts.geminiFunctionResponsePart(a)])
            out[index] = ["functionResponse": .object(fr)]
        }
        return (out, rest)
    }

    static func modelParts(_ message: Message, model: String = "", origin: String) -> [JSONValue] {
        var callInfo: [String: JSONValue] = [:]
        let hasGeminiData = message.parts.contains {
            if case .continuation(let c) = $0 { return c.provider == "gemini" && c.origin == origin } else { return false }
        }
        var needsPlaceholder = !hasGeminiData && model.contains("gemini-3")
        for case .continuation(let item) in message.parts where item.provider == "gemini" && item.kind == "function_call" {
            guard let p = try? JSONValue.parse(item.payload), let id = p["callID"]?.stringValue else { continue }
            // Another origin's signature is not sent; its synthesized-id marker still holds.
            callInfo[id] = item.origin == origin ? p : (p["synthesizedID"]?.boolValue == true ? ["synthesizedID": true] : nil)
        }
        let replayable = replayableServerParts(message, origin: origin)
        var parts: [JSONValue] = []
        var text = ""
        func flushText() {
            if !text.isEmpty { parts.append(["text": .string(text)]) }
            text = ""
        }
        for part in message.parts {
            switch part {
            case .text(let t):
                text += t
            case .toolCall(let call):
                flushText()
                let info = callInfo[call.id]
                var fc: [String: JSONValue] = ["name": .string(call.name), "args": WireJSON.argumentsObject(call)]
                if info?["synthesizedID"]?.boolValue != true { fc["id"] = .string(call.id) }
                var p: [String: JSONValue] = ["functionCall": .object(fc)]
                if let sig = info?["thoughtSignature"]?.stringValue {
                    p["thoughtSignature"] = .string(sig)
                } else if needsPlaceholder {
                    p["thoughtSignature"] = .string(foreignHistorySignature)
                    needsPlaceholder = false // only the first call of a step needs one
                }
                parts.append(.object(p))
            case .continuation(let item) where item.provider == "gemini" && item.kind == "signed_part" && item.origin == origin:
                // Written by the decoder as the exact part; a corrupt one cannot be replayed in any form.
                guard let signed = try? JSONValue.parse(item.payload) else { continue }
                if signed["thought"]?.boolValue != true, let t = signed["text"]?.stringValue, !t.isEmpty, text.hasSuffix(t) {
                    text.removeLast(t.count)
                }
                flushText()
                parts.append(signed)
            case .continuation(let item) where item.provider == "gemini" && item.kind == "server_part" && item.origin == origin:
                guard let server = try? JSONValue.parse(item.payload), let id = Self.serverPartID(server), replayable.contains(id) else { continue }
                flushText()
                parts.append(server)
            case .continuation, .toolResult:
                break
            }
        }
        flushText()
        return parts
    }

    /// The `id` pairing a `toolCall` part with its `toolResponse` part.
    static func serverPartID(_ part: JSONValue) -> String? {
        (part["toolCall"] ?? part["toolResponse"])?["id"]?.stringValue
    }

    /// Ids of the server tool calls in `message` that can go back: both the call and its response
    /// are there, each with its signature.
    static func replayableServerParts(_ message: Message, origin: String) -> Set<String> {
        var calls = Set<String>()
        var responses = Set<String>()
        for case .continuation(let item) in message.parts where item.provider == "gemini" && item.kind == "server_part" && item.origin == origin {
            guard let part = try? JSONValue.parse(item.payload), let id = serverPartID(part),
                  part["thoughtSignature"]?.stringValue?.isEmpty == false else { continue }
            if part["toolCall"] != nil { calls.insert(id) } else { responses.insert(id) }
        }
        return calls.intersection(responses)
    }

    static func functionResponse(_ result: ToolResult, synthesized: Set<String>) -> JSONValue {
        let parsed = try? JSONValue.parse(result.content)
        let response: JSONValue
        if result.isError {
            response = ["error": parsed ?? .string(result.content)]
        } else if let parsed, parsed.objectValue != nil {
            response = parsed
        } else {
            response = ["result": .string(result.content)]
        }
        var fr: [String: JSONValue] = ["name": .string(result.name), "response": response]
        if !synthesized.contains(result.callID) { fr["id"] = .string(result.callID) }
        return ["functionResponse": .object(fr)]
    }
}

/// Decodes Gemini `GenerateContentResponse` chunks.
struct GeminiDecoder: WireDecoder {
    /// Each event's JSON, read in place; one document reused for the whole stream.
    let json = JSONDocument()
    var finishReason: String?
    var isComplete: Bool { finishReason != nil }
    var usage: Usage?
    var responseID: String?
    var sawCall = false
    var callCount = 0
    var idPrefix: String?
    /// A Vertex call whose arguments are still streaming (`willContinue`).
    var pending: (name: String, id: String?, signature: String?, args: JSONValue)?
    /// Its streamed string values by path, appended in place (set into `args` when it closes:
    /// rebuilding the value per piece copied it whole), and their size so far.
    var pendingStrings: [[String]: String] = [:]
    var pendingBytes = 0
    /// Grounding (Google Search, URL context) of the answer.
    var web = WebSources(backend: "gemini")

    mutating func decode(_ event: SSEEventView) throws -> [ChatEvent] {
        return try json.withEvent(event) { try decode($0) }
    }

    /// Decodes one event's JSON, lent by `json` for this call only.
    private mutating func decode(_ chunk: JSONRef) throws -> [ChatEvent] {
        if chunk["error"] != nil, let err = ProviderErrorBody.parse(chunk) { throw ProviderStreamError.provider(err) }
        var out: [ChatEvent] = []
        if responseID == nil, let id = chunk["responseId"]?.stringValue {
            responseID = id
            out.append(.responseID(id))
        }
        if let meta = chunk["usageMetadata"], meta["promptTokenCount"] != nil || meta["candidatesTokenCount"] != nil {
            // A cumulative snapshot on every chunk: the last one wins.
            let thoughts = meta["thoughtsTokenCount"]?.intValue ?? 0
            usage = Usage(inputTokens: meta["promptTokenCount"]?.intValue ?? 0,
                          cachedInputTokens: meta["cachedContentTokenCount"]?.intValue ?? 0,
                          outputTokens: (meta["candidatesTokenCount"]?.intValue ?? 0) + thoughts,
                          reasoningTokens: thoughts)
        }
        let candidates = chunk["candidates"]?.arrayValue ?? []
        if candidates.isEmpty, let block = chunk["promptFeedback"]?["blockReason"]?.stringValue {
            throw ProviderStreamError.blocked(block)
        }
        guard let candidate = candidates.first else { return out }
        for part in candidate["content"]?["parts"]?.arrayValue ?? [] {
            out += try decodePart(part)
        }
        if let reason = candidate["finishReason"]?.stringValue { finishReason = reason }
        if let grounding = candidate["groundingMetadata"] { noteGrounding(grounding) }
        for u in candidate["urlContextMetadata"]?["urlMetadata"]?.arrayValue ?? []
        where u["urlRetrievalStatus"]?.isString("URL_RETRIEVAL_STATUS_SUCCESS") == true {
            if let url = u["retrievedUrl"]?.stringValue, !web.pages.contains(where: { $0.url == url }) { web.pages.append(WebSources.Link(url: url)) }
        }
        return out
    }

    /// Queries, the chunks found, and the chunks the answer's segments cite (indexes are checked:
    /// recorded responses point past the chunk list).
    mutating func noteGrounding(_ g: JSONRef) {
        // Grounding metadata is evidence of a search even when no chunk came back.
        web.searched = true
        let chunks = (g["groundingChunks"]?.arrayValue ?? []).map { c -> WebSources.Link? in
            guard let url = c["web"]?["uri"]?.stringValue else { return nil }
            return WebSources.Link(url: url, title: c["web"]?["title"]?.stringValue ?? "")
        }
        guard !chunks.isEmpty else { return }
        let queries = (g["webSearchQueries"]?.arrayValue ?? []).compactMap(\.stringValue)
        web.searches.append(WebSources.Search(query: queries.joined(separator: " | "), results: chunks.compactMap { $0 }))
        var cited = false
        for support in g["groundingSupports"]?.arrayValue ?? [] {
            for i in support["groundingChunkIndices"]?.arrayValue ?? [] {
                guard let n = i.intValue, chunks.indices.contains(n), var link = chunks[n] else { continue }
                link.text = support["segment"]?["text"]?.stringValue ?? ""
                web.cite(link)
                cited = true
            }
        }
        if !cited { for link in chunks.compactMap({ $0 }) { web.cite(link) } }
    }

    mutating func decodePart(_ part: JSONRef) throws -> [ChatEvent] {
        let signature = part["thoughtSignature"]?.stringValue
        if let fc = part["functionCall"] {
            guard let name = fc["name"]?.stringValue else {
                // Vertex streamed arguments: partialArgs pieces, then an empty `{}` terminator.
                guard pending != nil else {
                    if fc["partialArgs"] != nil { throw ProviderStreamError.malformed("call arguments without a call") }
                    return []
                }
                for piece in fc["partialArgs"]?.arrayValue ?? [] { applyPartial(piece) }
                return fc["willContinue"]?.boolValue == true ? [] : closePending()
            }
            var events = closePending()
            // A call without `args` (or with null) is a no-argument call: {}.
            let args: JSONValue = .object(fc["args"]?.objectValue ?? [:])
            if fc["willContinue"]?.boolValue == true {
                pending = (name, fc["id"]?.stringValue, signature, args)
                return events
            }
            events += emitCall(name: name, id: fc["id"]?.stringValue, signature: signature, args: args)
            return events
        }
        if part["toolCall"] != nil || part["toolResponse"] != nil {
            // Google ran its own tool (search, URL context): kept whole for replay, never run here.
            return [.continuation(ContinuationItem(provider: "gemini", kind: "server_part", payload: part.serialized))]
        }
        if let text = part["text"]?.stringValue {
            let thought = part["thought"]?.boolValue == true
            var events: [ChatEvent] = []
            if !thought && !text.isEmpty { events.append(.textDelta(text)) }
            if signature != nil {
                events.append(.continuation(ContinuationItem(provider: "gemini", kind: "signed_part", payload: part.serialized)))
            }
            return events
        }
        if signature != nil {
            // Some other part kind carrying a signature: keep it whole.
            return [.continuation(ContinuationItem(provider: "gemini", kind: "signed_part", payload: part.serialized))]
        }
        return []
    }

    mutating func applyPartial(_ piece: JSONRef) {
        guard let path = piece["jsonPath"]?.stringValue, path.hasPrefix("$."), var p = pending else { return }
        let keys = path.dropFirst(2).split(separator: ".").map(String.init)
        let value: JSONValue?
        if let s = piece["stringValue"]?.stringValue {
            // Past the cap the call is rejected anyway: holding more only uses memory.
            guard pendingBytes < AnswerLimits.adapterArgumentCeiling else { return }
            pendingBytes += s.utf8.count
            if pendingStrings[keys] == nil { pendingStrings[keys] = Self.get(p.args, keys)?.stringValue ?? "" }
            pendingStrings[keys, default: ""] += s
            return
        } else if let n = piece["numberValue"] {
            value = n.value
        } else if let b = piece["boolValue"] {
            value = b.value
        } else if piece["nullValue"] != nil {
            value = .null
        } else {
            value = nil
        }
        if let value {
            pendingStrings[keys] = nil
            p.args = Self.set(p.args, keys, value)
        }
        pending = p
    }

    static func get(_ v: JSONValue, _ keys: [String]) -> JSONValue? {
        var cur: JSONValue? = v
        for k in keys { cur = cur?[k] }
        return cur
    }

    static func set(_ v: JSONValue, _ keys: [String], _ value: JSONValue) -> JSONValue {
        guard let first = keys.first else { return value }
        var o = v.objectValue ?? [:]
        o[first] = set(o[first] ?? .object([:]), Array(keys.dropFirst()), value)
        return .object(o)
    }

    mutating func closePending() -> [ChatEvent] {
        guard var p = pending else { return [] }
        pending = nil
        for (keys, text) in pendingStrings { p.args = Self.set(p.args, keys, .string(text)) }
        pendingStrings = [:]
        pendingBytes = 0
        return emitCall(name: p.name, id: p.id, signature: p.signature, args: p.args)
    }

    mutating func emitCall(name: String, id: String?, signature: String?, args: JSONValue) -> [ChatEvent] {
        sawCall = true
        callCount += 1
        let synthesized = id == nil || id == ""
        // Stable across replays of the same recording: response id + position. Without a response
        // id, a random prefix keeps ids unique across turns (the ledger keys writes by call id).
        if synthesized && responseID == nil && idPrefix == nil { idPrefix = "gemini-" + UUID().uuidString.lowercased() }
        let callID = synthesized ? "\(responseID ?? idPrefix ?? "gemini")-call-\(callCount)" : (id ?? "")
        var events: [ChatEvent] = []
        if signature != nil || synthesized {
            var info: [String: JSONValue] = ["callID": .string(callID)]
            if let signature { info["thoughtSignature"] = .string(signature) }
            if synthesized { info["synthesizedID"] = true }
            events.append(.continuation(ContinuationItem(provider: "gemini", kind: "function_call", payload: JSONValue.object(info).serialized)))
        }
        events.append(.toolCall(ToolCall(id: callID, name: name, arguments: args.serialized)))
        return events
    }

    mutating func finish() throws -> [ChatEvent] {
        var out = closePending()
        guard let reason = finishReason else { throw ProviderStreamError.truncated }
        if !web.isEmpty { out.append(.continuation(web.item)) }
        if let usage { out.append(.usage(usage)) }
        let mapped: FinishReason
        switch reason {
        case "STOP": mapped = sawCall ? .toolCalls : .stop
        case "MAX_TOKENS": mapped = .length
        case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY": mapped = .contentFilter
        case "MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL":
            throw ProviderStreamError.provider(ProviderErrorBody(message: "the model produced an invalid tool call (\(reason))", code: reason))
        default: mapped = sawCall ? .toolCalls : .other
        }
        out.append(.finish(mapped))
        return out
    }
}
