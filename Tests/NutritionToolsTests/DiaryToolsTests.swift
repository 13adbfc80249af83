// Issue 34 §2 and §8 through the assistant's tools: copy_journal_meal copies with the originals'
// nutrients in one change, add_day_note writes a note, get_eating_times reads recents and the
// last entry, and the log tools take a meal of the person's own.
import Base
import Foundation
import Testing
import Journal
import Nutrition
@testable import NutritionTools

@Suite struct DiaryToolsTests {
    @Test func copyJournalMealCopiesYesterdaysEntriesExactlyAndRefusesATwin() async throws {
        let f = try Fixture()
        let yesterday = try f.journal.today().adding(days: -1)
        let originals = try f.journal.entriesToCopy(from: yesterday, meal: nil, in: f.queue.read { $0 })
        #expect(!originals.isEmpty)
        let card = try f.preview("copy_journal_meal", ["from_date": "yesterday"])
        #expect(card.hasPrefix("Copy \(originals.count) entr"), "\(card)")
        let out = try f.write("copy_journal_meal", ["from_date": "yesterday"])
        let copied = out["copied"]?.arrayValue ?? []
        #expect(copied.count == originals.count)
        let today = try f.journal.dayView(f.journal.today()).entries.filter { e in originals.contains { $0.name == e.name } }
        for o in originals {
            let c = try #require(today.first { $0.name == o.name && $0.meal == o.meal })
            #expect(c.nutrients == o.nutrients && c.servings == o.servings && c.serving == o.serving)
        }
        let again = try #require(await f.rejection("copy_journal_meal", ["from_date": "yesterday"]))
        #expect(again.contains("already has"), "\(again)")
        #expect(await f.rejection("copy_journal_meal", ["from_date": "today", "to_date": "today"]) != nil)
    }

    @Test func addDayNoteAndGetEatingTimes() async throws {
        let f = try Fixture()
        let out = try f.write("add_day_note", ["text": "Felt bloated"])
        #expect(out["noted"]?["text"]?.stringValue == "Felt bloated")
        #expect(try f.journal.notes(on: f.journal.today()).map(\.text) == ["Felt bloated"])
        let big = try #require(await f.rejection("add_day_note", ["text": .string(String(repeating: "a", count: 2_001))]))
        #expect(big.contains("text: must have at most 2000 characters"), "\(big)")
        let r = try f.resolve("get_eating_times", [:])
        let read = try JSONValue.parse(try await r.tool.execute(arguments: r.arguments, context: f.context).content)
        #expect(read["last_entry"]?["name"] != nil)
        #expect(read["around"]?.stringValue == "08:30")
    }

    @Test func theLogToolsTakeAMealOfThePersonsOwn() throws {
        let start = try TimeOfDay(parsing: "16:30")
        let f = try Fixture(customMeals: [CustomMeal(name: "Pre-workout", start: start)])
        let card = try f.preview("log_food", ["name": "Shake", "nutrients": ["energy_kcal": 200], "meal": "pre-workout"])
        #expect(card.contains("Meal: Pre-workout"), "\(card)")
        let out = try f.write("log_food", ["name": "Shake", "nutrients": ["energy_kcal": 200], "meal": "pre-workout"])
        let id = try #require(out["logged"]?["id"]?.stringValue.flatMap(UUID.init(uuidString:)))
        let e = try #require(try f.journal.entry(id))
        #expect(e.mealLabel == "Pre-workout" && e.meal == .snack)
        #expect(out["logged"]?["meal_name"]?.stringValue == "Pre-workout")
    }
}
