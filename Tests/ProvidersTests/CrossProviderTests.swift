// A thread started on one provider (decoded from a real recorded stream) and continued on another:
// the exact request the second provider receives.
import Base
import Foundation
import Testing
import Agent
import HTTP
import Providers
import TestSupport

@Suite struct CrossProviderTests {
    // MARK: - Models as configured by a person

    func openRouter(_ model: String) -> ChatCompletionsModel {
        ChatCompletionsModel(config: config("openrouter", base: "https://openrouter.ai/api/v1", model: model), transport: transport(""))
    }
    var openAIChat: ChatCompletionsModel {
        ChatCompletionsModel(config: config("openai", base: "https://api.openai.com/v1", model: "gpt-4o"), transport: transport(""))
    }
    var cerebras: ChatCompletionsModel {
        ChatCompletionsModel(config: config("cerebras", base: "https://api.cerebras.ai/v1", model: "gpt-oss-120b"), transport: transport(""))
    }
    var llamaCpp: ChatCompletionsModel {
        ChatCompletionsModel(config: config("llamacpp", base: "http://localhost:8080/v1", model: "gpt-oss"), transport: transport(""))
    }
    func claude(_ model: String = "claude-sonnet-4-20250514", base: String = "https://api.anthropic.com/v1") -> AnthropicModel {
        AnthropicModel(config: config("anthropic", base: base, model: model), transport: transport(""))
    }
    func gemini(_ model: String) -> GeminiModel {
        GeminiModel(config: config("gemini", base: "https://generativelanguage.googleapis.com/v1beta", model: model), transport: transport(""))
    }
    func responses(_ model: String = "gpt-5") -> ResponsesModel {
        ResponsesModel(config: config("openai", base: "https://api.openai.com/v1", model: model), transport: transport(""))
    }
    func azure(_ model: String = "gpt-5-mini") -> ResponsesModel {
        ResponsesModel(config: config("azure", base: "https://fantasy-playground-resource.openai.azure.com", model: model), flavor: .azure,
                       transport: transport(""))
    }

    // MARK: - Threads from the recordings

    /// Turn 1 of a Chat Completions cassette decoded by `model`, plus the recorded tool results:
    /// the transcript a runner would hold after the first tool round.
    func chatThread(_ file: String, on model: ChatCompletionsModel) async throws -> [Message] {
        let cassette = try ProviderFixtures.cassette("openai-chat/\(file).cassette.json")
        let recorded2 = try json(cassette[1].requestBody)
        let user = recorded2["messages"]?.arrayValue?.first { $0["role"] == "user" }?["content"]?.stringValue ?? ""
        let decoding = ChatCompletionsModel(config: model.config, transport: transport(cassette[0].responseBody))
        let turn = await runTurn(decoding, ChatRequest(system: "", messages: [.user(user)], tools: []))
        try #require(turn.error == nil)
        let outputs = (recorded2["messages"]?.arrayValue ?? []).filter { $0["role"] == "tool" }
        let results = zip(turn.toolCalls, outputs).map { call, o in
            MessagePart.toolResult(ToolResult(callID: call.id, name: call.name, content: o["content"]?.stringValue ?? ""))
        }
        return [.user(user), turn.assistantMessage, Message(role: .tool, parts: results)]
    }

    func request(_ messages: [Message]) -> ChatRequest { ChatRequest(system: "", messages: messages, tools: []) }

    // MARK: - Anthropic

    @Test func kimiThreadFromOpenRouterContinuesOnAnthropicWithValidIDsAndNoReasoningDetails() async throws {
        let thread = try await chatThread("fantasy__openrouter-kimi__multi_tool_streaming", on: openRouter("moonshotai/kimi-k2-0905"))
        #expect(thread[1].toolCalls.map(\.id) == ["functions.add:0", "functions.multiply:1"])
        #expect(thread[1].parts.contains { if case .continuation(let c) = $0 { return c.kind == "reasoning_details" } else { return false } })
        let sent = claude().requestBody(request(thread))
        // `functions.add:0` breaks ^[a-zA-Z0-9_-]+$: the same stand-in goes on the call and its result.
        #expect(withoutCacheMarkers(sent["messages"]) == [
            ["role": "user", "content": [["type": "text", "text": "Add and multiply the number 2 and 3"]]],
            ["role": "assistant", "content": [
                ["type": "tool_use", "id": "functions_add_0_0281487c23866cd1", "name": "add", "input": ["a": 2, "b": 3]],
                ["type": "tool_use", "id": "functions_multiply_1_60b73c7b064e4a9d", "name": "multiply", "input": ["a": 2, "b": 3]],
            ]],
            ["role": "user", "content": [
                ["type": "tool_result", "tool_use_id": "functions_add_0_0281487c23866cd1", "content": [["type": "text", "text": "5"]]],
                ["type": "tool_result", "tool_use_id": "functions_multiply_1_60b73c7b064e4a9d", "content": [["type": "text", "text": "6"]]],
            ]],
        ])
        // Back on OpenRouter the stored originals go out unchanged, with their reasoning details.
        let home = openRouter("moonshotai/kimi-k2-0905").requestBody(request(thread))
        #expect(home["messages"]?[1]?["tool_calls"]?.arrayValue?.map { $0["id"] } == ["functions.add:0", "functions.multiply:1"])
        #expect(home["messages"]?[2]?["tool_call_id"] == "functions.add:0")
        #expect(home["messages"]?[1]?["reasoning_details"] != nil)
    }

    @Test func whitespaceOnlyTextBeforeACallIsNotSentToAnthropic() async throws {
        // The gateway recording with its text before the call turned into the "\n\n" models such as
        // gpt-oss and Kimi often stream there (no recording has exactly that).
        let recorded = String(decoding: try ProviderFixtures.bytes("openai-chat/vercel__anthropic-fallback-tool-call.sse"), as: UTF8.self)
        let body = recorded.replacingOccurrences(of: #""content":"Reading""#, with: #""content":"\n""#)
            .replacingOccurrences(of: #""content":" it.""#, with: #""content":"\n""#)
        #expect(body != recorded)
        let gateway = ChatCompletionsModel(config: config("gateway", base: "https://gateway.example/v1", model: "claude"), transport: transport(body))
        let turn = await runTurn(gateway, request([.user("read a.txt")]))
        #expect(turn.text == "\n\n")
        let call = try #require(turn.toolCalls.first)
        let thread = [Message.user("read a.txt"), turn.assistantMessage,
                      Message(role: .tool, parts: [.toolResult(ToolResult(callID: call.id, name: call.name, content: "hello"))]),
                      Message(role: .assistant, parts: [.text(" ")]), .user("  \n"), .user("and b.txt?")]
        let sent = claude().requestBody(request(thread))
        #expect(withoutCacheMarkers(sent["messages"]) == [
            ["role": "user", "content": [["type": "text", "text": "read a.txt"]]],
            ["role": "assistant", "content": [["type": "tool_use", "id": "toolu_sanitized", "name": "read_file", "input": ["path": "a.txt"]]]],
            ["role": "user", "content": [["type": "tool_result", "tool_use_id": "toolu_sanitized", "content": [["type": "text", "text": "hello"]]],
                                         ["type": "text", "text": "and b.txt?"]]],
        ])
        // An empty tool result goes without a content block rather than with an empty one.
        let empty = [Message.user("x"), Message(role: .assistant, parts: [.toolCall(call)]),
                     Message(role: .tool, parts: [.toolResult(ToolResult(callID: call.id, name: call.name, content: ""))])]
        #expect(withoutCacheMarkers(claude().requestBody(request(empty))["messages"]?[2]) ==
                ["role": "user", "content": [["type": "tool_result", "tool_use_id": "toolu_sanitized"]]])
    }

    @Test func anthropicThinkingGoesOnlyToTheModelAndServerThatMadeIt() async throws {
        let cassette = try ProviderFixtures.cassette("anthropic/fantasy__claude-sonnet-4__thinking-streaming.cassette.json")
        let decoding = AnthropicModel(config: claude().config, transport: transport(cassette[0].responseBody))
        let turn = await runTurn(decoding, request([.user("What's the weather in Florence, Italy?")]))
        let call = try #require(turn.toolCalls.first)
        let thread = [Message.user("What's the weather in Florence, Italy?"), turn.assistantMessage,
                      Message(role: .tool, parts: [.toolResult(ToolResult(callID: call.id, name: call.name, content: "40 C"))])]
        #expect(claude().requestBody(request(thread))["messages"]?[1]?["content"]?[0]?["type"] == "thinking")
        let toolUse: JSONValue = ["type": "tool_use", "id": "toolu_01Js4AMfx5qpTLhwTusnvT68", "name": "weather", "input": ["location": "Florence, Italy"]]
        #expect(claude("claude-opus-4-1").requestBody(request(thread))["messages"]?[1] == ["role": "assistant", "content": [toolUse]])
        #expect(claude(base: "https://proxy.example/v1").requestBody(request(thread))["messages"]?[1] == ["role": "assistant", "content": [toolUse]])
        // On Gemini: the call and its result with the same id, no thinking, the placeholder signature.
        let contents = gemini("gemini-3-pro-preview").requestBody(request(thread))["contents"]
        #expect(contents == [
            ["role": "user", "parts": [["text": "What's the weather in Florence, Italy?"]]],
            ["role": "model", "parts": [["functionCall": ["id": "toolu_01Js4AMfx5qpTLhwTusnvT68", "name": "weather", "args": ["location": "Florence, Italy"]],
                                         "thoughtSignature": .string(GeminiModel.foreignHistorySignature)]]],
            ["role": "user", "parts": [["functionResponse": ["id": "toolu_01Js4AMfx5qpTLhwTusnvT68", "name": "weather", "response": ["result": "40 C"]]]]],
        ])
    }

    // MARK: - Chat Completions

    @Test func openRouterReasoningDetailsAreNotSentToOpenAI() async throws {
        let thread = try await chatThread("fantasy__openrouter-gemini__multi_tool_streaming", on: openRouter("google/gemini-3-pro-preview"))
        let calls: JSONValue = [
            ["id": "tool_add_kZJN6iFNozVOBiXBMA2Y", "type": "function", "function": ["name": "add", "arguments": "{\"a\":2,\"b\":3}"]],
            ["id": "tool_multiply_7Pq02EcannPbKks8kXlA", "type": "function", "function": ["name": "multiply", "arguments": "{\"a\":2,\"b\":3}"]],
        ]
        let expected: JSONValue = [
            ["role": "user", "content": "Add and multiply the number 2 and 3"],
            ["role": "assistant", "tool_calls": calls],
            ["role": "tool", "tool_call_id": "tool_add_kZJN6iFNozVOBiXBMA2Y", "content": "5"],
            ["role": "tool", "tool_call_id": "tool_multiply_7Pq02EcannPbKks8kXlA", "content": "6"],
        ]
        #expect(openAIChat.requestBody(request(thread))["messages"] == expected)
        // Another model on OpenRouter gets none either; the model that made them gets them back.
        #expect(openRouter("openai/gpt-5").requestBody(request(thread))["messages"] == expected)
        let home = openRouter("google/gemini-3-pro-preview").requestBody(request(thread))["messages"]
        #expect(home?[1]?["reasoning_details"]?[0]?["format"] == "google-gemini-v1")
    }

    @Test func llamaCppReasoningContentIsNotSentToCerebras() async throws {
        let thread = try await chatThread("fantasy__llama-cpp-gpt-oss__tool_streaming", on: llamaCpp)
        #expect(cerebras.requestBody(request(thread))["messages"] == [
            ["role": "user", "content": "What's the weather in Florence,Italy?"],
            ["role": "assistant", "tool_calls": [["id": "g2KOIWzn722hzEaZQmNVP4roUPEiYafL", "type": "function",
                                                   "function": ["name": "weather", "arguments": "{\"location\":\"Florence, Italy\"}"]]]],
            ["role": "tool", "tool_call_id": "g2KOIWzn722hzEaZQmNVP4roUPEiYafL", "content": "40 C"],
        ])
        #expect(llamaCpp.requestBody(request(thread))["messages"]?[1]?["reasoning_content"] ==
                "User wants weather in Florence, Italy. We can use the weather function.")
    }

    /// 64-bit FNV-1a as hex, the documented hash of a stand-in id.
    func fnv1a(_ s: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    @Test func idsMadeUpHereAreShortenedForOpenAIChat() async throws {
        // A Gemini response without responseId: ofj makes up `gemini-<uuid>-call-1` (50 characters).
        var body = try ProviderFixtures.chunksAsSSE("gemini/vercel__google-tool-call-gemini3.chunks.txt")
        body = body.replacingOccurrences(of: #""responseId":"QHiLaa6LBrb8vdIPoNztsAg""#, with: #""responseVersion":"x""#)
        let decoding = GeminiModel(config: gemini("gemini-3-pro-preview").config, transport: transport(body))
        let turn = await runTurn(decoding, request([.user("weather in SF?")]))
        let call = try #require(turn.toolCalls.first)
        #expect(call.id.hasPrefix("gemini-") && call.id.count == 50)
        let thread = [Message.user("weather in SF?"), turn.assistantMessage,
                      Message(role: .tool, parts: [.toolResult(ToolResult(callID: call.id, name: call.name, content: "sunny"))])]
        let standIn = String(call.id.prefix(23)) + "_" + fnv1a(call.id)
        #expect(standIn.count == 40)
        #expect(openAIChat.requestBody(request(thread))["messages"] == [
            ["role": "user", "content": "weather in SF?"],
            ["role": "assistant", "tool_calls": [["id": .string(standIn), "type": "function",
                                                   "function": ["name": "weather", "arguments": "{\"location\":\"San Francisco\"}"]]]],
            ["role": "tool", "tool_call_id": .string(standIn), "content": "sunny"],
        ])
        // The Responses API takes 64 characters and Anthropic these characters: sent unchanged there.
        let input = responses().requestBody(request(thread))["input"]?.arrayValue ?? []
        #expect(input.compactMap { $0["call_id"]?.stringValue } == [call.id, call.id])
        #expect(claude().requestBody(request(thread))["messages"]?[1]?["content"]?[0]?["id"] == .string(call.id))
    }

    // MARK: - Gemini

    @Test func gemini25SignatureIsNotSentToGemini3() async throws {
        let cassette = try ProviderFixtures.cassette("gemini/fantasy__gemini-2.5-flash__thinking-streaming.cassette.json")
        let decoding = GeminiModel(config: gemini("gemini-2.5-flash").config, transport: transport(cassette[0].responseBody))
        let turn = await runTurn(decoding, request([.user("What's the weather in Florence, Italy?")]))
        let call = try #require(turn.toolCalls.first)
        let thread = [Message.user("What's the weather in Florence, Italy?"), turn.assistantMessage,
                      Message(role: .tool, parts: [.toolResult(ToolResult(callID: call.id, name: call.name, content: "40 C"))])]
        // Its own model still gets the signature; Gemini 3 gets the placeholder; the made-up id goes to neither.
        let home = gemini("gemini-2.5-flash").requestBody(request(thread))["contents"]?[1]?["parts"]?[0]
        #expect(home?["thoughtSignature"]?.stringValue?.hasPrefix("CiQBvj72") == true)
        #expect(gemini("gemini-3-pro-preview").requestBody(request(thread))["contents"] == [
            ["role": "user", "parts": [["text": "What's the weather in Florence, Italy?"]]],
            ["role": "model", "parts": [["functionCall": ["name": "weather", "args": ["location": "Florence, Italy"]],
                                         "thoughtSignature": .string(GeminiModel.foreignHistorySignature)]]],
            ["role": "user", "parts": [["functionResponse": ["name": "weather", "response": ["result": "40 C"]]]]],
        ])
    }

    // MARK: - Responses

    /// Azure turn 2 (encrypted reasoning, then the answer message) after the recorded turn 1.
    func azureThread() async throws -> [Message] {
        let cassette = try ProviderFixtures.cassette("openai-responses/fantasy__azure-gpt-5-mini__thinking-streaming.cassette.json")
        let recorded2 = try json(cassette[1].requestBody)
        let user = (recorded2["input"]?.arrayValue ?? []).first { $0["role"] == "user" }?["content"]?[0]?["text"]?.stringValue ?? ""
        let turn1 = await runTurn(ResponsesModel(config: azure().config, flavor: .azure, transport: transport(cassette[0].responseBody)),
                                  request([.user(user)]))
        let call = try #require(turn1.toolCalls.first)
        var thread = [Message.user(user), turn1.assistantMessage,
                      Message(role: .tool, parts: [.toolResult(ToolResult(callID: call.id, name: call.name, content: "40 C"))])]
        let turn2 = await runTurn(ResponsesModel(config: azure().config, flavor: .azure, transport: transport(cassette[1].responseBody)),
                                  request(thread))
        try #require(turn2.error == nil)
        thread.append(turn2.assistantMessage)
        thread.append(.user("and tomorrow?"))
        return thread
    }

    @Test func reasoningBeforeAnAnswerIsReplayedWithTheAnswersMessageID() async throws {
        let thread = try await azureThread()
        let answer = thread[3]
        let reasoning = try #require(answer.parts.compactMap { if case .continuation(let c) = $0, c.kind == "reasoning" { return c } else { return nil } }.first)
        let message = try #require(answer.parts.compactMap { if case .continuation(let c) = $0, c.kind == "message" { return c } else { return nil } }.first)
        #expect(try json(message.payload) == ["id": "msg_060b1ce986da3b18016a3c11b48c9481968f9ce89e269388f3"])
        let input = azure().requestBody(request(thread))["input"]?.arrayValue ?? []
        let at = try #require(input.firstIndex { $0["id"] == "rs_060b1ce986da3b18016a3c11accd1c81969adf0df726cb650d" })
        #expect(input[at] == (try json(reasoning.payload)))
        #expect(input[at + 1] == ["type": "message", "id": "msg_060b1ce986da3b18016a3c11b48c9481968f9ce89e269388f3", "role": "assistant",
                                  "status": "completed", "content": [["type": "output_text", "text": .string(answer.text), "annotations": []]]])
        #expect(input[at + 2] == ["role": "user", "content": [["type": "input_text", "text": "and tomorrow?"]]])
        // Without its reasoning item (the retry after a refused blob) the message goes without its id.
        let retry = azure().requestBody(request(thread), includeReasoning: false)["input"]?.arrayValue ?? []
        #expect(!retry.contains { $0["type"] == "reasoning" })
        #expect(retry.contains(["role": "assistant", "content": .string(answer.text)]))
    }

    @Test func reasoningWhoseFollowingItemIsUnknownIsLeftOut() async throws {
        var thread = try await azureThread()
        // The answer was cut off before its message item closed: no message id to pair with.
        thread[3].parts.removeAll { if case .continuation(let c) = $0 { return c.kind == "message" } else { return false } }
        let input = azure().requestBody(request(thread))["input"]?.arrayValue ?? []
        #expect(input.filter { $0["type"] == "reasoning" }.count == 1) // turn 1's, before its call
        #expect(input.contains(["role": "assistant", "content": .string(thread[3].text)]))
        #expect(!input.contains { $0["id"] == "rs_060b1ce986da3b18016a3c11accd1c81969adf0df726cb650d" })
    }

    @Test func azureReasoningIsNotSentToAnotherDeploymentOrToOpenAI() async throws {
        let thread = try await azureThread()
        for other in [azure("gpt-5"), responses("gpt-5-mini")] {
            let input = other.requestBody(request(thread))["input"]?.arrayValue ?? []
            #expect(!input.contains { $0["type"] == "reasoning" || $0["type"] == "message" })
            #expect(input.filter { $0["role"] == "assistant" }.count == 1)
        }
        // Chat Completions gets the calls and texts and nothing of the Responses items.
        let messages = openAIChat.requestBody(request(thread))["messages"]?.arrayValue ?? []
        #expect(messages.map { $0["role"]?.stringValue ?? "" } == ["user", "assistant", "tool", "assistant", "user"])
        #expect(messages.allSatisfy { $0["reasoning_details"] == nil && $0["reasoning"] == nil })
    }
}
