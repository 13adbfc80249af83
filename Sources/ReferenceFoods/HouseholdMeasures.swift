// Household measures (a glass, a mug, a bowl) for foods whose USDA rows do not name them, read
// from Resources/household-measures.tsv, where each number says where it comes from.
import Foundation

/// A household word and the volume ofj gives it when a food lists no measure of that name.
public struct HouseholdMeasure: Sendable, Hashable {
    /// What the measure may be used for: a drink ("a glass of rice" is refused), or any food
    /// USDA measures by the cup.
    public enum AppliesTo: String, Sendable, Hashable {
        /// A wine (an alcoholic beverage named wine): a glass is a standard pour.
        case wine
        case drink, cup
    }

    /// "glass", "mug", "bowl".
    public let word: String
    public let milliliters: Double
    public let appliesTo: AppliesTo
    /// Where the number comes from, as shown on the card.
    public let source: String
}

public enum HouseholdMeasures {
    /// Every measure of the shipped table (empty only if the resource is missing, which the
    /// tests rule out).
    public static let all: [HouseholdMeasure] = {
        guard let text = try? String(contentsOf: ReferenceDatabase.bundledDirectory.appendingPathComponent("household-measures.tsv"), encoding: .utf8) else {
            return []
        }
        return parse(text)
    }()

    /// The table's rows: `word<TAB>milliliters<TAB>applies_to<TAB>source`; "#" lines are comments.
    static func parse(_ text: String) -> [HouseholdMeasure] {
        text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 4, let ml = Double(f[1]), ml > 0, let applies = HouseholdMeasure.AppliesTo(rawValue: f[2]), !f[3].isEmpty else { return nil }
            return HouseholdMeasure(word: f[0], milliliters: ml, appliesTo: applies, source: f[3])
        }
    }

    /// The measures a typed word names ("glass", "glasses", "Bowl"), most specific first.
    public static func measures(named word: String) -> [HouseholdMeasure] {
        let w = word.lowercased()
        let forms = [w, w.hasSuffix("es") ? String(w.dropLast(2)) : w, w.hasSuffix("s") ? String(w.dropLast()) : w]
        return all.filter { forms.contains($0.word) }
    }
}
