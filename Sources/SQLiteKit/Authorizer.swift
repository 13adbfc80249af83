// SQLite's authorizer and limits, and a confinement for SQL that comes from outside (a shared
// transcript): it can reach only the connection's own file and cannot touch the file system.
import CSQLite

/// What SQLite is about to compile, as the authorizer sees it (see sqlite3_set_authorizer).
public struct AuthorizationRequest: Sendable, Hashable {
    public enum Action: Sendable, Hashable {
        case createIndex, createTable, createTempIndex, createTempTable, createTempTrigger, createTempView
        case createTrigger, createView, delete, dropIndex, dropTable, dropTempIndex, dropTempTable
        case dropTempTrigger, dropTempView, dropTrigger, dropView, insert, pragma, read, select
        case transaction, update, attach, detach, alterTable, reindex, analyze
        case createVirtualTable, dropVirtualTable, function, savepoint, recursive
        /// A code this build does not name.
        case other(Int32)
    }

    public let action: Action
    /// The action's first and second details: table and column, pragma name and value, the file
    /// of an ATTACH, a function name in `second` (NULL-able, as SQLite passes them).
    public let first: String?
    public let second: String?
    /// The schema ("main", "temp", an attached name) when SQLite gives one.
    public let database: String?
    /// The innermost trigger or view that caused the access, if any.
    public let trigger: String?

    public init(action: Action, first: String? = nil, second: String? = nil, database: String? = nil, trigger: String? = nil) {
        self.action = action
        self.first = first
        self.second = second
        self.database = database
        self.trigger = trigger
    }

    init(code: Int32, first: String?, second: String?, database: String?, trigger: String?) {
        let action: Action
        switch code {
        case SQLITE_CREATE_INDEX: action = .createIndex
        case SQLITE_CREATE_TABLE: action = .createTable
        case SQLITE_CREATE_TEMP_INDEX: action = .createTempIndex
        case SQLITE_CREATE_TEMP_TABLE: action = .createTempTable
        case SQLITE_CREATE_TEMP_TRIGGER: action = .createTempTrigger
        case SQLITE_CREATE_TEMP_VIEW: action = .createTempView
        case SQLITE_CREATE_TRIGGER: action = .createTrigger
        case SQLITE_CREATE_VIEW: action = .createView
        case SQLITE_DELETE: action = .delete
        case SQLITE_DROP_INDEX: action = .dropIndex
        case SQLITE_DROP_TABLE: action = .dropTable
        case SQLITE_DROP_TEMP_INDEX: action = .dropTempIndex
        case SQLITE_DROP_TEMP_TABLE: action = .dropTempTable
        case SQLITE_DROP_TEMP_TRIGGER: action = .dropTempTrigger
        case SQLITE_DROP_TEMP_VIEW: action = .dropTempView
        case SQLITE_DROP_TRIGGER: action = .dropTrigger
        case SQLITE_DROP_VIEW: action = .dropView
        case SQLITE_INSERT: action = .insert
        case SQLITE_PRAGMA: action = .pragma
        case SQLITE_READ: action = .read
        case SQLITE_SELECT: action = .select
        case SQLITE_TRANSACTION: action = .transaction
        case SQLITE_UPDATE: action = .update
        case SQLITE_ATTACH: action = .attach
        case SQLITE_DETACH: action = .detach
        case SQLITE_ALTER_TABLE: action = .alterTable
        case SQLITE_REINDEX: action = .reindex
        case SQLITE_ANALYZE: action = .analyze
        case SQLITE_CREATE_VTABLE: action = .createVirtualTable
        case SQLITE_DROP_VTABLE: action = .dropVirtualTable
        case SQLITE_FUNCTION: action = .function
        case SQLITE_SAVEPOINT: action = .savepoint
        case SQLITE_RECURSIVE: action = .recursive
        default: action = .other(code)
        }
        self.init(action: action, first: first, second: second, database: database, trigger: trigger)
    }

    /// Whether the action changes the database (rows, schema or statistics).
    public var writes: Bool {
        switch action {
        case .createIndex, .createTable, .createTempIndex, .createTempTable, .createTempTrigger, .createTempView,
             .createTrigger, .createView, .delete, .dropIndex, .dropTable, .dropTempIndex, .dropTempTable,
             .dropTempTrigger, .dropTempView, .dropTrigger, .dropView, .insert, .update, .alterTable,
             .reindex, .analyze, .createVirtualTable, .dropVirtualTable:
            return true
        default:
            return false
        }
    }
}

/// The authorizer's answer. `deny` fails the statement with SQLITE_AUTH; `ignore` reads NULL
/// for a column or skips the action (see the SQLite documentation).
public enum AuthorizationDecision: Sendable, Hashable {
    case allow
    case ignore
    /// Refuses the statement; `reason` becomes the error's message (one line, for a person).
    case deny(reason: String)
}

/// Holds the Swift authorizer for the C callback (the Database keeps it alive).
final class AuthorizerBox {
    let body: (AuthorizationRequest) -> AuthorizationDecision
    let refusals: RefusalNote
    init(_ body: @escaping (AuthorizationRequest) -> AuthorizationDecision, refusals: RefusalNote) {
        self.body = body
        self.refusals = refusals
    }
}

/// Why the authorizer refused the statement being compiled or run, for the error that follows.
final class RefusalNote {
    private var reason: String?
    func note(_ reason: String) { self.reason = reason }
    /// The reason, once: the next error without a refusal shows SQLite's own message.
    func take() -> String? {
        defer { reason = nil }
        return reason
    }
}

extension Database {
    /// A limit of this connection (sqlite3_limit).
    public enum Limit: Sendable {
        /// How many databases ATTACH may add. 0 also stops VACUUM, which attaches a scratch file.
        case attached
        case sqlLength
        case variableNumber

        var code: Int32 {
            switch self {
            case .attached: return SQLITE_LIMIT_ATTACHED
            case .sqlLength: return SQLITE_LIMIT_SQL_LENGTH
            case .variableNumber: return SQLITE_LIMIT_VARIABLE_NUMBER
            }
        }
    }

    /// Sets a limit and returns the previous value. SQLite lowers `value` to its compile-time cap.
    @discardableResult
    public func setLimit(_ limit: Limit, _ value: Int32) -> Int32 { sqlite3_limit(handle, limit.code, value) }

    /// The current value of a limit.
    public func limit(_ limit: Limit) -> Int32 { sqlite3_limit(handle, limit.code, -1) }

    /// Installs `authorizer` (nil removes it). SQLite consults it while compiling every statement
    /// (and while running VACUUM, which attaches a file); cached statements are dropped so that
    /// none compiled under the old rules is reused.
    public func setAuthorizer(_ authorizer: ((AuthorizationRequest) -> AuthorizationDecision)?) {
        clearStatementCache()
        guard let authorizer else {
            sqlite3_set_authorizer(handle, nil, nil)
            authorizerBox = nil
            return
        }
        let box = AuthorizerBox(authorizer, refusals: refusals)
        authorizerBox = box
        sqlite3_set_authorizer(handle, { context, code, a, b, c, d in
            guard let context else { return SQLITE_DENY }
            let box = Unmanaged<AuthorizerBox>.fromOpaque(context).takeUnretainedValue()
            let request = AuthorizationRequest(code: code, first: a.map { String(cString: $0) }, second: b.map { String(cString: $0) },
                                               database: c.map { String(cString: $0) }, trigger: d.map { String(cString: $0) })
            switch box.body(request) {
            case .allow: return SQLITE_OK
            case .ignore: return SQLITE_IGNORE
            case .deny(let reason):
                box.refusals.note(reason)
                return SQLITE_DENY
            }
        }, Unmanaged.passUnretained(box).toOpaque())
    }

    /// Turns off loading extensions through both the C API and the SQL function.
    public func disableExtensionLoading() {
        sqlite3_enable_load_extension(handle, 0)
        var out: Int32 = 0
        _ = csqlite_db_config_int(handle, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, &out)
    }

    // MARK: - Confinement

    /// What a confined connection may do besides reading its own file.
    public enum Confinement: Sendable {
        /// Only reads (a transcript's `sql:` step).
        case readOnly
        /// Reads and writes its own file (a transcript's `@seed sql`, a replayed process).
        case ownFile
    }

    /// Confines this connection for SQL that comes from outside: no ATTACH, DETACH or VACUUM
    /// (nor VACUUM INTO, which writes a copy anywhere), no extension loading, only pragmas that
    /// neither touch files nor weaken safety, schema code (triggers, views) limited to harmless
    /// functions, and with `.readOnly` nothing that writes. Refusals fail the statement with a
    /// DatabaseError whose message says what was refused.
    public func confine(_ confinement: Confinement) throws {
        setLimit(.attached, 0)
        disableExtensionLoading()
        var out: Int32 = 0
        // Defensive mode stops writable_schema and writes to sqlite_dbpage even if a pragma got
        // through; an untrusted schema may not call functions with side effects from triggers/views.
        for (option, value) in [(SQLITE_DBCONFIG_DEFENSIVE, Int32(1)), (SQLITE_DBCONFIG_TRUSTED_SCHEMA, Int32(0))] {
            let rc = csqlite_db_config_int(handle, option, value, &out)
            guard rc == SQLITE_OK else { throw error(code: rc) }
        }
        // The first use of a built-in table-valued function (json_each, json_tree) declares its
        // table, which SQLite reports to the authorizer as a write of sqlite_master; declaring them
        // now, before the authorizer, lets a read-only connection still read JSON.
        try execute("SELECT 1 FROM json_each('[]'), json_tree('[]') LIMIT 0")
        setAuthorizer { Database.confinedDecision($0, confinement) }
    }

    /// Pragmas that only report (an argument, when allowed, names a table or index or a count).
    static let reportingPragmas: Set<String> = [
        "table_info", "table_xinfo", "table_list", "index_info", "index_list", "index_xinfo",
        "foreign_key_list", "foreign_key_check", "integrity_check", "quick_check",
        "collation_list", "function_list", "module_list", "pragma_list", "compile_options", "database_list",
    ]
    /// Settings a confined connection may read but not change.
    static let readableSettings: Set<String> = [
        "application_id", "auto_vacuum", "busy_timeout", "cache_size", "data_version", "defer_foreign_keys",
        "encoding", "foreign_keys", "freelist_count", "journal_mode", "page_count", "page_size",
        "query_only", "recursive_triggers", "schema_version", "synchronous", "user_version",
    ]
    /// Settings a writable confined connection may also change: they live in the connection or in
    /// its own file's header and neither touch other files nor weaken durability or integrity.
    static let changeableSettings: Set<String> = [
        "defer_foreign_keys", "foreign_keys", "recursive_triggers", "user_version", "application_id", "query_only",
    ]
    /// Functions that reach outside SQL (files, extensions, raw pointers).
    static let refusedFunctions: Set<String> = ["load_extension", "fts3_tokenizer", "readfile", "writefile", "edit"]

    static func confinedDecision(_ r: AuthorizationRequest, _ confinement: Confinement) -> AuthorizationDecision {
        switch r.action {
        case .attach:
            // VACUUM reaches here too: it attaches a scratch file, or the target of VACUUM INTO.
            return .deny(reason: "opening another database file (ATTACH, VACUUM, VACUUM INTO) is not allowed here")
        case .detach:
            return .deny(reason: "DETACH is not allowed here")
        case .function:
            let name = (r.second ?? "").lowercased()
            if refusedFunctions.contains(name) { return .deny(reason: "the function \(name)() is not allowed here") }
            return .allow
        case .pragma:
            let name = (r.first ?? "").lowercased()
            if let schema = r.database?.lowercased(), schema != "main", schema != "temp" {
                return .deny(reason: "PRAGMA \(schema).\(name) names another database, which is not allowed here")
            }
            if reportingPragmas.contains(name) { return .allow }
            if readableSettings.contains(name) && r.second == nil { return .allow }
            if confinement == .ownFile && changeableSettings.contains(name) { return .allow }
            return .deny(reason: r.second == nil || !readableSettings.contains(name)
                         ? "PRAGMA \(name) is not allowed here" : "changing PRAGMA \(name) is not allowed here")
        case .createVirtualTable, .dropVirtualTable:
            return .deny(reason: "virtual tables are not allowed here")
        default:
            if confinement == .readOnly && r.writes {
                let what = ["sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema"].contains(r.first?.lowercased() ?? "")
                    ? "changing the schema (CREATE, DROP, ALTER)" : r.action.sqlWord
                return .deny(reason: "only reading is allowed here; \(what) would change the database")
            }
            return .allow
        }
    }
}

extension AuthorizationRequest.Action {
    /// The SQL a person would recognise, for refusals.
    var sqlWord: String {
        switch self {
        case .insert: return "INSERT"
        case .update: return "UPDATE"
        case .delete: return "DELETE"
        case .alterTable: return "ALTER TABLE"
        case .reindex: return "REINDEX"
        case .analyze: return "ANALYZE"
        case .createIndex, .createTable, .createTempIndex, .createTempTable, .createTempTrigger, .createTempView,
             .createTrigger, .createView, .createVirtualTable: return "CREATE"
        case .dropIndex, .dropTable, .dropTempIndex, .dropTempTable, .dropTempTrigger, .dropTempView, .dropTrigger,
             .dropView, .dropVirtualTable: return "DROP"
        default: return "this statement"
        }
    }
}
