// Serialises access to one connection so that it can be shared between tasks.
import Foundation

public final class DatabaseQueue: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    private let database: Database
    public let path: String
    // Guarded by `lock`: when set, `write` throws it instead of writing.
    private var writesRefusedBy: DatabaseError?

    public init(path: String, options: Database.Options = Database.Options()) throws {
        self.database = try Database(path: path, options: options)
        self.path = path
    }

    /// An in-memory database (tests, scratch work).
    public static func inMemory() throws -> DatabaseQueue { try DatabaseQueue(path: ":memory:") }

    /// Runs `body` with exclusive use of the connection.
    public func read<T>(_ body: (Database) throws -> T) rethrows -> T {
        lock.lock(); defer { lock.unlock() }
        return try body(database)
    }

    /// Runs `body` inside an immediate transaction with exclusive use of the connection.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        lock.lock(); defer { lock.unlock() }
        if let refused = writesRefusedBy { throw refused }
        return try database.transaction(.immediate, body)
    }

    /// From now on every `write` throws `error` and the connection is query-only (so a write
    /// through `read` fails too); reads keep working. For a file found damaged: writing to it
    /// could spread the damage.
    public func refuseWrites(_ error: DatabaseError) throws {
        lock.lock(); defer { lock.unlock() }
        writesRefusedBy = error
        try database.execute(batch: "PRAGMA query_only = ON")
    }

    /// The error `write` throws, when writes are refused.
    public var writesRefused: DatabaseError? {
        lock.lock(); defer { lock.unlock() }
        return writesRefusedBy
    }
}
