// Issue 39: the packaged-food client is made on the first lookup that needs the network. A turn
// that asks for no packaged food never builds it; the first barcode lookup after such a turn
// builds it once and answers from it.
import Foundation
import HTTP
import Offline
import PackagedFoods
import SQLiteKit
import Synchronization
import Testing
import TestSupport
import Agent
import Journal
import ReferenceFoods
@testable import NutritionTools

@Suite struct LazyClientsTests {
    /// The offline assistant over the nutrition and packaged tools, the client behind a counting loader.
    final class Session: Sendable {
        let queue: DatabaseQueue
        let runner: AgentRunner
        let store: ConversationStore
        let foods: OnFirstUse<PackagedFoods>
        let builds = Counter()
        let transport: FakeHTTPTransport

        init() throws {
            queue = try DatabaseQueue(path: ":memory:")
            var m = Migrator()
            ConversationStore.registerMigrations(into: &m)
            JournalStore.registerMigrations(into: &m)
            PackagedStore.registerMigrations(into: &m)
            try queue.migrate(m)
            let clock = VirtualClock(epoch: fixtureEpoch)
            let now: @Sendable () -> Date = { Date(timeIntervalSince1970: clock.now()) }
            let journal = JournalStore(queue: queue, timeZone: utc, now: now)
            store = ConversationStore(queue: queue)
            let transport = FakeHTTPTransport(replies: [.init(headers: [HTTPHeader("Content-Type", "application/json")], text: barJSON)])
            self.transport = transport
            let queue = self.queue, builds = self.builds
            foods = OnFirstUse {
                builds.increment()
                return PackagedFoods(transport: transport, config: PackagedConfig(offBaseURL: "http://off.test"),
                                     store: PackagedStore(queue: queue, now: now), sleep: { _ in })
            }
            let tools = NutritionToolbox.makeRegistry(journal: journal, reference: .shared,
                                                      extraTools: PackagedTools.make(journal: journal, foods: foods))
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

    final class Counter: Sendable {
        private let count = Mutex(0)
        func increment() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    @Test func aPlainTurnNeverBuildsThePackagedClientAndABarcodeAfterItDoes() async throws {
        let s = try Session()
        let plain = try await s.ask("hello")
        #expect(plain.outcome.phase == .completed && plain.tools.isEmpty)
        let day = try await s.ask("what did I eat yesterday")
        #expect(day.tools == ["get_journal_day"])
        #expect(!s.foods.isLoaded && s.builds.value == 0)
        #expect(s.transport.requests.isEmpty)

        let scan = try await s.ask("scan 3017620422003")
        #expect(scan.tools == ["lookup_barcode"])
        #expect(scan.outcome.text.contains("Hazelnut bar"), "\(scan.outcome.text)")
        #expect(s.builds.value == 1)
        #expect(s.transport.requests.count == 1)
        // A second lookup reuses the client (and its cache answers, no new request).
        let again = try await s.ask("scan 3017620422003")
        #expect(again.outcome.text.contains("Hazelnut bar"))
        #expect(s.builds.value == 1)
    }
}

@Suite struct OnFirstUseTests {
    @Test func madeOnceOnFirstReadAndSharedAfter() async {
        let builds = LazyClientsTests.Counter()
        let lazy = OnFirstUse { builds.increment(); return 42 }
        #expect(!lazy.isLoaded && builds.value == 0)
        await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { lazy.value } }
            for await v in group { #expect(v == 42) }
        }
        #expect(lazy.isLoaded && builds.value == 1)
        #expect(OnFirstUse(made: "x").isLoaded)
    }
}
