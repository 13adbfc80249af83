// Extra lines for the approval card: a warning for an entry over 5,000 kcal or 5 kg (probably a
// typo), and which values of a reference food are derived rather than reported.
import Journal
import Nutrition
import ReferenceFoods

/// "\nWarning: this entry is 6200 kcal, …" to append to a log preview, or "" for an ordinary entry.
/// `nutrients` are for the whole entry; `grams` its weight when known.
func entrySizeWarning(_ nutrients: NutrientAmounts, grams: Double?) -> String {
    EntrySize.warning(kcal: nutrients["energy_kcal"], grams: grams).map { "\n" + $0 } ?? ""
}

/// "\nDerived by USDA's rules: vitamin D (vitamin D IU ÷ 40 …)" for a reference food with derived
/// values, or "": the card says which numbers USDA did not report directly.
func derivedValuesNote(_ food: ReferenceFood) -> String {
    let derived = JournalStore.referenceDerivations(food)
    guard !derived.isEmpty else { return "" }
    let parts = derived.keys.sorted().map { id in
        "\(NutrientCatalog.displayName(id)) = \((derived[id] ?? "").replacingOccurrences(of: "derived: ", with: ""))"
    }
    return "\nDerived by USDA's rules, not reported directly: " + parts.joined(separator: ", ")
}
