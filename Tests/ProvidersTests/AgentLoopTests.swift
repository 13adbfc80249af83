// End to end through the agent runner: a real adapter over recorded bytes drives a tool loop.
import Base
import Foundation
import Testing
import Agent
import HTTP
import Providers
import SQLiteKit
import TestSupport

/// add / multiply, as the recordings declared them.
private struct ArithmeticTool: Tool {
    var name: String
    var description: String
    var parameters: JSONValue = [
        "type": "object",
        "properties": ["a": ["type": "integer", "description": "first number"], "b": ["type": "integer", "description": "second number"]],
        "required": ["a", "b"],
    ]
    var effect: ToolEffect { .read }
    func activity(arguments: JSONValue) -> String { name }
    func execute(arguments: JSONValue, context: ToolContext) async throws -> ToolOutput {
        let a = arguments["a"]?.intValue ?? 0
        let b = arguments["b"]?.intValue ?? 0
        let result = name == "add" ? a + b : a * b
        return ToolOutput(content: "\(result)", summary: "\(name) = \(result)")
    }
}

@Suite struct AgentLoopTests {
    func runner(model: any ChatModel, system: String, queue existing: DatabaseQueue? = nil, idPrefix: String = "run-") throws -> AgentRunner {
        let queue = try existing ?? DatabaseQueue(path: ":memory:")
        var migrator = Migrator()
        ConversationStore.registerMigrations(into: &migrator)
        try queue.migrate(migrator)
        return AgentRunner(store: ConversationStore(queue: queue), model: model,
                           tools: ToolRegistry([ArithmeticTool(name: "add", description: "Add two numbers"),
                                                ArithmeticTool(name: "multiply", description: "Multiply two numbers")]),
                           approvals: ScriptedApprovalGate(fallback: .deny), clock: SystemClock(), ids: CountingIDSource(prefix: idPrefix),
                           diagnostics: NoDiagnostics(),
                           configuration: AgentConfiguration(systemPrompt: system, costEstimator: ModelCatalog.costEstimator),
                           assembler: FullTranscriptAssembler(), faults: nil)
    }

    @Test(arguments: [
        ("gemini", "gemini/fantasy__gemini-3-pro-preview__multi_tool_streaming.cassette.json", "The sum of 2 and 3 is 5, and their product is 6."),
        ("chat", "openai-chat/fantasy__openai-gpt-4o__multi_tool_streaming.cassette.json", "The sum of 2 and 3 is 5, and the product is 6."),
        ("responses", "openai-responses/fantasy__openai-gpt-5__multi_tool_streaming.cassette.json", "Results:\n- Addition (2 + 3) = 5\n- Multiplication (2 × 3) = 6"),
        ("anthropic", "anthropic/fantasy__claude-sonnet-4__multi_tool_streaming.cassette.json", "The results are:\n- 2 + 3 = 5\n- 2 × 3 = 6"),
    ])
    func recordedToolLoopThroughTheRunner(kind: String, file: String, answer: String) async throws {
        let cassette = try ProviderFixtures.cassette(file)
        let t = FakeHTTPTransport(replies: cassette.map { FakeHTTPTransport.Reply(body: Array($0.responseBody.utf8), maxChunk: 53) })
        let model: any ChatModel
        switch kind {
        case "gemini": model = GeminiModel(config: config("gemini", base: "https://g.test/v1beta", model: "gemini-3-pro-preview"), transport: t)
        case "chat": model = ChatCompletionsModel(config: config("openai", base: "https://o.test/v1", model: "gpt-4o"), transport: t, maxTokensField: "max_tokens")
        case "responses": model = ResponsesModel(config: config("openai", base: "https://o.test/v1", model: "gpt-5"), transport: t)
        default: model = AnthropicModel(config: config("anthropic", base: "https://a.test/v1", model: "claude-sonnet-4-20250514"), transport: t)
        }
        let system = "You are a helpful assistant. Always use both add and multiply at the same time."
        let r = try runner(model: model, system: system)
        let handle = try r.submit(threadID: "t1", text: "Add and multiply the number 2 and 3")
        let outcome = try #require(await r.outcome(of: handle.runID))
        #expect(outcome.phase == .completed, "\(String(describing: outcome.error))")
        #expect(outcome.text == answer)
        #expect(t.requests.count == 2)
        // The second request the runner made through the adapter carries what the API accepted.
        let sent = try requestJSON(t, 1)
        let recorded = try json(cassette[1].requestBody)
        switch kind {
        case "gemini": #expect(sent["contents"] == recorded["contents"])
        case "chat": #expect(sent["messages"]?.arrayValue?.dropFirst() == recorded["messages"]?.arrayValue?.dropFirst())
        case "responses": #expect(sent["input"]?.arrayValue?.dropFirst() == recorded["input"]?.arrayValue?.dropFirst())
        default: #expect(withoutCacheMarkers(sent["messages"]) == recorded["messages"])
        }
    }
}

extension AgentLoopTests {
    @Test func threadStartedOnOpenRouterKimiContinuesOnAnthropic() async throws {
        let queue = try DatabaseQueue(path: ":memory:")
        let system = "You are a helpful assistant. Always use both add and multiply at the same time."
        let kimi = try ProviderFixtures.cassette("openai-chat/fantasy__openrouter-kimi__multi_tool_streaming.cassette.json")
        let t1 = FakeHTTPTransport(replies: kimi.map { FakeHTTPTransport.Reply(body: Array($0.responseBody.utf8), maxChunk: 41) })
        let openRouter = ChatCompletionsModel(config: config("openrouter", base: "https://openrouter.ai/api/v1", model: "moonshotai/kimi-k2-0905"),
                                              transport: t1)
        let first = try runner(model: openRouter, system: system, queue: queue)
        let h1 = try first.submit(threadID: "t1", text: "Add and multiply the number 2 and 3")
        #expect(try #require(await first.outcome(of: h1.runID)).phase == .completed)
        // The stored thread went back to OpenRouter with its reasoning details and original ids.
        let second = try requestJSON(t1, 1)
        #expect(second["messages"]?[2]?["reasoning_details"] != nil)
        #expect(second["messages"]?[3]?["tool_call_id"] == "functions.add:0")

        let claude = try ProviderFixtures.cassette("anthropic/fantasy__claude-sonnet-4__multi_tool_streaming.cassette.json")
        let t2 = FakeHTTPTransport(replies: [FakeHTTPTransport.Reply(body: Array(claude[1].responseBody.utf8), maxChunk: 41)])
        let anthropic = AnthropicModel(config: config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-sonnet-4-20250514"),
                                       transport: t2)
        let next = try runner(model: anthropic, system: system, queue: queue, idPrefix: "next-run-")
        let h2 = try next.submit(threadID: "t1", text: "and now 4 and 5?")
        #expect(try #require(await next.outcome(of: h2.runID)).phase == .completed)
        let sent = try requestJSON(t2)
        let messages = try #require(sent["messages"]?.arrayValue)
        #expect(messages.map { $0["role"]?.stringValue ?? "" } == ["user", "assistant", "user", "assistant", "user"])
        #expect(messages[1]["content"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ==
                ["functions_add_0_0281487c23866cd1", "functions_multiply_1_60b73c7b064e4a9d"])
        #expect(messages[2]["content"]?.arrayValue?.compactMap { $0["tool_use_id"]?.stringValue } ==
                ["functions_add_0_0281487c23866cd1", "functions_multiply_1_60b73c7b064e4a9d"])
        // Every text block has non-whitespace text; nothing of OpenRouter's reasoning went along.
        for block in messages.flatMap({ $0["content"]?.arrayValue ?? [] }) where block["type"] == "text" {
            #expect(block["text"]?.stringValue?.contains { !$0.isWhitespace } == true)
        }
        let wire = String(decoding: t2.requests[0].body, as: UTF8.self)
        #expect(!wire.contains("reasoning"))
        #expect(withoutCacheMarkers(messages[4]["content"]) == [["type": "text", "text": "and now 4 and 5?"]])
    }
}

private struct NoDiagnostics: DiagnosticsRecorder {
    func record(_ event: AgentDiagnostic) {}
}
