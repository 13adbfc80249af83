import Testing
import CSQLite
@testable import SQLiteKit
import TestSupport
import Foundation

@Suite struct DatabaseTests {
    @Test func roundTripsEveryValueType() throws {
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t (a, b, c, d, e)")
        try db.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [DatabaseValue.null, 42, 2.5, "héllo", [UInt8]([0, 1, 255])])
        let row = try #require(try db.row("SELECT a, b, c, d, e FROM t"))
        #expect(row[0] == .null)
        #expect(row["b"] == .integer(42))
        #expect(row[2] == .real(2.5))
        #expect(row[3] == .text("héllo"))
        #expect(row[4] == .blob([0, 1, 255]))
        db.clearStatementCache()
        #expect(db.unfinalizedStatementCount == 0)
    }

    @Test func fileDatabaseUsesWALAndForeignKeys() throws {
        let dir = TempDirectory()
        let db = try Database(path: dir.file("x.sqlite"))
        #expect(try db.scalar("PRAGMA journal_mode").string == "wal")
        #expect(try db.scalar("PRAGMA foreign_keys").int == 1)
        #expect(try db.scalar("PRAGMA synchronous").int == 1) // NORMAL
    }

    @Test func errorDescriptionHidesArguments() throws {
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t (x TEXT NOT NULL UNIQUE)")
        try db.execute("INSERT INTO t VALUES (?)", ["secret-oatmeal"])
        do {
            try db.execute("INSERT INTO t VALUES (?)", ["secret-oatmeal"])
            Issue.record("expected a constraint error")
        } catch let error as DatabaseError {
            #expect(error.isConstraint)
            #expect(!error.description.contains("secret-oatmeal"))
            #expect(error.description.contains("INSERT INTO t"))
            #expect(error.expandedDescription.contains("secret-oatmeal"))
        }
    }

    @Test func aLockHeldPastTheTimeoutReadsAsOnePlainLine() throws {
        // Regression: the person saw "SQLite error 5: database is locked - while executing …".
        let dir = TempDirectory()
        let holder = try Database(path: dir.file("x.sqlite"))
        try holder.execute("CREATE TABLE t (x)")
        let other = try Database(path: dir.file("x.sqlite"), options: .init(busyTimeoutMilliseconds: 20))
        try holder.execute(batch: "BEGIN IMMEDIATE")
        defer { try? holder.execute(batch: "ROLLBACK") }
        do {
            try other.transaction { try $0.execute("INSERT INTO t VALUES (1)") }
            Issue.record("expected SQLITE_BUSY")
        } catch let error as DatabaseError {
            #expect(error.isBusy)
            #expect(error.description == "the database is locked by another ofj process; close it or try again in a moment")
            #expect(error.expandedDescription.contains("database is locked"))
        }
    }

    /// Regression (RELIABILITY.md, two processes, item 4): switching to WAL while another
    /// connection holds the reserved lock is a possible deadlock, so SQLite answers SQLITE_BUSY at
    /// once without calling the busy handler. Opening must wait for the lock like any other write.
    @Test func openingWaitsForTheLockToSwitchToWAL() throws {
        let dir = TempDirectory()
        let path = dir.file("x.sqlite")
        let holding = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        Thread {
            // Another process mid-write on a database still in rollback-journal mode.
            let other = try! Database(path: path, options: .init(walMode: false))
            try! other.execute("CREATE TABLE t (x)")
            try! other.execute(batch: "BEGIN IMMEDIATE")
            holding.signal()
            Thread.sleep(forTimeInterval: 0.2)
            try! other.execute(batch: "COMMIT")
            released.signal()
        }.start()
        holding.wait()
        let db = try Database(path: path)
        #expect(released.wait(timeout: .now()) == .success) // it waited for the other to commit
        #expect(try db.scalar("PRAGMA journal_mode").string == "wal")
    }

    @Test func transactionRollsBackAndRethrowsFirstError() throws {
        struct Boom: Error {}
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t (x)")
        #expect(throws: Boom.self) {
            try db.transaction { db in
                try db.execute("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        #expect(try db.scalar("SELECT count(*) FROM t").int == 0)
        #expect(!db.isInTransaction)
        try db.transaction { db in
            try db.execute("INSERT INTO t VALUES (1)")
            // A nested failure rolls back only its savepoint.
            _ = try? db.transaction { db -> Void in
                try db.execute("INSERT INTO t VALUES (2)")
                throw Boom()
            }
        }
        #expect(try db.scalar("SELECT count(*) FROM t").int == 1)
    }

    @Test func notADatabaseFails() throws {
        let dir = TempDirectory()
        let path = dir.file("junk.sqlite")
        try "this is not sqlite, just text that is long enough to be a header...........".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: DatabaseError.self) { try Database(path: path) }
    }

    @Test func multipleStatementsInPrepareAreRejected() throws {
        let db = try Database(path: ":memory:")
        db.clearStatementCache()
        #expect(throws: DatabaseError.self) { _ = try db.prepare("SELECT 1; SELECT 2") }
        #expect(db.unfinalizedStatementCount == 0)
    }

    @Test func wrongArgumentCountIsAnError() throws {
        let db = try Database(path: ":memory:")
        #expect(throws: DatabaseError.self) { try db.execute("SELECT ?", []) }
    }

    @Test func busyIsReportedBetweenConnections() throws {
        let dir = TempDirectory()
        let a = try Database(path: dir.file("b.sqlite"))
        let b = try Database(path: dir.file("b.sqlite"), options: .init(busyTimeoutMilliseconds: 10))
        try a.execute("CREATE TABLE t (x)")
        try a.execute(batch: "BEGIN IMMEDIATE")
        do {
            try b.execute(batch: "BEGIN IMMEDIATE")
            Issue.record("expected busy")
        } catch let e as DatabaseError {
            #expect(e.isBusy)
        }
        try a.execute(batch: "ROLLBACK")
    }
}

@Suite struct MigratorTests {
    @Test func appliesOnceAndRefusesNewerSchema() throws {
        let db = try Database(path: ":memory:")
        var m = Migrator()
        m.register("v1", sql: "CREATE TABLE a (x)")
        try m.migrate(db)
        try m.migrate(db)
        #expect(try m.appliedIdentifiers(db) == ["v1"])
        var newer = m
        newer.register("v2", sql: "CREATE TABLE b (x)")
        try newer.migrate(db)
        #expect(throws: Migrator.MigrationError.self) { try m.migrate(db) }
    }

    @Test func failingMigrationLeavesNothing() throws {
        let db = try Database(path: ":memory:")
        var m = Migrator()
        m.register("v1", sql: "CREATE TABLE a (x); CREATE TABLE a (y)")
        #expect(throws: DatabaseError.self) { try m.migrate(db) }
        #expect(try db.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'a'").int == 0)
        #expect(try m.appliedIdentifiers(db).isEmpty)
    }
}
