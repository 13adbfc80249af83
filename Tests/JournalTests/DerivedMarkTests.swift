// An entry logged from a reference food records which of its values USDA's rules derived, and
// keeps that mark through scaling, backups and JSON, until the value is set by hand.
import Testing
import Foundation
import Nutrition
import ReferenceFoods
@testable import Journal

@Suite struct DerivedMarkTests {
    let reference = ReferenceDatabase.shared

    @Test func aReferenceEntryWithIUOnlyVitaminDIsMarkedDerived() throws {
        let (store, _) = try makeStore()
        // 16613 reports vitamin D only in IU.
        let e = try store.logReferenceFood(id: "16613", grams: 200, from: reference, day: day("2024-05-01"), meal: .lunch)
        #expect(e.derivedNutrients == ["vitamin_d_mcg"])
        #expect(try store.entry(e.id)?.derivedNutrients == ["vitamin_d_mcg"])
        // A food whose vitamin D is reported carries no mark.
        let milk = try store.logReferenceFood(id: "01077", grams: 200, from: reference, day: day("2024-05-01"), meal: .lunch)
        #expect(milk.derivedNutrients == nil)
        let view = try store.dayView(day("2024-05-01"))
        #expect(view.partlyDerived == ["vitamin_d_mcg"])
        let json = String(decoding: try JournalJSON.encoder.encode(view), as: UTF8.self)
        #expect(json.contains("\"derived\" : [\n"))
        #expect(json.contains("\"partly_derived\" : [\n"))
        // A manual entry's JSON has neither key.
        let (plain, _) = try makeStore()
        try plain.logEntry(EntryDraft(day: day("2024-05-01"), name: "Soup", nutrients: nutrients(["vitamin_d_mcg": 1])))
        let plainJSON = String(decoding: try JournalJSON.encoder.encode(try plain.dayView(day("2024-05-01"))), as: UTF8.self)
        #expect(!plainJSON.contains("derived"))
    }

    @Test func scalingKeepsTheMarkAndEditingTheValueClearsIt() throws {
        let (store, _) = try makeStore()
        let e = try store.logReferenceFood(id: "16613", grams: 100, from: reference)
        let scaled = try store.updateEntry(e.id, EntryUpdate(servings: 3))
        #expect(scaled.derivedNutrients == ["vitamin_d_mcg"])
        // Other nutrients edited, vitamin D carried over unchanged: still derived.
        var same = scaled.nutrients.values
        same["energy_kcal"] = 1
        let other = try store.updateEntry(e.id, EntryUpdate(nutrients: NutrientAmounts(storedCanonical: same)))
        #expect(other.derivedNutrients == ["vitamin_d_mcg"])
        var edited = same
        edited["vitamin_d_mcg"] = 2
        let byHand = try store.updateEntry(e.id, EntryUpdate(nutrients: NutrientAmounts(storedCanonical: edited)))
        #expect(byHand.derivedNutrients == nil)
        #expect(try store.entry(e.id)?.derivedNutrients == nil)
    }

    @Test func backupRoundTripKeepsTheMarkAndOldBackupsImport() throws {
        let (store, _) = try makeStore()
        let e = try store.logReferenceFood(id: "16613", grams: 100, from: reference)
        try store.logEntry(EntryDraft(name: "Tea", nutrients: nutrients(["energy_kcal": 2])))
        let data = try store.exportBackup()
        let text = String(decoding: data, as: UTF8.self)
        // Only the marked entry has the key.
        #expect(text.components(separatedBy: "\"derived\"").count == 2)
        let (restored, _) = try makeStore()
        try restored.importBackup(data)
        #expect(try restored.entry(e.id)?.derivedNutrients == ["vitamin_d_mcg"])
        // A backup written before the field existed imports, unmarked.
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var entries = try #require(object["entries"] as? [[String: Any]])
        for i in entries.indices { entries[i]["derived"] = nil }
        object["entries"] = entries
        let old = try JSONSerialization.data(withJSONObject: object)
        let (fresh, _) = try makeStore()
        let report = try fresh.importBackup(old)
        #expect(report.entriesInserted == 2)
        #expect(try fresh.entry(e.id)?.derivedNutrients == nil)
        #expect(try fresh.entry(e.id)?.nutrients["vitamin_d_mcg"] == e.nutrients["vitamin_d_mcg"])
    }

    @Test func csvExportNamesDerivedCellsOnlyWhenThereAreAny() throws {
        let (store, _) = try makeStore()
        try store.logEntry(EntryDraft(name: "Tea", nutrients: nutrients(["energy_kcal": 2])))
        #expect(!(try store.exportCSV()).contains("derived"))
        try store.logReferenceFood(id: "16613", grams: 100, from: reference)
        let lines = try store.exportCSV().components(separatedBy: "\r\n")
        #expect(lines[0].hasSuffix(",derived"))
        #expect(lines.contains { $0.hasSuffix(",vitamin_d_mcg") })
        #expect(lines.contains { $0.contains("Tea") && $0.hasSuffix(",") })
    }
}

@Suite struct DerivedMarkSavedFoodTests {
    @Test func aSavedFoodFromAReferenceFoodCarriesTheMarkToItsEntries() throws {
        let (store, _) = try makeStore()
        let ref = try #require(ReferenceDatabase.shared.food(id: "16613"))
        let food = try store.createFood(fromReference: ref)
        #expect(food.derivedNutrients == ["vitamin_d_mcg"])
        #expect(try store.food(food.id)?.derivedNutrients == ["vitamin_d_mcg"])
        let e = try store.logFood(food.id, amount: .quantity(50, .mass(.g)))
        #expect(e.derivedNutrients == ["vitamin_d_mcg"])
        // Backups carry it; an edit that sets vitamin D by hand clears it.
        let (restored, _) = try makeStore()
        try restored.importBackup(try store.exportBackup())
        #expect(try restored.food(food.id)?.derivedNutrients == ["vitamin_d_mcg"])
        var draft = FoodDraft(food)
        var values = food.nutrients.values
        values["vitamin_d_mcg"] = 5
        draft.nutrients = NutrientAmounts(storedCanonical: values)
        #expect(try store.editFood(food.id, draft).derivedNutrients == nil)
        // A food with nothing derived has no key in JSON.
        let plain = try store.createFood(FoodDraft(name: "Tea", nutrients: nutrients(["energy_kcal": 2])))
        #expect(!String(decoding: try JournalJSON.encoder.encode(plain), as: UTF8.self).contains("derived"))
    }
}
