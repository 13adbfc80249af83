// Tests for logging USDA reference foods: grams, portions, id mapping, not-reported kept absent.
import Testing
import Foundation
import Nutrition
import ReferenceFoods
@testable import Journal

@Suite struct ReferenceLoggingTests {
    let reference = ReferenceDatabase.shared

    @Test func logsGramsWithCanonicalIDs() throws {
        let (store, _) = try makeStore()
        let egg = try #require(reference.food(id: "01123"))
        let e = try store.logReferenceFood(egg, grams: 50, meal: .breakfast)
        #expect(e.source == .reference)
        #expect(e.name == "Egg, whole, raw, fresh")
        #expect(e.serving == ServingSize(quantity: 50, unit: .mass(.g)))
        #expect(e.totalNutrients["energy_kcal"] == 71.5)
        #expect(e.totalNutrients["protein_g"] == 6.28)
        #expect(e.totalNutrients["vitamin_a_mcg"] == 80)   // vitamin_a_rae_mcg
        #expect(e.totalNutrients["folate_mcg"] == 23.5)    // folate_dfe_mcg
        #expect(e.totalNutrients["retinol_mcg"] == 80)     // extra columns are kept
        #expect(e.totalNutrients["vitamin_a_rae_mcg"] == nil)
        #expect(e.totalNutrients["energy_kj"] == nil && e.totalNutrients["vitamin_a_iu"] == nil)
        #expect(e.totalNutrients["fiber_g"] == 0)          // reported as zero stays zero
        #expect(e.totalNutrients["vitamin_k2_mk4_mcg"] == nil) // not reported stays absent
        #expect(try store.entry(e.id) == e)
    }

    @Test func logsPortionsByTextAndRejectsBadInput() throws {
        let (store, _) = try makeStore()
        let two = try store.logReferenceFood(id: "01123", portion: "2 large", from: reference)
        #expect(two.serving.quantity == 2 && two.serving.unit == .count("large") && two.serving.grams == 100)
        #expect(two.totalNutrients["energy_kcal"] == 143)
        #expect(try store.entry(two.id) == two)
        let cup = try store.logReferenceFood(id: "01123", portion: "1 cup", from: reference)
        #expect(cup.serving.unit == .volume(.cup) && cup.serving.grams == 243)
        #expect(try store.entry(cup.id) == cup)
        let grams = try store.logReferenceFood(id: "09040", grams: 118, from: reference)
        #expect(grams.name == "Bananas, raw")
        #expect(journalError { try store.logReferenceFood(id: "99999", grams: 1, from: reference) }?.description.contains("reference food") == true)
        #expect(journalError { try store.logReferenceFood(id: "01123", portion: "1 bucket", from: reference) }?.description.hasPrefix("portion") == true)
        #expect(journalError { try store.logReferenceFood(id: "01123", from: reference) } != nil)
        #expect(journalError { try store.logReferenceFood(id: "01123", portion: "1 large", grams: 5, from: reference) } != nil)
        let egg = try #require(reference.food(id: "01123"))
        for bad in [0, -5, Double.nan, Double.infinity, 1e9] {
            #expect(journalError { try store.logReferenceFood(egg, grams: bad) }?.description.hasPrefix("grams") == true)
        }
        #expect(try count(store, "journal_entries") == 3)
    }

    @Test func cliPathGramsWithPortionDescription() throws {
        let (store, _) = try makeStore()
        let egg = try #require(reference.food(id: "01123"))
        let match = try #require(egg.portion(matching: "2 large"))
        let e = try store.logReferenceFood(egg, grams: match.grams, portion: match, day: day("2024-04-01"), meal: .breakfast)
        #expect(e.serving == ServingSize(quantity: 2, unit: .count("large"), grams: 100))
        #expect(e.serving.label == "2 large (100 g)")
        #expect(e.totalNutrients["energy_kcal"] == 143)
        #expect(e.day == day("2024-04-01") && e.meal == .breakfast)
        // Butter's "pat (1\" sq, 1/3\" high)" becomes a count named "pat".
        let butter = try #require(reference.food(id: "01001"))
        let pat = try #require(butter.portion(matching: "1 pat"))
        #expect(JournalStore.referenceServing(grams: pat.grams, portion: pat).unit == .count("pat"))
        #expect(JournalStore.referenceServing(grams: 30, portion: nil) == ServingSize(quantity: 30, unit: .mass(.g)))
    }

    @Test func savedFoodFromReferenceConvertsByItsPortions() throws {
        let (store, _) = try makeStore()
        let banana = try #require(reference.food(id: "09040"))
        let food = try store.createFood(fromReference: banana, name: "Banana")
        #expect(food.serving.quantity == 100 && food.serving.unit == .mass(.g))
        #expect(food.mappings.contains { $0.unit == .volume(.cup) && $0.grams == 225 })
        let e = try store.logFood(food.id, amount: .quantity(1, .volume(.cup)))
        #expect(abs((e.totalNutrients["energy_kcal"] ?? 0) - 89 * 2.25) < 1e-9)
        #expect(e.savedFoodID == food.id)
    }
}
