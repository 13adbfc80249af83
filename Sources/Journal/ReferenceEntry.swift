// Turning a USDA reference food plus an amount into a journal entry (a snapshot, like any entry).
import Nutrition
import ReferenceFoods
import SQLiteKit

extension JournalStore {
    /// Reference columns whose canonical id differs, and columns left out because another column
    /// already carries the same nutrient in the canonical unit (IU forms, folate variants, kJ).
    static let referenceRenames = ["vitamin_a_rae_mcg": "vitamin_a_mcg", "folate_dfe_mcg": "folate_mcg"]
    static let referenceDuplicates: Set<String> = ["energy_kj", "vitamin_a_iu", "vitamin_d_iu", "folate_total_mcg",
                                                   "folic_acid_mcg", "folate_food_mcg"]

    /// Nutrients of `grams` of a reference food under canonical ids; nutrients USDA did not report
    /// stay absent ("not reported"), never zero.
    public static func referenceNutrients(_ food: ReferenceFood, grams: Double) throws -> NutrientAmounts {
        var raw: [String: Double] = [:]
        for (column, value) in food.nutrients(forGrams: grams) where !referenceDuplicates.contains(column) {
            raw[referenceRenames[column] ?? column] = value
        }
        return try NutrientAmounts(raw)
    }

    /// The serving a reference log records: the household portion when one was chosen
    /// ("2 large (100 g)"), grams otherwise.
    public static func referenceServing(grams: Double, portion: ReferencePortionMatch?) -> ServingSize {
        if let portion, let unit = try? ServingUnit.parse(portion.portion.measure, extraCounts: [portion.portion.measure]) {
            let serving = ServingSize(quantity: portion.quantity, unit: unit, grams: grams)
            if (try? serving.validate()) != nil { return serving }
        }
        return ServingSize(quantity: grams, unit: .mass(.g))
    }

    /// Logs `grams` of a reference food (optionally described by the household portion chosen).
    public func logReferenceFood(_ food: ReferenceFood, grams: Double, portion: ReferencePortionMatch? = nil,
                                 day: CalendarDay? = nil, meal: Meal? = nil, source: EntrySource = .reference,
                                 in db: Database) throws -> Entry {
        guard grams.isFinite, grams > 0 else { throw JournalError.invalid(field: "grams", reason: "must be a number above zero") }
        guard grams <= 100_000 else { throw JournalError.invalid(field: "grams", reason: "is more than 100 kg; check the amount") }
        let draft = EntryDraft(day: day, meal: meal, name: food.description, serving: JournalStore.referenceServing(grams: grams, portion: portion),
                               servings: 1, nutrients: try JournalStore.referenceNutrients(food, grams: grams), source: source)
        return try logEntry(draft, in: db)
    }

    public func logReferenceFood(_ food: ReferenceFood, grams: Double, portion: ReferencePortionMatch? = nil,
                                 day: CalendarDay? = nil, meal: Meal? = nil, source: EntrySource = .reference) throws -> Entry {
        try queue.write { try logReferenceFood(food, grams: grams, portion: portion, day: day, meal: meal, source: source, in: $0) }
    }
}
