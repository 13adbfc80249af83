// Persistent threads and their transcripts, runs, tool records, ledger, approvals and usage.
import Base
import SQLiteKit

/// Reads and writes the agent's tables on the shared database. The runner writes through the
/// `static` helpers inside its own transactions; frontends use the instance methods.
public final class ConversationStore: Sendable {
    public let queue: DatabaseQueue

    public init(queue: DatabaseQueue) { self.queue = queue }

    // MARK: - Threads

    /// Creates the thread unless it exists; returns it either way.
    @discardableResult
    public func createThread(id: String, now: Double) throws -> ThreadSummary {
        try queue.write { db in
            try Self.ensureThread(db, id: id, now: now)
            guard let t = try Self.thread(db, id: id) else { throw AgentError(.internal, "thread vanished while being created") }
            return t
        }
    }

    public func thread(_ id: String) throws -> ThreadSummary? {
        try queue.read { try Self.thread($0, id: id) }
    }

    /// A thread by its full id or any unique prefix of it (`/threads` shows 8 characters).
    public func findThread(idPrefix: String) throws -> ThreadMatch {
        let key = idPrefix.trimmingCharacters(in: .whitespaces)
        guard !key.isEmpty else { return .none }
        return try queue.read { db in
            if let exact = try Self.thread(db, id: key) { return .found(exact) }
            let matches = try db.rows("SELECT \(Self.threadColumns) FROM agent_threads WHERE substr(id, 1, ?) = ? ORDER BY updated_at DESC, id LIMIT 11",
                                      [key.count, key]).map(Self.threadSummary)
            switch matches.count {
            case 0: return .none
            case 1: return .found(matches[0])
            default: return .ambiguous(matches)
            }
        }
    }

    /// Threads, most recently updated first.
    public func listThreads(limit: Int = 50, offset: Int = 0) throws -> [ThreadSummary] {
        try queue.read { db in
            try db.rows("SELECT \(Self.threadColumns) FROM agent_threads ORDER BY updated_at DESC, id LIMIT ? OFFSET ?", [limit, offset])
                .map(Self.threadSummary)
        }
    }

    /// Threads whose title or any message text has every word of `text` (as the start of a
    /// word; the full-text index, see ThreadSearch.swift), most recently updated first.
    public func searchThreads(_ text: String, limit: Int = 50) throws -> [ThreadSummary] {
        guard let query = FullTextQuery(text) else { return [] }
        return try queue.read { db in
            try db.rows("""
                SELECT \(Self.threadColumns) FROM agent_threads t
                WHERE t.id IN (SELECT thread_id FROM agent_titles_fts WHERE agent_titles_fts MATCH ?1)
                   -- Message ids from the index's rowids alone (no stored column read), then each
                   -- thread stops at its first matching message.
                   OR EXISTS (SELECT 1 FROM agent_messages m WHERE m.thread_id = t.id
                              AND m.id IN (SELECT rowid / \(Self.partRowidFactor) FROM agent_messages_fts WHERE agent_messages_fts MATCH ?1))
                ORDER BY t.updated_at DESC, t.id LIMIT ?2
                """, [query.matchExpression, limit]).map(Self.threadSummary)
        }
    }

    /// Sets a title chosen by the person; auto-titling never overrides it.
    public func renameThread(_ id: String, title: String) throws {
        let clean = ToolRegistry.oneLine(title).trimmingSpaces()
        try queue.write { db in
            try db.execute("UPDATE agent_threads SET title = ?, title_is_custom = 1 WHERE id = ?", [clean, id])
            if db.changes == 0 { throw AgentError(.threadNotFound, "No thread with id \(id); list threads to see their ids.") }
            try Self.indexTitle(db, threadID: id)
        }
    }

    /// Deletes a thread with its messages, runs, tool records, ledger rows and usage. Refused
    /// while a run on it is active.
    public func deleteThread(_ id: String) throws {
        try queue.write { db in
            if try Self.isAnswering(db, threadID: id) {
                throw AgentError(.threadBusy, "This thread is still answering; stop it before deleting it.")
            }
            try Self.unindexThread(db, threadID: id)
            try db.execute("DELETE FROM agent_threads WHERE id = ?", [id])
            if db.changes == 0 { throw AgentError(.threadNotFound, "No thread with id \(id); list threads to see their ids.") }
        }
    }

    /// True while a run on the thread is in progress (it must not be deleted under it).
    public static func isAnswering(_ db: Database, threadID: String) throws -> Bool {
        try db.row("SELECT 1 FROM agent_runs WHERE thread_id = ? AND phase IN (\(activePhaseList))", [threadID]) != nil
    }

    // MARK: - Messages

    /// The whole stored transcript of a thread, in order. One indexed query (messages by
    /// (thread_id, seq), parts by (message_id, ordinal)).
    public func transcript(threadID: String) throws -> [StoredMessage] {
        try messages(threadID: threadID, afterSeq: 0)
    }

    /// Messages with `seq > afterSeq` (compaction loads only what follows a checkpoint).
    public func messages(threadID: String, afterSeq: Int) throws -> [StoredMessage] {
        try queue.read { try Self.messages($0, threadID: threadID, afterSeq: afterSeq, queue: queue) }
    }

    /// The text of the thread's latest user message that has any (what /retry asks again).
    /// Reads from the end through the (thread_id, seq) index: a long thread is not loaded.
    public func lastUserText(threadID: String) throws -> String? {
        try queue.read { db in
            try db.scalar("""
                SELECT group_concat(body, '') FROM (
                    SELECT p.body FROM agent_message_parts p
                    WHERE p.message_id = (SELECT m.id FROM agent_messages m
                                          WHERE m.thread_id = ? AND m.role = 'user'
                                            AND EXISTS (SELECT 1 FROM agent_message_parts q
                                                        WHERE q.message_id = m.id AND q.kind = 'text' AND q.body <> '')
                                          ORDER BY m.seq DESC LIMIT 1)
                      AND p.kind = 'text' ORDER BY p.ordinal)
                """, [threadID]).string
        }
    }

    /// The thread's last `exchanges` user messages with everything after them (what `/open` and
    /// `--resume` show). Reads from the end through the (thread_id, seq) index.
    public func recentMessages(threadID: String, exchanges: Int) throws -> [StoredMessage] {
        try queue.read { db in
            let start = try db.scalar("""
                SELECT seq FROM (SELECT seq FROM agent_messages WHERE thread_id = ? AND role = 'user' ORDER BY seq DESC LIMIT ?)
                ORDER BY seq LIMIT 1
                """, [threadID, max(1, exchanges)]).int
            guard let start else { return [] }
            return try Self.messages(db, threadID: threadID, afterSeq: start - 1, queue: queue)
        }
    }

    /// Earlier versions of answers replaced by `/retry`, oldest first (not part of the transcript).
    public func supersededAnswers(threadID: String) throws -> [StoredMessage] {
        try queue.read { db in
            let ids = try db.rows("""
                SELECT m.id FROM agent_superseded_messages s JOIN agent_messages m ON m.id = s.message_id
                WHERE m.thread_id = ? ORDER BY m.seq
                """, [threadID]).map { try $0.decode(0, as: Int64.self) }
            return try ids.compactMap { id -> StoredMessage? in
                let text = try db.rows("SELECT body FROM agent_message_parts WHERE message_id = ? AND kind = 'text' ORDER BY ordinal", [id])
                    .map { try $0.decode(0, as: String.self) }.joined()
                guard let m = try db.row("SELECT seq, run_id, turn, created_at FROM agent_messages WHERE id = ?", [id]) else { return nil }
                return StoredMessage(id: id, seq: try m.decode(0), runID: try m.decodeIfPresent(1), turn: try m.decodeIfPresent(2), state: .complete,
                                     createdAt: try m.decode(3), message: Message(role: .assistant, parts: [.text(text)]))
            }
        }
    }

    public func messageCount(threadID: String) throws -> Int {
        try queue.read { try $0.row("SELECT COUNT(*) FROM agent_messages WHERE thread_id = ?", [threadID])?.decode(0) ?? 0 }
    }

    // MARK: - Runs, tools, ledger, usage

    public func run(_ id: String) throws -> RunRecord? {
        try queue.read { try Self.run($0, id: id) }
    }

    /// Runs of a thread, oldest first.
    public func runs(threadID: String) throws -> [RunRecord] {
        try queue.read { db in
            try db.rows("SELECT \(Self.runColumns) FROM agent_runs WHERE thread_id = ? ORDER BY created_at, rowid", [threadID]).map(Self.runRecord)
        }
    }

    /// Runs left `suspended` (interrupted, crashed), oldest first.
    public func suspendedRuns() throws -> [RunRecord] {
        try queue.read { db in
            try db.rows("SELECT \(Self.runColumns) FROM agent_runs WHERE phase = 'suspended' ORDER BY created_at, rowid").map(Self.runRecord)
        }
    }

    /// The phases a run went through, in order, with their times.
    public func phaseHistory(runID: String) throws -> [(phase: RunPhase, at: Double)] {
        try queue.read { db in
            try db.rows("SELECT phase, at FROM agent_run_phases WHERE run_id = ? ORDER BY id", [runID]).map { r in
                (try r.decode(0, as: RunPhase.self), try r.decode(1, as: Double.self))
            }
        }
    }

    public func toolRecords(runID: String) throws -> [ToolRecord] {
        try queue.read { db in
            try db.rows("SELECT \(Self.toolColumns) FROM agent_tool_calls WHERE run_id = ? ORDER BY turn, ordinal", [runID]).map(Self.toolRecord)
        }
    }

    public func toolRecords(threadID: String) throws -> [ToolRecord] {
        try queue.read { db in
            try db.rows("SELECT \(Self.toolColumns) FROM agent_tool_calls WHERE thread_id = ? ORDER BY started_at, turn, ordinal", [threadID]).map(Self.toolRecord)
        }
    }

    public func ledgerEntry(_ key: CallKey) throws -> LedgerEntry? {
        try queue.read { try Self.ledgerEntry($0, key) }
    }

    /// Ledger rows (the runs' and `WriteLedger`'s durable ones), in the order they were recorded.
    public func ledgerEntries(threadID: String? = nil) throws -> [LedgerEntry] {
        try queue.read { db in
            let both = """
                SELECT run_id, turn, call_id, tool_name, arguments, outcome, decision, result, summary, is_error, recorded_at, change, 0 AS src, rowid AS rid
                FROM agent_ledger
                UNION ALL
                SELECT run_id, turn, call_id, tool_name, arguments, outcome, decision, result, summary, is_error, recorded_at, change, 1, rowid
                FROM \(Self.durableLedgerTable)
                """
            let sql = "SELECT l.* FROM (\(both)) l" + (threadID == nil ? "" : " JOIN agent_runs r ON r.id = l.run_id WHERE r.thread_id = ?")
                + " ORDER BY l.recorded_at, l.src, l.rid"
            return try db.rows(sql, threadID.map { [$0] } ?? []).map(Self.ledgerEntry)
        }
    }

    /// Tools the person allowed for good in this thread.
    public func grantedTools(threadID: String) throws -> [String] {
        try queue.read { db in
            try db.rows("SELECT tool_name FROM agent_tool_grants WHERE thread_id = ? ORDER BY tool_name", [threadID]).map { try $0.decode(0) }
        }
    }

    /// The tool groups this thread enabled beyond everyday, in the order it enabled them
    /// (`ToolRegistry.specs(groups:)`).
    public func enabledToolGroups(threadID: String) throws -> [String] {
        try queue.read { try Self.enabledToolGroups($0, threadID: threadID) }
    }

    public static func enabledToolGroups(_ db: Database, threadID: String) throws -> [String] {
        try db.rows("SELECT tool_group FROM agent_thread_tool_groups WHERE thread_id = ? ORDER BY ordinal, tool_group",
                    [threadID]).map { try $0.decode(0) }
    }

    /// Enables `groups` for the thread (after those it has; one already on keeps its place).
    /// Nothing happens when the thread does not exist.
    public func enableToolGroups(_ groups: [String], threadID: String, now: Double) throws {
        guard !groups.isEmpty else { return }
        try queue.write { db in
            guard try db.row("SELECT 1 FROM agent_threads WHERE id = ?", [threadID]) != nil else { return }
            for group in groups {
                try db.execute("""
                    INSERT OR IGNORE INTO agent_thread_tool_groups (thread_id, tool_group, ordinal, enabled_at)
                    VALUES (?, ?, (SELECT COALESCE(MAX(ordinal), -1) + 1 FROM agent_thread_tool_groups WHERE thread_id = ?), ?)
                    """, [threadID, group, threadID, now])
            }
        }
    }

    /// Approval decisions of a run: (call id, tool, decision, source), in order.
    public func approvals(runID: String) throws -> [(callID: String, toolName: String, decision: String, source: String)] {
        try queue.read { db in
            try db.rows("SELECT call_id, tool_name, decision, source FROM agent_approvals WHERE run_id = ? ORDER BY id", [runID]).map {
                (try $0.decode(0), try $0.decode(1), try $0.decode(2), try $0.decode(3))
            }
        }
    }

    /// Approval decisions of a run in order, with the rule that decided, what untrusted content
    /// the card named and which standing approval the thread's mark kept from deciding.
    public func approvalRecords(runID: String) throws -> [ApprovalRecord] {
        try queue.read { db in
            try db.rows("""
                SELECT call_id, tool_name, decision, source, rule, untrusted, standing_not_used FROM agent_approvals WHERE run_id = ? ORDER BY id
                """, [runID]).map { r in
                let named: [UntrustedRead] = (try r.decodeIfPresent(5, as: String.self)).flatMap { try? JSONValue.parse($0) }?.arrayValue?.compactMap { v in
                    guard let kind = v["kind"]?.stringValue.flatMap(UntrustedRead.Kind.init(rawValue:)), let label = v["label"]?.stringValue else { return nil }
                    return UntrustedRead(kind: kind, label: label)
                } ?? []
                return ApprovalRecord(callID: try r.decode(0), toolName: try r.decode(1), decision: try r.decode(2), source: try r.decode(3),
                                      rule: try r.decodeIfPresent(4), untrusted: named, standingNotUsed: try r.decodeIfPresent(6))
            }
        }
    }

    public func usage(threadID: String) throws -> [UsageRecord] {
        try queue.read { db in
            try db.rows("SELECT \(Self.usageColumns) FROM agent_usage WHERE thread_id = ? ORDER BY id", [threadID]).map(Self.usageRecord)
        }
    }
}

// MARK: - Statement helpers shared with the runner (all take the connection, so they compose in transactions)

extension ConversationStore {
    static let threadColumns = "id, title, provider, model, created_at, updated_at"
    static let runColumns = "id, thread_id, phase, provider, model, turns_used, error_class, error_line, created_at, phase_changed_at, finished_at"
    static let toolColumns = "run_id, turn, call_id, ordinal, tool_name, arguments, status, result, is_error, summary, started_at, finished_at"

    // Rows decode through SQLiteKit's typed decoder: a value the schema rules out (NULL in a NOT
    // NULL column, an unknown phase) is a RowDecodingError naming the column, never a default.

    static func threadSummary(_ r: Row) throws -> ThreadSummary {
        // NULL title: the thread has none yet (its first message names it).
        ThreadSummary(id: try r.decode(0), title: try r.decodeIfPresent(1) ?? "New thread", provider: try r.decodeIfPresent(2),
                      model: try r.decodeIfPresent(3), createdAt: try r.decode(4), updatedAt: try r.decode(5))
    }

    static func runRecord(_ r: Row) throws -> RunRecord {
        RunRecord(id: try r.decode(0), threadID: try r.decode(1), phase: try r.decode(2, as: RunPhase.self),
                  provider: try r.decodeIfPresent(3), model: try r.decodeIfPresent(4), turnsUsed: try r.decode(5),
                  errorClass: try r.decodeIfPresent(6), errorLine: try r.decodeIfPresent(7), createdAt: try r.decode(8),
                  phaseChangedAt: try r.decode(9), finishedAt: try r.decodeIfPresent(10))
    }

    static func toolRecord(_ r: Row) throws -> ToolRecord {
        ToolRecord(runID: try r.decode(0), turn: try r.decode(1), callID: try r.decode(2), ordinal: try r.decode(3),
                   toolName: try r.decode(4), arguments: try r.decode(5), status: try r.decode(6, as: ToolCallStatus.self),
                   result: try r.decodeIfPresent(7), isError: try r.decode(8), summary: try r.decodeIfPresent(9),
                   startedAt: try r.decode(10), finishedAt: try r.decodeIfPresent(11))
    }

    static func ledgerEntry(_ r: Row) throws -> LedgerEntry {
        LedgerEntry(runID: try r.decode("run_id"), turn: try r.decode("turn"), callID: try r.decode("call_id"),
                    toolName: try r.decode("tool_name"), outcome: try r.decode("outcome", as: LedgerEntry.Outcome.self),
                    decision: try r.decodeIfPresent("decision"),
                    output: ToolOutput(content: try r.decode("result"), summary: try r.decode("summary"), isError: try r.decode("is_error")),
                    // NULL change: a row from before `agent-5`, or a call rejected before a change was planned.
                    recordedAt: try r.decode("recorded_at"),
                    change: try r.decodeIfPresent("change", as: String.self).flatMap { PlannedChange(serialized: $0) })
    }

    static let usageColumns = """
        thread_id, run_id, turn, provider, model, input_tokens, cached_input_tokens, output_tokens, reasoning_tokens, cost_usd, created_at
        """

    static func usageRecord(_ r: Row) throws -> UsageRecord {
        UsageRecord(threadID: try r.decode(0), runID: try r.decode(1), turn: try r.decode(2), provider: try r.decode(3), model: try r.decode(4),
                    usage: Usage(inputTokens: try r.decode(5), cachedInputTokens: try r.decode(6), outputTokens: try r.decode(7),
                                 reasoningTokens: try r.decode(8)),
                    // NULL cost: the model's price is not known.
                    costUSD: try r.decodeIfPresent(9), createdAt: try r.decode(10))
    }

    static func thread(_ db: Database, id: String) throws -> ThreadSummary? {
        try db.row("SELECT \(threadColumns) FROM agent_threads WHERE id = ?", [id]).map(threadSummary)
    }

    static func ensureThread(_ db: Database, id: String, now: Double) throws {
        try db.execute("INSERT OR IGNORE INTO agent_threads (id, created_at, updated_at) VALUES (?, ?, ?)", [id, now, now])
    }

    /// A queued run owned by this process. A run left suspended in the thread is cancelled first
    /// as superseded, with `supersededLine` as its error line: a new message or a retry replaces
    /// it, so it can no longer be continued.
    static func insertQueuedRun(_ db: Database, runID: String, threadID: String, model: any ChatModel, now: Double,
                                supersededLine: String) throws {
        try db.execute("""
            UPDATE agent_runs SET phase = 'cancelled', error_class = 'superseded',
                error_line = ?, phase_changed_at = ?, finished_at = ?
            WHERE thread_id = ? AND phase = 'suspended'
            """, [supersededLine, now, now, threadID])
        try db.execute("""
            INSERT INTO agent_runs (id, thread_id, phase, provider, model, created_at, phase_changed_at, owner)
            VALUES (?, ?, 'queued', ?, ?, ?, ?, ?)
            """, [runID, threadID, model.provider, model.model, now, now, RunOwner.current])
    }

    static func run(_ db: Database, id: String) throws -> RunRecord? {
        try db.row("SELECT \(runColumns) FROM agent_runs WHERE id = ?", [id]).map(runRecord)
    }

    static func ledgerEntry(_ db: Database, _ key: CallKey, table: String = "agent_ledger") throws -> LedgerEntry? {
        try db.row("SELECT * FROM \(table) WHERE run_id = ? AND turn = ? AND call_id = ?", [key.runID, key.turn, key.callID]).map(ledgerEntry)
    }

    static func messages(_ db: Database, threadID: String, afterSeq: Int, queue: DatabaseQueue) throws -> [StoredMessage] {
        var out: [StoredMessage] = []
        let attachments = try attachmentsByMessage(db, threadID: threadID, afterSeq: afterSeq, queue: queue)
        try db.forEachRow("""
            SELECT m.id, m.seq, m.run_id, m.turn, m.state, m.created_at, m.role,
                   p.kind, p.body, p.call_id, p.name, p.is_error, p.provider, p.subkind, m.pulled
            FROM agent_messages m LEFT JOIN agent_message_parts p ON p.message_id = m.id
            WHERE m.thread_id = ? AND m.seq > ?
              AND NOT EXISTS (SELECT 1 FROM agent_superseded_messages s WHERE s.message_id = m.id)
            ORDER BY m.seq, p.ordinal
            """, [threadID, afterSeq]) { s in
            let id = try s.decode(0, as: Int64.self)
            if out.last?.id != id {
                let role = try s.decode(6, as: Role.self)
                let pulled = try s.decode(14, as: Int.self) != 0
                out.append(StoredMessage(id: id, seq: try s.decode(1), runID: try s.decodeIfPresent(2), turn: try s.decodeIfPresent(3),
                                         state: try s.decode(4, as: MessageState.self), createdAt: try s.decode(5),
                                         message: Message(role: role, parts: []), pulled: pulled))
            }
            // NULL kind: the message has no parts (the LEFT JOIN found none).
            guard let kind = try s.decodeIfPresent(7, as: String.self) else { return }
            let body = try s.decode(8, as: String.self)
            let part: MessagePart
            switch kind {
            case "tool_call":
                part = .toolCall(ToolCall(id: try s.decode(9), name: try s.decode(10), arguments: body))
            case "tool_result":
                part = .toolResult(ToolResult(callID: try s.decode(9), name: try s.decode(10), content: body, isError: try s.decode(11)))
            case "continuation":
                // A continuation part keeps its origin in the otherwise unused `name` column (NULL: no origin).
                part = .continuation(ContinuationItem(provider: try s.decode(12), kind: try s.decode(13), payload: body,
                                                      origin: try s.decodeIfPresent(10) ?? ""))
            default:
                part = .text(body)
            }
            out[out.count - 1].message.parts.append(part)
        }
        if !attachments.isEmpty {
            for i in out.indices { if let a = attachments[out[i].id] { out[i].message.attachments = a } }
        }
        return out
    }

    /// The first line of a user message pulled from another machine, as the model and the person see it.
    public static let pulledNote = "[synced from another machine, not typed on this one]\n"

    /// Inserts a message with its parts at the end of the thread; returns its row id.
    @discardableResult
    static func insertMessage(_ db: Database, threadID: String, runID: String?, role: Role, turn: Int?, state: MessageState,
                              parts: [MessagePart], now: Double) throws -> Int64 {
        // MAX over no rows is NULL: the thread's first message has seq 1.
        let seq = (try db.row("SELECT MAX(seq) FROM agent_messages WHERE thread_id = ?", [threadID])?.decodeIfPresent(0, as: Int.self) ?? 0) + 1
        try db.execute("INSERT INTO agent_messages (thread_id, seq, run_id, role, turn, state, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                       [threadID, seq, runID, role.rawValue, turn, state.rawValue, now])
        let id = db.lastInsertRowID
        for (i, part) in parts.enumerated() { try insertPart(db, messageID: id, ordinal: i, part) }
        try db.execute("UPDATE agent_threads SET updated_at = ? WHERE id = ?", [now, threadID])
        return id
    }

    static func insertPart(_ db: Database, messageID: Int64, ordinal: Int, _ part: MessagePart) throws {
        let sql = "INSERT INTO agent_message_parts (message_id, ordinal, kind, body, call_id, name, is_error, provider, subkind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
        switch part {
        case .text(let t):
            try db.execute(sql, [messageID, ordinal, "text", t, String?.none, String?.none, 0, String?.none, String?.none])
            try indexTextPart(db, messageID: messageID, ordinal: ordinal, text: t)
        case .toolCall(let c):
            try db.execute(sql, [messageID, ordinal, "tool_call", c.arguments, c.id, c.name, 0, String?.none, String?.none])
        case .toolResult(let r):
            try db.execute(sql, [messageID, ordinal, "tool_result", r.content, r.callID, r.name, r.isError, String?.none, String?.none])
        case .continuation(let c):
            try db.execute(sql, [messageID, ordinal, "continuation", c.payload, String?.none, c.origin.isEmpty ? nil : c.origin, 0, c.provider, c.kind])
        }
    }

    static func updateTextPart(_ db: Database, messageID: Int64, ordinal: Int, text: String) throws {
        try db.execute("UPDATE agent_message_parts SET body = ? WHERE message_id = ? AND ordinal = ?", [text, messageID, ordinal])
        if db.changes > 0 { try indexTextPart(db, messageID: messageID, ordinal: ordinal, text: text) }
    }

    static func setMessageState(_ db: Database, messageID: Int64, _ state: MessageState) throws {
        try db.execute("UPDATE agent_messages SET state = ? WHERE id = ?", [state.rawValue, messageID])
    }

    /// The thread's tool message for a run's turn, creating it when missing (results of one turn
    /// share one message; each result's ordinal is its call's ordinal, so parts keep call order).
    static func toolMessageID(_ db: Database, threadID: String, runID: String, turn: Int, now: Double) throws -> Int64 {
        if let id = try db.scalar("SELECT id FROM agent_messages WHERE run_id = ? AND turn = ? AND role = 'tool'", [runID, turn]).int64 {
            return id
        }
        return try insertMessage(db, threadID: threadID, runID: runID, role: .tool, turn: turn, state: .complete, parts: [], now: now)
    }

    /// Stores a tool result in the transcript and closes the tool record, in the caller's transaction.
    static func recordResult(_ db: Database, threadID: String, key: CallKey, ordinal: Int, toolName: String,
                             output: ToolOutput, status: ToolCallStatus, now: Double) throws {
        let messageID = try toolMessageID(db, threadID: threadID, runID: key.runID, turn: key.turn, now: now)
        try db.execute("DELETE FROM agent_message_parts WHERE message_id = ? AND ordinal = ?", [messageID, ordinal])
        try insertPart(db, messageID: messageID, ordinal: ordinal,
                       .toolResult(ToolResult(callID: key.callID, name: toolName, content: output.content, isError: output.isError)))
        try db.execute("""
            UPDATE agent_tool_calls SET status = ?, result = ?, is_error = ?, summary = ?, finished_at = ?
            WHERE run_id = ? AND turn = ? AND call_id = ?
            """, [status.rawValue, output.content, output.isError, output.summary, now, key.runID, key.turn, key.callID])
        try indexToolSummary(db, key: key)
        try db.execute("UPDATE agent_threads SET updated_at = ? WHERE id = ?", [now, threadID])
    }

    static func startToolRecord(_ db: Database, threadID: String, key: CallKey, ordinal: Int, call: ToolCall,
                                effect: ToolEffect?, now: Double) throws {
        try db.execute("""
            INSERT INTO agent_tool_calls (run_id, turn, call_id, thread_id, ordinal, tool_name, effect, arguments, status, started_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'running', ?)
            ON CONFLICT (run_id, turn, call_id) DO UPDATE SET status = 'running', started_at = excluded.started_at, finished_at = NULL
            """, [key.runID, key.turn, key.callID, threadID, ordinal, call.name, effect?.rawValue, call.arguments, now])
    }

    static func setPhase(_ db: Database, runID: String, _ phase: RunPhase, now: Double, error: AgentError? = nil) throws {
        try db.execute("""
            UPDATE agent_runs SET phase = ?, phase_changed_at = ?, error_class = COALESCE(?, error_class),
                error_line = COALESCE(?, error_line), finished_at = CASE WHEN ? THEN ? ELSE NULL END
            WHERE id = ?
            """, [phase.rawValue, now, error?.kind.rawValue, error?.line, phase.isFinal, now, runID])
    }
}

extension String {
    /// Escapes LIKE wildcards for `ESCAPE '\'`.
    func replacingEscapes() -> String {
        var out = ""
        for c in self {
            if c == "%" || c == "_" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out
    }

    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first?.isWhitespace == true { s = s.dropFirst() }
        while s.last?.isWhitespace == true { s = s.dropLast() }
        return String(s)
    }
}
