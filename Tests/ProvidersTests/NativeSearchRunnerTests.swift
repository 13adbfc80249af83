// Native search end to end: the recorded Anthropic web search, two turns, through the agent runner
// and a real database. The stored turn goes back as the API accepted it, and the search becomes
// the thread's sources and the links under the answer.
import Foundation
import Testing
import Agent
import HTTP
import Providers
import Research
import SQLiteKit
import TestSupport

@Suite struct NativeSearchRunnerTests {
    @Test func anthropicWebSearchThroughTheRunnerBecomesSourcesAndReplays() async throws {
        let queue = try DatabaseQueue(path: ":memory:")
        var migrator = Migrator()
        ConversationStore.registerMigrations(into: &migrator)
        SourceStore.registerMigrations(into: &migrator)
        try queue.migrate(migrator)
        let cassette = try ProviderFixtures.cassette("anthropic/fantasy__TestAnthropicWebSearch__stream.cassette.json")
        let t = FakeHTTPTransport(replies: cassette.map { FakeHTTPTransport.Reply(body: Array($0.responseBody.utf8), maxChunk: 97) })
        var c = config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-sonnet-4-20250514")
        c.nativeWebSearch = true
        let runner = AgentRunner(store: ConversationStore(queue: queue), model: AnthropicModel(config: c, transport: t), tools: ToolRegistry([]),
                                 approvals: ScriptedApprovalGate(fallback: .deny), clock: SystemClock(), ids: CountingIDSource(prefix: "run-"),
                                 diagnostics: NoDiagnostics(),
                                 configuration: AgentConfiguration(systemPrompt: "You are a helpful assistant", costEstimator: ModelCatalog.costEstimator),
                                 assembler: FullTranscriptAssembler(), faults: nil)
        let first = try runner.submit(threadID: "t1", text: "What is the current population of Tokyo? Cite your source.")
        #expect(try #require(await runner.outcome(of: first.runID)).phase == .completed)
        let second = try runner.submit(threadID: "t1", text: "How does that compare to Osaka?")
        #expect(try #require(await runner.outcome(of: second.runID)).phase == .completed)

        // The second request: the server blocks as recorded, the text without citations, the tools declared.
        let sent = try requestJSON(t, 1)
        let recorded = try json(cassette[1].requestBody)
        let assistant = try #require(sent["messages"]?[1]?["content"]?.arrayValue)
        let recordedAssistant = try #require(recorded["messages"]?[1]?["content"]?.arrayValue)
        #expect(Array(assistant.prefix(2)) == Array(recordedAssistant.prefix(2)))
        #expect(assistant.dropFirst(2).compactMap { $0["text"]?.stringValue }.joined()
                == recordedAssistant.dropFirst(2).compactMap { $0["text"]?.stringValue }.joined())
        #expect(withoutCacheMarkers(sent["messages"]?[2]) == recorded["messages"]?[2])
        #expect(sent["tools"]?.arrayValue?.first?["type"] == "web_search_20250305")
        #expect(!sent.serialized.contains("web_sources"))

        // The search is the thread's source, and the first answer lists what it cited.
        let sources = SourceStore(queue: queue)
        let footer = try #require(try sources.footer(threadID: "t1", runID: first.runID))
        #expect(footer.hasPrefix("Sources:\n  1. Tokyo Population 2026 — https://worldpopulationreview.com/cities/japan/tokyo"))
        let kept = try sources.sources(threadID: "t1")
        #expect(kept.contains { $0.kind == "search" && $0.url == "search:anthropic:Tokyo population 2026 current" })
        #expect(try sources.report(threadID: "t1").contains("Tokyo population 2026 current"))
    }
}
