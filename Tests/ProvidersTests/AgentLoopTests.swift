// End to end through the agent runner: a real adapter over recorded bytes drives a tool loop.
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
    func runner(model: any ChatModel, system: String) throws -> AgentRunner {
        let queue = try DatabaseQueue(path: ":memory:")
        var migrator = Migrator()
        ConversationStore.registerMigrations(into: &migrator)
        try queue.read { try migrator.migrate($0) }
        return AgentRunner(store: ConversationStore(queue: queue), model: model,
                           tools: ToolRegistry([ArithmeticTool(name: "add", description: "Add two numbers"),
                                                ArithmeticTool(name: "multiply", description: "Multiply two numbers")]),
                           approvals: ScriptedApprovalGate(fallback: .deny), clock: SystemClock(), ids: CountingIDSource(prefix: "run-"),
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
        default: #expect(sent["messages"] == recorded["messages"])
        }
    }
}

private struct NoDiagnostics: DiagnosticsRecorder {
    func record(_ event: AgentDiagnostic) {}
}
