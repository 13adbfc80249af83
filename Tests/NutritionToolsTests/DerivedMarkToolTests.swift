// The tools log a reference food's derived values marked, show the mark where the nutrient is
// shown, keep it through scaling and clear it when the value is set by hand.
import Foundation
import Testing
import Agent
import Journal
@testable import NutritionTools

@Suite struct DerivedMarkToolTests {
    @Test func loggingAnIUOnlyFoodMarksVitaminDDerived() async throws {
        let f = try Fixture(seeded: false)
        // 16613 reports vitamin D only in IU.
        let logged = try f.write("log_reference_food", ["reference_id": "16613", "grams": 100])
        let entry = try #require(logged["logged"])
        #expect(entry["derived"] == ["vitamin_d_mcg"])
        let id = try #require(entry["id"]?.stringValue)
        #expect(try f.journal.entry(try #require(UUID(uuidString: id)))?.derivedNutrients == ["vitamin_d_mcg"])

        // The compact day shows the mark only when vitamin D is asked for.
        let plain = try await f.read("get_journal_day", [:])
        #expect(!plain.serialized.contains("derived"))
        let day = try await f.read("get_journal_day", ["nutrients": ["vitamin_d_mcg"]])
        #expect(day["meals"]?[0]?["entries"]?[0]?["derived"] == ["vitamin_d_mcg"])
        #expect(day["totals_partly_derived"] == ["vitamin_d_mcg"])
        let one = try await f.read("get_journal_day", ["entry_id": .string(id)])
        #expect(one["entry"]?["derived"] == ["vitamin_d_mcg"])

        let scaled = try f.write("update_journal_entry", ["entry_id": .string(id), "servings": 2])
        #expect(scaled["updated"]?["derived"] == ["vitamin_d_mcg"])
        let byHand = try f.write("update_journal_entry", ["entry_id": .string(id), "nutrients": ["energy_kcal": 50, "vitamin_d_mcg": 3]])
        #expect(byHand["updated"]?["derived"] == nil)
    }

    @Test func aReportedValueIsNotMarked() throws {
        let f = try Fixture(seeded: false)
        let logged = try f.write("log_reference_food", ["reference_id": "01077", "grams": 100])
        #expect(logged["logged"]?["derived"] == nil)
    }
}
