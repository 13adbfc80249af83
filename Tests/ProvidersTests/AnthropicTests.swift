// Anthropic Messages adapter against the recordings: tool_use assembly, thinking replay, usage, errors.
import Base
import Foundation
import Testing
import Agent
import HTTP
import Providers
import TestSupport

@Suite struct AnthropicTests {
    func claude(_ t: FakeHTTPTransport, model: String = "claude-sonnet-4-20250514") -> AnthropicModel {
        AnthropicModel(config: config("anthropic", base: "https://api.anthropic.com/v1", model: model, keyVariable: "ANTHROPIC_API_KEY"), transport: t)
    }

    func turn1Request(_ recorded: JSONValue) -> ChatRequest {
        ChatRequest(system: recorded["system"]?[0]?["text"]?.stringValue ?? "",
                    messages: [.user(recorded["messages"]?[0]?["content"]?[0]?["text"]?.stringValue ?? "")],
                    tools: toolSpecs(recorded["tools"]?.arrayValue), maxOutputTokens: recorded["max_tokens"]?.intValue ?? 4000)
    }

    func toolResults(_ recorded2: JSONValue, calls: [ToolCall]) -> Message {
        let blocks = (recorded2["messages"]?.arrayValue?.last?["content"]?.arrayValue ?? []).filter { $0["type"] == "tool_result" }
        return Message(role: .tool, parts: zip(calls, blocks).map { call, b in
            .toolResult(ToolResult(callID: call.id, name: call.name, content: b["content"]?[0]?["text"]?.stringValue ?? ""))
        })
    }

    func replayTurnTwo(_ file: String) async throws -> (turn1: TurnResult, turn2: TurnResult, sent: JSONValue, recorded2: JSONValue, wire: String) {
        let cassette = try ProviderFixtures.cassette("anthropic/\(file).cassette.json")
        let recorded1 = try json(cassette[0].requestBody)
        let recorded2 = try json(cassette[1].requestBody)
        let request1 = turn1Request(recorded1)
        let turn1 = await expectSplitInvariant({ claude($0) }, body: cassette[0].responseBody, request: request1)
        let t2 = transport(cassette[1].responseBody)
        var request2 = request1
        request2.messages += [turn1.assistantMessage, toolResults(recorded2, calls: turn1.toolCalls)]
        let turn2 = await runTurn(claude(t2), request2)
        let sent = try requestJSON(t2)
        // The recordings have no cache breakpoints; what the model reads is the same.
        #expect(withoutCacheMarkers(sent["messages"]) == recorded2["messages"])
        #expect(withoutCacheMarkers(sent["system"]) == recorded2["system"])
        #expect(withoutCacheMarkers(sent["tools"]) == recorded2["tools"])
        #expect(cacheMarkerPaths(sent).count <= 4)
        #expect(sent["model"] == recorded2["model"])
        return (turn1, turn2, sent, recorded2, String(decoding: t2.requests[0].body, as: UTF8.self))
    }

    @Test func textThenParallelToolUse() async throws {
        let r = try await replayTurnTwo("fantasy__claude-sonnet-4__multi_tool_streaming")
        #expect(r.turn1.error == nil)
        #expect(r.turn1.text == "I'll add and multiply the numbers 2 and 3 for you.")
        #expect(r.turn1.toolCalls.map(\.id) == ["toolu_01UYxUYC2zRPY8wiutnF48eP", "toolu_01VaRx1jpWCvPhi7L4kywAcd"])
        #expect(r.turn1.toolCalls.map(\.name) == ["add", "multiply"])
        #expect(try r.turn1.toolCalls.map { try $0.parsedArguments() } == [["a": 2, "b": 3], ["a": 2, "b": 3]])
        #expect(r.turn1.usage == Usage(inputTokens: 502, cachedInputTokens: 0, outputTokens: 137, reasoningTokens: 0))
        #expect(r.turn1.finish == .toolCalls)
        #expect(r.turn1.responseID == "msg_01PSvJdjd5keNSD63VHjYzex")
        #expect(r.turn2.text == "The results are:\n- 2 + 3 = 5\n- 2 × 3 = 6")
        #expect(r.turn2.usage == Usage(inputTokens: 700, cachedInputTokens: 0, outputTokens: 31, reasoningTokens: 0))
        #expect(r.turn2.finish == .stop)
    }

    @Test func thinkingBlockWithSignatureIsReplayedBeforeToolUse() async throws {
        let r = try await replayTurnTwo("fantasy__claude-sonnet-4__thinking-streaming")
        #expect(r.turn1.error == nil)
        #expect(r.turn1.text == "")
        #expect(r.turn1.toolCalls == [ToolCall(id: "toolu_01Js4AMfx5qpTLhwTusnvT68", name: "weather", arguments: "{\"location\": \"Florence, Italy\"}")])
        let item = try #require(r.turn1.continuations.first)
        #expect(item.kind == "thinking")
        let recordedBlock = try #require(r.recorded2["messages"]?[1]?["content"]?[0])
        #expect(try json(item.payload) == recordedBlock)
        let signature = try #require(recordedBlock["signature"]?.stringValue)
        #expect(r.wire.contains("\"signature\":\"\(signature)\""))
        #expect(r.sent["messages"]?[1]?["content"]?[0]?["type"] == "thinking")
        #expect(r.sent["messages"]?[1]?["content"]?[1]?["type"] == "tool_use")
        #expect(r.turn1.usage == Usage(inputTokens: 424, cachedInputTokens: 0, outputTokens: 119, reasoningTokens: 0))
        #expect(r.turn2.text.hasPrefix("The current weather in Florence, Italy is 40°C (104°F)."))
        #expect(r.turn2.finish == .stop)
    }

    @Test func toolWithoutArgumentsHasEmptyInput() async throws {
        let body = try ProviderFixtures.chunksAsSSE("anthropic/vercel__anthropic-tool-no-args.chunks.txt", named: true)
        let turn = await expectSplitInvariant({ claude($0) }, body: body, request: ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.error == nil)
        #expect(turn.text == "I'll update the issue list for you.")
        let call = try #require(turn.toolCalls.first)
        #expect(call.id == "toolu_01QE1WLsSVp5hy5Q3GmGTmjP")
        #expect(call.name == "updateIssueList")
        #expect(call.arguments == "")
        #expect(try call.parsedArguments() == [:])
        #expect(turn.usage == Usage(inputTokens: 565, cachedInputTokens: 0, outputTokens: 48, reasoningTokens: 0))
        let sent = claude(transport("")).requestBody(ChatRequest(system: "", messages: [.user("x"), turn.assistantMessage], tools: []))
        #expect(sent["messages"]?[1]?["content"]?[1]?["input"] == [:])
    }

    @Test func redactedThinkingAndCacheUsage() async throws {
        let events: [String] = [
            #"{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":10,"cache_read_input_tokens":90,"cache_creation_input_tokens":5,"output_tokens":1}}}"#,
            #"{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"}}"#,
            #"{"type":"content_block_stop","index":0}"#,
            #"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
            #"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"ok"}}"#,
            #"{"type":"content_block_stop","index":1}"#,
            #"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}"#,
            #"{"type":"message_stop"}"#,
        ]
        let body = events.map { "event: x\ndata: \($0)\n\n" }.joined()
        let turn = await runTurn(claude(transport(body)), ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.continuations.map(\.payload) == [#"{"data":"EmwKAhgBEgy3va3pzix/LafPsn4a","type":"redacted_thinking"}"#])
        #expect(turn.usage == Usage(inputTokens: 105, cachedInputTokens: 90, outputTokens: 7, reasoningTokens: 0, cacheWriteTokens: 5))
        let sent = claude(transport("")).requestBody(ChatRequest(system: "", messages: [.user("x"), turn.assistantMessage, .user("y")], tools: []))
        #expect(sent["messages"]?[1]?["content"] == [["type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"], ["type": "text", "text": "ok"]])
    }

    @Test func overloadedErrorEvent() async throws {
        let before = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"
        let t1 = await runTurn(claude(transport(before)), ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(t1.error?.kind == .retryable)
        let after = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":1}}}\n\n"
            + "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
            + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n"
            + before
        let t2 = await runTurn(claude(transport(after)), ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(t2.text == "Hi")
        #expect(t2.error?.kind == .unknownOutcome)
    }

    @Test func missingMessageStopIsTruncated() async throws {
        let body = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":1}}}\n\n"
        let turn = await runTurn(claude(transport(body)), ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.error?.kind == .retryable)
    }

    @Test func headersAndToolResultsFirstInUserMessage() throws {
        let model = claude(transport(""))
        let req = model.httpRequest(ChatRequest(system: "s", messages: [.user("x")], tools: []))
        #expect(req.url == "https://api.anthropic.com/v1/messages")
        #expect(req.headers.contains(HTTPHeader("x-api-key", testKey)))
        #expect(req.headers.contains(HTTPHeader("anthropic-version", "2023-06-01")))
        let call = ToolCall(id: "t1", name: "f", arguments: "{}")
        let body = model.requestBody(ChatRequest(system: "", messages: [
            .user("x"), Message(role: .assistant, parts: [.toolCall(call)]),
            Message(role: .tool, parts: [.toolResult(ToolResult(callID: "t1", name: "f", content: "bad", isError: true))]),
            .user("and then?"),
        ], tools: []))
        let last = body["messages"]?[2]
        #expect(body["messages"]?.arrayValue?.count == 3)
        #expect(last?["content"]?[0]?["type"] == "tool_result")
        #expect(last?["content"]?[0]?["is_error"] == true)
        #expect(withoutCacheMarkers(last?["content"]?[1]) == ["type": "text", "text": "and then?"])
    }

    @Test func wholeInputAtBlockStartIsUsedWhenNoDeltasCome() async throws {
        let events: [String] = [
            #"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_x","name":"lookup","input":{"query":"eggs"}}}"#,
            #"{"type":"content_block_stop","index":0}"#,
            #"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}"#,
            #"{"type":"message_stop"}"#,
        ]
        let body = events.map { "data: \($0)\n\n" }.joined()
        let turn = await runTurn(claude(transport(body)), ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(try turn.toolCalls.first?.parsedArguments() == ["query": "eggs"])
    }
}
