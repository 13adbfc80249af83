// One SQLite connection. Not Sendable: share it through a DatabaseQueue.
import CSQLite
import Foundation

public final class Database {
    let handle: OpaquePointer
    public let path: String
    let counter = StatementCounter()
    /// Why the authorizer refused the last statement (shared with statements, like `counter`).
    let refusals = RefusalNote()
    /// Keeps the authorizer installed with `setAuthorizer` alive for SQLite's callback.
    var authorizerBox: AuthorizerBox?
    private var statementCache: [String: Statement] = [:]

    /// Number of prepared statements not yet finalized, cached ones included (tests check it).
    public var unfinalizedStatementCount: Int { counter.value }

    public struct Options: Sendable {
        public var readOnly = false
        public var busyTimeoutMilliseconds: Int32 = 5_000
        public var walMode = true
        /// Read-only, and promising SQLite that nobody changes the file meanwhile: no locks and
        /// no -shm, so a WAL database in a folder the user cannot write can still be read.
        public var immutable = false
        public init(readOnly: Bool = false, busyTimeoutMilliseconds: Int32 = 5_000, walMode: Bool = true, immutable: Bool = false) {
            self.readOnly = readOnly || immutable
            self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
            self.walMode = walMode
            self.immutable = immutable
        }
    }

    /// Opens (creating unless read-only) the database at `path`; ":memory:" for an in-memory one.
    public init(path: String, options: Options = Options()) throws {
        var db: OpaquePointer?
        var flags = (options.readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE))
            | SQLITE_OPEN_NOMUTEX
        var name = path
        if options.immutable {
            flags |= SQLITE_OPEN_URI
            let escaped = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#%"))) ?? path
            name = "file:\(escaped)?immutable=1"
        }
        let rc = sqlite3_open_v2(name, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open database"
            if let db { sqlite3_close_v2(db) }
            throw DatabaseError(code: rc, message: message)
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, options.busyTimeoutMilliseconds)
        do {
            // Touch the schema first so that a file that is not SQLite fails here with SQLITE_NOTADB.
            try execute("PRAGMA schema_version")
            try execute("PRAGMA foreign_keys = ON")
            if !options.readOnly && options.walMode && path != ":memory:" && !path.isEmpty {
                try setWALMode(timeoutMilliseconds: options.busyTimeoutMilliseconds)
            }
            try execute("PRAGMA synchronous = NORMAL")
        } catch {
            statementCache.removeAll()
            sqlite3_close_v2(db)
            throw error
        }
    }

    deinit {
        statementCache.removeAll()
        sqlite3_set_authorizer(handle, nil, nil)
        sqlite3_close_v2(handle)
    }

    /// `PRAGMA journal_mode = WAL` needs the exclusive lock. When several processes open a new
    /// database at once, two can each hold the shared lock while wanting the exclusive one; SQLite
    /// then answers SQLITE_BUSY at once instead of calling the busy handler (waiting would
    /// deadlock), so the busy timeout does not cover it. Retry for as long as it would have; the
    /// other process finishes the switch in milliseconds and this one then finds WAL already set.
    private func setWALMode(timeoutMilliseconds: Int32) throws {
        var waited: Int32 = 0
        var pause: Int32 = 1
        while true {
            do {
                try execute("PRAGMA journal_mode = WAL")
                return
            } catch let e as DatabaseError where e.isBusy && waited < timeoutMilliseconds {
                sqlite3_sleep(pause)
                waited += pause
                pause = min(pause * 2, 50)
            }
        }
    }

    func error(code: Int32, sql: String? = nil, arguments: [DatabaseValue] = []) -> DatabaseError {
        Database.error(handle, code: code, sql: sql, arguments: arguments, refusals: refusals)
    }

    static func error(_ handle: OpaquePointer, code: Int32, sql: String? = nil, arguments: [DatabaseValue] = [],
                      refusals: RefusalNote? = nil) -> DatabaseError {
        // A refusal by the authorizer says what was refused instead of SQLite's "not authorized".
        let refusal = refusals?.take()
        let message = refusal ?? String(cString: sqlite3_errmsg(handle))
        let extended = sqlite3_extended_errcode(handle)
        return DatabaseError(code: code, extendedCode: extended, message: message, sql: sql, arguments: arguments, isRefusal: refusal != nil)
    }

    // MARK: - Statements

    /// Prepares a new statement (finalized when released).
    public func prepare(_ sql: String) throws -> Statement { try Statement(database: self, sql: sql) }

    /// A cached statement for hot queries; reset before reuse.
    public func cachedStatement(_ sql: String) throws -> Statement {
        if let s = statementCache[sql] { s.reset(); return s }
        let s = try prepare(sql)
        statementCache[sql] = s
        return s
    }

    /// Drops cached statements (they are finalized).
    public func clearStatementCache() { statementCache.removeAll() }

    /// Runs one statement with arguments, discarding rows.
    public func execute(_ sql: String, _ arguments: [DatabaseValueConvertible] = []) throws {
        let s = try cachedStatement(sql)
        try s.bind(arguments)
        while try s.step() {}
        s.reset()
    }

    /// Runs several semicolon-separated statements without arguments (migrations, schema).
    public func execute(batch sql: String) throws {
        var errmsg: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errmsg)
        if rc != SQLITE_OK {
            let refusal = refusals.take()
            let message = refusal ?? errmsg.map { String(cString: $0) } ?? "error"
            sqlite3_free(errmsg)
            throw DatabaseError(code: rc, extendedCode: sqlite3_extended_errcode(handle), message: message, sql: sql, isRefusal: refusal != nil)
        }
    }

    /// All rows of a query.
    public func rows(_ sql: String, _ arguments: [DatabaseValueConvertible] = []) throws -> [Row] {
        let s = try cachedStatement(sql)
        try s.bind(arguments)
        var out: [Row] = []
        while try s.step() { out.append(s.row()) }
        s.reset()
        return out
    }

    /// Calls `body` for each row without materialising them all.
    public func forEachRow(_ sql: String, _ arguments: [DatabaseValueConvertible] = [], _ body: (Statement) throws -> Void) throws {
        let s = try cachedStatement(sql)
        try s.bind(arguments)
        defer { s.reset() }
        while try s.step() { try body(s) }
    }

    /// The first row, if any.
    public func row(_ sql: String, _ arguments: [DatabaseValueConvertible] = []) throws -> Row? {
        let s = try cachedStatement(sql)
        try s.bind(arguments)
        defer { s.reset() }
        return try s.step() ? s.row() : nil
    }

    /// The first column of the first row.
    public func scalar(_ sql: String, _ arguments: [DatabaseValueConvertible] = []) throws -> DatabaseValue {
        try row(sql, arguments)?[0] ?? .null
    }

    public var changes: Int { Int(sqlite3_changes(handle)) }
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    // MARK: - Transactions

    public enum TransactionKind: String, Sendable { case deferred = "DEFERRED", immediate = "IMMEDIATE", exclusive = "EXCLUSIVE" }

    /// Runs `body` in a transaction (IMMEDIATE by default); commits on success, rolls back and
    /// rethrows the first error otherwise. Nested calls use savepoints.
    public func transaction<T>(_ kind: TransactionKind = .immediate, _ body: (Database) throws -> T) throws -> T {
        if isInTransaction {
            let name = "sp\(savepointCounter)"
            savepointCounter += 1
            defer { savepointCounter -= 1 }
            try execute(batch: "SAVEPOINT \(name)")
            do {
                let result = try body(self)
                try execute(batch: "RELEASE SAVEPOINT \(name)")
                return result
            } catch {
                try? execute(batch: "ROLLBACK TO SAVEPOINT \(name); RELEASE SAVEPOINT \(name)")
                throw error
            }
        }
        try execute(batch: "BEGIN \(kind.rawValue) TRANSACTION")
        transactionSerial &+= 1
        transactionScratch.removeAll()
        do {
            let result = try body(self)
            try execute(batch: "COMMIT")
            return result
        } catch {
            // The first error is what the caller sees; a failed rollback leaves nothing to add.
            if isInTransaction { try? execute(batch: "ROLLBACK") }
            throw error
        }
    }
    private var savepointCounter = 0

    /// Counts outermost transactions begun through `transaction`: code that must group what one
    /// transaction does (the journal's undo log) compares it with the serial it saw last.
    public private(set) var transactionSerial: UInt64 = 0
    /// Values that live for one outermost transaction (cleared when the next one begins).
    public var transactionScratch: [String: Int64] = [:]

    /// `PRAGMA integrity_check` result lines ("ok" when healthy).
    public func integrityCheck() throws -> [String] {
        try rows("PRAGMA integrity_check").compactMap { $0[0].string }
    }

    /// `PRAGMA quick_check` result lines (["ok"] when healthy): every b-tree page is readable and
    /// well formed (no index-to-table cross-check, so it is much faster than integrity_check).
    /// A file too damaged to check at all throws (SQLITE_CORRUPT / SQLITE_NOTADB).
    public func quickCheck() throws -> [String] {
        try rows("PRAGMA quick_check").compactMap { $0[0].string }
    }
}

/// Counts live statements of one connection (shared with them, so it outlives the Database).
final class StatementCounter {
    var value = 0
}
