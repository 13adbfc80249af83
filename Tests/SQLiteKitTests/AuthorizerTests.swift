import Testing
import CSQLite
@testable import SQLiteKit
import TestSupport
import Foundation

/// The authorizer API and the confinement used for SQL from transcripts: nothing outside the
/// connection's own file can be read, written or created.
@Suite struct AuthorizerTests {
    let dir = TempDirectory(prefix: "ofj-auth")

    /// A database next door that confined SQL must not reach, with one row.
    func victim() throws -> String {
        let path = dir.file("victim.sqlite")
        let db = try Database(path: path)
        try db.execute(batch: "CREATE TABLE IF NOT EXISTS journal (name TEXT); DELETE FROM journal; INSERT INTO journal VALUES ('oatmeal')")
        return path
    }

    func confined(_ confinement: Database.Confinement, readOnly: Bool = false) throws -> Database {
        let path = dir.file("own.sqlite")
        if !FileManager.default.fileExists(atPath: path) {
            let setup = try Database(path: path)
            try setup.execute(batch: "CREATE TABLE t (x); INSERT INTO t VALUES (1)")
        }
        let db = try Database(path: path, options: .init(readOnly: readOnly))
        try db.confine(confinement)
        return db
    }

    func expectRefused(_ db: Database, _ sql: String, mentioning words: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try db.execute(batch: sql)
            Issue.record("expected \(sql) to be refused", sourceLocation: sourceLocation)
        } catch let e as DatabaseError {
            #expect(e.isRefusal, "\(sql): \(e)", sourceLocation: sourceLocation)
            #expect(e.message.contains(words), "\(sql): \(e.message)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
    }

    func files() -> Set<String> { Set((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []) }

    @Test func authorizerSeesEachActionAndCanDenyWithAReason() throws {
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t (x)")
        nonisolated(unsafe) var seen: [AuthorizationRequest] = []
        db.setAuthorizer { r in
            seen.append(r)
            if r.action == .insert { return .deny(reason: "no inserts today") }
            return .allow
        }
        _ = try db.rows("SELECT x FROM t")
        #expect(seen.contains(AuthorizationRequest(action: .read, first: "t", second: "x", database: "main")))
        do {
            try db.execute("INSERT INTO t VALUES (1)")
            Issue.record("expected a refusal")
        } catch let e as DatabaseError {
            #expect(e.isRefusal)
            #expect(e.message == "no inserts today")
        }
        // The next error shows SQLite's own message, not a stale refusal.
        #expect(throws: DatabaseError.self) { try db.execute("SELECT nope FROM t") }
        do { try db.execute("SELECT nope FROM t") } catch let e as DatabaseError { #expect(e.message.contains("no such column")) }
        db.setAuthorizer(nil)
        try db.execute("INSERT INTO t VALUES (1)")
        #expect(try db.scalar("SELECT count(*) FROM t").int == 1)
    }

    @Test func installingAnAuthorizerDropsStatementsCompiledBefore() throws {
        let db = try Database(path: ":memory:")
        try db.execute("CREATE TABLE t (x)")
        try db.execute("INSERT INTO t VALUES (1)")   // cached, compiled without an authorizer
        db.setAuthorizer { $0.action == .insert ? .deny(reason: "refused") : .allow }
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (1)") }
        #expect(try db.scalar("SELECT count(*) FROM t").int == 1)
    }

    @Test func limitsCanBeReadAndSet() throws {
        let db = try Database(path: ":memory:")
        #expect(db.limit(.attached) > 0)
        db.setLimit(.attached, 0)
        #expect(db.limit(.attached) == 0)
    }

    @Test func confinedConnectionCannotAttachByRelativeOrAbsolutePath() throws {
        let victim = try victim()
        let db = try confined(.ownFile)
        let before = files()
        for target in [victim, "victim.sqlite", dir.file("new.sqlite"), ":memory:", ""] {
            expectRefused(db, "ATTACH DATABASE '\(target)' AS real", mentioning: "ATTACH")
        }
        expectRefused(db, "DETACH DATABASE main", mentioning: "DETACH")
        #expect(files() == before)
        #expect(try Database(path: victim).scalar("SELECT name FROM journal").string == "oatmeal")
    }

    @Test func attachStaysImpossibleEvenWithoutTheAuthorizer() throws {
        let victim = try victim()
        let db = try confined(.ownFile)
        db.setAuthorizer(nil)
        // SQLITE_LIMIT_ATTACHED = 0 is the second wall.
        #expect(throws: DatabaseError.self) { try db.execute(batch: "ATTACH DATABASE '\(victim)' AS real") }
        #expect(throws: DatabaseError.self) { try db.execute(batch: "VACUUM INTO '\(dir.file("copy.sqlite"))'") }
        #expect(!FileManager.default.fileExists(atPath: dir.file("copy.sqlite")))
    }

    @Test func confinedConnectionCannotVacuumIntoAFile() throws {
        for confinement in [Database.Confinement.ownFile, .readOnly] {
            let db = try confined(confinement, readOnly: confinement == .readOnly)
            let before = files()
            expectRefused(db, "VACUUM INTO '\(dir.file("copy.sqlite"))'", mentioning: "VACUUM INTO")
            expectRefused(db, "VACUUM INTO 'copy.sqlite'", mentioning: "VACUUM INTO")
            expectRefused(db, "VACUUM", mentioning: "VACUUM")
            #expect(files() == before)
        }
    }

    @Test func extensionsCannotBeLoaded() throws {
        let db = try confined(.ownFile)
        expectRefused(db, "SELECT load_extension('/tmp/nothing.so')", mentioning: "load_extension")
        // Off for the C API as well.
        var out: Int32 = -1
        #expect(csqlite_db_config_int(db.handle, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, -1, &out) == SQLITE_OK)
        #expect(out == 0)
    }

    @Test func onlyHarmlessPragmasAreAllowed() throws {
        let db = try confined(.ownFile)
        for refused in ["PRAGMA journal_mode = DELETE", "PRAGMA temp_store_directory = '/tmp'", "PRAGMA data_store_directory = '/tmp'",
                        "PRAGMA writable_schema = ON", "PRAGMA synchronous = OFF", "PRAGMA schema_version = 99",
                        "PRAGMA locking_mode = EXCLUSIVE", "PRAGMA mmap_size = 1000000", "PRAGMA trusted_schema = ON",
                        "PRAGMA cell_size_check = OFF", "PRAGMA secure_delete = OFF", "PRAGMA wal_checkpoint(TRUNCATE)"] {
            expectRefused(db, refused, mentioning: "PRAGMA")
        }
        #expect(try db.scalar("PRAGMA journal_mode").string == "wal")
        #expect(try db.scalar("PRAGMA synchronous").int == 1)
        // Reading settings, inspecting tables and connection-local switches are fine.
        _ = try db.rows("PRAGMA table_info(t)")
        _ = try db.rows("SELECT name FROM pragma_table_info('t')")
        _ = try db.rows("PRAGMA integrity_check")
        _ = try db.rows("PRAGMA foreign_key_check")
        try db.execute(batch: "PRAGMA foreign_keys = OFF; PRAGMA foreign_keys = ON; PRAGMA user_version = 3")
        #expect(try db.scalar("PRAGMA user_version").int == 3)
    }

    @Test func readOnlyConfinementRefusesEveryWrite() throws {
        _ = try confined(.ownFile) // creates the file
        let db = try confined(.readOnly, readOnly: true)
        for (sql, word) in [("INSERT INTO t VALUES (2)", "INSERT"), ("UPDATE t SET x = 5", "UPDATE"), ("DELETE FROM t", "DELETE"),
                            ("CREATE TABLE u (y)", "changing the schema"), ("CREATE TEMP TABLE u (y)", "changing the schema"),
                            ("DROP TABLE t", "changing the schema"), ("CREATE INDEX i ON t (x)", "changing the schema"),
                            ("ALTER TABLE t ADD COLUMN y", "ALTER TABLE"), ("PRAGMA user_version = 9", "PRAGMA")] {
            expectRefused(db, sql, mentioning: word)
        }
        #expect(try db.prepare("SELECT x FROM t").isReadOnly)
        #expect(try db.scalar("SELECT count(*) FROM t").int == 1)
        // Reading JSON with the table-valued functions is reading (their first use declares a table).
        #expect(try db.scalar("SELECT sum(value) FROM json_each('[1,2,3]')").int == 6)
        #expect(try db.scalar("SELECT count(*) FROM json_tree('{\"a\":[1]}')").int == 3)
    }

    @Test func ownFileConfinementStillSeeds() throws {
        let db = try confined(.ownFile)
        try db.execute(batch: """
            CREATE TABLE seeded (x); INSERT INTO seeded VALUES (1); UPDATE t SET x = 2;
            CREATE TRIGGER seeded_t AFTER INSERT ON seeded BEGIN UPDATE t SET x = x + 1; END;
            INSERT INTO seeded VALUES (2);
            """)
        #expect(try db.scalar("SELECT x FROM t").int == 3)
    }
}
