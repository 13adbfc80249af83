// Cost arithmetic against the model catalog, through the runner's usage rows and the per-thread totals.
import Foundation
import Offline
import Testing
import Agent
import Providers
import SQLiteKit

@Suite struct ContextCostTests {
    func runner(model: any ChatModel) throws -> AgentRunner {
        let queue = try DatabaseQueue(path: ":memory:")
        var migrator = Migrator()
        ConversationStore.registerMigrations(into: &migrator)
        try queue.migrate(migrator)
        return AgentRunner(store: ConversationStore(queue: queue), model: model, tools: ToolRegistry([]),
                           approvals: ScriptedApprovalGate(fallback: .deny), clock: VirtualClock(), ids: CountingIDSource(prefix: "run-"),
                           configuration: AgentConfiguration(systemPrompt: "s", costEstimator: ModelCatalog.costEstimator))
    }

    @Test func roundCostsAndThreadTotalsMatchTheCatalogPrices() async throws {
        let clock = VirtualClock()
        let u1 = Usage(inputTokens: 120_000, cachedInputTokens: 100_000, outputTokens: 3_000, reasoningTokens: 1_000)
        let u2 = Usage(inputTokens: 10_000, cachedInputTokens: 0, outputTokens: 500, reasoningTokens: 0)
        let model = ScriptedChatModel(turns: [.text("one", usage: u1), .text("two", usage: u2)], clock: clock, provider: "openai", model: "gpt-5-2025-08-07")
        let runner = try runner(model: model)
        for text in ["a", "b"] {
            let h = try runner.submit(threadID: "t", text: text)
            #expect(await runner.outcome(of: h.runID)?.phase == .completed)
        }
        // gpt-5: $1.25 input, $0.125 cached, $10 output (reasoning billed as output) per million tokens.
        let expected1 = (20_000 * 1.25 + 100_000 * 0.125 + 3_000 * 10.0) / 1_000_000
        let expected2 = (10_000 * 1.25 + 500 * 10.0) / 1_000_000
        #expect(abs(ModelCatalog.cost(usage: u1, model: "gpt-5-2025-08-07", provider: "openai") - expected1) < 1e-12)
        let rows = try runner.store.usage(threadID: "t")
        #expect(rows.count == 2)
        #expect(abs((rows[0].costUSD ?? -1) - expected1) < 1e-12)
        #expect(abs((rows[1].costUSD ?? -1) - expected2) < 1e-12)
        let totals = try runner.store.usageTotals(threadID: "t")
        #expect(totals.rounds == 2)
        #expect(totals.usage == u1 + u2)
        #expect(abs(totals.costUSD - (expected1 + expected2)) < 1e-12)
        #expect(totals.roundsWithoutCost == 0)
        let day = try runner.store.usageTotals(dayContaining: clock.now(), secondsFromGMT: 0)
        #expect(day.rounds == 2)
    }

    @Test func theOfflineAssistantCostsNothing() async throws {
        #expect(ModelCatalog.costEstimator("offline", "offline", Usage(inputTokens: 1_000_000, outputTokens: 1_000_000)) == 0)
        let runner = try runner(model: OfflineAssistant(timeZone: TimeZone(identifier: "UTC") ?? .current, now: { 1_800_000_000 }))
        let h = try runner.submit(threadID: "t", text: "hello")
        _ = await runner.outcome(of: h.runID)
        let totals = try runner.store.usageTotals(threadID: "t")
        #expect(totals.rounds >= 1)
        #expect(totals.costUSD == 0)
        #expect(totals.roundsWithoutCost == 0)
    }

    @Test func unknownHostedModelsHaveNoCostRatherThanAGuess() async throws {
        let model = ScriptedChatModel(turns: [.text("x", usage: Usage(inputTokens: 10, outputTokens: 10))], clock: VirtualClock(),
                                      provider: "openai", model: "mystery-model")
        let runner = try runner(model: model)
        let h = try runner.submit(threadID: "t", text: "a")
        _ = await runner.outcome(of: h.runID)
        let totals = try runner.store.usageTotals(threadID: "t")
        #expect(totals.rounds == 1)
        #expect(totals.roundsWithoutCost == 1)
        #expect(totals.costUSD == 0)
    }

    /// Anthropic bills tokens written to its prompt cache at 1.25 times the input price.
    @Test func cacheWritesCostAQuarterMoreThanInput() {
        let usage = Usage(inputTokens: 10_000, cachedInputTokens: 6_000, outputTokens: 100, cacheWriteTokens: 3_000)
        // claude-sonnet-4-5: $3 input, $0.30 cache read, $15 output per million.
        let expected = (4_000 * 3.0 + 3_000 * 3.0 * 0.25 + 6_000 * 0.30 + 100 * 15.0) / 1_000_000
        #expect(abs(ModelCatalog.cost(usage: usage, model: "claude-sonnet-4-5", provider: "anthropic") - expected) < 1e-12)
    }
}
