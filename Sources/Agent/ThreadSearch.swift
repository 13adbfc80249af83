// Full-text search over threads (SQLite FTS5): message text, tool summaries and titles. The
// index rows are written by the store's own statement helpers, in the transaction that writes
// the rows they cover (replayed transcripts run with trusted_schema off, where a trigger may not
// write a virtual table). Index rowids are the covered rows' ids: a text part is
// message_id * 4096 + ordinal, a tool summary the tool record's rowid, a title the thread's rowid.
import SQLiteKit

/// One place a search matched in the threads.
public struct ThreadSearchHit: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable { case title, message, tool }
    public var kind: Kind
    public var threadID: String
    public var threadTitle: String
    /// When the matched text was written (a title: the thread's last update), seconds since 1970.
    public var at: Double
    /// The matched text around the match; matched words are wrapped in `ThreadSearchHit.markStart`
    /// and `markEnd` (control characters, so they cannot come from the stored text once sanitised).
    public var snippet: String
    /// "user" or "assistant" for a message, the tool's name for a tool summary.
    public var detail: String?

    public static let markStart: Character = "\u{2}"
    public static let markEnd: Character = "\u{3}"
}

extension ConversationStore {
    static let partRowidFactor: Int64 = 4096

    static func registerFullTextMigration(into migrator: inout Migrator) {
        let tok = FullTextQuery.tokenizer
        migrator.register("fts-2-threads", sql: """
            CREATE VIRTUAL TABLE agent_messages_fts USING fts5(body, thread_id UNINDEXED, at UNINDEXED, tokenize = '\(tok)');
            INSERT INTO agent_messages_fts (rowid, body, thread_id, at)
                SELECT p.message_id * \(partRowidFactor) + p.ordinal, p.body, m.thread_id, m.created_at
                FROM agent_message_parts p JOIN agent_messages m ON m.id = p.message_id
                WHERE p.kind = 'text' AND p.ordinal < \(partRowidFactor) AND m.role IN ('user', 'assistant');
            CREATE VIRTUAL TABLE agent_tools_fts USING fts5(summary, thread_id UNINDEXED, tool UNINDEXED, at UNINDEXED, tokenize = '\(tok)');
            INSERT INTO agent_tools_fts (rowid, summary, thread_id, tool, at)
                SELECT rowid, summary, thread_id, tool_name, coalesce(finished_at, started_at) FROM agent_tool_calls
                WHERE summary IS NOT NULL AND summary <> '';
            CREATE VIRTUAL TABLE agent_titles_fts USING fts5(title, thread_id UNINDEXED, tokenize = '\(tok)');
            INSERT INTO agent_titles_fts (rowid, title, thread_id) SELECT rowid, title, id FROM agent_threads WHERE title IS NOT NULL;
            """)
    }

    // MARK: - Keeping the index (callers are inside the transaction that writes the row)

    static func indexTextPart(_ db: Database, messageID: Int64, ordinal: Int, text: String) throws {
        guard ordinal >= 0, Int64(ordinal) < partRowidFactor else { return }
        let rowid = messageID * partRowidFactor + Int64(ordinal)
        try db.execute("DELETE FROM agent_messages_fts WHERE rowid = ?", [rowid])
        try db.execute("""
            INSERT INTO agent_messages_fts (rowid, body, thread_id, at)
            SELECT ?, ?, thread_id, created_at FROM agent_messages WHERE id = ? AND role IN ('user', 'assistant')
            """, [rowid, text, messageID])
    }

    static func indexToolSummary(_ db: Database, key: CallKey) throws {
        guard let rowid = try db.scalar("SELECT rowid FROM agent_tool_calls WHERE run_id = ? AND turn = ? AND call_id = ?",
                                        [key.runID, key.turn, key.callID]).int64 else { return }
        try db.execute("DELETE FROM agent_tools_fts WHERE rowid = ?", [rowid])
        try db.execute("""
            INSERT INTO agent_tools_fts (rowid, summary, thread_id, tool, at)
            SELECT rowid, summary, thread_id, tool_name, coalesce(finished_at, started_at) FROM agent_tool_calls
            WHERE rowid = ? AND summary IS NOT NULL AND summary <> ''
            """, [rowid])
    }

    static func indexTitle(_ db: Database, threadID: String) throws {
        guard let rowid = try db.scalar("SELECT rowid FROM agent_threads WHERE id = ?", [threadID]).int64 else { return }
        try db.execute("DELETE FROM agent_titles_fts WHERE rowid = ?", [rowid])
        try db.execute("INSERT INTO agent_titles_fts (rowid, title, thread_id) SELECT rowid, title, id FROM agent_threads WHERE rowid = ? AND title IS NOT NULL",
                       [rowid])
    }

    /// Removes a thread's rows from the index (before the thread is deleted).
    static func unindexThread(_ db: Database, threadID: String) throws {
        try db.execute("""
            DELETE FROM agent_messages_fts WHERE rowid IN (
                SELECT p.message_id * \(partRowidFactor) + p.ordinal FROM agent_messages m
                JOIN agent_message_parts p ON p.message_id = m.id
                WHERE m.thread_id = ? AND p.kind = 'text')
            """, [threadID])
        try db.execute("DELETE FROM agent_tools_fts WHERE rowid IN (SELECT rowid FROM agent_tool_calls WHERE thread_id = ?)", [threadID])
        try db.execute("DELETE FROM agent_titles_fts WHERE rowid IN (SELECT rowid FROM agent_threads WHERE id = ?)", [threadID])
    }

    // MARK: - Writers outside the store (a sync pull), inside their transaction

    /// Makes the title's index row match the thread row (nothing when the thread is gone).
    public static func refreshTitleIndex(_ db: Database, threadID: String) throws {
        try indexTitle(db, threadID: threadID)
    }

    /// Removes every index row of a thread; call before deleting it.
    public static func removeThreadFromIndex(_ db: Database, threadID: String) throws {
        try unindexThread(db, threadID: threadID)
    }

    /// Makes the index rows of message row `messageID` match its text parts: indexed again when
    /// the message exists, removed when it does not (call after writing or deleting it).
    public static func refreshMessageIndex(_ db: Database, messageID: Int64) throws {
        try db.execute("DELETE FROM agent_messages_fts WHERE rowid BETWEEN ? AND ?",
                       [messageID * partRowidFactor, messageID * partRowidFactor + partRowidFactor - 1])
        try db.execute("""
            INSERT INTO agent_messages_fts (rowid, body, thread_id, at)
            SELECT p.message_id * \(partRowidFactor) + p.ordinal, p.body, m.thread_id, m.created_at
            FROM agent_message_parts p JOIN agent_messages m ON m.id = p.message_id
            WHERE m.id = ? AND p.kind = 'text' AND p.ordinal < \(partRowidFactor) AND m.role IN ('user', 'assistant')
            """, [messageID])
    }

    // MARK: - Searching

    /// Titles, then messages and tool summaries, matching `query`, newest first, at most `limit`.
    /// Newest first lets FTS5 walk its index backwards and stop at `limit` (no ranking of every
    /// match), so a search stays fast on a thread of 100,000 messages.
    public func searchThreads(matching query: FullTextQuery, limit: Int = 20) throws -> [ThreadSearchHit] {
        try queue.read { try Self.searchThreads($0, matching: query, limit: limit) }
    }

    public static func searchThreads(_ db: Database, matching query: FullTextQuery, limit: Int) throws -> [ThreadSearchHit] {
        let n = max(1, min(limit, 500))
        let match = query.matchExpression
        let start = String(ThreadSearchHit.markStart), end = String(ThreadSearchHit.markEnd)
        var hits: [ThreadSearchHit] = []
        try db.forEachRow("""
            SELECT f.thread_id, coalesce(t.title, 'New thread'), f.at, snippet(agent_messages_fts, 0, ?2, ?3, '…', 12), m.role
            FROM agent_messages_fts f
            JOIN agent_messages m ON m.id = f.rowid / \(partRowidFactor)
            JOIN agent_threads t ON t.id = f.thread_id
            WHERE agent_messages_fts MATCH ?1
              AND NOT EXISTS (SELECT 1 FROM agent_superseded_messages s WHERE s.message_id = m.id)
            ORDER BY f.rowid DESC LIMIT ?4
            """, [match, start, end, n]) { s in
            hits.append(ThreadSearchHit(kind: .message, threadID: try s.decode(0), threadTitle: try s.decode(1), at: try s.decode(2),
                                        snippet: try s.decode(3), detail: try s.decodeIfPresent(4)))
        }
        try db.forEachRow("""
            SELECT f.thread_id, coalesce(t.title, 'New thread'), f.at, snippet(agent_tools_fts, 0, ?2, ?3, '…', 12), f.tool
            FROM agent_tools_fts f JOIN agent_threads t ON t.id = f.thread_id
            WHERE agent_tools_fts MATCH ?1 ORDER BY f.rowid DESC LIMIT ?4
            """, [match, start, end, n]) { s in
            hits.append(ThreadSearchHit(kind: .tool, threadID: try s.decode(0), threadTitle: try s.decode(1), at: try s.decode(2),
                                        snippet: try s.decode(3), detail: try s.decodeIfPresent(4)))
        }
        try db.forEachRow("""
            SELECT f.thread_id, coalesce(t.title, 'New thread'), t.updated_at, snippet(agent_titles_fts, 0, ?2, ?3, '…', 12)
            FROM agent_titles_fts f JOIN agent_threads t ON t.id = f.thread_id
            WHERE agent_titles_fts MATCH ?1 ORDER BY f.rowid DESC LIMIT ?4
            """, [match, start, end, n]) { s in
            hits.append(ThreadSearchHit(kind: .title, threadID: try s.decode(0), threadTitle: try s.decode(1), at: try s.decode(2),
                                        snippet: try s.decode(3), detail: nil))
        }
        // Threads whose title matches first (a title names the thread), then messages and tool
        // activity, newest first.
        return Array(hits.sorted { a, b in
            (a.kind == .title) != (b.kind == .title) ? a.kind == .title : a.at > b.at
        }.prefix(n))
    }
}
