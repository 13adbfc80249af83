// The one parser for what a person types as an amount ("2 large", "1/2 cup", "8 fl oz", "200ml",
// "1½ tbsp"): a quantity and the words after it, with the mass or volume unit they start with.
import Base

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

    /// Why typed text is not an amount, as one line saying what was read and what to type.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// Parses "2 large", "1 1/2 cups", "½ cup", "1½ tbsp", "200ml", "8 fl oz", "a cup", "cup",
    /// "1,5 cups" (quantity 1 when no number leads). Nil when `read` throws.
    public static func parse(_ text: String) -> AmountText? {
        try? read(text)
    }

    /// Like `parse`, saying why not: a number the decimal rule refuses (`TypedNumber`: "1.5,5",
    /// "1/0"), a quantity that is zero, negative or not finite, or text longer than 200 characters.
    public static func read(_ text: String) throws -> AmountText {
        let shown = String(text.trimmingWhitespace().prefix(40))
        guard text.utf8.count <= 200 else { throw Problem("the amount is longer than 200 characters; type e.g. \"1 cup\" or \"150 g\"") }
        var rest = Substring(text.trimmingWhitespace())
        var total = 0.0
        var found = false
        func refused(_ p: TypedNumber.Problem) -> Problem {
            Problem("read \"\(shown)\" as a number and a unit, but \(p); \(p.hint)")
        }
        while let token = rest.split(separator: " ", maxSplits: 1).first {
            switch TypedNumber.read(token) {
            case .success(let value)?:
                total += value; found = true
                rest = rest.dropFirst(token.count).drop { $0 == " " }
                continue
            case .failure(let p)?:
                throw refused(p)
            case nil:
                break
            }
            // A number glued to its unit: "200ml", "1,5kg", "8oz".
            let digits = token.prefix(while: TypedNumber.isNumberCharacter)
            if !digits.isEmpty, digits.count < token.count, token[digits.endIndex].isLetter {
                switch TypedNumber.read(digits) {
                case .success(let value)?:
                    total += value; found = true
                    rest = rest.dropFirst(digits.count)
                case .failure(let p)?:
                    throw refused(p)
                case nil:
                    break
                }
            } else if !found, token.lowercased() == "a" || token.lowercased() == "an" {
                total = 1; found = true
                rest = rest.dropFirst(token.count).drop { $0 == " " }
            }
            break
        }
        let quantity = found ? total : 1
        guard quantity.isFinite, quantity > 0 else {
            throw Problem("\"\(shown)\" needs a quantity above zero, e.g. \"2 large\", \"1 cup\" or \"150 g\"")
        }
        return AmountText(quantity: quantity, unitText: String(rest))
    }

    static var unicodeFractions: [Character: Double] { TypedNumber.unicodeFractions }

    /// "2", "1.5", "1,5", "1,000", "1/2", "½", "1½" by the one decimal rule (`TypedNumber`); nil
    /// for anything else, including what the rule refuses ("1.5,5") and a zero denominator.
    public static func number<S: StringProtocol>(_ token: S) -> Double? {
        TypedNumber.value(token)
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
