// Bad arguments: every kind returns an error naming the field, and nothing is written.
import Base
import Foundation
import Testing
import Agent
import Journal
import Nutrition
@testable import NutritionTools

@Suite struct BadArgumentTests {
    /// (tool, arguments, the field the error must name).
    static func cases(_ s: Seed) -> [(String, JSONValue, String)] {
        let oat = JSONValue.string(s.oatmeal.uuidString)
        let unknown = JSONValue.string("00000000-0000-4000-8000-000000000001")
        let coffee = JSONValue.string(s.coffee.uuidString)
        return [
            // unknown ids
            ("log_saved_food", ["food_id": unknown], "food_id"),
            ("log_saved_food", ["food_id": "oatmeal"], "food_id"),
            ("get_saved_food", ["food_id": unknown], "food_id"),
            ("log_reference_food", ["reference_id": "99999"], "reference_id"),
            ("update_journal_entry", ["entry_id": unknown, "servings": 2], "entry_id"),
            ("move_journal_entry", ["entry_id": unknown, "meal": "lunch"], "entry_id"),
            ("delete_journal_entry", ["entry_id": unknown], "entry_id"),
            ("save_food", ["food_id": unknown, "name": "X"], "food_id"),
            ("save_food", ["from_reference_id": "00000"], "from_reference_id"),
            ("save_food", ["from_entry_id": unknown], "from_entry_id"),
            ("save_food", ["name": "Bowl", "ingredients": [["food_id": unknown, "quantity": 1, "unit": "g"]]], "ingredients[0].food_id"),
            ("set_food_archived", ["food_id": unknown, "archived": true], "food_id"),
            ("set_food_on_shelf", ["food_id": unknown, "on_shelf": true], "food_id"),
            ("log_calculator_build", ["food_id": unknown, "selections": [["ingredient": "Rice", "portion": "white"]]], "food_id"),
            ("log_calculator_build", ["food_id": oat, "selections": [["ingredient": "Rice", "portion": "white"]]], "food_id"),
            ("log_calculator_build", ["food_id": .string(s.bowl.uuidString), "selections": [["ingredient": "Beans", "portion": "black"]]], "selections"),
            ("log_calculator_build", ["food_id": .string(s.bowl.uuidString), "selections": [["ingredient": "Rice", "portion": "wild"]]], "selections"),
            ("log_saved_food", ["food_id": .string(s.bowl.uuidString)], "food_id"),
            ("rename_brand", ["from": "Nestle", "to": "Nestlé"], "from"),
            // impossible units
            ("log_saved_food", ["food_id": oat, "quantity": 1, "unit": "cup"], "unit"),
            ("log_saved_food", ["food_id": oat, "quantity": 1, "unit": "parsec"], "unit"),
            ("log_food", ["name": "Soup", "unit": "parsec", "nutrients": ["energy_kcal": 100]], "unit"),
            ("log_reference_food", ["reference_id": "01123", "portion": "parsec"], "portion"),
            ("save_food", ["name": "Soup", "serving_unit": "", "nutrients": ["energy_kcal": 1]], "serving_unit"),
            ("save_food", ["name": "Bowl", "ingredients": [["food_id": oat, "quantity": 1, "unit": "cup"]]], "unit"),
            // negative and zero amounts
            ("log_saved_food", ["food_id": oat, "servings": -1], "servings"),
            ("log_saved_food", ["food_id": oat, "servings": 0], "servings"),
            ("log_saved_food", ["food_id": oat, "quantity": -5, "unit": "g"], "quantity"),
            ("log_food", ["name": "Soup", "quantity": -1, "nutrients": ["energy_kcal": 100]], "quantity"),
            ("log_food", ["name": "Soup", "nutrients": ["protein_g": -1]], "nutrients.protein_g"),
            ("log_food", ["name": "Soup", "nutrients": [:]], "nutrients"),
            ("log_food", ["name": "Soup", "nutrients": ["Bad Id!": 3]], "nutrients.Bad Id!"),
            ("log_reference_food", ["reference_id": "01123", "grams": 0], "grams"),
            ("log_reference_food", ["reference_id": "01123", "grams": -20], "grams"),
            ("log_reference_food", ["reference_id": "01123", "grams": 20, "portion": "large"], "portion"),
            ("update_journal_entry", ["entry_id": coffee, "servings": -2], "servings"),
            ("update_journal_entry", ["entry_id": coffee], "entry_id"),
            ("set_goals", ["goals": ["protein_g": 0]], "goals.protein_g"),
            ("set_goals", ["goals": ["protein_g": -140]], "goals.protein_g"),
            ("set_goals", ["goals": [:]], "goals"),
            ("save_food", ["name": "Bowl", "ingredients": [["food_id": oat, "quantity": -1, "unit": "g"]]], "ingredients[0].quantity"),
            // composites of reference foods and cooked batches (issue 34 §6)
            ("save_food", ["name": "Bowl", "ingredients": [["ref_id": "99999", "amount": "200 g"]]], "ingredients[0].ref_id"),
            ("save_food", ["name": "Bowl", "ingredients": [["ref_id": "01123", "amount": "3 parsecs"]]], "ingredients[0].amount"),
            ("save_food", ["name": "Bowl", "ingredients": [["ref_id": "01123"]]], "ingredients[0].amount"),
            ("save_food", ["name": "Bowl", "cooked_grams": 0, "ingredients": [["food_id": oat, "quantity": 40, "unit": "g"]]], "cooked_grams"),
            ("save_food", ["name": "Bowl", "cooked_grams": 500_000, "ingredients": [["food_id": oat, "quantity": 40, "unit": "g"]]], "cooked_grams"),
            ("save_food", ["name": "Soup", "cooked_grams": 900, "nutrients": ["energy_kcal": 1]], "name"),
            ("log_food", ["name": "Soup", "nutrients": ["energy_kcal": 1e300]], "nutrients.energy_kcal"),
            // dates
            ("log_food", ["name": "Soup", "nutrients": ["energy_kcal": 100], "date": "tomorrow"], "date"),
            ("log_food", ["name": "Soup", "nutrients": ["energy_kcal": 100], "date": "2026-02-30"], "date"),
            ("log_saved_food", ["food_id": oat, "date": "29/11/2026"], "date"),
            ("move_journal_entry", ["entry_id": coffee, "date": "next week"], "date"),
            ("get_journal_day", ["date": "someday"], "date"),
            ("get_journal_range", ["from": "2026-11-29", "to": "2026-11-01"], "from"),
            ("get_journal_range", ["from": "2020-01-01", "to": "2026-11-01"], "to"),
            ("get_nutrient_breakdown", ["nutrient": "sugars_g", "from": "nope"], "from"),
            ("search_journal", ["text": "coffee", "to": "soon"], "to"),
            ("recommend_shelf_foods", ["date": "2026-13-01"], "date"),
            // meals
            ("log_food", ["name": "Soup", "nutrients": ["energy_kcal": 100], "meal": "brunch"], "meal"),
            ("log_reference_food", ["reference_id": "01123", "meal": "elevenses"], "meal"),
            ("move_journal_entry", ["entry_id": coffee, "meal": "tea"], "meal"),
            ("move_journal_entry", ["entry_id": coffee], "meal"),
            ("update_journal_entry", ["entry_id": coffee, "meal": "midnight feast"], "meal"),
            // text and schema
            ("log_food", ["name": "Soup\u{1B}[31m", "nutrients": ["energy_kcal": 100]], "name"),
            ("log_food", ["name": "   ", "nutrients": ["energy_kcal": 100]], "name"),
            ("log_food", ["nutrients": ["energy_kcal": 100]], "name"),
            ("log_saved_food", ["food_id": oat, "quantity": "two", "unit": "g"], "quantity"),
            ("log_saved_food", ["food_id": oat, "servings": 1, "unit": "g"], "servings"),
            ("log_saved_food", ["food_id": oat, "spoons": 3], "spoons"),
            ("set_food_archived", ["food_id": oat], "archived"),
            ("get_nutrient_breakdown", ["nutrient": "Not A Nutrient!"], "nutrient"),
            ("save_food", ["name": "Nothing"], "nutrients"),
            ("save_food", ["food_id": oat, "from_reference_id": "01123"], "from_reference_id"),
            ("save_food", ["name": "Poke", "calculator_ingredients": [["name": "Base", "portions": [["name": "rice", "nutrients": [:]], ["name": "Rice", "nutrients": [:]]]]]], "calculator_ingredients"),
            ("save_food", ["name": "Poke", "calculator_ingredients": [["name": "Base", "portions": [["name": "ri\u{7}ce", "nutrients": [:]]]]]], "calculator_ingredients[0].portions[0].name"),
            ("save_food", ["name": "Bowl", "kind": "composite", "nutrients": ["energy_kcal": 1]], "ingredients"),
            ("log_reference_food", ["reference_id": "01289"], "grams"),
            ("log_reference_food", ["reference_id": "01289", "quantity": 2], "grams"),
        ]
    }

    @Test func everyBadArgumentNamesItsFieldAndWritesNothing() async throws {
        let f = try Fixture()
        let before = try f.snapshot()
        for (tool, args, field) in BadArgumentTests.cases(f.seed) {
            let message = await f.rejection(tool, args)
            #expect(message != nil, "\(tool) \(args.serialized) was accepted")
            guard let message else { continue }
            #expect(message.contains(field), "\(tool) \(args.serialized): \(message) does not name \(field)")
            #expect(!message.contains("\u{1B}"), "\(tool): the error echoes an escape sequence")
        }
        #expect(try f.snapshot() == before)
    }

    @Test func nonFiniteNumbersAreRejectedEvenPastTheSchema() throws {
        let f = try Fixture()
        let before = try f.snapshot()
        let tool = try f.writeTool("log_saved_food")
        for bad in [Double.nan, .infinity, -.infinity] {
            let args: JSONValue = ["food_id": .string(f.seed.oatmeal.uuidString), "servings": .number(bad)]
            // A stored change that carries such a number is refused as well.
            #expect(throws: ChangeConflict.self) {
                try f.queue.write { try tool.apply(PlannedChange(card: "", change: ["arguments": args]), context: f.context, database: $0) }
            }
            do {
                _ = try f.queue.read { try tool.preview(arguments: args, context: f.context, database: $0) }
                Issue.record("the preview accepted servings \(bad)")
            } catch let e as ToolArgumentError {
                #expect(e.field == "servings")
            }
        }
        #expect(try f.snapshot() == before)
    }

    @Test func aWriteThatFailsInsideTheTransactionLeavesNoRows() throws {
        let f = try Fixture()
        let before = try f.snapshot()
        // The entry is deleted between preview and apply: apply re-checks and rolls back.
        let tool = try f.writeTool("move_journal_entry")
        let args: JSONValue = ["entry_id": .string(f.seed.coffee.uuidString), "meal": "breakfast"]
        let planned = try f.queue.read { try tool.preview(arguments: args, context: f.context, database: $0) }
        try f.journal.deleteEntry(f.seed.coffee)
        let afterDelete = try f.snapshot()
        #expect(afterDelete != before)
        #expect(throws: ChangeConflict.self) {
            try f.queue.write { try tool.apply(planned, context: f.context, database: $0) }
        }
        #expect(try f.snapshot() == afterDelete)
    }
}
