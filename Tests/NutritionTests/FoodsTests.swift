// Tests for saved foods (single, composite, calculator), the archive rule, goals and the Shelf recommender.
import Testing
import Foundation
@testable import Nutrition

private let t0 = Date(timeIntervalSince1970: 1_700_000_000)
private func amounts(_ d: [String: Double]) -> NutrientAmounts { (try? NutrientAmounts(d)) ?? NutrientAmounts() }

@Suite struct SavedFoodTests {
    let oats = SavedFood(name: "Oats", serving: ServingSize(quantity: 40, unit: .mass(.g)),
                         mappings: [UnitMapping(quantity: 1, unit: .volume(.cup), grams: 80)],
                         nutrients: amounts(["energy_kcal": 150, "protein_g": 5, "fiber_g": 4]), createdAt: t0)

    @Test func singleFoodScalesByQuantityAndUnit() throws {
        let (s, n) = try oats.nutrients(quantity: 1, unit: .volume(.cup))
        #expect(s == 2)
        #expect(n["energy_kcal"] == 300)
        #expect(try oats.nutrients(quantity: 20, unit: .mass(.g)).nutrients["protein_g"] == 2.5)
        #expect(throws: NutritionError.self) { try oats.nutrients(quantity: 1, unit: .count("egg")) }
    }

    @Test func compositeIsSumOfSnapshotsAndIgnoresLaterEdits() throws {
        var milk = SavedFood(name: "Milk", serving: ServingSize(quantity: 1, unit: .volume(.cup), grams: 244),
                             nutrients: amounts(["energy_kcal": 100, "protein_g": 8, "calcium_mg": 300]), createdAt: t0)
        let bowl = SavedFood(kind: .composite, name: "Oat bowl", ingredients: [
            try IngredientSnapshot.from(oats, quantity: 80, unit: .mass(.g)),
            try IngredientSnapshot.from(milk, quantity: 0.5, unit: .volume(.cup)),
        ], createdAt: t0)
        #expect(bowl.nutrients["energy_kcal"] == 350)
        #expect(bowl.nutrients["protein_g"] == 14)
        #expect(bowl.nutrients["calcium_mg"] == 150)
        #expect(bowl.nutrients["fiber_g"] == 8)
        milk.nutrients = amounts(["energy_kcal": 999])
        #expect(bowl.nutrients["energy_kcal"] == 350)
        var twoServings = bowl
        twoServings.recipeServings = 2
        twoServings.recompute()
        #expect(twoServings.nutrients["energy_kcal"] == 175)
        try bowl.validate()
        var empty = bowl
        empty.ingredients = []
        #expect(throws: NutritionError.self) { try empty.validate() }
    }

    let bowlCalc = SavedFood(kind: .calculator, name: "Burrito bowl", calculatorIngredients: [
        CalculatorIngredient(name: "Rice", portions: [CalculatorPortion(name: "light", nutrients: amounts(["energy_kcal": 105, "carbohydrate_g": 20])),
                                                      CalculatorPortion(name: "regular", nutrients: amounts(["energy_kcal": 210, "carbohydrate_g": 40]))]),
        CalculatorIngredient(name: "Chicken", portions: [CalculatorPortion(name: "regular", nutrients: amounts(["energy_kcal": 180, "protein_g": 32])),
                                                         CalculatorPortion(name: "double", nutrients: amounts(["energy_kcal": 360, "protein_g": 64]))]),
        CalculatorIngredient(name: "Salsa", portions: [CalculatorPortion(name: "regular", nutrients: amounts(["energy_kcal": 25, "sodium_mg": 550]))]),
    ], createdAt: t0)

    @Test func calculatorBuildSumsOnePortionPerIngredient() throws {
        try bowlCalc.validate()
        let n = try bowlCalc.build([CalculatorSelection(ingredient: "rice", portion: "Light"),
                                    CalculatorSelection(ingredient: "Chicken", portion: "double")])
        #expect(n["energy_kcal"] == 465)
        #expect(n["protein_g"] == 64)
        #expect(n["carbohydrate_g"] == 20)
        #expect(n["sodium_mg"] == nil)
        #expect(throws: NutritionError.duplicateIngredient("Rice")) {
            try bowlCalc.build([CalculatorSelection(ingredient: "Rice", portion: "light"), CalculatorSelection(ingredient: "rice", portion: "regular")])
        }
        #expect(throws: NutritionError.unknownIngredient("Beans")) { try bowlCalc.build([CalculatorSelection(ingredient: "Beans", portion: "regular")]) }
        #expect(throws: NutritionError.unknownPortion(ingredient: "Rice", portion: "triple")) {
            try bowlCalc.build([CalculatorSelection(ingredient: "Rice", portion: "triple")])
        }
        #expect(throws: NutritionError.emptyBuild) { try bowlCalc.build([]) }
        #expect(throws: NutritionError.self) { try bowlCalc.nutrients(quantity: 1, unit: .count("serving")) }
        #expect(throws: NutritionError.self) { try oats.build([CalculatorSelection(ingredient: "x", portion: "y")]) }
    }

    @Test func calculatorValidationCatchesDuplicates() {
        var c = bowlCalc
        c.calculatorIngredients.append(CalculatorIngredient(name: "RICE", portions: [CalculatorPortion(name: "x", nutrients: NutrientAmounts())]))
        #expect(throws: NutritionError.duplicateIngredient("RICE")) { try c.validate() }
        var d = bowlCalc
        d.calculatorIngredients[0].portions.append(CalculatorPortion(name: "LIGHT", nutrients: NutrientAmounts()))
        #expect(throws: NutritionError.self) { try d.validate() }
        var e = bowlCalc
        e.calculatorIngredients[2].portions = []
        #expect(throws: NutritionError.self) { try e.validate() }
    }

    @Test func validationNamesTheField() {
        var f = oats
        f.name = String(repeating: "a", count: 201)
        #expect(throws: NutritionError.invalidText(field: "name", reason: "is longer than 200 characters")) { try f.validate() }
        f.name = "ok\nnot ok"
        #expect(throws: NutritionError.invalidText(field: "name", reason: "contains control characters or invalid UTF-8")) { try f.validate() }
        f.name = "   "
        #expect(throws: NutritionError.invalidText(field: "name", reason: "must not be empty")) { try f.validate() }
        f.name = "Oats"
        f.serving = ServingSize(quantity: 0, unit: .mass(.g))
        #expect(throws: NutritionError.invalidQuantity(field: "serving quantity", value: 0)) { try f.validate() }
        #expect(NutritionError.invalidQuantity(field: "serving quantity", value: 0).description.hasPrefix("serving quantity"))
    }
}

@Suite struct ArchiveRuleTests {
    let day = 86_400.0

    @Test func fourteenDayEdges() {
        let now = t0.addingTimeInterval(100 * day)
        func status(_ ago: Double, shelf: Bool = false, manual: Bool = false) -> FoodStatus {
            ArchiveRule.status(isManuallyArchived: manual, isOnShelf: shelf, lastUsedAt: now.addingTimeInterval(-ago), createdAt: t0, now: now)
        }
        #expect(status(0) == .active)
        #expect(status(14 * day - 1) == .active)
        #expect(status(14 * day) == .archived)
        #expect(status(30 * day) == .archived)
        #expect(status(30 * day, shelf: true) == .active)
        #expect(status(0, manual: true) == .archived)
        #expect(status(0, shelf: true, manual: true) == .archived) // a manual archive always wins
    }

    @Test func neverUsedCountsFromCreation() {
        let created = t0
        #expect(ArchiveRule.status(isManuallyArchived: false, isOnShelf: false, lastUsedAt: nil, createdAt: created,
                                   now: created.addingTimeInterval(13 * day)) == .active)
        #expect(ArchiveRule.status(isManuallyArchived: false, isOnShelf: false, lastUsedAt: nil, createdAt: created,
                                   now: created.addingTimeInterval(14 * day)) == .archived)
        #expect(ArchiveRule.cutoff(now: created.addingTimeInterval(14 * day)) == created)
    }
}

@Suite struct GoalsTests {
    @Test func defaultsComeFromDailyValues() {
        let g = Goals.fdaDefaults
        #expect(g["energy_kcal"] == 2000)
        #expect(g["protein_g"] == 50)
        #expect(g["sodium_mg"] == 2300)
        #expect(g["sugars_g"] == nil)
        #expect(g.ids.first == "energy_kcal")
    }

    @Test func settingValidatesAndMapsNames() throws {
        let g = try Goals.fdaDefaults.setting("Calories", to: 2200).setting("omega_3_mg", to: 250).setting("sodium_mg", to: nil)
        #expect(g["energy_kcal"] == 2200)
        #expect(g["omega_3_mg"] == 250)
        #expect(g["sodium_mg"] == nil)
        #expect(throws: NutritionError.self) { try g.setting("protein_g", to: -5) }
        #expect(throws: NutritionError.self) { try g.setting("protein_g", to: 0) }
        #expect(throws: NutritionError.self) { try g.setting("protein_g", to: .nan) }
        #expect(throws: NutritionError.self) { try g.setting("Not A Nutrient!", to: 5) }
        #expect(throws: NutritionError.self) { try Goals(["protein_g": .infinity]) }
    }

    @Test func progressCarriesNotReportedCounts() throws {
        var t = NutrientTotals()
        t.add(amounts(["energy_kcal": 500, "protein_g": 20]))
        t.add(amounts(["energy_kcal": 300]))
        let p = GoalProgress.make(goals: try Goals(["energy_kcal": 2000, "protein_g": 100]), totals: t)
        #expect(p.map(\.id) == ["energy_kcal", "protein_g"])
        #expect(p[0].remaining == 1200)
        #expect(p[1].fraction == 0.2)
        #expect(p[1].notReportedCount == 1)
    }
}

@Suite struct ShelfRecommenderTests {
    func food(_ name: String, _ n: [String: Double], shelf: Bool = true, id: UUID = UUID()) -> SavedFood {
        SavedFood(id: id, name: name, nutrients: amounts(n), isOnShelf: shelf, createdAt: t0)
    }

    @Test func ranksByRemainingGoalsWithReasons() throws {
        let goals = try Goals(["energy_kcal": 2000, "protein_g": 100, "sodium_mg": 2300])
        var consumed = NutrientTotals()
        consumed.add(amounts(["energy_kcal": 1500, "protein_g": 60, "sodium_mg": 2000]))
        let foods = [food("Greek yogurt", ["energy_kcal": 100, "protein_g": 17, "sodium_mg": 60]),
                     food("Chips", ["energy_kcal": 300, "protein_g": 2, "sodium_mg": 400]),
                     food("Not on shelf", ["energy_kcal": 100, "protein_g": 40], shelf: false)]
        let recs = ShelfRecommender.recommend(foods: foods, goals: goals, consumed: consumed)
        #expect(recs.map(\.name) == ["Greek yogurt", "Chips"])
        #expect(recs[0].servings == 2)
        #expect(recs[0].nutrients["protein_g"] == 34)
        #expect(recs[0].reason.contains("protein"))
        #expect(recs[0].reason.contains("kcal"))
        #expect(recs[1].reason.contains("sodium"))
        #expect(recs[1].score < recs[0].score)
    }

    @Test func deterministicTieBreaksByNameThenID() throws {
        let goals = try Goals(["protein_g": 50])
        let ida = try #require(UUID(uuidString: "00000000-0000-0000-0000-00000000000A"))
        let idb = try #require(UUID(uuidString: "00000000-0000-0000-0000-00000000000B"))
        let same = ["protein_g": 10.0]
        let foods = [food("Tofu", same, id: idb), food("tofu", same, id: ida), food("Eggs", same), food("Tofu", same, id: ida)]
        let first = ShelfRecommender.recommend(foods: foods, goals: goals, consumed: NutrientTotals(), limit: 10)
        #expect(first.map(\.name) == ["Eggs", "Tofu", "Tofu", "tofu"])
        #expect(first[1].foodID == ida && first[2].foodID == idb)
        for _ in 0..<20 {
            let again = ShelfRecommender.recommend(foods: foods.shuffled(), goals: goals, consumed: NutrientTotals(), limit: 10)
            #expect(again == first)
        }
    }

    @Test func overshootIsPenalisedAndSmallerServingWins() throws {
        let goals = try Goals(["energy_kcal": 2000, "protein_g": 100])
        var consumed = NutrientTotals()
        consumed.add(amounts(["energy_kcal": 1800, "protein_g": 80]))
        let recs = ShelfRecommender.recommend(foods: [food("Steak", ["energy_kcal": 400, "protein_g": 40])], goals: goals, consumed: consumed)
        #expect(recs.first?.servings == 0.5)
        #expect(recs.first?.reason.contains("fits") == true)
    }

    @Test func skipsCalculatorArchivedAndEmptyFoods() throws {
        var archived = food("Archived", ["protein_g": 10])
        archived.isManuallyArchived = true
        let calc = SavedFood(kind: .calculator, name: "Calc", calculatorIngredients: [], isOnShelf: true, createdAt: t0)
        let recs = ShelfRecommender.recommend(foods: [archived, calc, food("Empty", [:])], goals: .fdaDefaults, consumed: NutrientTotals())
        #expect(recs.isEmpty)
    }
}

@Suite struct ShelfRecommenderEdgeTests {
    func food(_ name: String, _ n: [String: Double]) -> SavedFood {
        SavedFood(name: name, nutrients: amounts(n), isOnShelf: true, createdAt: t0)
    }

    @Test func overTheCalorieGoalEverythingIsPenalisedButStillRanked() throws {
        let goals = try Goals(["energy_kcal": 2000, "protein_g": 100, "sodium_mg": 2300])
        var consumed = NutrientTotals()
        consumed.add(amounts(["energy_kcal": 2400, "protein_g": 50, "sodium_mg": 2500]))
        let recs = ShelfRecommender.recommend(foods: [food("Cucumber", ["energy_kcal": 15]),
                                                      food("Salami", ["energy_kcal": 400, "protein_g": 20, "sodium_mg": 1800])],
                                              goals: goals, consumed: consumed)
        #expect(recs.map(\.name) == ["Cucumber", "Salami"])
        #expect(recs.allSatisfy { $0.servings == 0.5 })
        #expect(recs.allSatisfy { $0.score <= 0 })
        #expect(recs[1].reason.contains("over your calorie goal"))
        #expect(recs[1].reason.contains("sodium limit"))
    }

    @Test func limitZeroAndFullGoalsMakeNoNoise() throws {
        let goals = try Goals(["protein_g": 50])
        var consumed = NutrientTotals()
        consumed.add(amounts(["protein_g": 50]))
        let recs = ShelfRecommender.recommend(foods: [food("Tofu", ["protein_g": 10])], goals: goals, consumed: consumed, limit: 0)
        #expect(recs.isEmpty)
        let one = ShelfRecommender.recommend(foods: [food("Tofu", ["protein_g": 10])], goals: goals, consumed: consumed)
        #expect(one.first?.score == 0)
        #expect(one.first?.reason.contains("adds little") == true)
        #expect(one.first?.servings == 0.5) // ties between multiples keep the smallest
    }
}
