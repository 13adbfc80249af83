// Issue 34 §2 and §8 in the store: when an entry was eaten, recent foods by time of day, water,
// day notes (searchable, backed up, undone) and overnight fasting windows across midnight.
import Base
import Foundation
import Nutrition
import Testing
import TestSupport
@testable import Journal

@Suite struct DiaryTests {
    /// 2024-05-01 08:00 in the test zone (UTC-5).
    func store() throws -> (JournalStore, ManualClock) { try makeStore(ManualClock("2024-05-01T13:00:00Z")) }

    @Test func anEntryEatenAtATimeKeepsItAndTheScheduleChoosesItsMeal() throws {
        let (s, _) = try store()
        let at = s.date(on: day("2024-05-01"), minute: 19 * 60 + 30)
        let e = try s.logEntry(EntryDraft(name: "Pasta", nutrients: nutrients(["energy_kcal": 700]), eatenAt: at))
        #expect(e.meal == .dinner)
        #expect(e.day == day("2024-05-01"))
        #expect(s.minuteOfDay(try #require(e.eatenAt)) == 19 * 60 + 30)
        let read = try #require(try s.entry(e.id))
        #expect(read.eatenAt == at)
        // A backup carries it.
        let (t, _) = try store()
        try t.queue.write { _ = try t.importBackup(try s.exportBackup(), in: $0) }
        #expect(try t.entry(e.id)?.eatenAt == at)
    }

    @Test func overnightWindowsRunFromTheLastEntryOfADayToTheFirstOfTheNext() throws {
        let (s, _) = try store()
        func at(_ d: String, _ h: Int, _ m: Int) -> Date { s.date(on: day(d), minute: h * 60 + m) }
        // Dinner at 23:30 on the 1st, a snack logged on the 1st but eaten at 00:40 after midnight,
        // breakfast at 08:10 on the 2nd; nothing on the 3rd; a late breakfast on the 4th.
        let times: [(day: CalendarDay, at: Date)] = [
            (day("2024-05-01"), at("2024-05-01", 12, 0)), (day("2024-05-01"), at("2024-05-01", 23, 30)),
            (day("2024-05-01"), at("2024-05-02", 0, 40)), (day("2024-05-02"), at("2024-05-02", 8, 10)),
            (day("2024-05-02"), at("2024-05-02", 20, 0)), (day("2024-05-04"), at("2024-05-04", 11, 0)),
        ]
        let w = JournalStore.overnightWindows(times)
        #expect(w.map(\.day) == [day("2024-05-02")])
        #expect(w.first?.start == at("2024-05-02", 0, 40))
        #expect(w.first?.end == at("2024-05-02", 8, 10))
        #expect(abs((w.first?.hours ?? 0) - 7.5) < 1e-9)

        // Through the store: water does not end the fast.
        try s.logEntry(EntryDraft(day: day("2024-04-30"), meal: .dinner, name: "Soup", nutrients: nutrients(["energy_kcal": 300]),
                                  eatenAt: at("2024-04-30", 21, 15)))
        try s.queue.write { _ = try s.logWater(milliliters: 300, day: day("2024-04-30"), eatenAt: at("2024-04-30", 23, 0), in: $0) }
        try s.logEntry(EntryDraft(day: day("2024-05-01"), meal: .breakfast, name: "Oats", nutrients: nutrients(["energy_kcal": 300]),
                                  eatenAt: at("2024-05-01", 7, 45)))
        let stored = try s.queue.read { try s.fastingWindows(from: day("2024-05-01"), to: day("2024-05-01"), in: $0) }
        #expect(stored.count == 1)
        #expect(abs((stored.first?.hours ?? 0) - 10.5) < 1e-9)
        #expect(try s.queue.read { try s.lastEaten(in: $0) }?.name == "Oats")
    }

    @Test func waterIsAnEntryWithWaterAndNoEnergy() throws {
        let (s, _) = try store()
        try s.queue.write { db in
            _ = try s.logWater(milliliters: 500, in: db)
            _ = try s.logWater(milliliters: 473.176, in: db)
        }
        try s.logEntry(EntryDraft(name: "Cucumber", nutrients: nutrients(["energy_kcal": 15, "water_g": 95])))
        let today = s.today()
        #expect(abs(try s.queue.read { try s.waterLogged(on: today, in: $0) } - 973.176) < 1e-9)
        let view = try s.dayView(today)
        #expect(abs((view.totals.amounts["water_g"] ?? 0) - 1_068.176) < 1e-9)
        #expect(view.totals.amounts["energy_kcal"] == 15)
        #expect(view.totals.notReportedCount("energy_kcal") == 0)
        #expect(throws: JournalError.self) { try s.queue.write { _ = try s.logWater(milliliters: 0, in: $0) } }
    }

    @Test func notesAreSearchableBackedUpAndUndone() throws {
        let (s, _) = try store()
        let n = try s.addNote("Felt bloated after lunch", day: day("2024-04-30"))
        try s.addNote("Slept badly")
        #expect(try s.notes(on: day("2024-04-30")).map(\.text) == ["Felt bloated after lunch"])
        #expect(try s.searchNotes("BLOATED").map(\.id) == [n.id])
        #expect(try s.searchNotes("bloated dinner").isEmpty)
        // Too long or empty: refused, nothing written.
        let big = String(repeating: "a", count: 1 << 20)
        let e = journalError { try s.addNote(big) }
        #expect(e?.description == "note has 1,048,576 characters; a note holds at most 2,000")
        #expect(journalError { try s.addNote("  \n ") } != nil)
        #expect(try s.queue.read { try s.allNotes(in: $0) }.count == 2)
        // A backup restores them once.
        let (t, _) = try store()
        let data = try s.exportBackup()
        let first = try t.queue.write { try t.importBackup(data, in: $0) }
        let second = try t.queue.write { try t.importBackup(data, in: $0) }
        #expect(first.dayNotesInserted == 2)
        #expect(second.dayNotesInserted == 0)
        #expect(try t.notes(on: day("2024-04-30")) == [n])
        let csv = try s.exportNotesCSV(from: day("2024-04-30"), to: day("2024-04-30")).components(separatedBy: "\r\n")
        #expect(csv == ["id,day,time,text", "\(n.id.uuidString),2024-04-30,08:00,Felt bloated after lunch", ""])
        // Undo removes the newest note and says so.
        let plan = try s.undoPlan(last: 1)
        #expect(plan.steps.first?.changes.first?.what == "added a note to 2024-05-01")
        try s.undo(last: 1, expected: plan.steps.map(\.id))
        #expect(try s.queue.read { try s.allNotes(in: $0) }.map(\.text) == ["Felt bloated after lunch"])
    }

    @Test func recentFoodsRankByHowOftenTheyWereEatenAtThisTimeOfDay() throws {
        let (s, clock) = try store()
        func log(_ name: String, _ d: String, _ h: Int, _ m: Meal) throws {
            try s.logEntry(EntryDraft(day: day(d), meal: m, name: name, nutrients: nutrients(["energy_kcal": 100]),
                                      eatenAt: s.date(on: day(d), minute: h * 60)))
        }
        for d in ["2024-04-28", "2024-04-29", "2024-04-30"] { try log("Oats", d, 8, .breakfast) }
        for d in ["2024-04-29", "2024-04-30"] { try log("Coffee", d, 7, .breakfast) }
        try log("Toast", "2024-04-30", 9, .breakfast)
        for d in ["2024-04-25", "2024-04-26", "2024-04-27", "2024-04-28"] { try log("Pasta", d, 19, .dinner) }
        try log("Old oats", "2024-03-01", 8, .breakfast) // outside the 28 days
        try s.logEntry(EntryDraft(day: day("2024-04-30"), name: JournalStore.quickAddName, nutrients: nutrients(["energy_kcal": 450]),
                                  eatenAt: s.date(on: day("2024-04-30"), minute: 8 * 60)))
        // Now is 08:00.
        #expect(try s.recentFoods().map(\.name) == ["Oats", "Coffee", "Toast"])
        #expect(try s.recentFoods().first?.count == 3)
        #expect(try s.recentFoods(meal: .dinner).map(\.name) == ["Pasta"])
        // At 19:30 the dinner foods come up; the window is ±90 minutes.
        clock.set("2024-05-02T00:30:00Z")
        #expect(try s.recentFoods().map(\.name) == ["Pasta"])
    }

    @Test func aCopyToTheSameMealKeepsTheOriginalsTimeOfDay() throws {
        let (s, _) = try store()
        let at = s.date(on: day("2024-04-30"), minute: 7 * 60 + 15)
        let o = try s.logEntry(EntryDraft(day: day("2024-04-30"), meal: .breakfast, name: "Oats", nutrients: nutrients(["energy_kcal": 300.123]), eatenAt: at))
        let copies = try s.queue.write { db in try s.copyEntries([o], to: day("2024-05-01"), meal: nil, in: db) }
        #expect(copies.first?.nutrients == o.nutrients)
        #expect(copies.first.flatMap(\.eatenAt).map(s.minuteOfDay) == 7 * 60 + 15)
        #expect(copies.first.map { s.day(of: s.eatenTime($0)) } == day("2024-05-01"))
        let moved = try s.queue.write { db in try s.copyEntries([o], to: day("2024-05-01"), meal: .lunch, in: db) }
        #expect(moved.first?.eatenAt == nil)
    }

    @Test func anImportKeepsItsTimeColumnAndTheCSVExportHasTheTime() throws {
        let (s, _) = try store()
        let file = OfjBinary.repositoryRoot + "/Tests/data/import/cronometer-servings.csv"
        _ = try s.importFile(file, options: ImportOptions(format: .cronometer))
        let oats = try #require(try s.entries(from: day("2026-01-05"), to: day("2026-01-05")).first { $0.name == "Oats, Rolled, Dry" })
        #expect(oats.eatenAt.map(s.minuteOfDay) == 8 * 60 + 5)
        #expect(oats.eatenAt.map(s.day(of:)) == day("2026-01-05"))
        let lines = try s.exportCSV(from: day("2026-01-05"), to: day("2026-01-05")).components(separatedBy: "\r\n")
        let header = lines[0].split(separator: ",").map(String.init)
        let column = try #require(header.firstIndex(of: "time"))
        let row = try #require(lines.first { $0.contains("Oats") }).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        // "Oats, Rolled, Dry" is one quoted field holding two commas.
        #expect(row[column + 2] == "08:05", "\(row)")
    }
}
