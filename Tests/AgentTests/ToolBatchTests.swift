// Tool batches: bounded parallel reads, writes as barriers, approvals, ledger rows, the turn limit.
import Foundation
import Testing
import SQLiteKit
@testable import Agent

@Suite struct ToolBatchTests {
    @Test func adjacentReadsRunInParallelAtMostThree() async throws {
        let log = ActivityLog()
        let h = try Harness(tools: [LookupTool(log: log, waitForPeers: 3)])
        h.model.enqueue(.calls(("c1", "lookup", #"{"query":"1"}"#), ("c2", "lookup", #"{"query":"2"}"#), ("c3", "lookup", #"{"query":"3"}"#),
                               ("c4", "lookup", #"{"query":"4"}"#), ("c5", "lookup", #"{"query":"5"}"#)),
                        .text("done"))
        let (handle, outcome) = try await h.ask("five lookups")
        #expect(outcome.phase == .completed)
        #expect(log.maxRunning == 3)
        #expect(log.lines.filter { $0.hasPrefix("start") }.count == 5)
        let second = try #require(h.model.requests.last)
        #expect(second.messages.last?.toolResults.map(\.callID) == ["c1", "c2", "c3", "c4", "c5"]) // call order, not finish order
        #expect(second.messages.last?.toolResults.first?.content == #"{"found":"1"}"#)
        expectWellFormed(h.model.requests)

        let events = try await h.events(of: handle.runID)
        let started = events.compactMap { if case .toolStarted(let id, _, let activity) = $0.kind { return (id, activity) } else { return nil } }
        #expect(started.count == 5 && started.first?.1 == "looking up 1")
        #expect(events.contains { $0.kind == .toolFinished(callID: "c3", name: "lookup", status: .succeeded, summary: "found 3") })
    }

    @Test func aWriteIsABarrier() async throws {
        let log = ActivityLog()
        let h = try Harness(tools: [LookupTool(log: log, waitForPeers: 2), AddEntryTool(log: log)])
        h.model.enqueue(.calls(("r1", "lookup", #"{"query":"a"}"#), ("r2", "lookup", #"{"query":"b"}"#),
                               ("w1", "add_entry", #"{"item":"egg","grams":50}"#),
                               ("r3", "lookup", #"{"query":"c"}"#), ("r4", "lookup", #"{"query":"d"}"#)),
                        .text("logged"))
        _ = try await h.ask("mix")
        let lines = log.lines
        let write = try #require(lines.firstIndex(of: "write egg"))
        for q in ["a", "b"] { #expect(try #require(lines.firstIndex(of: "end \(q)")) < write) }
        for q in ["c", "d"] { #expect(try #require(lines.firstIndex(of: "start \(q)")) > write) }
        #expect(log.maxRunning == 2)
        #expect(try h.entries() == 1)
        expectWellFormed(h.model.requests)
    }

    @Test func approvalAllowOnceWritesWithALedgerRow() async throws {
        let gate = ScriptedApprovalGate([.allowOnce])
        let h = try Harness(gate: gate)
        h.model.enqueue(.calls(("w1", "add_entry", #"{"item":"egg","grams":50}"#)), .text("Logged."))
        let (handle, outcome) = try await h.ask("log an egg")
        #expect(outcome.phase == .completed)
        #expect(gate.asked.map(\.preview) == ["add 50 g of egg"])
        #expect(gate.asked.first?.callID == "w1" && gate.asked.first?.runID == handle.runID)
        #expect(try h.entries() == 1)
        let entry = try #require(try h.store.ledgerEntry(CallKey(runID: handle.runID, turn: 1, callID: "w1")))
        #expect(entry.outcome == .committed && entry.decision == "allow_once" && entry.output.summary == "added 1 entry")
        #expect(try h.store.approvals(runID: handle.runID).map(\.decision) == ["allow_once"])
        #expect(h.model.requests[1].results["w1"]?.content == #"{"id":1}"#)
        let kinds = try await h.events(of: handle.runID).map(\.kind)
        #expect(kinds.contains(.phase(.awaitingApproval)))
        #expect(kinds.contains(.approvalDecided(callID: "w1", name: "add_entry", decision: .allowOnce)))
        #expect(kinds.contains { if case .approvalRequested(let r) = $0 { return r.preview == "add 50 g of egg" } else { return false } })
    }

    @Test func aDenialGoesBackToTheModelAndTheRunContinues() async throws {
        let h = try Harness(gate: ScriptedApprovalGate([.deny]))
        h.model.enqueue(.calls(("w1", "add_entry", #"{"item":"egg","grams":50}"#), ("r1", "lookup", #"{"query":"after"}"#)),
                        .text("Okay, not logged."))
        let (handle, outcome) = try await h.ask("log an egg")
        #expect(outcome == RunOutcome(phase: .completed, text: "Okay, not logged."))
        #expect(try h.entries() == 0)
        let result = try #require(h.model.requests[1].results["w1"])
        #expect(result.content.contains("declined") && result.content.contains("nothing was written"))
        #expect(h.model.requests[1].results["r1"]?.content == #"{"found":"after"}"#) // the read after the denied write still ran
        #expect(try h.store.ledgerEntry(CallKey(runID: handle.runID, turn: 1, callID: "w1"))?.outcome == .denied)
        #expect(try h.store.toolRecords(runID: handle.runID).first?.status == .denied)
    }

    @Test func alwaysAllowIsRememberedForTheThread() async throws {
        let gate = ScriptedApprovalGate([.alwaysAllow], fallback: .deny)
        let h = try Harness(gate: gate)
        h.model.enqueue(.calls(("w1", "add_entry", #"{"item":"egg","grams":50}"#)), .text("one"),
                        .calls(("w2", "add_entry", #"{"item":"toast","grams":30}"#)), .text("two"),
                        .calls(("w3", "add_entry", #"{"item":"jam","grams":10}"#)), .text("three"))
        _ = try await h.ask("first", thread: "t1")
        let (second, _) = try await h.ask("second", thread: "t1")
        #expect(gate.asked.count == 1)
        #expect(try h.entries() == 2)
        #expect(try h.store.grantedTools(threadID: "t1") == ["add_entry"])
        #expect(try h.store.approvals(runID: second.runID).map(\.source) == ["thread_grant"])
        // Another thread asks again (and the fallback denies).
        _ = try await h.ask("third", thread: "t2")
        #expect(gate.asked.count == 2)
        #expect(try h.entries() == 2)
    }

    @Test func writesNeverRetry() async throws {
        let tool = AddEntryTool(failApply: true)
        let h = try Harness(tools: [tool])
        h.model.enqueue(.calls(("w1", "add_entry", #"{"item":"egg","grams":1}"#)), .text("failed"))
        let (handle, outcome) = try await h.ask("log")
        #expect(outcome.phase == .completed)
        #expect(tool.applyCount.count == 1)
        #expect(try h.entries() == 0)
        #expect(try h.store.ledgerEntry(CallKey(runID: handle.runID, turn: 1, callID: "w1"))?.outcome == .failed)
        #expect(h.model.requests[1].results["w1"]?.content.contains("nothing was written") == true)
        #expect(!h.events.contains { if case .retrying = $0.kind { return true } else { return false } })
    }

    @Test func atMostEightModelTurnsPerMessage() async throws {
        let clock = VirtualClock()
        let model = ScriptedChatModel(clock: clock) { _, i in .calls(("c\(i)", "lookup", #"{"query":"again"}"#)) }
        let h = try Harness(model: model, clock: clock)
        let (handle, outcome) = try await h.ask("loop forever")
        #expect(model.requests.count == 8)
        #expect(outcome.phase == .failed && outcome.error?.kind == .turnLimit)
        #expect(outcome.error?.line == "Stopped after 8 model turns for one message; ask again to let it go on.")
        let run = try #require(try h.store.run(handle.runID))
        #expect(run.turnsUsed == 8 && run.phase == .failed && run.errorClass == "turn_limit")
        // The last turn's call is answered without running, so the stored transcript stays well formed.
        let records = try h.store.toolRecords(runID: handle.runID)
        #expect(records.count == 8 && records.last?.status == .cancelled)
        let transcript = try h.store.transcript(threadID: "t1").map(\.message)
        #expect(RequestNormalizer.violations(transcript).isEmpty)
        expectWellFormed(model.requests)
        // A new message gets a fresh allowance.
        model.enqueue(.text("fine"))
        #expect(try await h.ask("stop looping").1.phase == .completed)
    }
}
