// The approval card's warning line for an entry over 5,000 kcal or 5 kg (probably a typo).
import Nutrition

/// "\nWarning: this entry is 6200 kcal, …" to append to a log preview, or "" for an ordinary entry.
/// `nutrients` are for the whole entry; `grams` its weight when known.
func entrySizeWarning(_ nutrients: NutrientAmounts, grams: Double?) -> String {
    EntrySize.warning(kcal: nutrients["energy_kcal"], grams: grams).map { "\n" + $0 } ?? ""
}
