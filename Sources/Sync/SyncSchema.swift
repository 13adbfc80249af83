// What syncs, and the local change capture: triggers write every change of a synced table to
// sync_pending in the same transaction as the change (migration identifiers start with "sync-").
import SQLiteKit

/// A column of a synced table and the JSON/SQL type its payload value must have.
public enum SyncColumnType: Sendable, Hashable { case text, integer, real }

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

    init(_ kind: String, table: String, key: String, isThread: Bool = false, _ columns: [(String, SyncColumnType)]) {
        self.kind = kind
        self.table = table
        self.key = key
        self.isThread = isThread
        self.columns = Dictionary(uniqueKeysWithValues: columns)
        self.columnOrder = columns.map(\.0)
    }

    /// Journal entries; their nutrients travel in the payload (`nutrients`: [[id, amount, total]…]).
    public static let entry = SyncedKind("entry", table: "journal_entries", key: "id", [
        ("id", .text), ("day", .text), ("meal", .text), ("name", .text), ("brand", .text), ("serving_quantity", .real),
        ("serving_unit", .text), ("serving_grams", .real), ("serving_ml", .real), ("servings", .real), ("saved_food_id", .text),
        ("source", .text), ("created_at", .integer), ("updated_at", .integer), ("derived_nutrients", .text),
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
    /// Conversation threads (titles and models); with `sync.threads`.
    public static let thread = SyncedKind("thread", table: "agent_threads", key: "id", isThread: true, [
        ("id", .text), ("title", .text), ("title_is_custom", .integer), ("provider", .text), ("model", .text),
        ("created_at", .real), ("updated_at", .real),
    ])

    public static let all: [SyncedKind] = [.entry, .food, .setting, .thread]

    public static func named(_ kind: String) -> SyncedKind? { all.first { $0.kind == kind } }
}

public enum SyncSchema {
    /// The hybrid logical clock in SQL: microseconds since 1970 from SQLite's clock (millisecond
    /// resolution) plus the test skew, never less than the last stamp + 1.
    static let nextStamp = "max(hlc + 1, CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER) * 1000 + skew_us)"

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

    /// Registers the sync migrations; run after the journal's and the agent's (the triggers name their tables).
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
            for k in SyncedKind.all { try db.execute(batch: triggers(k)) }
            // Records written before sync existed: stamp them now so the first sync sends them.
            try db.execute("UPDATE sync_clock SET hlc = \(nextStamp)")
            for k in SyncedKind.all {
                try db.execute("INSERT INTO sync_versions (kind, id, hlc, device) SELECT '\(k.kind)', \(k.key), (SELECT hlc FROM sync_clock), (SELECT device FROM sync_clock) FROM \(k.table) WHERE true ON CONFLICT DO NOTHING")
                try db.execute("INSERT INTO sync_pending (kind, id, hlc) SELECT '\(k.kind)', \(k.key), (SELECT hlc FROM sync_clock) FROM \(k.table) WHERE true ON CONFLICT DO NOTHING")
            }
        }
    }
}
