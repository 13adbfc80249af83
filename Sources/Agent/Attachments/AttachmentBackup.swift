// Attachments in a backup (issue 19 §4, `ofj backup export --with-attachments`): read every stored
// attachment with the names and dates it was attached with; check and restore copies by SHA-256.
import SQLiteKit

/// A stored attachment as a backup carries it.
public struct AttachmentCopy: Sendable, Hashable {
    public var sha256: String
    public var format: AttachmentFormat
    public var bytes: [UInt8]
    /// The names it was attached under and when (seconds since 1970), oldest first.
    public var uses: [Use]

    public struct Use: Sendable, Hashable {
        public var name: String
        public var attachedAt: Double
        public init(name: String, attachedAt: Double) {
            self.name = name
            self.attachedAt = attachedAt
        }
    }

    public init(sha256: String, format: AttachmentFormat, bytes: [UInt8], uses: [Use]) {
        self.sha256 = sha256
        self.format = format
        self.bytes = bytes
        self.uses = uses
    }

    /// A copy read from a backup, checked: the bytes are a complete file of the stated type, with
    /// the stated size and SHA-256. Errors say what is wrong, never the name or the bytes.
    public static func checked(sha256: String, mediaType: String, byteCount: Int, bytes: [UInt8], uses: [Use]) throws(AttachmentError) -> AttachmentCopy {
        guard let stated = AttachmentFormat(mediaType: mediaType) else {
            throw AttachmentError("its media_type is not one ofj attaches (\(AttachmentFormat.allCases.map(\.mediaType).joined(separator: ", ")))")
        }
        guard bytes.count == byteCount else { throw AttachmentError("its data has \(bytes.count) bytes, not the \(byteCount) byte_count says") }
        guard SHA256Hasher.hex(bytes) == sha256.lowercased() else { throw AttachmentError("its data does not match its sha256") }
        let format = try AttachmentFile.check(bytes)
        guard format == stated else { throw AttachmentError("its data is a \(format.label), not \(mediaType)") }
        return AttachmentCopy(sha256: sha256.lowercased(), format: format, bytes: bytes, uses: uses)
    }
}

extension ConversationStore {
    /// Every attachment whose bytes are here, oldest first, with its bytes and uses (metadata
    /// synced from another machine and placeholders of files being saved have no bytes to copy).
    public static func attachmentCopies(_ db: Database) throws -> [AttachmentCopy] {
        var out: [AttachmentCopy] = []
        for row in try db.rows("SELECT rowid, sha256, media_type FROM attachments WHERE remote = 0 ORDER BY created_at, sha256") {
            let rowid = try row.decode(0, as: Int64.self), sha = try row.decode(1, as: String.self)
            // A media type this build does not know (a newer ofj's) has no place in this backup.
            guard let format = AttachmentFormat(mediaType: try row.decode(2)) else { continue }
            var bytes: [UInt8] = []
            try db.readBlob(table: "attachments", column: "bytes", rowid: rowid) { bytes.append(contentsOf: $0) }
            let uses = try db.rows("""
                SELECT l.name, m.created_at FROM agent_message_attachments l JOIN agent_messages m ON m.id = l.message_id
                WHERE l.sha256 = ? ORDER BY m.created_at, l.id
                """, [sha]).map { AttachmentCopy.Use(name: try $0.decode(0), attachedAt: try $0.decode(1)) }
            out.append(AttachmentCopy(sha256: sha, format: format, bytes: bytes, uses: uses))
        }
        return out
    }

    /// Stores copies whose bytes are not here yet (no row for the SHA-256, or only metadata synced
    /// from another machine; one row per hash, as attaching does). They are
    /// not linked to any message: no conversation shows them until a thread links the same hash
    /// (attaching the same file again, or a later thread import). Returns how many were stored and
    /// how many were already here.
    public static func restoreAttachments(_ db: Database, _ copies: [AttachmentCopy], now: Double) throws -> (restored: Int, present: Int) {
        var restored = 0, present = 0
        for c in copies {
            if try db.row("SELECT 1 FROM attachments WHERE sha256 = ? AND remote = 0", [c.sha256]) != nil {
                present += 1
                continue
            }
            try storeBytes(db, sha256: c.sha256, format: c.format, bytes: c.bytes, now: now)
            restored += 1
        }
        return (restored, present)
    }
}
