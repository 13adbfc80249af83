// The remote table ofj_ai_diagnostic_events: additive schema migration, idempotent inserts, expiry, paging.
import Hrana

/// The sink table in a Turso (or compatible) database.
public struct TursoSink: Sendable {
    public static let table = "ofj_ai_diagnostic_events"
    /// Rows live 14 days after their event.
    public static let retention: Double = 14 * 86_400

    public let client: HranaClient

    public init(client: HranaClient) {
        self.client = client
    }

    /// Every column with its SQL type. `id`, `occurred_at` and `expires_at` come first and make
    /// up the oldest table shape; anything later is added with ALTER TABLE when missing.
    public static let columnTypes: [(name: String, type: String)] = [
        ("id", "TEXT PRIMARY KEY NOT NULL"), ("occurred_at", "TEXT NOT NULL"), ("expires_at", "TEXT NOT NULL"),
        ("run_id", "TEXT"), ("thread_id", "TEXT"), ("turn", "INTEGER"), ("call_id", "TEXT"),
        ("provider_request_id", "TEXT"), ("provider", "TEXT"), ("model", "TEXT"),
        ("operation", "TEXT"), ("status", "TEXT"), ("error_class", "TEXT"), ("error_code", "TEXT"),
        ("error_message", "TEXT"), ("http_status", "INTEGER"), ("started_at", "TEXT"),
        ("first_event_ms", "REAL"), ("total_ms", "REAL"), ("input_tokens", "INTEGER"),
        ("cached_input_tokens", "INTEGER"), ("output_tokens", "INTEGER"), ("reasoning_tokens", "INTEGER"),
        ("cost_usd", "REAL"), ("retry_count", "INTEGER"), ("tool_name", "TEXT"), ("result_count", "INTEGER"),
        ("size_bytes", "INTEGER"), ("app_version", "TEXT"), ("credits", "REAL"),
        ("attachment_count", "INTEGER"), ("attachment_bytes", "INTEGER"), ("attachment_types", "TEXT"),
    ]

    /// Column order of exports.
    public static var exportColumns: [String] { columnTypes.map(\.name) }

    // MARK: - Schema

    /// Creates the table when missing and adds columns an older table lacks. Safe to run
    /// concurrently from several machines: a duplicate-column error counts as success.
    public func migrate() async throws {
        let create = "CREATE TABLE IF NOT EXISTS \(Self.table) ("
            + Self.columnTypes.map { "\($0.name) \($0.type)" }.joined(separator: ", ") + ")"
        let outcomes = try await client.pipeline([
            .execute(HranaStatement(create, wantRows: false)),
            .execute(HranaStatement("CREATE INDEX IF NOT EXISTS \(Self.table)_occurred ON \(Self.table) (occurred_at, id)", wantRows: false)),
            .execute(HranaStatement("CREATE INDEX IF NOT EXISTS \(Self.table)_expires ON \(Self.table) (expires_at)", wantRows: false)),
            .execute(HranaStatement("PRAGMA table_info(\(Self.table))")),
        ])
        var existing: Set<String> = []
        for (index, outcome) in outcomes.enumerated() {
            switch outcome {
            case .failure(let e):
                // Index creation on an old table without the indexed columns fails; the ALTERs
                // below fix the shape and the next migrate creates the index.
                if index == 1 || index == 2 { continue }
                throw HranaError.statement(e)
            case .success(.execute(let result)) where index == 3:
                let nameIndex = result.columns.firstIndex(of: "name") ?? 1
                existing = Set(result.rows.compactMap { $0.indices.contains(nameIndex) ? $0[nameIndex].text?.lowercased() : nil })
            default: break
            }
        }
        let missing = Self.columnTypes.filter { !existing.contains($0.name) }
        guard !missing.isEmpty else { return }
        let alters = missing.map { column in
            // ADD COLUMN cannot add PRIMARY KEY or NOT NULL without default; added columns are plain.
            let type = column.type.split(separator: " ").first.map(String.init) ?? "TEXT"
            return HranaRequest.execute(HranaStatement("ALTER TABLE \(Self.table) ADD COLUMN \(column.name) \(type)", wantRows: false))
        }
        let indexes: [HranaRequest] = [
            .execute(HranaStatement("CREATE INDEX IF NOT EXISTS \(Self.table)_occurred ON \(Self.table) (occurred_at, id)", wantRows: false)),
            .execute(HranaStatement("CREATE INDEX IF NOT EXISTS \(Self.table)_expires ON \(Self.table) (expires_at)", wantRows: false)),
        ]
        for outcome in try await client.pipeline(alters + indexes) {
            if case .failure(let e) = outcome, !e.message.lowercased().contains("duplicate column") {
                throw HranaError.statement(e)
            }
        }
    }

    // MARK: - Writing

    /// The idempotent insert of one event (exposed for tests).
    public static func insertStatement(_ event: DiagnosticEvent) -> HranaStatement {
        var names: [String] = []
        var values: [HranaValue] = []
        for (name, value) in event.columns {
            names.append(name)
            switch value {
            case .text(let s): values.append(.text(s))
            case .integer(let i): values.append(.integer(Int64(i)))
            case .real(let d): values.append(.float(d))
            case .null: values.append(.null)
            }
        }
        names.append("expires_at")
        values.append(.text(ISOTime.format(event.occurredAt + retention)))
        let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
        return HranaStatement("INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES (\(placeholders)) ON CONFLICT(id) DO NOTHING",
                              values, wantRows: false)
    }

    /// The row `insertStatement` would store for `event`, in `exportColumns` order (for
    /// `ofj diag export --local`, which exports what would be delivered).
    public static func exportRow(_ event: DiagnosticEvent) -> [HranaValue] {
        var byName: [String: HranaValue] = ["expires_at": .text(ISOTime.format(event.occurredAt + retention))]
        for (name, value) in event.columns {
            switch value {
            case .text(let s): byName[name] = .text(s)
            case .integer(let i): byName[name] = .integer(Int64(i))
            case .real(let d): byName[name] = .float(d)
            case .null: byName[name] = .null
            }
        }
        return exportColumns.map { byName[$0] ?? .null }
    }

    /// Inserts events in one guarded transaction; re-delivering an id changes nothing.
    public func insert(_ events: [DiagnosticEvent]) async throws {
        guard !events.isEmpty else { return }
        _ = try await client.transaction(events.map(Self.insertStatement))
    }

    /// Deletes rows past their `expires_at`; returns how many.
    @discardableResult
    public func deleteExpired(now: Double) async throws -> Int {
        try await client.execute(HranaStatement("DELETE FROM \(Self.table) WHERE expires_at < ?",
                                                [.text(ISOTime.format(now))], wantRows: false)).affectedRowCount
    }

    // MARK: - Reading

    /// Which of `ids` the table holds.
    public func existingIDs(_ ids: [String]) async throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        let result = try await client.execute(HranaStatement("SELECT id FROM \(Self.table) WHERE id IN (\(placeholders))",
                                                             ids.map { .text($0) }))
        return Set(result.rows.compactMap { $0.first?.text })
    }

    /// One keyset page of events that occurred at or after `since`, after the `(occurredAt, id)`
    /// cursor, in (occurred_at, id) order.
    public func page(since: Double, after cursor: (occurredAt: String, id: String)?, limit: Int) async throws -> HranaStatementResult {
        let columns = Self.exportColumns.joined(separator: ", ")
        let statement: HranaStatement
        if let cursor {
            statement = HranaStatement(
                "SELECT \(columns) FROM \(Self.table) WHERE occurred_at >= ? AND (occurred_at, id) > (?, ?) ORDER BY occurred_at, id LIMIT ?",
                [.text(ISOTime.format(since)), .text(cursor.occurredAt), .text(cursor.id), .integer(Int64(limit))])
        } else {
            statement = HranaStatement(
                "SELECT \(columns) FROM \(Self.table) WHERE occurred_at >= ? ORDER BY occurred_at, id LIMIT ?",
                [.text(ISOTime.format(since)), .integer(Int64(limit))])
        }
        return try await client.execute(statement)
    }
}
