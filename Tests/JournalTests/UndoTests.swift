// The undo log: every JournalStore write records its before-image in its own transaction; undo
// restores it as a recorded write (so undo of undo works) and refuses when the row changed since.
import Testing
import Base
import Foundation
import Nutrition
import SQLiteKit
@testable import Journal

@Suite struct UndoTests {
    func last(_ store: JournalStore, _ n: Int = 1) throws -> UndoPlan { try store.undoPlan(last: n) }

    func undo(_ store: JournalStore, _ n: Int = 1) throws -> UndoStep {
        let plan = try last(store, n)
        return try store.undo(last: n, expected: plan.steps.map(\.id))
    }

    @Test func undoOfALogRemovesTheEntryAndTheDayTotalsAndUndoOfUndoPutsItBack() throws {
        let (store, _) = try makeStore()
        let e = try store.logEntry(EntryDraft(name: "Oatmeal", nutrients: nutrients(["energy_kcal": 150, "protein_g": 5])))
        let plan = try last(store)
        #expect(plan.conflicts.isEmpty)
        #expect(plan.lines(in: testZone).joined(separator: "\n").contains("logged Oatmeal — 1 serving, 150 kcal to breakfast on 2024-05-01"))
        #expect(plan.lines(in: testZone).joined(separator: "\n").contains("undo removes that entry"))
        // 13:00Z is 08:00 in the journal's zone (UTC-5).
        #expect(plan.lines(in: testZone).first == "The last change, at 08:00 on 2024-05-01:")
        let u = try undo(store)
        #expect(u.undoes == plan.steps.map(\.id))
        #expect(try store.entry(e.id) == nil)
        #expect(try count(store, "journal_day_totals") == 0)
        #expect(try count(store, "journal_entry_nutrients") == 0)
        // Undo of the undo: the same entry, same id, nutrients and totals.
        let again = try last(store)
        #expect(again.steps.first?.undoes.isEmpty == false)
        _ = try undo(store)
        #expect(try store.entry(e.id) == e)
        #expect(try store.queue.read { try $0.scalar("SELECT total FROM journal_day_totals WHERE day = '2024-05-01' AND nutrient = 'energy_kcal'").double } == 150)
    }

    /// Search finds what undo put back and not what it took away: the index follows the rows.
    @Test func undoKeepsTheSearchIndexInStep() throws {
        let (store, _) = try makeStore()
        let e = try store.logEntry(EntryDraft(name: "Blueberry muffin", nutrients: nutrients(["energy_kcal": 400])))
        _ = try undo(store)
        #expect(try store.searchEntries("blueberry").isEmpty)
        _ = try undo(store)
        #expect(try store.searchEntries("blueberry").map(\.id) == [e.id])
        _ = try store.deleteEntry(e.id)
        _ = try undo(store)
        #expect(try store.searchEntries("muffin").map(\.id) == [e.id])
        let fts = try store.queue.read { try $0.scalar("SELECT count(*) FROM journal_entries_fts").int }
        #expect(fts == 1)
    }

    @Test func undoOfAnUpdateAndADeleteRestoreTheRowExactly() throws {
        let (store, clock) = try makeStore()
        let e = try store.logEntry(EntryDraft(name: "Rice", servings: 1, nutrients: nutrients(["energy_kcal": 200])))
        clock.advance(seconds: 60)
        _ = try store.updateEntry(e.id, EntryUpdate(meal: .lunch, servings: 2))
        let plan = try last(store)
        let text = plan.lines(in: testZone).joined(separator: "\n")
        #expect(text.contains("meal breakfast → lunch"))
        #expect(text.contains("servings 1 → 2"))
        #expect(text.contains("sets it back: meal lunch → breakfast, servings 2 → 1"))
        _ = try undo(store)
        #expect(try store.entry(e.id) == e)
        _ = try store.deleteEntry(e.id)
        #expect(try last(store).lines(in: testZone).joined().contains("undo puts the entry back"))
        _ = try undo(store)
        #expect(try store.entry(e.id) == e)
    }

    @Test func undoRefusesAndSaysWhatChangedWhenTheRowChangedSince() throws {
        let (store, _) = try makeStore()
        let e = try store.logEntry(EntryDraft(name: "Toast", nutrients: nutrients(["energy_kcal": 80])))
        let shown = try last(store)
        // Changed outside the log (as another program editing the file would): undo must refuse.
        try store.queue.write { db in try db.execute("UPDATE journal_entries SET servings = 3 WHERE id = ?", [e.id.uuidString]) }
        let plan = try last(store)
        #expect(plan.conflicts == ["the entry Toast was changed since (servings 1 → 3)"])
        let error = journalError { _ = try store.undo(last: 1, expected: shown.steps.map(\.id)) }
        #expect(error?.description.contains("refused: the entry Toast was changed since (servings 1 → 3); nothing was undone") == true)
        #expect(try store.entry(e.id)?.servings == 3)
    }

    @Test func undoRefusesWhenAnotherWriteCameSinceItWasShown() throws {
        let (store, _) = try makeStore()
        _ = try store.logEntry(EntryDraft(name: "A"))
        let shown = try last(store)
        _ = try store.logEntry(EntryDraft(name: "B"))
        let error = journalError { _ = try store.undo(last: 1, expected: shown.steps.map(\.id)) }
        #expect(error?.description.contains("another write was made since") == true)
        #expect(try count(store, "journal_entries") == 2)
    }

    @Test func undoingSeveralWritesIsOneStepAndItsUndoRedoesThemAll() throws {
        let (store, _) = try makeStore()
        let food = try store.createFood(FoodDraft(name: "Oats", nutrients: nutrients(["energy_kcal": 100])))
        let entry = try store.logFood(food.id)
        _ = try store.setGoal("energy_kcal", to: 2200)
        let plan = try last(store, 3)
        #expect(plan.steps.count == 3)
        #expect(plan.lines(in: testZone).joined(separator: "\n").contains("set the goals: energy_kcal 2000 → 2200"))
        _ = try undo(store, 3)
        #expect(try store.food(food.id) == nil)
        #expect(try store.entry(entry.id) == nil)
        #expect(try store.goals() == .fdaDefaults)
        _ = try undo(store)
        #expect(try store.food(food.id) != nil)
        #expect(try store.entry(entry.id) == entry)
        #expect(try store.goals().values["energy_kcal"] == 2200)
    }

    @Test func aFoodWithEntriesLoggedFromItIsNotRemovedByUndoingItsCreation() throws {
        let (store, _) = try makeStore()
        let food = try store.createFood(FoodDraft(name: "Oats", nutrients: nutrients(["energy_kcal": 100])))
        let shown = try last(store)
        _ = try store.logFood(food.id)
        // The log is the last write now: undoing "the last 1" is the log, not the food.
        #expect(try last(store).steps.first?.changes.first?.kind == .entry)
        let error = journalError { _ = try store.undo(last: 1, expected: shown.steps.map(\.id)) }
        #expect(error != nil)
        #expect(try store.food(food.id) != nil)
    }

    @Test func aWriteAndItsBeforeImageCommitTogetherOrNotAtAll() throws {
        let (store, _) = try makeStore()
        _ = try store.logEntry(EntryDraft(name: "Kept"))
        // A write inside a transaction that fails afterwards leaves neither the row nor its log.
        struct Boom: Error {}
        _ = try? store.queue.write { db -> Void in
            _ = try store.logEntry(EntryDraft(name: "Rolled back"), in: db)
            throw Boom()
        }
        #expect(try count(store, "journal_entries") == 1)
        #expect(try count(store, "journal_undo_steps") == 1)
        // Two writes in one transaction (the agent's ledger transaction) are one step.
        try store.queue.write { db in
            let f = try store.createFood(FoodDraft(name: "Bar"), barcode: "3017620422003", in: db)
            _ = try store.logFood(f.id, in: db)
        }
        let plan = try last(store)
        #expect(plan.steps.count == 1)
        #expect(plan.steps[0].changes.count == 2)
        #expect(plan.steps[0].changes[0].before == nil)
        #expect(plan.steps[0].changes[0].after?.row["barcode"] == .text("3017620422003"))
    }

    @Test func foodFlagsBrandRenamesAndEditsAreUndoable() throws {
        let (store, _) = try makeStore()
        let a = try store.createFood(FoodDraft(name: "A", brand: "Acme"))
        let b = try store.createFood(FoodDraft(name: "B", brand: "acme"))
        _ = try store.setFoodArchived(a.id, true)
        #expect(try last(store).lines(in: testZone).joined().contains("archived no → yes"))
        _ = try undo(store)
        #expect(try store.food(a.id)?.isManuallyArchived == false)
        #expect(try store.renameBrand("ACME", to: "Zeta") == 2)
        #expect(try last(store).steps[0].changes.count == 2)
        _ = try undo(store)
        #expect(try store.food(a.id)?.brand == "Acme")
        #expect(try store.food(b.id)?.brand == "acme")
    }

    @Test func theStoredImageReadsBackExactly() throws {
        let image = UndoImage(row: ["name": .text("Quote \" back\\slash \n tab\t bell\u{07} é 🍜"), "n": .integer(1_795_941_000_123),
                                    "x": .real(0.1 + 0.2), "tiny": .real(Double.leastNonzeroMagnitude), "none": .null, "neg": .integer(-3)],
                              nutrients: ["energy_kcal": 143.000001, "protein_g": 1e-7])
        let back = try JournalJSON.decoder.decode(UndoImage.self, from: Data(image.json.utf8))
        #expect(back == image)
        let food = UndoImage(row: ["is_archived": .integer(0)], nutrients: nil)
        #expect(try JournalJSON.decoder.decode(UndoImage.self, from: Data(food.json.utf8)) == food)
    }

    /// The stored image is written by the one JSON writer: backspace, form feed, DEL and the line
    /// and paragraph separators are escaped as `JSONValue` escapes them, and read back exactly.
    @Test func anUndoRecordRoundTripsEveryEscapedCharacter() throws {
        let odd = "b\u{08} f\u{0C} del\u{7F} ls\u{2028} ps\u{2029} nul\u{00} us\u{1F}"
        let image = UndoImage(row: ["name": .text(odd), odd: .integer(1)], nutrients: [odd: 2.5])
        let json = image.json
        #expect(json.contains(#"b\b f\f del\u007f ls\u2028 ps\u2029 nul\u0000 us\u001f"#))
        #expect(json.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F })
        #expect(json.contains(JSONValue.string(odd).serialized))
        #expect(try JournalJSON.decoder.decode(UndoImage.self, from: Data(json.utf8)) == image)
        #expect(try JSONValue.parse(json)["row"]?["name"] == .string(odd))

        // Through the store: a name edited by hand into the database comes back exactly on undo
        // (without the NUL, which SQLite's text binding ends a string at).
        let stored = odd.replacingOccurrences(of: " nul\u{00}", with: "")
        let (store, clock) = try makeStore()
        let e = try store.logEntry(EntryDraft(name: "Rice", nutrients: nutrients(["energy_kcal": 200])))
        try store.queue.write { db in try db.execute("UPDATE journal_entries SET name = ? WHERE id = ?", [stored, e.id.uuidString]) }
        let edited = try #require(try store.entry(e.id))
        #expect(edited.name == stored)
        clock.advance(seconds: 60)
        _ = try store.deleteEntry(e.id)
        _ = try undo(store)
        #expect(try store.entry(e.id) == edited)
    }

    @Test func aBulkWriteCanLeaveTheLogAndTheNextTransactionRecordsAgain() throws {
        let (store, _) = try makeStore()
        try store.queue.write { db in
            store.skipUndoLog(in: db)
            for i in 0..<3 { _ = try store.logEntry(EntryDraft(name: "Bulk \(i)"), in: db) }
        }
        #expect(try count(store, "journal_undo_steps") == 0)
        _ = try store.logEntry(EntryDraft(name: "Single"))
        #expect(try last(store).steps.first?.changes.count == 1)
    }

    @Test func nothingToUndoIsAClearError() throws {
        let (store, _) = try makeStore()
        #expect(try last(store).steps.isEmpty)
        let error = journalError { _ = try store.undo(last: 1, expected: []) }
        #expect(error?.description == "undo has nothing to undo: no write has been recorded yet")
        #expect(journalError { _ = try store.undoPlan(last: 0) } != nil)
    }
}
