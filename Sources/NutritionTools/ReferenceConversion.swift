// Reference food -> journal values in one place: an amount (portion or grams) and the entry it becomes.
import Agent
import Base
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

        init(_ a: ReferenceAmount) { grams = a.grams; label = a.label; serving = a.serving }
    }

    /// Resolves `portion` (a measure as listed, or text such as "1 cup", "8 fl oz", "200 ml",
    /// "3 oz") × `quantity`, or `grams`, through the journal's one amount model
    /// (`ReferenceAmounts`). With neither, one of the food's first count or volume measure.
    static func amount(of food: ReferenceFood, portion: String?, quantity: Double?, grams: Double?) throws -> Amount {
        if let grams {
            if portion != nil { throw ToolArgumentError(field: "portion", "give either portion or grams, not both") }
            return Amount(ReferenceAmounts.weight(grams, of: food))
        }
        let count = quantity ?? 1
        let text: String
        if let typed = portion?.trimmingCharacters(in: .whitespaces), !typed.isEmpty {
            text = typed
        } else if let first = ReferenceAmounts.defaultPortion(of: food) {
            text = first.measure
        } else {
            // No household measure to count in: guessing a weight would make up a number.
            throw ToolArgumentError(field: "grams", "this reference food lists no household portions; pass its weight in grams")
        }
        do {
            return Amount(try ReferenceAmounts.resolve(text, of: food, times: count))
        } catch JournalError.invalid(_, let reason) {
            throw ToolArgumentError(field: "portion", reason)
        }
    }

    /// The entry a reference food becomes.
    static func draft(_ food: ReferenceFood, amount: Amount, day: CalendarDay, meal: Meal) -> EntryDraft {
        EntryDraft(day: day, meal: meal, name: String(Text.clean(food.description, max: JournalStore.Limits.name)),
                   serving: amount.serving, servings: 1, nutrients: nutrients(food, grams: amount.grams), source: .reference,
                   derivedNutrients: Set(JournalStore.referenceDerivations(food).keys))
    }
}
