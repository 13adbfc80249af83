// Two and three machines syncing through tools/turso_server.py end with identical journals.
import Foundation
import Journal
import Nutrition
import SQLiteKit
import TestSupport
import Testing
@testable import Sync

@Suite(.serialized) struct ConvergenceTests {
    @Test func entriesFoodsAndGoalsReachTheOtherMachine() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url), b = try Machine(url: server.url)
        try a.log("porridge", kcal: 350)
        let food = try a.journal.createFood(FoodDraft(name: "Oat bar", brand: "Acme", nutrients: try NutrientAmounts(["energy_kcal": 190])))
        try a.journal.logFood(food.id)
        try a.journal.setGoal("energy_kcal", to: 2100)
        let pushed = try await a.sync()
        #expect(pushed.pushed == 4) // two entries, one food, goals
        let pulled = try await b.sync()
        #expect(pulled.applied == 4)
        #expect(try a.dump() == b.dump())
        #expect(try b.journal.goals().values["energy_kcal"] == 2100)
        #expect(try b.count("sync_pending") == 0)
        // Syncing again changes nothing on either side.
        let again = try await a.sync()
        #expect(again.pushed == 0 && again.applied == 0)
        #expect(try await b.sync().applied == 0)
        await server.shutdown()
    }

    @Test func concurrentEditsOfOneEntryConvergeAndTheLoserIsKept() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url), b = try Machine(url: server.url)
        let entry = try a.log("soup", kcal: 200)
        try await a.sync()
        try await b.sync()
        // Both edit offline; B edits last, so B's version wins everywhere.
        _ = try a.journal.updateEntry(entry.id, EntryUpdate(name: "tomato soup"))
        laterMillisecond()
        _ = try b.journal.updateEntry(entry.id, EntryUpdate(name: "pea soup", servings: 2))
        try await a.sync()
        let bReport = try await b.sync() // B's push beats A's version (newer stamp)
        try await a.sync()               // A pulls B's version; its own was already sent and lost
        #expect(try a.dump() == b.dump())
        #expect(try a.journal.entry(entry.id)?.name == "pea soup")
        #expect(bReport.conflicts == 0)
        // A had sent its version (it reached the remote before B's), so nothing unsynced was lost on A.
        #expect(try a.local.status().pending == 0)
        await server.shutdown()
    }

    @Test func anUnsyncedLocalEditThatLosesIsKeptAsAConflict() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url), b = try Machine(url: server.url)
        let entry = try a.log("rice", kcal: 300)
        try await a.sync()
        try await b.sync()
        _ = try a.journal.updateEntry(entry.id, EntryUpdate(name: "brown rice"))  // A first, not synced
        laterMillisecond()
        _ = try b.journal.updateEntry(entry.id, EntryUpdate(name: "white rice"))  // B later
        try await b.sync()
        let report = try await a.sync() // A's push loses to B's newer stamp: kept as a conflict
        #expect(report.conflicts == 1)
        #expect(try a.journal.entry(entry.id)?.name == "white rice")
        let conflicts = try a.local.conflicts()
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.localPayload?.contains("brown rice") == true)
        #expect(SyncText.conflicts(conflicts).contains("brown rice"))
        try await b.sync()
        #expect(try a.dump() == b.dump())
        await server.shutdown()
    }

    @Test func deleteAgainstEditNewestWinsAndTombstonesTravel() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url), b = try Machine(url: server.url)
        let first = try a.log("apple", kcal: 80)
        let second = try a.log("pear", kcal: 90)
        try await a.sync()
        try await b.sync()
        // apple: A edits, then B deletes (delete is newer → gone everywhere)
        _ = try a.journal.updateEntry(first.id, EntryUpdate(servings: 3))
        laterMillisecond()
        _ = try b.journal.deleteEntry(first.id)
        // pear: B deletes, then A edits (edit is newer → back everywhere)
        _ = try b.journal.deleteEntry(second.id)
        laterMillisecond()
        _ = try a.journal.updateEntry(second.id, EntryUpdate(name: "ripe pear"))
        try await a.sync()
        try await b.sync()
        try await a.sync()
        #expect(try a.dump() == b.dump())
        #expect(try a.journal.entry(first.id) == nil)
        #expect(try b.journal.entry(second.id)?.name == "ripe pear")
        let tombstones = try remoteRows(server.dbPath, "SELECT count(*) FROM ofj_sync_rows WHERE deleted = 1")
        #expect(tombstones.first?[0].int == 1)
        await server.shutdown()
    }

    @Test func threeMachinesOfflineEditsAndSkewedClocksConverge() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url), b = try Machine(url: server.url), c = try Machine(url: server.url)
        try a.skewClock(seconds: 86_400)   // a day ahead
        try c.skewClock(seconds: -86_400)  // a day behind
        let shared = try a.log("toast", kcal: 150)
        try await a.sync(); try await b.sync(); try await c.sync()
        // Offline on all three: each logs its own entries and edits the shared one.
        for i in 0..<5 {
            try a.log("a\(i)", kcal: Double(100 + i))
            try b.log("b\(i)", kcal: Double(200 + i), meal: .dinner)
            try c.log("c\(i)", kcal: Double(300 + i), day: "2026-11-29")
        }
        _ = try b.journal.updateEntry(shared.id, EntryUpdate(name: "toast (b)"))
        laterMillisecond()
        // C, a day behind, pulls first and then edits: its edit is later than everything it saw,
        // so it must win although its wall clock is two days behind A's.
        try await c.sync()
        try await b.sync()
        try await c.sync()
        _ = try c.journal.updateEntry(shared.id, EntryUpdate(name: "toast (c, after seeing b)"))
        try await a.sync(); try await b.sync(); try await c.sync(); try await a.sync(); try await b.sync()
        #expect(try a.dump() == b.dump())
        #expect(try b.dump() == c.dump())
        #expect(try a.journal.entry(shared.id)?.name == "toast (c, after seeing b)")
        #expect(try a.count("journal_entries") == 16)
        // One device's own successive edits keep their order even when its clock jumps back a day.
        try a.skewClock(seconds: -86_400)
        _ = try a.journal.updateEntry(shared.id, EntryUpdate(name: "toast, final"))
        try await a.sync(); try await b.sync(); try await c.sync()
        #expect(try c.journal.entry(shared.id)?.name == "toast, final")
        #expect(try a.dump() == c.dump())
        await server.shutdown()
    }

    @Test func pushModeMirrorsAndNeverPulls() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url), mirror = try Machine(url: server.url, mode: .push)
        try a.log("from a", kcal: 10)
        try await a.sync()
        try mirror.log("mirrored", kcal: 20)
        let r = try await mirror.sync()
        #expect(r.pushed == 1 && r.pulled == 0)
        #expect(try mirror.count("journal_entries") == 1)
        try await a.sync()
        #expect(try a.count("journal_entries") == 2)
        await server.shutdown()
    }

    @Test func threadsStayLocalWhenTheSettingIsOff() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url), b = try Machine(url: server.url, threads: false)
        try a.queue.write { try $0.execute("INSERT INTO agent_threads (id, title, created_at, updated_at) VALUES ('t1', 'Lunch ideas', 1, 1)") }
        try await a.sync()
        let r = try await b.sync()
        #expect(r.skipped == 0 && r.pulled == 0, "thread rows are not even read while the setting is off")
        #expect(try b.count("agent_threads") == 0)
        let c = try Machine(url: server.url)
        try await c.sync()
        #expect(try c.count("agent_threads") == 1)
        // B's own threads stay on B: not sent, not counted as pending.
        try b.queue.write { try $0.execute("INSERT INTO agent_threads (id, title, created_at, updated_at) VALUES ('t2', 'Private', 1, 1)") }
        #expect(try b.local.status(threads: false).pending == 0)
        #expect(try await b.sync().pushed == 0)
        #expect(try remoteRows(server.dbPath, "SELECT count(*) FROM ofj_sync_rows WHERE kind = 'thread'").first?[0].int == 1)
        // Turned on, the machine reads what it left out.
        b.engine = SyncEngine(local: b.local, remote: b.engine.remote,
                              configuration: SyncConfiguration(turso: b.engine.configuration.turso, threads: true), appVersion: "test")
        try await b.sync()
        #expect(try b.queue.read { try $0.scalar("SELECT count(*) FROM agent_threads WHERE id = 't1'").int } == 1)
        await server.shutdown()
    }

    @Test func hrana2ServersWorkTheSame() async throws {
        let server = try await Remote.start(arguments: ["--no-v3"])
        let a = try Machine(url: server.url), b = try Machine(url: server.url)
        for i in 0..<30 { try a.log("item \(i)", kcal: Double(i)) }
        try await a.sync()
        b.engine.limits.pageRows = 7
        let r = try await b.sync()
        #expect(r.applied == 30)
        #expect(b.engine.remote.client.negotiatedVersion == 2)
        #expect(try a.dump() == b.dump())
        await server.shutdown()
    }
}
