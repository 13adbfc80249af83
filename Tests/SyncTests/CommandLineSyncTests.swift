// The ofj binary on two machines (two OFJ_HOMEs) syncing through tools/turso_server.py: `ofj sync`,
// `ofj sync status`, and the crash sweep (SIGKILL at every sync phase, then convergence).
import Foundation
import SQLiteKit
import TestSupport
import Testing
@testable import Sync

@Suite(.serialized) struct CommandLineSyncTests {
    struct Home {
        let dir = TempDirectory(prefix: "ofj-home")
        let url: String
        var environment: [String: String] {
            ["OFJ_HOME": dir.path, "HOME": dir.path, "XDG_CONFIG_HOME": dir.file("config"), "XDG_STATE_HOME": dir.file("state"),
             "OFJ_SYNC_URL": url, "TZ": "UTC", "NO_COLOR": "1"]
        }
        @discardableResult
        func ofj(_ args: [String], extra: [String: String] = [:]) async throws -> OfjBinary.Result {
            try await OfjBinary.run(args, environment: environment.merging(extra) { _, new in new })
        }
        /// A command run with sync unset, as on a machine that is offline (one-shot commands that
        /// change the journal push at exit otherwise).
        @discardableResult
        func offline(_ args: [String]) async throws -> OfjBinary.Result {
            try await ofj(args, extra: ["OFJ_SYNC_URL": ""])
        }
        /// `ofj backup export` without its export time, keys sorted: equal for equal journals.
        func export() async throws -> String {
            let r = try await ofj(["backup", "export"])
            guard r.status == 0, var object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else {
                throw Failure("backup export failed: \(r.stderr)")
            }
            object["exported_at"] = nil
            return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        }
    }

    @Test func twoHomesConvergeThroughOfjSync() async throws {
        guard OfjBinary.path != nil else { Issue.record("build ofj first (swift build --build-tests)"); return }
        let remote = try await Remote.start()
        let a = Home(url: remote.url), b = Home(url: remote.url)
        try await a.offline(["log", "porridge", "--kcal", "350", "--protein", "12", "--meal", "breakfast", "--date", "2026-11-28"])
        try await b.offline(["log", "soup", "--kcal", "220", "--meal", "lunch", "--date", "2026-11-28"])
        let goals = try await a.offline(["goals", "set", "energy_kcal=2100"])
        #expect(goals.status == 0, "\(goals.stderr)")
        let first = try await a.ofj(["sync"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("sync: pushed 2, pulled 0"))
        let second = try await b.ofj(["sync"])
        #expect(second.stdout.contains("sync: pushed 1, pulled 2"))
        try await a.ofj(["sync"])
        #expect(try await a.export() == b.export())
        let status = try await b.ofj(["sync", "status"])
        #expect(status.stdout.contains("pending local changes: 0"))
        #expect(status.stdout.contains("conflicts resolved: 0"))
        let day = try await a.ofj(["day", "2026-11-28"])
        #expect(day.stdout.contains("soup") && day.stdout.contains("porridge"))
        await remote.shutdown()
    }

    /// Issue 39: a text-only turn sets up nothing it does not use; the sync after it (the one
    /// `ofj ask` makes at exit, then `ofj sync`) still carries what was logged before it.
    @Test func aSyncAfterAPlainTurnStillSyncs() async throws {
        guard OfjBinary.path != nil else { Issue.record("build ofj first (swift build --build-tests)"); return }
        let remote = try await Remote.start()
        let a = Home(url: remote.url), b = Home(url: remote.url)
        try await a.offline(["log", "porridge", "--kcal", "350", "--meal", "breakfast", "--date", "2026-11-28"])
        let turn = try await a.ofj(["ask", "hello", "--provider", "offline"])
        #expect(turn.status == 0, "\(turn.stderr)")
        #expect(!turn.stdout.isEmpty)
        let sync = try await a.ofj(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(try await a.ofj(["sync", "status"]).stdout.contains("pending local changes: 0"))
        let pulled = try await b.ofj(["sync"])
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(try await b.ofj(["day", "2026-11-28"]).stdout.contains("porridge"))
        await remote.shutdown()
    }

    @Test func killedAtEveryPhaseThenConverges() async throws {
        guard OfjBinary.path != nil else { Issue.record("build ofj first (swift build --build-tests)"); return }
        let remote = try await Remote.start()
        let a = Home(url: remote.url), b = Home(url: remote.url)
        for (i, phase) in SyncEngine.phases.enumerated() {
            try await a.offline(["log", "a \(phase)", "--kcal", "\(100 + i)"])
            try await b.offline(["log", "b \(phase)", "--kcal", "\(200 + i)"])
            try await b.ofj(["sync"])
            let killed = try await a.ofj(["sync"], extra: ["OFJ_SYNC_FAULT": phase])
            #expect(killed.status == 9, "phase \(phase): \(killed.status) \(killed.stderr)")
            try await a.ofj(["sync"])
            try await b.ofj(["sync"])
            #expect(try await a.export() == b.export(), "phase \(phase)")
        }
        let entries = try remoteRows(remote.dbPath, "SELECT count(*) FROM ofj_sync_rows WHERE kind = 'entry'").first?[0].int
        #expect(entries == 2 * SyncEngine.phases.count)
        let bad = try await a.ofj(["sync"], extra: ["OFJ_SYNC_FAULT": "nowhere"])
        #expect(bad.status == 2 && bad.stderr.contains("push-sent"))
        await remote.shutdown()
    }

    /// Rows no check let through (another libSQL client, an older sync): 1e19 kcal is shown, not
    /// a crash; `ofj doctor` names a row the views cannot read and says what to do; `ofj entry
    /// delete` removes it by its id even though that id is no UUID.
    @Test func storedRowsTheRulesRejectNeitherCrashViewsNorHideFromDoctor() async throws {
        guard OfjBinary.path != nil else { Issue.record("build ofj first (swift build --build-tests)"); return }
        let a = Home(url: "")
        let created = try await a.offline(["log", "tea", "--kcal", "1"])
        #expect(created.status == 0, "\(created.stderr)")
        let f = DateFormatter()
        f.timeZone = TimeZone(secondsFromGMT: 0)
        f.dateFormat = "yyyy-MM-dd"
        let today = f.string(from: Date())
        let db = try Database(path: a.dir.path + "/ofj.sqlite")
        func plantEntry(_ id: String, day: String, kcal: Double) throws {
            try db.execute("""
                INSERT INTO journal_entries (id, day, meal, name, serving_quantity, serving_unit, servings, source, created_at, updated_at)
                VALUES (?, ?, 'lunch', 'planted', 1, 'serving', 1, 'manual', 1, 1)
                """, [id, day])
            let seq = db.lastInsertRowID
            try db.execute("INSERT INTO journal_entry_nutrients (day, nutrient, entry_seq, amount, total) VALUES (?, 'energy_kcal', ?, ?, ?)", [day, seq, kcal, kcal])
            try db.execute("DELETE FROM journal_day_totals WHERE day = ?", [day])
            try db.execute("INSERT INTO journal_day_totals (day, nutrient, total, reported) SELECT day, nutrient, sum(total), count(*) FROM journal_entry_nutrients WHERE day = ? GROUP BY day, nutrient", [day])
        }
        try plantEntry(UUID().uuidString, day: today, kcal: 1e19)
        for args in [["day", today], ["trend"], ["month"], ["report", "-o", "-"], ["export", "csv"], ["backup", "export"]] {
            let r = try await a.offline(args)
            #expect(r.status == 0, "ofj \(args.joined(separator: " ")): status \(r.status) \(r.stderr)")
        }
        #expect(try await a.offline(["day", today]).stdout.contains("1e+19"))
        try plantEntry("not-a-uuid", day: today, kcal: 5)
        let doctor = try await a.offline(["doctor"])
        #expect(doctor.status == 1)
        #expect(doctor.stdout.contains("journal: entry not-a-uuid breaks the journal's rules (its id is not a UUID), so views and exports may not read it; ofj entry delete 'not-a-uuid' removes it"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("(a nutrient total is out of range)"), "the 1e19 entry is named too: \(doctor.stdout)")
        let refused = try await a.offline(["entry", "delete", "not-a-uuid"])
        #expect(refused.status != 0 && refused.stderr.contains("--yes"))
        let deleted = try await a.offline(["entry", "delete", "not-a-uuid", "--yes"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(try db.scalar("SELECT count(*) FROM journal_entries WHERE id = 'not-a-uuid'").int == 0)
        #expect(!(try await a.offline(["doctor"]).stdout.contains("not-a-uuid")))
    }

    /// SIGKILL while a pull quarantines rows (after a page was read, after one was applied): the
    /// database stays consistent, nothing is quarantined twice, and the next sync finishes.
    @Test func killedDuringAQuarantiningPullThenFinishes() async throws {
        guard OfjBinary.path != nil else { Issue.record("build ofj first (swift build --build-tests)"); return }
        let remote = try await Remote.start()
        let a = Home(url: remote.url), b = Home(url: remote.url)
        for i in 0..<3 { try await a.offline(["log", "good \(i)", "--kcal", "\(100 + i)", "--date", "2026-11-28"]) }
        _ = try await a.offline(["foods", "add", "oats", "--kcal", "380"])
        #expect(try await a.ofj(["sync"]).status == 0)
        var bad = try HostileServerTests.badJournalRows(remote)
        let entry = try HostileServerTests.payload(remote, kind: "entry")
        for _ in 0..<1_200 { // more than one page
            var e = entry
            let id = UUID().uuidString
            e["id"] = id
            e["nutrients"] = [["energy_kcal", 1e19, 1e19]]
            bad.append(PlantedRow("entry", id, .text(try json(e))))
        }
        try plant(bad, into: remote.dbPath)
        try await a.offline(["log", "good last", "--kcal", "7", "--date", "2026-11-28"])
        #expect(try await a.ofj(["sync"]).status == 0)
        let path = b.dir.path + "/ofj.sqlite"
        func consistent() throws {
            let db = try Database(path: path)
            #expect(try db.quickCheck() == ["ok"])
            #expect(try db.scalar("SELECT applying FROM sync_clock").int == 0)
            let wrongTotals = try db.scalar("""
                SELECT count(*) FROM (SELECT day, nutrient, sum(total) AS t FROM journal_entry_nutrients GROUP BY day, nutrient) x
                LEFT JOIN journal_day_totals d USING (day, nutrient) WHERE d.total IS NULL OR abs(x.t - d.total) > 1e-6
                """).int
            #expect(wrongTotals == 0)
            #expect(try db.scalar("SELECT count(*) FROM (SELECT kind, record_id FROM sync_quarantine GROUP BY 1, 2 HAVING count(*) > 1)").int == 0)
        }
        for phase in ["pull-read", "pull-applied"] {
            let killed = try await b.ofj(["sync"], extra: ["OFJ_SYNC_FAULT": phase])
            #expect(killed.status == 9, "phase \(phase): \(killed.status) \(killed.stderr)")
            try consistent()
        }
        let finished = try await b.ofj(["sync"])
        #expect(finished.status == 0, "\(finished.stderr)")
        try consistent()
        let db = try Database(path: path)
        #expect(try db.scalar("SELECT count(*) FROM sync_quarantine").int == bad.count)
        #expect(try db.scalar("SELECT count(*) FROM journal_entries").int == 4)
        let status = try await b.ofj(["sync", "status"])
        #expect(status.stdout.contains("remote changes quarantined: \(bad.count)"), "\(status.stdout)")
        let listed = try await b.ofj(["sync", "quarantine"])
        #expect(listed.status == 0)
        #expect(listed.stdout.split(separator: "\n").filter { $0.contains(" bytes: ") }.count == 100, "the newest 100")
        let conflicts = try await b.ofj(["sync", "conflicts"])
        #expect(conflicts.stdout.contains("\(bad.count) changes from other machines quarantined"))
        let day = try await b.ofj(["day", "2026-11-28"])
        #expect(day.status == 0 && day.stdout.contains("good last"))
        #expect(try await b.ofj(["doctor"]).stdout.contains("journal:") == false)
        await remote.shutdown()
    }

    /// The REPL syncs in the background at start (the prompt comes first) and `/sync` syncs now.
    @Test func theREPLSyncsAtStartAndOnSlashSync() async throws {
        let binary = try #require(OfjBinary.path, "build ofj first (swift build --build-tests)")
        let remote = try await Remote.start()
        let a = Home(url: remote.url), b = Home(url: remote.url)
        try await a.ofj(["log", "from the cli", "--kcal", "120"])
        var environment = a.environment
        environment["TERM"] = "xterm"
        environment["OFJ_PROVIDER"] = "offline"
        let p = try PTYProcess(executable: binary, arguments: [], environment: environment)
        #expect(await p.read(until: "/help for commands") != nil)
        // Bounded wait for the start-up sync (it runs behind the prompt).
        let deadline = Date().addingTimeInterval(60)
        while ((try? remoteRows(remote.dbPath, "SELECT count(*) FROM ofj_sync_rows"))?.first?[0].int ?? 0) == 0, Date() < deadline {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        #expect(try remoteRows(remote.dbPath, "SELECT count(*) FROM ofj_sync_rows WHERE kind = 'entry'").first?[0].int == 1)
        try await b.ofj(["log", "from b", "--kcal", "80"])
        try await b.ofj(["sync"])
        p.send("/sync\r")
        let shown = await p.read(until: "conflicts resolved: 0")
        #expect(shown.map(stripANSI)?.contains("sync: pushed 0, pulled 1") == true, "\(shown ?? "")")
        p.send("/exit\r")
        #expect(await p.waitForExit() == 0)
        #expect(try await a.export() == b.export())
        await remote.shutdown()
    }

    /// `ofj ask --yes` that writes syncs the write at exit.
    /// `ofj log` (any one-shot command that changes the journal) pushes its change as it exits,
    /// so the other machine sees it without anyone running `ofj sync` here.
    @Test func oneShotCommandsPushTheirChangeAtExit() async throws {
        guard OfjBinary.path != nil else { Issue.record("build ofj first (swift build --build-tests)"); return }
        let remote = try await Remote.start()
        let a = Home(url: remote.url), b = Home(url: remote.url)
        let r = try await a.ofj(["log", "porridge", "--kcal", "350", "--meal", "breakfast", "--date", "2026-11-28"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try remoteRows(remote.dbPath, "SELECT count(*) FROM ofj_sync_rows WHERE kind = 'entry'").first?[0].int == 1)
        #expect(try await a.ofj(["sync", "status"]).stdout.contains("pending local changes: 0"))
        try await b.ofj(["sync"])
        #expect(try await b.ofj(["day", "2026-11-28"]).stdout.contains("porridge"))
        // A command that only reads sends nothing and does not wait for the sync database.
        await remote.shutdown()
        let day = try await a.ofj(["day", "2026-11-28"])
        #expect(day.status == 0 && day.stderr.isEmpty, "\(day.stderr)")
    }

    @Test func askSyncsItsWriteAtExit() async throws {
        guard OfjBinary.path != nil else { Issue.record("build ofj first (swift build --build-tests)"); return }
        let remote = try await Remote.start()
        let a = Home(url: remote.url)
        let r = try await a.ofj(["ask", "--yes", "log 2 eggs for breakfast"], extra: ["OFJ_PROVIDER": "offline"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try remoteRows(remote.dbPath, "SELECT count(*) FROM ofj_sync_rows WHERE kind = 'entry'").first?[0].int == 1)
        let status = try await a.ofj(["sync", "status"])
        #expect(status.stdout.contains("pending local changes: 0"), "\(status.stdout)")
        await remote.shutdown()
    }

    /// A conversation held with `ofj ask` on A is on B after `ofj sync`: its messages, in order,
    /// found by `ofj search` with the entry it logged.
    @Test func aConversationFromAskIsSearchableOnTheOtherMachine() async throws {
        guard OfjBinary.path != nil else { Issue.record("build ofj first (swift build --build-tests)"); return }
        let remote = try await Remote.start()
        let a = Home(url: remote.url), b = Home(url: remote.url)
        let r = try await a.ofj(["ask", "--yes", "log 2 eggs for breakfast"], extra: ["OFJ_PROVIDER": "offline"])
        #expect(r.status == 0, "\(r.stderr)")
        try await a.ofj(["sync"])
        let pulled = try await b.ofj(["sync"])
        #expect(pulled.status == 0, "\(pulled.stderr)")
        let search = try await b.ofj(["search", "--json", "eggs"])
        #expect(search.status == 0, "\(search.stderr)")
        let mine = try await a.ofj(["search", "--json", "eggs"])
        #expect(search.stdout == mine.stdout)
        #expect(search.stdout.contains("\"message\"") && search.stdout.contains("breakfast"), "\(search.stdout)")
        let threads = try await b.ofj(["threads", "--json"])
        let theirs = try await a.ofj(["threads", "--json"])
        #expect(threads.stdout == theirs.stdout && !threads.stdout.isEmpty)
        #expect(try remoteRows(remote.dbPath, "SELECT count(*) FROM ofj_sync_rows WHERE kind = 'message'").first?[0].int ?? 0 >= 2)
        await remote.shutdown()
    }

    @Test func doctorNamesTheSyncDatabaseAndItsProblems() async throws {
        guard OfjBinary.path != nil else { Issue.record("build ofj first (swift build --build-tests)"); return }
        let a = Home(url: "libsql://me:hunter2@journal.turso.io")
        let ok = try await a.ofj(["doctor"], extra: ["OFJ_SYNC_TOKEN": "tok-secret-1"])
        #expect(ok.stdout.contains("sync: https://"), "\(ok.stdout)")
        #expect(!ok.stdout.contains("hunter2") && !ok.stdout.contains("tok-secret-1"))
        let bad = try await a.ofj(["doctor"], extra: ["OFJ_SYNC_URL": "ftp://nowhere"])
        #expect(bad.status == 1)
        #expect(bad.stdout.contains("-- sync: OFJ_SYNC_URL must start with"), "\(bad.stdout)")
    }
}
