// What syncs, and the local change capture: triggers write every change of a synced table to
// sync_pending in the same transaction as the change (migration identifiers start with "sync-").
// The capture is generic (triggers and payloads by table name); the conversation tables' names,
// keys and columns come from the store that owns them (ConversationStore.Replicated).
import Agent
import SQLiteKit

/// A column of a synced table and the JSON/SQL type its payload value must have.
public typealias SyncColumnType = DatabaseColumnType

/// One kind of synced record: a table keyed by a text id, its columns as a JSON payload.
public struct SyncedKind: Sendable, Hashable {
    public let kind: String
    public let table: String
    public let key: String
    public let columns: [String: SyncColumnType]
    /// Column order (payloads are built and applied in this order).
    public let columnOrder: [String]
    /// True for conversation data, synced only when `sync.threads` is on.
    public let isThread: Bool
    /// The local row number of a record, for the rows that travel with it (nutrients, parts).
    public let rowNumber: String?

    init(_ kind: String, table: String, key: String, isThread: Bool = false, rowNumber: String? = nil, _ columns: [(String, SyncColumnType)]) {
        self.kind = kind
        self.table = table
        self.key = key
        self.isThread = isThread
        self.rowNumber = rowNumber
        self.columns = Dictionary(uniqueKeysWithValues: columns)
        self.columnOrder = columns.map(\.0)
    }

    /// A kind whose table its owning store defines.
    init(_ kind: String, _ table: ReplicatedTable, isThread: Bool) {
        self.init(kind, table: table.name, key: table.key, isThread: isThread, rowNumber: table.rowNumber, table.columns.map { ($0.name, $0.type) })
    }

    /// Journal entries; their nutrients travel in the payload (`nutrients`: [[id, amount, total]…]).
    public static let entry = SyncedKind("entry", table: "journal_entries", key: "id", rowNumber: "seq", [
        ("id", .text), ("day", .text), ("meal", .text), ("name", .text), ("brand", .text), ("serving_quantity", .real),
        ("serving_unit", .text), ("serving_grams", .real), ("serving_ml", .real), ("servings", .real), ("saved_food_id", .text),
        ("source", .text), ("created_at", .integer), ("updated_at", .integer), ("derived_nutrients", .text),
        ("eaten_at", .integer), ("meal_label", .text),
    ])
    /// Food Bank foods; calculator portions and composite snapshots are in `body` (JSON), brands are a column.
    public static let food = SyncedKind("food", table: "journal_saved_foods", key: "id", [
        ("id", .text), ("kind", .text), ("name", .text), ("name_key", .text), ("brand", .text), ("brand_key", .text),
        ("serving_quantity", .real), ("serving_unit", .text), ("serving_grams", .real), ("serving_ml", .real),
        ("nutrients", .text), ("body", .text), ("is_on_shelf", .integer), ("is_archived", .integer), ("last_used_at", .integer),
        ("created_at", .integer), ("updated_at", .integer), ("barcode", .text),
    ])
    /// Journal settings: goals and meal settings.
    public static let setting = SyncedKind("setting", table: "journal_settings", key: "key", [("key", .text), ("value", .text)])
    /// Weigh-ins (issue 33, migration `sync5-1-weights`).
    public static let weight = SyncedKind("weight", table: "journal_weights", key: "id", [
        ("id", .text), ("day", .text), ("kg", .real), ("source", .text), ("created_at", .integer), ("updated_at", .integer),
    ])
    /// Conversation threads (titles and models); with `sync.threads`.
    public static let thread = SyncedKind("thread", ConversationStore.Replicated.threads, isThread: true)

    /// A thread's messages with their parts (`parts`: [[ordinal, kind, body, call_id, name,
    /// is_error, provider, subkind]…]) and, for an answer replaced by `/retry`, `superseded`:
    /// [by_run_id, superseded_at]. Keyed by `sync_id` (random, migration `sync2-1-threads`);
    /// `seq` is only a hint for the order on a machine that pulls it (see SyncLocal.writeMessage).
    public static let message = SyncedKind("message", ConversationStore.Replicated.messages, isThread: true)
    /// Research sources of a thread (pages fetched, search results); keyed by `sync_id`. The
    /// local row id (what `[n]` in `/sources` shows) and the run that last read it stay local.
    public static let source = SyncedKind("source", table: "research_sources", key: "sync_id", isThread: true, [
        ("sync_id", .text), ("thread_id", .text), ("kind", .text), ("url", .text), ("title", .text), ("fetched_at", .real),
        ("content_hash", .text), ("version", .integer), ("text", .text),
    ])

    /// Attachment metadata: a message's link to a file (`agent_message_attachments`), keyed by
    /// `sync_id` (migration `sync3-2-attachments`), with `message` (the message's sync_id),
    /// `media_type` and `byte_count` added to the payload. Never the bytes (see SyncLocal.writeAttachment).
    public static let attachment = SyncedKind("attachment", ConversationStore.Replicated.attachmentLinks, isThread: true)

    public static let all: [SyncedKind] = [.entry, .food, .setting, .weight, .thread, .message, .source, .attachment]

    public static func named(_ kind: String) -> SyncedKind? { all.first { $0.kind == kind } }
}

public enum SyncSchema {
    /// Microseconds since 1970 from SQLite's clock (millisecond resolution) plus the test skew.
    static let nowMicros = "(CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER) * 1000 + skew_us)"
    /// How far ahead of this machine's clock a stamp may be: a pulled row stamped later is
    /// quarantined, and the local clock never moves past it (so one hostile stamp cannot poison it).
    public static let clockBoundMicros: Int64 = 7 * 86_400 * 1_000_000
    /// The hybrid logical clock in SQL: the last stamp + 1, at least now, at most now + the bound
    /// (an integer always: `hlc + 1` at INT64_MAX would become a REAL).
    static let nextStamp = "max(min(hlc + 1, \(nowMicros) + \(clockBoundMicros)), \(nowMicros))"
    /// What triggers before migration `sync4-2-bounded-clock` used (that migration rewrites them).
    static let unboundedStamp = "max(hlc + 1, CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER) * 1000 + skew_us)"

    static func triggers(_ k: SyncedKind) -> String {
        func capture(_ row: String) -> String {
            """
                UPDATE sync_clock SET hlc = \(nextStamp);
                INSERT INTO sync_pending (kind, id, hlc) SELECT '\(k.kind)', \(row).\(k.key), hlc FROM sync_clock WHERE true
                    ON CONFLICT (kind, id) DO UPDATE SET hlc = excluded.hlc;
                INSERT INTO sync_versions (kind, id, hlc, device) SELECT '\(k.kind)', \(row).\(k.key), hlc, device FROM sync_clock WHERE true
                    ON CONFLICT (kind, id) DO UPDATE SET hlc = excluded.hlc, device = excluded.device;
            """
        }
        let when = "WHEN (SELECT applying FROM sync_clock) = 0"
        return """
            CREATE TRIGGER sync_\(k.kind)_inserted AFTER INSERT ON \(k.table) \(when) BEGIN
            \(capture("NEW"))
            END;
            CREATE TRIGGER sync_\(k.kind)_updated AFTER UPDATE ON \(k.table) \(when) BEGIN
            \(capture("NEW"))
            END;
            CREATE TRIGGER sync_\(k.kind)_deleted AFTER DELETE ON \(k.table) \(when) BEGIN
            \(capture("OLD"))
            END;
            """
    }

    /// The kinds of `sync-1-capture` (later kinds have their own migrations).
    static let version1Kinds: [SyncedKind] = [.entry, .food, .setting, .thread]

    /// Statements that make record `key` (an SQL expression; nothing when it is NULL) of `kind` pending.
    static func capture(kind: String, key: String) -> String {
        """
            UPDATE sync_clock SET hlc = \(nextStamp);
            INSERT INTO sync_pending (kind, id, hlc) SELECT '\(kind)', r.k, c.hlc FROM sync_clock c, (SELECT \(key) AS k) r WHERE r.k IS NOT NULL
                ON CONFLICT (kind, id) DO UPDATE SET hlc = excluded.hlc;
            INSERT INTO sync_versions (kind, id, hlc, device) SELECT '\(kind)', r.k, c.hlc, c.device FROM sync_clock c, (SELECT \(key) AS k) r WHERE r.k IS NOT NULL
                ON CONFLICT (kind, id) DO UPDATE SET hlc = excluded.hlc, device = excluded.device;
        """
    }

    /// Registers the sync migrations; run after the journal's, the agent's and research's (the triggers name their tables).
    public static func registerMigrations(into migrator: inout Migrator) {
        migrator.register("sync-1-capture") { db in
            try db.execute(batch: """
                -- This machine's device id, its hybrid logical clock (µs; skew_us shifts it in tests)
                -- and the flag that keeps changes applied from the remote out of sync_pending.
                CREATE TABLE sync_clock (
                    one INTEGER PRIMARY KEY CHECK (one = 1),
                    device TEXT NOT NULL,
                    hlc INTEGER NOT NULL,
                    skew_us INTEGER NOT NULL DEFAULT 0,
                    applying INTEGER NOT NULL DEFAULT 0
                );
                INSERT INTO sync_clock (one, device, hlc) VALUES (1, lower(hex(randomblob(16))), 0);
                -- The stamp and device of the version of each synced record held here (deleted ones too).
                CREATE TABLE sync_versions (
                    kind TEXT NOT NULL, id TEXT NOT NULL, hlc INTEGER NOT NULL, device TEXT NOT NULL,
                    PRIMARY KEY (kind, id)
                ) WITHOUT ROWID;
                -- Local changes not yet acknowledged by the remote (one row per record, its latest stamp).
                CREATE TABLE sync_pending (
                    kind TEXT NOT NULL, id TEXT NOT NULL, hlc INTEGER NOT NULL,
                    PRIMARY KEY (kind, id)
                ) WITHOUT ROWID;
                CREATE INDEX sync_pending_hlc ON sync_pending (hlc);
                CREATE TABLE sync_state (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                -- Local versions with unsynced edits that a newer remote version replaced.
                CREATE TABLE sync_conflicts (
                    seq INTEGER PRIMARY KEY,
                    kind TEXT NOT NULL, record_id TEXT NOT NULL,
                    local_hlc INTEGER NOT NULL, local_device TEXT NOT NULL, local_payload TEXT,
                    winner_hlc INTEGER NOT NULL, winner_device TEXT NOT NULL,
                    resolved_at REAL NOT NULL
                );
                """)
            for k in version1Kinds { try db.execute(batch: triggers(k)) }
            // Records written before sync existed: stamp them now so the first sync sends them.
            try db.execute("UPDATE sync_clock SET hlc = \(nextStamp)")
            for k in version1Kinds {
                try db.execute("INSERT INTO sync_versions (kind, id, hlc, device) SELECT '\(k.kind)', \(k.key), (SELECT hlc FROM sync_clock), (SELECT device FROM sync_clock) FROM \(k.table) WHERE true ON CONFLICT DO NOTHING")
                try db.execute("INSERT INTO sync_pending (kind, id, hlc) SELECT '\(k.kind)', \(k.key), (SELECT hlc FROM sync_clock) FROM \(k.table) WHERE true ON CONFLICT DO NOTHING")
            }
        }
        registerThreadMigration(into: &migrator)
        registerAttachmentMigration(into: &migrator)
        migrator.register("sync4-1-quarantine") { db in
            try db.execute(batch: """
                -- Pulled rows that break a rule (wrong types, ranges, sizes, stamps): kept aside with
                -- the reason, never applied; one per record, the newest (SyncLocal.quarantine).
                CREATE TABLE sync_quarantine (
                    seq INTEGER PRIMARY KEY,
                    kind TEXT NOT NULL, record_id TEXT NOT NULL, position INTEGER NOT NULL,
                    hlc TEXT NOT NULL, device TEXT NOT NULL, reason TEXT NOT NULL,
                    payload TEXT, payload_bytes INTEGER NOT NULL, quarantined_at REAL NOT NULL
                );
                CREATE INDEX sync_quarantine_by_record ON sync_quarantine (kind, record_id);
                """)
        }
        // Triggers written with the unbounded clock get the bounded one; a clock (or stamps)
        // already past the bound, or not integers, are brought back to it.
        migrator.register("sync4-2-bounded-clock") { db in
            for row in try db.rows("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%hlc + 1%'") {
                guard let name = row[0].string, let sql = row[1].string, sql.contains(unboundedStamp) else { continue }
                try db.execute(batch: "DROP TRIGGER \(name);\n" + sql.replacingOccurrences(of: unboundedStamp, with: nextStamp) + ";")
            }
            try SyncLocal.repairClock(in: db)
        }
        // Weigh-ins written before: stamped now so the next sync sends them.
        migrator.register("sync5-1-weights") { db in
            let k = SyncedKind.weight
            try db.execute(batch: triggers(k))
            try db.execute("UPDATE sync_clock SET hlc = \(nextStamp)")
            try db.execute("INSERT INTO sync_versions (kind, id, hlc, device) SELECT '\(k.kind)', \(k.key), (SELECT hlc FROM sync_clock), (SELECT device FROM sync_clock) FROM \(k.table) WHERE true ON CONFLICT DO NOTHING")
            try db.execute("INSERT INTO sync_pending (kind, id, hlc) SELECT '\(k.kind)', \(k.key), (SELECT hlc FROM sync_clock) FROM \(k.table) WHERE true ON CONFLICT DO NOTHING")
        }
    }
}

extension SyncSchema {
    /// Messages (with their parts and `/retry` supersession) and research sources sync with
    /// `sync.threads`. Their local keys are integers that two machines would both hand out, so
    /// each row gets a random `sync_id` (filled by a trigger when the writer leaves it NULL).
    /// Runs, tool records, the ledger, approvals, grants, usage and checkpoints stay local.
    static func registerThreadMigration(into migrator: inout Migrator) {
        migrator.register("sync2-1-threads") { db in
            let when = "(SELECT applying FROM sync_clock) = 0"
            let conversation = ConversationStore.Replicated.self
            let messages = conversation.messages.name, parts = conversation.messageParts, superseded = conversation.supersededMessages
            let messageOf = { (row: String) in
                "(SELECT \(conversation.messages.key) FROM \(messages) WHERE \(conversation.messageRowNumber) = \(row).message_id)"
            }
            var sql = ""
            for table in [messages, "research_sources"] {
                sql += """
                    ALTER TABLE \(table) ADD COLUMN sync_id TEXT;
                    UPDATE \(table) SET sync_id = lower(hex(randomblob(16)));
                    CREATE UNIQUE INDEX \(table)_by_sync_id ON \(table) (sync_id);
                    CREATE TRIGGER \(table)_sync_id AFTER INSERT ON \(table) WHEN NEW.sync_id IS NULL BEGIN
                        UPDATE \(table) SET sync_id = lower(hex(randomblob(16))) WHERE rowid = NEW.rowid;
                    END;

                    """
            }
            // A message is one record: its row, its parts and its supersession.
            for (name, table, event, key) in [
                ("message_inserted", messages, "INSERT", "NEW.sync_id"),
                ("message_updated", messages, "UPDATE", "NEW.sync_id"),
                ("message_deleted", messages, "DELETE", "OLD.sync_id"),
                ("part_inserted", parts, "INSERT", messageOf("NEW")),
                ("part_updated", parts, "UPDATE", messageOf("NEW")),
                ("part_deleted", parts, "DELETE", messageOf("OLD")),
                ("superseded_inserted", superseded, "INSERT", messageOf("NEW")),
                ("superseded_deleted", superseded, "DELETE", messageOf("OLD")),
            ] {
                sql += "CREATE TRIGGER sync_\(name) AFTER \(event) ON \(table) WHEN \(when) BEGIN\n\(capture(kind: "message", key: key))\nEND;\n"
            }
            // The run that last read a source is local: touching it is not a change.
            let sourceColumns = SyncedKind.source.columnOrder.joined(separator: ", ")
            sql += """
                CREATE TRIGGER sync_source_inserted AFTER INSERT ON research_sources WHEN \(when) BEGIN
                \(capture(kind: "source", key: "NEW.sync_id"))
                END;
                CREATE TRIGGER sync_source_updated AFTER UPDATE OF \(sourceColumns) ON research_sources WHEN \(when) BEGIN
                \(capture(kind: "source", key: "NEW.sync_id"))
                END;
                CREATE TRIGGER sync_source_deleted AFTER DELETE ON research_sources WHEN \(when) BEGIN
                \(capture(kind: "source", key: "OLD.sync_id"))
                END;

                """
            try db.execute(batch: sql)
            // Messages and sources written before: stamp them now so the next sync sends them.
            try db.execute("UPDATE sync_clock SET hlc = \(nextStamp)")
            for k in [SyncedKind.message, .source] {
                try db.execute("INSERT INTO sync_versions (kind, id, hlc, device) SELECT '\(k.kind)', sync_id, (SELECT hlc FROM sync_clock), (SELECT device FROM sync_clock) FROM \(k.table) WHERE true ON CONFLICT DO NOTHING")
                try db.execute("INSERT INTO sync_pending (kind, id, hlc) SELECT '\(k.kind)', sync_id, (SELECT hlc FROM sync_clock) FROM \(k.table) WHERE true ON CONFLICT DO NOTHING")
            }
        }
    }
}

extension SyncSchema {
    /// Attachment metadata syncs with `sync.threads`; the bytes stay where the file was attached.
    /// Each link row gets a random `sync_id`. A pulled link whose message has not arrived yet
    /// waits in `sync_attachments_waiting` until it does (SyncLocal.writeAttachment).
    static func registerAttachmentMigration(into migrator: inout Migrator) {
        migrator.register("sync3-2-attachments") { db in
            let when = "(SELECT applying FROM sync_clock) = 0"
            let links = ConversationStore.Replicated.attachmentLinks.name
            try db.execute(batch: """
                ALTER TABLE \(links) ADD COLUMN sync_id TEXT;
                UPDATE \(links) SET sync_id = lower(hex(randomblob(16)));
                CREATE UNIQUE INDEX \(links)_by_sync_id ON \(links) (sync_id);
                CREATE TRIGGER \(links)_sync_id AFTER INSERT ON \(links) WHEN NEW.sync_id IS NULL BEGIN
                    UPDATE \(links) SET sync_id = lower(hex(randomblob(16))) WHERE rowid = NEW.rowid;
                END;
                CREATE TRIGGER sync_attachment_inserted AFTER INSERT ON \(links) WHEN \(when) BEGIN
                \(capture(kind: "attachment", key: "NEW.sync_id"))
                END;
                CREATE TRIGGER sync_attachment_updated AFTER UPDATE ON \(links) WHEN \(when) BEGIN
                \(capture(kind: "attachment", key: "NEW.sync_id"))
                END;
                CREATE TRIGGER sync_attachment_deleted AFTER DELETE ON \(links) WHEN \(when) BEGIN
                \(capture(kind: "attachment", key: "OLD.sync_id"))
                END;
                -- Pulled links whose message is not here yet (payload as pulled).
                CREATE TABLE sync_attachments_waiting (
                    sync_id TEXT PRIMARY KEY NOT NULL,
                    message_sync_id TEXT NOT NULL,
                    payload TEXT NOT NULL
                );
                CREATE INDEX sync_attachments_waiting_by_message ON sync_attachments_waiting (message_sync_id);
                UPDATE sync_clock SET hlc = \(nextStamp);
                INSERT INTO sync_versions (kind, id, hlc, device) SELECT 'attachment', sync_id, (SELECT hlc FROM sync_clock), (SELECT device FROM sync_clock)
                    FROM \(links) WHERE true ON CONFLICT DO NOTHING;
                INSERT INTO sync_pending (kind, id, hlc) SELECT 'attachment', sync_id, (SELECT hlc FROM sync_clock)
                    FROM \(links) WHERE true ON CONFLICT DO NOTHING;
                """)
        }
    }
}
