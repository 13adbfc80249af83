// Opening the one ofj database file: every module's migrations, with clear errors.
import Agent
import Diagnostics
import Foundation
import Journal
import OutputSafety
import REPL
import Research
import SQLiteKit

enum OfjDatabase {
    /// All schema migrations, in dependency order.
    static var migrator: Migrator {
        var m = Migrator()
        JournalStore.registerMigrations(into: &m)
        ConversationStore.registerMigrations(into: &m)
        DiagnosticsOutbox.registerMigrations(into: &m)
        SourceStore.registerMigrations(into: &m)
        return m
    }

    /// Opens (creating if needed) and migrates the database at `path`.
    static func open(path: String) throws -> DatabaseQueue {
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
            throw CLIError("cannot open \(path): \(e.message); check the folder exists and is writable")
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
        do {
            try queue.read { try migrator.migrate($0) }
        } catch let e as Migrator.MigrationError {
            throw CLIError("\(path): \(e)")
        } catch let e as DatabaseError where e.code == 26 {
            throw CLIError("\(path) is not an ofj database (not SQLite); move it aside or set OFJ_HOME to another folder")
        }
        return queue
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
