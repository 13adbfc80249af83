// The Food Bank and goal write tools: save a food, archive, Shelf, rename a brand, set goals.
import Agent
import Base
import Foundation
import Journal
import Nutrition
import ReferenceFoods
import SQLiteKit

struct SaveFood: JournalWriteTool {
    let journal: JournalStore
    let reference: ReferenceDatabase
    let name = NutritionToolName.saveFood.rawValue
    var group: ToolGroup { .foodBank }
    let description = """
        Creates a Food Bank food, or edits one when `food_id` is given. Start from a reference food (`from_reference_id`, serving = \
        a portion or grams), from a logged entry (`from_entry_id`), or from scratch; any field given overrides. `nutrients` are per serving. \
        Composite foods list `ingredients` (saved or reference foods); calculator foods list `calculator_ingredients` with named portions. \
        Entries already logged never change. Needs approval.
        """
    var parameters: JSONValue {
        let portion = Schema.object(["name": Schema.string("Portion name, e.g. \"regular\".", maxLength: 60), "nutrients": Schema.plainNutrients],
                                    required: ["name", "nutrients"])
        return Schema.object([
            "food_id": Schema.string("Edit this saved food instead of creating one.", maxLength: 64),
            "from_reference_id": Schema.string("Start from this reference food.", maxLength: 16),
            "portion": Schema.string("With from_reference_id: the portion measure to use as the serving.", maxLength: 100),
            "grams": Schema.number("With from_reference_id: the serving weight in grams instead of a portion."),
            "from_entry_id": Schema.string("Start from this logged entry.", maxLength: 64),
            "kind": ["type": "string", "enum": ["single", "composite", "calculator"], "description": "Kind of food (default single, or the edited food's kind)."],
            "name": Schema.string("Food name."),
            "brand": Schema.string("Brand (\"\" for none).", maxLength: 100),
            "serving_quantity": Schema.number("Serving size quantity."),
            "serving_unit": Schema.string("Serving unit: g, oz, cup, tbsp, mL, or a count such as serving, slice.", maxLength: 40),
            "serving_grams": Schema.number("Grams in one serving, when known."),
            "serving_ml": Schema.number("Millilitres in one serving, when known."),
            "nutrients": Schema.nutrients,
            "on_shelf": ["type": "boolean", "description": "Whether the food is available at home (on the Shelf)."],
            "ingredients": ["type": "array", "maxItems": 50, "description": "Composite only: saved foods, or reference foods (ref_id, amount).",
                            "items": Schema.object(["food_id": Schema.id, "quantity": Schema.number("Amount in unit."),
                                                    "unit": Schema.string("Unit of quantity.", maxLength: 40),
                                                    "ref_id": Schema.string("Reference food id.", maxLength: 16),
                                                    "amount": Schema.string("With ref_id: \"200 g\", \"1 cup\".", maxLength: 100)])],
            "recipe_servings": Schema.number("Composite only: how many servings the recipe makes (default 1)."),
            "cooked_grams": Schema.number("Composite: cooked batch weight, g."),
            "calculator_ingredients": ["type": "array", "maxItems": 50, "description": "Calculator only: ingredients with named portions.",
                                       "items": Schema.object(["name": Schema.string("Ingredient name.", maxLength: 100),
                                                               "portions": ["type": "array", "minItems": 1, "maxItems": 20, "items": portion]],
                                                              required: ["name", "portions"])],
        ])
    }
    func activity(arguments: JSONValue) -> String {
        arguments["food_id"] != nil ? "preparing to edit a Food Bank food" : "preparing to save a food to your Food Bank"
    }

    func plan(_ args: Args, _ db: Database) throws -> WritePlan {
        var draft: FoodDraft
        var origin = ""
        var existing: SavedFood?
        var depends: [(String, JSONValue)] = []
        let sources = ["food_id", "from_reference_id", "from_entry_id"].filter(args.has)
        if sources.count > 1 { throw ToolArgumentError(field: sources[1], "give only one of food_id, from_reference_id, from_entry_id") }
        if args.has("food_id") {
            let food = try journal.savedFood(args, db)
            existing = food
            depends.append(dependency(food))
            draft = FoodDraft(food)
        } else if let refID = args.string("from_reference_id") {
            guard let ref = reference.food(id: refID.trimmingCharacters(in: .whitespaces)) else {
                throw ToolArgumentError(field: "from_reference_id", "no reference food with id \"\(Text.clean(refID, max: 20))\"; find it with search_reference_foods first")
            }
            let amount = try ReferenceConversion.amount(of: ref, portion: args.string("portion"), quantity: nil, grams: try args.positive("grams"))
            draft = FoodDraft(name: String(Text.clean(ref.description, max: JournalStore.Limits.name)), serving: amount.serving,
                              nutrients: ReferenceConversion.nutrients(ref, grams: amount.grams))
            draft.derivedNutrients = Set(JournalStore.referenceDerivations(ref).keys)
            // Other household portions become units the food can be logged in later ("2 large").
            var seen: Set<String> = [amount.serving.unit.symbol]
            for p in ref.portions.prefix(8) {
                // USDA's own "oz" rows are sometimes wrong; mass converts exactly without them.
                if case .mass = ReferenceAmounts.kind(p) { continue }
                let word = String(p.measure.prefix(40)).lowercased()
                guard let unit = try? ServingUnit.parse(word, extraCounts: [word]), seen.insert(unit.symbol).inserted, p.amount > 0 else { continue }
                draft.mappings.append(UnitMapping(quantity: p.amount, unit: unit, grams: p.gramWeight))
            }
            // The reference food's density, when nothing above carries it, so mL and fl oz convert alike.
            if draft.serving.milliliters == nil, !draft.mappings.contains(where: { $0.unit.isVolume }), let d = ReferenceAmounts.density(of: ref) {
                draft.mappings.append(UnitMapping(quantity: 100, unit: .volume(.ml), grams: (100 * d.gramsPerMilliliter).rounded(places: 6)))
            }
            origin = "from USDA reference \(ref.id)"
        } else if args.has("from_entry_id") {
            let e = try journal.entry(args, db, field: "from_entry_id")
            depends.append(dependency(e))
            draft = FoodDraft(name: e.name, brand: e.brand, serving: e.serving, nutrients: e.nutrients)
            draft.derivedNutrients = Set(e.derivedNutrients ?? [])
            origin = "from the entry logged \(e.meal.rawValue) on \(e.day)"
        } else {
            guard args.has("name") else { throw ToolArgumentError(field: "name", "is required for a new food") }
            draft = FoodDraft(name: "")
        }
        if let k = args.string("kind").flatMap(SavedFoodKind.init(rawValue:)) { draft.kind = k }
        if args.has("name"), let n = try args.text("name", max: JournalStore.Limits.name, required: true) { draft.name = n }
        if let b = try args.text("brand", max: JournalStore.Limits.brand, required: false) { draft.brand = b.isEmpty ? nil : b }
        if args.has("serving_quantity") || args.has("serving_unit") || args.has("serving_grams") || args.has("serving_ml") {
            let q = try args.positive("serving_quantity") ?? (args.has("serving_unit") ? 1 : draft.serving.quantity)
            var unit = draft.serving.unit
            if let u = args.string("serving_unit") {
                do { unit = try ServingUnit.parse(u, extraCounts: [u]) } catch {
                    throw ToolArgumentError(field: "serving_unit", "\"\(Text.clean(u, max: 40))\" is not a unit: use g, oz, cup, tbsp, mL or a count word")
                }
            }
            let sameUnit = unit == draft.serving.unit && q == draft.serving.quantity
            draft.serving = ServingSize(quantity: q, unit: unit, grams: try args.positive("serving_grams") ?? (sameUnit ? draft.serving.grams : nil),
                                        milliliters: try args.positive("serving_ml") ?? (sameUnit ? draft.serving.milliliters : nil))
        }
        if let n = try args.nutrients("nutrients") {
            // A derived value stays marked only while it is the value given.
            draft.derivedNutrients = draft.derivedNutrients.filter { id in n.values[id] != nil && n.values[id] == draft.nutrients.values[id] }
            draft.nutrients = n
        }
        if let shelf = args.bool("on_shelf") { draft.isOnShelf = shelf }
        if let list = args.raw["ingredients"]?.arrayValue {
            draft.ingredients = try list.enumerated().map { i, item in
                let a = Args(item)
                let field = "ingredients[\(i)]"
                if a.has("ref_id") { return try referenceIngredient(a, field: field) }
                guard let id = try? a.requiredUUID("food_id") else { throw ToolArgumentError(field: "\(field).food_id", "is not an id from search_food_bank") }
                let q: Double
                do { q = try a.positive("quantity") ?? 0 } catch let e as ToolArgumentError {
                    throw ToolArgumentError(field: "\(field).quantity", e.message)
                }
                let unitText = a.string("unit") ?? ""
                guard let food = try journal.food(id, in: db) else { throw ToolArgumentError(field: "\(field).food_id", "no saved food with id \(id.uuidString)") }
                depends.append(dependency(food))
                guard let unit = try? ServingUnit.parse(unitText, extraCounts: food.measures.countNames) else {
                    throw ToolArgumentError(field: "\(field).unit", "\"\(Text.clean(unitText, max: 40))\" is not a unit this food knows")
                }
                return try checked(field: "\(field).food_id") { try journal.ingredient(from: id, quantity: q, unit: unit, in: db) }
            }
            if !args.has("kind") { draft.kind = .composite }
        }
        if let r = try args.positive("recipe_servings", max: JournalStore.Limits.servings) { draft.recipeServings = r }
        if args.has("cooked_grams") {
            guard let w = try args.positive("cooked_grams"), w >= 1, w <= SavedFood.maxCookedGrams else {
                throw ToolArgumentError(field: "cooked_grams", "must be between 1 g and 100 kg (the whole batch after cooking)")
            }
            draft.cookedGrams = w
        }
        if draft.kind == .composite, let w = draft.cookedGrams {
            if args.has("serving_grams") || args.has("serving_ml") {
                throw ToolArgumentError(field: "cooked_grams", "sets what a serving weighs (the batch ÷ recipe servings); leave out serving_grams and serving_ml")
            }
            if !draft.serving.unit.isMass && !draft.serving.unit.isVolume {
                draft.serving.grams = w / draft.recipeServings
                draft.serving.milliliters = nil
            }
        }
        if let list = args.raw["calculator_ingredients"]?.arrayValue {
            draft.calculatorIngredients = try list.enumerated().map { i, item in
                let portions = try (item["portions"]?.arrayValue ?? []).enumerated().map { j, p in
                    CalculatorPortion(name: p["name"]?.stringValue ?? "",
                                      nutrients: try Args(p).nutrients("nutrients") ?? NutrientAmounts())
                        .checkedName(field: "calculator_ingredients[\(i)].portions[\(j)].name")
                }
                return CalculatorIngredient(name: item["name"]?.stringValue ?? "", portions: try portions.map { try $0.get() })
            }
            if !args.has("kind") { draft.kind = .calculator }
        }
        if draft.kind == .single && existing == nil && origin.isEmpty && draft.nutrients.isEmpty {
            throw ToolArgumentError(field: "nutrients", "give the food's nutrients per serving (look it up first), or start from a reference food or an entry")
        }
        // Validate now, so the preview never shows a food that cannot be saved.
        var check = SavedFood(kind: draft.kind, name: draft.name, brand: draft.brand, serving: draft.serving, mappings: draft.mappings,
                              nutrients: draft.nutrients, ingredients: draft.ingredients, recipeServings: draft.recipeServings,
                              calculatorIngredients: draft.calculatorIngredients, isOnShelf: draft.isOnShelf, createdAt: journal.now(),
                              cookedGrams: draft.cookedGrams)
        check.recompute()
        let structure = check.kind == .composite ? "ingredients" : check.kind == .calculator ? "calculator_ingredients" : "name"
        do { try check.validate() } catch let e as NutritionError {
            switch e {
            case .invalidFood, .duplicateIngredient: throw ToolArgumentError(field: structure, e.description)
            default: try checked(field: structure) { throw e }
            }
        }

        var lines: [String] = []
        if let old = existing {
            lines.append("Edit Food Bank food: \(Text.food(old.name, brand: old.brand))")
            if old.kind != check.kind { lines.append("  kind: \(old.kind.rawValue) → \(check.kind.rawValue)") }
            if old.name != check.name { lines.append("  name: \(Text.clean(old.name)) → \(Text.clean(check.name))") }
            if old.brand != check.brand { lines.append("  brand: \(old.brand.map { Text.clean($0) } ?? "none") → \(check.brand.map { Text.clean($0) } ?? "none")") }
            if old.serving != check.serving { lines.append("  serving: \(old.serving.label) → \(check.serving.label)") }
            if old.isOnShelf != check.isOnShelf { lines.append("  on the Shelf: \(old.isOnShelf ? "yes" : "no") → \(check.isOnShelf ? "yes" : "no")") }
            if old.ingredients != check.ingredients { lines.append("  ingredients: \(ingredientList(check))") }
            if old.cookedGrams != check.cookedGrams {
                lines.append("  cooked weight: \(old.cookedGrams.map { "\(Text.amount($0)) g" } ?? "none") → \(check.cookedGrams.map { "\(Text.amount($0)) g" } ?? "none")")
            }
            if old.calculatorIngredients != check.calculatorIngredients { lines.append("  calculator ingredients: \(calculatorList(check))") }
            if old.nutrients != check.nutrients && check.kind != .calculator {
                lines.append(Text.nutrientLines(old.nutrients, label: "per serving before", indent: "  "))
                lines.append(Text.nutrientLines(check.nutrients, label: "per serving after", indent: "  "))
            }
            if lines.count == 1 { lines.append("  (no change)") }
        } else {
            lines.append("Save to your Food Bank: \(Text.food(check.name, brand: check.brand))\(origin.isEmpty ? "" : " (\(origin))")")
            lines.append("Serving: \(check.serving.label)\(check.kind == .single ? "" : " · \(check.kind.rawValue)")\(check.isOnShelf ? " · on the Shelf" : "")")
            if !check.mappings.isEmpty {
                lines.append("Also in: " + check.mappings.map { "\(Text.amount($0.quantity)) \(Text.clean($0.unit.symbol, max: 40))\($0.grams.map { " = \(Text.amount($0)) g" } ?? "")" }.joined(separator: ", "))
            }
            if check.kind == .composite { lines.append("Ingredients: \(ingredientList(check))") }
            if let w = check.cookedGrams {
                lines.append("Cooked batch: \(Text.amount(w)) g, \(Text.amount(check.recipeServings)) serving\(check.recipeServings == 1 ? "" : "s"); log it by grams of the cooked dish")
            }
            if check.kind == .calculator {
                lines.append("Ingredients: \(calculatorList(check))")
            } else {
                lines.append(Text.nutrientLines(check.nutrients, label: "Per serving"))
            }
        }
        let final = draft
        let editID = existing?.id
        // The food as it will be saved (its new id is made when it is written).
        var saved = Shape.food(check, status: nil, full: true)
        if case .object(var o) = saved { o["id"] = nil; o["last_used_at"] = nil; saved = .object(o) }
        let change: [String: JSONValue] = ["arguments": args.resolved(), "food": saved, "food_id": editID.map { .string($0.uuidString) } ?? .null]
        return WritePlan(preview: lines.joined(separator: "\n"), change: change, preconditions: dependencies(depends)) { db in
            let food: SavedFood
            if let editID {
                food = try checked(field: "food_id") { try journal.editFood(editID, final, in: db) }
            } else {
                food = try checked(field: "name") { try journal.createFood(final, in: db) }
            }
            return output(["saved": Shape.food(food, status: food.status(now: journal.now()), full: true)],
                          "\(editID == nil ? "saved" : "updated") \(Text.clean(food.name, max: 60)) in your Food Bank")
        }
    }
}

extension SaveFood {
    /// A reference food ingredient: `amount` of it ("200 g", "1 cup", "2 large") through the same
    /// amount model and nutrient mapping as logging it (`ofj log --ref ID --portion`).
    func referenceIngredient(_ a: Args, field: String) throws -> IngredientSnapshot {
        if a.has("food_id") { throw ToolArgumentError(field: "\(field).ref_id", "give food_id or ref_id, not both") }
        let refID = (a.string("ref_id") ?? "").trimmingCharacters(in: .whitespaces)
        guard let ref = reference.food(id: refID) else {
            throw ToolArgumentError(field: "\(field).ref_id", "no reference food with id \"\(Text.clean(refID, max: 20))\"; find it with search_reference_foods first")
        }
        var text = a.string("amount") ?? ""
        if text.trimmingCharacters(in: .whitespaces).isEmpty, let q = try? a.positive("quantity") {
            text = "\(JSONValue.format(q)) \(a.string("unit") ?? "g")"
        }
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ToolArgumentError(field: "\(field).amount", "give how much of the reference food, e.g. \"200 g\" or \"1 cup\"")
        }
        let amount: ReferenceAmount
        do { amount = try JournalStore.referenceAmount(ref, portion: text, grams: nil) } catch JournalError.invalid(_, let reason) {
            throw ToolArgumentError(field: "\(field).amount", reason.replacingOccurrences(of: "; nothing logged", with: ""))
        }
        guard amount.grams > 0, amount.grams <= JournalStore.Limits.quantity else {
            throw ToolArgumentError(field: "\(field).amount", "must be above zero and at most \(JSONValue.format(JournalStore.Limits.quantity)) g")
        }
        return IngredientSnapshot(name: JournalStore.referenceName(ref), quantity: amount.serving.quantity,
                                  unit: amount.serving.unit, nutrients: JournalStore.referenceNutrients(ref, grams: amount.grams),
                                  referenceID: ref.id)
    }
}

private func ingredientList(_ f: SavedFood) -> String {
    f.ingredients.map { "\(Text.amount($0.quantity)) \(Text.clean($0.unit.symbol, max: 40)) \(Text.clean($0.name, max: 60))" }.joined(separator: ", ")
        + " (makes \(Text.amount(f.recipeServings)))"
}

private func calculatorList(_ f: SavedFood) -> String {
    f.calculatorIngredients.map { i in
        "\(Text.clean(i.name, max: 60)): " + i.portions.map { "\(Text.clean($0.name, max: 40)) (\(Text.nutrients($0.nutrients)))" }.joined(separator: ", ")
    }.joined(separator: "; ")
}

extension CalculatorPortion {
    /// Checks the portion name up front so the error names its exact place in the arguments.
    func checkedName(field: String) -> Result<CalculatorPortion, ToolArgumentError> {
        do { _ = try Validate.text(name, field: field, maxLength: 60) } catch {
            return .failure(ToolArgumentError(field: field, "must be a short name without control characters"))
        }
        return .success(self)
    }
}

struct SetFoodArchived: JournalWriteTool {
    let journal: JournalStore
    let name = NutritionToolName.setFoodArchived.rawValue
    var group: ToolGroup { .foodBank }
    let description = "Archives a Food Bank food by hand (hidden from the active list, still searchable; wins over the Shelf) or unarchives it. Needs approval."
    var parameters: JSONValue { Schema.object(["food_id": Schema.id, "archived": ["type": "boolean"]], required: ["food_id", "archived"]) }
    func activity(arguments: JSONValue) -> String { arguments["archived"]?.boolValue == false ? "preparing to unarchive a food" : "preparing to archive a food" }

    func plan(_ args: Args, _ db: Database) throws -> WritePlan {
        let food = try journal.savedFood(args, db)
        let archived = args.bool("archived") ?? true
        let preview = "\(archived ? "Archive" : "Unarchive") Food Bank food: \(Text.food(food.name, brand: food.brand))"
            + (archived ? "\nIt stays searchable; logged entries do not change." : "")
        let id = food.id
        let change: [String: JSONValue] = ["arguments": args.resolved(["archived": .bool(archived)]), "food_id": .string(id.uuidString)]
        return WritePlan(preview: preview, change: change, preconditions: dependencies([dependency(food)])) { db in
            let f = try checked(field: "food_id") { try journal.setFoodArchived(id, archived, in: db) }
            return output(["food": Shape.food(f, status: f.status(now: journal.now()), full: false)],
                          "\(archived ? "archived" : "unarchived") \(Text.clean(f.name, max: 60))")
        }
    }
}

struct SetFoodOnShelf: JournalWriteTool {
    let journal: JournalStore
    let name = NutritionToolName.setFoodOnShelf.rawValue
    var group: ToolGroup { .foodBank }
    let description = "Puts a Food Bank food on the Shelf (available at home, used by recommend_shelf_foods) or takes it off. Needs approval."
    var parameters: JSONValue { Schema.object(["food_id": Schema.id, "on_shelf": ["type": "boolean"]], required: ["food_id", "on_shelf"]) }
    func activity(arguments: JSONValue) -> String { "preparing to update your Shelf" }

    func plan(_ args: Args, _ db: Database) throws -> WritePlan {
        let food = try journal.savedFood(args, db)
        let on = args.bool("on_shelf") ?? true
        let preview = on ? "Put on the Shelf: \(Text.food(food.name, brand: food.brand))" : "Take off the Shelf: \(Text.food(food.name, brand: food.brand))"
        let id = food.id
        let change: [String: JSONValue] = ["arguments": args.resolved(["on_shelf": .bool(on)]), "food_id": .string(id.uuidString)]
        return WritePlan(preview: preview, change: change, preconditions: dependencies([dependency(food)])) { db in
            let f = try checked(field: "food_id") { try journal.setFoodOnShelf(id, on, in: db) }
            return output(["food": Shape.food(f, status: f.status(now: journal.now()), full: false)],
                          "\(on ? "put" : "took") \(Text.clean(f.name, max: 60)) \(on ? "on" : "off") the Shelf")
        }
    }
}

struct RenameBrand: JournalWriteTool {
    let journal: JournalStore
    let name = NutritionToolName.renameBrand.rawValue
    var group: ToolGroup { .foodBank }
    let description = "Renames a brand on every Food Bank food that has it (case-insensitive); `to` \"\" makes them unbranded. Logged entries keep their brand. Needs approval."
    var parameters: JSONValue {
        Schema.object(["from": Schema.string("The brand as list_brands shows it.", maxLength: 100), "to": Schema.string("The new brand, or \"\" for none.", maxLength: 100)],
                      required: ["from", "to"])
    }
    func activity(arguments: JSONValue) -> String { "preparing to rename a brand" }

    func plan(_ args: Args, _ db: Database) throws -> WritePlan {
        let from = try args.text("from", max: JournalStore.Limits.brand, required: true) ?? ""
        let to = try args.text("to", max: JournalStore.Limits.brand, required: false) ?? ""
        let buckets = try journal.brandBuckets(in: db)
        guard let bucket = buckets.first(where: { $0.displayName.lowercased() == from.lowercased() }) else {
            let known = buckets.prefix(10).map { "\"\(Text.clean($0.displayName, max: 40))\"" }.joined(separator: ", ")
            throw ToolArgumentError(field: "from", "no Food Bank food has the brand \"\(Text.clean(from, max: 40))\"; brands: \(known.isEmpty ? "none" : known)")
        }
        let target = to.isEmpty ? "Unbranded" : "\"\(Text.clean(to, max: 60))\""
        let preview = "Rename brand \"\(Text.clean(bucket.displayName, max: 60))\" to \(target) on \(bucket.foodCount) Food Bank food\(bucket.foodCount == 1 ? "" : "s")\nLogged entries keep their brand."
        let change: [String: JSONValue] = ["arguments": args.resolved(), "brand": bucket.brand.map { .string($0) } ?? .null, "food_count": .number(Double(bucket.foodCount))]
        return WritePlan(preview: preview, change: change) { db in
            let n = try checked(field: "from") { try journal.renameBrand(bucket.brand, to: to.isEmpty ? nil : to, in: db) }
            return output(["renamed_foods": .number(Double(n)), "brand": to.isEmpty ? .null : .string(to)], "renamed the brand on \(n) foods")
        }
    }
}

struct SetGoals: JournalWriteTool {
    let journal: JournalStore
    let name = NutritionToolName.setGoals.rawValue
    var group: ToolGroup { .goals }
    let description = """
        Sets daily goals: `goals` maps nutrient ids to amounts in the id's unit (energy_kcal 2200, protein_g 140); null removes a goal. \
        Other goals stay. `reset_to_defaults` first goes back to the FDA Daily Values. Needs approval.
        """
    var parameters: JSONValue {
        Schema.object(["goals": Schema.goalMap,
                       "reset_to_defaults": ["type": "boolean"]])
    }
    func activity(arguments: JSONValue) -> String { "preparing to change your goals" }

    func plan(_ args: Args, _ db: Database) throws -> WritePlan {
        let reset = args.bool("reset_to_defaults") ?? false
        let changes = args.raw["goals"]?.objectValue ?? [:]
        guard reset || !changes.isEmpty else { throw ToolArgumentError(field: "goals", "give at least one goal, or reset_to_defaults") }
        let old = try journal.goals(in: db)
        var new = reset ? Goals.fdaDefaults : old
        for key in changes.keys.sorted() {
            let field = "goals.\(Text.clean(key, max: 40))"
            let id = NutrientCatalog.canonicalID(for: key) ?? key
            guard NutrientAmounts.isPlausibleID(id) else { throw ToolArgumentError(field: field, "is not a nutrient id such as protein_g") }
            var value: Double?
            if let v = changes[key], v != .null {
                guard let n = v.doubleValue, n.isFinite, n > 0, n <= JournalStore.Limits.nutrientAmount else {
                    throw ToolArgumentError(field: field, "must be a positive finite number")
                }
                value = n
            }
            new = try checked(field: field) { try new.setting(id, to: value) }
        }
        var lines: [String] = [reset ? "Reset goals to the FDA Daily Values, then:" : "Change daily goals:"]
        for id in NutrientCatalog.sorted(Set(old.values.keys).union(new.values.keys)) where old[id] != new[id] {
            func show(_ v: Double?) -> String { v.map { Text.nutrient(id, $0).replacingOccurrences(of: NutrientCatalog.displayName(id).lowercased() + " ", with: "") } ?? "none" }
            lines.append("  \(NutrientCatalog.displayName(id)): \(show(old[id])) → \(show(new[id]))")
        }
        if lines.count == 1 { lines.append("  (no change)") }
        let goals = new
        let change: [String: JSONValue] = ["arguments": args.resolved(), "goals": Shape.goals(new)]
        let before: [String: JSONValue] = ["goals": .object(["name": .string("your goals"), "version": Shape.goals(old)])]
        return WritePlan(preview: lines.joined(separator: "\n"), change: change, preconditions: before) { db in
            let saved = try checked(field: "goals") { try journal.setGoals(goals, in: db) }
            return output(["goals": Shape.goals(saved)], "updated your goals")
        }
    }
}
