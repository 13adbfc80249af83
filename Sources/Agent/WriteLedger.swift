// The exactly-once write path, for the runner and for frontends that are not a model run (ofj mcp).
import SQLiteKit

/// What happened to a write under its ledger key.
public enum LedgeredOutcome: Sendable, Hashable {
    /// The change was written now, with its ledger row, in one transaction.
    case applied(ToolOutput)
    /// The key was already recorded (committed, denied or failed): its stored result, nothing written.
    case replayed(LedgerEntry)

    /// The result the caller hands on.
    public var output: ToolOutput {
        switch self {
        case .applied(let o): return o
        case .replayed(let e): return e.output
        }
    }
}

enum LedgerWrite {
    /// Inside the caller's write transaction: if `key` is recorded, its entry; otherwise applies
    /// `planned` and inserts the committed ledger row (so the change and the row commit together).
    static func applyOnce(_ db: Database, planned: PlannedChange, tool: any WriteTool, call: ToolCall, key: CallKey, context: ToolContext,
                          decision: ApprovalDecision, registry: ToolRegistry, now: () -> Double,
                          adjust: (ToolOutput) -> ToolOutput = { $0 }, table: String = "agent_ledger") throws -> LedgeredOutcome {
        if let existing = try ConversationStore.ledgerEntry(db, key, table: table) { return .replayed(existing) }
        let output = adjust(registry.bounded(try tool.apply(planned, context: context, database: db), toolName: tool.name))
        try ToolExecutor.insertLedger(db, key: key, call: call, outcome: .committed, decision: decision, output: output, now: now(), change: planned,
                                      table: table)
        return .applied(output)
    }
}

/// The agent's idempotency ledger for writes that do not come from a model run: the caller previews
/// a `PlannedChange`, gets it approved its own way, and applies it here exactly once under a key it
/// chooses. `openSession` creates a thread and a finished run its keys are named under; the rows
/// themselves are in `agent_durable_ledger`, which nothing cascades into (deleting that thread,
/// here or on another machine, never forgets a key).
public struct WriteLedger: Sendable {
    public let store: ConversationStore
    public let tools: ToolRegistry

    public init(store: ConversationStore, tools: ToolRegistry) {
        self.store = store
        self.tools = tools
    }

    /// Creates (unless they exist) the thread and the run that own a session's ledger rows. The run
    /// is stored `completed`, so it never counts as active and recovery leaves it alone.
    public func openSession(threadID: String, threadTitle: String, runID: String, now: Double) throws {
        try store.queue.write { db in
            try db.execute("""
                INSERT OR IGNORE INTO agent_threads (id, title, title_is_custom, created_at, updated_at) VALUES (?, ?, 1, ?, ?)
                """, [threadID, threadTitle, now, now])
            try db.execute("""
                INSERT OR IGNORE INTO agent_runs (id, thread_id, phase, created_at, phase_changed_at, finished_at)
                VALUES (?, ?, 'completed', ?, ?, ?)
                """, [runID, threadID, now, now, now])
        }
    }

    /// The recorded outcome of `key`, if any.
    public func entry(_ key: CallKey) throws -> LedgerEntry? {
        try store.queue.read { try ConversationStore.ledgerEntry($0, key, table: Self.table) }
    }

    static let table = ConversationStore.durableLedgerTable

    /// The arguments text of the call recorded under `key`, to tell a retry from a reused key.
    public func recordedArguments(_ key: CallKey) throws -> String? {
        try store.queue.read { db in
            try db.row("SELECT arguments FROM \(Self.table) WHERE run_id = ? AND turn = ? AND call_id = ?",
                       [key.runID, key.turn, key.callID])?[0].string
        }
    }

    /// Writes `planned` with its ledger row in one transaction, unless `key` is already recorded
    /// (then its stored result, nothing written). Throws `ChangeConflict` when the data the change
    /// depends on changed since the preview, and rethrows whatever `apply` throws; both roll back.
    public func apply(_ planned: PlannedChange, tool: any WriteTool, call: ToolCall, key: CallKey, context: ToolContext,
                      decision: ApprovalDecision, now: Double) throws -> LedgeredOutcome {
        let registry = tools
        return try store.queue.write { db in
            try LedgerWrite.applyOnce(db, planned: planned, tool: tool, call: call, key: key, context: context, decision: decision,
                                      registry: registry, now: { now }, table: Self.table)
        }
    }

    /// Records a call that wrote nothing (declined, failed) so a retry gets this result and is not
    /// attempted again; a key already recorded keeps its entry.
    public func recordUnwritten(key: CallKey, call: ToolCall, outcome: LedgerEntry.Outcome, decision: ApprovalDecision?,
                                output: ToolOutput, change: PlannedChange?, now: Double) throws -> LedgeredOutcome {
        let bounded = tools.bounded(output)
        return try store.queue.write { db in
            if let existing = try ConversationStore.ledgerEntry(db, key, table: Self.table) { return .replayed(existing) }
            try ToolExecutor.insertLedger(db, key: key, call: call, outcome: outcome, decision: decision, output: bounded, now: now, change: change,
                                          table: Self.table)
            return .applied(bounded)
        }
    }

    /// Stores a decision about a write (in `agent_approvals`, like the runner's), with the change it was for.
    public func recordDecision(key: CallKey, call: ToolCall, decision: ApprovalDecision, source: String, waited: Double,
                               change: PlannedChange, now: Double, rule: String? = nil) throws {
        try store.queue.write { db in
            try db.execute("""
                INSERT INTO agent_approvals (run_id, turn, call_id, tool_name, decision, source, waited_seconds, decided_at, change, rule)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [key.runID, key.turn, key.callID, call.name, decision.rawValue, source, waited, now, change.serialized, rule])
        }
    }
}
