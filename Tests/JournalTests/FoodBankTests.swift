// Tests for saved foods: logging from them, composites, calculators, archive rule, shelf, brands, search.
import Testing
import Foundation
import Nutrition
@testable import Journal

@Suite struct FoodBankTests {
    func milkDraft(brand: String? = "Horizon") -> FoodDraft {
        FoodDraft(name: "Milk 2%", brand: brand, serving: ServingSize(quantity: 1, unit: .volume(.cup), grams: 244),
                  nutrients: nutrients(["energy_kcal": 122, "protein_g": 8, "calcium_mg": 300]))
    }

    @Test func logFromSavedFoodScalesKeepsIDAndUpdatesLastUsed() throws {
        let (store, clock) = try makeStore()
        let milk = try store.createFood(milkDraft())
        #expect(milk.lastUsedAt == nil)
        clock.advance(seconds: 30)
        let byServings = try store.logFood(milk.id, amount: .servings(2), meal: .breakfast)
        #expect(byServings.savedFoodID == milk.id)
        #expect(byServings.source == .foodBank)
        #expect(byServings.totalNutrients["protein_g"] == 16)
        #expect(byServings.serving.unit == .volume(.cup))
        #expect(try store.food(milk.id)?.lastUsedAt == clock.now())
        let byGrams = try store.logFood(milk.id, amount: .quantity(122, .mass(.g)))
        #expect(byGrams.totalNutrients["energy_kcal"] == 61)
        #expect(byGrams.serving.quantity == 122 && byGrams.serving.unit == .mass(.g))
        let byFlOz = try store.logFood(milk.id, amount: .quantity(4, .volume(.flOz)))
        #expect(abs((byFlOz.totalNutrients["calcium_mg"] ?? 0) - 150) < 1e-6)
        #expect(byFlOz.serving.grams.map { abs($0 - 122) < 1e-6 } == true)
    }

    @Test func impossibleConversionWritesNothing() throws {
        let (store, clock) = try makeStore()
        let bread = try store.createFood(FoodDraft(name: "Bread", serving: ServingSize(quantity: 1, unit: .count("slice")),
                                                   nutrients: nutrients(["energy_kcal": 80])))
        clock.advance(days: 1)
        let err = journalError { try store.logFood(bread.id, amount: .quantity(30, .mass(.g))) }
        #expect(err == .nutrition(.impossibleConversion(from: "g", to: "slice")))
        #expect(journalError { try store.logFood(bread.id, amount: .servings(0)) } != nil)
        #expect(journalError { try store.logFood(bread.id, amount: .quantity(-2, .count("slice"))) } != nil)
        #expect(journalError { try store.logFood(UUID()) }?.description.hasPrefix("no saved food") == true)
        #expect(try count(store, "journal_entries") == 0)
        #expect(try store.food(bread.id)?.lastUsedAt == nil)
        #expect(try store.logFood(bread.id, amount: .quantity(3, .count("slices"))).totalNutrients["energy_kcal"] == 240)
    }

    @Test func editingAFoodNeverChangesLoggedEntries() throws {
        let (store, _) = try makeStore()
        let milk = try store.createFood(milkDraft())
        let e = try store.logFood(milk.id)
        var d = FoodDraft(milk)
        d.nutrients = nutrients(["energy_kcal": 999])
        d.name = "Renamed"
        let edited = try store.editFood(milk.id, d)
        #expect(edited.name == "Renamed" && edited.createdAt == milk.createdAt)
        #expect(try store.entry(e.id) == e)
        #expect(journalError { try store.editFood(UUID(), d) } != nil)
        d.name = ""
        #expect(journalError { try store.editFood(milk.id, d) }?.description.hasPrefix("name") == true)
        #expect(try store.food(milk.id)?.name == "Renamed")
    }

    /// Issue 34 §6: grams of a cooked batch log exactly that share of the ingredient sum.
    @Test func cookedBatchLoggedByGramsIsTheIngredientSumScaled() throws {
        let (store, _) = try makeStore()
        let beans = try store.createFood(FoodDraft(name: "Beans", serving: ServingSize(quantity: 100, unit: .mass(.g)),
                                                   nutrients: nutrients(["energy_kcal": 127.3, "protein_g": 8.67, "fiber_g": 6.4])))
        let beef = try store.createFood(FoodDraft(name: "Beef", serving: ServingSize(quantity: 4, unit: .mass(.oz)),
                                                  nutrients: nutrients(["energy_kcal": 287.1, "protein_g": 21.9, "iron_mg": 2.31])))
        var draft = FoodDraft(kind: .composite, name: "Chili", ingredients: [
            try store.ingredient(from: beans.id, quantity: 431, unit: .mass(.g)),
            try store.ingredient(from: beef.id, quantity: 17, unit: .mass(.oz)),
        ], recipeServings: 3)
        draft.cookedGrams = 1187
        let chili = try store.createFood(draft)
        let sum = draft.ingredients[0].nutrients.adding(draft.ingredients[1].nutrients)
        #expect(chili.cookedGrams == 1187)
        #expect(try store.food(chili.id)?.cookedGrams == 1187)
        #expect(chili.serving.grams == 1187.0 / 3)
        #expect(chili.batchNutrients == sum)
        for (q, unit) in [(250.0, ServingUnit.mass(.g)), (8, .mass(.oz)), (0.4, .mass(.kg)), (1187, .mass(.g))] {
            let e = try store.logFood(chili.id, amount: .quantity(q, unit))
            let grams = q * (unit == .mass(.g) ? 1 : unit == .mass(.kg) ? 1000 : 28.349523125)
            #expect(e.totalNutrients == sum.scaled(by: grams / 1187).rounded(places: 6), "\(q) \(unit.symbol)")
            #expect(e.serving.grams.map { abs($0 - grams) < 1e-9 } == true)
        }
        // One serving is a third of the batch.
        #expect(try store.logFood(chili.id, amount: .servings(1)).totalNutrients == chili.nutrients)
        #expect(chili.nutrients == sum.scaled(by: 1.0 / 3))
        // A cooked weight of nothing, of a lorry, or on a plain food: refused, nothing saved.
        let before = try store.searchFoods("", limit: 50).count
        for bad in [0.0, -5, 0.5, 200_000, .infinity] {
            var d = draft
            d.name = "Bad \(bad)"
            d.cookedGrams = bad
            #expect(journalError { try store.createFood(d) } != nil, "\(bad)")
        }
        var plain = FoodDraft(name: "Plain", nutrients: nutrients(["energy_kcal": 10]))
        plain.cookedGrams = 500
        #expect(journalError { try store.createFood(plain) } != nil)
        var byWeight = draft
        byWeight.serving = ServingSize(quantity: 100, unit: .mass(.g))
        #expect(journalError { try store.createFood(byWeight) } != nil)
        #expect(try store.searchFoods("", limit: 50).count == before)
    }

    @Test func compositeFromSnapshotsAndCalculatorBuilds() throws {
        let (store, _) = try makeStore()
        let milk = try store.createFood(milkDraft())
        let oats = try store.createFood(FoodDraft(name: "Oats", serving: ServingSize(quantity: 40, unit: .mass(.g)),
                                                  nutrients: nutrients(["energy_kcal": 150, "protein_g": 5])))
        let bowl = try store.createFood(FoodDraft(kind: .composite, name: "Oat bowl", ingredients: [
            try store.ingredient(from: oats.id, quantity: 80, unit: .mass(.g)),
            try store.ingredient(from: milk.id, quantity: 0.5, unit: .volume(.cup)),
        ]))
        #expect(bowl.nutrients["energy_kcal"] == 361)
        #expect(bowl.nutrients["calcium_mg"] == 150)
        #expect(try store.food(bowl.id) == bowl)
        #expect(try store.logFood(bowl.id).totalNutrients["protein_g"] == 14)
        #expect(journalError { _ = try store.ingredient(from: oats.id, quantity: 1, unit: .volume(.cup)) } != nil)
        #expect(journalError { try store.createFood(FoodDraft(kind: .composite, name: "Empty")) } != nil)

        let calc = try store.createFood(FoodDraft(kind: .calculator, name: "Bowl", brand: "Chipotle", calculatorIngredients: [
            CalculatorIngredient(name: "Rice", portions: [CalculatorPortion(name: "light", nutrients: nutrients(["energy_kcal": 105])),
                                                          CalculatorPortion(name: "regular", nutrients: nutrients(["energy_kcal": 210]))]),
            CalculatorIngredient(name: "Chicken", portions: [CalculatorPortion(name: "regular", nutrients: nutrients(["energy_kcal": 180, "protein_g": 32]))]),
        ]))
        let build = try store.logCalculatorBuild(calc.id, selections: [CalculatorSelection(ingredient: "Rice", portion: "light"),
                                                                      CalculatorSelection(ingredient: "Chicken", portion: "regular")], meal: .lunch)
        #expect(build.source == .calculator)
        #expect(build.savedFoodID == calc.id)
        #expect(build.totalNutrients["energy_kcal"] == 285)
        #expect(build.name.hasPrefix("Bowl ("))
        let double = try store.logCalculatorBuild(calc.id, selections: [CalculatorSelection(ingredient: "rice", portion: "REGULAR")], servings: 2)
        #expect(double.totalNutrients["energy_kcal"] == 420)
        #expect(journalError { try store.logCalculatorBuild(calc.id, selections: [CalculatorSelection(ingredient: "Rice", portion: "light")], servings: 0) } != nil)
        #expect(journalError { try store.logCalculatorBuild(calc.id, selections: []) } == .nutrition(.emptyBuild))
        #expect(journalError { try store.logFood(calc.id) } != nil)
        #expect(journalError { try store.logCalculatorBuild(calc.id, selections: [CalculatorSelection(ingredient: "Rice", portion: "huge")]) }
                == .nutrition(.unknownPortion(ingredient: "Rice", portion: "huge")))
        #expect(journalError { try store.logCalculatorBuild(oats.id, selections: [CalculatorSelection(ingredient: "x", portion: "y")]) } != nil)
        #expect(try count(store, "journal_entries") == 3)
    }

    @Test func archiveRuleShelfAndManualArchiveInSearch() throws {
        let (store, clock) = try makeStore()
        let used = try store.createFood(milkDraft())
        let shelf = try store.createFood(FoodDraft(name: "Peanut butter", isOnShelf: true))
        let idle = try store.createFood(FoodDraft(name: "Idle crackers"))
        clock.advance(days: 10)
        try store.logFood(used.id)
        clock.advance(days: 14, seconds: -1)
        // 13d 23h 59m 59s after the last use: still active; idle was created 24 days ago.
        var active = try store.searchFoods().map(\.food.id)
        #expect(Set(active) == [used.id, shelf.id])
        clock.advance(seconds: 1)
        active = try store.searchFoods().map(\.food.id)
        #expect(active == [shelf.id])
        // A non-empty query finds archived foods too, with their status.
        let found = try store.searchFoods("crackers")
        #expect(found.map(\.food.id) == [idle.id])
        #expect(found.first?.status == .archived)
        // A manual archive wins over the Shelf; unarchive brings it back.
        let archived = try store.setFoodArchived(shelf.id, true)
        #expect(archived.isManuallyArchived && archived.status(now: clock.now()) == .archived)
        #expect(try store.searchFoods().isEmpty)
        try store.setFoodArchived(shelf.id, false)
        #expect(try store.searchFoods().map(\.food.id) == [shelf.id])
        // Taking it off the Shelf lets the 14-day rule archive it; putting idle on brings it back.
        try store.setFoodOnShelf(shelf.id, false)
        try store.setFoodOnShelf(idle.id, true)
        #expect(try store.searchFoods().map(\.food.id) == [idle.id])
        #expect(try store.shelfFoods().map(\.id) == [idle.id])
        #expect(journalError { try store.setFoodOnShelf(UUID(), true) } != nil)
        #expect(journalError { try store.setFoodArchived(UUID(), true) } != nil)
    }

    @Test func searchWordsBrandFilterAndSorts() throws {
        let (store, clock) = try makeStore()
        let a = try store.createFood(FoodDraft(name: "Greek yogurt plain", brand: "Fage"))
        let b = try store.createFood(FoodDraft(name: "Greek Yogurt honey", brand: "Chobani"))
        let c = try store.createFood(FoodDraft(name: "Apple"))
        let d = try store.createFood(FoodDraft(name: "100% juice_box", brand: "fage"))
        clock.advance(seconds: 5); try store.logFood(c.id)
        clock.advance(seconds: 5); try store.logFood(a.id)
        #expect(try store.searchFoods("greek YOGURT").map(\.food.id) == [b.id, a.id])
        #expect(try store.searchFoods("yogurt fage").map(\.food.id) == [a.id])
        #expect(try store.searchFoods("100%").map(\.food.id) == [d.id])
        #expect(try store.searchFoods("_").map(\.food.id) == [d.id]) // LIKE wildcards are literal
        #expect(try store.searchFoods("", brand: "FAGE").map(\.food.id) == [d.id, a.id])
        #expect(try store.searchFoods("", brand: "Unbranded").map(\.food.id) == [c.id])
        #expect(try store.searchFoods(sort: .lastUsed).map(\.food.id) == [a.id, c.id, d.id, b.id])
        #expect(try store.searchFoods(sort: .brand).map(\.food.id) == [b.id, d.id, a.id, c.id])
        #expect(try store.searchFoods(limit: 2).count == 2)
        #expect(journalError { _ = try store.searchFoods(String(repeating: "q", count: 201)) } != nil)
        #expect(journalError { _ = try store.searchFoods("bad\u{0}") } != nil)
    }

    @Test func brandBucketsAndBulkRename() throws {
        let (store, _) = try makeStore()
        try store.createFood(FoodDraft(name: "A", brand: "Trader Joes"))
        try store.createFood(FoodDraft(name: "B", brand: "trader joes"))
        try store.createFood(FoodDraft(name: "C", brand: "Amy's"))
        let e = try store.logFood(try #require(try store.searchFoods("A", brand: "Trader Joes").first?.food.id))
        try store.createFood(FoodDraft(name: "D"))
        var buckets = try store.brandBuckets()
        #expect(buckets.map(\.displayName) == ["Amy's", "Trader Joes", "Unbranded"])
        #expect(buckets.map(\.foodCount) == [1, 2, 1])
        #expect(try store.renameBrand("TRADER JOES", to: "Trader Joe's") == 2)
        buckets = try store.brandBuckets()
        #expect(buckets.map(\.displayName) == ["Amy's", "Trader Joe's", "Unbranded"])
        #expect(try store.entry(e.id)?.brand == "Trader Joes") // logged entries keep their snapshot
        #expect(try store.renameBrand("Amy's", to: nil) == 1)
        #expect(try store.brandBuckets().last?.foodCount == 2)
        #expect(try store.renameBrand("Nobody", to: "X") == 0)
        #expect(journalError { try store.renameBrand("Amy's", to: String(repeating: "x", count: 101)) } != nil)
    }

    @Test func foodValidationErrors() throws {
        let (store, _) = try makeStore()
        let cases: [(FoodDraft, String)] = [
            (FoodDraft(name: ""), "name"),
            (FoodDraft(name: String(repeating: "n", count: 201)), "name"),
            (FoodDraft(name: "x", brand: "a\nb"), "brand"),
            (FoodDraft(name: "x", serving: ServingSize(quantity: -1, unit: .mass(.g))), "serving quantity"),
            (FoodDraft(name: "x", mappings: [UnitMapping(quantity: 1, unit: .count("egg"))]), "mapping 1"),
            (FoodDraft(name: "x", mappings: [UnitMapping(quantity: 0, unit: .volume(.cup), grams: 5)]), "mapping 1 quantity"),
            (FoodDraft(name: "x", recipeServings: 0), "recipe servings"),
            (FoodDraft(kind: .calculator, name: "x"), "calculator"),
        ]
        for (d, field) in cases {
            let message = try #require(journalError { try store.createFood(d) }, "\(field)").description
            #expect(message.contains(field), "\(message)")
        }
        #expect(try count(store, "journal_saved_foods") == 0)
    }

    @Test func shelfRecommendationsUseTodaysRemainingGoals() throws {
        let (store, _) = try makeStore()
        try store.setGoals(try Goals(["energy_kcal": 2000, "protein_g": 100]))
        try store.createFood(FoodDraft(name: "Skyr", nutrients: nutrients(["energy_kcal": 100, "protein_g": 17]), isOnShelf: true))
        try store.createFood(FoodDraft(name: "Candy", nutrients: nutrients(["energy_kcal": 250, "protein_g": 0]), isOnShelf: true))
        try store.createFood(FoodDraft(name: "Not home", nutrients: nutrients(["energy_kcal": 100, "protein_g": 30])))
        try store.logEntry(EntryDraft(name: "Lunch", nutrients: nutrients(["energy_kcal": 1700, "protein_g": 60])))
        let recs = try store.recommendFromShelf()
        #expect(recs.map(\.name) == ["Skyr", "Candy"])
        #expect(recs.first?.reason.contains("protein") == true)
        #expect(try store.recommendFromShelf() == recs)
    }
}
