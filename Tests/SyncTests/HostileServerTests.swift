// A hostile sync database (issue 31): rows of every kind with every wrong type and range are
// quarantined with their reason and never applied, the rest of the page goes on, and what the
// journal holds afterwards is readable by every view.
import Base
import Foundation
import HTTP
import Journal
import Nutrition
import SQLiteKit
import TestSupport
import Testing
import Views
@testable import Sync

/// A row written straight into the remote's table, as any libSQL client could.
struct PlantedRow {
    var kind: HranaLike
    var id: HranaLike
    var hlc: HranaLike
    var deleted: HranaLike = .integer(0)
    var payload: HranaLike
    var device: HranaLike = .text("evil")
    init(_ kind: String, _ id: String, hlc: HranaLike = .integer(1), deleted: HranaLike = .integer(0), _ payload: HranaLike) {
        self.kind = .text(kind); self.id = .text(id); self.hlc = hlc; self.deleted = deleted; self.payload = payload
    }
    init(kind: HranaLike, id: HranaLike, hlc: HranaLike, deleted: HranaLike = .integer(0), payload: HranaLike) {
        self.kind = kind; self.id = id; self.hlc = hlc; self.deleted = deleted; self.payload = payload
    }
}

/// SQLite values of any type (the remote keeps whatever it is given).
enum HranaLike {
    case integer(Int64), real(Double), text(String), blob([UInt8]), null
    var value: DatabaseValueConvertible {
        switch self {
        case .integer(let v): return v
        case .real(let v): return v
        case .text(let s): return s
        case .blob(let b): return DatabaseValue.blob(b)
        case .null: return DatabaseValue.null
        }
    }
}

/// Inserts rows after the remote's last position, each with the next position.
func plant(_ rows: [PlantedRow], into path: String) throws {
    let db = try Database(path: path)
    var pos = try db.scalar("SELECT coalesce(max(pos), 0) FROM ofj_sync_rows").int64 ?? 0
    try db.transaction { db in
        for r in rows {
            pos += 1
            try db.execute("INSERT OR REPLACE INTO ofj_sync_rows (kind, id, pos, hlc, device, deleted, payload, pushed_at) VALUES (?, ?, ?, ?, ?, ?, ?, '2026-11-30T00:00:00Z')",
                           [r.kind.value, r.id.value, pos, r.hlc.value, r.device.value, r.deleted.value, r.payload.value])
        }
    }
}

/// A JSON object as text (keys sorted).
func json(_ object: [String: Any]) throws -> String {
    String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
}

@Suite(.serialized) struct HostileServerTests {
    /// A valid payload of `kind` as machine `a` pushed it, as a dictionary to spoil.
    static func payload(_ remote: Remote, kind: String) throws -> [String: Any] {
        let text = try #require(try remoteRows(remote.dbPath, "SELECT payload FROM ofj_sync_rows WHERE kind = '\(kind)' LIMIT 1").first?[0].string)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Bad entries, foods and settings: each one the journal's rules reject.
    static func badJournalRows(_ remote: Remote) throws -> [PlantedRow] {
        let entry = try payload(remote, kind: "entry"), food = try payload(remote, kind: "food")
        var rows: [PlantedRow] = []
        func spoilEntry(_ id: String = UUID().uuidString, _ change: (inout [String: Any]) -> Void) throws {
            var e = entry
            e["id"] = id
            change(&e)
            rows.append(PlantedRow("entry", id, .text(try json(e))))
        }
        try spoilEntry { $0["nutrients"] = [["energy_kcal", 1e19, 1e19]] }
        try spoilEntry { $0["nutrients"] = [["energy_kcal", -5000, -5000]] }
        try spoilEntry { $0["nutrients"] = (0..<20_000).map { ["n\($0)_g", 1, 1] } }
        try spoilEntry { $0["nutrients"] = [["Energy KCAL!", 1, 1]] }
        try spoilEntry { $0["nutrients"] = "garbage" }
        try spoilEntry { $0["nutrients"] = [["energy_kcal", "x", 1]] }
        try spoilEntry("not-a-uuid") { _ in }
        try spoilEntry(UUID().uuidString.lowercased()) { _ in }
        try spoilEntry { $0["day"] = "2026-13-45" }
        try spoilEntry { $0["day"] = "1066-10-14" }
        try spoilEntry { $0["meal"] = "brunch" }
        try spoilEntry { $0["name"] = String(repeating: "n", count: 2 << 20) }
        try spoilEntry { $0["name"] = "" }
        try spoilEntry { $0["name"] = 5 }
        try spoilEntry { $0["servings"] = -3 }
        try spoilEntry { $0["servings"] = 0 }
        try spoilEntry { $0["serving_grams"] = 1e308 }
        try spoilEntry { $0["serving_quantity"] = "one" }
        try spoilEntry { $0["created_at"] = 1.5 }
        try spoilEntry { $0["updated_at"] = 4_102_444_800_000 } // 2100: more than a day ahead
        try spoilEntry { $0["saved_food_id"] = "not a food" }
        try spoilEntry { $0["id"] = UUID().uuidString } // names another key
        rows.append(PlantedRow("entry", UUID().uuidString, .text("{not json")))
        rows.append(PlantedRow("entry", UUID().uuidString, .text("[1, 2]")))
        func spoilFood(_ id: String = UUID().uuidString, _ change: (inout [String: Any]) -> Void) throws {
            var f = food
            f["id"] = id
            change(&f)
            rows.append(PlantedRow("food", id, .text(try json(f))))
        }
        try spoilFood { $0["nutrients"] = "not json" }
        try spoilFood { $0["nutrients"] = #"{"energy_kcal":1e300}"# }
        try spoilFood { $0["body"] = "not json" }
        try spoilFood { $0["serving_quantity"] = -1 }
        try spoilFood { $0["kind"] = "spaceship" }
        try spoilFood { $0["barcode"] = "abc" }
        try spoilFood("garbage-id") { _ in }
        try spoilFood { $0["name"] = String(repeating: "x", count: 5000) }
        rows.append(PlantedRow("setting", "goals", .text(#"{"key":"goals","value":"not json"}"#)))
        return rows
    }

    @Test func rowsOfEveryKindWithWrongTypesAndRangesAreQuarantinedAndTheRestApplies() async throws {
        let remote = try await Remote.start()
        let a = try Machine(url: remote.url), b = try Machine(url: remote.url)
        try a.log("good", kcal: 5)
        _ = try a.journal.createFood(FoodDraft(name: "oats", nutrients: try NutrientAmounts(["energy_kcal": 380])))
        try await a.sync()
        var bad = try Self.badJournalRows(remote)
        let goalsVariants: [String] = [#"{"key":"goals","value":"{\"values\":{\"energy_kcal\":-5}}"}"#, #"{"key":"goals","value":5}"#]
        // Settings have one record ("goals"): each bad version is planted and pulled on its own below.
        let badThreads: [PlantedRow] = [
            PlantedRow("thread", "t-bad", .text(#"{"id":"t-bad","title":5,"created_at":1,"updated_at":1}"#)),
            PlantedRow("message", "m-bad", .text(#"{"sync_id":"m-bad","thread_id":"t1","seq":1,"role":"user","state":"done","created_at":1,"parts":[[0]]}"#)),
            PlantedRow("attachment", "x-bad", .text(#"{"sync_id":"x-bad","ordinal":0,"name":"x","sha256":"nope","message":"m","media_type":"image/png","byte_count":1}"#)),
            PlantedRow("source", "s-bad", .text(#"{"sync_id":"s-bad","thread_id":5}"#)),
            PlantedRow("thread", "t-long", .text(#"{"id":"t-long","title":"\#(String(repeating: "t", count: 2 << 20))","created_at":1,"updated_at":1}"#)),
        ]
        // Rows whose columns have the wrong types: the stamp, the kind, the flag, the payload.
        let badColumns: [PlantedRow] = [
            PlantedRow("entry", UUID().uuidString, hlc: .text("abc"), .text("{}")),
            PlantedRow("entry", UUID().uuidString, hlc: .real(1.5), .text("{}")),
            PlantedRow(kind: .text("entry"), id: .blob([1, 2]), hlc: .integer(1), payload: .text("{}")),
            PlantedRow("entry", UUID().uuidString, deleted: .integer(2), .text("{}")),
            PlantedRow("entry", UUID().uuidString, deleted: .text("yes"), .text("{}")),
            PlantedRow("entry", UUID().uuidString, .null),
            PlantedRow("entry", UUID().uuidString, .blob([0x7B, 0x7D])),
            PlantedRow("entry", String(repeating: "i", count: 300), .text("{}")),
        ]
        bad += badThreads + badColumns
        try plant(bad, into: remote.dbPath)
        try a.log("also good", kcal: 6)
        try await a.sync()
        let clock0 = Date()
        let report = try await b.sync()
        print("HOSTILE every wrong type and range: \(report.quarantined) quarantined, \(report.skipped) skipped, error: \(report.error ?? "none"), \(String(format: "%.2f", Date().timeIntervalSince(clock0))) s")
        #expect(report.quarantined == bad.count, "\(report)")
        #expect(report.applied == 3) // a's two entries and its food
        #expect(report.error == nil)
        #expect(try b.count("journal_entries") == 2)
        #expect(try b.count("journal_saved_foods") == 1)
        #expect(try b.count("agent_threads") == 0 && b.count("agent_messages") == 0)
        #expect(try b.count("sync_quarantine") == bad.count)
        // Every view of the journal reads what it holds.
        _ = try b.journal.exportBackup()
        _ = try b.journal.exportCSV()
        _ = try b.journal.goals()
        #expect(try b.queue.read { try b.journal.storedRowProblems(in: $0) }.total == 0)
        let status = try b.local.status()
        #expect(status.quarantined == bad.count)
        #expect(SyncText.status(status, configuration: b.engine.configuration, problem: nil).contains("remote changes quarantined: \(bad.count)"))
        #expect(SyncText.line(report).contains("\(bad.count) remote changes quarantined"))
        let listed = try b.local.quarantined(limit: 1000)
        #expect(listed.count == bad.count)
        #expect(listed.allSatisfy { !$0.reason.isEmpty })
        let text = SyncText.quarantine(listed)
        #expect(!text.contains(String(repeating: "n", count: 100)), "the listing never shows content")
        #expect(text.contains("its stamp is not an integer") && text.contains("more than 200 nutrients")
                && text.contains("its id is not a UUID") && text.contains("its day is not readable"))
        // Quarantined rows are not read again, and a valid version of one of them replaces it.
        #expect(try await b.sync().quarantined == 0)
        for (i, variant) in goalsVariants.enumerated() {
            try plant([PlantedRow("setting", "goals", hlc: .integer(Int64(10 + i)), .text(variant))], into: remote.dbPath)
            let r = try await b.sync()
            #expect(r.quarantined == 1, "goals variant \(i)")
            #expect(try b.journal.goals() == .fdaDefaults)
        }
        try a.journal.setGoal("energy_kcal", to: 2100)
        try await a.sync()
        let fixed = try await b.sync()
        #expect(fixed.applied == 1 && fixed.quarantined == 0)
        #expect(try b.journal.goals().values["energy_kcal"] == 2100)
        // The goals' quarantined version (one per record) is gone, the rest stay.
        #expect(try b.count("sync_quarantine") == bad.count - 1)
        await remote.shutdown()
    }

    @Test func everyNumberFormatterIsTotal() {
        for v in [1e19, -1e19, 9.3e18, 1e308, -1e308, .infinity, -.infinity, .nan, 1e15, 123_456_789_012_345.6] {
            _ = JournalViews.number(v)
            _ = JournalViews.amount("energy_kcal", v)
            _ = v.formattedAmount
            _ = v.clampedInt
        }
        #expect(JournalViews.number(1e19) == "1e+19")
        #expect(1e19.formattedAmount == "1e+19")
        #expect(Double.nan.formattedAmount == "NaN" && Double.infinity.formattedAmount == "∞")
        #expect(1e19.clampedInt == Int.max && Double.nan.clampedInt == 0 && (-1e300).clampedInt == Int.min)
        #expect(JournalViews.number(1234.5) == "1,234.5")
    }

    // MARK: - The clock (item 4)

    /// The remote's request counters (GET /__admin/stats).
    static func requests(_ remote: Remote) async throws -> Int {
        let r = try await CurlTransport().send(HTTPRequest(method: "GET", url: remote.url + "/__admin/stats"))
        let body = try await r.collect()
        return try JSONValue.parse(String(decoding: body, as: UTF8.self))["requests"]?.doubleValue.map { Int($0) } ?? -1
    }

    static func clock(_ m: Machine) throws -> (type: String, hlc: Int64) {
        try m.queue.read { db in
            let r = try #require(try db.row("SELECT typeof(hlc), hlc FROM sync_clock"))
            return (r[0].string ?? "", r[1].int64 ?? 0)
        }
    }

    @Test func stampsFarAheadNegativeOrOfAnUnknownKindNeverMoveTheClock() async throws {
        let remote = try await Remote.start()
        let a = try Machine(url: remote.url), b = try Machine(url: remote.url)
        try a.log("good", kcal: 5)
        try await a.sync()
        let entry = try Self.payload(remote, kind: "entry")
        func planted(_ hlc: Int64) throws -> PlantedRow {
            var e = entry
            let id = UUID().uuidString
            e["id"] = id
            return PlantedRow("entry", id, hlc: .integer(hlc), .text(try json(e)))
        }
        let nowMicros = Int64(Date().timeIntervalSince1970 * 1_000_000)
        try plant([try planted(Int64.max), try planted(nowMicros + 8 * 86_400_000_000), try planted(-5), try planted(0),
                   PlantedRow("recipe", "r1", hlc: .integer(Int64.max), .text("{}"))], into: remote.dbPath)
        let clock0 = Date()
        let report = try await b.sync()
        print("HOSTILE stamps INT64_MAX, +8 days, -5, 0: \(report.quarantined) quarantined, \(report.skipped) skipped, error: \(report.error ?? "none"), \(String(format: "%.2f", Date().timeIntervalSince(clock0))) s")
        #expect(report.quarantined == 4 && report.skipped == 1 && report.applied == 1, "\(report)")
        let clock = try Self.clock(b)
        #expect(clock.type == "integer")
        #expect(clock.hlc < nowMicros + SyncSchema.clockBoundMicros)
        let reasons = try b.local.quarantined().map(\.reason)
        #expect(reasons.filter { $0 == "its stamp is more than 7 days ahead of this machine's clock" }.count == 2)
        #expect(reasons.filter { $0 == "its stamp is not positive" }.count == 2)
        // The next local change is stamped as usual, pushed once and acknowledged exactly.
        let before = try await Self.requests(remote)
        let mine = try b.log("after", kcal: 7)
        let pushed = try await b.sync()
        #expect(pushed.pushed == 1 && pushed.error == nil)
        #expect(try b.local.status().pending == 0)
        #expect(try await Self.requests(remote) - before <= 4) // one push, one pull (and at most a purge)
        let stamp = try #require(try remoteRows(remote.dbPath, "SELECT typeof(hlc), hlc FROM ofj_sync_rows WHERE id = '\(mine.id.uuidString)'").first)
        #expect(stamp[0].string == "integer" && (stamp[1].int64 ?? 0) > 0 && (stamp[1].int64 ?? 0) < nowMicros + SyncSchema.clockBoundMicros)
        await remote.shutdown()
    }

    @Test func aClockPoisonedBeforeTheBoundIsRepairedAndNeverOverflows() async throws {
        let remote = try await Remote.start()
        let b = try Machine(url: remote.url)
        let old = try b.log("before", kcal: 1)
        // As an ofj without the bound left it: the clock at INT64_MAX, a stamp that became a REAL.
        try b.queue.write { db in
            try db.execute("UPDATE sync_clock SET hlc = ?", [Int64.max])
            try db.execute("UPDATE sync_pending SET hlc = 9.3e18 WHERE id = ?", [old.id.uuidString])
        }
        try b.log("after", kcal: 2) // the trigger's stamp stays an integer within the bound
        let clock = try Self.clock(b)
        #expect(clock.type == "integer" && clock.hlc < Int64(Date().timeIntervalSince1970 * 1_000_000) + SyncSchema.clockBoundMicros + 1_000_000)
        let clock0 = Date()
        let report = try await b.sync()
        print("HOSTILE poisoned local clock: \(report.quarantined) quarantined, \(report.skipped) skipped, error: \(report.error ?? "none"), \(String(format: "%.2f", Date().timeIntervalSince(clock0))) s")
        #expect(report.error == nil && report.pushed == 2, "\(report)")
        #expect(try b.local.status().pending == 0)
        let types = try remoteRows(remote.dbPath, "SELECT DISTINCT typeof(hlc) FROM ofj_sync_rows").map { $0[0].string ?? "" }
        #expect(types == ["integer"])
        await remote.shutdown()
    }

    @Test func aServerWhoseAcknowledgementsNeverMatchIsGivenUpOn() async throws {
        let remote = try await Remote.start()
        let a = try Machine(url: remote.url)
        for i in 0..<3 { try a.log("entry \(i)", kcal: Double(i + 1)) }
        try await a.sync()
        try a.log("unconfirmed", kcal: 9)
        try await remote.server.setMode("lie_ack")
        let before = try await Self.requests(remote)
        let clock0 = Date()
        let report = await a.engine.run()
        print("HOSTILE acknowledgements that never match: \(report.quarantined) quarantined, \(report.skipped) skipped, error: \(report.error ?? "none"), \(String(format: "%.2f", Date().timeIntervalSince(clock0))) s")
        #expect(report.error == "the sync database sent an unreadable answer (it did not confirm every change with the stamp that was sent); sync will retry later", "\(report)")
        #expect(try await Self.requests(remote) - before == 2, "one push, then it stops (and this read of the counters)")
        #expect(try a.local.status().pending == 1, "the change stays pending, never taken as sent")
        try await remote.server.setMode("normal")
        try await a.sync()
        #expect(try a.local.status().pending == 0)
        await remote.shutdown()
    }

    // MARK: - Bounded pulls (item 3)

    @Test func endlessFullPagesAreGivenUpOnAtACap() async throws {
        let remote = try await Remote.start()
        let b = try Machine(url: remote.url)
        try await b.sync() // bound to the database, nothing to pull
        try await remote.server.setMode("endless")
        b.engine.limits.pageRows = 100
        b.engine.limits.pullRequests = 5
        let before = try await Self.requests(remote)
        let clock0 = Date()
        let capped = try await b.sync()
        print("HOSTILE endless full pages, 5-request cap: \(capped.quarantined) quarantined, \(capped.skipped) skipped, error: \(capped.error ?? "none"), \(String(format: "%.2f", Date().timeIntervalSince(clock0))) s")
        #expect(capped.skipped == 500 && capped.applied == 0, "\(capped)")
        #expect(capped.stopped?.contains("pull stopped after 5 requests") == true)
        #expect(SyncText.line(capped).contains("the next sync goes on from position"))
        #expect(try await Self.requests(remote) - before == 6, "five pages and this read of the counters")
        // The default caps: the rows cap ends it (100 full pages of 1,000).
        b.engine.limits = SyncEngine.Limits()
        let started = Date()
        let full = try await b.sync()
        let seconds = Date().timeIntervalSince(started)
        #expect(full.stopped?.contains("pull stopped after 100000 rows") == true, "\(full)")
        #expect(full.skipped == 100_000)
        print("hostile endless pages, default caps: gave up after \(full.skipped) rows in \(String(format: "%.1f", seconds)) s")
        await remote.shutdown()
    }

    @Test func aCursorThatDoesNotAdvanceStopsThePullInOneLine() async throws {
        let remote = try await Remote.start()
        let a = try Machine(url: remote.url), b = try Machine(url: remote.url)
        for i in 0..<3 { try a.log("entry \(i)", kcal: Double(i + 1)) }
        try await a.sync()
        try await remote.server.setMode("repeat")
        b.engine.limits.pageRows = 2
        let before = try await Self.requests(remote)
        let clock0 = Date()
        let report = await b.engine.run()
        print("HOSTILE repeating cursor: \(report.quarantined) quarantined, \(report.skipped) skipped, error: \(report.error ?? "none"), \(String(format: "%.2f", Date().timeIntervalSince(clock0))) s")
        #expect(report.error?.contains("a cursor that does not advance; the pull stopped") == true, "\(report)")
        #expect(report.error?.contains("\n") == false)
        #expect(try await Self.requests(remote) - before <= 5, "binding (two), one page, the repeated page (and the counters)")
        try await remote.server.setMode("normal")
        try await b.sync()
        #expect(try b.count("journal_entries") == 3)
        await remote.shutdown()
    }

    @Test func pagesShrinkToFitTheAnswerAndARowTooLargeAloneIsQuarantined() async throws {
        let remote = try await Remote.start()
        let a = try Machine(url: remote.url)
        try a.log("first", kcal: 1)
        try await a.sync()
        let big = String(repeating: "x", count: 100_000)
        var rows = (0..<20).map { PlantedRow("x-big", "big\($0)", .text(#"{"text":"\#(big)"}"#)) }
        rows.append(PlantedRow("entry", UUID().uuidString, .text(String(repeating: "y", count: 700_000))))      // too large for one answer
        rows.append(PlantedRow("entry", UUID().uuidString, .text(String(repeating: "z", count: 20 << 20))))     // 20 MB: never sent
        try plant(rows, into: remote.dbPath)
        try a.log("last", kcal: 2)
        try await a.sync()
        let b = try Machine(url: remote.url, responseLimit: 512 << 10)
        let before = try await Self.requests(remote)
        let clock0 = Date()
        let report = try await b.sync()
        print("HOSTILE answers too large: 20 x 100 KB, 700 KB, 20 MB rows: \(report.quarantined) quarantined, \(report.skipped) skipped, error: \(report.error ?? "none"), \(String(format: "%.2f", Date().timeIntervalSince(clock0))) s")
        #expect(report.error == nil)
        #expect(report.applied == 2 && report.skipped == 20 && report.quarantined == 2, "\(report)")
        #expect(try b.count("journal_entries") == 2)
        let used = try await Self.requests(remote) - before
        print("HOSTILE answers too large: \(used - 1) requests")
        #expect(used < 40, "halving, never a wedge")
        let reasons = try b.local.quarantined().map(\.reason)
        #expect(reasons.contains("the row is larger than an answer may be (524288 bytes)"))
        #expect(reasons.contains("its payload is \(20 << 20) bytes, more than the \(5 << 20) one row may have"))
        #expect(try await b.sync().pulled == 0)
        await remote.shutdown()
    }

    @Test func aLocalChangeTooLargeForAnyMachineStaysHereAndDoesNotBlockTheRest() async throws {
        let remote = try await Remote.start()
        let a = try Machine(url: remote.url)
        try a.queue.write { try $0.execute("INSERT INTO journal_settings (key, value) VALUES ('huge', ?)", [String(repeating: "h", count: 6 << 20)]) }
        let later = try a.log("after", kcal: 3)
        let report = try await a.sync()
        #expect(report.tooLarge == 1 && report.pushed == 1, "\(report)")
        #expect(SyncText.line(report).contains("1 local change too large to send (over 5 MiB; kept here)"))
        #expect(try remoteRows(remote.dbPath, "SELECT count(*) FROM ofj_sync_rows WHERE id = '\(later.id.uuidString)'").first?[0].int == 1)
        #expect(try remoteRows(remote.dbPath, "SELECT count(*) FROM ofj_sync_rows WHERE id = 'huge'").first?[0].int == 0)
        await remote.shutdown()
    }
}
