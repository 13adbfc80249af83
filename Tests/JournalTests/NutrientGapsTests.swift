// Issue #22 §3: nutrients whose reported average is below 80% of the Daily Value, how many days
// report each, and the foods that close most of each gap per 100 kcal.
import Foundation
import Testing
import Nutrition
import ReferenceFoods
@testable import Journal

@Suite struct NutrientGapsTests {
    /// Three days logged: iron on two (9 mg and 3 mg: 6 mg a day, 33% of 18 mg), vitamin C on
    /// all three at 100 mg (above the DV), fiber on one day at 25 g (89%, not a gap), calcium on
    /// none (unknown, not a gap).
    func store() throws -> JournalStore {
        let (store, _) = try makeStore(ManualClock("2024-05-10T17:00:00Z"))
        try store.logEntry(EntryDraft(day: day("2024-05-08"), meal: .lunch, name: "Stew",
                                      nutrients: nutrients(["energy_kcal": 1_800, "iron_mg": 9, "vitamin_c_mg": 100, "fiber_g": 25])))
        try store.logEntry(EntryDraft(day: day("2024-05-09"), meal: .lunch, name: "Salad",
                                      nutrients: nutrients(["energy_kcal": 1_500, "iron_mg": 3, "vitamin_c_mg": 100])))
        try store.logEntry(EntryDraft(day: day("2024-05-10"), meal: .lunch, name: "Pasta",
                                      nutrients: nutrients(["energy_kcal": 2_000, "vitamin_c_mg": 100])))
        return store
    }

    @Test func gapsAverageOverReportingDaysAndSkipUnreported() throws {
        let store = try store()
        let r = try store.nutrientGaps(from: day("2024-04-27"), to: day("2024-05-10"))
        #expect(r.loggedDays == 3)
        let iron = try #require(r.gaps.first { $0.nutrient == "iron_mg" })
        #expect(iron.reportingDays == 2)
        #expect(abs(iron.average - 6) < 1e-9, "the average divides by the 2 days that report iron, not 3 or 14")
        #expect(abs(iron.fraction - 6.0 / 18) < 1e-9)
        #expect(!r.gaps.contains { $0.nutrient == "vitamin_c_mg" })
        #expect(!r.gaps.contains { $0.nutrient == "fiber_g" }, "25 g of 28 g is 89%: above the 80% line")
        #expect(!r.gaps.contains { $0.nutrient == "calcium_mg" })
        #expect(r.notReported.contains("calcium_mg"))
        #expect(!r.gaps.contains { $0.nutrient == "sodium_mg" || $0.nutrient == "energy_kcal" }, "limits and energy are not gaps")
        // Lowest share of the Daily Value first.
        #expect(r.gaps.map(\.fraction) == r.gaps.map(\.fraction).sorted())
        // With the threshold at 100% fiber is one.
        let all = try store.nutrientGaps(from: day("2024-04-27"), to: day("2024-05-10"), threshold: 1)
        #expect(all.gaps.contains { $0.nutrient == "fiber_g" })
    }

    @Test func foodsRankByAmountPer100KcalFromFoodBankAndReference() throws {
        let store = try store()
        // A Food Bank food denser in iron than any reference food: 50 mg in 50 kcal.
        let dense = try store.createFood(FoodDraft(name: "Iron-fortified test flakes", serving: ServingSize(quantity: 30, unit: .mass(.g)),
                                                   nutrients: nutrients(["energy_kcal": 50, "iron_mg": 50])))
        try ReferenceDatabase.shared.load()
        let r = try store.nutrientGaps(from: day("2024-04-27"), to: day("2024-05-10"), reference: .shared)
        let iron = try #require(r.gaps.first { $0.nutrient == "iron_mg" })
        #expect(iron.foods.count == 3)
        #expect(iron.foods.first?.source == "food_bank" && iron.foods.first?.id == dense.id.uuidString)
        #expect(iron.foods.first.map { abs($0.perHundredKcal - 100) < 1e-9 } == true)
        #expect(iron.foods.first.map { abs($0.gapShare - 100.0 / 12) < 1e-9 } == true, "100 mg per 100 kcal against a 12 mg gap")
        let rest = iron.foods.dropFirst()
        #expect(rest.allSatisfy { $0.source == "reference" })
        #expect(iron.foods.map(\.perHundredKcal) == iron.foods.map(\.perHundredKcal).sorted(by: >))
        // Each reference suggestion really has that much iron per 100 kcal, and is a different kind of food.
        for f in rest {
            let food = try #require(ReferenceDatabase.shared.food(id: f.id))
            let kcal = try #require(food.per100g("energy_kcal"))
            #expect(kcal >= 20)
            #expect(abs((food.per100g("iron_mg") ?? 0) / kcal * 100 - f.perHundredKcal) < 1e-9)
        }
        #expect(Set(rest.map { $0.name.split(separator: ",").first.map(String.init) ?? "" }).count == rest.count)
    }

    @Test func nothingLoggedHasNoGapsAndNoUnknowns() throws {
        let (store, _) = try makeStore()
        let r = try store.nutrientGaps(from: day("2024-04-18"), to: day("2024-05-01"))
        #expect(r.loggedDays == 0 && r.gaps.isEmpty && r.notReported.isEmpty)
    }
}
