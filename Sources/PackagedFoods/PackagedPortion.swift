// How much of a packaged food: "1 bar", 40 g, 2 servings, resolved against its label.
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
        if let amount {
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
        let serving = ServingSize(quantity: quantity, unit: unit)
        let base: Double?
        if p.per100Unit == "ml" {
            base = serving.milliliters ?? (serving.grams.flatMap { g in p.serving?.grams == nil && p.serving?.milliliters != nil ? nil : g })
        } else {
            base = serving.grams
        }
        guard let amount = base else {
            throw Problem("the values of \"\(p.name)\" are per 100 \(p.per100Unit == "ml" ? "mL" : "g"); give the amount in \(p.per100Unit == "ml" ? "mL" : "grams")")
        }
        return PackagedPortion(serving: serving, servings: 1, nutrients: p.nutrients(per100Amount: amount))
    }
}
