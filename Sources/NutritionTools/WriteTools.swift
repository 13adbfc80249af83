// The journal write tools: log, update, move and delete entries. Each builds one plan that both the
// approval preview and the write use, so the person approves exactly what is written.
import Agent
import Base
import Foundation
import Journal
import Nutrition
import ReferenceFoods
import SQLiteKit

/// What a write will do: the card text, the resolved change, what it depends on, and the write
/// itself (run inside the ledger transaction).
struct WritePlan {
    var preview: String
    /// The change with nothing left to decide: `arguments` (the call's arguments with every default
    /// filled in: date, meal) plus the values the write takes from the data (nutrients, ids).
    var change: [String: JSONValue]
    /// Versions of the data the change was computed from, keyed "saved_food:<id>" / "entry:<id>" /
    /// "goals", each {"name": what to call it, "version": …}.
    var preconditions: [String: JSONValue] = [:]
    var commit: (Database) throws -> ToolOutput

    var planned: PlannedChange { PlannedChange(card: preview, change: .object(change), preconditions: .object(preconditions)) }
}

/// A write tool whose preview resolves the call into one plan. `apply` plans again from the
/// approved change's resolved arguments, inside the transaction, and writes only when the result
/// is the approved change exactly (same card, same values, same versions of the data);
/// otherwise it throws `ChangeConflict` and nothing is written.
protocol JournalWriteTool: WriteTool {
    var journal: JournalStore { get }
    func plan(_ args: Args, _ db: Database) throws -> WritePlan
}

extension JournalWriteTool {
    func preview(arguments: JSONValue, context: ToolContext, database: Database) throws -> PlannedChange {
        try plan(Args(arguments), database).planned
    }

    func apply(_ approved: PlannedChange, context: ToolContext, database: Database) throws -> ToolOutput {
        guard let arguments = approved.change["arguments"], arguments.objectValue != nil else {
            throw ToolArgumentError("the approved change is damaged; nothing was written")
        }
        let now: WritePlan
        do { now = try plan(Args(arguments), database) } catch let e as ToolArgumentError {
            throw ChangeConflict("it can no longer be done as shown (\(e.description))")
        }
        if now.preconditions != approved.preconditions.objectValue ?? [:] {
            throw ChangeConflict(Self.whatChanged(approved.preconditions.objectValue ?? [:], now.preconditions))
        }
        guard now.planned == approved else { throw ChangeConflict("what it would write is no longer what the card showed") }
        return try now.commit(database)
    }

    /// Approval rules may test, beyond the arguments: the entry's `date` and `meal` and every
    /// nutrient of the entry written (`energy_kcal`, `protein_g`, … for the whole amount).
    func ruleFigureKind(_ name: String) -> RuleFieldKind? {
        // Only the tools that log, change, move or delete an entry have an entry's figures.
        guard self.name.hasPrefix("log_") || self.name.hasSuffix("_journal_entry") else { return nil }
        if name == "date" { return .date }
        if name == "meal" { return .string }
        return NutrientCatalog.nutrient(name) != nil ? .number : nil
    }

    /// The resolved arguments; the nutrients the change writes (an update: the entry's after it);
    /// for a change to a logged entry, its date, meal and name both as they are and where the
    /// change puts them (a list of the two sides when they differ: a deny matches either, an allow
    /// needs both), and (when deleted or moved) its nutrients. A meal and a name are as the write
    /// reads them (trimmed; "Snacks " is snack). Energy is the larger of what the change states and
    /// what its macronutrients make (4 kcal/g protein and carbohydrate, 9 fat), so a call cannot
    /// pass a rule by stating 1 kcal beside 500 g of fat.
    func ruleFigures(_ planned: PlannedChange, database: Database) -> [String: JSONValue] {
        var figures = planned.change["arguments"]?.objectValue ?? [:]
        // The journal's own reading of the arguments (Args.meal, Args.text), as the write does.
        let args = Args(.object(figures))
        if let meal = try? args.meal() { figures["meal"] = .string(meal.rawValue) }
        if let name = try? args.text("name", max: JournalStore.Limits.name, required: false) { figures["name"] = .string(name) }
        // The raw argument nutrients are replaced by the resolved ones below.
        figures["nutrients"] = nil
        let written = (planned.change["nutrients"] ?? planned.change["nutrients_after"])?.objectValue
        for (id, v) in written ?? [:] { figures[id] = v }
        if let id = planned.change["entry_id"]?.stringValue.flatMap(UUID.init(uuidString:)), let e = try? journal.entry(id, in: database) {
            let toDate = figures["date"]?.stringValue ?? planned.change["to_date"]?.stringValue ?? e.day.description
            let toMeal = figures["meal"]?.stringValue ?? planned.change["to_meal"]?.stringValue ?? e.meal.rawValue
            figures["date"] = Self.sides(e.day.description, toDate)
            figures["meal"] = Self.sides(e.meal.rawValue, toMeal)
            figures["name"] = Self.sides(e.name, figures["name"]?.stringValue ?? e.name)
            if written == nil { for (k, v) in e.totalNutrients { figures[k] = Shape.number(v) } }
        }
        let grams = [("protein_g", 4.0), ("carbohydrate_g", 4.0), ("fat_g", 9.0)].compactMap { id, kcal in
            figures[id]?.doubleValue.map { $0 * kcal }
        }
        if !grams.isEmpty {
            let fromMacros = grams.reduce(0, +)
            if let stated = figures["energy_kcal"]?.doubleValue, stated >= fromMacros { return figures }
            figures["energy_kcal"] = .number(fromMacros)
        }
        return figures
    }

    /// One value when both sides are the same, else both (a rule condition tests each).
    static func sides(_ before: String, _ after: String) -> JSONValue {
        let a = RuleDates.resolve(before, today: "2000-01-01") == nil ? before.lowercased() : before
        let b = RuleDates.resolve(after, today: "2000-01-01") == nil ? after.lowercased() : after
        return a == b ? .string(after) : .array([.string(before), .string(after)])
    }

    /// "the Food Bank food Oatmeal was changed", for the first dependency that differs.
    static func whatChanged(_ before: [String: JSONValue], _ after: [String: JSONValue]) -> String {
        for key in before.keys.sorted() where before[key] != after[key] {
            let name = Text.clean(before[key]?["name"]?.stringValue ?? "the data", max: 60)
            return after[key] == nil ? "\(name) was deleted" : "\(name) was changed"
        }
        return "the data it depends on was changed"
    }
}

/// Preconditions: a saved food or an entry as it was when the card was drawn.
func dependency(_ food: SavedFood) -> (String, JSONValue) {
    ("saved_food:\(food.id.uuidString)", .object(["name": .string("the Food Bank food \(Text.food(food.name, brand: food.brand))"),
                                                  "version": .number(food.updatedAt.timeIntervalSince1970)]))
}

func dependency(_ entry: Entry) -> (String, JSONValue) {
    ("entry:\(entry.id.uuidString)", .object(["name": .string("the journal entry \(Text.food(entry.name, brand: entry.brand))"),
                                              "version": .number(entry.updatedAt.timeIntervalSince1970)]))
}

func dependencies(_ items: [(String, JSONValue)]) -> [String: JSONValue] {
    Dictionary(items, uniquingKeysWith: { a, _ in a })
}

extension Args {
    /// The arguments with `extra` filled in (resolved defaults), for the planned change.
    func resolved(_ extra: [String: JSONValue] = [:]) -> JSONValue { raw.merging(extra) }

    /// The arguments with the date and meal the write goes to spelled out (a meal of the
    /// person's own by its name, so the approved change plans to the same meal again).
    func resolved(day: CalendarDay, meal: Meal, label: String? = nil, _ extra: [String: JSONValue] = [:]) -> JSONValue {
        raw.merging(["date": .string(day.description), "meal": .string(label ?? meal.rawValue)]).merging(extra)
    }
}

extension JournalStore {
    /// The day and meal a write goes to: as given, else today and the meal of the local clock.
    /// A meal of the person's own (`ofj meals add`) is snack with its name as `label`.
    func target(_ args: Args) throws -> (CalendarDay, Meal) {
        let (day, meal, _) = try targetMeal(args)
        return (day, meal)
    }

    func targetMeal(_ args: Args) throws -> (CalendarDay, Meal, label: String?) {
        let day = try args.day("date", journal: self) ?? today()
        if let s = args.string("meal"), (try? Meal(parsing: s)) == nil,
           let own = customMeals.first(where: { $0.name.lowercased() == s.trimmingCharacters(in: .whitespaces).lowercased() }) {
            return (day, .snack, own.name)
        }
        return (day, try args.meal() ?? defaultMeal(), nil)
    }

    func entry(_ args: Args, _ db: Database, field: String = "entry_id") throws -> Entry {
        let id = try args.requiredUUID(field)
        guard let e = try entry(id, in: db) else {
            throw ToolArgumentError(field: field, "no journal entry with id \(id.uuidString); find it with search_journal or get_journal_day first")
        }
        return e
    }

    func savedFood(_ args: Args, _ db: Database, field: String = "food_id") throws -> SavedFood {
        let id = try args.requiredUUID(field)
        guard let f = try food(id, in: db) else {
            throw ToolArgumentError(field: field, "no saved food with id \(id.uuidString); find it with search_food_bank first")
        }
        return f
    }
}

/// "Date: Sunday 2026-11-29 · Meal: breakfast" (a meal of the person's own by its name).
func whenLine(_ day: CalendarDay, _ meal: Meal, label: String? = nil) -> String {
    "Date: \(Text.day(day)) · Meal: \(label.map { Text.clean($0, max: 40) } ?? meal.rawValue)"
}

func loggedOutput(_ e: Entry) -> ToolOutput {
    output(["logged": Shape.entry(e)], "logged \(Text.clean(e.name, max: 60)) to \(Text.clean(e.mealName, max: 40)) on \(e.day)")
}

// MARK: - Logging

struct LogFood: JournalWriteTool {
    let journal: JournalStore
    let name = NutritionToolName.logFood.rawValue
    let description = "Logs a food found in neither the Food Bank nor the reference foods, with nutrients you supply (label, recipe, the person's numbers) for the whole amount eaten."
    var parameters: JSONValue {
        Schema.object(["name": ["type": "string", "maxLength": 200],
                       "brand": ["type": "string", "maxLength": 100],
                       "quantity": Schema.number("In `unit` (default 1)."),
                       "unit": Schema.string("g, oz, cup, tbsp, mL, or a count: serving (default), slice, piece.", maxLength: 40),
                       "grams": Schema.number("Weight of the whole amount, when known."),
                       "nutrients": Schema.nutrients, "date": Schema.date, "meal": Schema.meal],
                      required: ["name", "nutrients"])
    }
    func activity(arguments: JSONValue) -> String { "preparing to log \(Text.clean(arguments["name"]?.stringValue ?? "a food", max: 60))" }

    func plan(_ args: Args, _ db: Database) throws -> WritePlan {
        let name = try args.text("name", max: JournalStore.Limits.name, required: true) ?? ""
        let brand = try args.text("brand", max: JournalStore.Limits.brand, required: false)
        let quantity = try args.positive("quantity") ?? 1
        let unitText = args.string("unit") ?? "serving"
        let unit: ServingUnit
        do { unit = try ServingUnit.parse(unitText) } catch {
            throw ToolArgumentError(field: "unit", "\"\(Text.clean(unitText, max: 40))\" is not a unit: use g, oz, kg, lb, mL, L, cup, tbsp, tsp, fl oz, or a count such as serving, piece, slice")
        }
        let grams = try args.positive("grams")
        guard let nutrients = try args.nutrients("nutrients"), !nutrients.isEmpty else {
            throw ToolArgumentError(field: "nutrients", "give at least one nutrient (e.g. energy_kcal); look the food up if you do not know them")
        }
        let (day, meal, label) = try journal.targetMeal(args)
        let serving = ServingSize(quantity: quantity, unit: unit, grams: grams)
        let draft = EntryDraft(day: day, meal: meal, name: name, brand: brand?.isEmpty == false ? brand : nil, serving: serving,
                               nutrients: nutrients, source: .assistant, mealLabel: label)
        let preview = """
            Log to the journal: \(Text.food(name, brand: draft.brand)) — \(serving.label)
            \(whenLine(day, meal, label: label))
            \(Text.nutrientLines(nutrients))
            """ + entrySizeWarning(nutrients, grams: grams)
        let change: [String: JSONValue] = ["arguments": args.resolved(day: day, meal: meal, label: label), "nutrients": Shape.nutrients(nutrients)]
        return WritePlan(preview: preview, change: change) { db in loggedOutput(try checked(field: "name") { try journal.logEntry(draft, in: db) }) }
    }
}

struct LogSavedFood: JournalWriteTool {
    let journal: JournalStore
    let name = NutritionToolName.logSavedFood.rawValue
    let description = "Logs a Food Bank food: `servings` of it, or `quantity` in a `unit` it converts from (its serving unit, g/oz when its weight is known, its extra units). Nutrients scale from the saved food."
    var parameters: JSONValue {
        Schema.object(["food_id": Schema.id,
                       "servings": Schema.number("Default 1; not with unit."),
                       "quantity": ["type": "number"],
                       "unit": ["type": "string", "maxLength": 40],
                       "date": Schema.date, "meal": Schema.meal], required: ["food_id"])
    }
    func activity(arguments: JSONValue) -> String { "preparing to log a Food Bank food" }

    func plan(_ args: Args, _ db: Database) throws -> WritePlan {
        let food = try journal.savedFood(args, db)
        guard food.kind != .calculator else {
            throw ToolArgumentError(field: "food_id", "is a calculator food: use log_calculator_build with one portion per ingredient")
        }
        let amount: FoodAmount
        let label: String
        let nutrients: NutrientAmounts
        let grams: Double?
        if let unitText = args.string("unit") {
            if args.has("servings") { throw ToolArgumentError(field: "servings", "give servings, or quantity with unit, not both") }
            let q = try args.positive("quantity") ?? 1
            let unit: ServingUnit
            do { unit = try ServingUnit.parse(unitText, extraCounts: food.measures.countNames) } catch {
                throw ToolArgumentError(field: "unit", "\"\(Text.clean(unitText, max: 40))\" is not a unit this food knows; use its serving unit (\(food.serving.unit.symbol)), g, or a unit in its units list")
            }
            nutrients = try checked(field: "unit") { try food.nutrients(quantity: q, unit: unit).nutrients }
            amount = .quantity(q, unit)
            label = "\(Text.amount(q)) \(unit.symbol)"
            grams = food.measures.grams(q, unit)
        } else {
            let n = try args.positive("servings", max: JournalStore.Limits.servings) ?? args.positive("quantity", max: JournalStore.Limits.servings) ?? 1
            amount = .servings(n)
            nutrients = food.nutrients.scaled(by: n)
            grams = food.serving.grams.map { $0 * n }
            label = Text.serving(food.serving, servings: n)
        }
        let (day, meal, own) = try journal.targetMeal(args)
        let preview = """
            Log from your Food Bank: \(Text.food(food.name, brand: food.brand)) — \(label)
            \(whenLine(day, meal, label: own))
            \(Text.nutrientLines(nutrients))
            """ + entrySizeWarning(nutrients, grams: grams)
        let change: [String: JSONValue] = ["arguments": args.resolved(day: day, meal: meal, label: own), "food_id": .string(food.id.uuidString),
                                           "amount": .string(label), "nutrients": Shape.nutrients(nutrients)]
        return WritePlan(preview: preview, change: change, preconditions: dependencies([dependency(food)])) { db in
            loggedOutput(try checked(field: "food_id") { try journal.logFood(food.id, amount: amount, day: day, meal: meal, mealLabel: own, in: db) })
        }
    }
}

struct LogReferenceFood: JournalWriteTool {
    let journal: JournalStore
    let reference: ReferenceDatabase
    let name = NutritionToolName.logReferenceFood.rawValue
    let description = "Logs a USDA reference food: `quantity` times a `portion` (a measure from its portions, e.g. \"large\", or a unit: g, oz, cup, tbsp, mL...), or exact `grams`. Neither: one of its first portion (foods without portions need grams)."
    var parameters: JSONValue {
        Schema.object(["reference_id": ["type": "string", "maxLength": 16],
                       "portion": ["type": "string", "maxLength": 100],
                       "quantity": Schema.number("Default 1."),
                       "grams": ["type": "number"],
                       "date": Schema.date, "meal": Schema.meal], required: ["reference_id"])
    }
    func activity(arguments: JSONValue) -> String { "preparing to log a reference food" }

    func plan(_ args: Args, _ db: Database) throws -> WritePlan {
        let id = try args.requiredString("reference_id")
        guard let food = reference.food(id: id.trimmingCharacters(in: .whitespaces)) else {
            throw ToolArgumentError(field: "reference_id", "no reference food with id \"\(Text.clean(id, max: 20))\"; find it with search_reference_foods first")
        }
        let grams = try args.positive("grams")
        let quantity = try args.positive("quantity", max: JournalStore.Limits.servings)
        if grams != nil && quantity != nil { throw ToolArgumentError(field: "quantity", "give a portion and quantity, or grams, not both") }
        let amount = try ReferenceConversion.amount(of: food, portion: args.string("portion"), quantity: quantity, grams: grams)
        let (day, meal, label) = try journal.targetMeal(args)
        var draft = ReferenceConversion.draft(food, amount: amount, day: day, meal: meal)
        draft.mealLabel = label
        let preview = """
            Log a reference food (USDA \(food.id)): \(Text.clean(food.description)) — \(amount.label)
            \(whenLine(day, meal, label: label))
            \(Text.nutrientLines(draft.nutrients))
            """ + entrySizeWarning(draft.nutrients, grams: amount.grams) + derivedValuesNote(food)
        let change: [String: JSONValue] = ["arguments": args.resolved(day: day, meal: meal, label: label), "reference_id": .string(food.id),
                                           "amount": .string(amount.label), "nutrients": Shape.nutrients(draft.nutrients)]
        return WritePlan(preview: preview, change: change) { db in loggedOutput(try checked(field: "reference_id") { try journal.logEntry(draft, in: db) }) }
    }
}

struct LogCalculatorBuild: JournalWriteTool {
    let journal: JournalStore
    let name = NutritionToolName.logCalculatorBuild.rawValue
    var group: ToolGroup { .foodBank }
    let description = "Logs one build of a calculator (restaurant-style) Food Bank food: one named portion per chosen ingredient, summed. Get the ingredient and portion names with get_saved_food first. Needs approval."
    var parameters: JSONValue {
        Schema.object(["food_id": Schema.id,
                       "selections": ["type": "array", "minItems": 1, "maxItems": 50, "description": "One portion per chosen ingredient.",
                                      "items": Schema.object(["ingredient": Schema.string("Ingredient name as listed.", maxLength: 100),
                                                              "portion": Schema.string("Portion name as listed.", maxLength: 60)],
                                                             required: ["ingredient", "portion"])],
                       "servings": Schema.number("How many such builds (default 1)."),
                       "date": Schema.date, "meal": Schema.meal], required: ["food_id", "selections"])
    }
    func activity(arguments: JSONValue) -> String { "preparing to log a calculator build" }

    func plan(_ args: Args, _ db: Database) throws -> WritePlan {
        let food = try journal.savedFood(args, db)
        guard food.kind == .calculator else { throw ToolArgumentError(field: "food_id", "is not a calculator food; use log_saved_food") }
        let selections = (args.raw["selections"]?.arrayValue ?? []).map {
            CalculatorSelection(ingredient: $0["ingredient"]?.stringValue ?? "", portion: $0["portion"]?.stringValue ?? "")
        }
        let servings = try args.positive("servings", max: JournalStore.Limits.servings) ?? 1
        let sum = try checked(field: "selections") { try food.build(selections) }
        let (day, meal) = try journal.target(args)
        let detail = selections.map { "\(Text.clean($0.ingredient, max: 60)): \(Text.clean($0.portion, max: 60))" }.joined(separator: ", ")
        let preview = """
            Log a build of \(Text.food(food.name, brand: food.brand))\(servings == 1 ? "" : " × \(Text.amount(servings))") — \(detail)
            \(whenLine(day, meal))
            \(Text.nutrientLines(sum.scaled(by: servings)))
            """ + entrySizeWarning(sum.scaled(by: servings), grams: nil)
        let change: [String: JSONValue] = ["arguments": args.resolved(day: day, meal: meal), "food_id": .string(food.id.uuidString),
                                           "nutrients": Shape.nutrients(sum.scaled(by: servings))]
        return WritePlan(preview: preview, change: change, preconditions: dependencies([dependency(food)])) { db in
            loggedOutput(try checked(field: "selections") {
                try journal.logCalculatorBuild(food.id, selections: selections, servings: servings, day: day, meal: meal, in: db)
            })
        }
    }
}

// MARK: - Changing entries

struct UpdateJournalEntry: JournalWriteTool {
    let journal: JournalStore
    let name = NutritionToolName.updateJournalEntry.rawValue
    let description = "Changes a logged entry: name, brand (\"\" removes it), servings (scales its nutrients), nutrients (new amounts for the whole entry; replace the map), date or meal (moves it). Fields left out stay."
    var parameters: JSONValue {
        Schema.object(["entry_id": Schema.id, "name": ["type": "string", "maxLength": 200], "brand": ["type": "string", "maxLength": 100],
                       "servings": ["type": "number"], "nutrients": Schema.nutrients, "date": Schema.date, "meal": Schema.meal],
                      required: ["entry_id"])
    }
    func activity(arguments: JSONValue) -> String { "preparing to change a journal entry" }

    func plan(_ args: Args, _ db: Database) throws -> WritePlan {
        let old = try journal.entry(args, db)
        var update = EntryUpdate()
        var lines: [String] = []
        if args.has("name"), let n = try args.text("name", max: JournalStore.Limits.name, required: true) {
            update.name = n
            lines.append("name: \(Text.clean(old.name)) → \(Text.clean(n))")
        }
        if let b = try args.text("brand", max: JournalStore.Limits.brand, required: false) {
            update.brand = b
            lines.append("brand: \(old.brand.map { Text.clean($0) } ?? "none") → \(b.isEmpty ? "none" : Text.clean(b))")
        }
        if let s = try args.positive("servings", max: JournalStore.Limits.servings) {
            update.servings = s
            lines.append("servings: \(Text.amount(old.servings)) → \(Text.amount(s))")
        }
        let servings = update.servings ?? old.servings
        if let n = try args.nutrients("nutrients") {
            update.nutrients = n.scaled(by: 1 / servings).rounded(places: 6)
        }
        var resolved: [String: JSONValue] = [:]
        if let d = try args.day("date", journal: journal) {
            update.day = d
            resolved["date"] = .string(d.description)
            lines.append("date: \(Text.day(old.day)) → \(Text.day(d))")
        }
        if let m = try args.meal() {
            update.meal = m
            lines.append("meal: \(old.meal.rawValue) → \(m.rawValue)")
        }
        guard update != EntryUpdate() else {
            throw ToolArgumentError(field: "entry_id", "nothing to change: give name, brand, servings, nutrients, date or meal")
        }
        let after = (update.nutrients ?? old.nutrients).scaled(by: servings)
        if update.nutrients != nil || update.servings != nil {
            lines.append("nutrients before: \(Text.nutrients(old.totalNutrients))")
            lines.append("nutrients after: \(Text.nutrients(after))")
        }
        let preview = "Change journal entry: \(Text.food(old.name, brand: old.brand)) — \(Text.serving(old.serving, servings: old.servings)), \(old.meal.rawValue) on \(Text.day(old.day))\n"
            + lines.map { "  " + $0 }.joined(separator: "\n")
            + (update.nutrients != nil || update.servings != nil ? entrySizeWarning(after, grams: old.serving.grams.map { $0 * servings }) : "")
        let id = old.id
        let change: [String: JSONValue] = ["arguments": args.resolved(resolved), "entry_id": .string(id.uuidString),
                                           "nutrients_after": Shape.nutrients(after)]
        return WritePlan(preview: preview, change: change, preconditions: dependencies([dependency(old)])) { db in
            let e = try checked(field: "entry_id") { try journal.updateEntry(id, update, in: db) }
            return output(["updated": Shape.entry(e)], "updated \(Text.clean(e.name, max: 60))")
        }
    }
}

struct MoveJournalEntry: JournalWriteTool {
    let journal: JournalStore
    let name = NutritionToolName.moveJournalEntry.rawValue
    var group: ToolGroup { .trends }
    let description = "Moves a logged entry to another meal and/or date (\"move my coffee to breakfast\")."
    var parameters: JSONValue { Schema.object(["entry_id": Schema.id, "date": Schema.date, "meal": Schema.meal], required: ["entry_id"]) }
    func activity(arguments: JSONValue) -> String { "preparing to move a journal entry" }

    func plan(_ args: Args, _ db: Database) throws -> WritePlan {
        let old = try journal.entry(args, db)
        let day = try args.day("date", journal: journal)
        let meal = try args.meal()
        guard day != nil || meal != nil else { throw ToolArgumentError(field: "meal", "give a meal, a date or both to move the entry to") }
        let newDay = day ?? old.day, newMeal = meal ?? old.meal
        let preview = """
            Move journal entry: \(Text.food(old.name, brand: old.brand)) — \(Text.serving(old.serving, servings: old.servings))
            From: \(old.meal.rawValue) on \(Text.day(old.day))
            To: \(newMeal.rawValue) on \(Text.day(newDay))
            """
        let id = old.id
        let change: [String: JSONValue] = ["arguments": args.resolved(day.map { ["date": .string($0.description)] } ?? [:]),
                                           "entry_id": .string(id.uuidString), "to_date": .string(newDay.description), "to_meal": .string(newMeal.rawValue)]
        return WritePlan(preview: preview, change: change, preconditions: dependencies([dependency(old)])) { db in
            let e = try checked(field: "entry_id") { try journal.moveEntry(id, toDay: day, meal: meal, in: db) }
            return output(["moved": Shape.entry(e)], "moved \(Text.clean(e.name, max: 60)) to \(e.meal.rawValue) on \(e.day)")
        }
    }
}

struct DeleteJournalEntry: JournalWriteTool {
    let journal: JournalStore
    let name = NutritionToolName.deleteJournalEntry.rawValue
    let description = "Deletes one logged entry (\"delete the last thing I logged\": search_journal without text finds it)."
    var parameters: JSONValue { Schema.object(["entry_id": Schema.id], required: ["entry_id"]) }
    func activity(arguments: JSONValue) -> String { "preparing to delete a journal entry" }

    func plan(_ args: Args, _ db: Database) throws -> WritePlan {
        let old = try journal.entry(args, db)
        let preview = """
            Delete journal entry: \(Text.food(old.name, brand: old.brand)) — \(Text.serving(old.serving, servings: old.servings))
            \(whenLine(old.day, old.meal))
            \(Text.nutrientLines(old.totalNutrients, label: "Nutrients removed"))
            """
        let id = old.id
        let change: [String: JSONValue] = ["arguments": args.resolved(), "entry_id": .string(id.uuidString)]
        return WritePlan(preview: preview, change: change, preconditions: dependencies([dependency(old)])) { db in
            let e = try checked(field: "entry_id") { try journal.deleteEntry(id, in: db) }
            return output(["deleted": Shape.entry(e)], "deleted \(Text.clean(e.name, max: 60)) from \(e.meal.rawValue) on \(e.day)")
        }
    }
}
