// The remote table: creation, additive migration from older shapes, idempotent inserts, expiry.
import Foundation
import Hrana
import SQLiteKit
import TestSupport
import Testing
@testable import Diagnostics

@Suite struct SinkTests {
    func columns(_ fake: FakeTurso) throws -> [String] {
        try fake.rows("PRAGMA table_info(\(TursoSink.table))").compactMap { $0["name"].string }
    }

    @Test func migrateCreatesTheTableOnceAndIsRepeatable() async throws {
        let fake = try FakeTurso()
        let sink = try Fixtures.sink(fake)
        try await sink.migrate()
        try await sink.migrate()
        #expect(try columns(fake) == TursoSink.columnTypes.map(\.name))
        let sql = try fake.rows("SELECT sql FROM sqlite_master WHERE name = '\(TursoSink.table)'")[0][0].string ?? ""
        #expect(sql.contains("id TEXT PRIMARY KEY"))
        let indexes = try fake.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = '\(TursoSink.table)'")
        #expect(indexes.count >= 2)
    }

    @Test func migratesFromAnOlderTableShapeKeepingRows() async throws {
        let fake = try FakeTurso()
        try fake.db.unrestricted { db in
            try db.execute(batch: """
                CREATE TABLE ofj_ai_diagnostic_events (id TEXT PRIMARY KEY, occurred_at TEXT NOT NULL, operation TEXT, status TEXT);
                INSERT INTO ofj_ai_diagnostic_events VALUES ('old-1', '2026-01-01T00:00:00.000Z', 'model_round', 'ok');
                """)
        }
        let sink = try Fixtures.sink(fake)
        try await sink.migrate()
        #expect(Set(try columns(fake)) == Set(TursoSink.columnTypes.map(\.name)))
        #expect(try fake.rows("SELECT id, operation FROM \(TursoSink.table)").map { $0[0].string } == ["old-1"])
        try await sink.insert([Fixtures.event(1)])
        #expect(try fake.rows("SELECT count(*) FROM \(TursoSink.table)")[0][0] == .integer(2))
        #expect(try fake.rows("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = '\(TursoSink.table)'")[0][0].int ?? 0 >= 2)
    }

    @Test func concurrentDuplicateColumnCountsAsSuccess() async throws {
        let fake = try FakeTurso()
        try fake.db.unrestricted { try $0.execute(batch: "CREATE TABLE ofj_ai_diagnostic_events (id TEXT PRIMARY KEY, occurred_at TEXT, expires_at TEXT)") }
        // Another client adds two of the columns between our PRAGMA table_info and our ALTERs.
        fake.beforeRequest = { body, db in
            guard body.contains("ALTER TABLE") else { return }
            try? db.unrestricted { db in
                if try db.rows("PRAGMA table_info(ofj_ai_diagnostic_events)").contains(where: { $0["name"].string == "model" }) { return }
                try db.execute(batch: "ALTER TABLE ofj_ai_diagnostic_events ADD COLUMN model TEXT; ALTER TABLE ofj_ai_diagnostic_events ADD COLUMN status TEXT")
            }
        }
        let sink = try Fixtures.sink(fake)
        try await sink.migrate()
        #expect(Set(try columns(fake)) == Set(TursoSink.columnTypes.map(\.name)))
    }

    @Test func insertsAreIdempotentAndExpireAfter14Days() async throws {
        let fake = try FakeTurso()
        let sink = try Fixtures.sink(fake)
        try await sink.migrate()
        let t = 1_800_000_000.0
        let events = (1...5).map { Fixtures.event($0, at: t + Double($0)) }
        try await sink.insert(events)
        try await sink.insert(events)
        try await sink.insert(Array(events.prefix(2)) + [Fixtures.event(6, at: t + 6)])
        #expect(try fake.rows("SELECT count(*) FROM \(TursoSink.table)")[0][0] == .integer(6))
        let row = try #require(try fake.rows("SELECT occurred_at, expires_at, input_tokens, total_ms, provider FROM \(TursoSink.table) WHERE id = '\(events[0].id)'").first)
        #expect(row[0] == .text(ISOTime.format(t + 1)))
        #expect(row[1] == .text(ISOTime.format(t + 1 + 14 * 86_400)))
        #expect(row[2] == .integer(100))
        #expect(row[3] == .real(123.5))
        #expect(row[4] == .text("gemini"))

        #expect(try await sink.deleteExpired(now: t + 14 * 86_400 + 3.5) == 3)
        #expect(try fake.rows("SELECT count(*) FROM \(TursoSink.table)")[0][0] == .integer(3))
    }

    @Test func aFailingStepWritesNothing() async throws {
        let fake = try FakeTurso()
        try fake.db.unrestricted {
            try $0.execute(batch: "CREATE TABLE ofj_ai_diagnostic_events (id TEXT PRIMARY KEY, occurred_at TEXT, expires_at TEXT, status TEXT CHECK (status <> 'boom'))")
        }
        let sink = try Fixtures.sink(fake)
        try await sink.migrate()
        let bad = DiagnosticEvent(Fixtures.diagnostic(status: "boom"), id: "bad", occurredAt: 1_800_000_000, appVersion: "1")
        await #expect(throws: HranaError.self) { try await sink.insert([Fixtures.event(1), bad, Fixtures.event(2)]) }
        #expect(try fake.rows("SELECT count(*) FROM \(TursoSink.table)")[0][0] == .integer(0))
    }

    @Test func pagesWithKeysets() async throws {
        let fake = try FakeTurso()
        let sink = try Fixtures.sink(fake)
        try await sink.migrate()
        let t = 1_800_000_000.0
        // Several events share a timestamp: the id breaks the tie.
        try await sink.insert((1...7).map { Fixtures.event($0, at: t + Double($0 / 3)) })
        var seen: [String] = []
        var cursor: (occurredAt: String, id: String)?
        while true {
            let page = try await sink.page(since: t - 1, after: cursor, limit: 3)
            let ids = page.rows.compactMap { $0[0].text }
            seen += ids
            guard page.rows.count == 3, let last = page.rows.last, let occurred = last[1].text, let id = last[0].text else { break }
            cursor = (occurred, id)
        }
        #expect(seen == (1...7).map { Fixtures.event($0).id })
        #expect(fake.sent.last?.body.contains("(occurred_at, id) > (?, ?)") == true)
    }
}
