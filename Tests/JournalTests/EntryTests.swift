// Tests for logging, updating, moving and deleting entries, and their bad-input cases.
import Base
import Testing
import Foundation
import Nutrition
import SQLiteKit
@testable import Journal

@Suite struct EntryTests {
    @Test func logsManualEntryWithDefaultDayAndMealFromTheClock() throws {
        // 13:00Z is 08:00 at UTC-5: breakfast on 2024-05-01.
        let (store, clock) = try makeStore()
        let e = try store.logEntry(EntryDraft(name: "  Oatmeal ", brand: "Quaker", serving: ServingSize(quantity: 40, unit: .mass(.g)),
                                              servings: 1.5, nutrients: nutrients(["Calories": 150, "protein_g": 5, "x_custom": 1])))
        #expect(e.day == day("2024-05-01"))
        #expect(e.meal == .breakfast)
        #expect(e.name == "Oatmeal")
        #expect(e.nutrients["energy_kcal"] == 150)
        #expect(e.totalNutrients["energy_kcal"] == 225)
        #expect(e.source == .manual)
        #expect(e.createdAt == clock.now())
        let back = try #require(try store.entry(e.id))
        #expect(back == e)
        #expect(back.nutrients["x_custom"] == 1)
    }

    @Test func dayFollowsTheUsersTimeZoneAcrossMidnight() throws {
        // 03:30Z is 22:30 the previous evening at UTC-5.
        let (store, _) = try makeStore(ManualClock("2024-03-10T03:30:00Z"))
        let e = try store.logEntry(EntryDraft(name: "Late snack"))
        #expect(e.day == day("2024-03-09"))
        #expect(e.meal == .dinner)
        let chosen = try store.logEntry(EntryDraft(meal: .snack, name: "Chosen snack"))
        #expect(chosen.meal == .snack)
        #expect(store.today() == day("2024-03-09"))
    }

    @Test func namedTimeZoneWorks() throws {
        let clock = ManualClock("2024-07-01T02:00:00Z")
        let tz = try #require(TimeZone(identifier: "America/Los_Angeles"))
        let store = try JournalStore.openStandalone(queue: try DatabaseQueue.inMemory(), timeZone: tz, now: { clock.now() })
        #expect(store.today() == day("2024-06-30")) // 19:00 PDT
        #expect(store.defaultMeal() == .dinner)
    }

    @Test func badInputThrowsNamedErrorsAndWritesNothing() throws {
        let (store, _) = try makeStore()
        var bad = nutrients(["protein_g": 1])
        bad["protein_g"] = -1
        var hugeMap = NutrientAmounts()
        for i in 0...JournalStore.Limits.nutrientCount { hugeMap["n_\(i)"] = 1 }
        let cases: [(EntryDraft, String)] = [
            (EntryDraft(name: ""), "name"),
            (EntryDraft(name: "   "), "name"),
            (EntryDraft(name: String(repeating: "a", count: 201)), "name"),
            (EntryDraft(name: "tab\there"), "name"),
            (EntryDraft(name: "bad \u{FFFD} bytes"), "name"),
            (EntryDraft(name: "ok", brand: String(repeating: "b", count: 101)), "brand"),
            (EntryDraft(name: "ok", servings: 0), "servings"),
            (EntryDraft(name: "ok", servings: -1), "servings"),
            (EntryDraft(name: "ok", servings: .nan), "servings"),
            (EntryDraft(name: "ok", servings: .infinity), "servings"),
            (EntryDraft(name: "ok", servings: 1e9), "servings"),
            (EntryDraft(name: "ok", serving: ServingSize(quantity: 0, unit: .mass(.g))), "serving quantity"),
            (EntryDraft(name: "ok", serving: ServingSize(quantity: 1, unit: .count("egg"), grams: -3)), "serving grams"),
            (EntryDraft(name: "ok", nutrients: bad), "nutrients.protein_g"),
            (EntryDraft(name: "ok", nutrients: hugeMap), "nutrients"),
            (EntryDraft(name: "ok", nutrients: nutrients(["Vitamin Q!": 1])), "Vitamin Q!"),
            (EntryDraft(name: "ok", savedFoodID: UUID()), "saved food"),
        ]
        for (draft, field) in cases {
            let err = journalError { try store.logEntry(draft) }
            let message = try #require(err, "expected an error for \(field)").description
            #expect(message.contains(field), "\(message)")
            #expect(!message.contains("\n"))
        }
        #expect(try count(store, "journal_entries") == 0)
        #expect(try count(store, "journal_entry_nutrients") == 0)
    }

    @Test func stringInputsParseWithClearErrors() {
        // CalendarDay lives in Base; the journal still reports a bad date as its own nutrition error.
        #expect(throws: JournalError.nutrition(.invalidDate("2024-02-30"))) { try domain { try CalendarDay(parsing: "2024-02-30") } }
        #expect(throws: NutritionError.unknownUnit("smidgen")) { try ServingUnit.parse("smidgen") }
        #expect(throws: NutritionError.unknownMeal("elevenses")) { try Meal(parsing: "elevenses") }
    }

    @Test func duplicateIDIsRefused() throws {
        let (store, _) = try makeStore()
        let id = UUID()
        try store.logEntry(EntryDraft(name: "A", id: id))
        let err = journalError { try store.logEntry(EntryDraft(name: "B", id: id)) }
        #expect(err?.description.hasPrefix("id ") == true)
        #expect(try count(store, "journal_entries") == 1)
    }

    @Test func updateChangesOnlyGivenFields() throws {
        let (store, clock) = try makeStore()
        let e = try store.logEntry(EntryDraft(name: "Toast", brand: "Dave's", nutrients: nutrients(["energy_kcal": 80, "fiber_g": 3])))
        clock.advance(seconds: 60)
        let u = try store.updateEntry(e.id, EntryUpdate(brand: "", servings: 2, nutrients: nutrients(["energy_kcal": 90])))
        #expect(u.name == "Toast")
        #expect(u.brand == nil)
        #expect(u.servings == 2)
        #expect(u.nutrients["fiber_g"] == nil)
        #expect(u.createdAt == e.createdAt)
        #expect(u.updatedAt == clock.now())
        #expect(try store.entry(e.id) == u)
        #expect(try count(store, "journal_entry_nutrients") == 1)
        #expect(journalError { try store.updateEntry(e.id, EntryUpdate()) } != nil)
        #expect(journalError { try store.updateEntry(UUID(), EntryUpdate(servings: 1)) }?.description.hasPrefix("no entry") == true)
        #expect(journalError { try store.updateEntry(e.id, EntryUpdate(name: "")) } != nil)
        #expect(try store.entry(e.id) == u) // a failed update leaves it alone
    }

    @Test func moveAndDelete() throws {
        let (store, _) = try makeStore()
        let e = try store.logEntry(EntryDraft(name: "Soup"))
        let moved = try store.moveEntry(e.id, toDay: day("2024-04-30"), meal: .dinner)
        #expect(moved.day == day("2024-04-30") && moved.meal == .dinner)
        let mealOnly = try store.moveEntry(e.id, meal: .lunch)
        #expect(mealOnly.day == day("2024-04-30") && mealOnly.meal == .lunch)
        #expect(journalError { try store.moveEntry(e.id) } != nil)
        #expect(journalError { try store.moveEntry(UUID(), meal: .lunch) } != nil)
        let deleted = try store.deleteEntry(e.id)
        #expect(deleted.id == e.id)
        #expect(try store.entry(e.id) == nil)
        #expect(journalError { try store.deleteEntry(e.id) }?.description.contains(e.id.uuidString) == true)
        #expect(try count(store, "journal_entry_nutrients") == 0)
    }

    @Test func writesJoinTheCallersTransaction() throws {
        let (store, _) = try makeStore()
        try store.queue.unrestricted { db in try db.execute("CREATE TABLE ledger (k TEXT)") }
        struct Crash: Error {}
        // The ledger row and the entry commit or roll back together.
        #expect(throws: Crash.self) {
            try store.queue.write { db in
                try store.logEntry(EntryDraft(name: "Eggs"), in: db)
                try db.execute("INSERT INTO ledger VALUES ('call-1')")
                throw Crash()
            }
        }
        #expect(try count(store, "journal_entries") == 0)
        #expect(try count(store, "ledger") == 0)
        try store.queue.write { db in
            try store.logEntry(EntryDraft(name: "Eggs"), in: db)
            try db.execute("INSERT INTO ledger VALUES ('call-1')")
        }
        #expect(try count(store, "journal_entries") == 1)
        #expect(try count(store, "ledger") == 1)
        // A failing journal write inside a caller's transaction leaves the caller's earlier work intact.
        try store.queue.write { db in
            try db.execute("INSERT INTO ledger VALUES ('call-2')")
            _ = try? store.logEntry(EntryDraft(name: ""), in: db)
        }
        #expect(try count(store, "ledger") == 2)
        #expect(try count(store, "journal_entries") == 1)
    }

    @Test func noStatementIsLeftUnfinalized() throws {
        let (store, _) = try makeStore()
        let e = try store.logEntry(EntryDraft(name: "A", nutrients: nutrients(["protein_g": 2])))
        _ = try store.dayView(e.day)
        _ = try store.searchFoods("")
        _ = try store.exportBackup()
        try store.queue.read { db in
            db.clearStatementCache()
            #expect(db.unfinalizedStatementCount == 0)
        }
    }
}
