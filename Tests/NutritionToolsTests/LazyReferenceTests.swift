// The USDA reference data is read on first use: a toolbox built as the app builds it, and a turn
// that calls no reference tool, leave it unread; the first reference tool reads it and answers.
import Base
import Foundation
import Offline
import Testing
import Agent
import Journal
@testable import ReferenceFoods
@testable import NutritionTools

@Suite struct LazyReferenceTests {
    /// The offline assistant over every nutrition tool and a fresh database over the shipped files.
    struct Session {
        let fixture: Fixture
        let reference = ReferenceDatabase(directoryPath: ReferenceDatabase.bundledDirectory.path)
        let runner: AgentRunner
        let store: ConversationStore

        init() throws {
            fixture = try Fixture()
            store = ConversationStore(queue: fixture.queue)
            let clock = fixture.clock
            let tools = NutritionToolbox.makeRegistry(journal: fixture.journal, reference: reference)
            runner = AgentRunner(store: store, model: OfflineAssistant(timeZone: utc, now: { clock.now() }), tools: tools,
                                 approvals: ScriptedApprovalGate(fallback: .allowOnce), clock: clock, ids: CountingIDSource(prefix: "run-"),
                                 configuration: AgentConfiguration(systemPrompt: "offline", jitter: { 0.5 }))
        }

        func ask(_ text: String) async throws -> (outcome: RunOutcome, tools: [String]) {
            let handle = try runner.submit(threadID: "t1", text: text)
            let outcome = try #require(await runner.outcome(of: handle.runID))
            return (outcome, try store.toolRecords(runID: handle.runID).map(\.toolName))
        }
    }

    @Test func onlyAReferenceToolReadsTheReferenceData() async throws {
        let s = try Session()
        #expect(!s.reference.isLoaded) // building the toolbox reads nothing
        let plain = try await s.ask("hello")
        #expect(plain.outcome.phase == .completed && plain.tools.isEmpty)
        let day = try await s.ask("what did I eat yesterday")
        #expect(day.tools == ["get_journal_day"])
        #expect(!s.reference.isLoaded)

        let eggs = try await s.ask("log 2 eggs for breakfast")
        #expect(eggs.tools == ["search_food_bank", "search_reference_foods", "log_reference_food"])
        #expect(s.reference.isLoaded)
        #expect(eggs.outcome.text == "Logged Egg, whole, raw, fresh — 2 large (100 g), 143 kcal to breakfast on 2026-11-29.")
    }
}
