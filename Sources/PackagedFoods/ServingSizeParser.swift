// OFF `serving_size` text ("30 g", "1 bar (40 g)", "250 ml", "60.8 g (1 tranche)") as a named portion.
import Foundation
import Nutrition

public enum ServingSizeParser {
    /// The portion a serving text describes, or nil when it names no amount ("250.0" with no
    /// unit, "", "une portion"). A count with a weight in brackets becomes that count ("1 bar"
    /// weighing 40 g); a weight with a count in brackets likewise ("1 tranche", 60.8 g).
    public static func parse(_ text: String) -> ServingSize? {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !t.isEmpty, t.count <= 120 else { return nil }
        var parts: [String] = []
        // "1 bar (40 g)", "60.8 g (1 tranche)", "1 portion = 30 g", "30 g / 2 biscuits".
        var current = ""
        for ch in t {
            if ch == "(" || ch == ")" || ch == "=" || ch == "/" && !(current.last?.isNumber ?? false) {
                if !current.trimmingCharacters(in: .whitespaces).isEmpty { parts.append(current) }
                current = ""
            } else {
                current.append(ch)
            }
        }
        if !current.trimmingCharacters(in: .whitespaces).isEmpty { parts.append(current) }
        let amounts = parts.prefix(3).compactMap(amount)
        let measure = amounts.first { $0.unit.isMass || $0.unit.isVolume }
        let count = amounts.first { if case .count = $0.unit { return true } else { return false } }
        switch (count, measure) {
        case let (c?, m?):
            return ServingSize(quantity: c.quantity, unit: c.unit,
                               grams: m.unit.isMass ? m.grams : nil, milliliters: m.unit.isVolume ? m.milliliters : nil)
        case let (nil, m?):
            return m
        case let (c?, nil):
            return c
        default:
            return nil
        }
    }

    /// "40 g", "33 cl", "1 tranche", "2 biscuits", "250ml".
    static func amount(_ part: String) -> ServingSize? {
        let s = part.trimmingCharacters(in: .whitespaces)
        let numberText = s.prefix { $0.isNumber || $0 == "." || $0 == "," || $0 == "½" || $0 == "¼" || $0 == "¾" }
        guard !numberText.isEmpty, let q = LabelNumber.number(String(numberText)), q.isFinite, q > 0, q < 100_000 else { return nil }
        let word = s.dropFirst(numberText.count).trimmingCharacters(in: .whitespaces).lowercased()
        guard !word.isEmpty, word.count <= 40 else { return nil }
        switch word {
        case "cl": return ServingSize(quantity: q * 10, unit: .volume(.ml))
        case "dl": return ServingSize(quantity: q * 100, unit: .volume(.ml))
        case "mg": return ServingSize(quantity: q / 1000, unit: .mass(.g))
        // FDC household units are UN/CEFACT codes: ONZ ounce, MLT millilitre, GRM gram.
        case "onz": return ServingSize(quantity: q, unit: .mass(.oz))
        case "mlt": return ServingSize(quantity: q, unit: .volume(.ml))
        case "grm": return ServingSize(quantity: q, unit: .mass(.g))
        default: break
        }
        if let unit = try? ServingUnit.parse(word), unit.isMass || unit.isVolume {
            return ServingSize(quantity: q, unit: unit)
        }
        // Any other word is this product's own count ("tranche", "biscuits", "bar").
        guard word.allSatisfy({ $0.isLetter || $0 == " " || $0 == "-" || $0 == "'" }) else { return nil }
        let unit = (try? ServingUnit.parse(word)) ?? (try? ServingUnit.parse(word, extraCounts: [word])) ?? .count(word)
        if case .count = unit { return ServingSize(quantity: q, unit: unit) }
        return nil
    }
}
