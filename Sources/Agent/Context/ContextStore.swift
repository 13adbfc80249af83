// Stored context state: checkpoints (summaries or prunings of old messages), per-thread budget
// and estimate calibration, and usage totals per thread and per day.
import SQLiteKit

/// A stored replacement for the messages `fromSeq...toSeq` of a thread (and, through the
/// checkpoint it built on, everything before). The original messages are never changed.
public struct ContextCheckpoint: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        /// The model summarised the messages; the summary was validated before it was stored.
        case summary
        /// The messages were left out to fit (compaction failed or was invalid). `summary`
        /// carries the earlier checkpoint's summary, if there was one.
        case pruned
    }
    public var id: Int64
    public var threadID: String
    public var kind: Kind
    public var fromSeq: Int
    public var toSeq: Int
    public var summary: String
    public var provider: String?
    public var model: String?
    public var createdAt: Double
}

/// Totals of the usage rows in a thread or a time range.
public struct UsageTotals: Sendable, Hashable {
    public var rounds: Int
    public var usage: Usage
    /// Sum of the estimates that are known.
    public var costUSD: Double
    /// Rounds whose cost is unknown (model not in the price table).
    public var roundsWithoutCost: Int
    public init(rounds: Int = 0, usage: Usage = .zero, costUSD: Double = 0, roundsWithoutCost: Int = 0) {
        self.rounds = rounds
        self.usage = usage
        self.costUSD = costUSD
        self.roundsWithoutCost = roundsWithoutCost
    }
}

extension ConversationStore {
    static func registerContextMigrations(into migrator: inout Migrator) {
        migrator.register("agent-3-context", sql: """
            CREATE TABLE agent_checkpoints (
                id INTEGER PRIMARY KEY,
                thread_id TEXT NOT NULL REFERENCES agent_threads(id) ON DELETE CASCADE,
                kind TEXT NOT NULL CHECK (kind IN ('summary','pruned')),
                from_seq INTEGER NOT NULL,
                to_seq INTEGER NOT NULL,
                summary TEXT NOT NULL,
                provider TEXT,
                model TEXT,
                created_at REAL NOT NULL
            );
            CREATE INDEX agent_checkpoints_by_thread ON agent_checkpoints(thread_id, to_seq);

            CREATE TABLE agent_context_state (
                thread_id TEXT PRIMARY KEY NOT NULL REFERENCES agent_threads(id) ON DELETE CASCADE,
                budget TEXT,
                ratio REAL NOT NULL DEFAULT 1,
                last_estimate INTEGER NOT NULL DEFAULT 0,
                last_usage_id INTEGER NOT NULL DEFAULT 0
            ) WITHOUT ROWID;
            """)
    }

    static let checkpointColumns = "id, thread_id, kind, from_seq, to_seq, summary, provider, model, created_at"

    static func checkpoint(_ r: Row) throws -> ContextCheckpoint {
        ContextCheckpoint(id: try r.decode(0), threadID: try r.decode(1), kind: try r.decode(2, as: ContextCheckpoint.Kind.self),
                          fromSeq: try r.decode(3), toSeq: try r.decode(4), summary: try r.decode(5), provider: try r.decodeIfPresent(6),
                          model: try r.decodeIfPresent(7), createdAt: try r.decode(8))
    }

    /// The checkpoint in effect: the one reaching furthest (the newest when two reach as far).
    static func latestCheckpoint(_ db: Database, threadID: String) throws -> ContextCheckpoint? {
        try db.row("SELECT \(checkpointColumns) FROM agent_checkpoints WHERE thread_id = ? ORDER BY to_seq DESC, id DESC LIMIT 1",
                   [threadID]).map(checkpoint)
    }

    @discardableResult
    static func insertCheckpoint(_ db: Database, threadID: String, kind: ContextCheckpoint.Kind, fromSeq: Int, toSeq: Int,
                                 summary: String, provider: String?, model: String?, now: Double) throws -> Int64 {
        try db.execute("""
            INSERT INTO agent_checkpoints (thread_id, kind, from_seq, to_seq, summary, provider, model, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [threadID, kind.rawValue, fromSeq, toSeq, summary, provider, model, now])
        return db.lastInsertRowID
    }

    public func latestCheckpoint(threadID: String) throws -> ContextCheckpoint? {
        try queue.read { try Self.latestCheckpoint($0, threadID: threadID) }
    }

    /// All checkpoints of a thread, oldest first.
    public func checkpoints(threadID: String) throws -> [ContextCheckpoint] {
        try queue.read { db in
            try db.rows("SELECT \(Self.checkpointColumns) FROM agent_checkpoints WHERE thread_id = ? ORDER BY id", [threadID]).map(Self.checkpoint)
        }
    }

    /// The budget chosen for a thread, nil when it uses the default.
    public func contextBudget(threadID: String) throws -> ContextBudgetChoice? {
        try queue.read { db in
            try db.scalar("SELECT budget FROM agent_context_state WHERE thread_id = ?", [threadID]).string.flatMap(ContextBudgetChoice.init(rawValue:))
        }
    }

    /// Chooses a thread's budget (50k, 200k or the model's maximum); nil returns to the default.
    public func setContextBudget(_ choice: ContextBudgetChoice?, threadID: String, now: Double) throws {
        try queue.write { db in
            try Self.ensureThread(db, id: threadID, now: now)
            try db.execute("""
                INSERT INTO agent_context_state (thread_id, budget) VALUES (?, ?)
                ON CONFLICT (thread_id) DO UPDATE SET budget = excluded.budget
                """, [threadID, choice?.rawValue])
        }
    }

    /// The factor that turns the local estimate into the provider's count for this thread (1 until known).
    public func estimateRatio(threadID: String) throws -> Double {
        // No row: the thread has no state yet, and the ratio starts at 1 (as the column's default).
        try queue.read { try $0.row("SELECT ratio FROM agent_context_state WHERE thread_id = ?", [threadID])?.decode(0) ?? 1 }
    }

    // MARK: - Usage totals

    /// Totals from a row of `totalsColumns` (aggregates coalesced to 0, so none is NULL).
    static func usageTotals(_ r: Row?) throws -> UsageTotals {
        guard let r else { return UsageTotals() }
        return UsageTotals(rounds: try r.decode(0),
                           usage: Usage(inputTokens: try r.decode(1), cachedInputTokens: try r.decode(2), outputTokens: try r.decode(3),
                                        reasoningTokens: try r.decode(4)),
                           costUSD: try r.decode(5), roundsWithoutCost: try r.decode(6))
    }

    static let totalsColumns = """
        count(*), coalesce(sum(input_tokens),0), coalesce(sum(cached_input_tokens),0), coalesce(sum(output_tokens),0),
        coalesce(sum(reasoning_tokens),0), coalesce(sum(cost_usd),0), coalesce(sum(cost_usd IS NULL),0)
        """

    /// Usage of every model round of a thread (answers and compactions).
    public func usageTotals(threadID: String) throws -> UsageTotals {
        try queue.read { db in
            try Self.usageTotals(db.row("SELECT \(Self.totalsColumns) FROM agent_usage WHERE thread_id = ?", [threadID]))
        }
    }

    /// Usage of all threads with `from <= created_at < to` (seconds since 1970).
    public func usageTotals(from: Double, to: Double) throws -> UsageTotals {
        try queue.read { db in
            try Self.usageTotals(db.row("SELECT \(Self.totalsColumns) FROM agent_usage WHERE created_at >= ? AND created_at < ?", [from, to]))
        }
    }

    /// Usage of the local calendar day containing `now`, for a zone `secondsFromGMT` ahead of UTC.
    public func usageTotals(dayContaining now: Double, secondsFromGMT: Int) throws -> UsageTotals {
        let local = now + Double(secondsFromGMT)
        let start = now - local.truncatingRemainder(dividingBy: 86_400)
        return try usageTotals(from: start, to: start + 86_400)
    }
}
