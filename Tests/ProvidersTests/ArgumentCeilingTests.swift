// Issue 25 §4: adapters stop holding a tool call's streamed arguments past the cap (the agent
// rejects the call anyway), and pieces are appended in place, so a 3 MB argument stream neither
// fills the memory nor takes quadratic time.
import Base
import Foundation
import Testing
import Agent
import HTTP
import Providers
import TestSupport

@Suite struct ArgumentCeilingTests {
    static let pieces = 3_000
    static let piece = String(repeating: "a", count: 1_000) // 3 MB in all

    func chatCompletionsBody() -> String {
        var out = #"data: {"id":"r1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{\"q\":\""}}]}}]}"# + "\n\n"
        let fragment = #"data: {"id":"r1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\#(Self.piece)"}}]}}]}"# + "\n\n"
        for _ in 0..<Self.pieces { out += fragment }
        out += #"data: {"id":"r1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"# + "\n\ndata: [DONE]\n\n"
        return out
    }

    func anthropicBody() -> String {
        var out = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\",\"usage\":{\"input_tokens\":1}}}\n\n"
        out += "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"lookup\",\"input\":{}}}\n\n"
        let fragment = "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\(Self.piece)\"}}\n\n"
        for _ in 0..<Self.pieces { out += fragment }
        out += "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
        out += "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":5}}\n\n"
        out += "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
        return out
    }

    func expectCapped(_ turn: TurnResult, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(turn.error == nil, sourceLocation: sourceLocation)
        let call = turn.toolCalls.first
        #expect(call != nil, sourceLocation: sourceLocation)
        let size = call?.arguments.utf8.count ?? 0
        // Over the cap (so the agent rejects it), but not the 3 MB that streamed.
        #expect(size > AnswerLimits.standard.maxArgumentBytes, sourceLocation: sourceLocation)
        #expect(size <= AnswerLimits.adapterArgumentCeiling + Self.piece.utf8.count + 16, "kept \(size) bytes", sourceLocation: sourceLocation)
    }

    @Test func chatCompletionsStopsHoldingArgumentsPastTheCap() async throws {
        let model = ChatCompletionsModel(config: config("openai", base: "https://example.test/v1", model: "m"),
                                         transport: transport(chatCompletionsBody(), maxChunk: 64 * 1024))
        expectCapped(await runTurn(model, ChatRequest(system: "", messages: [.user("x")], tools: [])))
    }

    @Test func anthropicStopsHoldingArgumentsPastTheCap() async throws {
        let model = AnthropicModel(config: config("anthropic", base: "https://api.anthropic.com/v1", model: "claude", keyVariable: "ANTHROPIC_API_KEY"),
                                   transport: transport(anthropicBody(), maxChunk: 64 * 1024))
        expectCapped(await runTurn(model, ChatRequest(system: "", messages: [.user("x")], tools: [])))
    }

    @Test func anthropicStillJoinsSmallArgumentsAndThinking() async throws {
        var body = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m1\"}}\n\n"
        body += "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"a\"}}\n\n"
        for t in ["b", "c"] {
            body += "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"\(t)\"}}\n\n"
        }
        body += "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"sig\"}}\n\n"
        body += "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
        body += "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"lookup\",\"input\":{}}}\n\n"
        for j in [#"{\"q\":"#, #"\"oats\"}"#] {
            body += "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\(j)\"}}\n\n"
        }
        body += "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
        body += "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
        let turn = await expectSplitInvariant({
            AnthropicModel(config: config("anthropic", base: "https://api.anthropic.com/v1", model: "claude", keyVariable: "ANTHROPIC_API_KEY"), transport: $0)
        }, body: body, request: ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.toolCalls.first?.arguments == #"{"q":"oats"}"#)
        let thinking = try JSONValue.parse(turn.continuations.first?.payload ?? "")
        #expect(thinking == ["type": "thinking", "thinking": "abc", "signature": "sig"])
    }
}
