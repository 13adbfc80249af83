// The amount model for USDA reference foods: mass exact, volume through the food's own density,
// counts as USDA lists them, and a unit never matched to a measure of another kind.
import Foundation
import Nutrition
import ReferenceFoods

/// How much of a reference food an amount is: its weight, the serving it is recorded as and a label.
public struct ReferenceAmount: Sendable, Hashable {
    public var grams: Double
    public var serving: ServingSize
    /// "2 large (100 g)", "8 fl oz (245.7 g)", "150 g".
    public var label: String
}

/// What kind of measure a USDA portion is, read from the words it starts with.
public enum ReferenceMeasureKind: Sendable, Hashable {
    case mass(ServingUnit.MassUnit)
    case volume(ServingUnit.VolumeUnit)
    /// A count: "large", "slice", "can 8.4 fl oz", "serving".
    case count
}

/// A food's grams per millilitre and the USDA measure it comes from.
public struct ReferenceDensity: Sendable, Hashable {
    public var gramsPerMilliliter: Double
    public var source: ReferencePortion
}

public enum ReferenceAmounts {
    /// The kind of a USDA measure: "cup, chopped" is a volume, "oz" a mass, "can 8.4 fl oz" a count.
    public static func kind(_ portion: ReferencePortion) -> ReferenceMeasureKind {
        switch ServingUnit.leadingMeasure(portion.measure)?.unit {
        case .mass(let u)?: return .mass(u)
        case .volume(let u)?: return .volume(u)
        default: return .count
        }
    }

    /// Density from the food's own volume measures, preferring cup, then tbsp, tsp, fl oz, other
    /// volumes, and last a count measure that states its volume ("can 8.4 fl oz"). Within a tier a
    /// plain measure ("cup") beats a described one ("cup, chopped"), then USDA's order.
    public static func density(of food: ReferenceFood) -> ReferenceDensity? {
        let tiers: [ServingUnit.VolumeUnit] = [.cup, .tbsp, .tsp, .flOz]
        var best: (rank: (Int, Int, Int), density: ReferenceDensity)?
        for p in food.portions where p.amount > 0 && p.gramWeight > 0 {
            var ml: Double?
            var tier = 0
            var plain = 1
            switch kind(p) {
            case .volume(let u):
                ml = p.amount * u.milliliters
                tier = tiers.firstIndex(of: u) ?? tiers.count
                if ServingUnit.leadingMeasure(p.measure)?.rest.isEmpty == true { plain = 0 }
            case .count:
                guard let stated = statedVolume(p.measure) else { continue }
                ml = p.amount * stated
                tier = tiers.count + 1
            case .mass:
                continue
            }
            guard let ml, ml > 0 else { continue }
            let d = p.gramWeight / ml
            guard d.isFinite, d > 0 else { continue }
            let rank = (tier, plain, p.sequence)
            if let b = best, b.rank <= rank { continue }
            best = (rank, ReferenceDensity(gramsPerMilliliter: d, source: p))
        }
        return best?.density
    }

    /// The volume a count measure states in its text ("can 8.4 fl oz", "bottle (12 fl oz)",
    /// "serving 1/2 cup"), in mL.
    static func statedVolume(_ measure: String) -> Double? {
        let words = measure.lowercased().split(whereSeparator: { $0 == " " || $0 == "(" || $0 == ")" || $0 == "," })
        for (i, w) in words.enumerated() where i + 1 < words.count {
            guard let n = AmountText.number(w), n.isFinite, n > 0 else { continue }
            if let lead = ServingUnit.leadingMeasure(words[(i + 1)...].prefix(3).joined(separator: " ")),
               case .volume(let u) = lead.unit {
                return n * u.milliliters
            }
        }
        return nil
    }

    /// Resolves typed text ("2 large", "8 fl oz", "200 ml", "1/2 cup", "3 oz") times `times`.
    /// Throws `JournalError.invalid(field: "portion", …)` with a line saying what to type instead.
    public static func resolve(_ text: String, of food: ReferenceFood, times: Double = 1) throws -> ReferenceAmount {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        // A measure given exactly as USDA lists it ("medium (7\" to 7-7/8\" long)", "cup, sliced").
        // A label ("2 slices" of amount 2) counts its own amount; a bare measure counts one.
        let key = trimmed.lowercased()
        let byMeasure = food.portions.first { $0.measure.lowercased() == key }
        if let exact = byMeasure ?? food.portions.first(where: { $0.label.lowercased() == key }) {
            let count = (byMeasure == nil ? exact.amount : 1) * times
            switch kind(exact) {
            case .count: return withVolume(try portionAmount(exact, quantity: count, food: food), food)
            // "cup, sliced" is that measure; a plain "cup" or "tbsp" goes through the density
            // like any volume, so every volume unit agrees.
            case .volume where ServingUnit.leadingMeasure(exact.measure)?.rest.isEmpty == false:
                return withVolume(try portionAmount(exact, quantity: count, food: food), food)
            case .mass, .volume: break
            }
        }
        guard let typed = AmountText.parse(trimmed) else {
            throw JournalError.invalid(field: "portion", reason: "\"\(trimmed.prefix(40))\" needs a quantity above zero, e.g. \"2 large\", \"1 cup\" or \"150 g\"")
        }
        return try resolve(typed, of: food, times: times)
    }

    /// `grams` of a food, recorded in grams.
    public static func weight(_ grams: Double, of food: ReferenceFood) -> ReferenceAmount {
        mass(grams, .g)
    }

    /// A count or volume serving also says its volume when the food has a density, so a Food Bank
    /// food saved from it converts volumes the same way ("1 can 8.4 fl oz" then knows its mL).
    static func withVolume(_ amount: ReferenceAmount, _ food: ReferenceFood) -> ReferenceAmount {
        guard amount.serving.milliliters == nil, !amount.serving.unit.isMass, let d = density(of: food) else { return amount }
        var a = amount
        a.serving.milliliters = (amount.grams / d.gramsPerMilliliter).rounded(places: 6)
        return a
    }

    /// Resolves a parsed amount times `times`.
    public static func resolve(_ typed: AmountText, of food: ReferenceFood, times: Double = 1) throws -> ReferenceAmount {
        withVolume(try resolveOnly(typed, of: food, times: times), food)
    }

    static func resolveOnly(_ typed: AmountText, of food: ReferenceFood, times: Double) throws -> ReferenceAmount {
        let quantity = typed.quantity * times
        guard quantity.isFinite, quantity > 0 else {
            throw JournalError.invalid(field: "portion", reason: "needs a quantity above zero")
        }
        switch typed.measure {
        case .mass(let u)?:
            // Exact whatever USDA lists: its own "oz" rows are sometimes wrong.
            return mass(quantity, u)
        case .volume(let u)?:
            if !typed.descriptor.isEmpty,
               let match = food.portion(matching: typed.descriptor + " " + u.rawValue, among: { kind($0) == .volume(u) }) {
                return try portionAmount(match.portion, quantity: quantity, food: food)
            }
            guard let density = density(of: food) else {
                throw JournalError.invalid(field: "portion", reason: "\"\(typed.unitText.prefix(40))\" is a volume and USDA gives this food no cup, tbsp, tsp or fl oz measure; give its weight (g, oz) or one of: \(listed(food))")
            }
            // Same unit as the measure the density comes from: scale its weight directly, so
            // "1 cup" is USDA's cup weight to the last digit.
            let grams: Double
            if case .volume(let su) = kind(density.source), su == u {
                grams = quantity / density.source.amount * density.source.gramWeight
            } else {
                grams = quantity * u.milliliters * density.gramsPerMilliliter
            }
            return ReferenceAmount(grams: grams, serving: ServingSize(quantity: quantity, unit: .volume(u), grams: grams),
                                   label: "\(quantity.formattedAmount) \(u.rawValue) (\(grams.formattedAmount) g)")
        default:
            guard !typed.unitText.isEmpty else {
                throw JournalError.invalid(field: "portion", reason: "needs a unit or measure after the number, e.g. \"2 large\", \"1 cup\" or \"150 g\"; this food lists: \(listed(food))")
            }
            guard let match = food.portion(matching: typed.unitText, among: { kind($0) == .count }) else {
                throw JournalError.invalid(field: "portion", reason: "\"\(typed.unitText.prefix(40))\" is not a measure of this food; give grams or one of: \(listed(food))")
            }
            return try portionAmount(match.portion, quantity: quantity * match.quantity, food: food)
        }
    }

    /// `grams` of the food, recorded in grams.
    public static func mass(_ quantity: Double, _ unit: ServingUnit.MassUnit) -> ReferenceAmount {
        let grams = quantity * unit.grams
        let label = unit == .g ? "\(quantity.formattedAmount) g" : "\(quantity.formattedAmount) \(unit.rawValue) (\(grams.formattedAmount) g)"
        return ReferenceAmount(grams: grams, serving: ServingSize(quantity: quantity, unit: .mass(unit)), label: label)
    }

    /// `quantity` of one USDA measure (count or volume).
    static func portionAmount(_ p: ReferencePortion, quantity: Double, food: ReferenceFood) throws -> ReferenceAmount {
        guard let grams = p.grams(forQuantity: quantity), grams.isFinite, grams > 0 else {
            throw JournalError.invalid(field: "portion", reason: "gives no weight for this food; give grams instead")
        }
        let serving = JournalStore.referenceServing(p, quantity: quantity, grams: grams)
        return ReferenceAmount(grams: grams, serving: serving,
                               label: "\(quantity.formattedAmount) \(String(p.measure.prefix(60))) (\(grams.formattedAmount) g)")
    }

    /// The measures a person can type for this food, for error lines.
    public static func listed(_ food: ReferenceFood) -> String {
        var names: [String] = []
        for p in food.portions {
            switch kind(p) {
            case .mass: continue
            case .volume, .count: names.append(p.label)
            }
            if names.count == 6 { break }
        }
        var out = names.joined(separator: ", ")
        if density(of: food) != nil { out += names.isEmpty ? "mL, cup, tbsp" : "; or mL, cup, tbsp" }
        out += out.isEmpty ? "g, oz" : "; or g, oz"
        return out
    }

    /// The amount a tool uses when none is given: the food's first count or volume measure.
    public static func defaultPortion(of food: ReferenceFood) -> ReferencePortion? {
        food.portions.first { if case .mass = kind($0) { return false } else { return true } }
    }
}
