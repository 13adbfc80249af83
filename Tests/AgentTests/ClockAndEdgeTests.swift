// Clocks, id sources, deadline helpers, cost accounting and a few edge cases of the runner.
import Base
import Foundation
import Synchronization
import Testing
@testable import Agent

final class FiredLog: Sendable {
    private let box = Mutex<[String]>([])
    func add(_ s: String) { box.withLock { $0.append(s) } }
    var all: [String] { box.withLock { $0 } }
}

final class TaskBox: Sendable {
    private let box = Mutex<Task<Void, any Error>?>(nil)
    var task: Task<Void, any Error>? {
        get { box.withLock { $0 } }
        set { box.withLock { $0 = newValue } }
    }
}

@Suite struct ClockTests {
    @Test func virtualClockFiresDueTimersInOrderAtTheirTime() async throws {
        let clock = VirtualClock(epoch: 1_000)
        let log = FiredLog()
        _ = clock.schedule(after: 5) { log.add("b@\(clock.monotonic())") }
        _ = clock.schedule(after: 2) { log.add("a@\(clock.monotonic())") }
        let cancelled = clock.schedule(after: 3) { log.add("never") }
        _ = clock.schedule(after: 50) { log.add("late") }
        cancelled.cancel()
        try await clock.sleep(seconds: 6)
        #expect(log.all == ["a@2.0", "b@5.0"])
        #expect(clock.monotonic() == 6 && clock.now() == 1_006)
        #expect(clock.pendingCount == 1)
        clock.advance(by: 100)
        #expect(log.all.last == "late")
    }

    @Test func aSleeperCancelledByATimerStopsAtThatInstant() async throws {
        let clock = VirtualClock()
        let sleeper = TaskBox()
        _ = clock.schedule(after: 4) { sleeper.task?.cancel() } // armed before anyone sleeps
        let ready = Latch()
        let task = Task {
            await ready.wait()
            try await clock.sleep(seconds: 100)
        }
        sleeper.task = task
        ready.open()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.monotonic() == 4)
    }

    @Test func withDeadlineAbandonsAStuckOperation() async throws {
        let clock = VirtualClock()
        let latch = Latch()
        defer { latch.open() }
        let stuck = Task {
            try await withDeadline(1, kind: .toolRead, clock: clock) {
                await latch.wait() // ignores cancellation entirely
                return 0
            }
        }
        while clock.pendingCount == 0 { try await Task.sleep(for: .milliseconds(2)) } // the deadline is armed
        clock.advance(by: 1)
        do {
            _ = try await stuck.value
            Issue.record("expected the deadline to fire")
        } catch let e as DeadlineExpired {
            #expect(e.kind == .toolRead)
        }
        #expect(try await withDeadline(1, kind: .toolRead, clock: clock) { 42 } == 42)
        #expect(clock.pendingCount == 0)
    }

    @Test func systemClockAndIDs() async throws {
        let clock = SystemClock()
        let start = clock.monotonic()
        try await clock.sleep(seconds: 0.02)
        #expect(clock.monotonic() - start >= 0.015)
        #expect(abs(clock.now() - Date().timeIntervalSince1970) < 5)
        let fired = FiredLog()
        _ = clock.schedule(after: 0.01) { fired.add("x") }
        let never = clock.schedule(after: 0.01) { fired.add("y") }
        never.cancel()
        for _ in 0..<300 where fired.all.isEmpty { try await Task.sleep(for: .milliseconds(10)) } // the machine may be busy
        try await Task.sleep(for: .milliseconds(30))
        #expect(fired.all == ["x"])

        let uuids = UUIDSource()
        let a = uuids.next(), b = uuids.next()
        #expect(a != b && a.count == 36 && a == a.lowercased())
        let counting = CountingIDSource(prefix: "x-")
        #expect([counting.next(), counting.next()] == ["x-1", "x-2"])
    }
}

@Suite struct RunnerEdgeTests {
    @Test func costEstimatesAreStoredWithUsage() async throws {
        let queue = try openDatabase()
        let store = ConversationStore(queue: queue)
        let clock = VirtualClock()
        let model = ScriptedChatModel(turns: [.text("hi", usage: Usage(inputTokens: 1_000, outputTokens: 500))], clock: clock)
        let runner = AgentRunner(store: store, model: model, tools: ToolRegistry(), approvals: ScriptedApprovalGate(), clock: clock,
                                 ids: CountingIDSource(),
                                 configuration: AgentConfiguration(systemPrompt: "s", costEstimator: { provider, _, usage in
                                     provider == "scripted" ? Double(usage.inputTokens) * 1e-6 + Double(usage.outputTokens) * 2e-6 : nil
                                 }))
        let handle = try runner.submit(threadID: runner.newThreadID(), text: "hello")
        #expect(await runner.outcome(of: handle.runID)?.phase == .completed)
        let usage = try store.usage(threadID: handle.threadID)
        #expect(usage.count == 1)
        #expect(abs((usage.first?.costUSD ?? 0) - 0.002) < 1e-12)
    }

    @Test func stoppingRightAfterAnAllowWritesNothing() async throws {
        final class CancellingGate: ApprovalGate {
            let runner = Mutex<AgentRunner?>(nil)
            func decide(_ request: ApprovalRequest) async -> ApprovalDecision {
                runner.withLock { $0 }?.cancel(threadID: request.threadID)
                return .allowOnce
            }
        }
        let gate = CancellingGate()
        let h = try Harness(gate: gate)
        gate.runner.withLock { $0 = h.runner }
        h.model.enqueue(.calls(("w1", "add_entry", #"{"item":"egg","grams":1}"#)))
        let (handle, outcome) = try await h.ask("log")
        #expect(outcome.phase == .cancelled)
        #expect(try h.entries() == 0)
        #expect(try h.ledgerRows() == 0)
        #expect(try h.store.toolRecords(runID: handle.runID).first?.status == .cancelled)
    }

    @Test func interruptAllSuspendsEveryActiveRun() async throws {
        let h = try Harness()
        h.model.enqueue(ScriptedTurn([.stall]), ScriptedTurn([.stall]))
        let a = try h.runner.submit(threadID: "a", text: "one")
        let b = try h.runner.submit(threadID: "b", text: "two")
        try await h.waitFor("both waiting") { _ in h.events.filter { $0.kind == .phase(.waitingForProvider) }.count == 2 }
        #expect(h.runner.isActive(threadID: "a"))
        h.runner.interruptAll()
        #expect(await h.runner.outcome(of: a.runID)?.phase == .suspended)
        #expect(await h.runner.outcome(of: b.runID)?.phase == .suspended)
        #expect(!h.runner.isActive(threadID: "a"))
        #expect(try h.store.suspendedRuns().count == 2)
    }

    @Test func largeReadResultsReachTheModelTruncated() async throws {
        let h = try Harness(tools: [LookupTool(resultSize: 100_000)])
        h.model.enqueue(.calls(("c1", "lookup", #"{"query":"big"}"#)), .text("ok"))
        _ = try await h.ask("big")
        let result = try #require(h.model.requests.last?.results["c1"])
        #expect(result.content.utf8.count <= ToolRegistry.defaultResultLimit)
        #expect(result.content.contains("[truncated: the result was 100000 bytes"))
    }

    @Test func webToolsGetTheirOwnDeadline() async throws {
        struct SearchTool: Tool {
            var name = "web_search"
            var description = "Searches the web."
            var parameters: JSONValue = ["type": "object"]
            var effect: ToolEffect { .read }
            var timing: ToolTiming { .webSearch }
            let clock: VirtualClock
            func activity(arguments: JSONValue) -> String { "searching" }
            func execute(arguments: JSONValue, context: ToolContext) async throws -> ToolOutput {
                try await clock.sleep(seconds: 8) // too slow for a local read, fine for a web search
                return ToolOutput(content: "{}", summary: "3 results")
            }
        }
        let clock = VirtualClock()
        let h = try Harness(clock: clock, tools: [SearchTool(clock: clock)])
        h.model.enqueue(.calls(("c1", "web_search", "{}")), .text("ok"))
        _ = try await h.ask("search")
        #expect(h.model.requests.last?.results["c1"]?.isError == false)
    }
}
