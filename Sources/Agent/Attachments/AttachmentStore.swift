// Attachments in the database: stored once by SHA-256, linked to the user message that carried
// them, deleted (by trigger) when the last message linking them goes with its thread.
import SQLiteKit

/// Bytes of a stored attachment, read from the database in chunks when a request body is written.
public struct StoredAttachmentSource: AttachmentSource {
    public let queue: DatabaseQueue
    public let sha256: String
    public init(queue: DatabaseQueue, sha256: String) {
        self.queue = queue
        self.sha256 = sha256
    }
    public func read(_ chunk: (UnsafeRawBufferPointer) throws -> Void) throws {
        // A file still being saved is read from memory (AttachmentSaving.swift).
        var key = sha256
        switch PendingAttachments.entry(sha256) {
        case .bytes(let bytes)?: return try MemoryAttachmentSource(bytes).read(chunk)
        case .stored(let sha)?: key = sha
        case nil: break
        }
        try queue.read { db in
            guard let row = try db.row("SELECT rowid, remote FROM attachments WHERE sha256 = ?", [key]) else {
                throw AgentError(.storage, "An attachment of this thread is missing from the database; attach the file again.")
            }
            let rowid = try row.decode(0, as: Int64.self), remote = try row.decode(1, as: Int.self)
            if remote == 1 {
                throw AgentError(.storage, "An attachment of this thread is \(AttachmentRef.remoteNote) (only its name, type and size synced); attach the file again here.")
            }
            if remote == 2 {
                throw AgentError(.storage, "An attachment of this thread was \(AttachmentAbsence.notSaved.note); attach the file again.")
            }
            try db.readBlob(table: "attachments", column: "bytes", rowid: rowid, chunkSize: Self.chunkSize, chunk)
        }
    }
}

extension ConversationStore {
    /// The names of the files attached to the user message that started `runID`, in order.
    static func attachmentNames(runID: String, in db: Database) throws -> [String] {
        try db.rows("""
            SELECT l.name FROM agent_message_attachments l JOIN agent_messages m ON m.id = l.message_id
            WHERE m.run_id = ? AND m.role = 'user' ORDER BY l.ordinal
            """, [runID]).map { try $0.decode(0) }
    }

    static func registerAttachmentMigrations(into migrator: inout Migrator) {
        migrator.register("attach-1-attachments", sql: """
            CREATE TABLE attachments (
                sha256 TEXT PRIMARY KEY NOT NULL,
                media_type TEXT NOT NULL,
                byte_count INTEGER NOT NULL,
                data BLOB NOT NULL,
                created_at REAL NOT NULL
            );
            CREATE TABLE agent_message_attachments (
                id INTEGER PRIMARY KEY,
                message_id INTEGER NOT NULL REFERENCES agent_messages(id) ON DELETE CASCADE,
                ordinal INTEGER NOT NULL,
                sha256 TEXT NOT NULL REFERENCES attachments(sha256),
                name TEXT NOT NULL,
                UNIQUE (message_id, ordinal)
            );
            CREATE INDEX agent_message_attachments_by_sha ON agent_message_attachments(sha256);
            CREATE TRIGGER agent_message_attachments_release AFTER DELETE ON agent_message_attachments
            WHEN NOT EXISTS (SELECT 1 FROM agent_message_attachments WHERE sha256 = OLD.sha256)
            BEGIN
                DELETE FROM attachments WHERE sha256 = OLD.sha256;
            END;
            """)
        // Metadata synced from another machine (docs/SYNC.md): an attachments row whose bytes
        // are not here has `remote = 1` and an empty `data`; attaching the same file here fills it.
        // `remote = 2` marks the placeholder of a file still being saved (AttachmentSaving.swift).
        migrator.register("sync3-1-attachment-remote", sql: "ALTER TABLE attachments ADD COLUMN remote INTEGER NOT NULL DEFAULT 0;")
        // The bytes move to a column at the end of the row (`data` stays, always empty). A
        // zeroblob that is not the row's last value is built in memory in full by SQLite (twice
        // the file, measured: +20 MB for 10 MB), and reading `remote` or `created_at` walked the
        // whole overflow chain of the file before them. Keep `bytes` last: ADD COLUMN appends, so
        // a later column for this table belongs in a table of its own.
        migrator.register("attach-2-bytes-last", sql: """
            ALTER TABLE attachments ADD COLUMN bytes BLOB;
            UPDATE attachments SET bytes = data, data = X'' WHERE length(data) > 0;
            """)
        // Which ofj is saving a placeholder's file (AttachmentSaving.swift), so another process
        // can tell "still being saved" from "not saved (that ofj stopped)".
        migrator.register("attach-3-saving", sql: """
            CREATE TABLE attachment_saving (
                key TEXT PRIMARY KEY NOT NULL REFERENCES attachments(sha256) ON DELETE CASCADE,
                owner TEXT NOT NULL
            );
            """)
    }

    /// Stores `attachments` (bytes once per SHA-256) and links them to the message; returns them
    /// with their ids and database sources. A pending attachment (not hashed yet) gets only its
    /// placeholder here: `savePending` stores its bytes after the transaction commits.
    @discardableResult
    static func insertAttachments(_ db: Database, messageID: Int64, _ attachments: [AttachmentRef], queue: DatabaseQueue,
                                  now: Double, firstOrdinal: Int = 0) throws -> [AttachmentRef] {
        var out: [AttachmentRef] = []
        for (index, a) in attachments.enumerated() {
            let ordinal = firstOrdinal + index
            if a.isPending {
                try insertPlaceholder(db, a, now: now)
            } else {
                var bytes: [UInt8] = []
                if let memory = a.source as? MemoryAttachmentSource {
                    bytes = memory.bytes
                } else if try needsBytes(db, sha256: a.sha256) {
                    bytes.reserveCapacity(a.byteCount)
                    try a.source.read { bytes.append(contentsOf: $0) }
                }
                try storeBytes(db, sha256: a.sha256, format: a.format, bytes: bytes, now: now)
            }
            try db.execute("INSERT INTO agent_message_attachments (message_id, ordinal, sha256, name) VALUES (?, ?, ?, ?)",
                           [messageID, ordinal, a.sha256, a.name])
            var stored = a
            stored.id = "a\(db.lastInsertRowID)"
            stored.source = StoredAttachmentSource(queue: queue, sha256: a.sha256)
            out.append(stored)
        }
        return out
    }

    /// Whether the bytes with this hash are not stored here (no row, or only synced metadata).
    private static func needsBytes(_ db: Database, sha256: String) throws -> Bool {
        guard let held = try db.row("SELECT remote FROM attachments WHERE sha256 = ?", [sha256]) else { return true }
        return try held.decode(0, as: Int.self) != 0
    }

    /// Stores `bytes` under `sha256` unless they are here already. A row holding only synced
    /// metadata (remote = 1) gets the bytes now.
    static func storeBytes(_ db: Database, sha256: String, format: AttachmentFormat, bytes: [UInt8], now: Double) throws {
        guard try needsBytes(db, sha256: sha256) else { return }
        // zeroblob (the row's last value, so SQLite does not build it in memory), then the bytes
        // in pieces: SQLite makes no whole copy of a large file.
        try db.execute("""
            INSERT INTO attachments (sha256, media_type, byte_count, data, created_at, bytes) VALUES (?, ?, ?, X'', ?, zeroblob(?))
            ON CONFLICT (sha256) DO UPDATE SET media_type = excluded.media_type, byte_count = excluded.byte_count,
                bytes = excluded.bytes, remote = 0
            """, [sha256, format.mediaType, bytes.count, now, bytes.count])
        guard let rowid = try db.scalar("SELECT rowid FROM attachments WHERE sha256 = ?", [sha256]).int64 else {
            throw AgentError(.storage, "An attachment could not be stored; attach the file again.")
        }
        try bytes.withUnsafeBytes { try db.writeBlob(table: "attachments", column: "bytes", rowid: rowid, $0) }
    }

    /// Stores `attachment` (a document a tool fetched during `runID`, e.g. fetch_url's PDF) as an
    /// attachment of the thread, linked to the run's latest assistant message (the one whose tool
    /// call fetched it): never a user message, so it is not taken for something the person
    /// attached. It is kept and deleted with the thread like any attachment. Returns it with its id.
    public func attachToRun(threadID: String, runID: String, _ attachment: AttachmentRef, now: Double) throws -> AttachmentRef {
        try queue.write { db in
            guard let messageID = try db.scalar("""
                SELECT id FROM agent_messages WHERE thread_id = ? AND run_id = ? AND role = 'assistant' ORDER BY seq DESC LIMIT 1
                """, [threadID, runID]).int64 else {
                throw AgentError(.storage, "No answer in progress to keep the document with.")
            }
            let next = try db.scalar("SELECT COALESCE(MAX(ordinal) + 1, 0) FROM agent_message_attachments WHERE message_id = ?",
                                     [messageID]).int ?? 0
            let stored = try Self.insertAttachments(db, messageID: messageID, [attachment], queue: queue, now: now, firstOrdinal: next)
            guard let first = stored.first else { throw AgentError(.storage, "The document could not be kept.") }
            return first
        }
    }

    /// The attachments of the thread's messages with `seq > afterSeq`, by message id.
    static func attachmentsByMessage(_ db: Database, threadID: String, afterSeq: Int, throughSeq: Int = Int.max,
                                     queue: DatabaseQueue) throws -> [Int64: [AttachmentRef]] {
        var out: [Int64: [AttachmentRef]] = [:]
        try db.forEachRow("""
            SELECT l.message_id, l.id, l.name, a.media_type, a.byte_count, a.sha256, a.remote, \(savingColumn)
            FROM agent_message_attachments l JOIN agent_messages m ON m.id = l.message_id JOIN attachments a ON a.sha256 = l.sha256
            WHERE m.thread_id = ? AND m.seq > ? AND m.seq <= ? ORDER BY m.seq, l.ordinal
            """, [threadID, afterSeq, throughSeq]) { s in
            guard let ref = try attachmentRef(s, offset: 1, queue: queue) else { return }
            out[try s.decode(0, as: Int64.self), default: []].append(ref)
        }
        return out
    }

    private static func attachmentRef(_ s: Statement, offset o: Int, queue: DatabaseQueue) throws -> AttachmentRef? {
        // A media type this build does not know (a newer ofj's) is left out, as from a request.
        guard let format = AttachmentFormat(mediaType: try s.decode(o + 2)) else { return nil }
        let sha = try s.decode(o + 4, as: String.self)
        return AttachmentRef(id: "a\(try s.decode(o, as: Int64.self))", name: try s.decode(o + 1), format: format,
                             byteCount: try s.decode(o + 3), sha256: sha, source: StoredAttachmentSource(queue: queue, sha256: sha),
                             absence: absence(remote: try s.decode(o + 5), key: sha, savingOwner: try s.decodeIfPresent(o + 6)))
    }

    /// The ofj saving a placeholder's file (`attachment_saving`), or NULL.
    private static let savingColumn = "(SELECT s.owner FROM attachment_saving s WHERE s.key = a.sha256)"

    /// Why the bytes of a row with this `remote` value are not here, if they are not. A
    /// placeholder (2) whose bytes this process holds is being saved here: they are here. One
    /// whose saving ofj is another live process is being saved there; otherwise that ofj stopped
    /// (or the link synced from a machine that had not stored the file).
    private static func absence(remote: Int, key: String, savingOwner: String?) -> AttachmentAbsence? {
        switch remote {
        case 1: return .onAnotherMachine
        case 2:
            if PendingAttachments.entry(key) != nil { return nil }
            if let owner = savingOwner, owner != RunOwner.current, RunOwner.isAlive(owner) { return .beingSaved }
            return .notSaved
        default: return nil
        }
    }

    /// The attachment `id` ("a12") if a message of `threadID` carries it.
    public func attachment(id: String, threadID: String) throws -> AttachmentRef? {
        guard id.hasPrefix("a"), let row = Int64(id.dropFirst()) else { return nil }
        return try queue.read { db in
            var found: AttachmentRef?
            try db.forEachRow("""
                SELECT l.id, l.name, a.media_type, a.byte_count, a.sha256, a.remote, \(Self.savingColumn)
                FROM agent_message_attachments l JOIN agent_messages m ON m.id = l.message_id JOIN attachments a ON a.sha256 = l.sha256
                WHERE l.id = ? AND m.thread_id = ?
                """, [row, threadID]) { s in found = try Self.attachmentRef(s, offset: 0, queue: queue) }
            return found
        }
    }

    /// Every attachment of the thread, oldest first (for `/attachments` on an open thread, checkpoints).
    public func attachments(threadID: String, throughSeq: Int = Int.max) throws -> [AttachmentRef] {
        try queue.read { db in
            try Self.attachmentsByMessage(db, threadID: threadID, afterSeq: 0, throughSeq: throughSeq, queue: queue)
                .sorted { $0.key < $1.key }.flatMap(\.value)
        }
    }

    /// Counts and bytes of stored attachments (for diagnostics and doctor: never names or bytes;
    /// metadata synced without its bytes is not counted).
    public func attachmentTotals() throws -> (count: Int, bytes: Int) {
        try queue.read { db in
            // An aggregate always has its one row, and COALESCE makes the sum 0 when nothing is stored.
            guard let row = try db.row("SELECT COUNT(*), COALESCE(SUM(byte_count), 0) FROM attachments WHERE remote = 0") else { return (0, 0) }
            return (try row.decode(0), try row.decode(1))
        }
    }
}
