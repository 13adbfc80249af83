// Matches what a person types ("1 large egg", "2 tbsp", "1/2 cup", "slice") to a household portion.
import Base

enum PortionMatcher {
    /// Spellings of the same unit, mapped to the form USDA uses in its measure text.
    static let unitSpellings: [String: String] = [
        "tablespoon": "tbsp", "tbs": "tbsp", "tbl": "tbsp", "tblsp": "tbsp", "tbsp": "tbsp",
        "teaspoon": "tsp", "tsp": "tsp",
        "ounce": "oz", "oz": "oz", "fluid": "fl", "fl": "fl",
        "pound": "lb", "lb": "lb",
        "cup": "cup", "c": "cup",
        "piece": "piece", "pc": "piece", "pcs": "piece",
        "quart": "quart", "qt": "quart", "pint": "pint", "pt": "pint",
        "lg": "large", "med": "medium", "sm": "small", "xl": "extra",
    ]
    static let fillerWords: Set<String> = ["of", "a", "an", "the", "x"]

    static func match(_ text: String, in food: ReferenceFood, allowed: (ReferencePortion) -> Bool = { _ in true }) -> ReferencePortionMatch? {
        guard text.utf8.count <= 200, !food.portions.isEmpty else { return nil }
        let (quantity, rest) = splitQuantity(text)
        guard quantity.isFinite, quantity > 0 else { return nil }

        let measureTerms = food.portions.map { portion -> (main: [String], all: Set<String>) in
            let main = String(portion.measure.prefix { $0 != "(" && $0 != "," })
            return (words(main), Set(words(portion.measure)))
        }
        let anyMeasureTerm = measureTerms.reduce(into: Set<String>()) { $0.formUnion($1.main) }
        let foodTerms = Set(SearchText.terms(food.description + " " + (food.commonName ?? "")))
        // "1 large egg": "egg" names the food, not the measure, unless a measure uses it ("breast").
        let wanted = words(rest).filter { !(foodTerms.contains($0) && !anyMeasureTerm.contains($0)) }
        guard !wanted.isEmpty else { return nil }
        let wantedSet = Set(wanted)

        // Every typed word must be in the measure and one of them in its main part (before any
        // comma or parenthesis). Then the measure with the fewest words the person did not type
        // wins, main part first ("thin slice" → "slice, thin", not "slice thin, crust not eaten"),
        // then USDA's order.
        var best: (mainExtra: Int, allExtra: Int, sequence: Int, portion: ReferencePortion)?
        for (portion, terms) in zip(food.portions, measureTerms) where allowed(portion) {
            let mainSet = Set(terms.main)
            guard wantedSet.isSubset(of: terms.all), !wantedSet.isDisjoint(with: mainSet) else { continue }
            let candidate = (mainExtra: mainSet.subtracting(wantedSet).count, allExtra: terms.all.subtracting(wantedSet).count,
                             sequence: portion.sequence, portion: portion)
            if let current = best,
               (current.mainExtra, current.allExtra, current.sequence) <= (candidate.mainExtra, candidate.allExtra, candidate.sequence) {
                continue
            }
            best = candidate
        }
        guard let portion = best?.portion, let grams = portion.grams(forQuantity: quantity) else { return nil }
        return ReferencePortionMatch(portion: portion, quantity: quantity, grams: grams)
    }

    /// Normalised measure words: folded, plural-stemmed, unit spellings unified, numbers and filler dropped.
    static func words(_ text: String) -> [String] {
        SearchText.terms(text).compactMap { term in
            if term.utf8.first.map({ $0 >= 0x30 && $0 <= 0x39 }) ?? false { return nil }
            if fillerWords.contains(term) { return nil }
            return unitSpellings[term] ?? term
        }
    }

    /// Leading quantity ("2", "1.5", "1/2", "1 1/2", "½", "1½") and the text after it; 1 when absent.
    static func splitQuantity(_ text: String) -> (Double, String) {
        var rest = Substring(text).drop { $0 == " " }
        var total = 0.0
        var found = false
        while let token = rest.split(separator: " ", maxSplits: 1).first {
            guard let value = number(token) else {
                // "-1", "1e400", "+2": a number the rule does not read is refused, not read as words.
                if !found, let c = token.first, c.isNumber || c == "-" || c == "+" || c == "." || c == "," { return (.nan, String(rest)) }
                break
            }
            total += value
            found = true
            rest = rest.dropFirst(token.count).drop { $0 == " " }
        }
        return (found ? total : 1, String(rest))
    }

    /// The one decimal rule (`TypedNumber`); a refused number ("1.5,5", "1/0") gives NaN, which
    /// the caller's check refuses.
    private static func number(_ token: Substring) -> Double? {
        switch TypedNumber.read(token) {
        case .success(let v)?: return v
        case .failure?: return .nan
        case nil: return nil
        }
    }
}
