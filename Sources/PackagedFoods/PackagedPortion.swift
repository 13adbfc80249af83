// How much of a packaged food: "1 bar", 40 g, 2 servings, resolved against its label.
import Base
import Foundation
import Nutrition

/// An amount of a product resolved to what a journal entry records.
public struct PackagedPortion: Sendable, Hashable {
    /// The serving the entry records ("1 tranche (60.8 g)", "40 g").
    public var serving: ServingSize
    /// How many of `serving`.
    public var servings: Double
    /// Nutrients of one `serving`.
    public var nutrients: NutrientAmounts

    /// Nutrients of the whole amount.
    public var total: NutrientAmounts { nutrients.scaled(by: servings).rounded(places: 6) }
    public var label: String { servings == 1 ? serving.label : "\(servings.formattedAmount) × \(serving.label)" }

    /// Why an amount cannot be logged, as one line.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public let description: String
        init(_ d: String) { description = d }
    }

    /// Resolves one of `amount` ("1 bar", "2 servings", "40 g", "250 ml"), `grams`, or
    /// `servings` (default 1 serving of the label). Refuses a product without nutrition data:
    /// logging it would record zeros that are not on the label.
    public static func resolve(_ p: PackagedProduct, amount: String? = nil, grams: Double? = nil, servings: Double? = nil) throws -> PackagedPortion {
        guard p.hasNutrition else {
            throw Problem("\(p.source.displayName) has no nutrition data for \"\(p.name)\"; nothing logged (log it by hand with the label's values)")
        }
        let given = [amount != nil, grams != nil, servings != nil].filter { $0 }.count
        guard given <= 1 else { throw Problem("give one of an amount, grams or servings") }
        if let grams {
            return try byWeight(p, grams, unit: .mass(.g))
        }
        if let typed = amount {
            // The number a person types follows the one decimal rule (`TypedNumber`: "1,5 bar" is
            // 1.5, "1,000 g" a thousand, "1.5,5" refused); label text keeps `LabelNumber`'s.
            let t = typed.trimmingCharacters(in: .whitespaces)
            let lead = t.prefix(while: TypedNumber.isNumberCharacter)
            var amount = t
            switch TypedNumber.read(lead) {
            case .success(let v)?: amount = "\(v)" + t.dropFirst(lead.count)
            case .failure(let problem)?:
                throw Problem("read \"\(t.prefix(40))\" as a number and a unit, but \(problem); \(problem.hint); nothing logged")
            case nil: break
            }
            guard let parsed = ServingSizeParser.parse(amount) else {
                throw Problem("\"\(amount.prefix(40))\" is not an amount; use e.g. \"1 serving\", \"40 g\" or \"250 ml\"")
            }
            if parsed.unit.isMass || parsed.unit.isVolume {
                return try byWeight(p, parsed.quantity, unit: parsed.unit)
            }
            if case .count(let name) = parsed.unit, ["serving", "portion"].contains(name) {
                return try byServings(p, parsed.quantity)
            }
            guard let serving = p.serving, serving.unit.matches(parsed.unit) else {
                let known = p.serving.map { "\"\($0.quantity.formattedAmount) \($0.unit.symbol)\", " } ?? ""
                throw Problem("this product's label has no \"\(parsed.unit.symbol)\"; use \(known)\"1 serving\" or a weight such as \"40 g\"")
            }
            return try byServings(p, parsed.quantity / serving.quantity)
        }
        return try byServings(p, servings ?? 1)
    }

    static func byServings(_ p: PackagedProduct, _ n: Double) throws -> PackagedPortion {
        guard n.isFinite, n > 0, n <= 1000 else { throw Problem("the number of servings must be above 0 and at most 1000") }
        guard let serving = p.serving, !p.perServing.isEmpty else {
            throw Problem("the label of \"\(p.name)\" gives no serving size; give a weight instead (values are per 100 \(p.per100Unit == "ml" ? "mL" : "g"))")
        }
        return PackagedPortion(serving: serving, servings: n, nutrients: p.perServing)
    }

    static func byWeight(_ p: PackagedProduct, _ quantity: Double, unit: ServingUnit) throws -> PackagedPortion {
        guard quantity.isFinite, quantity > 0, quantity <= 100_000 else { throw Problem("the amount must be above 0") }
        guard !p.per100.isEmpty else {
            throw Problem("\(p.source.displayName) gives \"\(p.name)\" per serving only; log servings instead")
        }
        var serving = ServingSize(quantity: quantity, unit: unit)
        let perML = p.per100Unit == "ml"
        // Across mass and volume only through the label's own serving, when it gives both a
        // weight and a volume; never a density of 1 assumed.
        let density: Double? = {
            guard let g = p.serving?.grams, let ml = p.serving?.milliliters, g > 0, ml > 0 else { return nil }
            return g / ml
        }()
        if let d = density {
            if serving.grams == nil, let ml = serving.milliliters { serving.grams = (ml * d).rounded(places: 6) }
            if serving.milliliters == nil, let g = serving.grams { serving.milliliters = (g / d).rounded(places: 6) }
        }
        let base = perML ? serving.milliliters : serving.grams
        guard let amount = base else {
            let per = perML ? "mL" : "g"
            let typed = unit.isMass ? "a weight" : "a volume"
            throw Problem("the values of \"\(p.name)\" are per 100 \(per) and its label gives no density to turn \(typed) into \(perML ? "mL" : "grams"); nothing logged: give the amount in \(perML ? "mL (e.g. \"250 ml\")" : "grams (e.g. \"40 g\")") or servings")
        }
        return PackagedPortion(serving: serving, servings: 1, nutrients: p.nutrients(per100Amount: amount))
    }
}
