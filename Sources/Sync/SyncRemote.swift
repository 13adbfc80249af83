// The remote side: ordinary libSQL tables in the Turso database, created with IF NOT EXISTS and
// additive migrations, written in guarded BEGIN IMMEDIATE … COMMIT batches, read by position.
import Base
import Hrana
import Foundation

public enum SyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The remote was set up by a newer ofj; nothing is written.
    case newerRemoteSchema(Int)
    case remote(HranaError)
    case unreadable(String)

    public var description: String {
        switch self {
        case .newerRemoteSchema(let v):
            return "the sync database was set up by a newer version of ofj (schema \(v), this ofj knows \(SyncRemote.schemaVersion)); upgrade ofj on this machine, nothing was written"
        case .remote(let e): return e.describe(SyncRemote.service)
        case .unreadable(let why): return "the sync database sent an unreadable answer (\(why)); sync will retry later"
        }
    }

    public var isRetryable: Bool {
        switch self {
        case .newerRemoteSchema: return false
        case .remote(let e): return e.isRetryable
        case .unreadable: return true
        }
    }
}

public struct SyncRemote: Sendable {
    public static let schemaVersion = 1
    public static let rows = "ofj_sync_rows"
    public static let meta = "ofj_sync_meta"
    public static let devices = "ofj_sync_devices"
    /// Tombstones stay at least this long, and until every known device has pulled past them.
    public static let tombstoneRetention: Double = 90 * 86_400
    public static let service = HranaService(name: "sync database", urlVariable: "OFJ_SYNC_URL", tokenVariable: "OFJ_SYNC_TOKEN",
                                             retryPhrase: "sync will retry later")

    public let client: HranaClient
    public init(client: HranaClient) { self.client = client }

    /// Columns of ofj_sync_rows; later versions only add columns (ALTER TABLE ADD COLUMN).
    static let rowColumns: [(String, String)] = [
        ("kind", "TEXT NOT NULL"), ("id", "TEXT NOT NULL"), ("pos", "INTEGER NOT NULL"), ("hlc", "INTEGER NOT NULL"),
        ("device", "TEXT NOT NULL"), ("deleted", "INTEGER NOT NULL DEFAULT 0"), ("payload", "TEXT"), ("pushed_at", "TEXT NOT NULL"),
    ]

    /// Creates the tables when missing, adds missing columns, and returns the database id.
    /// Refuses a schema version newer than this ofj's before anything is written.
    public func migrate() async throws -> String {
        // Read first: a newer schema must be refused before any CREATE or ALTER is sent.
        let outcome: Result<HranaResponse, HranaServerError>?
        do { outcome = try await client.pipeline([.execute(HranaStatement("SELECT value FROM \(Self.meta) WHERE key = 'schema_version'"))]).first }
        catch let e as HranaError { throw SyncError.remote(e) }
        if case .success(.execute(let r))? = outcome, let text = r.rows.first?.first?.text, let v = Int(text), v > Self.schemaVersion {
            throw SyncError.newerRemoteSchema(v)
        }
        return try await createOrUpgrade()
    }

    func createOrUpgrade() async throws -> String {
        let create = "CREATE TABLE IF NOT EXISTS \(Self.rows) (" + Self.rowColumns.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
            + ", PRIMARY KEY (kind, id))"
        let outcomes: [Result<HranaResponse, HranaServerError>]
        do {
            outcomes = try await client.pipeline([
                .execute(HranaStatement("CREATE TABLE IF NOT EXISTS \(Self.meta) (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)", wantRows: false)),
                .execute(HranaStatement("INSERT INTO \(Self.meta) (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO NOTHING",
                                        [.text(String(Self.schemaVersion))], wantRows: false)),
                .execute(HranaStatement("INSERT INTO \(Self.meta) (key, value) VALUES ('database_id', ?) ON CONFLICT (key) DO NOTHING",
                                        [.text(UUID().uuidString.lowercased())], wantRows: false)),
                .execute(HranaStatement(create, wantRows: false)),
                .execute(HranaStatement("CREATE INDEX IF NOT EXISTS \(Self.rows)_pos ON \(Self.rows) (pos)", wantRows: false)),
                .execute(HranaStatement("CREATE TABLE IF NOT EXISTS \(Self.devices) (device TEXT PRIMARY KEY NOT NULL, pulled_pos INTEGER NOT NULL DEFAULT 0, seen_at TEXT NOT NULL, app_version TEXT)", wantRows: false)),
                .execute(HranaStatement("SELECT key, value FROM \(Self.meta)")),
                .execute(HranaStatement("PRAGMA table_info(\(Self.rows))")),
            ])
        } catch let e as HranaError { throw SyncError.remote(e) }
        var meta: [String: String] = [:]
        var existing: Set<String> = []
        for (i, outcome) in outcomes.enumerated() {
            switch outcome {
            case .failure(let e): throw SyncError.remote(.statement(e))
            case .success(.execute(let r)) where i == 6:
                for row in r.rows where row.count >= 2 { if let k = row[0].text, let v = row[1].text { meta[k] = v } }
            case .success(.execute(let r)) where i == 7:
                let nameIndex = r.columns.firstIndex(of: "name") ?? 1
                existing = Set(r.rows.compactMap { $0.indices.contains(nameIndex) ? $0[nameIndex].text?.lowercased() : nil })
            default: break
            }
        }
        if let v = meta["schema_version"].flatMap(Int.init), v > Self.schemaVersion { throw SyncError.newerRemoteSchema(v) }
        guard let id = meta["database_id"], !id.isEmpty else { throw SyncError.unreadable("no database id") }
        let missing = Self.rowColumns.filter { !existing.contains($0.0) }
        if !missing.isEmpty {
            let alters = missing.map { c in
                HranaRequest.execute(HranaStatement("ALTER TABLE \(Self.rows) ADD COLUMN \(c.0) \(c.1.split(separator: " ").first ?? "TEXT")", wantRows: false))
            }
            for outcome in (try? await client.pipeline(alters)) ?? [] {
                if case .failure(let e) = outcome, !e.message.lowercased().contains("duplicate column") { throw SyncError.remote(.statement(e)) }
            }
        }
        return id
    }

    // MARK: - Push

    /// A step that fails (malformed JSON) when the remote schema is newer than this ofj's, so a
    /// batch racing an upgrade rolls back instead of writing past it; otherwise it returns the
    /// database id (a different id means the database was replaced).
    static var schemaGuard: HranaStatement {
        HranaStatement("""
            SELECT CASE WHEN CAST(value AS INTEGER) > \(schemaVersion) THEN json('newer ofj schema')
                ELSE (SELECT value FROM \(meta) WHERE key = 'database_id') END FROM \(meta) WHERE key = 'schema_version'
            """)
    }

    /// One statement writes a whole batch (a JSON array of `[kind, id, "hlc", device, deleted,
    /// payload]`, the stamp as text so no JSON number rounds it): a newer stamp replaces the stored version and gets a new position, an equal or
    /// older one changes nothing. Positions are `max(pos)` + 1 + the row's index, increasing in
    /// commit order because the batch runs inside `BEGIN IMMEDIATE`.
    static func upsert(_ records: [SyncRecord], pushedAt: String) -> HranaStatement {
        let array = JSONValue.array(records.map { r in
            [.string(r.kind), .string(r.id), .string(String(r.stamp.hlc)), .string(r.stamp.device), .number(r.deleted ? 1 : 0),
             r.payload.map { .string($0) } ?? .null]
        })
        return HranaStatement("""
            INSERT INTO \(rows) (kind, id, pos, hlc, device, deleted, payload, pushed_at)
            SELECT json_extract(j.value, '$[0]'), json_extract(j.value, '$[1]'), (SELECT coalesce(max(pos), 0) FROM \(rows)) + 1 + j.key,
                CAST(json_extract(j.value, '$[2]') AS INTEGER), json_extract(j.value, '$[3]'), json_extract(j.value, '$[4]'), json_extract(j.value, '$[5]'), ?
            FROM json_each(?) AS j WHERE true
            ON CONFLICT (kind, id) DO UPDATE SET pos = excluded.pos, hlc = excluded.hlc, device = excluded.device,
                deleted = excluded.deleted, payload = excluded.payload, pushed_at = excluded.pushed_at
            WHERE (excluded.hlc, excluded.device) > (\(rows).hlc, \(rows).device)
            """, [.text(pushedAt), .text(array.serialized)], wantRows: false)
    }

    public struct PushResult: Sendable {
        public var databaseID: String?
        public var winners: [String: SyncStamp]
        public var positionBefore: Int64
        public var positionAfter: Int64
    }

    /// Writes a batch in one guarded transaction: newer stamps replace older ones, an equal
    /// stamp (a batch sent again) changes nothing. Returns the remote's version of every record.
    public func push(_ records: [SyncRecord], device: String, appVersion: String, now: Date = Date()) async throws -> PushResult {
        let pushedAt = ISO8601DateFormatter().string(from: now)
        var statements = [Self.schemaGuard, HranaStatement("SELECT coalesce(max(pos), 0) FROM \(Self.rows)")]
        statements.append(Self.upsert(records, pushedAt: pushedAt))
        let pairs = Array(repeating: "(?, ?)", count: records.count).joined(separator: ", ")
        // A join on the primary key (`(kind, id) IN (VALUES …)` scans the whole table in SQLite 3.40).
        statements.append(HranaStatement("SELECT r.kind, r.id, r.hlc, r.device FROM (VALUES \(pairs)) AS v CROSS JOIN \(Self.rows) r ON r.kind = v.column1 AND r.id = v.column2",
                                         records.flatMap { [HranaValue.text($0.kind), .text($0.id)] }))
        statements.append(HranaStatement("SELECT coalesce(max(pos), 0) FROM \(Self.rows)"))
        statements.append(HranaStatement("""
            INSERT INTO \(Self.devices) (device, seen_at, app_version) VALUES (?, ?, ?)
            ON CONFLICT (device) DO UPDATE SET seen_at = excluded.seen_at, app_version = excluded.app_version
            """, [.text(device), .text(pushedAt), .text(appVersion)], wantRows: false))
        let results: [HranaStatementResult]
        do { results = try await client.transaction(statements) } catch let e as HranaError {
            if case .statement(let s) = e, s.message.lowercased().contains("malformed json") { throw SyncError.newerRemoteSchema(Self.schemaVersion + 1) }
            throw SyncError.remote(e)
        }
        guard results.count == statements.count else { throw SyncError.unreadable("wrong number of results") }
        var winners: [String: SyncStamp] = [:]
        for row in results[statements.count - 3].rows where row.count >= 4 {
            // Only an exact integer stamp confirms a record (a REAL or text is never read as a number).
            guard let kind = row[0].text, let id = row[1].text, case .integer(let hlc) = row[2], let dev = row[3].text else { continue }
            winners[kind + "\u{1F}" + id] = SyncStamp(hlc: hlc, device: dev)
        }
        return PushResult(databaseID: results[0].rows.first?.first?.text, winners: winners, positionBefore: results[1].rows.first?.first?.integer ?? -1,
                          positionAfter: results[statements.count - 2].rows.first?.first?.integer ?? -1)
    }

    // MARK: - Pull

    public struct PullPage: Sendable {
        public var databaseID: String?
        public var rows: [RemoteRow]
        /// Payload bytes the page carried.
        public var bytes: Int { rows.reduce(0) { $0 + ($1.record.payload?.utf8.count ?? 0) + 100 } }
    }

    /// The kinds a pull leaves out: the conversation's while `sync.threads` is off (SQL list).
    static func excludedKinds(threads: Bool) -> String {
        threads ? "''" : SyncedKind.all.filter(\.isThread).map { "'\($0.kind)'" }.joined(separator: ", ")
    }

    /// The pull's SELECT: a payload larger than `rowBytes` is not sent (its size is, column 7),
    /// so one row can never make an answer too large for an honest server.
    static func pullStatement(after position: Int64, limit: Int, rowBytes: Int, threads: Bool, metadataOnly: Bool = false) -> HranaStatement {
        let payload = metadataOnly ? "NULL" : "CASE WHEN length(CAST(payload AS BLOB)) > ? THEN NULL ELSE payload END"
        let args: [HranaValue] = (metadataOnly ? [] : [.integer(Int64(rowBytes))]) + [.integer(position), .integer(Int64(limit))]
        return HranaStatement("""
            SELECT pos, kind, id, hlc, device, deleted, \(payload), length(CAST(payload AS BLOB)) FROM \(rows)
            WHERE pos > ? AND kind NOT IN (\(excludedKinds(threads: threads))) ORDER BY pos LIMIT ?
            """, args)
    }

    /// One page of rows after `position`, in position order, read through `/v3/cursor`. The same
    /// batch records that this device has applied everything up to `position` (for tombstone expiry).
    /// Thread kinds are left out while `threads` is off; a payload over `rowBytes` comes without its text.
    public func pull(after position: Int64, limit: Int, rowBytes: Int = 5 << 20, threads: Bool = true, device: String, appVersion: String,
                     now: Date = Date()) async throws -> PullPage {
        let seen = ISO8601DateFormatter().string(from: now)
        let steps = [
            HranaBatchStep(Self.schemaGuard),
            HranaBatchStep(Self.pullStatement(after: position, limit: limit, rowBytes: rowBytes, threads: threads), condition: .ok(0)),
            HranaBatchStep(HranaStatement("""
                INSERT INTO \(Self.devices) (device, pulled_pos, seen_at, app_version) VALUES (?, ?, ?, ?)
                ON CONFLICT (device) DO UPDATE SET pulled_pos = max(pulled_pos, excluded.pulled_pos), seen_at = excluded.seen_at,
                    app_version = excluded.app_version
                """, [.text(device), .integer(position), .text(seen), .text(appVersion)], wantRows: false), condition: .ok(1)),
        ]
        let result: HranaBatchResult
        do { result = try await client.cursor(steps) } catch let e as HranaError { throw SyncError.remote(e) }
        if let guardError = result.stepErrors.first.flatMap({ $0 }) {
            if guardError.message.lowercased().contains("malformed json") { throw SyncError.newerRemoteSchema(Self.schemaVersion + 1) }
            throw SyncError.remote(.statement(guardError))
        }
        guard result.stepResults.count == 3, let page = result.stepResults[1] else {
            if let e = result.stepErrors.compactMap({ $0 }).first { throw SyncError.remote(.statement(e)) }
            throw SyncError.unreadable("no rows")
        }
        return PullPage(databaseID: result.stepResults[0]?.rows.first?.first?.text,
                        rows: try Self.remoteRows(page.rows, after: position, rowBytes: rowBytes))
    }

    /// Rows in position order after `position`. A row without an integer position, or at or
    /// before the one before it (a cursor that does not advance), makes the page untrusted.
    static func remoteRows(_ rows: [[HranaValue]], after position: Int64, rowBytes: Int) throws -> [RemoteRow] {
        var out: [RemoteRow] = []
        var last = position
        for row in rows {
            guard row.count >= 7, case .integer(let pos) = row[0] else { throw SyncError.unreadable("a row without a position") }
            guard pos > last else {
                throw SyncError.unreadable("rows at or before position \(last) again, a cursor that does not advance; the pull stopped")
            }
            last = pos
            var r = Self.remoteRow(position: pos, row)
            if row.count >= 8, case .integer(let size) = row[7], size > rowBytes, r.problem == nil || r.record.payload == "" {
                r.problem = "its payload is \(size) bytes, more than the \(rowBytes) one row may have"
                r.payloadBytes = Int(clamping: size)
                r.record.payload = nil
            }
            out.append(r)
        }
        return out
    }

    /// The first row after `position` without its payload: for a row too large to read at all
    /// (a server that sends it whatever its size), so it can be quarantined instead of wedging the pull.
    public func rowMetadata(after position: Int64, threads: Bool) async throws -> RemoteRow? {
        let result: HranaBatchResult
        do {
            result = try await client.cursor([HranaBatchStep(Self.schemaGuard),
                                              HranaBatchStep(Self.pullStatement(after: position, limit: 1, rowBytes: 0, threads: threads,
                                                                                metadataOnly: true), condition: .ok(0))])
        } catch let e as HranaError { throw SyncError.remote(e) }
        if let e = result.stepErrors.compactMap({ $0 }).first { throw SyncError.remote(.statement(e)) }
        guard result.stepResults.count == 2, let page = result.stepResults[1] else { throw SyncError.unreadable("no rows") }
        return try Self.remoteRows(page.rows, after: position, rowBytes: 0).first
    }

    /// Records how far this device has pulled, and removes tombstones older than 90 days that
    /// every known device has pulled past (at most daily).
    public func recordPulled(device: String, position: Int64, appVersion: String, now: Date = Date()) async throws {
        let seen = ISO8601DateFormatter().string(from: now)
        let cutoff = ISO8601DateFormatter().string(from: now.addingTimeInterval(-Self.tombstoneRetention))
        do {
            _ = try await client.transaction([
                HranaStatement("""
                    INSERT INTO \(Self.devices) (device, pulled_pos, seen_at, app_version) VALUES (?, ?, ?, ?)
                    ON CONFLICT (device) DO UPDATE SET pulled_pos = max(pulled_pos, excluded.pulled_pos), seen_at = excluded.seen_at,
                        app_version = excluded.app_version
                    """, [.text(device), .integer(position), .text(seen), .text(appVersion)], wantRows: false),
                HranaStatement("DELETE FROM \(Self.rows) WHERE deleted = 1 AND pushed_at < ? AND pos <= (SELECT min(pulled_pos) FROM \(Self.devices))",
                               [.text(cutoff)], wantRows: false),
            ])
        } catch let e as HranaError { throw SyncError.remote(e) }
    }

    /// A pulled row as a record, or with the reason it cannot be one: every column must have
    /// its type (an integer stamp, never a number read as 0, text kind, id, device and payload).
    static func remoteRow(position: Int64, _ row: [HranaValue]) -> RemoteRow {
        let kind = row[1].text, id = row[2].text, device = row[4].text
        var problem: String?
        var stamp: Int64 = 0
        var raw: String?
        if case .integer(let v) = row[3] { stamp = v } else {
            problem = "its stamp is not an integer"
            raw = String(describing: row[3]).prefix(40).description
        }
        if kind == nil || id == nil || device == nil { problem = problem ?? "its kind, id or device is not text" }
        var deleted = false
        switch row[5] {
        case .integer(0): deleted = false
        case .integer(1): deleted = true
        default: problem = problem ?? "its deleted flag is not 0 or 1"
        }
        let payload: String?
        if deleted { payload = nil } else if let text = row[6].text { payload = text } else {
            payload = ""
            problem = problem ?? "its payload is not text"
        }
        return RemoteRow(position: position, record: SyncRecord(kind: kind ?? "", id: id ?? "", stamp: SyncStamp(hlc: stamp, device: device ?? ""),
                                                                payload: payload),
                         problem: problem, payloadBytes: payload?.utf8.count ?? 0, rawStamp: raw)
    }
}
