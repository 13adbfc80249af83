// Reference food -> journal values in one place: an amount (portion or grams) and the entry it becomes.
import Agent
import Foundation
import Journal
import Nutrition
import ReferenceFoods

enum ReferenceConversion {
    /// Nutrients of `grams` of a reference food under canonical ids, mapped by the journal (the
    /// same mapping `ofj log --ref` uses); nutrients USDA did not report stay absent.
    static func nutrients(_ food: ReferenceFood, grams: Double) -> NutrientAmounts {
        JournalStore.referenceNutrients(food, grams: grams).rounded(places: 6)
    }

    /// How much of a reference food: a household portion (count of measures) or grams.
    struct Amount {
        var grams: Double
        /// "2 large", "150 g".
        var label: String
        var serving: ServingSize
    }

    /// Resolves `portion` (a measure as listed, or text such as "1 cup") × `quantity`, or `grams`.
    /// With neither, one of the food's first listed portion (or 100 g when it lists none).
    static func amount(of food: ReferenceFood, portion: String?, quantity: Double?, grams: Double?) throws -> Amount {
        if let grams {
            if portion != nil { throw ToolArgumentError(field: "portion", "give either portion or grams, not both") }
            return Amount(grams: grams, label: "\(Text.amount(grams)) g", serving: ServingSize(quantity: grams, unit: .mass(.g)))
        }
        let count = quantity ?? 1
        let chosen: ReferencePortion
        if let text = portion?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            if let exact = food.portions.first(where: { $0.measure.lowercased() == text.lowercased() || $0.label.lowercased() == text.lowercased() }) {
                chosen = exact
            } else if let match = food.portion(matching: text) {
                chosen = match.portion
            } else {
                let listed = food.portions.prefix(8).map { "\"\($0.measure)\"" }.joined(separator: ", ")
                throw ToolArgumentError(field: "portion", "\"\(Text.clean(text, max: 40))\" is not a portion of this food; use one of \(listed.isEmpty ? "none (pass grams instead)" : listed) or pass grams")
            }
        } else if let first = food.portions.first {
            chosen = first
        } else {
            // No household measure to count in: guessing a weight would make up a number.
            throw ToolArgumentError(field: "grams", "this reference food lists no household portions; pass its weight in grams")
        }
        let g = count * chosen.gramsPerMeasure
        guard g.isFinite, g > 0 else { throw ToolArgumentError(field: "quantity", "gives no weight for this portion") }
        let unitName = String(chosen.measure.prefix(40)).lowercased()
        let unit = (try? ServingUnit.parse(unitName, extraCounts: [unitName])) ?? .count(unitName.isEmpty ? "portion" : unitName)
        let serving = ServingSize(quantity: count, unit: unit, grams: g)
        return Amount(grams: g, label: "\(Text.amount(count)) \(Text.clean(chosen.measure, max: 60)) (\(Text.amount(g)) g)", serving: serving)
    }

    /// The entry a reference food becomes.
    static func draft(_ food: ReferenceFood, amount: Amount, day: CalendarDay, meal: Meal) -> EntryDraft {
        EntryDraft(day: day, meal: meal, name: String(Text.clean(food.description, max: JournalStore.Limits.name)),
                   serving: amount.serving, servings: 1, nutrients: nutrients(food, grams: amount.grams), source: .reference)
    }
}
