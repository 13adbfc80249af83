// Cancellation at every phase, crashes at every fault point, recovery and exactly-once writes.
import Base
import Foundation
import Testing
import SQLiteKit
import TestSupport
@testable import Agent

@Suite struct CancellationTests {
    @Test(arguments: [false, true])
    func stoppingWhileWaitingForTheProvider(suspend: Bool) async throws {
        let h = try Harness()
        h.model.enqueue(ScriptedTurn([.stall]))
        let handle = try h.runner.submit(threadID: "t1", text: "hi")
        try await h.waitFor("waiting") { $0.kind == .phase(.waitingForProvider) }
        if suspend { h.runner.interrupt(threadID: "t1") } else { h.runner.cancel(threadID: "t1") }
        let outcome = try #require(await h.runner.outcome(of: handle.runID))
        #expect(outcome.phase == (suspend ? .suspended : .cancelled))
        #expect(try h.store.run(handle.runID)?.phase == outcome.phase)
        #expect(h.clock.pendingCount == 0)
    }

    @Test func stoppingMidStreamSavesThePartialText() async throws {
        let h = try Harness()
        h.model.enqueue(ScriptedTurn([.text("The first "), .text("half"), .stall]))
        let handle = try h.runner.submit(threadID: "t1", text: "hi")
        try await h.waitFor("delta") { $0.kind == .textDelta("half") }
        h.runner.interrupt(threadID: "t1")
        let outcome = try #require(await h.runner.outcome(of: handle.runID))
        #expect(outcome.phase == .suspended && outcome.text == "The first half")
        #expect(outcome.error?.line.contains("/continue") == true)
        let last = try #require(try h.store.transcript(threadID: "t1").last)
        #expect(last.message == .assistant("The first half") && last.state == .partial)

        // Continue: the partial answer stays in the transcript, and the model gets another turn.
        h.model.enqueue(.text(" and the rest"))
        let resumed = try h.runner.continueRun(threadID: "t1")
        #expect(resumed.runID == handle.runID)
        #expect(await h.runner.outcome(of: handle.runID)?.phase == .completed)
        #expect(h.model.requests.last?.messages.last == .assistant("The first half"))
    }

    @Test func stoppingDuringReadsIsPrompt() async throws {
        let h = try Harness(tools: [LookupTool(stall: true)])
        h.model.enqueue(.calls(("c1", "lookup", #"{"query":"a"}"#), ("c2", "lookup", #"{"query":"b"}"#)))
        let handle = try h.runner.submit(threadID: "t1", text: "hi")
        try await h.waitFor("tool") { if case .toolStarted(let id, _, _) = $0.kind { return id == "c2" } else { return false } }
        let started = ContinuousClock.now
        h.runner.cancel(threadID: "t1")
        let outcome = try #require(await h.runner.outcome(of: handle.runID))
        #expect(ContinuousClock.now - started < .seconds(20)) // not the tool's hour (generous: the machine may be busy)
        #expect(outcome.phase == .cancelled)
        let records = try h.store.toolRecords(runID: handle.runID)
        #expect(records.map(\.status) == [.cancelled, .cancelled])
        // The stored transcript is closed: each call has its "stopped" result.
        #expect(RequestNormalizer.violations(try h.store.transcript(threadID: "t1").map(\.message)).isEmpty)
    }

    /// A read tool that ignores cancellation until released.
    struct StubbornTool: Tool {
        var name = "stubborn"
        var description = "Never stops early."
        var parameters: JSONValue = ["type": "object"]
        var effect: ToolEffect { .read }
        let release: Latch
        let finished: Counter
        func activity(arguments: JSONValue) -> String { "working" }
        func execute(arguments: JSONValue, context: ToolContext) async throws -> ToolOutput {
            await release.wait() // deaf to cancellation, but suspended: never spin on a cooperative thread
            finished.increment()
            return ToolOutput(content: "{}", summary: "done")
        }
    }

    @Test func aReadThatIgnoresCancellationDoesNotHoldTheRun() async throws {
        let release = Latch(), finished = Counter()
        let h = try Harness(tools: [StubbornTool(release: release, finished: finished)])
        h.model.enqueue(.calls(("c1", "stubborn", "{}")))
        let handle = try h.runner.submit(threadID: "t1", text: "hi")
        try await h.waitFor("tool") { if case .toolStarted = $0.kind { return true } else { return false } }
        h.runner.interrupt(threadID: "t1")
        let outcome = await h.runner.outcome(of: handle.runID)
        #expect(outcome?.phase == .suspended)
        #expect(finished.count == 0) // the run ended while the tool was still running
        release.open()
        #expect(try h.store.toolRecords(runID: handle.runID).first?.status == .interrupted)
    }

    @Test(arguments: [false, true])
    func stoppingAtAnApprovalWritesNothing(suspend: Bool) async throws {
        let gate = ManualApprovalGate()
        let h = try Harness(gate: gate)
        h.model.enqueue(.calls(("w1", "add_entry", #"{"item":"egg","grams":1}"#)))
        let handle = try h.runner.submit(threadID: "t1", text: "log")
        try await h.waitFor("approval") { if case .approvalRequested = $0.kind { return true } else { return false } }
        if suspend { h.runner.interrupt(threadID: "t1") } else { h.runner.cancel(threadID: "t1") }
        let outcome = try #require(await h.runner.outcome(of: handle.runID))
        #expect(outcome.phase == (suspend ? .suspended : .cancelled))
        #expect(try h.entries() == 0)
        #expect(try h.ledgerRows() == 0)
        #expect(try h.store.approvals(runID: handle.runID).isEmpty) // no decision was made
        if suspend {
            // Continuing asks again; this time the person allows it.
            gate.answer(.allowOnce)
            h.model.enqueue(.text("Logged."))
            try h.runner.continueRun(threadID: "t1")
            #expect(await h.runner.outcome(of: handle.runID)?.phase == .completed)
            #expect(try h.entries() == 1)
            #expect(gate.asked == 2)
            expectWellFormed(h.model.requests)
        }
    }

    struct StallingAssembler: RequestAssembler {
        func assemble(_ context: RequestContext) async throws -> ChatRequest {
            try await Task.sleep(for: .seconds(3600))
            return try await FullTranscriptAssembler().assemble(context)
        }
    }

    @Test func stoppingWhilePreparingTheRequest() async throws {
        let h = try Harness(assembler: StallingAssembler())
        let handle = try h.runner.submit(threadID: "t1", text: "hi")
        try await h.waitFor("preparing") { $0.kind == .phase(.preparing) }
        h.runner.interrupt(threadID: "t1")
        #expect(await h.runner.outcome(of: handle.runID)?.phase == .suspended)
        #expect(h.model.requests.isEmpty)
    }

    @Test func continueFromAnotherConnectionIsRefusedWhileBusy() async throws {
        let dir = TempDirectory()
        let path = dir.file("ofj.sqlite")
        let h = try Harness(queue: try openDatabase(path))
        h.model.enqueue(ScriptedTurn([.text("part"), .stall]), ScriptedTurn([.stall]))
        let first = try h.runner.submit(threadID: "t1", text: "hi")
        try await h.waitFor("delta") { $0.kind == .textDelta("part") }
        h.runner.interrupt(threadID: "t1")
        _ = await h.runner.outcome(of: first.runID)
        try h.runner.continueRun(threadID: "t1")
        try await h.waitFor("waiting again") { _ in h.events.filter { $0.kind == .phase(.waitingForProvider) }.count == 2 }
        let other = try Harness(queue: try DatabaseQueue(path: path))
        #expect { try other.runner.continueRun(threadID: "t1") } throws: { ($0 as? AgentError)?.kind == .threadBusy }
        #expect { try other.runner.submit(threadID: "t1", text: "x") } throws: { ($0 as? AgentError)?.kind == .threadBusy }
        h.runner.cancel(threadID: "t1")
        #expect(await h.runner.outcome(of: first.runID)?.phase == .cancelled)
    }

    @Test func continueIsRefusedWhenThereIsNothingToContinue() async throws {
        let h = try Harness()
        h.model.enqueue(.text("done"))
        _ = try await h.ask("hi")
        #expect { try h.runner.continueRun(threadID: "t1") } throws: { ($0 as? AgentError)?.kind == .nothingToContinue }
        #expect { try h.runner.continueRun(threadID: "nope") } throws: { ($0 as? AgentError)?.kind == .nothingToContinue }
    }

    /// A thread whose first run was interrupted mid-answer (suspended); `next` answers after it.
    func suspendedRun(_ h: Harness, then next: ScriptedTurn) async throws -> RunHandle {
        h.model.enqueue(ScriptedTurn([.text("partial"), .stall]), next)
        let first = try h.runner.submit(threadID: "t1", text: "one")
        try await h.waitFor("delta") { $0.kind == .textDelta("partial") }
        h.runner.interrupt(threadID: "t1")
        _ = await h.runner.outcome(of: first.runID)
        return first
    }

    @Test func aNewMessageSupersedesASuspendedRun() async throws {
        let h = try Harness()
        let first = try await suspendedRun(h, then: .text("fresh"))
        _ = try await h.ask("two")
        let run = try #require(try h.store.run(first.runID))
        #expect(run.phase == .cancelled && run.errorClass == "superseded")
        #expect(run.errorLine == "A newer message replaced this interrupted answer.")
        #expect(run.finishedAt != nil)
        #expect { try h.runner.continueRun(threadID: "t1") } throws: { ($0 as? AgentError)?.kind == .nothingToContinue }
    }

    /// `/retry` supersedes a suspended run as a new message does, saying it was a newer answer.
    @Test func aRetrySupersedesASuspendedRun() async throws {
        let h = try Harness()
        let first = try await suspendedRun(h, then: .text("again"))
        #expect(try h.store.run(first.runID)?.phase == .suspended)
        let (retry, _) = try h.runner.regenerate(threadID: "t1")
        #expect(await h.runner.outcome(of: retry.runID)?.text == "again")
        let run = try #require(try h.store.run(first.runID))
        #expect(run.phase == .cancelled && run.errorClass == "superseded")
        #expect(run.errorLine == "A newer answer replaced this interrupted one.")
        #expect(try h.store.run(retry.runID)?.phase == .completed)
        #expect { try h.runner.continueRun(threadID: "t1") } throws: { ($0 as? AgentError)?.kind == .nothingToContinue }
    }
}

@Suite struct CrashRecoveryTests {
    /// A model that logs one egg, then says so; decided by what the request already contains,
    /// so it works from whatever point a crashed run resumes.
    static func loggingModel(_ clock: VirtualClock) -> ScriptedChatModel {
        ScriptedChatModel(clock: clock) { request, _ in
            if request.results["w1"] != nil { return .text("Logged ", "one egg.") }
            if request.results["r1"] != nil {
                return ScriptedTurn([.text("Now writing."), .toolCall(id: "w1", name: "add_entry", arguments: #"{"item":"egg","grams":50}"#)])
            }
            return ScriptedTurn([.text("Checking first. "), .text("Looking it up."),
                                 .toolCall(id: "r1", name: "lookup", arguments: #"{"query":"egg"}"#)])
        }
    }

    /// Every point a run without attachments reaches (`.attachmentSave`: AttachmentSavingTests).
    @Test(arguments: FaultPoint.allCases.filter { $0 != .attachmentSave })
    func writesHappenExactlyOnceAfterACrashAt(_ point: FaultPoint) async throws {
        let dir = TempDirectory()
        let path = dir.file("ofj.sqlite")
        let clock = VirtualClock()
        let firstModel = Self.loggingModel(clock)
        var runID = ""
        do {
            let first = try Harness(queue: try openDatabase(path), model: firstModel, clock: clock, faults: CrashAt(point),
                                    ids: CountingIDSource(prefix: "a-"))
            let (handle, outcome) = try await first.ask("log an egg")
            runID = handle.runID
            #expect(outcome.phase.isActive, "the crashed run stays where it was: \(outcome.phase)")
        } // the first "process" is gone; its connection closes

        // A new process on the same file.
        let secondModel = Self.loggingModel(clock)
        let gate = ScriptedApprovalGate(fallback: .allowOnce)
        let second = try Harness(queue: try openDatabase(path), model: secondModel, clock: clock, gate: gate, ids: CountingIDSource(prefix: "b-"))
        let recovered = try second.runner.recoverInterruptedRuns()
        #expect(recovered.map(\.id) == [runID])
        #expect(recovered.first?.phase == .suspended)
        #expect(secondModel.requests.isEmpty) // recovery sends nothing billable
        #expect(try second.store.transcript(threadID: "t1").allSatisfy { $0.state != .streaming })

        let resumed = try second.runner.continueRun(threadID: "t1")
        #expect(resumed.runID == runID)
        let outcome = try #require(await second.runner.outcome(of: runID))
        #expect(outcome.phase == .completed, "\(outcome)")
        #expect(try second.entries() == 1)
        #expect(try second.ledgerRows() == 1)
        #expect(try count(second.queue, "SELECT COUNT(*) FROM agent_ledger") == 1)
        expectWellFormed(firstModel.requests + secondModel.requests)
        // After a crash before finalizing, the answer was already stored: nothing is sent again.
        if point == .beforeFinalize { #expect(secondModel.requests.isEmpty) }
        // A write that committed is never asked about again.
        if [.afterWriteCommit, .beforeFinalize].contains(point) { #expect(gate.asked.isEmpty) }
        let transcript = try second.store.transcript(threadID: "t1").map(\.message)
        #expect(RequestNormalizer.violations(transcript).isEmpty, "\(transcript)")
        if point == .afterFirstTextDelta {
            // The text that arrived before the crash was saved and kept as a partial message.
            let partial = try second.store.transcript(threadID: "t1").filter { $0.state == .partial }
            #expect(partial.map(\.message) == [.assistant("Checking first. ")])
        }
        #expect(try second.store.run(runID)?.phase == .completed)
        let history = try second.store.phaseHistory(runID: runID).map(\.phase)
        #expect(history.first == .queued && history.last == .completed)
        #expect(history.contains(.suspended)) // recovery is on the record
    }

    /// Crashes the n-th time a point is reached.
    final class CrashOnNth: FaultInjector {
        let point: FaultPoint
        let seen = Counter()
        let n: Int
        init(_ point: FaultPoint, n: Int) { self.point = point; self.n = n }
        func reached(_ p: FaultPoint, runID: String) throws {
            guard p == point else { return }
            seen.increment()
            if seen.count == n { throw SimulatedCrash(point: p) }
        }
    }

    @Test(arguments: [FaultPoint.insideWriteTransaction, .afterWriteCommit, .beforeApproval])
    func aBatchResumesWithOnlyItsUnfinishedCalls(_ point: FaultPoint) async throws {
        let dir = TempDirectory()
        let path = dir.file("ofj.sqlite")
        let clock = VirtualClock()
        func model() -> ScriptedChatModel {
            ScriptedChatModel(clock: clock) { request, _ in
                if request.results["w2"] != nil { return .text("Both logged.") }
                return .calls(("r1", "lookup", #"{"query":"egg"}"#), ("w1", "add_entry", #"{"item":"egg","grams":50}"#),
                              ("r2", "lookup", #"{"query":"toast"}"#), ("w2", "add_entry", #"{"item":"toast","grams":30}"#))
            }
        }
        let firstModel = model()
        do {
            let first = try Harness(queue: try openDatabase(path), model: firstModel, clock: clock, faults: CrashOnNth(point, n: 2),
                                    ids: CountingIDSource(prefix: "a-"))
            _ = try await first.ask("log breakfast")
            #expect(try first.entries() == (point == .afterWriteCommit ? 2 : 1))
        }
        let secondModel = model()
        let gate = ScriptedApprovalGate(fallback: .allowOnce)
        let second = try Harness(queue: try openDatabase(path), model: secondModel, clock: clock, gate: gate, ids: CountingIDSource(prefix: "b-"))
        try second.runner.recoverInterruptedRuns()
        let handle = try second.runner.continueRun(threadID: "t1")
        #expect(await second.runner.outcome(of: handle.runID)?.phase == .completed)
        #expect(try second.entries() == 2)
        #expect(try second.ledgerRows() == 2)
        #expect(try count(second.queue, "SELECT COUNT(*) FROM test_entries WHERE item = 'egg'") == 1)
        // Only w2 could still need a decision; w1 was committed before the crash. A crash inside
        // w2's write came after the person approved it: the approved change is applied, not asked again.
        #expect(gate.asked.map(\.callID) == (point == .beforeApproval ? ["w2"] : []))
        #expect(secondModel.requests.count == 1) // just the final answer
        expectWellFormed(firstModel.requests + secondModel.requests)
        let records = try second.store.toolRecords(runID: handle.runID)
        #expect(records.map(\.callID) == ["r1", "w1", "r2", "w2"])
        #expect(records.allSatisfy { $0.status == .succeeded })
    }

    @Test func aCommittedWriteIsAnsweredFromTheLedger() async throws {
        let dir = TempDirectory()
        let path = dir.file("ofj.sqlite")
        let clock = VirtualClock()
        let gate = ScriptedApprovalGate(fallback: .allowOnce)
        let h = try Harness(queue: try openDatabase(path), model: Self.loggingModel(clock), clock: clock, gate: gate, faults: CrashAt(.beforeFinalize))
        let (handle, _) = try await h.ask("log an egg")
        #expect(try h.entries() == 1)
        #expect(gate.asked.count == 1)
        // Lose the transcript's result for the write (as if a replayed transcript re-sent the
        // call) and the model's final answer: the ledger must still stop a second write.
        try h.queue.write { db in
            try db.execute("DELETE FROM agent_message_parts WHERE kind = 'tool_result' AND call_id = 'w1'")
            try db.execute("DELETE FROM agent_messages WHERE id = (SELECT MAX(id) FROM agent_messages WHERE role = 'assistant')")
        }
        let second = try Harness(queue: try DatabaseQueue(path: path), model: Self.loggingModel(clock), clock: clock, gate: gate)
        try second.runner.recoverInterruptedRuns()
        try second.runner.continueRun(threadID: "t1")
        #expect(await second.runner.outcome(of: handle.runID)?.phase == .completed)
        #expect(try second.entries() == 1)
        #expect(gate.asked.count == 1) // not asked again
        #expect(second.model.requests.last?.results["w1"]?.content == #"{"id":1}"#)
        #expect(try second.store.toolRecords(runID: handle.runID).first { $0.callID == "w1" }?.status == .succeeded)
        #expect(second.diagnostics.events.contains { $0.status == "ledger_replayed" })
    }

    @Test func recoveryLeavesRunsOfThisProcessAlone() async throws {
        let h = try Harness()
        h.model.enqueue(ScriptedTurn([.stall]))
        let handle = try h.runner.submit(threadID: "t1", text: "hi")
        try await h.waitFor("waiting") { $0.kind == .phase(.waitingForProvider) }
        #expect(try h.runner.recoverInterruptedRuns().isEmpty)
        #expect(try h.store.run(handle.runID)?.phase == .waitingForProvider)
        h.runner.cancel(threadID: "t1")
        _ = await h.runner.outcome(of: handle.runID)
    }
}
