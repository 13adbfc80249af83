// The tools log a reference food's derived values marked, show the mark where the nutrient is
// shown, keep it through scaling and clear it when the value is set by hand.
import Foundation
import Testing
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

@Suite struct DerivedMarkRangeTests {
    @Test func rangeTotalsAndTheOfflineAnswerSayWhenPartlyDerived() async throws {
        let h = try OfflineHarness()
        _ = try h.fixture.write("log_reference_food", ["reference_id": "16613", "grams": 200, "date": "2026-11-29"])
        let range = try await h.fixture.read("get_journal_range", ["from": "2026-11-29", "to": "2026-11-29", "nutrients": ["vitamin_d_mcg"]])
        #expect(range["totals_partly_derived"] == ["vitamin_d_mcg"])
        let r = try await h.ask("how much vitamin d today")
        #expect(r.text.hasPrefix("You had 0.5 mcg vitamin D today"), "\(r.text)")
        #expect(r.text.hasSuffix("Part of it is derived by USDA's rules (e.g. vitamin D from IU ÷ 40), not reported directly."), "\(r.text)")
        // A nutrient with nothing derived says nothing of it.
        let sodium = try await h.ask("how much sodium today")
        #expect(!sodium.text.contains("derived"))
    }
}
