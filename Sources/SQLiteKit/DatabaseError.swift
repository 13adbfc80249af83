// Errors from SQLite. The description never shows bound arguments: they may be health data.
import CSQLite

public struct DatabaseError: Error, CustomStringConvertible, Sendable {
    /// The primary SQLite result code (SQLITE_BUSY, SQLITE_CONSTRAINT, ...).
    public let code: Int32
    /// The extended result code when SQLite gave one.
    public let extendedCode: Int32
    public let message: String
    public let sql: String?
    /// Kept for `expandedDescription` only, never for `description`.
    let arguments: [DatabaseValue]
    /// The authorizer refused the statement (`message` says what; see `Database.confine`).
    public let isRefusal: Bool

    public init(code: Int32, extendedCode: Int32? = nil, message: String, sql: String? = nil, arguments: [DatabaseValue] = [],
                isRefusal: Bool = false) {
        self.isRefusal = isRefusal
        self.code = code & 0xff
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.sql = sql
        self.arguments = arguments
    }

    public var description: String {
        // What a person sees when another process held the write lock past the busy timeout.
        if isBusy { return "the database is locked by another ofj process; close it or try again in a moment" }
        if isDamaged { return Self.damagedLine }
        var s = "SQLite error \(code): \(message)"
        if let sql { s += " - while executing `\(sql)`" }
        return s
    }

    /// For local debugging only: includes the bound arguments.
    public var expandedDescription: String {
        "SQLite error \(code): \(message)" + (sql.map { " - while executing `\($0)`" } ?? "") + (arguments.isEmpty ? "" : " with arguments \(arguments)")
    }

    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
    public var isConstraint: Bool { code == SQLITE_CONSTRAINT }
    /// The file is damaged (SQLITE_CORRUPT, SQLITE_NOTADB): reads may still work, writes must not.
    public var isDamaged: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }

    /// What a person sees for a damaged file: what happened and what to do, in one line.
    public static let damagedLine = "the database file is damaged, so ofj will not write to it (what is undamaged can still be read): "
        + "save what can be read with `ofj backup export --salvage -o rescue.json`, move the file aside, then `ofj backup import rescue.json`"

    /// The error a queue refuses writes with once its file was found damaged.
    public static func damaged(_ detail: String) -> DatabaseError { DatabaseError(code: SQLITE_CORRUPT, message: detail) }
}
