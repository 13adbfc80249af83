// Turning a USDA reference food plus an amount into a journal entry or a saved food, under canonical ids.
import Base
import Foundation
import Nutrition
import ReferenceFoods
import SQLiteKit

extension JournalStore {
    /// Reference columns whose canonical id differs.
    static let referenceRenames = ["vitamin_a_rae_mcg": "vitamin_a_mcg", "folate_dfe_mcg": "folate_mcg"]
    /// Columns left out because another column already carries the same nutrient in the
    /// canonical unit (IU forms, kJ, folate variants), so totals never double count.
    static let referenceDuplicates: Set<String> = ["energy_kj", "vitamin_a_iu", "vitamin_d_iu", "folate_total_mcg",
                                                   "folic_acid_mcg", "folate_food_mcg"]

    /// Nutrients of `grams` of a reference food under canonical ids. Nutrients USDA did not
    /// report stay absent ("not reported"), never zero; extra columns (retinol, EPA, …) are kept.
    /// Values derived by USDA's rules (`ReferenceFood.derivedPer100g`: vitamin D from IU, folate
    /// DFE) fill their column; total folate is kept as its own nutrient when no DFE is known, so
    /// it is not dropped.
    public static func referenceNutrients(_ food: ReferenceFood, grams: Double) -> NutrientAmounts {
        var out: [String: Double] = [:]
        guard grams.isFinite, grams >= 0 else { return NutrientAmounts() }
        var per100 = food.nutrientsPer100g
        per100.merge(food.derivedPer100g) { reported, _ in reported }
        var skip = referenceDuplicates
        if per100["folate_dfe_mcg"] == nil { skip.remove("folate_total_mcg") }
        for (column, value) in per100 where !skip.contains(column) {
            out[referenceRenames[column] ?? column] = (value * grams / 100).rounded(places: 6)
        }
        return NutrientAmounts(storedCanonical: out)
    }

    /// Canonical ids whose value for this food is derived, with USDA's rule ("vitamin_d_mcg":
    /// "derived: vitamin D IU ÷ 40 …"), for showing next to the value.
    public static func referenceDerivations(_ food: ReferenceFood) -> [String: String] {
        var out: [String: String] = [:]
        for column in food.derivedPer100g.keys {
            out[referenceRenames[column] ?? column] = ReferenceFood.derivationRules[column] ?? "derived"
        }
        return out
    }

    /// The serving a reference log records: the household portion when one was chosen
    /// ("2 large", 100 g; "1 cup", 243 g), grams otherwise.
    public static func referenceServing(grams: Double, portion: ReferencePortionMatch?) -> ServingSize {
        guard let portion else { return ServingSize(quantity: grams, unit: .mass(.g)) }
        return referenceServing(portion.portion, quantity: portion.quantity, grams: grams)
    }

    /// A portion as a serving: the measure's leading words ("cup" of "cup, mashed", "large")
    /// become the unit: a volume when it is one, a named count otherwise; mass measures become grams.
    static func referenceServing(_ p: ReferencePortion, quantity: Double, grams: Double) -> ServingSize {
        let main = p.measure.prefix { $0 != "(" && $0 != "," }.trimmingCharacters(in: .whitespaces).lowercased()
        var name = main.isEmpty ? "portion" : String(main.prefix(40))
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { name = "portion" }
        // A measure that is not a known unit is this food's own count ("pat", "large").
        let unit = (try? ServingUnit.parse(name, extraCounts: [name])) ?? .count(name)
        if unit.isMass || !(quantity.isFinite && quantity > 0) { return ServingSize(quantity: grams, unit: .mass(.g)) }
        return ServingSize(quantity: quantity, unit: unit, grams: grams)
    }

    /// Logs `grams` of a reference food (source `reference`), optionally described by the
    /// household portion chosen.
    @discardableResult
    public func logReferenceFood(_ food: ReferenceFood, grams: Double, portion: ReferencePortionMatch? = nil,
                                 day: CalendarDay? = nil, meal: Meal? = nil, source: EntrySource = .reference,
                                 in db: Database) throws -> Entry {
        try check(positive: grams, field: "grams", max: Limits.quantity)
        let draft = EntryDraft(day: day, meal: meal, name: referenceName(food),
                               serving: JournalStore.referenceServing(grams: grams, portion: portion),
                               nutrients: JournalStore.referenceNutrients(food, grams: grams), source: source,
                               derivedNutrients: Set(JournalStore.referenceDerivations(food).keys))
        return try logEntry(draft, in: db)
    }

    @discardableResult
    public func logReferenceFood(_ food: ReferenceFood, grams: Double, portion: ReferencePortionMatch? = nil,
                                 day: CalendarDay? = nil, meal: Meal? = nil, source: EntrySource = .reference) throws -> Entry {
        try queue.write { try logReferenceFood(food, grams: grams, portion: portion, day: day, meal: meal, source: source, in: $0) }
    }

    /// Logs `amount` of a reference food, `servings` times (nutrients per one amount, like any entry).
    @discardableResult
    public func logReferenceFood(_ food: ReferenceFood, amount: ReferenceAmount, servings: Double = 1,
                                 day: CalendarDay? = nil, meal: Meal? = nil, source: EntrySource = .reference,
                                 eatenAt: Date? = nil, mealLabel: String? = nil, in db: Database) throws -> Entry {
        try check(positive: amount.grams, field: "grams", max: Limits.quantity)
        try check(positive: servings, field: "servings", max: Limits.servings)
        let draft = EntryDraft(day: day, meal: meal, name: referenceName(food), serving: amount.serving, servings: servings,
                               nutrients: JournalStore.referenceNutrients(food, grams: amount.grams), source: source,
                               derivedNutrients: Set(JournalStore.referenceDerivations(food).keys), eatenAt: eatenAt, mealLabel: mealLabel)
        return try logEntry(draft, in: db)
    }

    @discardableResult
    public func logReferenceFood(_ food: ReferenceFood, amount: ReferenceAmount, servings: Double = 1,
                                 day: CalendarDay? = nil, meal: Meal? = nil, source: EntrySource = .reference,
                                 eatenAt: Date? = nil, mealLabel: String? = nil) throws -> Entry {
        try queue.write {
            try logReferenceFood(food, amount: amount, servings: servings, day: day, meal: meal, source: source, eatenAt: eatenAt, mealLabel: mealLabel, in: $0)
        }
    }

    /// The amount a typed portion ("1 large", "8 fl oz", "200 ml") or grams means for a reference food.
    public static func referenceAmount(_ food: ReferenceFood, portion: String?, grams: Double?) throws -> ReferenceAmount {
        switch (portion, grams) {
        case (nil, let g?):
            guard g.isFinite, g > 0 else { throw JournalError.invalid(field: "grams", reason: "must be a number above zero") }
            return ReferenceAmounts.weight(g, of: food)
        case (let text?, nil):
            let t = try domain { try Validate.text(text, field: "portion", maxLength: 100) }
            return try ReferenceAmounts.resolve(t, of: food)
        default:
            throw JournalError.invalid(field: "amount", reason: "needs exactly one of a portion or grams")
        }
    }

    /// Logs a reference food by NDB id with either a typed portion ("1 large", "2 tbsp", "8 fl oz",
    /// "200 ml", "3 oz") or grams, `servings` times.
    @discardableResult
    public func logReferenceFood(id: String, portion: String? = nil, grams: Double? = nil, servings: Double = 1,
                                 from reference: ReferenceDatabase, day: CalendarDay? = nil, meal: Meal? = nil,
                                 in db: Database) throws -> Entry {
        guard let food = reference.food(id: id) else { throw JournalError.notFound(kind: "reference food", id: String(id.prefix(20))) }
        let amount = try JournalStore.referenceAmount(food, portion: portion, grams: grams)
        return try logReferenceFood(food, amount: amount, servings: servings, day: day, meal: meal, in: db)
    }

    @discardableResult
    public func logReferenceFood(id: String, portion: String? = nil, grams: Double? = nil, servings: Double = 1,
                                 from reference: ReferenceDatabase, day: CalendarDay? = nil, meal: Meal? = nil) throws -> Entry {
        try queue.write { try logReferenceFood(id: id, portion: portion, grams: grams, servings: servings, from: reference, day: day, meal: meal, in: $0) }
    }

    /// Creates a saved food from a reference food: 100 g servings, with its household portions
    /// as mappings so it can later be logged "by the cup" or "by the egg".
    @discardableResult
    public func createFood(fromReference food: ReferenceFood, name: String? = nil, in db: Database) throws -> SavedFood {
        var mappings: [UnitMapping] = []
        var seen: Set<String> = []
        // One mapping per unit: for a volume, the row that keeps the food's state wins (heavy
        // cream's "cup, fluid", not "cup, whipped"), as it does for the reference food itself.
        let keeps = Set(ReferenceAmounts.volumeRows(of: food).filter { $0.unit != nil && $0.keepsState }.map { $0.portion.sequence })
        let ordered = food.portions.enumerated().sorted { a, b in
            (keeps.contains(a.element.sequence) ? 0 : 1, a.offset) < (keeps.contains(b.element.sequence) ? 0 : 1, b.offset)
        }.map(\.element)
        for p in ordered where p.amount > 0 && p.gramWeight > 0 {
            let s = JournalStore.referenceServing(p, quantity: p.amount, grams: p.gramWeight)
            if s.unit.isMass { continue } // grams already convert; a mass measure adds nothing
            guard seen.insert(s.unit.symbol).inserted else { continue }
            mappings.append(UnitMapping(quantity: s.quantity, unit: s.unit, grams: s.grams))
        }
        // The food's density, when no volume measure already carries it, so mL and fl oz convert
        // as they do for the reference food itself.
        if !mappings.contains(where: { $0.unit.isVolume }), let d = ReferenceAmounts.density(of: food) {
            mappings.append(UnitMapping(quantity: 100, unit: .volume(.ml), grams: (100 * d.gramsPerMilliliter).rounded(places: 6)))
        }
        let draft = FoodDraft(name: try name.map { try checkText($0, field: "name", max: Limits.name) } ?? referenceName(food),
                              serving: ServingSize(quantity: 100, unit: .mass(.g)), mappings: mappings,
                              nutrients: JournalStore.referenceNutrients(food, grams: 100))
        var marked = draft
        marked.derivedNutrients = Set(JournalStore.referenceDerivations(food).keys)
        return try createFood(marked, in: db)
    }

    @discardableResult
    public func createFood(fromReference food: ReferenceFood, name: String? = nil) throws -> SavedFood {
        try queue.write { try createFood(fromReference: food, name: name, in: $0) }
    }

    private func referenceName(_ food: ReferenceFood) -> String { JournalStore.referenceName(food) }

    /// A reference food's name as an entry or ingredient carries it (cut to the name limit).
    public static func referenceName(_ food: ReferenceFood) -> String {
        let d = food.description
        return d.count > Limits.name ? String(d.prefix(Limits.name - 1)) + "…" : d
    }
}
