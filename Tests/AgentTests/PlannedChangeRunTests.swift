// The runner writes the change the person approved: a stale change is refused and asked about
// again, and a resumed run applies the stored change instead of planning it again.
import Base
import Foundation
import Synchronization
import Testing
import SQLiteKit
import TestSupport
@testable import Agent

/// Data another process may change while a card is open (a Food Bank food's version).
final class SharedVersion: Sendable {
    private let value = Mutex(1)
    var current: Int { value.withLock { $0 } }
    func bump() { value.withLock { $0 += 1 } }
}

/// A write tool whose change depends on the clock (the day, like the journal's default date) and
/// on `version`; apply writes the planned day and refuses when the version moved.
struct DatedWriteTool: WriteTool {
    var name = "log_dated"
    var description = "Logs an item today."
    var parameters: JSONValue = ["type": "object", "properties": ["item": ["type": "string"]], "required": ["item"], "additionalProperties": false]
    let version: SharedVersion

    func activity(arguments: JSONValue) -> String { "logging" }

    static func day(_ now: WallTime) -> Int { Int((now.secondsSince1970 / 86_400).rounded(.down)) }

    func preview(arguments: JSONValue, context: ToolContext, database: Database) throws -> PlannedChange {
        let item = arguments["item"]?.stringValue ?? ""
        let day = Self.day(context.now)
        return PlannedChange(card: "log \(item) on day \(day) (version \(version.current))",
                             change: ["item": .string(item), "day": .number(Double(day))],
                             preconditions: ["version": .number(Double(version.current))])
    }

    func apply(_ change: PlannedChange, context: ToolContext, database: Database) throws -> ToolOutput {
        guard change.preconditions["version"]?.intValue == version.current else { throw ChangeConflict("the food was changed") }
        try database.execute("INSERT INTO test_entries (item, grams, call_id) VALUES (?, ?, ?)",
                             [change.change["item"]?.stringValue ?? "", change.change["day"]?.doubleValue ?? -1, context.callID])
        return ToolOutput(content: #"{"ok":true}"#, summary: "logged")
    }
}

/// Answers yes, but another process changes the data while the first `changes` cards are open.
final class ChangingGate: ApprovalGate {
    private let state = Mutex<[ApprovalRequest]>([])
    let version: SharedVersion
    let changes: Int
    init(version: SharedVersion, changes: Int) { self.version = version; self.changes = changes }
    var asked: [ApprovalRequest] { state.withLock { $0 } }
    func decide(_ request: ApprovalRequest) async -> ApprovalDecision {
        let n = state.withLock { $0.append(request); return $0.count }
        if n <= changes { version.bump() }
        return .allowOnce
    }
}

@Suite struct PlannedChangeRunTests {
    static func model(_ clock: VirtualClock) -> ScriptedChatModel {
        ScriptedChatModel(clock: clock) { request, _ in
            if request.results["w1"] != nil { return .text("Done.") }
            return .calls(("w1", "log_dated", #"{"item":"oatmeal"}"#))
        }
    }

    @Test func aChangeThatWentStaleIsAskedAboutAgainWithTheNewCard() async throws {
        let clock = VirtualClock()
        let version = SharedVersion()
        let gate = ChangingGate(version: version, changes: 1)
        let h = try Harness(model: Self.model(clock), clock: clock, tools: [DatedWriteTool(version: version)], gate: gate)
        let (handle, outcome) = try await h.ask("log oatmeal")
        #expect(outcome.phase == .completed)
        #expect(gate.asked.map(\.preview) == [
            "log oatmeal on day 20833 (version 1)",
            "Changed since the card you approved: the food was changed; nothing was written. The change as it is now:\nlog oatmeal on day 20833 (version 2)",
        ])
        #expect(try h.entries() == 1)
        // The ledger holds the change that was written: the one on the second card.
        let entry = try #require(try h.store.ledgerEntries().first)
        #expect(entry.outcome == .committed)
        #expect(entry.change?.card == "log oatmeal on day 20833 (version 2)")
        #expect(entry.change?.preconditions["version"]?.intValue == 2)
        #expect(try h.store.approvals(runID: handle.runID).count == 2)
    }

    @Test func aChangeThatKeepsGoingStaleIsGivenUpWithoutWriting() async throws {
        let clock = VirtualClock()
        let version = SharedVersion()
        let gate = ChangingGate(version: version, changes: 100)
        let model = Self.model(clock)
        let h = try Harness(model: model, clock: clock, tools: [DatedWriteTool(version: version)], gate: gate)
        let (_, outcome) = try await h.ask("log oatmeal")
        #expect(outcome.phase == .completed)
        #expect(gate.asked.count == ToolExecutor.maxConflicts)
        #expect(try h.entries() == 0)
        #expect(try h.ledgerRows("failed") == 1)
        let result = try #require(model.requests.last?.results["w1"])
        #expect(result.isError && result.content.contains("nothing was written"))
    }

    @Test func aResumedRunAppliesTheApprovedChangeNotANewPlan() async throws {
        let dir = TempDirectory()
        let path = dir.file("ofj.sqlite")
        let clock = VirtualClock(epoch: 1_800_057_600 - 30) // 30 s before a day ends
        let version = SharedVersion()
        var runID = ""
        do {
            let first = try Harness(queue: try openDatabase(path), model: Self.model(clock), clock: clock, tools: [DatedWriteTool(version: version)],
                                    faults: CrashAt(.afterApproval), ids: CountingIDSource(prefix: "a-"))
            let (handle, _) = try await first.ask("log oatmeal")
            runID = handle.runID
            #expect(try first.entries() == 0)
        }
        clock.advance(by: 90) // the next day, when the person comes back
        let gate = ScriptedApprovalGate(fallback: .deny)
        let second = try Harness(queue: try openDatabase(path), model: Self.model(clock), clock: clock, tools: [DatedWriteTool(version: version)],
                                 gate: gate, ids: CountingIDSource(prefix: "b-"))
        try second.runner.recoverInterruptedRuns()
        let handle = try second.runner.continueRun(threadID: "t1")
        #expect(handle.runID == runID)
        #expect(await second.runner.outcome(of: runID)?.phase == .completed)
        #expect(gate.asked.isEmpty) // the decision was kept
        // Written on the day the card showed, not the day it is when the run resumed.
        let day = DatedWriteTool.day(WallTime(secondsSince1970: 1_800_057_600 - 30))
        #expect(try count(second.queue, "SELECT COUNT(*) FROM test_entries WHERE grams = ?", [Double(day)]) == 1)
        #expect(try second.entries() == 1)
    }

    @Test func theStoredFormRoundTrips() throws {
        let change = PlannedChange(card: "Log to the journal: Apple\nDate: Sunday", change: ["arguments": ["date": "2026-11-29"], "n": 1.5],
                                   preconditions: ["entry:x": ["version": 3]])
        #expect(PlannedChange(serialized: change.serialized) == change)
        #expect(PlannedChange(serialized: "{}") == nil)
        #expect(PlannedChange(serialized: "not json") == nil)
    }
}
