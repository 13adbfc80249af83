// Backups with impossible dates, far-future stamps or links to foods that do not exist (issue 25 §6):
// refused as a whole, naming the first offending record by position and id, never by content.
import Testing
import Foundation
import Nutrition
import SQLiteKit
@testable import Journal

@Suite struct BackupValidationTests {
    /// A backup of one food and two entries (the second logged from the food), as JSON objects to edit.
    func backupDocument() throws -> [String: Any] {
        let (store, _) = try makeStore(ManualClock("2025-03-01T12:00:00Z"))
        let oats = try store.createFood(FoodDraft(name: "Oats", serving: ServingSize(quantity: 40, unit: .mass(.g), grams: 40),
                                                  nutrients: nutrients(["energy_kcal": 150])))
        try store.logEntry(EntryDraft(day: day("2025-03-01"), meal: .breakfast, name: "Secret snack", nutrients: nutrients(["energy_kcal": 90])))
        try store.logFood(oats.id, amount: .servings(1))
        let object = try JSONSerialization.jsonObject(with: try store.exportBackup())
        return try #require(object as? [String: Any])
    }

    func importing(_ doc: [String: Any], into store: JournalStore) throws {
        try store.importBackup(try JSONSerialization.data(withJSONObject: doc))
    }

    func edit(_ doc: inout [String: Any], _ list: String, _ index: Int, _ key: String, _ value: Any) {
        var rows = doc[list] as? [[String: Any]] ?? []
        rows[index][key] = value
        doc[list] = rows
    }

    func id(_ doc: [String: Any], _ list: String, _ index: Int) -> String { ((doc[list] as? [[String: Any]])?[index]["id"] as? String) ?? "" }

    /// Imports `doc` into a fresh journal and returns the one-line refusal; checks nothing was written.
    func refusal(_ doc: [String: Any], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let (fresh, _) = try makeStore(ManualClock("2025-03-02T08:00:00Z"))
        let error = journalError { try importing(doc, into: fresh) }
        #expect(error != nil, "the import was accepted", sourceLocation: sourceLocation)
        #expect(try count(fresh, "journal_entries") == 0, sourceLocation: sourceLocation)
        #expect(try count(fresh, "journal_saved_foods") == 0, sourceLocation: sourceLocation)
        let line = error?.description ?? ""
        #expect(!line.contains("Secret snack") && !line.contains("Oats"), "content leaked: \(line)", sourceLocation: sourceLocation)
        return line
    }

    @Test(arguments: ["1899-12-31", "2201-01-01", "0001-01-01", "9999-12-31"])
    func aDayOutside1900To2200IsRefused(_ bad: String) throws {
        var doc = try backupDocument()
        edit(&doc, "entries", 1, "day", bad)
        let line = try refusal(doc)
        #expect(line.contains("entry 2 (id \(id(doc, "entries", 1))): its day is outside 1900–2200"), "\(line)")
    }

    @Test func timestampsOutside1900To2200AreRefused() throws {
        var doc = try backupDocument()
        edit(&doc, "entries", 0, "created_at", "1850-06-01T00:00:00Z")
        #expect(try refusal(doc).contains("entry 1 (id \(id(doc, "entries", 0))): its created_at is outside 1900–2200"))
        var foodDoc = try backupDocument()
        edit(&foodDoc, "foods", 0, "last_used_at", "2300-01-01T00:00:00Z")
        #expect(try refusal(foodDoc).contains("food 1 (id \(id(foodDoc, "foods", 0))): its last_used_at is outside 1900–2200"))
    }

    @Test func anUpdatedAtMoreThanADayAheadIsRefused() throws {
        var doc = try backupDocument()
        edit(&doc, "entries", 1, "updated_at", "2025-03-03T08:00:01Z") // now is 2025-03-02T08:00Z
        #expect(try refusal(doc).contains("entry 2 (id \(id(doc, "entries", 1))): its updated_at is more than a day in the future"))
        var foodDoc = try backupDocument()
        edit(&foodDoc, "foods", 0, "updated_at", "2090-01-01T00:00:00Z")
        #expect(try refusal(foodDoc).contains("food 1 (id \(id(foodDoc, "foods", 0))): its updated_at is more than a day in the future"))
    }

    @Test func aStampWithinADayOfNowIsAccepted() throws {
        // Clocks of two machines disagree a little: a few hours ahead is not an error.
        var doc = try backupDocument()
        edit(&doc, "entries", 1, "updated_at", "2025-03-02T20:00:00Z")
        let (fresh, _) = try makeStore(ManualClock("2025-03-02T08:00:00Z"))
        let report = try fresh.importBackup(try JSONSerialization.data(withJSONObject: doc))
        #expect(report.entriesInserted == 2 && report.foodsInserted == 1)
    }

    @Test func anEntryLinkedToAFoodThatDoesNotExistIsRefused() throws {
        var doc = try backupDocument()
        let ghost = "6F0E2B1C-0000-4000-8000-000000000001"
        edit(&doc, "entries", 1, "saved_food_id", ghost)
        let line = try refusal(doc)
        #expect(line.contains("entry 2 (id \(id(doc, "entries", 1))): its saved_food_id names a food that is neither in the backup nor in this journal"), "\(line)")
    }

    @Test func anEntryLinkedToAFoodAlreadyInTheJournalIsAccepted() throws {
        let full = try backupDocument()
        var foodsOnly = full
        foodsOnly["entries"] = [[String: Any]]()
        var entriesOnly = full
        entriesOnly["foods"] = [[String: Any]]()
        let (fresh, _) = try makeStore(ManualClock("2025-03-02T08:00:00Z"))
        try importing(foodsOnly, into: fresh)
        try importing(entriesOnly, into: fresh)
        #expect(try count(fresh, "journal_entries") == 2)
    }

    @Test func aCompositeIngredientFromAnUnknownFoodIsImportedAndReported() throws {
        let (store, _) = try makeStore(ManualClock("2025-03-01T12:00:00Z"))
        let milk = try store.createFood(FoodDraft(name: "Milk", serving: ServingSize(quantity: 1, unit: .volume(.cup), grams: 244),
                                                  nutrients: nutrients(["energy_kcal": 122])))
        try store.createFood(FoodDraft(kind: .composite, name: "Latte", ingredients: [try store.ingredient(from: milk.id, quantity: 1, unit: .volume(.cup))]))
        var doc = try #require(try JSONSerialization.jsonObject(with: try store.exportBackup()) as? [String: Any])
        doc["foods"] = (doc["foods"] as? [[String: Any]] ?? []).filter { ($0["name"] as? String) == "Latte" }
        let (fresh, _) = try makeStore(ManualClock("2025-03-02T08:00:00Z"))
        let report = try fresh.importBackup(try JSONSerialization.data(withJSONObject: doc))
        #expect(report.foodsInserted == 1)
        #expect(report.unknownIngredientLinks == 1)
    }
}
