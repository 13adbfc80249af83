// The one parser for what a person types as an amount ("2 large", "1/2 cup", "8 fl oz", "200ml",
// "1½ tbsp"): a quantity and the words after it, with the mass or volume unit they start with.

/// An amount as typed: `quantity` of `unitText`. `measure` is the mass or volume unit the words
/// start with ("fl oz" of "8 fl oz", "cup" of "1 cup, chopped"), `descriptor` what follows it.
public struct AmountText: Sendable, Hashable {
    public var quantity: Double
    /// The words after the number, trimmed ("large", "cup, chopped"); empty when only a number was typed.
    public var unitText: String
    /// The mass or volume unit the words start with, when they do.
    public var measure: ServingUnit?
    /// Words after `measure` ("chopped" of "cup, chopped"); empty when none.
    public var descriptor: String

    public init(quantity: Double, unitText: String) {
        self.quantity = quantity
        self.unitText = unitText.trimmingWhitespace()
        let lead = ServingUnit.leadingMeasure(self.unitText)
        self.measure = lead?.unit
        self.descriptor = lead?.rest ?? ""
    }

    /// Parses "2 large", "1 1/2 cups", "½ cup", "1½ tbsp", "200ml", "8 fl oz", "a cup", "cup"
    /// (quantity 1 when no number leads). Nil when the number is zero, negative, not finite or
    /// the text is longer than 200 characters.
    public static func parse(_ text: String) -> AmountText? {
        guard text.utf8.count <= 200 else { return nil }
        var rest = Substring(text.trimmingWhitespace())
        var total = 0.0
        var found = false
        while let token = rest.split(separator: " ", maxSplits: 1).first {
            if let value = number(token) {
                total += value; found = true
                rest = rest.dropFirst(token.count).drop { $0 == " " }
                continue
            }
            // A number glued to its unit: "200ml", "1.5kg", "8oz".
            let digits = token.prefix { $0.isNumber || $0 == "." || $0 == "/" }
            if !digits.isEmpty, digits.count < token.count, let value = number(digits) {
                total += value; found = true
                rest = rest.dropFirst(digits.count)
            } else if !found, token.lowercased() == "a" || token.lowercased() == "an" {
                total = 1; found = true
                rest = rest.dropFirst(token.count).drop { $0 == " " }
            }
            break
        }
        let quantity = found ? total : 1
        guard quantity.isFinite, quantity > 0 else { return nil }
        return AmountText(quantity: quantity, unitText: String(rest))
    }

    static let unicodeFractions: [Character: Double] = ["½": 0.5, "¼": 0.25, "¾": 0.75, "⅓": 1.0 / 3, "⅔": 2.0 / 3, "⅛": 0.125]

    /// "2", "1.5", "1/2", "½", "1½"; nil for anything else (a zero denominator gives NaN, refused by the caller).
    public static func number<S: StringProtocol>(_ token: S) -> Double? {
        if token.contains(where: { $0.isLetter }) { return nil }  // "inf", "nan", "1e5" are not amounts people type
        if let value = Double(String(token)) { return value }
        if let last = token.last, let fraction = unicodeFractions[last] {
            let whole = token.dropLast()
            if whole.isEmpty { return fraction }
            if let value = Double(String(whole)) { return value + fraction }
            return nil
        }
        let parts = token.split(separator: "/")
        if parts.count == 2, let top = Double(String(parts[0])), let bottom = Double(String(parts[1])) {
            return bottom == 0 ? .nan : top / bottom
        }
        return nil
    }
}

extension ServingUnit {
    /// The mass or volume unit `text` starts with ("fl oz" of "fl oz can", "cup" of "cup, chopped",
    /// "oz" of "oz (28 g)") and the words after it. Nil when it starts with a count word.
    public static func leadingMeasure(_ text: String) -> (unit: ServingUnit, rest: String)? {
        let main = text.lowercased()
        let tokens = main.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "(" || $0 == ")" || $0 == "\t" })
        guard !tokens.isEmpty else { return nil }
        for n in stride(from: min(3, tokens.count), through: 1, by: -1) {
            let head = tokens.prefix(n).joined(separator: " ")
            guard let unit = aliases[normalizeWord(head)], unit.isMass || unit.isVolume else { continue }
            let rest = tokens.dropFirst(n).joined(separator: " ")
            return (unit, rest)
        }
        return nil
    }
}

/// Sizes past which an entry is probably a typo (an extra zero, grams for kilograms): the CLI
/// needs --force and the assistant's approval card says so.
public enum EntrySize {
    public static let maxKcal = 5_000.0
    public static let maxGrams = 5_000.0

    /// What is too large about an entry of `kcal` and `grams` ("6,200 kcal", "7.5 kg"), or nil
    /// when it is an ordinary size. Either value may be unknown.
    public static func excess(kcal: Double?, grams: Double?) -> String? {
        var parts: [String] = []
        if let kcal, kcal > maxKcal { parts.append("\(kcal.rounded().formattedAmount) kcal") }
        if let grams, grams > maxGrams { parts.append("\((grams / 1000).rounded(places: 2).formattedAmount) kg") }
        return parts.isEmpty ? nil : parts.joined(separator: " and ")
    }

    /// The approval card's warning line for an unusually large entry, or nil.
    public static func warning(kcal: Double?, grams: Double?) -> String? {
        excess(kcal: kcal, grams: grams).map { "Warning: this entry is \($0), more than one entry usually is; check the amount before approving." }
    }
}
