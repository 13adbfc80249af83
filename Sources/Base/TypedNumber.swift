// The one rule for a number a person types in an amount: decimal point or decimal comma, a
// thousands comma, fractions; every amount parser (CLI, tools, offline assistant, import) uses it.

/// Reads "2", "1.5", "1,5", "12,500,000", "1/2", "1 1/2" (as two tokens), "½", "1½".
///
/// The decimal-comma rule, unambiguous by construction:
/// - "." is always a decimal point, and a number has at most one ("1.000.5" is refused).
/// - Commas are thousands separators when the number has no ".", two or more commas, the part
///   before the first is 1 to 3 digits not starting with 0, and every part after a comma is
///   exactly 3 digits: "12,500,000" = 12500000.
/// - One "," followed by exactly 3 digits after 1 to 3 digits not starting with 0 ("1,000",
///   "2,500") reads as a thousand in one country and as a decimal in another: refused, with
///   both readings named, never guessed.
/// - Otherwise one "," is a decimal comma: "1,5" = 1.5, "0,250" = 0.25, "1,50" = 1.5.
/// - Refused, never guessed: a point and a comma together ("1.5,5", "1,000.5"), two decimal
///   commas ("1,5,5", "1,00,000"), a separator with no digit after it ("5,", "5."), a fraction
///   with a zero denominator ("1/0").
public enum TypedNumber {
    /// Why a token that looks like a number is not one; `description` is a phrase such as
    /// `"1.5,5" has two decimal separators`, `hint` what to type instead.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        case twoSeparators(String)
        /// One comma before exactly three digits ("1,000"): a thousand or a decimal.
        case ambiguousComma(String)
        case zeroDenominator(String)
        case malformed(String)

        public var description: String {
            switch self {
            case .twoSeparators(let t), .ambiguousComma(let t), .zeroDenominator(let t), .malformed(let t): return "\"\(t)\" \(reason)"
            }
        }

        /// What is wrong, without the typed text: "has two decimal separators".
        public var reason: String {
            switch self {
            case .twoSeparators: return "has two decimal separators"
            case .ambiguousComma: return "could be a thousand or a decimal"
            case .zeroDenominator: return "divides by zero"
            case .malformed: return "is not a number"
            }
        }

        /// What to type instead, e.g. `type one decimal separator: 1.5 or 1,5`.
        public var hint: String {
            switch self {
            case .twoSeparators: return "type one decimal separator, e.g. 1.5 or 1,5"
            case .ambiguousComma(let t):
                let digits = t.filter { $0 != "," }
                let decimal = String(t.map { $0 == "," ? "." : $0 })
                return "type \(digits) (no comma) for the whole number, or \(decimal) for the decimal"
            case .zeroDenominator: return "type a fraction such as 1/2, or a decimal such as 0.5"
            case .malformed: return "type a number such as 2, 1.5, 1,5 or 1/2"
            }
        }
    }

    public static let unicodeFractions: [Character: Double] = [
        "½": 0.5, "¼": 0.25, "¾": 0.75, "⅓": 1.0 / 3, "⅔": 2.0 / 3, "⅛": 0.125, "⅜": 0.375, "⅝": 0.625, "⅞": 0.875,
    ]

    /// Whether `c` can be part of a typed number (a digit, a separator, a slash or a fraction glyph).
    public static func isNumberCharacter(_ c: Character) -> Bool {
        ("0"..."9").contains(c) || c == "." || c == "," || c == "/" || unicodeFractions[c] != nil
    }

    /// The value of `token`; nil when it is not a number at all (it has a letter, a sign or
    /// another character), a `Problem` when it looks like one but breaks the rule above.
    public static func read<S: StringProtocol>(_ token: S) -> Result<Double, Problem>? {
        let t = String(token)
        guard !t.isEmpty, t.count <= 40, t.allSatisfy(isNumberCharacter), t.contains(where: { ("0"..."9").contains($0) || unicodeFractions[$0] != nil }) else {
            return nil
        }
        if let last = t.last, let fraction = unicodeFractions[last] {
            let whole = t.dropLast()
            if whole.isEmpty { return .success(fraction) }
            guard !whole.contains(where: { unicodeFractions[$0] != nil || $0 == "/" }) else { return .failure(.malformed(t)) }
            return decimal(whole, token: t).map { $0 + fraction }
        }
        guard !t.contains(where: { unicodeFractions[$0] != nil }) else { return .failure(.malformed(t)) }
        let parts = t.split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            return decimal(parts[0], token: t)
        case 2:
            guard case .success(let top) = decimal(parts[0], token: t) else { return decimal(parts[0], token: t) }
            switch decimal(parts[1], token: t) {
            case .success(let bottom): return bottom == 0 ? .failure(.zeroDenominator(t)) : .success(top / bottom)
            case .failure(let p): return .failure(p)
            }
        default:
            return .failure(.malformed(t))
        }
    }

    /// The value of `token`, or nil for anything the rule refuses or that is not a number.
    public static func value<S: StringProtocol>(_ token: S) -> Double? {
        if case .success(let v)? = read(token) { return v }
        return nil
    }

    /// Digits with at most one decimal separator or thousands commas (the rule above).
    static func decimal(_ s: Substring, token: String) -> Result<Double, Problem> {
        guard !s.isEmpty else { return .failure(.malformed(token)) }
        let dots = s.filter { $0 == "." }.count, commas = s.filter { $0 == "," }.count
        if dots > 0 && commas > 0 || dots > 1 { return .failure(.twoSeparators(token)) }
        var plain = String(s)
        if commas > 0 {
            let groups = s.split(separator: ",", omittingEmptySubsequences: false)
            let thousands = (1...3).contains(groups[0].count) && groups[0].first != "0"
                && groups.dropFirst().allSatisfy { $0.count == 3 }
            if thousands && commas == 1 {
                return .failure(.ambiguousComma(token))
            } else if thousands {
                plain = groups.joined()
            } else if commas == 1 {
                plain = groups.joined(separator: ".")
            } else {
                return .failure(.twoSeparators(token))
            }
        }
        // "5." and "5," leave the fraction out: a slip, not a number.
        if plain.hasSuffix(".") { return .failure(.malformed(token)) }
        guard let v = Double(plain.hasPrefix(".") ? "0" + plain : plain), v.isFinite else { return .failure(.malformed(token)) }
        return .success(v)
    }
}
