// Opening the one ofj database file: every module's migrations, with clear errors.
import Agent
import CommandLineKit
import Diagnostics
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Journal
import OutputSafety
import PackagedFoods
import REPL
import Research
import SQLiteKit
import Sync

enum OfjDatabase {
    /// All schema migrations, in dependency order: the one composition, used by every database
    /// ofj opens and by `ofj replay`'s (ReplayCommand.environment).
    static var migrator: Migrator {
        var m = Migrator()
        registerMigrations(into: &m)
        return m
    }

    static func registerMigrations(into m: inout Migrator) {
        JournalStore.registerMigrations(into: &m)
        ConversationStore.registerMigrations(into: &m)
        DiagnosticsOutbox.registerMigrations(into: &m)
        PackagedStore.registerMigrations(into: &m)
        SourceStore.registerMigrations(into: &m)
        SyncSchema.registerMigrations(into: &m)
    }

    /// Opens an existing database for `backup export --salvage`: no check, no migration, no
    /// writes (the file may be damaged; reading is all that is asked of it).
    static func openForSalvage(path: String) throws -> DatabaseQueue {
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError("there is no database at \(path) to salvage") }
        do {
            let queue = try DatabaseQueue(path: path, options: Database.Options(walMode: false))
            try queue.refuseWrites(DatabaseError.damaged("opened for salvage"))
            return queue
        } catch let e as DatabaseError {
            throw CLIError("cannot read \(path) at all (\(e.message)); nothing can be salvaged from it")
        }
    }

    /// Opens (creating if needed) and migrates the database at `path`. `access: .read` opens an
    /// up-to-date database read-only, so commands that only look work on a file the person can
    /// only read; a command that writes says the file is read-only. Either way the file is
    /// checked first after an unclean exit or an outside change (`DatabaseHealth`).
    static func open(path: String, access: DataAccess = .write) throws -> DatabaseQueue {
        let mustCheck = DatabaseHealth.begin(path)
        let exists = FileManager.default.fileExists(atPath: path)
        if access == .read, exists, let queue = try openReadOnly(path: path) {
            if mustCheck, let damage = DatabaseHealth.check(queue) { try damaged(queue, path: path, damage) } else {
                DatabaseHealth.checked(path, queue: queue, damaged: false)
            }
            return queue
        }
        if exists, let reason = readOnlyReason(path: path) {
            throw CLIError("\(path) is read-only (\(reason)); this command changes the journal, so make it writable, or use a command that only reads (ofj day, ofj foods, ofj backup export)")
        }
        let queue: DatabaseQueue
        // A new database is created owner-only (0600) whatever the umask; SQLite gives its -wal
        // and -shm files the mode of the database file. When this fails, SQLite's open below
        // fails too and says why.
        do { try PrivateFile.createIfMissing(path) } catch {}
        do {
            queue = try DatabaseQueue(path: path)
        } catch let e as DatabaseError where e.code == 26 /* SQLITE_NOTADB */ {
            throw CLIError("\(path) is not an ofj database (not SQLite); move it aside or set OFJ_HOME to another folder")
        } catch let e as DatabaseError where e.isBusy {
            throw CLIError("cannot open \(path): \(e)") // "locked by another ofj process; close it or try again…"
        } catch let e as DatabaseError {
            throw openFailure(path, e)
        }
        // Another program's SQLite file is left alone: only an empty file or one ofj made is used.
        let foreign = try? queue.read { db -> Bool in
            let tables = try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").int ?? 0
            let ours = try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").int ?? 0
            return tables > 0 && ours == 0
        }
        if foreign == true {
            throw CLIError("\(path) is an SQLite database of another program, not an ofj database; move it aside or set OFJ_HOME to another folder")
        }
        // After an unclean exit, or when the file changed while no ofj had it open: check it. A
        // damaged file is never written to (writing could spread the damage); reads still work.
        if mustCheck, let damage = DatabaseHealth.check(queue) {
            try damaged(queue, path: path, damage)
            return queue
        }
        DatabaseHealth.checked(path, queue: queue, damaged: false)
        do {
            try queue.migrate(migrator)
        } catch let e as Migrator.MigrationError {
            throw CLIError("\(path): \(e)")
        } catch let e as DatabaseError where e.code == 26 {
            throw CLIError("\(path) is not an ofj database (not SQLite); move it aside or set OFJ_HOME to another folder")
        }
        return queue
    }
}

extension OfjDatabase {
    /// Why a write to the database at `path` cannot work, or nil: the file, or its folder (where
    /// SQLite keeps the -wal and -shm files), is not writable by this user.
    static func readOnlyReason(path: String) -> String? {
        if access(path, W_OK) != 0 { return "no write permission on the file" }
        let directory = (path as NSString).deletingLastPathComponent
        if access(directory.isEmpty ? "." : directory, W_OK) != 0 { return "no write permission on its folder" }
        return nil
    }

    /// Opens an existing database read-only, or nil when it must be opened for writing first (it
    /// needs a migration and can be written). A WAL database whose -shm cannot be created (a folder
    /// the user cannot write) is opened as immutable.
    static func openReadOnly(path: String) throws -> DatabaseQueue? {
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, options: Database.Options(readOnly: true))
        } catch let e as DatabaseError where e.code == 8 /* SQLITE_READONLY */ || e.code == 14 /* SQLITE_CANTOPEN */ {
            do { queue = try DatabaseQueue(path: path, options: Database.Options(readOnly: true, immutable: true)) } catch let e as DatabaseError {
                throw CLIError("cannot open \(path) read-only: \(e.message)")
            }
        } catch let e as DatabaseError where e.code == 26 /* SQLITE_NOTADB */ {
            throw CLIError("\(path) is not an ofj database (not SQLite); move it aside or set OFJ_HOME to another folder")
        } catch let e as DatabaseError {
            throw openFailure(path, e)
        }
        let status: (pending: Int, foreign: Bool, unknown: Bool)
        do {
            status = try queue.read { db in
                let tables = try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").int ?? 0
                let ours = try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").int ?? 0
                guard ours > 0 else { return (migrator.migrations.count, tables > 0, false) }
                let applied = Set(try db.rows("SELECT identifier FROM schema_migrations").compactMap { $0[0].string })
                let known = Set(migrator.migrations.map(\.identifier))
                return (known.subtracting(applied).count, false, !applied.subtracting(known).isEmpty)
            }
        } catch let e as DatabaseError where e.code == 26 {
            throw CLIError("\(path) is not an ofj database (not SQLite); move it aside or set OFJ_HOME to another folder")
        }
        if status.foreign {
            throw CLIError("\(path) is an SQLite database of another program, not an ofj database; move it aside or set OFJ_HOME to another folder")
        }
        if status.unknown { throw CLIError("\(path): \(Migrator.MigrationError.newerSchema(unknown: []))") }
        guard status.pending > 0 else { return queue }
        // An older (or new, empty) database is brought up to date by a writable open.
        if let reason = readOnlyReason(path: path) {
            throw CLIError("\(path) is read-only (\(reason)) and was written by an older ofj; make it writable once so this version can update it")
        }
        return nil
    }

    /// A database error in plain words: SQLite's "attempt to write a readonly database" says
    /// what to do.
    static func explain(_ message: String) -> String {
        guard message.contains("readonly database") else { return message }
        return "the journal is read-only; make ofj.sqlite and its folder writable to change it"
    }
}

/// A failure the CLI reports as one line with exit status 1 (2 for usage errors).
struct CLIError: Error, CustomStringConvertible {
    let description: String
    let status: Int32
    init(_ message: String, status: Int32 = 1) {
        self.description = message
        self.status = status
    }
}

extension OfjDatabase {
    /// A damaged file: no writes from now on, one warning line, and no migration (a file that
    /// needs one cannot be used; salvage it instead).
    /// Why the file cannot be opened, and what to do, in one line: a damaged file (its list of
    /// tables unreadable, so not even `backup export --salvage` can read it) is not a folder problem.
    static func openFailure(_ path: String, _ e: DatabaseError) -> CLIError {
        if e.isDamaged || e.message.lowercased().contains("malformed") {
            return CLIError("cannot open \(path): the file is damaged where SQLite keeps its list of tables (\(e.message)), so ofj can neither "
                + "read nor salvage it and changed nothing; move it aside and keep it (`sqlite3 FILE .recover` may get rows back), "
                + "then `ofj backup import` your latest backup into the new journal ofj starts")
        }
        if e.code == 14 /* SQLITE_CANTOPEN */ {
            return CLIError("cannot open \(path): \(e.message); check the folder exists and is writable")
        }
        return CLIError("cannot open \(path): \(e.message)")
    }

    static func damaged(_ queue: DatabaseQueue, path: String, _ damage: String) throws {
        try queue.refuseWrites(DatabaseError.damaged(damage))
        DatabaseHealth.checked(path, queue: queue, damaged: true)
        Console.err(TerminalText.sanitize("ofj: \(path): \(DatabaseError.damagedLine) (\(damage))", keepNewlines: false) + "\n")
        let applied = (try? queue.read { db in
            try db.rows("SELECT identifier FROM schema_migrations").compactMap { $0[0].string }
        }) ?? []
        guard Set(migrator.migrations.map(\.identifier)).isSubset(of: Set(applied)) else {
            throw CLIError("\(path): \(DatabaseError.damagedLine)")
        }
    }
}
