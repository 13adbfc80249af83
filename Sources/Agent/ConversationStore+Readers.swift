// What other modules read from the conversation tables, asked of the store that owns them:
// provider-native search kept in stored turns (Research), and the rows a replayed transcript
// checks (Transcripts). No other module names an agent table.
import Base
import SQLiteKit

/// One WebSources item of a stored turn, with the run and time of the message that holds it.
public struct StoredWebSources: Sendable {
    public var runID: String?
    public var createdAt: Double
    public var sources: WebSources
}

extension ConversationStore {
    /// The WebSources items (provider-native search, see WebSources) of stored turns, in thread
    /// order: of one thread (or all), of one run, of messages created in `createdIn`. An item this
    /// build cannot read is left out, as it would be from a request.
    public static func webSources(threadID: String?, runID: String? = nil, createdIn: Range<Double>? = nil,
                                  in db: Database) throws -> [StoredWebSources] {
        // A database without the conversation tables (a module's tests that register only their
        // own migrations) holds none.
        guard try db.row("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'agent_message_parts'") != nil else { return [] }
        var sql = """
            SELECT m.run_id, m.created_at, p.body FROM agent_message_parts p JOIN agent_messages m ON m.id = p.message_id
            WHERE p.kind = 'continuation' AND p.provider = ? AND p.subkind = ?
            """
        var arguments: [DatabaseValueConvertible] = [WebSources.provider, WebSources.kind]
        if let threadID {
            sql += " AND m.thread_id = ?"
            arguments.append(threadID)
        }
        if let runID {
            sql += " AND m.run_id = ?"
            arguments.append(runID)
        }
        if let createdIn {
            sql += " AND m.created_at >= ? AND m.created_at < ?"
            arguments += [createdIn.lowerBound, createdIn.upperBound]
        }
        sql += " ORDER BY m.seq, p.ordinal"
        return try db.rows(sql, arguments).compactMap { row in
            let body = try row.decode(2, as: String.self)
            guard let json = try? JSONValue.parse(body), let sources = WebSources(json: json) else { return nil }
            return StoredWebSources(runID: try row.decodeIfPresent(0), createdAt: try row.decode(1), sources: sources)
        }
    }

    // MARK: - What replayed transcripts check (`expect ledger`, `threads`, `runs`, `usage`)

    /// Every ledger row, in the order written.
    public static func ledgerInWriteOrder(_ db: Database) throws -> [LedgerEntry] {
        try db.rows("SELECT * FROM agent_ledger ORDER BY rowid").map(ledgerEntry)
    }

    /// Every thread as stored (a NULL title stays nil), in the order created.
    public static func threadsInCreationOrder(_ db: Database) throws -> [(id: String, title: String?, provider: String?, model: String?)] {
        try db.rows("SELECT id, title, provider, model FROM agent_threads ORDER BY created_at, rowid").map {
            (try $0.decode(0), try $0.decodeIfPresent(1), try $0.decodeIfPresent(2), try $0.decodeIfPresent(3))
        }
    }

    /// Every run, in the order created.
    public static func runsInCreationOrder(_ db: Database) throws -> [RunRecord] {
        try db.rows("SELECT \(runColumns) FROM agent_runs ORDER BY created_at, rowid").map(runRecord)
    }

    /// Every usage row, in the order written.
    public static func usageInWriteOrder(_ db: Database) throws -> [UsageRecord] {
        try db.rows("SELECT \(usageColumns) FROM agent_usage ORDER BY id").map(usageRecord)
    }
}
