// An approved write the disk or a lock refuses: the run is suspended with the decision kept, and
// /continue applies the change once, without asking again (issue 25 §6).
import Base
import Foundation
import Synchronization
import Testing
import SQLiteKit
import TestSupport
@testable import Agent

/// A write tool whose change needs new database pages (a 200 KB row), so a pinned page count
/// makes SQLite answer SQLITE_FULL exactly as a full disk does.
struct BigEntryTool: WriteTool {
    var name = "add_entry"
    var description = "Adds a large entry."
    var parameters: JSONValue = ["type": "object", "properties": ["item": ["type": "string"]], "required": ["item"]]
    let applyCount = Counter()
    func activity(arguments: JSONValue) -> String { "adding" }
    func preview(arguments: JSONValue, context: ToolContext, database: Database) throws -> PlannedChange {
        PlannedChange(card: "add a large entry", change: arguments)
    }
    func apply(_ change: PlannedChange, context: ToolContext, database: Database) throws -> ToolOutput {
        applyCount.increment()
        try database.execute("INSERT INTO test_entries (item, grams, call_id) VALUES (?, 1, ?)",
                             [String(repeating: "x", count: 200_000), context.callID])
        return ToolOutput(content: #"{"ok":true}"#, summary: "added 1 entry")
    }
}

/// "The disk is full": pins the database's page count so any growth fails with SQLITE_FULL.
final class DiskSpace: Sendable {
    let queue: DatabaseQueue
    init(_ queue: DatabaseQueue) { self.queue = queue }
    func fill() throws {
        try queue.unrestricted { db in
            let pages = try db.scalar("PRAGMA page_count").int ?? 0
            try db.execute(batch: "PRAGMA max_page_count = \(pages)")
        }
    }
    func free() throws { try queue.unrestricted { try $0.execute(batch: "PRAGMA max_page_count = 1073741823") } }
}

/// Fills the disk the first time an approval has been stored, before the write starts.
final class FillDiskAfterApproval: FaultInjector {
    let disk: DiskSpace
    private let done = Mutex(false)
    init(disk: DiskSpace) { self.disk = disk }
    func reached(_ point: FaultPoint, runID: String) throws {
        guard point == .afterApproval, !done.withLock({ let was = $0; $0 = true; return was }) else { return }
        try disk.fill()
    }
}

/// A second connection that takes the write lock (BEGIN IMMEDIATE) while the person answers the
/// card, as another ofj writing a long import would.
final class LockingGate: ApprovalGate {
    let holder: DatabaseQueue
    let asked = Counter()
    init(path: String) throws { holder = try DatabaseQueue(path: path) }
    func decide(_ request: ApprovalRequest) async -> ApprovalDecision {
        asked.increment()
        do { try holder.unrestricted { try $0.execute(batch: "BEGIN IMMEDIATE") } } catch { Issue.record("could not take the lock: \(error)") }
        return .allowOnce
    }
    func release() throws { try holder.unrestricted { try $0.execute(batch: "ROLLBACK") } }
}

/// Counts how often the person is asked; always allows.
final class CountingGate: ApprovalGate {
    let asked = Counter()
    func decide(_ request: ApprovalRequest) async -> ApprovalDecision {
        asked.increment()
        return .allowOnce
    }
}

/// A write tool whose preview lets another connection take the write lock (once), so the lock is
/// held exactly when the approval is stored.
final class LockDuringPreviewTool: WriteTool, @unchecked Sendable {
    let name = "add_entry"
    let description = "Adds an entry."
    let parameters: JSONValue = ["type": "object"]
    let holder: DatabaseQueue
    private var locked = false
    init(path: String) throws { holder = try DatabaseQueue(path: path) }
    func activity(arguments: JSONValue) -> String { "adding" }
    func preview(arguments: JSONValue, context: ToolContext, database: Database) throws -> PlannedChange {
        if !locked {
            locked = true
            try holder.unrestricted { try $0.execute(batch: "BEGIN IMMEDIATE") }
        }
        return PlannedChange(card: "add an egg", change: arguments)
    }
    func apply(_ change: PlannedChange, context: ToolContext, database: Database) throws -> ToolOutput {
        try database.execute("INSERT INTO test_entries (item, grams, call_id) VALUES ('egg', 50, ?)", [context.callID])
        return ToolOutput(content: #"{"ok":true}"#, summary: "added 1 entry")
    }
    func release() throws { try holder.unrestricted { try $0.execute(batch: "ROLLBACK") } }
}

@Suite struct StorageFailureTests {
    static func writingModel(_ clock: VirtualClock) -> ScriptedChatModel {
        ScriptedChatModel(clock: clock) { request, _ in
            if request.results["w1"] != nil { return .text("Logged.") }
            return ScriptedTurn([.toolCall(id: "w1", name: "add_entry", arguments: #"{"item":"egg","grams":50}"#)])
        }
    }

    @Test func aLockHeldPastTheBusyTimeoutSuspendsTheRunAndContinueWritesOnce() async throws {
        let dir = TempDirectory()
        let path = dir.file("ofj.sqlite")
        let clock = VirtualClock()
        let gate = try LockingGate(path: path)
        let model = Self.writingModel(clock)
        let h = try Harness(queue: try openDatabase(path, busyTimeoutMilliseconds: 50), model: model, clock: clock, gate: gate)

        let (handle, outcome) = try await h.ask("log an egg")
        #expect(outcome.phase == .suspended)
        #expect(outcome.error?.kind == .storage)
        #expect(outcome.error?.line == "Couldn't write: the database is locked by another ofj; nothing was written. Close it or wait, then type /continue to try again.")
        #expect(try h.entries() == 0)
        #expect(!h.runner.isActive(threadID: "t1"))

        // Still locked: /continue says so and keeps the decision; nothing is asked again.
        #expect { try h.runner.continueRun(threadID: "t1") } throws: { ($0 as? AgentError)?.kind == .storage }

        try gate.release()
        let resumed = try h.runner.continueRun(threadID: "t1")
        #expect(resumed.runID == handle.runID)
        let final = try #require(await h.runner.outcome(of: handle.runID))
        #expect(final.phase == .completed, "\(final)")
        #expect(gate.asked.count == 1)
        #expect(try h.entries() == 1)
        #expect(try h.ledgerRows() == 1)
        #expect(try count(h.queue, "SELECT COUNT(*) FROM agent_ledger") == 1)
        #expect(try count(h.queue, "SELECT COUNT(*) FROM agent_approvals WHERE decision = 'allow_once'") == 1)
        #expect(try h.store.run(handle.runID)?.phase == .completed)
        expectWellFormed(model.requests)
    }

    @Test func aNewMessageReplacesARunTheLockLeftStranded() async throws {
        let dir = TempDirectory()
        let path = dir.file("ofj.sqlite")
        let clock = VirtualClock()
        let gate = try LockingGate(path: path)
        let model = ScriptedChatModel(clock: clock) { request, _ in
            if request.messages.last?.role == .user, case .text("something else")? = request.messages.last?.parts.first { return .text("Sure.") }
            if request.results["w1"] != nil { return .text("Logged.") }
            return ScriptedTurn([.toolCall(id: "w1", name: "add_entry", arguments: #"{"item":"egg","grams":50}"#)])
        }
        let h = try Harness(queue: try openDatabase(path, busyTimeoutMilliseconds: 50), model: model, clock: clock, gate: gate)
        let (first, outcome) = try await h.ask("log an egg")
        #expect(outcome.phase == .suspended)
        try gate.release()
        // Not "still answering": the stranded run is superseded by the new message.
        let (_, next) = try await h.ask("something else")
        #expect(next.phase == .completed)
        #expect(try h.store.run(first.runID)?.phase == .cancelled)
        #expect(try h.entries() == 0)
    }

    @Test func aFullDiskSuspendsTheRunAndContinueAppliesTheChangeOnceWhenThereIsSpace() async throws {
        let dir = TempDirectory()
        let path = dir.file("ofj.sqlite")
        let clock = VirtualClock()
        let queue = try openDatabase(path)
        let disk = DiskSpace(queue)
        let gate = CountingGate()
        let tool = BigEntryTool()
        let model = Self.writingModel(clock)
        let h = try Harness(queue: queue, model: model, clock: clock, tools: [tool], gate: gate, faults: FillDiskAfterApproval(disk: disk))

        let (handle, outcome) = try await h.ask("log an egg")
        #expect(outcome.phase == .suspended)
        #expect(outcome.error?.line == "Couldn't write: the disk is full; nothing was written. Free some space, then type /continue to try again.")
        #expect(try h.entries() == 0)
        #expect(try count(queue, "SELECT COUNT(*) FROM agent_ledger") == 0) // not recorded as failed: it can still happen
        let stored = try #require(try h.store.run(handle.runID))
        #expect(stored.phase == .suspended && stored.errorClass == "storage")
        #expect(stored.errorLine == outcome.error?.line)

        // Still full: suspended again, same line, not asked again, nothing written.
        try h.runner.continueRun(threadID: "t1")
        let again = try #require(await h.runner.outcome(of: handle.runID))
        #expect(again.phase == .suspended && again.error?.kind == .storage)
        #expect(gate.asked.count == 1)

        try disk.free()
        try h.runner.continueRun(threadID: "t1")
        let final = try #require(await h.runner.outcome(of: handle.runID))
        #expect(final.phase == .completed, "\(final)")
        #expect(gate.asked.count == 1)
        #expect(tool.applyCount.count == 3) // tried while full twice (rolled back), then written once
        #expect(try h.entries() == 1)
        #expect(try h.ledgerRows() == 1)
        expectWellFormed(model.requests)
    }

    @Test func aRestartedOfjContinuesADiskFullSuspensionWithoutAskingAgain() async throws {
        let dir = TempDirectory()
        let path = dir.file("ofj.sqlite")
        let clock = VirtualClock()
        var runID = ""
        do {
            let queue = try openDatabase(path)
            let h = try Harness(queue: queue, model: Self.writingModel(clock), clock: clock, tools: [BigEntryTool()], gate: CountingGate(),
                                faults: FillDiskAfterApproval(disk: DiskSpace(queue)))
            let (handle, outcome) = try await h.ask("log an egg")
            runID = handle.runID
            #expect(outcome.phase == .suspended)
        }
        let gate = CountingGate()
        let second = try Harness(queue: try openDatabase(path), model: Self.writingModel(clock), clock: clock, tools: [BigEntryTool()], gate: gate,
                                 ids: CountingIDSource(prefix: "b-"))
        #expect(try second.runner.recoverInterruptedRuns().isEmpty)
        try second.runner.continueRun(threadID: "t1")
        let final = try #require(await second.runner.outcome(of: runID))
        #expect(final.phase == .completed, "\(final)")
        #expect(gate.asked.count == 0)
        #expect(try second.entries() == 1)
        #expect(try second.ledgerRows() == 1)
    }

    @Test func aThreadGrantRefusedByTheLockIsStoredAsAGrantOnContinue() async throws {
        let dir = TempDirectory()
        let path = dir.file("ofj.sqlite")
        let clock = VirtualClock()
        let queue = try openDatabase(path, busyTimeoutMilliseconds: 50)
        try queue.write { db in
            try db.execute("INSERT INTO agent_threads (id, created_at, updated_at) VALUES ('t1', 0, 0)")
            try db.execute("INSERT INTO agent_tool_grants (thread_id, tool_name, granted_at) VALUES ('t1', 'add_entry', 0)")
        }
        let tool = try LockDuringPreviewTool(path: path)
        let gate = CountingGate()
        let h = try Harness(queue: queue, model: Self.writingModel(clock), clock: clock, tools: [tool], gate: gate)
        let (handle, outcome) = try await h.ask("log an egg")
        #expect(outcome.phase == .suspended && outcome.error?.kind == .storage, "\(outcome)")
        #expect(try count(queue, "SELECT COUNT(*) FROM agent_approvals") == 0) // the lock refused it
        try tool.release()
        try h.runner.continueRun(threadID: "t1")
        #expect(await h.runner.outcome(of: handle.runID)?.phase == .completed)
        #expect(gate.asked.count == 0)
        #expect(try h.entries() == 1)
        #expect(try queue.read { try $0.scalar("SELECT group_concat(decision || '/' || source) FROM agent_approvals").string } == "always_allow/thread_grant")
    }
}
