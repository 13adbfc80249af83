// The approved card is exactly what is written: the preview resolves the change, apply writes that
// change, and refuses (writing nothing) when the data it was computed from changed meanwhile.
import Base
import Foundation
import Testing
import Agent
import Journal
import Nutrition
import SQLiteKit
@testable import NutritionTools

@Suite struct PlannedChangeTests {
    /// Previews a write (at the clock's time), then runs `meanwhile`, then applies the previewed change.
    func previewThenApply(_ f: Fixture, _ name: String, _ args: JSONValue, meanwhile: () throws -> Void) throws -> (PlannedChange, Result<ToolOutput, Error>) {
        let r = try f.resolve(name, args)
        let tool = try f.writeTool(name)
        let planned = try f.queue.read { try tool.preview(arguments: r.arguments, context: f.context, database: $0) }
        // The change survives the ledger's storage unchanged.
        let stored = try #require(PlannedChange(serialized: planned.serialized))
        #expect(stored == planned)
        try meanwhile()
        let result = Result { try f.queue.write { try tool.apply(stored, context: f.context, database: $0) } }
        return (planned, result)
    }

    @Test func aCardApprovedAfterMidnightWritesTheDayAndMealItShowed() throws {
        let f = try Fixture()
        f.clock.advance(by: 15 * 3600 + 29 * 60 + 30) // Sunday 23:59:30
        let (planned, result) = try previewThenApply(f, "log_food", ["name": "Apple", "nutrients": ["energy_kcal": 95]]) {
            f.clock.advance(by: 90) // approved on Monday 00:01
        }
        #expect(planned.card.contains("Date: Sunday 2026-11-29 · Meal: dinner"), "\(planned.card)")
        let out = try JSONValue.parse(try result.get().content)
        #expect(out["logged"]?["date"]?.stringValue == "2026-11-29")
        #expect(out["logged"]?["meal"]?.stringValue == "dinner")
        let written = try f.journal.entries().filter { $0.name == "Apple" }
        #expect(written.map(\.day.description) == ["2026-11-29"] && written.map(\.meal) == [.dinner])
    }

    @Test func aCardApprovedAfterNoonWritesTheMealItShowed() throws {
        let f = try Fixture()
        f.clock.advance(by: 3 * 3600 + 29 * 60 + 30) // 11:59:30
        let (planned, result) = try previewThenApply(f, "log_saved_food", ["food_id": .string(f.seed.yogurt.uuidString)]) {
            f.clock.advance(by: 90) // 12:01: the default meal is now lunch
        }
        #expect(planned.card.contains("Meal: breakfast"), "\(planned.card)")
        let out = try JSONValue.parse(try result.get().content)
        #expect(out["logged"]?["meal"]?.stringValue == "breakfast")
    }

    @Test func aFoodChangedWhileTheCardWasOpenIsRefusedAndNothingIsWritten() throws {
        let f = try Fixture()
        let (planned, result) = try previewThenApply(f, "log_saved_food", ["food_id": .string(f.seed.yogurt.uuidString), "date": "today", "meal": "lunch"]) {
            // Another process changes the food: 100 kcal becomes 1000 kcal.
            f.clock.advance(by: 3)
            var draft = FoodDraft(try #require(try f.journal.food(f.seed.yogurt)))
            draft.nutrients = nutrients(["energy_kcal": 1000, "protein_g": 18])
            _ = try f.journal.editFood(f.seed.yogurt, draft)
        }
        #expect(planned.card.contains("Nutrients: 100 kcal"))
        let before = try f.snapshot()
        switch result {
        case .success(let out): Issue.record("wrote \(out.content)")
        case .failure(let e):
            let conflict = try #require(e as? ChangeConflict, "\(e)")
            #expect(conflict.message == "the Food Bank food Greek yogurt (Fage) was changed")
        }
        #expect(try f.snapshot() == before)
        #expect(try f.journal.entries().filter { $0.name == "Greek yogurt" }.isEmpty)
    }

    @Test func aFoodChangedWithinTheSameSecondIsRefusedToo() throws {
        let f = try Fixture()
        let (_, result) = try previewThenApply(f, "log_saved_food", ["food_id": .string(f.seed.yogurt.uuidString)]) {
            var draft = FoodDraft(try #require(try f.journal.food(f.seed.yogurt)))
            draft.nutrients = nutrients(["energy_kcal": 1000])
            _ = try f.journal.editFood(f.seed.yogurt, draft)
        }
        // Same updated_at, but what would be written is not what the card showed.
        #expect(throws: ChangeConflict.self) { try result.get() }
    }

    @Test func anEntryEditedWhileTheCardWasOpenIsRefused() throws {
        let f = try Fixture()
        let (_, result) = try previewThenApply(f, "update_journal_entry", ["entry_id": .string(f.seed.coffee.uuidString), "servings": 2]) {
            f.clock.advance(by: 5)
            _ = try f.journal.updateEntry(f.seed.coffee, EntryUpdate(name: "Espresso"))
        }
        #expect(throws: ChangeConflict.self) { try result.get() }
        let coffee = try #require(try f.journal.entry(f.seed.coffee))
        #expect(coffee.name == "Espresso" && coffee.servings == 1)
    }

    @Test func anEntryDeletedWhileTheCardWasOpenIsRefused() throws {
        let f = try Fixture()
        let (_, result) = try previewThenApply(f, "delete_journal_entry", ["entry_id": .string(f.seed.toast.uuidString)]) {
            _ = try f.journal.deleteEntry(f.seed.toast)
        }
        #expect(throws: ChangeConflict.self) { try result.get() }
    }

    @Test func unchangedDataIsWrittenAsPreviewedEvenWhenTheClockMoved() throws {
        let f = try Fixture()
        let (planned, result) = try previewThenApply(f, "move_journal_entry", ["entry_id": .string(f.seed.coffee.uuidString), "date": "today", "meal": "dinner"]) {
            f.clock.advance(by: 24 * 3600) // "today" is tomorrow by now
        }
        #expect(planned.change["arguments"]?["date"]?.stringValue == "2026-11-29")
        let out = try JSONValue.parse(try result.get().content)
        #expect(out["moved"]?["date"]?.stringValue == "2026-11-29")
    }

    @Test func everyWriteToolResolvesItsDefaultsIntoTheChange() throws {
        let f = try Fixture()
        for (name, args) in [("log_food", ["name": "Apple", "nutrients": ["energy_kcal": 95]] as JSONValue),
                             ("log_saved_food", ["food_id": .string(f.seed.yogurt.uuidString)]),
                             ("log_reference_food", ["reference_id": "01123", "grams": 100]),
                             ("log_calculator_build", ["food_id": .string(f.seed.bowl.uuidString),
                                                       "selections": [["ingredient": "Rice", "portion": "white"]]])] {
            let r = try f.resolve(name, args)
            let tool = try f.writeTool(name)
            let planned = try f.queue.read { try tool.preview(arguments: r.arguments, context: f.context, database: $0) }
            #expect(planned.change["arguments"]?["date"]?.stringValue == "2026-11-29", "\(name)")
            #expect(planned.change["arguments"]?["meal"]?.stringValue == "breakfast", "\(name)")
        }
    }

    /// The stored change (parsed back from the ledger's text, as on resume) still matches a fresh
    /// plan when versions are fractional seconds: no spurious conflict.
    @Test func aStoredChangeWithFractionalVersionsStillApplies() throws {
        let f = try Fixture()
        f.clock.advance(by: 0.123_456_789)
        _ = try f.journal.updateEntry(f.seed.coffee, EntryUpdate(name: "Coffee"))
        var draft = FoodDraft(try #require(try f.journal.food(f.seed.yogurt)))
        draft.nutrients = nutrients(["energy_kcal": 101.2345, "protein_g": 17.98765])
        _ = try f.journal.editFood(f.seed.yogurt, draft)
        f.clock.advance(by: 1.000_000_3)
        let (_, moved) = try previewThenApply(f, "update_journal_entry", ["entry_id": .string(f.seed.coffee.uuidString), "servings": 1.5]) {}
        #expect(throws: Never.self) { try moved.get() }
        let (_, logged) = try previewThenApply(f, "log_saved_food", ["food_id": .string(f.seed.yogurt.uuidString), "quantity": 123.456, "unit": "g"]) {}
        #expect(throws: Never.self) { try logged.get() }
    }
}
