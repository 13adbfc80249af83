// Logging USDA reference foods: per-100 g values scaled to the grams eaten, mapped to canonical ids.
import Foundation
import Nutrition
import ReferenceFoods
import SQLiteKit

extension JournalStore {
    /// Reference column ids whose catalog id differs.
    static let referenceRenames: [String: String] = ["vitamin_a_rae_mcg": "vitamin_a_mcg", "folate_dfe_mcg": "folate_mcg"]
    /// Reference columns that restate a catalog nutrient in another unit or basis; dropped so
    /// entries carry one figure per nutrient.
    static let referenceDuplicates: Set<String> = ["energy_kj", "vitamin_a_iu", "vitamin_d_iu", "folate_total_mcg"]

    /// A reference food's nutrients for `grams` grams, keyed by canonical ids. Columns USDA
    /// did not report stay absent ("not reported"); extra columns (retinol, EPA, …) are kept.
    public static func referenceNutrients(_ food: ReferenceFood, grams: Double) -> NutrientAmounts {
        var out: [String: Double] = [:]
        for (column, per100) in food.nutrientsPer100g where !referenceDuplicates.contains(column) {
            out[referenceRenames[column] ?? column] = (per100 * grams / 100).rounded(places: 6)
        }
        return NutrientAmounts(storedCanonical: out)
    }

    /// Logs `grams` grams of a reference food (source `reference`).
    @discardableResult
    public func logReferenceFood(_ food: ReferenceFood, grams: Double, day: CalendarDay? = nil, meal: Meal? = nil,
                                 in db: Database) throws -> Entry {
        try check(positive: grams, field: "grams", max: Limits.quantity)
        let draft = EntryDraft(day: day, meal: meal, name: try referenceName(food), serving: ServingSize(quantity: grams, unit: .mass(.g)),
                               nutrients: JournalStore.referenceNutrients(food, grams: grams), source: .reference)
        return try logEntry(draft, in: db)
    }

    @discardableResult
    public func logReferenceFood(_ food: ReferenceFood, grams: Double, day: CalendarDay? = nil, meal: Meal? = nil) throws -> Entry {
        try queue.write { try logReferenceFood(food, grams: grams, day: day, meal: meal, in: $0) }
    }

    /// Logs a household portion of a reference food ("2 large" eggs); the entry's serving is
    /// the portion with its gram weight.
    @discardableResult
    public func logReferenceFood(_ food: ReferenceFood, portion: ReferencePortionMatch, day: CalendarDay? = nil, meal: Meal? = nil,
                                 in db: Database) throws -> Entry {
        try check(positive: portion.quantity, field: "portion quantity", max: Limits.quantity)
        try check(positive: portion.grams, field: "portion grams", max: Limits.quantity)
        let draft = EntryDraft(day: day, meal: meal, name: try referenceName(food),
                               serving: referenceServing(portion.portion, quantity: portion.quantity, grams: portion.grams),
                               nutrients: JournalStore.referenceNutrients(food, grams: portion.grams), source: .reference)
        return try logEntry(draft, in: db)
    }

    @discardableResult
    public func logReferenceFood(_ food: ReferenceFood, portion: ReferencePortionMatch, day: CalendarDay? = nil, meal: Meal? = nil) throws -> Entry {
        try queue.write { try logReferenceFood(food, portion: portion, day: day, meal: meal, in: $0) }
    }

    /// Logs a reference food by NDB id with either a typed portion ("1 large", "2 tbsp") or grams.
    @discardableResult
    public func logReferenceFood(id: String, portion: String? = nil, grams: Double? = nil, from reference: ReferenceDatabase,
                                 day: CalendarDay? = nil, meal: Meal? = nil, in db: Database) throws -> Entry {
        guard let food = reference.food(id: id) else { throw JournalError.notFound(kind: "reference food", id: String(id.prefix(20))) }
        switch (portion, grams) {
        case (nil, let g?):
            return try logReferenceFood(food, grams: g, day: day, meal: meal, in: db)
        case (let text?, nil):
            let t = try checkText(text, field: "portion", max: 100)
            guard let match = food.portion(matching: t) else {
                let known = food.portions.prefix(8).map(\.label).joined(separator: ", ")
                throw JournalError.invalid(field: "portion", reason: "\"\(t.prefix(40))\" is not a measure of this food; give grams or one of: \(known.isEmpty ? "(none)" : known)")
            }
            return try logReferenceFood(food, portion: match, day: day, meal: meal, in: db)
        default:
            throw JournalError.invalid(field: "amount", reason: "needs exactly one of a portion or grams")
        }
    }

    @discardableResult
    public func logReferenceFood(id: String, portion: String? = nil, grams: Double? = nil, from reference: ReferenceDatabase,
                                 day: CalendarDay? = nil, meal: Meal? = nil) throws -> Entry {
        try queue.write { try logReferenceFood(id: id, portion: portion, grams: grams, from: reference, day: day, meal: meal, in: $0) }
    }

    /// Creates a saved food from a reference food, per 100 g with its household portions as
    /// mappings (so it can later be logged "by the cup" or "by the egg").
    @discardableResult
    public func createFood(fromReference food: ReferenceFood, name: String? = nil, in db: Database) throws -> SavedFood {
        var mappings: [UnitMapping] = []
        var seen: Set<String> = []
        for p in food.portions where p.amount > 0 && p.gramWeight > 0 {
            let s = referenceServing(p, quantity: p.amount, grams: p.gramWeight)
            if s.unit.isMass { continue } // grams already convert; a mass measure adds nothing
            guard seen.insert(s.unit.symbol).inserted else { continue }
            mappings.append(UnitMapping(quantity: s.quantity, unit: s.unit, grams: s.grams))
        }
        let draft = FoodDraft(name: try name.map { try checkText($0, field: "name", max: Limits.name) } ?? referenceName(food),
                              serving: ServingSize(quantity: 100, unit: .mass(.g)), mappings: mappings,
                              nutrients: JournalStore.referenceNutrients(food, grams: 100))
        return try createFood(draft, in: db)
    }

    @discardableResult
    public func createFood(fromReference food: ReferenceFood, name: String? = nil) throws -> SavedFood {
        try queue.write { try createFood(fromReference: food, name: name, in: $0) }
    }

    // MARK: - Helpers

    private func referenceName(_ food: ReferenceFood) throws -> String {
        let d = food.description
        return d.count > Limits.name ? String(d.prefix(Limits.name - 1)) + "…" : d
    }

    /// A portion as a serving: "1 cup" becomes a volume, "1 large" a count named by the
    /// measure's first words ("large"), always with its gram weight.
    func referenceServing(_ p: ReferencePortion, quantity: Double, grams: Double) -> ServingSize {
        let main = p.measure.prefix { $0 != "(" && $0 != "," }.trimmingCharacters(in: .whitespaces)
        var name = main.isEmpty ? "portion" : String(main.prefix(40)).lowercased()
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { name = "portion" }
        let unit = (try? ServingUnit.parse(name, extraCounts: [name])) ?? .count(name)
        if case .mass = unit { return ServingSize(quantity: grams, unit: .mass(.g)) }
        return ServingSize(quantity: quantity, unit: unit, grams: grams)
    }
}
