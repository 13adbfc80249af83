// `ofj replay` migrates its databases with the executable's own composition: a transcript that
// lists the applied migrations expects exactly those of a database `ofj day` created (the replay
// once lacked Sync's, so a transcript never saw the change-capture triggers).
import Foundation
import SQLiteKit
import Testing
import TestSupport

@Suite struct ReplayMigrationsTests {
    @Test func aReplayedDatabaseHasEveryMigrationTheExecutableApplies() async throws {
        let home = TempDirectory()
        let environment = ["HOME": home.path, "OFJ_HOME": home.file("data")]
        let day = try await OfjBinary.run(["day"], environment: environment)
        #expect(day.status == 0, "\(day.stderr)")
        let applied = try DatabaseQueue(path: home.file("data/ofj.sqlite")).read { db in
            try db.rows("SELECT identifier FROM schema_migrations ORDER BY rowid").compactMap { $0[0].string }
        }
        #expect(applied.contains("journal-1-tables") && applied.contains("sync-1-capture") && applied.contains("research-1-sources"))
        let transcript = """
            # The migrations of a replayed database, in the order applied.
            @clock 2026-11-30 12:00 UTC
            @provider scripted test-model

            sql: SELECT identifier FROM schema_migrations ORDER BY rowid

            """ + applied.map { "| \($0)\n" }.joined()
        let file = home.file("migrations.ofjt")
        try transcript.write(toFile: file, atomically: true, encoding: .utf8)
        let replay = try await OfjBinary.run(["replay", file], environment: ["HOME": home.path])
        #expect(replay.status == 0, "the replay's migrations differ from the executable's:\n\(replay.stdout)\(replay.stderr)")
        #expect(replay.stdout.contains("1 passed, 0 failed"))
    }
}
