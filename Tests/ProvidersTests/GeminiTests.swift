// Gemini adapter against the recorded streams: decoding, signatures, ids, and the turn-2 request.
import Base
import Foundation
import Testing
import Agent
import HTTP
import Providers
import TestSupport

@Suite struct GeminiTests {
    static let base = "https://generativelanguage.googleapis.com/v1beta"

    func gemini(_ t: FakeHTTPTransport, model: String = "gemini-3-pro-preview") -> GeminiModel {
        GeminiModel(config: config("gemini", base: Self.base, model: model, keyVariable: "GEMINI_API_KEY"), transport: t)
    }

    /// The recorded turn-1 request as a ChatRequest (system, user text, tools as JSON Schema).
    func turn1Request(_ recorded: JSONValue) -> ChatRequest {
        let system = recorded["systemInstruction"]?["parts"]?[0]?["text"]?.stringValue ?? ""
        let user = recorded["contents"]?[0]?["parts"]?[0]?["text"]?.stringValue ?? ""
        let tools = toolSpecs(recorded["tools"]?.arrayValue).map { ToolSpec(name: $0.name, description: $0.description, parameters: jsonSchema($0.parameters)) }
        return ChatRequest(system: system, messages: [.user(user)], tools: tools,
                           maxOutputTokens: recorded["generationConfig"]?["maxOutputTokens"]?.intValue ?? 4000)
    }

    /// A recorded OpenAPI-subset schema ("OBJECT", "INTEGER") as the JSON Schema the app declares.
    func jsonSchema(_ v: JSONValue) -> JSONValue {
        switch v {
        case .object(let o):
            var out: [String: JSONValue] = [:]
            for (k, x) in o { out[k] = k == "type" ? .string(x.stringValue?.lowercased() ?? "") : jsonSchema(x) }
            return .object(out)
        case .array(let a): return .array(a.map(jsonSchema))
        default: return v
        }
    }

    /// The recorded `tools` as ofj declares them: the same functions with `parametersJsonSchema`.
    func declaredTools(_ recorded: JSONValue?) -> JSONValue {
        let declarations = (recorded?[0]?["functionDeclarations"]?.arrayValue ?? []).map { d -> JSONValue in
            ["name": d["name"] ?? .null, "description": d["description"] ?? .null, "parametersJsonSchema": jsonSchema(d["parameters"] ?? .null)]
        }
        return [["functionDeclarations": .array(declarations)]]
    }

    /// Tool results as recorded in the turn-2 request, attached by position to the decoded calls.
    func toolResults(_ recorded2: JSONValue, calls: [ToolCall]) -> Message {
        let contents = recorded2["contents"]?.arrayValue ?? []
        let responses = (contents.last?["parts"]?.arrayValue ?? []).compactMap { $0["functionResponse"] }
        let results = zip(calls, responses).map { call, r in
            ToolResult(callID: call.id, name: call.name, content: r["response"]?["result"]?.stringValue ?? "")
        }
        return Message(role: .tool, parts: results.map { .toolResult($0) })
    }

    /// Removes ids from functionCall/functionResponse parts (for recordings whose ids were made up by the client).
    func strippingIDs(_ contents: JSONValue) -> JSONValue {
        guard case .array(let items) = contents else { return contents }
        return .array(items.map { c in
            guard case .object(var co) = c, case .array(let parts)? = co["parts"] else { return c }
            co["parts"] = .array(parts.map { p in
                guard case .object(var po) = p else { return p }
                for key in ["functionCall", "functionResponse"] {
                    if case .object(var inner)? = po[key] { inner["id"] = nil; po[key] = .object(inner) }
                }
                return .object(po)
            })
            return .object(co)
        })
    }

    @Test func parallelCallsWithIDsAndSignatureOnTheFirstCall() async throws {
        let cassette = try ProviderFixtures.cassette("gemini/fantasy__gemini-3-pro-preview__multi_tool_streaming.cassette.json")
        let recorded1 = try json(cassette[0].requestBody)
        let recorded2 = try json(cassette[1].requestBody)
        let request1 = turn1Request(recorded1)
        let turn1 = await expectSplitInvariant({ gemini($0) }, body: cassette[0].responseBody, request: request1)
        #expect(turn1.error == nil)
        #expect(turn1.toolCalls.map(\.id) == ["8hd01vsf", "k0srpqrc"])
        #expect(turn1.toolCalls.map(\.name) == ["add", "multiply"])
        for call in turn1.toolCalls { #expect(try call.parsedArguments() == ["a": 2, "b": 3]) }
        #expect(turn1.text == "")
        #expect(turn1.usage == Usage(inputTokens: 157, cachedInputTokens: 0, outputTokens: 470, reasoningTokens: 438))
        #expect(turn1.finish == .toolCalls)
        #expect(turn1.responseID == "UwCzaaGdI_aEz7IPqoinwQM")
        let recordedSignature = try #require(recorded2["contents"]?[1]?["parts"]?[0]?["thoughtSignature"]?.stringValue)
        let callItems = turn1.continuations.filter { $0.kind == "function_call" }
        #expect(callItems.count == 1)
        #expect(try json(callItems[0].payload)["thoughtSignature"]?.stringValue == recordedSignature)

        // Turn 2: what the adapter sends back must match what the API accepted.
        let t2 = transport(cassette[1].responseBody)
        var request2 = request1
        request2.messages += [turn1.assistantMessage, toolResults(recorded2, calls: turn1.toolCalls)]
        let turn2 = await runTurn(gemini(t2), request2)
        let sent = try requestJSON(t2)
        #expect(sent["contents"] == recorded2["contents"])
        #expect(sent["systemInstruction"] == recorded2["systemInstruction"])
        #expect(sent["tools"] == declaredTools(recorded2["tools"]))
        #expect(sent["toolConfig"] == recorded2["toolConfig"])
        // The signature bytes on the wire are exactly the received ones (base64 has '/' and '+').
        let wire = String(decoding: t2.requests[0].body, as: UTF8.self)
        #expect(wire.contains("\"thoughtSignature\":\"\(recordedSignature)\""))

        #expect(turn2.error == nil)
        #expect(turn2.text == "The sum of 2 and 3 is 5, and their product is 6.")
        #expect(turn2.usage == Usage(inputTokens: 646, cachedInputTokens: 0, outputTokens: 39, reasoningTokens: 20))
        #expect(turn2.finish == .stop)
        let signed = try #require(turn2.continuations.first)
        #expect(signed.kind == "signed_part")
        #expect(try json(signed.payload)["text"] == "")

        // Turn 3 replays the final text plus the empty signed part, unmerged.
        var request3 = request2
        request3.messages += [turn2.assistantMessage, .user("thanks")]
        let body3 = gemini(t2).requestBody(request3)
        let modelParts = try #require(body3["contents"]?[3]?["parts"]?.arrayValue)
        #expect(modelParts.count == 2)
        #expect(modelParts[0] == ["text": "The sum of 2 and 3 is 5, and their product is 6."])
        #expect(modelParts[1]["text"] == "")
        let lastChunk = try #require(cassette[1].responseBody.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }.last)
        let receivedSignature = try json(String(lastChunk.dropFirst(6)))["candidates"]?[0]?["content"]?["parts"]?[0]?["thoughtSignature"]
        #expect(receivedSignature != nil)
        #expect(modelParts[1]["thoughtSignature"] == receivedSignature)
    }

    @Test func callWithoutIDGetsAStableSynthesizedIDThatIsNotSentBack() async throws {
        let cassette = try ProviderFixtures.cassette("gemini/fantasy__gemini-2.5-flash__thinking-streaming.cassette.json")
        let recorded1 = try json(cassette[0].requestBody)
        let recorded2 = try json(cassette[1].requestBody)
        let request1 = turn1Request(recorded1)
        let turn1 = await expectSplitInvariant({ gemini($0, model: "gemini-2.5-flash") }, body: cassette[0].responseBody, request: request1)
        #expect(turn1.error == nil)
        let call = try #require(turn1.toolCalls.first)
        #expect(call.id == "zwCzaYWfAbnoz7IPmc_m6Q4-call-1")
        #expect(call.name == "weather")
        #expect(try call.parsedArguments() == ["location": "Florence, Italy"])
        // The thought summary is not shown as answer text.
        #expect(turn1.text == "")
        #expect(turn1.usage == Usage(inputTokens: 54, cachedInputTokens: 0, outputTokens: 76, reasoningTokens: 62))
        #expect(turn1.finish == .toolCalls) // finishReason was STOP: tool turn is decided from parts
        let info = try json(try #require(turn1.continuations.first).payload)
        #expect(info["synthesizedID"] == true)

        let t2 = transport(cassette[1].responseBody)
        var request2 = request1
        request2.messages += [turn1.assistantMessage, toolResults(recorded2, calls: turn1.toolCalls)]
        let turn2 = await runTurn(gemini(t2, model: "gemini-2.5-flash"), request2)
        let sent = try requestJSON(t2)
        // The recording replayed a made-up id "1"; we send none (also what Vertex requires). All else equal.
        #expect(sent["contents"] == strippingIDs(try #require(recorded2["contents"])))
        #expect(sent["contents"]?[1]?["parts"]?[0]?["functionCall"]?["id"] == nil)
        #expect(sent["contents"]?[1]?["parts"]?[0]?["thoughtSignature"] == recorded2["contents"]?[1]?["parts"]?[0]?["thoughtSignature"])
        #expect(turn2.text == "The weather in Florence, Italy is 40 C.")
        #expect(turn2.usage == Usage(inputTokens: 146, cachedInputTokens: 0, outputTokens: 12, reasoningTokens: 0))
        #expect(turn2.finish == .stop)
    }

    @Test func textWithSignatureOnATrailingEmptyPart() async throws {
        let body = try ProviderFixtures.chunksAsSSE("gemini/vercel__google-text.chunks.txt")
        let turn = await expectSplitInvariant({ gemini($0) }, body: body, request: ChatRequest(system: "", messages: [.user("r?")], tools: []))
        #expect(turn.error == nil)
        #expect(turn.text == "There are **3** \"r\"s in strawberry.\n\nst**r**awbe**rr**y")
        #expect(turn.usage == Usage(inputTokens: 9, cachedInputTokens: 0, outputTokens: 208, reasoningTokens: 185))
        #expect(turn.finish == .stop)
        let item = try #require(turn.continuations.first)
        #expect(item.kind == "signed_part")
        let sig = try #require(try json(item.payload)["thoughtSignature"]?.stringValue)
        #expect(sig.hasPrefix("EqsFCqgFAb4+9vvtAF5n87lB4OGDOoTRMOqp35jW"))
        #expect(sig.count == 916)
        let parts = gemini(transport(""))
            .requestBody(ChatRequest(system: "", messages: [.user("r?"), turn.assistantMessage], tools: []))["contents"]?[1]?["parts"]
        #expect(parts == [["text": .string(turn.text)], ["text": "", "thoughtSignature": .string(sig)]])
    }

    @Test func singleCallWithoutIDAndALongSignature() async throws {
        let body = try ProviderFixtures.chunksAsSSE("gemini/vercel__google-tool-call-gemini3.chunks.txt")
        let turn = await expectSplitInvariant({ gemini($0) }, body: body, request: ChatRequest(system: "", messages: [.user("w")], tools: []))
        let call = try #require(turn.toolCalls.first)
        #expect(turn.toolCalls.count == 1)
        #expect(call.name == "weather")
        #expect(try call.parsedArguments() == ["location": "San Francisco"])
        #expect(turn.finish == .toolCalls)
        #expect(turn.usage == Usage(inputTokens: 29, cachedInputTokens: 0, outputTokens: 819, reasoningTokens: 804))
        let raw = String(decoding: try ProviderFixtures.bytes("gemini/vercel__google-tool-call-gemini3.chunks.txt"), as: UTF8.self)
        let recordedSig = try #require(try json(String(raw.split(separator: "\n")[0]))["candidates"]?[0]?["content"]?["parts"]?[0]?["thoughtSignature"]?.stringValue)
        #expect(recordedSig.count == 5488)
        let model = gemini(transport(""))
        let result = Message(role: .tool, parts: [.toolResult(ToolResult(callID: call.id, name: "weather", content: "{\"temp\":18}"))])
        let contents = model.requestBody(ChatRequest(system: "", messages: [.user("w"), turn.assistantMessage, result], tools: []))["contents"]
        #expect(contents?[1] == ["role": "model", "parts": [["functionCall": ["name": "weather", "args": ["location": "San Francisco"]],
                                                             "thoughtSignature": .string(recordedSig)]]])
        #expect(contents?[2] == ["role": "user", "parts": [["functionResponse": ["name": "weather", "response": ["temp": 18]]]]])
    }

    @Test func textThenCallWithIDAndSignature() async throws {
        let body = try ProviderFixtures.chunksAsSSE("gemini/vercel__issue-10781.1.chunks.txt")
        let turn = await expectSplitInvariant({ gemini($0) }, body: body, request: ChatRequest(system: "", messages: [.user("w")], tools: []))
        #expect(turn.text == "Let me check.")
        #expect(turn.toolCalls == [ToolCall(id: "g1bmv6il", name: "get_weather", arguments: "{\"city\":\"San Francisco\"}")])
        #expect(turn.finish == .toolCalls)
        #expect(turn.usage == Usage(inputTokens: 83, cachedInputTokens: 0, outputTokens: 199, reasoningTokens: 178))
        let parts = gemini(transport("")).requestBody(ChatRequest(system: "", messages: [.user("w"), turn.assistantMessage], tools: []))["contents"]?[1]?["parts"]?.arrayValue
        #expect(parts?.count == 2)
        #expect(parts?[0] == ["text": "Let me check."])
        #expect(parts?[1]["functionCall"]?["id"] == "g1bmv6il")
        #expect(parts?[1]["thoughtSignature"]?.stringValue?.hasPrefix("EqsGCqgGARFNMg/oroYnrVkdoRE9AexsOwUxH04D") == true)
    }

    @Test func vertexStreamedArgumentsAndNoArgsCallWithSignature() async throws {
        let body = try ProviderFixtures.chunksAsSSE("gemini/vercel__vertex-google-stream-no-args-tool-call.chunks.txt")
        let turn = await expectSplitInvariant({ gemini($0) }, body: body, request: ChatRequest(system: "", messages: [.user("go")], tools: []))
        #expect(turn.error == nil)
        #expect(turn.text == "")
        #expect(turn.toolCalls.map(\.name) == ["read_theme", "read_screen", "read_screen", "read_screen"])
        #expect(try turn.toolCalls.map { try $0.parsedArguments() } == [[:], ["id": "A"], ["id": "B"], ["id": "C"]])
        #expect(Set(turn.toolCalls.map(\.id)).count == 4)
        #expect(turn.usage == Usage(inputTokens: 249, cachedInputTokens: 0, outputTokens: 241, reasoningTokens: 183))
        let first = try json(turn.continuations[0].payload)
        #expect(first["thoughtSignature"]?.stringValue?.hasPrefix("AY89a18a8/Loc2wl5oft") == true)
        let parts = gemini(transport("")).requestBody(ChatRequest(system: "", messages: [.user("go"), turn.assistantMessage], tools: []))["contents"]?[1]?["parts"]?.arrayValue ?? []
        #expect(parts.count == 4)
        #expect(parts[0]["functionCall"] == ["name": "read_theme", "args": [:]])
        #expect(parts[0]["thoughtSignature"] == first["thoughtSignature"])
        #expect(parts[1]["thoughtSignature"] == nil)
    }

    @Test func keyGoesInAHeaderNeverInTheURL() throws {
        let model = gemini(transport(""), model: "gemini-2.5-flash")
        let req = model.httpRequest(ChatRequest(system: "s", messages: [.user("hi")], tools: []))
        #expect(req.url == "\(Self.base)/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
        #expect(!req.url.contains(testKey))
        #expect(req.headers.contains(HTTPHeader("x-goog-api-key", testKey)))
    }

    @Test func toolsAreDeclaredWithTheirFullJSONSchemaAndNoSchemaWithoutArguments() {
        // A map-typed field (additionalProperties) and a nullable type stay as written; the old
        // OpenAPI-subset `parameters` turned the map into an OBJECT without properties.
        let portion: JSONValue = ["type": "object", "additionalProperties": false, "required": ["name", "nutrients"],
                                  "properties": ["name": ["type": "string", "maxLength": 60],
                                                 "nutrients": ["type": "object", "additionalProperties": ["type": "number"]]]]
        let save: JSONValue = ["type": "object", "additionalProperties": false, "required": [],
                               "properties": ["portions": ["type": "array", "items": portion], "note": ["type": ["string", "null"]]]]
        let none: JSONValue = ["type": "object", "properties": [:], "required": [], "additionalProperties": false]
        let tools = [ToolSpec(name: "save_food", description: "Save a food.", parameters: save),
                     ToolSpec(name: "list_brands", description: "List brands.", parameters: none),
                     ToolSpec(name: "ping", description: "Ping.", parameters: [:])]
        let body = gemini(transport("")).requestBody(ChatRequest(system: "", messages: [.user("x")], tools: tools))
        #expect(body["tools"] == [["functionDeclarations": [
            ["name": "save_food", "description": "Save a food.", "parametersJsonSchema": save],
            ["name": "list_brands", "description": "List brands."],
            ["name": "ping", "description": "Ping."],
        ]]])
    }

    @Test func streamEndingWithoutFinishReasonIsTruncated() async throws {
        let body = "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hel\"}],\"role\": \"model\"},\"index\": 0}]}\r\n\r\n"
        let turn = await runTurn(gemini(transport(body)), ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.text == "Hel")
        #expect(turn.error?.kind == .unknownOutcome)
    }

    @Test func promptFeedbackBlockIsAnError() async throws {
        let body = "data: {\"promptFeedback\": {\"blockReason\": \"PROHIBITED_CONTENT\"},\"usageMetadata\": {\"promptTokenCount\": 9}}\r\n\r\n"
        let turn = await runTurn(gemini(transport(body)), ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.error?.kind == .fatal)
        #expect(turn.error?.message.contains("PROHIBITED_CONTENT") == true)
    }

    @Test func unframedErrorObjectMidStream() async throws {
        let body = "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hi\"}],\"role\": \"model\"},\"index\": 0}]}\r\n\r\n"
            + "{\n  \"error\": {\n    \"code\": 503,\n    \"message\": \"The model is overloaded. Please try again later.\",\n    \"status\": \"UNAVAILABLE\"\n  }\n}\n"
        let turn = await expectSplitInvariant({ gemini($0) }, body: body, request: ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.text == "Hi")
        #expect(turn.error?.kind == .unknownOutcome)
        #expect(turn.error?.message.contains("overloaded") == true)
    }

    @Test func framedErrorBeforeOutputIsRetryable() async throws {
        let body = "data: {\"error\": {\"code\": 500, \"message\": \"Internal error encountered.\", \"status\": \"INTERNAL\"}}\r\n\r\n"
        let turn = await runTurn(gemini(transport(body)), ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.error?.kind == .retryable)
    }

    @Test func foreignHistoryGetsThePlaceholderSignatureOnGemini3Only() {
        let call1 = ToolCall(id: "toolu_1", name: "add", arguments: "{\"a\":1}")
        let call2 = ToolCall(id: "toolu_2", name: "mul", arguments: "{\"a\":1}")
        let history = [Message.user("x"), Message(role: .assistant, parts: [.toolCall(call1), .toolCall(call2)]),
                       Message(role: .tool, parts: [.toolResult(ToolResult(callID: "toolu_1", name: "add", content: "1")),
                                                    .toolResult(ToolResult(callID: "toolu_2", name: "mul", content: "2"))])]
        let request = ChatRequest(system: "", messages: history, tools: [])
        let g3 = gemini(transport(""), model: "gemini-3-pro-preview").requestBody(request)["contents"]?[1]?["parts"]
        #expect(g3?[0]?["thoughtSignature"] == .string(GeminiModel.foreignHistorySignature))
        #expect(g3?[1]?["thoughtSignature"] == nil)
        let g25 = gemini(transport(""), model: "gemini-2.5-flash").requestBody(request)["contents"]?[1]?["parts"]
        #expect(g25?[0]?["thoughtSignature"] == nil)
        // Results of parallel calls go back together in one user content, in call order.
        let results = gemini(transport("")).requestBody(request)["contents"]?[2]
        #expect(results?["role"] == "user")
        #expect(results?["parts"]?.arrayValue?.compactMap { $0["functionResponse"]?["id"]?.stringValue } == ["toolu_1", "toolu_2"])
    }

    @Test func synthesizedIDsDifferAcrossResponsesWithoutResponseID() async throws {
        let body = "data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": \"f\"}}],\"role\": \"model\"},\"finishReason\": \"STOP\"}]}\r\n\r\n"
        let a = await runTurn(gemini(transport(body)), ChatRequest(system: "", messages: [.user("x")], tools: []))
        let b = await runTurn(gemini(transport(body)), ChatRequest(system: "", messages: [.user("x")], tools: []))
        let idA = try #require(a.toolCalls.first?.id)
        let idB = try #require(b.toolCalls.first?.id)
        #expect(idA != idB)
        #expect(try a.toolCalls.first?.parsedArguments() == [:])
    }

    @Test func signatureOnANonEmptyTextPartStaysOnThatPart() async throws {
        let body = "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hel\"}],\"role\": \"model\"}}],\"responseId\": \"r1\"}\r\n\r\n"
            + "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"lo\",\"thoughtSignature\": \"c2ln/+==\"}],\"role\": \"model\"},\"finishReason\": \"STOP\"}],\"responseId\": \"r1\"}\r\n\r\n"
        let turn = await expectSplitInvariant({ gemini($0) }, body: body, request: ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.text == "Hello")
        // The runner stores "Hello" as one text part, then the item; replay splits them again.
        #expect(turn.assistantMessage.parts.count == 2)
        let parts = gemini(transport("")).requestBody(ChatRequest(system: "", messages: [.user("x"), turn.assistantMessage], tools: []))["contents"]?[1]?["parts"]
        #expect(parts == [["text": "Hel"], ["text": "lo", "thoughtSignature": "c2ln/+=="]])
    }
}
