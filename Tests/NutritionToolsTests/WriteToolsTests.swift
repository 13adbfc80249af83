// Write tools: each one's happy path through the same preview + apply the ledger uses, checking
// the journal rows it leaves and that micronutrients survive.
import Foundation
import Testing
import Journal
import Nutrition
@testable import NutritionTools

@Suite struct WriteToolsTests {
    @Test func logFoodKeepsEveryNutrientAndUnknownIds() throws {
        let f = try Fixture()
        let full = fullNutrients(2)
        let r = try f.write("log_food", ["name": "Smoothie", "brand": "Home", "quantity": 350, "unit": "mL", "nutrients": json(full), "meal": "snack"])
        let id = try #require(r["logged"]?["id"]?.stringValue.flatMap(UUID.init(uuidString:)))
        let e = try #require(try f.journal.entry(id))
        #expect(e.nutrients == full)
        #expect(e.nutrients["hesperidin_mg"] == 25)
        #expect(e.meal == .snack && e.day.description == "2026-11-29")
        #expect(e.serving.milliliters == 350)
        #expect(e.source == .assistant)
        #expect(amounts(r["logged"]?["nutrients"]) == full.values)
    }

    @Test func logSavedFoodByUnitScalesAndKeepsTheFoodId() throws {
        let f = try Fixture()
        let r = try f.write("log_saved_food", ["food_id": .string(f.seed.oatmeal.uuidString), "quantity": 80, "unit": "g", "date": "yesterday"])
        let id = try #require(r["logged"]?["id"]?.stringValue.flatMap(UUID.init(uuidString:)))
        let e = try #require(try f.journal.entry(id))
        #expect(e.savedFoodID == f.seed.oatmeal)
        #expect(e.day.description == "2026-11-28")
        #expect(e.meal == .breakfast)
        #expect(e.source == .foodBank)
        #expect(e.totalNutrients == fullNutrients().scaled(by: 2).rounded(places: 6))
        let food = try #require(try f.journal.food(f.seed.oatmeal))
        #expect(food.lastUsedAt != nil)

        let byServings = try f.write("log_saved_food", ["food_id": .string(f.seed.oatMilk.uuidString), "servings": 1.5, "meal": "lunch"])
        #expect(byServings["logged"]?["nutrients"]?["calcium_mg"] == 525)
        #expect(byServings["logged"]?["amount"] == "1.5 × 1 cup")
    }

    @Test func logReferenceFoodByPortionAndGrams() throws {
        let f = try Fixture(seeded: false)
        let r = try f.write("log_reference_food", ["reference_id": "01123", "portion": "large", "quantity": 2, "meal": "breakfast"])
        let id = try #require(r["logged"]?["id"]?.stringValue.flatMap(UUID.init(uuidString:)))
        let e = try #require(try f.journal.entry(id))
        #expect(e.name == "Egg, whole, raw, fresh")
        #expect(e.source == .reference)
        #expect(e.serving.grams == 100)
        #expect(e.totalNutrients["protein_g"] == 12.56)
        #expect(e.totalNutrients["cholesterol_mg"] == 372)
        #expect(e.totalNutrients["vitamin_a_mcg"] != nil)
        #expect(e.totalNutrients.count > 40)
        #expect(r["logged"]?["amount"] == "2 large (100 g)")

        let g = try f.write("log_reference_food", ["reference_id": "01123", "grams": 25])
        #expect(g["logged"]?["nutrients"]?["protein_g"] == 3.14)
        #expect(g["logged"]?["meal"] == "breakfast")
    }

    @Test func logCalculatorBuildSumsPortions() throws {
        let f = try Fixture()
        let r = try f.write("log_calculator_build", ["food_id": .string(f.seed.bowl.uuidString), "meal": "lunch",
                                                     "selections": [["ingredient": "rice", "portion": "Brown"], ["ingredient": "Protein", "portion": "chicken"]]])
        #expect(r["logged"]?["nutrients"]?["energy_kcal"] == 390)
        #expect(r["logged"]?["nutrients"]?["fiber_g"] == 2)
        #expect(r["logged"]?["source"] == "calculator")
        #expect(r["logged"]?["saved_food_id"] == .string(f.seed.bowl.uuidString))
    }

    @Test func updateMoveAndDeleteEntries() throws {
        let f = try Fixture()
        let coffee = f.seed.coffee.uuidString
        let u = try f.write("update_journal_entry", ["entry_id": .string(coffee), "servings": 2, "name": "Coffee, black"])
        #expect(u["updated"]?["nutrients"]?["caffeine_mg"] == 190)
        let n = try f.write("update_journal_entry", ["entry_id": .string(coffee), "nutrients": ["energy_kcal": 10, "caffeine_mg": 150]])
        #expect(n["updated"]?["nutrients"] == ["energy_kcal": 10, "caffeine_mg": 150])
        #expect(try f.journal.entry(f.seed.coffee)?.nutrients["caffeine_mg"] == 75)

        let m = try f.write("move_journal_entry", ["entry_id": .string(coffee), "meal": "breakfast", "date": "yesterday"])
        #expect(m["moved"]?["meal"] == "breakfast" && m["moved"]?["date"] == "2026-11-28")

        let before = try f.entryCount()
        let d = try f.write("delete_journal_entry", ["entry_id": .string(f.seed.toast.uuidString)])
        #expect(d["deleted"]?["name"] == "Toast")
        #expect(try f.entryCount() == before - 1)
        #expect(try f.journal.entry(f.seed.toast) == nil)
    }

    @Test func saveFoodFromReferenceEntryAndScratch() throws {
        let f = try Fixture()
        let ref = try f.write("save_food", ["from_reference_id": "01123", "portion": "large", "on_shelf": true])
        let egg = try #require(ref["saved"]?["id"]?.stringValue.flatMap(UUID.init(uuidString:)))
        let food = try #require(try f.journal.food(egg))
        #expect(food.name == "Egg, whole, raw, fresh")
        #expect(food.serving.grams == 50)
        #expect(food.isOnShelf)
        #expect(food.nutrients["protein_g"] == 6.28)
        // The other household portions became units: 1 jumbo = 63 g.
        let logged = try f.write("log_saved_food", ["food_id": .string(egg.uuidString), "quantity": 1, "unit": "jumbo"])
        #expect(logged["logged"]?["nutrients"]?["protein_g"] == 7.9128)

        let fromEntry = try f.write("save_food", ["from_entry_id": .string(f.seed.tofu.uuidString), "brand": "Home"])
        #expect(fromEntry["saved"]?["name"] == "Scrambled tofu")
        #expect(fromEntry["saved"]?["nutrients_per_serving"]?["sodium_mg"] == 400)

        let scratch = try f.write("save_food", ["name": "Protein bar", "serving_quantity": 1, "serving_unit": "bar", "serving_grams": 60,
                                                "nutrients": json(fullNutrients())])
        #expect(amounts(scratch["saved"]?["nutrients_per_serving"]) == fullNutrients().values)

        let edit = try f.write("save_food", ["food_id": .string(f.seed.oatMilk.uuidString), "name": "Oat drink", "nutrients": ["energy_kcal": 130]])
        #expect(edit["saved"]?["name"] == "Oat drink")
        #expect(edit["saved"]?["nutrients_per_serving"] == ["energy_kcal": 130])
        #expect(try f.journal.food(f.seed.oatMilk)?.serving.milliliters == 240)

        let composite = try f.write("save_food", ["name": "Yogurt bowl", "recipe_servings": 2, "ingredients": [
            ["food_id": .string(f.seed.yogurt.uuidString), "quantity": 340, "unit": "g"],
            ["food_id": .string(f.seed.oatmeal.uuidString), "quantity": 40, "unit": "g"],
        ]])
        #expect(composite["saved"]?["kind"] == "composite")
        let protein = try #require(composite["saved"]?["nutrients_per_serving"]?["protein_g"]?.doubleValue)
        #expect(abs(protein - (18 + (fullNutrients()["protein_g"] ?? 0) / 2)) < 0.001)
    }

    /// Issue 34 §6: a reference ingredient carries what logging the same amount does; a cooked
    /// batch is logged by grams of the dish as that share of the ingredient sum.
    @Test func saveFoodWithReferenceIngredientsAndACookedWeight() throws {
        let f = try Fixture()
        let saved = try f.write("save_food", ["name": "Egg bake", "recipe_servings": 2, "cooked_grams": 350, "ingredients": [
            ["ref_id": "01123", "amount": "2 large"],
            ["food_id": .string(f.seed.oatmeal.uuidString), "quantity": 40, "unit": "g"],
        ]])
        let id = try #require(saved["saved"]?["id"]?.stringValue.flatMap(UUID.init(uuidString:)))
        let food = try #require(try f.journal.food(id))
        #expect(food.cookedGrams == 350 && food.serving.grams == 175)
        #expect(food.ingredients[0].referenceID == "01123")
        let egg = try f.write("log_reference_food", ["reference_id": "01123", "portion": "2 large"])
        #expect(amounts(egg["logged"]?["nutrients"]) == food.ingredients[0].nutrients.values)
        let logged = try f.write("log_saved_food", ["food_id": .string(id.uuidString), "quantity": 100, "unit": "g"])
        // The tool's answer rounds for reading; the stored entry is exact.
        let entryID = try #require(logged["logged"]?["id"]?.stringValue.flatMap(UUID.init(uuidString:)))
        let entry = try #require(try f.journal.entry(entryID))
        #expect(entry.totalNutrients == food.batchNutrients.scaled(by: 100.0 / 350).rounded(places: 6))
    }

    @Test func shelfArchiveBrandAndGoals() throws {
        let f = try Fixture()
        let oat = f.seed.oatmeal.uuidString
        let a = try f.write("set_food_archived", ["food_id": .string(oat), "archived": true])
        #expect(a["food"]?["status"] == "archived")
        #expect(try f.journal.food(f.seed.oatmeal)?.isManuallyArchived == true)
        let s = try f.write("set_food_on_shelf", ["food_id": .string(f.seed.oatMilk.uuidString), "on_shelf": true])
        #expect(s["food"]?["on_shelf"] == true)
        let b = try f.write("rename_brand", ["from": "quaker", "to": "Quaker Oats"])
        #expect(b["renamed_foods"] == 1)
        #expect(try f.journal.food(f.seed.oatmeal)?.brand == "Quaker Oats")
        let g = try f.write("set_goals", ["goals": ["energy_kcal": 2200, "protein_g": 140, "fiber_g": .null]])
        #expect(g["goals"]?["energy_kcal"] == 2200)
        let goals = try f.journal.goals()
        #expect(goals["protein_g"] == 140 && goals["fiber_g"] == nil && goals["sodium_mg"] == 2300)
        try f.write("set_goals", ["reset_to_defaults": true])
        #expect(try f.journal.goals() == .fdaDefaults)
    }
}
