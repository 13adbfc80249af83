// DatabaseQueue's three doors: `read` refuses every write, `write` is one transaction,
// `unrestricted` (and `migrate`) allows migrations, TEMP tables and autocommit writes.
import CSQLite
import Foundation
import Testing
import TestSupport
@testable import SQLiteKit

@Suite struct QueueAccessTests {
    func queue() throws -> DatabaseQueue {
        let queue = try DatabaseQueue.inMemory()
        try queue.write { try $0.execute("CREATE TABLE t (x)") }
        return queue
    }

    @Test(arguments: [
        "INSERT INTO t VALUES (1)", "UPDATE t SET x = 2", "DELETE FROM t", "CREATE TABLE u (y)",
        "CREATE TEMP TABLE scratch (y)", "BEGIN IMMEDIATE", "PRAGMA user_version = 7", "DROP TABLE t",
    ])
    func aWriteInsideReadThrowsAndChangesNothing(sql: String) throws {
        let queue = try queue()
        try queue.write { try $0.execute("INSERT INTO t VALUES (0)") }
        do {
            try queue.read { try $0.execute(batch: sql) }
            Issue.record("read accepted \(sql)")
        } catch let e as DatabaseError {
            #expect(e.code == SQLITE_READONLY, "\(sql): \(e)")
        }
        // Nothing changed, and the connection is writable again after the refused read.
        #expect(try queue.read { try $0.scalar("SELECT count(*) FROM t").int } == 1)
        #expect(try queue.read { try $0.scalar("PRAGMA user_version").int } == 0)
        try queue.write { try $0.execute("INSERT INTO t VALUES (2)") }
        #expect(try queue.read { try $0.scalar("SELECT count(*) FROM t").int } == 2)
    }

    @Test func readsStillReadEverythingAndMayHoldASnapshot() throws {
        let queue = try queue()
        try queue.write { try $0.execute("INSERT INTO t VALUES (5)") }
        let total = try queue.read { db in try db.transaction(.deferred) { try $0.scalar("SELECT sum(x) FROM t").int } }
        #expect(total == 5)
        #expect(try queue.read { try $0.scalar("PRAGMA query_only").int } == 1)
        #expect(try queue.unrestricted { try $0.scalar("PRAGMA query_only").int } == 0)
    }

    @Test func unrestrictedTakesTempTablesAndAutocommitWritesAndMigrateMigrates() throws {
        let queue = try queue()
        try queue.unrestricted { db in
            try db.execute(batch: "CREATE TEMP TABLE scratch (y); INSERT INTO temp.scratch VALUES (1)")
            try db.execute("INSERT INTO t VALUES (3)")
        }
        #expect(try queue.read { try $0.scalar("SELECT count(*) FROM temp.scratch").int } == 1)
        var migrator = Migrator()
        migrator.register("test-1", sql: "CREATE TABLE m (z); INSERT INTO m VALUES (9)")
        try queue.migrate(migrator)
        try queue.migrate(migrator) // applied once
        #expect(try queue.read { try $0.scalar("SELECT sum(z) FROM m").int } == 9)
        #expect(try queue.read { try $0.scalar("SELECT sum(x) FROM t").int } == 3)
    }

    @Test func aQueueWhoseWritesAreRefusedStaysQueryOnlyEverywhere() throws {
        let queue = try queue()
        try queue.refuseWrites(DatabaseError.damaged("test"))
        _ = try queue.read { try $0.scalar("SELECT count(*) FROM t") } // the read does not make it writable again
        #expect(throws: DatabaseError.self) { try queue.unrestricted { try $0.execute("INSERT INTO t VALUES (1)") } }
        #expect(throws: DatabaseError.self) { try queue.write { try $0.execute("INSERT INTO t VALUES (1)") } }
        #expect(try queue.read { try $0.scalar("SELECT count(*) FROM t").int } == 0)
    }
}
