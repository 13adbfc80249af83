// Faults: a newer remote schema, refused tokens, rate limits, server errors, an HTML proxy, a
// lost acknowledgement, a cut-off page, rows this ofj cannot apply, two machines at once.
import Foundation
import Hrana
import Journal
import SQLiteKit
import TestSupport
import Testing
@testable import Sync

@Suite(.serialized) struct FaultTests {
    @Test func aNewerRemoteSchemaIsRefusedAndNothingIsWritten() async throws {
        let remote = try await Remote.start()
        let a = try Machine(url: remote.url)
        try a.log("first", kcal: 1)
        try await a.sync()
        let db = try Database(path: remote.dbPath)
        try db.execute("UPDATE ofj_sync_meta SET value = '2' WHERE key = 'schema_version'")
        try a.log("second", kcal: 2)
        let before = try remoteRows(remote.dbPath, "SELECT count(*), max(pos) FROM ofj_sync_rows").first
        let report = await a.engine.run()
        #expect(report.error?.contains("newer version of ofj") == true)
        #expect(report.retryable == false)
        let after = try remoteRows(remote.dbPath, "SELECT count(*), max(pos) FROM ofj_sync_rows").first
        #expect(before?[0] == after?[0] && before?[1] == after?[1])
        #expect(try a.local.status().pending == 1)
        #expect(try a.local.status().lastError?.contains("newer version") == true)
        await remote.shutdown()
    }

    @Test func theInBatchGuardRollsBackAPushRacingAnUpgrade() async throws {
        let remote = try await Remote.start()
        let a = try Machine(url: remote.url)
        let id = try await a.engine.remote.migrate()
        #expect(!id.isEmpty)
        try Database(path: remote.dbPath).execute("UPDATE ofj_sync_meta SET value = '3' WHERE key = 'schema_version'")
        let record = SyncRecord(kind: "setting", id: "goals", stamp: SyncStamp(hlc: 1, device: "d"), payload: #"{"key":"goals","value":"{}"}"#)
        await #expect(throws: SyncError.self) { try await a.engine.remote.push([record], device: "d", appVersion: "t") }
        #expect(try remoteRows(remote.dbPath, "SELECT count(*) FROM ofj_sync_rows").first?[0].int == 0)
        #expect(try remoteRows(remote.dbPath, "SELECT count(*) FROM ofj_sync_devices").first?[0].int == 0)
        await remote.shutdown()
    }

    @Test func httpFaultsLeaveChangesPendingAndTheNextSyncConverges() async throws {
        let remote = try await Remote.start(token: "tok-sync-123")
        let a = try Machine(url: remote.url, token: "tok-sync-123"), b = try Machine(url: remote.url, token: "tok-sync-123")
        let wrong = try Machine(url: remote.url, token: "expired")
        try wrong.log("x", kcal: 1)
        let refused = await wrong.engine.run()
        #expect(refused.error?.contains("refused the token") == true)
        #expect(refused.error?.contains("OFJ_SYNC_TOKEN") == true)
        #expect(refused.error?.contains("expired") == false)
        #expect(refused.retryable == false)
        for (i, mode) in ["429", "500", "503", "garbage", "down"].enumerated() {
            try a.log("entry \(i)", kcal: Double(i))
            try await remote.server.setMode(mode)
            let failed = await a.engine.run()
            #expect(failed.error != nil, "mode \(mode)")
            #expect(failed.retryable, "mode \(mode)")
            #expect(failed.error?.contains("<html") == false)
            try await remote.server.setMode("normal")
        }
        #expect(try a.local.status().pending == 5)
        try await a.sync()
        try await b.sync()
        #expect(try a.dump() == b.dump())
        #expect(try b.count("journal_entries") == 5)
        await remote.shutdown()
    }

    @Test func aLostAcknowledgementIsResentWithoutDuplicates() async throws {
        let remote = try await Remote.start()
        let a = try Machine(url: remote.url), b = try Machine(url: remote.url)
        for i in 0..<10 { try a.log("meal \(i)", kcal: Double(i)) }
        _ = try await a.engine.remote.migrate() // the tables exist; now the push's answer is lost
        try await remote.server.setMode("commit_then_drop")
        // What the engine does after the schema check: the push commits remotely, its answer is lost.
        let batch = try a.local.pendingBatch(limit: 100, maxBytes: 1 << 20)
        await #expect(throws: SyncError.self) { try await a.engine.remote.push(batch, device: try a.local.device(), appVersion: "t") }
        #expect(try remoteRows(remote.dbPath, "SELECT count(*) FROM ofj_sync_rows").first?[0].int == 10) // committed
        #expect(try a.local.status().pending == 10)                                                       // not acknowledged
        try await remote.server.setMode("normal")
        try await a.sync()
        #expect(try remoteRows(remote.dbPath, "SELECT count(*), max(pos) FROM ofj_sync_rows").first.map { [$0[0].int, $0[1].int] } == [10, 10])
        try await b.sync()
        #expect(try b.count("journal_entries") == 10)
        #expect(try a.dump() == b.dump())
        await remote.shutdown()
    }

    @Test func aCutOffPullPageAppliesNothing() async throws {
        let remote = try await Remote.start()
        let a = try Machine(url: remote.url), b = try Machine(url: remote.url)
        for i in 0..<20 { try a.log("snack \(i)", kcal: Double(i)) }
        try await a.sync()
        _ = try await b.engine.remote.migrate() // the schema read is answered before the cut starts
        try await remote.server.setMode("cut")
        let cut = await b.engine.run()
        #expect(cut.error != nil)
        #expect(try b.count("journal_entries") == 0)
        #expect(try b.local.remotePosition() == 0)
        try await remote.server.setMode("normal")
        try await b.sync()
        #expect(try a.dump() == b.dump())
        await remote.shutdown()
    }

    @Test func rowsThisOfjCannotApplyAreSkippedCountedAndReported() async throws {
        let remote = try await Remote.start()
        let a = try Machine(url: remote.url), b = try Machine(url: remote.url)
        try a.log("good", kcal: 5)
        try await a.sync()
        let db = try Database(path: remote.dbPath)
        let bad: [(String, String, String?)] = [
            ("recipe", "r1", #"{"id":"r1"}"#),                                               // unknown kind
            ("entry", "e1", "{not json"),                                                    // malformed
            ("entry", "e2", #"{"id":"e2","day":"2026-11-30","meal":"lunch","name":5}"#),     // wrong type
            ("entry", "e3", #"{"id":"e3","day":"2026-11-30","meal":"brunch","name":"x","serving_quantity":1,"serving_unit":"serving","servings":1,"source":"manual","created_at":1,"updated_at":1}"#), // CHECK fails
            ("entry", "e4", #"{"id":"other","day":"2026-11-30"}"#),                          // key mismatch
        ]
        for (i, row) in bad.enumerated() {
            try db.execute("INSERT INTO ofj_sync_rows (kind, id, pos, hlc, device, deleted, payload, pushed_at) VALUES (?, ?, ?, ?, 'evil', 0, ?, '2026-11-30T00:00:00Z')",
                           [row.0, row.1, 100 + i, 1, row.2])
        }
        try a.log("also good", kcal: 6)
        try await a.sync()
        let report = try await b.sync()
        #expect(report.skipped == 1)
        #expect(report.quarantined == 4)
        #expect(report.applied == 2)
        #expect(try b.count("journal_entries") == 2)
        #expect(SyncText.line(report).contains("1 remote change skipped"))
        #expect(SyncText.line(report).contains("4 remote changes quarantined"))
        #expect(try b.local.status().skipped == 1)
        #expect(try b.local.status().quarantined == 4)
        #expect(SyncText.status(try b.local.status(), configuration: b.engine.configuration, problem: nil).contains("remote changes skipped: 1"))
        // Skipped and quarantined rows are not read again.
        let again = try await b.sync()
        #expect(again.skipped == 0 && again.quarantined == 0)
        await remote.shutdown()
    }

    @Test func twoMachinesSyncingAtTheSameMomentConverge() async throws {
        let remote = try await Remote.start()
        let a = try Machine(url: remote.url), b = try Machine(url: remote.url)
        for i in 0..<50 {
            try a.log("a \(i)", kcal: Double(i))
            try b.log("b \(i)", kcal: Double(i))
        }
        a.engine.limits.batchRecords = 7
        b.engine.limits.batchRecords = 5
        async let ra = a.engine.run()
        async let rb = b.engine.run()
        let (x, y) = await (ra, rb)
        #expect(x.error == nil && y.error == nil)
        try await a.sync()
        try await b.sync()
        #expect(try a.dump() == b.dump())
        #expect(try a.count("journal_entries") == 100)
        await remote.shutdown()
    }

    @Test func aReplacedRemoteDatabaseReceivesEverythingAgain() async throws {
        let remote = try await Remote.start()
        let a = try Machine(url: remote.url), b = try Machine(url: remote.url)
        for i in 0..<4 { try a.log("kept \(i)", kcal: Double(i)) }
        try await a.sync()
        try await b.sync()
        // The database is emptied and set up again (a new database behind the same URL).
        try Database(path: remote.dbPath).execute(batch: "DROP TABLE ofj_sync_rows; DROP TABLE ofj_sync_meta; DROP TABLE ofj_sync_devices;")
        let again = try await a.sync()
        #expect(again.pushed == 4)
        #expect(try remoteRows(remote.dbPath, "SELECT count(*) FROM ofj_sync_rows").first?[0].int == 4)
        try b.log("new on b", kcal: 9)
        try await b.sync()
        try await a.sync()
        #expect(try a.dump() == b.dump())
        #expect(try a.count("journal_entries") == 5)
        await remote.shutdown()
    }

    @Test func aTokenExpiringMidSyncKeepsTheRestPendingWithoutDuplicates() async throws {
        let remote = try await Remote.start()
        let a = try Machine(url: remote.url), b = try Machine(url: remote.url)
        for i in 0..<30 { try a.log("item \(i)", kcal: Double(i)) }
        // Two requests set the remote up, the third pushes the first batch, then the token is refused.
        let client = HranaClient(configuration: a.engine.configuration.turso, transport: ExpiringTokenTransport(allowed: 3))
        var expiring = SyncEngine(local: a.local, remote: SyncRemote(client: client), configuration: a.engine.configuration, appVersion: "t")
        expiring.limits.batchRecords = 10
        let report = await expiring.run()
        #expect(report.pushed == 10)
        #expect(report.error?.contains("refused the token") == true)
        #expect(try a.local.status().pending == 20)
        try await a.sync()
        try await b.sync()
        #expect(try remoteRows(remote.dbPath, "SELECT count(*) FROM ofj_sync_rows").first?[0].int == 30)
        #expect(try a.dump() == b.dump())
        await remote.shutdown()
    }

    @Test func tombstonesStay90DaysAndUntilEveryDeviceHasSeenThem() async throws {
        let remote = try await Remote.start()
        let a = try Machine(url: remote.url), b = try Machine(url: remote.url)
        let entry = try a.log("gone soon", kcal: 1)
        try await a.sync()
        try await b.sync()
        _ = try a.journal.deleteEntry(entry.id)
        try await a.sync()
        let tombstones = { try remoteRows(remote.dbPath, "SELECT count(*) FROM ofj_sync_rows WHERE deleted = 1").first?[0].int }
        let position = try a.local.remotePosition()
        let later = Date().addingTimeInterval(91 * 86_400)
        // 91 days on, but B has not pulled the deletion yet: kept.
        try await a.engine.remote.recordPulled(device: try a.local.device(), position: position, appVersion: "t", now: later)
        #expect(try tombstones() == 1)
        try await b.sync() // B applies it and records its position
        try await b.engine.remote.recordPulled(device: try b.local.device(), position: try b.local.remotePosition(), appVersion: "t",
                                               now: Date().addingTimeInterval(30 * 86_400))
        #expect(try tombstones() == 1) // everyone has seen it, but it is only 30 days old
        try await b.engine.remote.recordPulled(device: try b.local.device(), position: try b.local.remotePosition(), appVersion: "t", now: later)
        #expect(try tombstones() == 0)
        #expect(try b.journal.entry(entry.id) == nil)
        await remote.shutdown()
    }

    @Test func anOlderRemoteTableShapeGainsItsMissingColumns() async throws {
        let remote = try await Remote.start()
        try Database(path: remote.dbPath).execute(batch: """
            CREATE TABLE ofj_sync_meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
            INSERT INTO ofj_sync_meta VALUES ('schema_version', '1'), ('database_id', 'old-db');
            CREATE TABLE ofj_sync_rows (kind TEXT NOT NULL, id TEXT NOT NULL, pos INTEGER NOT NULL, hlc INTEGER NOT NULL,
                device TEXT NOT NULL, deleted INTEGER NOT NULL DEFAULT 0, payload TEXT, PRIMARY KEY (kind, id));
            """)
        let a = try Machine(url: remote.url), b = try Machine(url: remote.url)
        try a.log("fits the old table", kcal: 3)
        try await a.sync()
        try await b.sync()
        let columns = try remoteRows(remote.dbPath, "PRAGMA table_info(ofj_sync_rows)").compactMap { $0[1].string }
        #expect(columns.contains("pushed_at"))
        #expect(try a.dump() == b.dump())
        #expect(try b.count("journal_entries") == 1)
        await remote.shutdown()
    }

    @Test func aFullDiskDuringAPullKeepsNothingAndSkipsNothing() async throws {
        let remote = try await Remote.start()
        let a = try Machine(url: remote.url), b = try Machine(url: remote.url)
        for i in 0..<200 { try a.log("a fairly long entry name number \(i) to fill pages", kcal: Double(i)) }
        try await a.sync()
        let pages = try b.queue.read { try $0.scalar("PRAGMA page_count").int ?? 0 }
        try b.queue.unrestricted { try $0.execute("PRAGMA max_page_count = \(pages + 2)") } // "the disk is full"
        let full = await b.engine.run()
        #expect(full.error?.contains("could not write the synced changes here") == true, "\(full.error ?? "")")
        #expect(full.skipped == 0)
        #expect(try b.count("journal_entries") == 0)
        #expect(try b.local.remotePosition() == 0)
        try b.queue.unrestricted { try $0.execute("PRAGMA max_page_count = 1073741823") }
        try await b.sync()
        #expect(try a.dump() == b.dump())
        await remote.shutdown()
    }
}
