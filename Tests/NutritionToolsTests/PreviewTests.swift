// Golden approval previews: exactly what the person is asked to approve.
import Base
import Foundation
import Testing
@testable import NutritionTools

@Suite struct PreviewTests {
    static func cases(_ s: Seed) -> [(String, JSONValue, String)] {
        [
            ("log_food", ["name": "Smoothie", "brand": "Home", "quantity": 350, "unit": "mL", "grams": 360, "meal": "snack",
                          "nutrients": ["energy_kcal": 210, "protein_g": 6.5, "potassium_mg": 540, "vitamin_c_mg": 33.25]], """
                Log to the journal: Smoothie (Home) — 350 mL (360 g)
                Date: Sunday 2026-11-29 · Meal: snack
                Nutrients: 210 kcal, protein 6.5 g
                Also: vitamin C 33.3 mg, potassium 540 mg
                """),
            ("log_saved_food", ["food_id": .string(s.yogurt.uuidString), "quantity": 85, "unit": "g", "date": "yesterday"], """
                Log from your Food Bank: Greek yogurt (Fage) — 85 g
                Date: Saturday 2026-11-28 · Meal: breakfast
                Nutrients: 50 kcal, protein 9 g, carbohydrate 3 g, fat 0 g
                Also: sugars 2.5 g
                """),
            ("log_saved_food", ["food_id": .string(s.oatMilk.uuidString), "servings": 2, "meal": "lunch"], """
                Log from your Food Bank: Oat milk (Oatly) — 2 × 1 cup
                Date: Sunday 2026-11-29 · Meal: lunch
                Nutrients: 240 kcal, protein 6 g, carbohydrate 32 g, fat 10 g
                Also: calcium 700 mg
                """),
            ("log_reference_food", ["reference_id": "01123", "portion": "large", "quantity": 2, "meal": "breakfast"], """
                Log a reference food (USDA 01123): Egg, whole, raw, fresh — 2 large (100 g)
                Date: Sunday 2026-11-29 · Meal: breakfast
                Nutrients: 143 kcal, protein 12.6 g, carbohydrate 0.72 g, fat 9.51 g
                Also: sugars 0.37 g, sodium 142 mg, cholesterol 372 mg, saturated fat 3.13 g, trans fat 0.038 g, monounsaturated fat 3.66 g, polyunsaturated fat 1.91 g, vitamin A 160 mcg, and 44 more nutrients
                """),
            ("log_calculator_build", ["food_id": .string(s.bowl.uuidString), "selections": [["ingredient": "Rice", "portion": "white"], ["ingredient": "Protein", "portion": "chicken"]], "meal": "dinner"], """
                Log a build of Burrito bowl (Chipotle) — Rice: white, Protein: chicken
                Date: Sunday 2026-11-29 · Meal: dinner
                Nutrients: 390 kcal, protein 32 g, carbohydrate 40 g
                Also: sodium 310 mg
                """),
            ("update_journal_entry", ["entry_id": .string(s.coffee.uuidString), "servings": 2, "meal": "breakfast"], """
                Change journal entry: Coffee, brewed — 1 cup, lunch on Sunday 2026-11-29
                  servings: 1 → 2
                  meal: lunch → breakfast
                  nutrients before: 2 kcal, caffeine 95 mg
                  nutrients after: 4 kcal, caffeine 190 mg
                """),
            ("move_journal_entry", ["entry_id": .string(s.coffee.uuidString), "meal": "breakfast"], """
                Move journal entry: Coffee, brewed — 1 cup
                From: lunch on Sunday 2026-11-29
                To: breakfast on Sunday 2026-11-29
                """),
            ("delete_journal_entry", ["entry_id": .string(s.toast.uuidString)], """
                Delete journal entry: Toast — 2 slice
                Date: Saturday 2026-11-28 · Meal: breakfast
                Nutrients removed: 160 kcal, protein 6 g
                Also: sugars 3 g, sodium 300 mg
                """),
            ("save_food", ["from_reference_id": "09040", "on_shelf": true], """
                Save to your Food Bank: Bananas, raw (from USDA reference 09040)
                Serving: 1 cup (225 g) · on the Shelf
                Also in: 1 cup, mashed = 225 g, 1 cup, sliced = 150 g, 1 extra small (less than 6" long) = 81 g, 1 small (6" to 6-7/8" long) = 101 g, 1 medium (7" to 7-7/8" long) = 118 g, 1 large (8" to 8-7/8" long) = 136 g, 1 extra large (9" or longer) = 152 g, 1 nlea serving = 126 g
                Per serving: 200 kcal, protein 2.45 g, carbohydrate 51.4 g, fat 0.743 g
                Also: fiber 5.85 g, sugars 27.5 g, sodium 2.25 mg, saturated fat 0.252 g, monounsaturated fat 0.072 g, polyunsaturated fat 0.164 g, vitamin A 6.75 mcg, vitamin C 19.6 mg, and 43 more nutrients
                """),
            ("save_food", ["food_id": .string(s.oatMilk.uuidString), "name": "Oat drink", "nutrients": ["energy_kcal": 130]], """
                Edit Food Bank food: Oat milk (Oatly)
                  name: Oat milk → Oat drink
                  per serving before: 120 kcal, protein 3 g, carbohydrate 16 g, fat 5 g
                  Also: calcium 350 mg
                  per serving after: 130 kcal
                """),
            ("save_food", ["from_entry_id": .string(s.tofu.uuidString), "brand": "Home"], """
                Save to your Food Bank: Scrambled tofu (Home) (from the entry logged breakfast on 2026-11-29)
                Serving: 150 g
                Per serving: 220 kcal, protein 18 g
                Also: sodium 400 mg
                """),
            ("save_food", ["name": "Yogurt bowl", "recipe_servings": 2, "ingredients": [
                ["food_id": .string(s.yogurt.uuidString), "quantity": 340, "unit": "g"], ["food_id": .string(s.oatmeal.uuidString), "quantity": 40, "unit": "g"]]], """
                Save to your Food Bank: Yogurt bowl
                Serving: 1 serving · composite
                Ingredients: 340 g Greek yogurt, 40 g Oatmeal (makes 2)
                Per serving: 101 kcal, protein 19.3 g, carbohydrate 7.91 g, fat 2.53 g
                Also: copper 21.3 mg ⚠ unusually high, fiber 3.16 g, sugars 8.78 g, added sugars 4.41 g, sodium 5.03 mg, cholesterol 5.66 mg, saturated fat 6.28 g, trans fat 6.91 g, and 55 more nutrients
                """),
            ("save_food", ["name": "Poke bowl", "calculator_ingredients": [["name": "Base", "portions": [["name": "rice", "nutrients": ["energy_kcal": 200]],
                                                                                                      ["name": "greens", "nutrients": ["energy_kcal": 20]]]]]], """
                Save to your Food Bank: Poke bowl
                Serving: 1 serving · calculator
                Ingredients: Base: rice (200 kcal), greens (20 kcal)
                """),
            ("set_food_archived", ["food_id": .string(s.oatmeal.uuidString), "archived": true], """
                Archive Food Bank food: Oatmeal (Quaker)
                It stays searchable; logged entries do not change.
                """),
            ("set_food_on_shelf", ["food_id": .string(s.oatMilk.uuidString), "on_shelf": false], """
                Take off the Shelf: Oat milk (Oatly)
                """),
            ("rename_brand", ["from": "quaker", "to": "Quaker Oats"], """
                Rename brand "Quaker" to "Quaker Oats" on 1 Food Bank food
                Logged entries keep their brand.
                """),
            ("set_goals", ["goals": ["energy_kcal": 2200, "protein_g": 140, "fiber_g": .null]], """
                Change daily goals:
                  Calories: 2000 kcal → 2200 kcal
                  Protein: 50 g → 140 g
                  Fiber: 28 g → none
                """),
        ]
    }

    @Test func previewsAreExact() throws {
        let f = try Fixture()
        for (tool, args, golden) in PreviewTests.cases(f.seed) {
            let preview = try f.preview(tool, args)
            #expect(preview == golden, "\(tool):\n\(preview)")
        }
    }

    /// An implausible amount is never hidden in "and N more nutrients": it is listed first and marked,
    /// whatever its place in the display order, also for ids the catalog does not know.
    @Test func implausibleValuesAreAlwaysListedAndMarked() throws {
        let f = try Fixture()
        var many = fullNutrients().values
        many["selenium_mcg"] = 50_000          // late in the display order: would be counted, not shown
        many["mystery_extract_mg"] = 25_000    // not in the catalog: would never be listed
        let preview = try f.preview("log_food", ["name": "Supplement", "nutrients": json(nutrients(many)), "date": "2026-11-29", "meal": "snack"])
        #expect(preview == """
            Log to the journal: Supplement — 1 serving
            Date: Sunday 2026-11-29 · Meal: snack
            Nutrients: 1.31 kcal, protein 2.56 g, carbohydrate 3.81 g, fat 5.06 g
            Also: thiamin 26.3 mg ⚠ unusually high, riboflavin 27.6 mg ⚠ unusually high, copper 42.6 mg ⚠ unusually high, selenium 50000 mcg ⚠ unusually high, mystery_extract 25000 mg ⚠ unusually high, fiber 6.31 g, sugars 7.56 g, added sugars 8.81 g, and 56 more nutrients
            """, "\(preview)")
        // Plausible amounts are not marked.
        let plain = try f.preview("log_food", ["name": "Apple", "nutrients": ["energy_kcal": 95, "sodium_mg": 2], "date": "2026-11-29", "meal": "snack"])
        #expect(!plain.contains("⚠"))
        let huge = try f.preview("log_food", ["name": "Oatmeal", "nutrients": ["energy_kcal": 15_000], "date": "2026-11-29", "meal": "snack"])
        #expect(huge.contains("Nutrients: 15000 kcal ⚠ unusually high"))
    }

    @Test func previewsStripControlCharactersFromStoredNames() throws {
        let f = try Fixture()
        // A name that slipped in through an import, with an escape sequence and a bidi override.
        try f.queue.write { db in
            try db.execute("UPDATE journal_entries SET name = ? WHERE id = ?", ["Toast\u{1B}[2J\u{202E}evil\u{7}", f.seed.toast.uuidString])
        }
        let preview = try f.preview("delete_journal_entry", ["entry_id": .string(f.seed.toast.uuidString)])
        #expect(preview.hasPrefix("Delete journal entry: Toast[2Jevil — "))
        #expect(!preview.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E || $0.value == 7 })
    }
}
