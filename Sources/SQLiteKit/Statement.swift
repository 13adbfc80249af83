// A prepared statement: owns its sqlite3_stmt and finalizes it on deinit. Not Sendable.
import CSQLite

public final class Statement {
    let handle: OpaquePointer
    public let sql: String
    private let dbHandle: OpaquePointer
    private let counter: StatementCounter
    private let refusals: RefusalNote
    private var boundArguments: [DatabaseValue] = []

    init(database: Database, sql: String) throws {
        self.dbHandle = database.handle
        self.counter = database.counter
        self.refusals = database.refusals
        self.sql = sql
        var stmt: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let rc = sql.withCString { sqlite3_prepare_v2(database.handle, $0, -1, &stmt, &tail) }
        guard rc == SQLITE_OK, let stmt else {
            throw database.error(code: rc, sql: sql)
        }
        if let tail, tail.pointee != 0, !String(cString: tail).allSatisfy({ $0.isWhitespace || $0 == ";" }) {
            sqlite3_finalize(stmt)
            throw DatabaseError(code: SQLITE_MISUSE, message: "several statements in one prepare; use execute(batch:)", sql: sql)
        }
        self.handle = stmt
        counter.value += 1
    }

    deinit {
        sqlite3_finalize(handle)
        counter.value -= 1
    }

    /// Whether running the statement leaves the database unchanged (sqlite3_stmt_readonly).
    public var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    public var columnCount: Int { Int(sqlite3_column_count(handle)) }
    public func columnName(_ index: Int) -> String { String(cString: sqlite3_column_name(handle, Int32(index))) }

    /// Resets the statement and binds positional arguments (1-based in SQL, 0-based here).
    public func bind(_ arguments: [DatabaseValueConvertible]) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        let values = arguments.map(\.databaseValue)
        guard values.count == Int(sqlite3_bind_parameter_count(handle)) else {
            throw DatabaseError(code: SQLITE_RANGE, message: "expected \(sqlite3_bind_parameter_count(handle)) arguments, got \(values.count)", sql: sql)
        }
        boundArguments = values
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
            case .real(let v): rc = sqlite3_bind_double(handle, index, v)
            case .text(let s): rc = sqlite3_bind_text(handle, index, s, -1, csqlite_transient())
            case .blob(let b):
                rc = b.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), csqlite_transient()) }
            }
            guard rc == SQLITE_OK else { throw Database.error(dbHandle, code: rc, sql: sql, arguments: values, refusals: refusals) }
        }
    }

    /// Steps once: true when a row is available.
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let err = Database.error(dbHandle, code: rc, sql: sql, arguments: boundArguments, refusals: refusals)
            sqlite3_reset(handle)
            throw err
        }
    }

    public func reset() { sqlite3_reset(handle) }

    public func value(at index: Int) -> DatabaseValue {
        let i = Int32(index)
        switch sqlite3_column_type(handle, i) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, i))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, i))
        case SQLITE_TEXT:
            guard let p = sqlite3_column_text(handle, i) else { return .text("") }
            let n = Int(sqlite3_column_bytes(handle, i))
            return .text(String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self))
        case SQLITE_BLOB:
            let n = Int(sqlite3_column_bytes(handle, i))
            guard n > 0, let p = sqlite3_column_blob(handle, i) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: p, count: n)))
        default: return .null
        }
    }

    /// The current row as values.
    public func row() -> Row {
        Row(values: (0..<columnCount).map { value(at: $0) }, columns: columnNames)
    }

    private lazy var columnNames: [String] = (0..<columnCount).map { columnName($0) }
}

/// One result row, addressable by index or column name.
public struct Row: Sendable {
    public let values: [DatabaseValue]
    public let columns: [String]
    public subscript(_ index: Int) -> DatabaseValue { values[index] }
    public subscript(_ name: String) -> DatabaseValue {
        guard let i = columns.firstIndex(of: name) else { return .null }
        return values[i]
    }
}
