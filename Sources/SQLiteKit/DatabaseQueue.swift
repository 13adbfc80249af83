// Serialises access to one connection so that it can be shared between tasks.
import Foundation

public final class DatabaseQueue: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    private let database: Database
    public let path: String
    // Guarded by `lock`: when set, `write` throws it instead of writing.
    private var writesRefusedBy: DatabaseError?
    // Guarded by `lock`.
    private var damageHandler: (@Sendable (DatabaseError) -> Void)?

    public init(path: String, options: Database.Options = Database.Options()) throws {
        self.database = try Database(path: path, options: options)
        self.path = path
    }

    /// An in-memory database (tests, scratch work).
    public static func inMemory() throws -> DatabaseQueue { try DatabaseQueue(path: ":memory:") }

    /// Runs `body` with exclusive use of the connection, read-only: for its duration the
    /// connection is `PRAGMA query_only`, so SQLite refuses every write made through it (INSERT,
    /// CREATE TEMP TABLE, BEGIN IMMEDIATE, PRAGMA user_version = …) with "attempt to write a
    /// readonly database". Writes go through `write`; migrations, TEMP tables and autocommit
    /// writes through `unrestricted`.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        lock.lock(); defer { lock.unlock() }
        try database.execute(batch: "PRAGMA query_only = ON")
        // Writable again after the read unless writes are refused (then query_only stays, as
        // `refuseWrites` set it). If switching back failed, writes fail loudly; nothing is lost.
        defer { if writesRefusedBy == nil { try? database.execute(batch: "PRAGMA query_only = OFF") } }
        do {
            return try body(database)
        } catch let e as DatabaseError where e.isDamaged {
            noteDamage(e)
            throw e
        }
    }

    /// Runs `body` with exclusive use of the connection, writes allowed and no transaction around
    /// it (each statement commits on its own, or `body` opens its own): migrations (`migrate`),
    /// TEMP tables, connection settings, and the few autocommit writes on a hot path where a
    /// transaction per call would cost more than the write. A connection whose writes are refused
    /// (damage, `refuseWrites`) stays query-only here too.
    public func unrestricted<T>(_ body: (Database) throws -> T) throws -> T {
        lock.lock(); defer { lock.unlock() }
        do {
            return try body(database)
        } catch let e as DatabaseError where e.isDamaged {
            noteDamage(e)
            throw e
        }
    }

    /// Applies `migrator`'s pending migrations (each in its own transaction).
    public func migrate(_ migrator: Migrator) throws {
        try unrestricted { try migrator.migrate($0) }
    }

    /// Runs `body` inside an immediate transaction with exclusive use of the connection.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        lock.lock(); defer { lock.unlock() }
        if let refused = writesRefusedBy { throw refused }
        do {
            return try database.transaction(.immediate, body)
        } catch let e as DatabaseError where e.isDamaged {
            noteDamage(e)
            throw e
        }
    }

    /// SQLite met a damaged page: no more writes through this queue (they could spread the
    /// damage). Called with `lock` held.
    private func noteDamage(_ error: DatabaseError) {
        guard writesRefusedBy == nil else { return }
        writesRefusedBy = error
        damageHandler?(error)
        // Best effort: `write` refuses already; query_only also stops writes made through `unrestricted`.
        try? database.execute(batch: "PRAGMA query_only = ON")
    }

    /// From now on every `write` throws `error` and the connection is query-only (so a write
    /// through `unrestricted` fails too); reads keep working. For a file found damaged: writing to it
    /// could spread the damage.
    public func refuseWrites(_ error: DatabaseError) throws {
        lock.lock(); defer { lock.unlock() }
        writesRefusedBy = error
        try database.execute(batch: "PRAGMA query_only = ON")
    }

    /// Called once (with the lock held: it must not use the queue) when SQLite first reports a
    /// damaged page through this queue.
    public func onDamage(_ handler: @escaping @Sendable (DatabaseError) -> Void) {
        lock.lock(); defer { lock.unlock() }
        damageHandler = handler
    }

    /// The error `write` throws, when writes are refused.
    public var writesRefused: DatabaseError? {
        lock.lock(); defer { lock.unlock() }
        return writesRefusedBy
    }
}
