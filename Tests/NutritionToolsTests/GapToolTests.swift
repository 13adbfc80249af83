// get_nutrient_gaps: the assistant's view of `ofj gaps` (issue #22 §3).
import Foundation
import Testing
import Journal
@testable import NutritionTools

@Suite struct GapToolTests {
    @Test func gapsToolListsShortNutrientsWithDaysAndFoods() async throws {
        let f = try Fixture()
        let r = try await f.read("get_nutrient_gaps")
        #expect(r["from"] == "2026-11-16" && r["to"] == "2026-11-29", "14 days ending today by default")
        #expect(r["logged_days"] == 2)
        let gaps = try #require(r["gaps"]?.arrayValue)
        // Protein: 18 g today, 6 + 1.3 g yesterday: 12.65 g a day over 2 days, 25% of 50 g.
        let protein = try #require(gaps.first { $0["nutrient"] == "protein_g" })
        #expect(protein["reporting_days"] == 2)
        #expect(protein["average_per_day"] == 12.65)
        #expect(protein["fraction_of_daily_value"] == 0.253)
        let foods = try #require(protein["foods"]?.arrayValue)
        #expect(foods.count == 3)
        let densities = foods.compactMap { $0["amount_per_100_kcal"]?.doubleValue }
        #expect(densities.count == 3 && densities == densities.sorted(by: >))
        #expect(foods.allSatisfy { ["food_bank", "reference"].contains($0["source"]?.stringValue ?? "") })
        // Nutrients nobody reported are unknown, not gaps; limits are never gaps.
        let unknown = try #require(r["not_reported"]?.arrayValue)
        #expect(unknown.contains("fiber_g") && !gaps.contains { $0["nutrient"] == "fiber_g" })
        #expect(!gaps.contains { $0["nutrient"] == "sodium_mg" })
        // A later range with nothing logged has no gaps.
        let empty = try await f.read("get_nutrient_gaps", ["from": "2026-10-01", "to": "2026-10-14"])
        #expect(empty["gaps"]?.arrayValue?.isEmpty == true && empty["logged_days"] == 0)
        #expect(await f.rejection("get_nutrient_gaps", ["from": "2026-11-20", "to": "2026-11-01"]) != nil)
    }
}
