// Responses API adapter (OpenAI and Azure) against the recordings: calls, encrypted reasoning replay, errors.
import Base
import Foundation
import Testing
import Agent
import HTTP
import Providers
import TestSupport

@Suite struct ResponsesTests {
    func openAI(_ t: FakeHTTPTransport, model: String = "gpt-5") -> ResponsesModel {
        ResponsesModel(config: config("openai", base: "https://api.openai.com/v1", model: model, keyVariable: "OPENAI_API_KEY"), transport: t)
    }

    func azure(_ t: FakeHTTPTransport, model: String = "gpt-5-mini") -> ResponsesModel {
        ResponsesModel(config: config("azure", base: "https://fantasy-playground-resource.openai.azure.com", model: model,
                                      keyVariable: "AZURE_OPENAI_API_KEY"), flavor: .azure, transport: t)
    }

    func turn1Request(_ recorded: JSONValue) -> ChatRequest {
        let input = recorded["input"]?.arrayValue ?? []
        let system = input.first { $0["role"] == "developer" }?["content"]?.stringValue ?? ""
        let user = input.first { $0["role"] == "user" }?["content"]?[0]?["text"]?.stringValue ?? ""
        return ChatRequest(system: system, messages: [.user(user)], tools: toolSpecs(recorded["tools"]?.arrayValue),
                           maxOutputTokens: recorded["max_output_tokens"]?.intValue ?? 4000)
    }

    func toolResults(_ recorded2: JSONValue, calls: [ToolCall]) -> Message {
        let outputs = (recorded2["input"]?.arrayValue ?? []).filter { $0["type"] == "function_call_output" }
        return Message(role: .tool, parts: zip(calls, outputs).map { call, o in
            .toolResult(ToolResult(callID: call.id, name: call.name, content: o["output"]?.stringValue ?? ""))
        })
    }

    /// `data:` payloads of an SSE body, parsed.
    func payloads(_ body: String) throws -> [JSONValue] {
        var p = SSEParser()
        return try (p.feed(Array(body.utf8)) + p.finish()).map { try json($0.data) }
    }

    @Test func parallelCallsAndTurnTwoRequest() async throws {
        let cassette = try ProviderFixtures.cassette("openai-responses/fantasy__openai-gpt-5__multi_tool_streaming.cassette.json")
        let recorded1 = try json(cassette[0].requestBody)
        let recorded2 = try json(cassette[1].requestBody)
        let request1 = turn1Request(recorded1)
        let turn1 = await expectSplitInvariant({ openAI($0) }, body: cassette[0].responseBody, request: request1)
        #expect(turn1.error == nil)
        #expect(turn1.toolCalls == [ToolCall(id: "call_inViAUr9eV0GDtyOywkCxp59", name: "add", arguments: "{\"a\":2,\"b\":3}"),
                                    ToolCall(id: "call_Op66UUnzuOoKmgGeFJQJFTUY", name: "multiply", arguments: "{\"a\":2,\"b\":3}")])
        // The reasoning item came without encrypted_content: replaying its bare id would 404, so nothing is kept.
        #expect(turn1.continuations.isEmpty)
        #expect(turn1.usage == Usage(inputTokens: 109, cachedInputTokens: 0, outputTokens: 223, reasoningTokens: 128))
        #expect(turn1.finish == .toolCalls)
        #expect(turn1.responseID == "resp_0a7836d50cf181dd016a3c122cf3b881a1947fb8d49897cfca")

        let t2 = transport(cassette[1].responseBody)
        var request2 = request1
        request2.messages += [turn1.assistantMessage, toolResults(recorded2, calls: turn1.toolCalls)]
        let turn2 = await runTurn(openAI(t2), request2)
        let sent = try requestJSON(t2)
        #expect(sent["input"] == recorded2["input"])
        #expect(sent["tools"] == recorded2["tools"])
        #expect(sent["store"] == false)
        #expect(sent["include"] == ["reasoning.encrypted_content"])
        #expect(sent["max_output_tokens"] == recorded2["max_output_tokens"])
        #expect(t2.requests[0].url == "https://api.openai.com/v1/responses")
        #expect(t2.requests[0].headers.contains(HTTPHeader("Authorization", "Bearer \(testKey)")))
        #expect(turn2.text == "Results:\n- Addition (2 + 3) = 5\n- Multiplication (2 × 3) = 6")
        #expect(turn2.usage == Usage(inputTokens: 167, cachedInputTokens: 0, outputTokens: 30, reasoningTokens: 0))
        #expect(turn2.finish == .stop)
    }

    @Test func azureEncryptedReasoningIsReplayedBeforeItsCall() async throws {
        let cassette = try ProviderFixtures.cassette("openai-responses/fantasy__azure-gpt-5-mini__thinking-streaming.cassette.json")
        let recorded1 = try json(cassette[0].requestBody)
        let recorded2 = try json(cassette[1].requestBody)
        let request1 = turn1Request(recorded1)
        let turn1 = await expectSplitInvariant({ azure($0) }, body: cassette[0].responseBody, request: request1)
        #expect(turn1.error == nil)
        #expect(turn1.toolCalls == [ToolCall(id: "call_ylSv4Nh5Sjuh7A6vOintVfwF", name: "weather", arguments: "{\"location\":\"Florence, Italy\"}")])
        #expect(turn1.usage == Usage(inputTokens: 63, cachedInputTokens: 0, outputTokens: 139, reasoningTokens: 64))
        // The blob differs at added, done and completed: the one kept is from output_item.done.
        let events = try payloads(cassette[0].responseBody)
        let added = try #require(events.first { $0["type"] == "response.output_item.added" && $0["item"]?["type"] == "reasoning" })
        let done = try #require(events.first { $0["type"] == "response.output_item.done" && $0["item"]?["type"] == "reasoning" })
        #expect(added["item"]?["encrypted_content"] != done["item"]?["encrypted_content"])
        let item = try #require(turn1.continuations.first)
        #expect(item.provider == "azure-responses")
        let kept = try json(item.payload)
        #expect(kept["id"] == "rs_06c839edbdd88254016a3c11a93e1481908acf9bbba9834b75")
        #expect(kept["encrypted_content"] == done["item"]?["encrypted_content"])
        #expect(kept["summary"] == done["item"]?["summary"])

        let t2 = transport(cassette[1].responseBody)
        var request2 = request1
        request2.messages += [turn1.assistantMessage, toolResults(recorded2, calls: turn1.toolCalls)]
        let turn2 = await runTurn(azure(t2), request2)
        let sent = try requestJSON(t2)
        let input = try #require(sent["input"]?.arrayValue)
        // The recording skipped reasoning items; everything else must match it exactly.
        #expect(JSONValue.array(input.filter { $0["type"] != "reasoning" }) == recorded2["input"])
        let reasoningAt = try #require(input.firstIndex { $0["type"] == "reasoning" })
        #expect(input[reasoningAt + 1]["type"] == "function_call")
        #expect(input[reasoningAt]["id"] == kept["id"])
        #expect(input[reasoningAt]["encrypted_content"] == done["item"]?["encrypted_content"])
        let blob = try #require(done["item"]?["encrypted_content"]?.stringValue)
        #expect(String(decoding: t2.requests[0].body, as: UTF8.self).contains("\"encrypted_content\":\"\(blob)\""))
        #expect(input.allSatisfy { $0["type"] != "function_call" || $0["id"] == nil })
        #expect(t2.requests[0].url == "https://fantasy-playground-resource.openai.azure.com/openai/v1/responses")
        #expect(!t2.requests[0].url.contains("api-version"))
        #expect(t2.requests[0].headers.contains(HTTPHeader("api-key", testKey)))
        #expect(!t2.requests[0].headers.contains { $0.name == "Authorization" })
        #expect(sent["model"] == "gpt-5-mini")
        #expect(turn2.error == nil)
        #expect(turn2.text.hasPrefix("Current temperature in Florence, Italy: 40°C (104°F)."))
        #expect(turn2.usage == Usage(inputTokens: 92, cachedInputTokens: 0, outputTokens: 576, reasoningTokens: 448))
        #expect(turn2.finish == .stop)
    }

    @Test func fourStepToolLoopWithEncryptedReasoning() async throws {
        let text = String(decoding: try ProviderFixtures.bytes("openai-responses/vercel__openai-reasoning-encrypted-content.1.chunks.txt"), as: UTF8.self)
        // The file holds four consecutive responses; split at each response.created.
        var streams: [String] = []
        for line in text.split(separator: "\n") where !line.isEmpty {
            let type = try json(String(line))["type"]?.stringValue ?? ""
            if type == "response.created" { streams.append("") }
            streams[streams.count - 1] += "event: \(type)\ndata: \(line)\n\n"
        }
        #expect(streams.count == 4)
        let t = FakeHTTPTransport(replies: streams.map { FakeHTTPTransport.Reply(body: Array($0.utf8), maxChunk: 29) })
        let model = openAI(t, model: "gpt-5.1-codex-max")
        var request = ChatRequest(system: "Use the calculator.", messages: [.user("(12+7)*3*10")], tools: [])
        var results: [TurnResult] = []
        for step in 0..<4 {
            let turn = await runTurn(model, request)
            #expect(turn.error == nil, "step \(step)")
            results.append(turn)
            request.messages.append(turn.assistantMessage)
            for call in turn.toolCalls {
                request.messages.append(Message(role: .tool, parts: [.toolResult(ToolResult(callID: call.id, name: call.name, content: "\(step)"))]))
            }
        }
        #expect(results.map { $0.toolCalls.map(\.id) } == [["call_AB6AaRZ1FYZB2RwS6A5vbdqn"], ["call_Q6pW65MUgW9vF59BmItYGos3"],
                                                            ["call_Zl5vIMnD7dVAjgU6FkhmiCZh"], []])
        #expect(results[0].continuations.count == 1)
        #expect(results[3].text == "The final result is **570**.")
        #expect(results[3].finish == .stop)
        #expect(results.map { $0.usage?.inputTokens } == [134, 221, 260, 299])
        let last = try requestJSON(t, 3)
        let types = (last["input"]?.arrayValue ?? []).map { $0["type"]?.stringValue ?? $0["role"]?.stringValue ?? "?" }
        #expect(types == ["developer", "user", "reasoning", "function_call", "function_call_output", "function_call", "function_call_output",
                          "function_call", "function_call_output"])
    }

    @Test func errorEventThenResponseFailed() async throws {
        let body = try ProviderFixtures.chunksAsSSE("openai-responses/vercel__openai-error.1.chunks.txt", named: true)
        let turn = await expectSplitInvariant({ openAI($0) }, body: body, request: ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.error?.kind == .configuration)
        #expect(turn.error?.code == "insufficient_quota")
        #expect(turn.error?.message.contains("You exceeded your current quota") == true)
        #expect(turn.error?.message.contains("OPENAI_API_KEY") == true)
    }

    @Test func flatErrorEventAndFailedResponse() async throws {
        let flat = "event: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"Something broke\",\"param\":null,\"sequence_number\":1}\n\n"
        let t1 = await runTurn(openAI(transport(flat)), ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(t1.error?.kind == .retryable)
        #expect(t1.error?.message.contains("Something broke") == true)
        let failed = "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"m\",\"delta\":\"Hi\"}\n\n"
            + "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"The model failed\"}}}\n\n"
        let t2 = await runTurn(openAI(transport(failed)), ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(t2.text == "Hi")
        #expect(t2.error?.kind == .unknownOutcome)
    }

    @Test func streamWithoutCompletedIsTruncated() async throws {
        let body = "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"m\",\"delta\":\"Hi\"}\n\n"
        let turn = await runTurn(openAI(transport(body)), ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.error?.kind == .unknownOutcome)
    }

    func reasoningHistory() -> ChatRequest {
        let reasoning = ContinuationItem(provider: "openai-responses", kind: "reasoning",
                                         payload: #"{"encrypted_content":"gAAAblob","id":"rs_abc","summary":[],"type":"reasoning"}"#,
                                         origin: "openai-responses https://api.openai.com/v1 gpt-5")
        let call = ToolCall(id: "call_1", name: "f", arguments: "{}")
        return ChatRequest(system: "", messages: [.user("x"), Message(role: .assistant, parts: [.continuation(reasoning), .toolCall(call)]),
                                                  Message(role: .tool, parts: [.toolResult(ToolResult(callID: "call_1", name: "f", content: "ok"))])],
                           tools: [])
    }

    @Test(arguments: [
        (400, #"{"error":{"message":"The encrypted content for item rs_abc could not be verified.","type":"invalid_request_error","param":null,"code":"invalid_encrypted_content"}}"#),
        (404, #"{"error":{"message":"Item with id 'rs_abc' not found. Items are not persisted when `store` is set to false.","type":"invalid_request_error","param":"input","code":null}}"#),
    ])
    func rejectedReasoningItemIsRetriedOnceWithoutIt(status: Int, errorBody: String) async throws {
        let ok = "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[]}}\n\n"
        let t = FakeHTTPTransport(replies: [FakeHTTPTransport.Reply(status: status, headers: [], body: Array(errorBody.utf8)),
                                            FakeHTTPTransport.Reply(body: Array(ok.utf8))])
        let turn = await runTurn(openAI(t), reasoningHistory())
        #expect(turn.error == nil)
        #expect(t.requests.count == 2)
        let first = try requestJSON(t, 0)
        let second = try requestJSON(t, 1)
        #expect(first["input"]?.arrayValue?.contains { $0["type"] == "reasoning" } == true)
        #expect(second["input"]?.arrayValue?.contains { $0["type"] == "reasoning" } == false)
        #expect(second["input"]?.arrayValue?.contains { $0["type"] == "function_call" } == true)
    }

    @Test func aModelThatRefusesTheIncludeIsRetriedOnceWithoutIt() async throws {
        let body = #"{"error":{"message":"Encrypted content is not supported with this model.","type":"invalid_request_error","param":"include","code":null}}"#
        let ok = "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[]}}\n\n"
        let t = FakeHTTPTransport(replies: [FakeHTTPTransport.Reply(status: 400, headers: [], body: Array(body.utf8)),
                                            FakeHTTPTransport.Reply(body: Array(ok.utf8))])
        let turn = await runTurn(openAI(t, model: "gpt-4.1"), ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.error == nil)
        #expect(t.requests.count == 2)
        #expect(try requestJSON(t, 0)["include"] == ["reasoning.encrypted_content"])
        #expect(try requestJSON(t, 1)["include"] == nil)
        #expect(try requestJSON(t, 1)["store"] == false)
    }

    @Test func otherErrorsAreNotRetriedWithoutReasoning() async throws {
        let body = #"{"error":{"message":"Invalid schema for function 'f'","type":"invalid_request_error","code":"invalid_function_parameters"}}"#
        let t = FakeHTTPTransport(replies: [FakeHTTPTransport.Reply(status: 400, headers: [], body: Array(body.utf8))])
        let turn = await runTurn(openAI(t), reasoningHistory())
        #expect(turn.error?.kind == .fatal)
        #expect(t.requests.count == 1)
    }

    @Test func reasoningFromOneBackendIsNotSentToTheOther() {
        var history = reasoningHistory()
        history.messages[1].parts.insert(.continuation(ContinuationItem(provider: "azure-responses", kind: "reasoning",
                                                                        payload: #"{"id":"rs_az","type":"reasoning","encrypted_content":"x","summary":[]}"#,
                                                                        origin: "azure-responses https://api.openai.com/v1 gpt-5")), at: 0)
        let input = openAI(transport("")).requestBody(history)["input"]?.arrayValue ?? []
        #expect(input.filter { $0["type"] == "reasoning" }.map { $0["id"] } == ["rs_abc"])
    }

    @Test func azureParallelWrapperIsExpandedUnlessDeclared() async throws {
        let args = #"{\"tool_uses\":[{\"recipient_name\":\"functions.weather\",\"parameters\":{\"city\":\"Rome\"}},{\"recipient_name\":\"functions.time\",\"parameters\":{}}]}"#
        let body = "event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"item\":{\"id\":\"fc_1\",\"type\":\"function_call\",\"call_id\":\"call_P\",\"name\":\"parallel\",\"arguments\":\"\(args)\"}}\n\n"
            + "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\"}}\n\n"
        let tools = [ToolSpec(name: "weather", description: "", parameters: [:]), ToolSpec(name: "time", description: "", parameters: [:])]
        let turn = await runTurn(azure(transport(body)), ChatRequest(system: "", messages: [.user("x")], tools: tools))
        #expect(turn.error == nil)
        #expect(turn.toolCalls == [ToolCall(id: "call_P_1", name: "weather", arguments: "{\"city\":\"Rome\"}"),
                                   ToolCall(id: "call_P_2", name: "time", arguments: "{}")])
        #expect(turn.finish == .toolCalls)
        let declared = tools + [ToolSpec(name: "parallel", description: "", parameters: [:])]
        let kept = await runTurn(azure(transport(body)), ChatRequest(system: "", messages: [.user("x")], tools: declared))
        #expect(kept.toolCalls.map(\.name) == ["parallel"])
    }

    @Test func callsOnlyInTheCompletedResponseAreStillEmitted() async throws {
        let body = "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"output\":[{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_9\",\"name\":\"lookup\",\"arguments\":\"{}\"}],\"usage\":{\"input_tokens\":5,\"output_tokens\":2}}}\n\n"
        let turn = await runTurn(openAI(transport(body)), ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.toolCalls == [ToolCall(id: "call_9", name: "lookup", arguments: "{}")])
        #expect(turn.finish == .toolCalls)
        // When output_item.done already announced the call, completed does not repeat it.
        let both = "event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"item\":{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_9\",\"name\":\"lookup\",\"arguments\":\"{}\"}}\n\n" + body
        let turn2 = await runTurn(openAI(transport(both)), ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn2.toolCalls.count == 1)
    }
}
