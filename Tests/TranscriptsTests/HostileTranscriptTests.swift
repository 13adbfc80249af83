import Foundation
import Testing
import TestSupport
import SQLiteKit

/// Transcripts are shared in bug reports, so a replayed one is untrusted: replayed from the home
/// folder, none of these may change the person's journal or create a file (issue #25 §1).
@Suite struct HostileTranscriptTests {
    let home = TempDirectory(prefix: "ofj-hostile")
    let scratch = TempDirectory(prefix: "ofj-hostile-tmp")
    /// Where ofj keeps the journal when only HOME is set, relative to the home folder.
    let journalRelative = ".local/share/ofj/ofj.sqlite"
    var journalPath: String { home.file(journalRelative) }
    var env: [String: String] { ["HOME": home.path, "TMPDIR": scratch.path] }

    /// The person's journal with one entry, then a snapshot of every file under the home folder.
    func makeVictim() async throws -> [String: Data] {
        if !FileManager.default.fileExists(atPath: journalPath) {
            let r = try await OfjBinary.run(["log", "Oatmeal", "--kcal", "150"], environment: env)
            #expect(r.status == 0, "\(r.stderr)")
        }
        return snapshot()
    }

    func snapshot() -> [String: Data] {
        var out: [String: Data] = [:]
        let base = URL(fileURLWithPath: home.path)
        guard let walker = FileManager.default.enumerator(atPath: base.path) else { return out }
        while let relative = walker.nextObject() as? String {
            let path = base.appendingPathComponent(relative).path
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            out[relative] = isDirectory.boolValue ? Data() : (FileManager.default.contents(atPath: path) ?? Data())
        }
        return out
    }

    /// Replays `body` from the home folder; it must fail with `refusal` and leave the home as it was.
    func expectRefused(_ body: String, refusal: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let before = try await makeVictim()
        let file = scratch.file("hostile-\(UUID().uuidString).ofjt")
        try Data(("@clock 2026-11-29 08:30 UTC\n" + body + "\n").utf8).write(to: URL(fileURLWithPath: file))
        let r = try await OfjBinary.run(["replay", file], environment: env, currentDirectory: home.path)
        #expect(r.status == 1, "\(r.stdout)", sourceLocation: sourceLocation)
        #expect(r.stdout.contains(refusal), "\(r.stdout)", sourceLocation: sourceLocation)
        #expect(r.stdout.contains("a transcript can only read and change its own temporary database"), "\(r.stdout)",
                sourceLocation: sourceLocation)
        let after = snapshot()
        #expect(Set(after.keys) == Set(before.keys), "files appeared or vanished: \(Set(after.keys).symmetricDifference(before.keys))",
                sourceLocation: sourceLocation)
        #expect(after == before, "a file under the home folder changed", sourceLocation: sourceLocation)
        let journal = try Database(path: journalPath, options: .init(readOnly: true))
        #expect(try journal.rows("SELECT name FROM journal_entries").compactMap { $0[0].string } == ["Oatmeal"], sourceLocation: sourceLocation)
        // Nothing was left in the temporary folder either, apart from the transcript itself.
        let left = (try? FileManager.default.contentsOfDirectory(atPath: scratch.path)) ?? []
        #expect(left.allSatisfy { $0.hasPrefix("hostile-") }, "\(left)", sourceLocation: sourceLocation)
    }

    @Test func seedCannotAttachTheJournalByRelativePath() async throws {
        try await expectRefused("""
            @seed sql
              ATTACH DATABASE '\(journalRelative)' AS real;
              UPDATE real.journal_entries SET name = 'tampered';
            """, refusal: "@seed sql refused: opening another database file (ATTACH, VACUUM, VACUUM INTO) is not allowed here")
    }

    @Test func seedCannotAttachTheJournalByAbsolutePath() async throws {
        try await expectRefused("""
            @seed sql
              ATTACH DATABASE '\(journalPath)' AS real;
              DELETE FROM real.journal_entries;
            """, refusal: "@seed sql refused: opening another database file")
    }

    @Test func seedCannotAttachAFileURI() async throws {
        try await expectRefused("""
            @seed sql
              ATTACH DATABASE 'file:\(journalPath)?mode=rw' AS real;
              DELETE FROM real.journal_entries;
            """, refusal: "@seed sql refused: opening another database file")
    }

    @Test func seedCannotVacuumIntoAFile() async throws {
        try await expectRefused("""
            @seed sql
              VACUUM INTO 'copy.sqlite';
            """, refusal: "@seed sql refused: opening another database file (ATTACH, VACUUM, VACUUM INTO)")
        try await expectRefused("""
            @seed sql
              VACUUM INTO '\(home.file("copy.sqlite"))';
            """, refusal: "@seed sql refused: opening another database file (ATTACH, VACUUM, VACUUM INTO)")
    }

    @Test func seedCannotLoadAnExtension() async throws {
        try await expectRefused("""
            @seed sql
              SELECT load_extension('./evil.so');
            """, refusal: "@seed sql refused: the function load_extension() is not allowed here")
    }

    @Test func seedCannotUseDangerousPragmas() async throws {
        for (pragma, refusal) in [("journal_mode = DELETE", "changing PRAGMA journal_mode is not allowed here"),
                                  ("writable_schema = ON", "PRAGMA writable_schema is not allowed here"),
                                  ("temp_store_directory = '\(home.path)'", "PRAGMA temp_store_directory is not allowed here"),
                                  ("data_store_directory = '\(home.path)'", "PRAGMA data_store_directory is not allowed here"),
                                  ("synchronous = OFF", "changing PRAGMA synchronous is not allowed here"),
                                  ("trusted_schema = ON", "PRAGMA trusted_schema is not allowed here")] {
            try await expectRefused("""
                @seed sql
                  PRAGMA \(pragma);
                """, refusal: "@seed sql refused: " + refusal)
        }
    }

    @Test func sqlStepsOnlyRead() async throws {
        for (sql, refusal) in [("DELETE FROM journal_entries", "refused: only reading is allowed here; DELETE would change the database"),
                               ("UPDATE journal_entries SET name = 'x'", "refused: only reading is allowed here; UPDATE"),
                               ("CREATE TABLE planted (x)", "refused: only reading is allowed here; changing the schema"),
                               ("ATTACH DATABASE '\(journalRelative)' AS real", "refused: opening another database file"),
                               // VACUUM INTO compiles (its file opens when it runs), so the read-only check stops it first.
                               ("VACUUM INTO 'copy.sqlite'", "refused: only reading is allowed in a sql: step"),
                               ("PRAGMA user_version = 7", "refused: changing PRAGMA user_version is not allowed here")] {
            try await expectRefused("sql: \(sql)", refusal: "+ | " + refusal)
        }
    }

    /// Seeding its own temporary database is what `@seed sql` is for, and still works.
    @Test func seedStillWritesItsOwnDatabase() async throws {
        _ = try await makeVictim()
        let file = scratch.file("benign.ofjt")
        try Data("""
            @clock 2026-11-29 08:30 UTC
            @seed sql
              INSERT INTO agent_threads (id, title, created_at, updated_at) VALUES ('t1', 'seeded', 0, 0);
              PRAGMA user_version = 3;
            sql: SELECT title FROM agent_threads
            | seeded

            """.utf8).write(to: URL(fileURLWithPath: file))
        let r = try await OfjBinary.run(["replay", file], environment: env, currentDirectory: home.path)
        #expect(r.status == 0, "\(r.stdout)")
    }
}
