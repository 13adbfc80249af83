// The conversation tables as another module replicates them (sync between machines): which tables
// and keys travel, a message's parts and supersession and an attachment link's file as they are
// read, and writing a pulled message or link. Sync owns the transport, the stamps and the generic
// change capture (triggers and payloads by table name, built from `Replicated`); every statement
// on the agent's tables is here.
import SQLiteKit

/// A replicated table as the store that owns it defines it: its name, the key a record travels
/// under, the columns of a record (in payload order) and the local row number of a record (for
/// rows that travel with it), if it has one.
public struct ReplicatedTable: Sendable {
    public let name: String
    public let key: String
    public let columns: [(name: String, type: DatabaseColumnType)]
    public let rowNumber: String?

    public init(name: String, key: String, columns: [(name: String, type: DatabaseColumnType)], rowNumber: String? = nil) {
        self.name = name
        self.key = key
        self.columns = columns
        self.rowNumber = rowNumber
    }
}

/// One part of a replicated message, as stored.
public struct ReplicatedPart: Sendable, Hashable {
    public var ordinal: Int64
    public var kind: String
    public var body: String
    public var callID: String?
    public var name: String?
    /// 0 or 1.
    public var isError: Int64
    public var provider: String?
    public var subkind: String?

    public init(ordinal: Int64, kind: String, body: String, callID: String?, name: String?, isError: Int64, provider: String?, subkind: String?) {
        self.ordinal = ordinal; self.kind = kind; self.body = body; self.callID = callID; self.name = name
        self.isError = isError; self.provider = provider; self.subkind = subkind
    }
}

/// A pulled message: its row (the columns of `Replicated.messages`), parts and supersession.
public struct ReplicatedMessage: Sendable {
    public var syncID: String
    public var threadID: String
    /// The sender's place in the thread: a hint (see `write(_:existing:in:)`).
    public var seq: Int64
    public var runID: String?
    public var role: String
    public var turn: Int64?
    public var state: String
    public var createdAt: Double
    public var parts: [ReplicatedPart]
    /// For an answer replaced by `/retry`: the run that replaced it and when.
    public var superseded: (byRunID: String, at: Double)?

    public init(syncID: String, threadID: String, seq: Int64, runID: String?, role: String, turn: Int64?, state: String, createdAt: Double,
                parts: [ReplicatedPart], superseded: (byRunID: String, at: Double)?) {
        self.syncID = syncID; self.threadID = threadID; self.seq = seq; self.runID = runID; self.role = role; self.turn = turn
        self.state = state; self.createdAt = createdAt; self.parts = parts; self.superseded = superseded
    }
}

extension ConversationStore {
    /// The conversation tables that travel between machines with `sync.threads`. Runs, tool
    /// records, the ledger, approvals, grants, usage and checkpoints stay local.
    public enum Replicated {
        /// Threads (titles and models).
        public static let threads = ReplicatedTable(name: "agent_threads", key: "id", columns: [
            ("id", .text), ("title", .text), ("title_is_custom", .integer), ("provider", .text), ("model", .text),
            ("created_at", .real), ("updated_at", .real),
        ])
        /// Messages, keyed by `sync_id` (random: the local row number `id` is one two machines
        /// would both hand out); `seq` is only a hint for the order where it is pulled.
        public static let messages = ReplicatedTable(name: "agent_messages", key: "sync_id", columns: [
            ("sync_id", .text), ("thread_id", .text), ("seq", .integer), ("run_id", .text), ("role", .text), ("turn", .integer),
            ("state", .text), ("created_at", .real),
        ], rowNumber: "id")
        /// The local row number column of a message that `messageParts` and `supersededMessages`
        /// rows name as `message_id`: a change to one of them is a change of that message.
        public static let messageRowNumber = "id"
        public static let messageParts = "agent_message_parts"
        public static let supersededMessages = "agent_superseded_messages"
        /// A message's link to an attached file, keyed by `sync_id`; only metadata travels.
        public static let attachmentLinks = ReplicatedTable(name: "agent_message_attachments", key: "sync_id", columns: [
            ("sync_id", .text), ("ordinal", .integer), ("name", .text), ("sha256", .text),
        ])
    }

    // MARK: - Reading what travels

    /// The parts of the message with row number `messageID`, in order.
    public static func replicatedParts(messageID: Int64, in db: Database) throws -> [ReplicatedPart] {
        try db.rows("""
            SELECT ordinal, kind, body, call_id, name, is_error, provider, subkind FROM agent_message_parts
            WHERE message_id = ? ORDER BY ordinal
            """, [messageID]).map { p in
            ReplicatedPart(ordinal: try p.decode(0), kind: try p.decode(1), body: try p.decode(2), callID: try p.decodeIfPresent(3),
                           name: try p.decodeIfPresent(4), isError: try p.decode(5), provider: try p.decodeIfPresent(6),
                           subkind: try p.decodeIfPresent(7))
        }
    }

    /// Who replaced the message (`/retry`) and when, if it was replaced.
    public static func replicatedSupersession(messageID: Int64, in db: Database) throws -> (byRunID: String, at: Double)? {
        try db.row("SELECT by_run_id, superseded_at FROM agent_superseded_messages WHERE message_id = ?", [messageID]).map {
            (try $0.decode(0), try $0.decode(1))
        }
    }

    /// The message (its sync id) and the file's type and size of an attachment link, or nil when
    /// the link, its message or its file is gone.
    public static func replicatedAttachmentFile(linkSyncID: String, in db: Database)
        throws -> (messageSyncID: String, mediaType: String, byteCount: Int64)? {
        try db.row("""
            SELECT m.sync_id, a.media_type, a.byte_count FROM agent_message_attachments l
            JOIN agent_messages m ON m.id = l.message_id JOIN attachments a ON a.sha256 = l.sha256 WHERE l.sync_id = ?
            """, [linkSyncID]).map { (try $0.decode(0), try $0.decode(1), try $0.decode(2)) }
    }

    // MARK: - Writing what was pulled (with the puller's change capture off)

    public static func threadExists(_ id: String, in db: Database) throws -> Bool {
        try db.row("SELECT 1 FROM agent_threads WHERE id = ?", [id]) != nil
    }

    /// A bare thread row for a message that arrived before its thread (the thread's record fills it in).
    public static func ensureReplicatedThread(_ id: String, createdAt: Double, in db: Database) throws {
        try ensureThread(db, id: id, now: createdAt)
    }

    /// The local row number of the message with this sync id, if it is here.
    public static func replicatedMessageRowNumber(syncID: String, in db: Database) throws -> Int64? {
        try db.row("SELECT id FROM agent_messages WHERE sync_id = ?", [syncID])?.decode(0)
    }

    /// Deletes a message (its parts, links and supersession go with it) and its search entries.
    public static func deleteReplicatedMessage(rowNumber: Int64, in db: Database) throws {
        try db.execute("DELETE FROM agent_messages WHERE id = ?", [rowNumber])
        try refreshMessageIndex(db, messageID: rowNumber)
    }

    /// Writes a pulled message with its parts and supersession; returns its local row number.
    /// A message already here (`existing`) keeps its place; a new one keeps the sender's `seq`
    /// when that place in the thread is free here and goes after the thread's last message
    /// otherwise (two machines wrote the thread at once). Keeps the search index exact.
    @discardableResult
    public static func write(_ m: ReplicatedMessage, existing: Int64?, in db: Database) throws -> Int64 {
        let rest: [DatabaseValueConvertible] = [m.runID, m.role, m.turn, m.state, m.createdAt]
        let messageID: Int64
        if let existing {
            // A pulled rewrite of a message's words (or its role) is another machine's, not the
            // person's here, even when the message was first typed here: it reads as synced.
            let role: String? = try db.row("SELECT role FROM agent_messages WHERE id = ?", [existing])?.decode(0)
            let parts = try replicatedParts(messageID: existing, in: db)
            let rewritten = role != m.role || parts != m.parts
            try db.execute("""
                UPDATE agent_messages SET run_id = ?, role = ?, turn = ?, state = ?, created_at = ?, pulled = CASE WHEN ? THEN 1 ELSE pulled END WHERE id = ?
                """, rest + [rewritten, existing])
            messageID = existing
        } else {
            let taken = try db.row("SELECT 1 FROM agent_messages WHERE thread_id = ? AND seq = ?", [m.threadID, m.seq]) != nil
            let place = taken || m.seq < 1
                ? try db.row("SELECT coalesce(max(seq), 0) + 1 FROM agent_messages WHERE thread_id = ?", [m.threadID])?.decode(0) ?? 1
                : m.seq
            try db.execute("INSERT INTO agent_messages (sync_id, thread_id, seq, run_id, role, turn, state, created_at, pulled) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)",
                           ([m.syncID, m.threadID, place] as [DatabaseValueConvertible]) + rest)
            messageID = db.lastInsertRowID
        }
        try db.execute("DELETE FROM agent_message_parts WHERE message_id = ?", [messageID])
        for p in m.parts {
            try db.execute("""
                INSERT INTO agent_message_parts (message_id, ordinal, kind, body, call_id, name, is_error, provider, subkind)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [messageID, p.ordinal, p.kind, p.body, p.callID, p.name, p.isError, p.provider, p.subkind])
        }
        try db.execute("DELETE FROM agent_superseded_messages WHERE message_id = ?", [messageID])
        if let s = m.superseded {
            try db.execute("INSERT INTO agent_superseded_messages (message_id, by_run_id, superseded_at) VALUES (?, ?, ?)", [messageID, s.byRunID, s.at])
        }
        try refreshMessageIndex(db, messageID: messageID)
        try recordPulled(db, threadID: m.threadID)
        return messageID
    }

    /// Something written on another machine (or by any libSQL client) entered `threadID`: not
    /// the person's own words here, so it marks the thread (issue 31).
    static func recordPulled(_ db: Database, threadID: String) throws {
        try recordUntrusted(db, threadID: threadID, runID: nil,
                            reads: [UntrustedRead(kind: .syncedMessage, label: "messages synced from another machine")], now: nil)
    }

    public static func deleteReplicatedAttachmentLink(syncID: String, in db: Database) throws {
        try db.execute("DELETE FROM agent_message_attachments WHERE sync_id = ?", [syncID])
    }

    /// Writes a pulled attachment link. When the file's bytes are not here its `attachments` row
    /// is created with no bytes and `remote = 1` (every view then says the file is on another
    /// machine), or `remote = 2` ("not saved") for a pending key: the other machine pushed the link
    /// before it had stored the file (a later change brings the hash), or it stopped first. Bytes
    /// already here (the same file attached on this machine) are kept; a file no link uses any
    /// more after the link moved to another file is removed.
    public static func writeReplicatedAttachmentLink(syncID: String, messageRowNumber: Int64, ordinal: Int64, name: String, sha256: String,
                                                     mediaType: String, byteCount: Int64, in db: Database) throws {
        try db.execute("""
            INSERT INTO attachments (sha256, media_type, byte_count, data, created_at, remote)
            VALUES (?, ?, ?, X'', (julianday('now') - 2440587.5) * 86400.0, ?) ON CONFLICT (sha256) DO NOTHING
            """, [sha256, mediaType, byteCount, AttachmentRef.isPendingKey(sha256) ? 2 : 1])
        if let existing = try db.row("SELECT id, sha256 FROM agent_message_attachments WHERE sync_id = ?", [syncID]) {
            let linkID = try existing.decode(0, as: Int64.self), oldSHA = try existing.decode(1, as: String.self)
            try db.execute("UPDATE agent_message_attachments SET message_id = ?, ordinal = ?, name = ?, sha256 = ? WHERE id = ?",
                           [messageRowNumber, ordinal, name, sha256, linkID])
            if oldSHA != sha256 {
                try db.execute("DELETE FROM attachments WHERE sha256 = ? AND NOT EXISTS (SELECT 1 FROM agent_message_attachments WHERE sha256 = ?)",
                               [oldSHA, oldSHA])
            }
        } else {
            try db.execute("INSERT INTO agent_message_attachments (sync_id, message_id, ordinal, name, sha256) VALUES (?, ?, ?, ?, ?)",
                           [syncID, messageRowNumber, ordinal, name, sha256])
        }
        // The link's name goes into the request text: it marks the thread as a pulled message does.
        if let thread: String = try db.row("SELECT thread_id FROM agent_messages WHERE id = ?", [messageRowNumber])?.decode(0) {
            try recordPulled(db, threadID: thread)
        }
    }
}
