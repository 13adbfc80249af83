// Serialises access to one connection so that it can be shared between tasks.
import Foundation

public final class DatabaseQueue: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    private let database: Database
    public let path: String

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
        return try database.transaction(.immediate, body)
    }
}
