// The local side of sync: pending changes as payloads, acknowledging pushes, applying pulled
// rows (newest stamp wins, losing local edits kept as conflicts), positions and status.
import Agent
import Base
import Foundation
import Journal
import SQLiteKit

/// A version stamp: hybrid logical clock (µs) and the device that wrote it. Newer wins; equal
/// clocks are ordered by device id so every machine picks the same winner.
public struct SyncStamp: Sendable, Hashable, Comparable {
    public var hlc: Int64
    public var device: String
    public init(hlc: Int64, device: String) { self.hlc = hlc; self.device = device }
    public static func < (a: SyncStamp, b: SyncStamp) -> Bool { (a.hlc, a.device) < (b.hlc, b.device) }
}

/// One record version as it travels: payload nil for a deletion (tombstone).
public struct SyncRecord: Sendable, Hashable {
    public var kind: String
    public var id: String
    public var stamp: SyncStamp
    public var payload: String?
    public var deleted: Bool { payload == nil }
    public init(kind: String, id: String, stamp: SyncStamp, payload: String?) {
        self.kind = kind; self.id = id; self.stamp = stamp; self.payload = payload
    }
}

/// A row read from the remote: its position and the record (payload text unchecked). `problem`
/// says why the row as it came cannot be a record (a column of the wrong type, a payload too
/// large to read): such a row is quarantined, never applied.
public struct RemoteRow: Sendable, Hashable {
    public var position: Int64
    public var record: SyncRecord
    public var problem: String?
    /// The payload's size as the remote counted it (a payload too large to read is not sent).
    public var payloadBytes: Int
    /// The stamp as it came, when it was not an integer.
    public var rawStamp: String?
    public init(position: Int64, record: SyncRecord, problem: String? = nil, payloadBytes: Int = 0, rawStamp: String? = nil) {
        self.position = position; self.record = record; self.problem = problem; self.payloadBytes = payloadBytes; self.rawStamp = rawStamp
    }
}

/// What applying one page did.
public struct ApplyReport: Sendable, Hashable {
    public var applied = 0
    public var conflicts = 0
    /// Rows of a kind this ofj does not know (or threads while `sync.threads` is off).
    public var unknown = 0
    /// Rows that break the journal's rules or their table's (bad JSON, wrong types, ranges,
    /// sizes, constraint failures): kept in `sync_quarantine` with the reason, never applied.
    public var quarantined = 0
    public init() {}
}

/// A pulled row kept aside because it breaks a rule (`ofj sync quarantine`).
public struct SyncQuarantined: Sendable, Hashable {
    public var kind: String
    public var recordID: String
    public var position: Int64
    public var reason: String
    public var payloadBytes: Int
    public var at: Double
}

public struct SyncConflict: Sendable, Hashable {
    public var kind: String
    public var recordID: String
    public var localPayload: String?
    public var localStamp: SyncStamp
    public var winner: SyncStamp
    public var resolvedAt: Double
}

public struct SyncLocalStatus: Sendable, Hashable {
    public var device: String
    public var pending: Int
    public var remotePosition: Int64
    public var conflicts: Int
    public var lastSuccess: Double?
    public var lastError: String?
    public var skipped: Int
    public var quarantined: Int = 0
}

/// The sync tables of the main database (migration `sync-1-capture`).
public struct SyncLocal: Sendable {
    public let queue: DatabaseQueue
    public init(queue: DatabaseQueue) { self.queue = queue }

    // MARK: - State

    public func device() throws -> String {
        try queue.read { try Self.device(in: $0) }
    }

    /// This machine's device id (sync_clock has its one row from the first migration on).
    static func device(in db: Database) throws -> String {
        guard let row = try db.row("SELECT device FROM sync_clock") else {
            throw RowDecodingError(column: "device", expected: "text", found: "no sync_clock row")
        }
        return try row.decode(0)
    }

    func state(_ key: String, in db: Database) throws -> String? {
        try db.scalar("SELECT value FROM sync_state WHERE key = ?", [key]).string
    }

    func setState(_ key: String, _ value: String?, in db: Database) throws {
        if let value {
            try db.execute("INSERT INTO sync_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [key, value])
        } else {
            try db.execute("DELETE FROM sync_state WHERE key = ?", [key])
        }
    }

    public func state(_ key: String) throws -> String? { try queue.read { try state(key, in: $0) } }
    public func setState(_ key: String, _ value: String?) throws { try queue.write { try setState(key, value, in: $0) } }

    public func remotePosition() throws -> Int64 { Int64(try state("remote_position") ?? "0") ?? 0 }

    /// Binds this machine to one remote database. A different remote (a new database, another
    /// URL) starts from position 0 and sends every record again with its existing stamp.
    public func bind(remoteID: String) throws {
        try queue.write { db in
            let current = try state("remote_id", in: db)
            guard current != remoteID else { return }
            try setState("remote_id", remoteID, in: db)
            try setState("remote_position", "0", in: db)
            if current != nil {
                try db.execute("INSERT INTO sync_pending (kind, id, hlc) SELECT kind, id, hlc FROM sync_versions WHERE true ON CONFLICT (kind, id) DO NOTHING")
            }
        }
    }

    /// `threads: false` leaves thread changes out of the pending count (they stay on this machine).
    public func status(threads: Bool = true) throws -> SyncLocalStatus {
        try queue.read { db in
            SyncLocalStatus(
                device: try Self.device(in: db),
                pending: try Self.count("SELECT count(*) FROM sync_pending WHERE kind NOT IN (\(Self.excluded(threads: threads)))", in: db),
                remotePosition: Int64(try state("remote_position", in: db) ?? "0") ?? 0,
                conflicts: try Self.count("SELECT count(*) FROM sync_conflicts", in: db),
                lastSuccess: try state("last_success", in: db).flatMap(Double.init),
                lastError: try state("last_error", in: db),
                skipped: Int(try state("skipped", in: db) ?? "0") ?? 0,
                quarantined: try Self.count("SELECT count(*) FROM sync_quarantine", in: db))
        }
    }

    /// A `count(*)` (an aggregate always has its one row).
    static func count(_ sql: String, in db: Database) throws -> Int {
        try db.row(sql)?.decode(0) ?? 0
    }

    public func conflicts(limit: Int = 100) throws -> [SyncConflict] {
        try queue.read { db in
            try db.rows("""
                SELECT kind, record_id, local_payload, local_hlc, local_device, winner_hlc, winner_device, resolved_at
                FROM sync_conflicts ORDER BY seq DESC LIMIT ?
                """, [limit]).map { r in
                // NULL local payload: the local version was a deletion.
                SyncConflict(kind: try r.decode(0), recordID: try r.decode(1), localPayload: try r.decodeIfPresent(2),
                             localStamp: SyncStamp(hlc: try r.decode(3), device: try r.decode(4)),
                             winner: SyncStamp(hlc: try r.decode(5), device: try r.decode(6)), resolvedAt: try r.decode(7))
            }
        }
    }

    /// Pulled rows kept aside, newest first.
    public func quarantined(limit: Int = 100) throws -> [SyncQuarantined] {
        try queue.read { db in
            try db.rows("SELECT kind, record_id, position, reason, payload_bytes, quarantined_at FROM sync_quarantine ORDER BY seq DESC LIMIT ?",
                        [limit]).map { r in
                SyncQuarantined(kind: try r.decode(0), recordID: try r.decode(1), position: try r.decode(2), reason: try r.decode(3),
                                payloadBytes: try r.decode(4), at: try r.decode(5))
            }
        }
    }

    /// Keeps a pulled row aside with its reason (the payload too, when it is at most 1 MiB).
    /// A record keeps one quarantined version: the newest.
    static func quarantine(_ row: RemoteRow, reason: String, now: Double, in db: Database) throws {
        let payload = row.record.payload
        let bytes = max(payload?.utf8.count ?? 0, row.payloadBytes)
        try db.execute("DELETE FROM sync_quarantine WHERE kind = ? AND record_id = ?", [row.record.kind, row.record.id])
        try db.execute("""
            INSERT INTO sync_quarantine (kind, record_id, position, hlc, device, reason, payload, payload_bytes, quarantined_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [row.record.kind, row.record.id, row.position, row.rawStamp ?? String(row.record.stamp.hlc), row.record.stamp.device,
                  reason, bytes <= 1 << 20 ? payload : nil, bytes, now])
    }

    // MARK: - Clock

    /// The latest stamp this machine accepts or hands out: its clock (with the test skew) plus
    /// `SyncSchema.clockBoundMicros`.
    static func stampBound(now: Double, in db: Database) throws -> Int64 {
        let skew = try db.scalar("SELECT skew_us FROM sync_clock").int64 ?? 0
        return Int64((now * 1_000_000).rounded()) + skew + SyncSchema.clockBoundMicros
    }

    /// A clock or stamps that are not integers, or past the bound (written before the bound
    /// existed, or by hand), are brought back to it: never read as 0, never overflowing.
    static func repairClock(in db: Database, now: Double = Date().timeIntervalSince1970) throws {
        let bound = try stampBound(now: now, in: db)
        try db.execute("UPDATE sync_clock SET hlc = ? WHERE typeof(hlc) != 'integer' OR hlc > ?", [bound, bound])
        for table in ["sync_versions", "sync_pending"] {
            try db.execute("UPDATE \(table) SET hlc = (SELECT hlc FROM sync_clock) WHERE typeof(hlc) != 'integer' OR hlc > ?", [bound])
        }
    }

    public func repairClock(now: Double) throws { try queue.write { try Self.repairClock(in: $0, now: now) } }

    // MARK: - Payloads

    /// The current payload of a record, or nil when it no longer exists (a deletion).
    static func payload(_ k: SyncedKind, id: String, in db: Database) throws -> String? {
        let columns = k.columnOrder.joined(separator: ", ")
        // The local row number, for the rows that travel with the record (nutrients, parts).
        let rowNumber = k.rowNumber ?? "NULL"
        let sql = "SELECT \(columns), \(rowNumber) FROM \(k.table) WHERE \(k.key) = ?"
        guard let row = try db.row(sql, [id]) else { return nil }
        var object: [String: JSONValue] = [:]
        for (i, name) in k.columnOrder.enumerated() {
            switch row[i] {
            case .null: object[name] = .null
            case .integer(let v): object[name] = .number(Double(v))
            case .real(let v): object[name] = .number(v)
            case .text(let s): object[name] = .string(s)
            case .blob: object[name] = .null
            }
        }
        if k.kind == "entry", let seq = row[k.columnOrder.count].int64 {
            let nutrients = try db.rows("SELECT nutrient, amount, total FROM journal_entry_nutrients WHERE entry_seq = ? ORDER BY nutrient", [seq])
            object["nutrients"] = .array(try nutrients.map { n in
                [.string(try n.decode(0)), .number(try n.decode(1)), .number(try n.decode(2))]
            })
        }
        if k.kind == "message", let id = row[k.columnOrder.count].int64 {
            func text(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
            object["parts"] = .array(try ConversationStore.replicatedParts(messageID: id, in: db).map { p in
                [.number(Double(p.ordinal)), .string(p.kind), .string(p.body), text(p.callID), text(p.name), .number(Double(p.isError)),
                 text(p.provider), text(p.subkind)]
            })
            if let s = try ConversationStore.replicatedSupersession(messageID: id, in: db) {
                object["superseded"] = .array([.string(s.byRunID), .number(s.at)])
            }
        }
        if k.kind == "attachment" {
            guard let file = try ConversationStore.replicatedAttachmentFile(linkSyncID: id, in: db) else { return nil }
            object["message"] = .string(file.messageSyncID)
            object["media_type"] = .string(file.mediaType)
            object["byte_count"] = .number(Double(file.byteCount))
        }
        return JSONValue.object(object).serialized
    }

    /// Kinds that do not leave this machine: threads when `sync.threads` is off (SQL list).
    static func excluded(threads: Bool) -> String {
        let kinds = threads ? [] : SyncedKind.all.filter(\.isThread).map(\.kind)
        return kinds.isEmpty ? "''" : kinds.map { "'\($0)'" }.joined(separator: ", ")
    }

    /// Up to `limit` pending changes (oldest stamps first), at most about `maxBytes` of payload.
    public func pendingBatch(limit: Int, maxBytes: Int, threads: Bool = true) throws -> [SyncRecord] {
        try pendingBatch(limit: limit, maxBytes: maxBytes, threads: threads, maxRecordBytes: .max).records
    }

    /// As above, leaving out records whose payload is over `maxRecordBytes` (no other machine
    /// could read them; they stay here, pending) and counting them.
    public func pendingBatch(limit: Int, maxBytes: Int, threads: Bool, maxRecordBytes: Int) throws -> (records: [SyncRecord], tooLarge: Int) {
        try queue.read { db in
            let device = try Self.device(in: db)
            let rows = try db.rows("SELECT p.kind, p.id, p.hlc, coalesce(v.device, ?) FROM sync_pending p LEFT JOIN sync_versions v ON v.kind = p.kind AND v.id = p.id WHERE p.kind NOT IN (\(Self.excluded(threads: threads))) ORDER BY p.hlc, p.kind, p.id LIMIT ?", [device, limit])
            var out: [SyncRecord] = []
            var bytes = 0
            var tooLarge = 0
            for r in rows {
                let kind = try r.decode(0, as: String.self), id = try r.decode(1, as: String.self)
                guard let k = SyncedKind.named(kind) else { continue }
                let payload = try Self.payload(k, id: id, in: db)
                if (payload?.utf8.count ?? 0) > maxRecordBytes { tooLarge += 1; continue }
                let size = (payload?.utf8.count ?? 0) + 200
                if !out.isEmpty && bytes + size > maxBytes { break }
                bytes += size
                out.append(SyncRecord(kind: kind, id: id, stamp: SyncStamp(hlc: try r.decode(2), device: try r.decode(3)), payload: payload))
            }
            return (out, tooLarge)
        }
    }

    /// Records the remote's answer to a pushed batch in one transaction: sent versions that are
    /// now the remote's are no longer pending; a sent version a newer remote version beat is
    /// kept as a conflict (the pull brings the winner). When nothing else was written to the
    /// remote since this machine's position, the position moves past its own rows.
    public func acknowledge(_ sent: [SyncRecord], winners: [String: SyncStamp], positionBefore: Int64, positionAfter: Int64, now: Double) throws {
        try queue.write { db in
            var allWon = true
            for record in sent {
                let winner = winners[record.kind + "\u{1F}" + record.id]
                if let winner, winner != record.stamp, !(record.stamp < winner) {
                    allWon = false
                    continue // the remote names an older version: not confirmed, stays pending
                }
                if let winner, record.stamp < winner {
                    allWon = false
                    try db.execute("""
                        INSERT INTO sync_conflicts (kind, record_id, local_hlc, local_device, local_payload, winner_hlc, winner_device, resolved_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """, [record.kind, record.id, record.stamp.hlc, record.stamp.device, record.payload, winner.hlc, winner.device, now])
                } else if winner == nil {
                    allWon = false
                    continue // not confirmed: stays pending and is sent again
                }
                try db.execute("DELETE FROM sync_pending WHERE kind = ? AND id = ? AND hlc = ?", [record.kind, record.id, record.stamp.hlc])
            }
            let position = Int64(try state("remote_position", in: db) ?? "0") ?? 0
            if allWon && positionBefore == position && positionAfter > position {
                try setState("remote_position", String(positionAfter), in: db)
            }
        }
    }

    // MARK: - Applying pulled rows

    /// Applies one page of remote rows in one transaction and moves the position past it.
    /// Each row is checked first (its columns, its stamp, then — written in a savepoint — the
    /// journal's own rules for what it stored); a row that fails is quarantined with its reason
    /// and the rest of the page goes on. Rows of a kind this ofj does not know are skipped and counted.
    public func apply(_ rows: [RemoteRow], threads: Bool, now: Double) throws -> ApplyReport {
        let journal = JournalStore(queue: queue, now: { Date(timeIntervalSince1970: now) })
        return try queue.write { db in
            var report = ApplyReport()
            try db.execute("UPDATE sync_clock SET applying = 1")
            var days: Set<String> = []
            var maxHLC: Int64 = 0
            let bound = try Self.stampBound(now: now, in: db)
            for row in rows {
                let r = row.record
                if let problem = row.problem {
                    try Self.quarantine(row, reason: problem, now: now, in: db)
                    report.quarantined += 1
                    continue
                }
                guard let k = SyncedKind.named(r.kind), threads || !k.isThread else { report.unknown += 1; continue }
                // The stamp is checked before anything uses it: the clock only ever moves to stamps that passed.
                guard r.stamp.hlc > 0, r.stamp.hlc <= bound else {
                    try Self.quarantine(row, reason: r.stamp.hlc <= 0 ? "its stamp is not positive"
                                            : "its stamp is more than 7 days ahead of this machine's clock", now: now, in: db)
                    report.quarantined += 1
                    continue
                }
                let local = try db.row("SELECT hlc, device FROM sync_versions WHERE kind = ? AND id = ?", [r.kind, r.id]).map {
                    SyncStamp(hlc: try $0.decode(0), device: try $0.decode(1))
                }
                if let local, r.stamp <= local { continue }
                guard !r.id.isEmpty, r.id.utf8.count <= 200, !r.id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                    try Self.quarantine(row, reason: "its id is empty, longer than 200 bytes or has control characters", now: now, in: db)
                    report.quarantined += 1
                    continue
                }
                var conflicted = false
                do {
                    try db.transaction { db in
                        if let pending = try db.row("SELECT hlc FROM sync_pending WHERE kind = ? AND id = ?", [r.kind, r.id]) {
                            let localStamp = try local ?? SyncStamp(hlc: pending.decode(0), device: "")
                            try db.execute("""
                                INSERT INTO sync_conflicts (kind, record_id, local_hlc, local_device, local_payload, winner_hlc, winner_device, resolved_at)
                                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                                """, [r.kind, r.id, localStamp.hlc, localStamp.device, try Self.payload(k, id: r.id, in: db), r.stamp.hlc, r.stamp.device, now])
                            try db.execute("DELETE FROM sync_pending WHERE kind = ? AND id = ?", [r.kind, r.id])
                            conflicted = true
                        }
                        var touched = days
                        try Self.write(k, id: r.id, payload: r.payload, days: &touched, in: db)
                        if let payload = r.payload, let why = try Self.problem(k, id: r.id, payload: payload, journal: journal, in: db) {
                            throw Malformed(why: why)
                        }
                        days = touched
                        try db.execute("""
                            INSERT INTO sync_versions (kind, id, hlc, device) VALUES (?, ?, ?, ?)
                            ON CONFLICT (kind, id) DO UPDATE SET hlc = excluded.hlc, device = excluded.device
                            """, [r.kind, r.id, r.stamp.hlc, r.stamp.device])
                        // A newer version that passes replaces one kept aside.
                        try db.execute("DELETE FROM sync_quarantine WHERE kind = ? AND record_id = ?", [r.kind, r.id])
                    }
                    if conflicted { report.conflicts += 1 }
                    report.applied += 1
                    maxHLC = max(maxHLC, r.stamp.hlc)
                } catch let e as Malformed {
                    try Self.quarantine(row, reason: e.why, now: now, in: db)
                    report.quarantined += 1
                } catch let e as DatabaseError where e.isConstraint || e.code == 20 /* SQLITE_MISMATCH */ {
                    // The row breaks a rule of the table (CHECK, NOT NULL, UNIQUE): SQLite's message names the rule, not the values.
                    try Self.quarantine(row, reason: "it breaks a rule of its table (\(e.message.prefix(120)))", now: now, in: db)
                    report.quarantined += 1
                }
                // Any other error (disk full, busy, damaged) ends the page: nothing of it is kept
                // and the position stays, so the page is read again next time.
            }
            try refreshDayTotals(days, in: db)
            try db.execute("UPDATE sync_clock SET hlc = max(hlc, min(?, ?)), applying = 0", [maxHLC, bound])
            if let last = rows.last {
                try setState("remote_position", String(last.position), in: db)
            }
            if report.unknown > 0 {
                let skipped = (Int(try state("skipped", in: db) ?? "0") ?? 0) + report.unknown
                try setState("skipped", String(skipped), in: db)
            }
            return report
        }
    }

    /// Why a record as written breaks the rules of what it is: the journal's own checks for
    /// entries, foods and settings (what backup import and the store enforce), sizes for the rest.
    static func problem(_ k: SyncedKind, id: String, payload: String, journal: JournalStore, in db: Database) throws -> String? {
        switch k.kind {
        case "entry": return try journal.problemWithStoredEntry(id: id, in: db)
        case "food": return try journal.problemWithStoredFood(id: id, in: db)
        case "setting": return try journal.problemWithStoredSetting(key: id, in: db)
        case "weight": return try journal.problemWithStoredWeight(id: id, in: db)
        default:
            // Conversation records: titles and addresses of a size a view can show on one line, a bounded number of parts.
            let object = (try? JSONValue.parse(payload))?.objectValue ?? [:]
            for (field, limit) in [("title", 1_000), ("url", 8_192), ("name", 1_000)] {
                if let text = object[field]?.stringValue, text.count > limit { return "its \(field) is longer than \(limit) characters" }
            }
            if let parts = object["parts"]?.arrayValue, parts.count > 10_000 { return "it has more than 10,000 parts" }
            return nil
        }
    }

    struct Malformed: Error { let why: String }

    /// A pulled deletion of a thread that is answering here: the page is applied later.
    public struct ThreadAnswering: Error {}

    /// Writes one record's payload into its table (nil: deletes it), with the sync capture off,
    /// and keeps the full-text indexes (maintained by store code, not triggers) exact.
    static func write(_ k: SyncedKind, id: String, payload: String?, days: inout Set<String>, in db: Database) throws {
        switch k.kind {
        case "entry":
            let before = try db.scalar("SELECT seq FROM journal_entries WHERE id = ?", [id]).int64
            try writeRow(k, id: id, payload: payload, days: &days, in: db)
            let after = try db.scalar("SELECT seq FROM journal_entries WHERE id = ?", [id]).int64
            for seq in Set([before, after].compactMap { $0 }) { try JournalStore.refreshFullText(entrySeq: seq, in: db) }
        case "thread":
            if payload == nil {
                // ofj's own threads (the MCP clients' thread) are never deleted by another machine.
                if ConversationStore.systemThreadIDs.contains(id) { throw Malformed(why: "a deletion of ofj's own thread \(id) is refused") }
                // Not under a running answer: the page is read again once it has ended.
                if try ConversationStore.isAnswering(db, threadID: id) { throw ThreadAnswering() }
                try ConversationStore.removeThreadFromIndex(db, threadID: id)
            }
            try writeRow(k, id: id, payload: payload, days: &days, in: db)
            if payload != nil { try ConversationStore.refreshTitleIndex(db, threadID: id) }
        case "message":
            try writeMessage(id: id, payload: payload, in: db)
        case "attachment":
            try writeAttachment(id: id, payload: payload, in: db)
        default:
            try writeRow(k, id: id, payload: payload, days: &days, in: db)
        }
    }

    /// The payload's columns as values of their SQL types, in `columnOrder`.
    static func columnValues(_ k: SyncedKind, id: String, payload: String) throws -> (object: [String: JSONValue], values: [DatabaseValueConvertible]) {
        guard let object = (try? JSONValue.parse(payload))?.objectValue else { throw Malformed(why: "not a JSON object") }
        guard object[k.key]?.stringValue == id else { throw Malformed(why: "key does not match") }
        var values: [DatabaseValueConvertible] = []
        for name in k.columnOrder {
            let type = k.columns[name] ?? .text
            let value = object[name] ?? .null
            switch (type, value) {
            case (_, .null): values.append(DatabaseValue.null)
            case (.text, .string(let s)): values.append(s)
            case (.real, .number(let d)) where d.isFinite: values.append(d)
            case (.integer, .number(let d)) where d.rounded() == d && abs(d) < 9.0e15: values.append(Int64(d))
            default: throw Malformed(why: "column \(name) has the wrong type")
            }
        }
        return (object, values)
    }

    /// A message with its parts. Its local row number and `seq` are this machine's: a new
    /// message keeps the sender's `seq` when that place in the thread is free here and goes
    /// after the thread's last message otherwise (two machines wrote the thread at once); a
    /// message already here keeps its place. A message whose thread is not here yet gets a bare
    /// thread row (the thread's record fills it in); one whose thread was deleted is dropped.
    static func writeMessage(id: String, payload: String?, in db: Database) throws {
        let existing = try ConversationStore.replicatedMessageRowNumber(syncID: id, in: db)
        guard let payload else {
            if let existing { try ConversationStore.deleteReplicatedMessage(rowNumber: existing, in: db) }
            try db.execute("DELETE FROM sync_attachments_waiting WHERE message_sync_id = ?", [id])
            return
        }
        let message = try replicatedMessage(id: id, payload: payload)
        if try !ConversationStore.threadExists(message.threadID, in: db) {
            if try db.row("SELECT 1 FROM sync_versions WHERE kind = 'thread' AND id = ?", [message.threadID]) != nil {
                if let existing { try ConversationStore.deleteReplicatedMessage(rowNumber: existing, in: db) }
                try db.execute("DELETE FROM sync_attachments_waiting WHERE message_sync_id = ?", [id])
                return // the thread was deleted here (or its deletion was pulled): the message goes with it
            }
            try ConversationStore.ensureReplicatedThread(message.threadID, createdAt: message.createdAt, in: db)
        }
        try ConversationStore.write(message, existing: existing, in: db)
        // Attachment links that arrived before their message.
        for w in try db.rows("SELECT sync_id, payload FROM sync_attachments_waiting WHERE message_sync_id = ?", [id]) {
            try writeAttachment(id: try w.decode(0), payload: try w.decode(1, as: String.self), in: db)
        }
    }

    /// A pulled message payload, checked: its columns of their types, its parts and supersession.
    static func replicatedMessage(id: String, payload: String) throws -> ReplicatedMessage {
        let (object, _) = try columnValues(.message, id: id, payload: payload)
        guard let threadID = object["thread_id"]?.stringValue, let createdAt = object["created_at"]?.doubleValue,
              let seq = object["seq"]?.doubleValue.map(Int64.init) else { throw Malformed(why: "message without a thread, time or place") }
        // role and state are NOT NULL in the table: a payload without them cannot be applied.
        guard let role = object["role"]?.stringValue, let state = object["state"]?.stringValue else { throw Malformed(why: "message without a role or state") }
        func text(_ v: JSONValue) throws -> String? {
            if case .null = v { return nil }
            guard let s = v.stringValue else { throw Malformed(why: "bad message part") }
            return s
        }
        let parts = try (object["parts"]?.arrayValue ?? []).map { item -> ReplicatedPart in
            guard let p = item.arrayValue, p.count == 8, let ordinal = p[0].doubleValue, ordinal.rounded() == ordinal, abs(ordinal) < 1e9,
                  let kind = p[1].stringValue, let body = p[2].stringValue, let isError = p[5].doubleValue
            else { throw Malformed(why: "bad message part") }
            return ReplicatedPart(ordinal: Int64(ordinal), kind: kind, body: body, callID: try text(p[3]), name: try text(p[4]),
                                  isError: isError != 0 ? 1 : 0, provider: try text(p[6]), subkind: try text(p[7]))
        }
        var superseded: (byRunID: String, at: Double)?
        if let s = object["superseded"]?.arrayValue {
            guard s.count == 2, let by = s[0].stringValue, let at = s[1].doubleValue else { throw Malformed(why: "bad supersession") }
            superseded = (by, at)
        }
        return ReplicatedMessage(syncID: id, threadID: threadID, seq: seq, runID: object["run_id"]?.stringValue, role: role,
                                 turn: object["turn"]?.doubleValue.map(Int64.init), state: state, createdAt: createdAt,
                                 parts: parts, superseded: superseded)
    }

    /// An attachment link: which message, its place, the file's name, SHA-256, type and size.
    /// Only metadata travels: when the bytes are not here the `attachments` row is created with
    /// no bytes and `remote = 1` (every view then says the file is on another machine; `remote =
    /// 2`, "not saved", for a link pushed before its file was stored there);
    /// bytes already here (the same file attached on this machine) are kept. A link whose
    /// message has not arrived waits in `sync_attachments_waiting`; one whose message was
    /// deleted here is dropped.
    static func writeAttachment(id: String, payload: String?, in db: Database) throws {
        try db.execute("DELETE FROM sync_attachments_waiting WHERE sync_id = ?", [id])
        guard let payload else {
            try ConversationStore.deleteReplicatedAttachmentLink(syncID: id, in: db)
            return
        }
        let (object, _) = try columnValues(.attachment, id: id, payload: payload)
        guard let messageSyncID = object["message"]?.stringValue, let mediaType = object["media_type"]?.stringValue,
              AttachmentFormat(mediaType: mediaType) != nil, let sha = object["sha256"]?.stringValue,
              sha.count == 64, sha.allSatisfy(\.isHexDigit) || AttachmentRef.isPendingKey(sha), let bytes = object["byte_count"]?.doubleValue,
              bytes.rounded() == bytes, bytes > 0, bytes < 1e15,
              let ordinal = object["ordinal"]?.doubleValue, let name = object["name"]?.stringValue
        else { throw Malformed(why: "bad attachment") }
        guard let messageID = try ConversationStore.replicatedMessageRowNumber(syncID: messageSyncID, in: db) else {
            try ConversationStore.deleteReplicatedAttachmentLink(syncID: id, in: db)
            if try db.row("SELECT 1 FROM sync_versions WHERE kind = 'message' AND id = ?", [messageSyncID]) == nil {
                try db.execute("INSERT INTO sync_attachments_waiting (sync_id, message_sync_id, payload) VALUES (?, ?, ?)",
                               [id, messageSyncID, payload])
            }
            return // its message is deleted here, or not here yet (the link waits for it)
        }
        try ConversationStore.writeReplicatedAttachmentLink(syncID: id, messageRowNumber: messageID, ordinal: Int64(ordinal), name: name,
                                                            sha256: sha, mediaType: mediaType, byteCount: Int64(bytes), in: db)
    }

    static func writeRow(_ k: SyncedKind, id: String, payload: String?, days: inout Set<String>, in db: Database) throws {
        if k.kind == "entry", let old = try db.scalar("SELECT day FROM journal_entries WHERE id = ?", [id]).string { days.insert(old) }
        guard let payload else {
            if k.kind == "entry" {
                try db.execute("DELETE FROM journal_entry_nutrients WHERE entry_seq = (SELECT seq FROM journal_entries WHERE id = ?)", [id])
            }
            try db.execute("DELETE FROM \(k.table) WHERE \(k.key) = ?", [id])
            return
        }
        let (object, values) = try columnValues(k, id: id, payload: payload)
        let columns = k.columnOrder.joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: values.count).joined(separator: ", ")
        let updates = k.columnOrder.filter { $0 != k.key }.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        try db.execute("INSERT INTO \(k.table) (\(columns)) VALUES (\(placeholders)) ON CONFLICT (\(k.key)) DO UPDATE SET \(updates)", values)
        guard k.kind == "entry" else { return }
        guard let seq = try db.scalar("SELECT seq FROM journal_entries WHERE id = ?", [id]).int64,
              let day = object["day"]?.stringValue else { throw Malformed(why: "entry without a day") }
        days.insert(day)
        try db.execute("DELETE FROM journal_entry_nutrients WHERE entry_seq = ?", [seq])
        if let n = object["nutrients"], n.arrayValue == nil, n != .null { throw Malformed(why: "its nutrients are not a list") }
        for item in object["nutrients"]?.arrayValue ?? [] {
            guard let n = item.arrayValue, n.count == 3, let nutrient = n[0].stringValue, let amount = n[1].doubleValue,
                  let total = n[2].doubleValue else { throw Malformed(why: "bad nutrient") }
            try db.execute("INSERT INTO journal_entry_nutrients (day, nutrient, entry_seq, amount, total) VALUES (?, ?, ?, ?, ?)",
                           [day, nutrient, seq, amount, total])
        }
    }

    /// The same per-day sums JournalStore keeps (journal_day_totals), for the days a pull touched.
    func refreshDayTotals(_ days: Set<String>, in db: Database) throws {
        for day in days {
            try db.execute("DELETE FROM journal_day_totals WHERE day = ?", [day])
            try db.execute("""
                INSERT INTO journal_day_totals (day, nutrient, total, reported)
                SELECT day, nutrient, sum(total), count(*) FROM journal_entry_nutrients WHERE day = ? GROUP BY day, nutrient
                """, [day])
        }
    }
}
