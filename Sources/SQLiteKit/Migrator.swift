// Applies named schema migrations once each, in order, each in its own immediate transaction.
public struct Migrator: Sendable {
    public struct Migration: Sendable {
        public let identifier: String
        public let migrate: @Sendable (Database) throws -> Void
    }

    public private(set) var migrations: [Migration] = []

    public init() {}

    public mutating func register(_ identifier: String, _ migrate: @escaping @Sendable (Database) throws -> Void) {
        precondition(!migrations.contains { $0.identifier == identifier }, "duplicate migration \(identifier)")
        migrations.append(Migration(identifier: identifier, migrate: migrate))
    }

    /// Registers a migration that runs a batch of SQL.
    public mutating func register(_ identifier: String, sql: String) {
        register(identifier) { try $0.execute(batch: sql) }
    }

    public enum MigrationError: Error, CustomStringConvertible {
        case newerSchema(unknown: [String])
        case foreignKeyViolation(String)
        public var description: String {
            switch self {
            case .newerSchema:
                return "this database was written by a newer version of ofj; upgrade ofj to open it"
            case .foreignKeyViolation(let id):
                return "migration \(id) left foreign key violations"
            }
        }
    }

    /// Identifiers already applied to `db`.
    public func appliedIdentifiers(_ db: Database) throws -> [String] {
        try db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (identifier TEXT PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))")
        return try db.rows("SELECT identifier FROM schema_migrations ORDER BY rowid").compactMap { $0[0].string }
    }

    /// Applies pending migrations. Refuses a database that has migrations this build does not know.
    public func migrate(_ db: Database) throws {
        let applied = try appliedIdentifiers(db)
        let known = Set(migrations.map(\.identifier))
        let unknown = applied.filter { !known.contains($0) }
        if !unknown.isEmpty { throw MigrationError.newerSchema(unknown: unknown) }
        let done = Set(applied)
        for migration in migrations where !done.contains(migration.identifier) {
            try db.transaction(.immediate) { db in
                // Another process may have applied it while this one waited for the write lock
                // (two ofj starting at once on a new database).
                if try db.row("SELECT 1 FROM schema_migrations WHERE identifier = ?", [migration.identifier]) != nil { return }
                try migration.migrate(db)
                if try db.row("PRAGMA foreign_key_check") != nil {
                    throw MigrationError.foreignKeyViolation(migration.identifier)
                }
                try db.execute("INSERT INTO schema_migrations (identifier) VALUES (?)", [migration.identifier])
            }
        }
    }
}
