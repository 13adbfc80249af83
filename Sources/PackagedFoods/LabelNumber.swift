// Numbers as they appear in crowd-sourced label data: "1,5", "<0.5", "~3", "12 g", "½".
import Foundation

/// A label value and how exact it is.
public struct LabelNumber: Sendable, Hashable {
    public enum Qualifier: String, Sendable, Hashable, Codable {
        /// The label printed this number.
        case exact
        /// "<0.5": at most this much. ofj records the bound itself (0.5), so a day's total is
        /// never understated and never made up as zero, and shows it with "<".
        case atMost = "<"
        /// ">3", "~3", "≈3": about this much; the number is recorded as is.
        case approximate = "~"
    }

    public var value: Double
    public var qualifier: Qualifier

    /// Reads a JSON value from OFF: a number, or a string in the forms above. Returns nil for
    /// anything else ("", "traces", "n/a", "1.234,5", negative or absurd values): nil means
    /// "not reported", never zero.
    public static func parse(_ any: Any?) -> LabelNumber? {
        switch any {
        case let n as NSNumber:
            return checked(n.doubleValue, .exact)
        case let s as String:
            return parse(text: s)
        default:
            return nil
        }
    }

    /// Reads a label string (see `Qualifier` for what each prefix means).
    public static func parse(text: String) -> LabelNumber? {
        var s = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        guard !s.isEmpty, s.count <= 40 else { return nil }
        var qualifier = LabelNumber.Qualifier.exact
        if s.hasPrefix("<=") || s.hasPrefix("≤") || s.hasPrefix("<") {
            qualifier = .atMost
            s = s.drop { $0 == "<" || $0 == "=" || $0 == "≤" }
        } else if s.hasPrefix(">") || s.hasPrefix("≥") || s.hasPrefix("~") || s.hasPrefix("≈") {
            qualifier = .approximate
            s = s.drop { $0 == ">" || $0 == "=" || $0 == "≥" || $0 == "~" || $0 == "≈" }
        }
        s = s.drop { $0 == " " }
        // The number, then optionally a unit word ("12 g", "0,5g") which the key already says.
        let numberPart = s.prefix { $0.isNumber || $0 == "." || $0 == "," || $0 == "/" || $0 == "½" || $0 == "¼" || $0 == "¾" }
        let rest = s.dropFirst(numberPart.count).trimmingCharacters(in: .whitespaces)
        guard rest.isEmpty || (rest.count <= 6 && rest.allSatisfy({ $0.isLetter || $0 == "µ" || $0 == "%" })) else { return nil }
        guard let value = number(String(numberPart)) else { return nil }
        return checked(value, qualifier)
    }

    /// "1,5" and "1.5" are 1.5; one comma or one dot only ("1.234,5" is refused as ambiguous);
    /// "1/2", "½" are fractions.
    public static func number(_ raw: String) -> Double? {
        let fractions: [Character: Double] = ["½": 0.5, "¼": 0.25, "¾": 0.75]
        if raw.count == 1, let c = raw.first, let f = fractions[c] { return f }
        if let last = raw.last, let f = fractions[last], let whole = Double(raw.dropLast()) { return whole + f }
        if let slash = raw.firstIndex(of: "/") {
            guard let a = Double(raw[..<slash]), let b = Double(raw[raw.index(after: slash)...]), b > 0 else { return nil }
            return a / b
        }
        let separators = raw.filter { $0 == "," || $0 == "." }
        guard separators.count <= 1 else { return nil }
        guard raw.first?.isNumber == true || raw.first == "." || raw.first == "," else { return nil }
        return Double(raw.replacingOccurrences(of: ",", with: ".").filter { $0.isASCII })
    }

    static func checked(_ v: Double, _ q: Qualifier) -> LabelNumber? {
        // Negative, infinite or beyond any food (more than a kilogram of anything per 100 g,
        // or 100,000 kcal) is a data-entry error: not reported.
        guard v.isFinite, v >= 0, v < 1e6 else { return nil }
        return LabelNumber(value: v, qualifier: q)
    }
}
