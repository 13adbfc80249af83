// The amount model for USDA reference foods: mass exact, volume by USDA's own measure first (then a
// state-keeping density), counts as USDA lists them, and a unit never matched to a measure of another kind.
import Foundation
import Nutrition
import ReferenceFoods

/// How much of a reference food an amount is: its weight, the serving it is recorded as and a label.
public struct ReferenceAmount: Sendable, Hashable {
    public var grams: Double
    public var serving: ServingSize
    /// "2 large (100 g)", "8 fl oz (245.7 g)", "150 g"; with `note` when there is one.
    public var label: String
    /// Which USDA measure the weight comes from, when the food's measures disagree or the
    /// measure has words of its own (`USDA's "cup, fluid (yields 2 cups whipped)" = 238 g`).
    public var note: String?

    public init(grams: Double, serving: ServingSize, label: String, note: String? = nil) {
        self.grams = grams; self.serving = serving; self.label = label; self.note = note
    }
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

    /// A volume measure of a food: its unit, its volume, the words after the unit (before any
    /// parenthesis: "fluid" of "cup, fluid (yields 2 cups whipped)") and whether it keeps the
    /// food's state. A count that states its volume ("can 8.4 fl oz") is one too, with no unit.
    struct VolumeRow {
        var portion: ReferencePortion
        var unit: ServingUnit.VolumeUnit?
        var milliliters: Double
        var words: [String]
        var keepsState: Bool
        var gramsPerMilliliter: Double { portion.gramWeight / milliliters }
        var isPlain: Bool { words.isEmpty }
    }

    /// Words after a unit that do not change what is in the measure: "cup, fluid", "cup (8 fl oz)".
    static let stateKeepingWords: Set<String> = ["fluid", "liquid", "fl", "oz", "nfs", "us", "level"]
    static let fillerWords: Set<String> = ["of", "a", "an", "the", "and", "or", "with", "x"]

    /// Lowercased letter words of `text` ("cup strips or slices" → cup, strips, or, slices).
    static func letterWords(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init)
    }

    /// The forms a word may take ("sliced", "slices" → "slice"), so a typed descriptor matches
    /// USDA's wording of it.
    static func stems(_ word: String) -> Set<String> {
        var out: Set<String> = [word]
        if word.hasSuffix("ies") { out.insert(String(word.dropLast(3)) + "y") }
        if word.hasSuffix("es") { out.insert(String(word.dropLast(2))) }
        if word.hasSuffix("ed") { out.insert(String(word.dropLast(2))); out.insert(String(word.dropLast(1))) }
        if word.hasSuffix("s") || word.hasSuffix("d") { out.insert(String(word.dropLast())) }
        return out
    }

    static func sameWord(_ a: String, _ b: String) -> Bool { !stems(a).isDisjoint(with: stems(b)) }

    /// Typed words after a unit that say what the food is in: not filler, not a unit ("cup
    /// (240 ml)"), not a word of the food's own name ("1 cup rice", "1 cup cooked" of cooked rice).
    static func descriptorWords(_ text: String, of food: ReferenceFood) -> [String] {
        let own = foodWords(food)
        return letterWords(text).filter { w in
            !fillerWords.contains(w) && !stateKeepingWords.contains(w) && !own.contains(w) && ServingUnit.leadingMeasure(w) == nil
                && w != "wt" && w != "weight"
        }
    }

    /// Words of the food's own name: a measure word the name already has keeps its state
    /// ("cup, whipped" of a whipped topping), and a typed word the name has names the food.
    static func foodWords(_ food: ReferenceFood) -> Set<String> {
        Set(letterWords(food.description + " " + (food.commonName ?? "")))
    }

    /// Every volume measure of the food, in USDA order.
    static func volumeRows(of food: ReferenceFood) -> [VolumeRow] {
        let own = foodWords(food)
        var rows: [VolumeRow] = []
        for p in food.portions where p.amount > 0 && p.gramWeight > 0 {
            let main = String(p.measure.prefix { $0 != "(" })
            switch kind(p) {
            case .volume(let u):
                let rest = ServingUnit.leadingMeasure(main)?.rest ?? ""
                let words = letterWords(rest).filter { !fillerWords.contains($0) }
                let keeps = words.allSatisfy { stateKeepingWords.contains($0) || own.contains($0) }
                rows.append(VolumeRow(portion: p, unit: u, milliliters: p.amount * u.milliliters,
                                      words: words.filter { !stateKeepingWords.contains($0) }, keepsState: keeps))
            case .count:
                guard let stated = statedVolume(p.measure), stated > 0 else { continue }
                rows.append(VolumeRow(portion: p, unit: nil, milliliters: p.amount * stated, words: [], keepsState: true))
            case .mass:
                continue
            }
        }
        return rows.filter { $0.milliliters > 0 && $0.gramsPerMilliliter.isFinite && $0.gramsPerMilliliter > 0 }
    }

    /// The rows a density may come from: volume measures that keep the food's state ("cup,
    /// fluid" yes, "cup, whipped" or "cup, packed" no), else containers that state their volume.
    static func densityRows(_ rows: [VolumeRow]) -> [VolumeRow] {
        let measures = rows.filter { $0.unit != nil && $0.keepsState }
        return measures.isEmpty ? rows.filter { $0.unit == nil } : measures
    }

    /// The food's one density (for a Food Bank copy and a serving's mL) from a measure that
    /// keeps its state, preferring cup, then tbsp, tsp, fl oz, other volumes, then a container
    /// that states its volume ("can 8.4 fl oz"); within a tier a plain measure first, then
    /// USDA's order. Nil when no such measure exists.
    public static func density(of food: ReferenceFood) -> ReferenceDensity? {
        let tiers: [ServingUnit.VolumeUnit] = [.cup, .tbsp, .tsp, .flOz]
        let best = densityRows(volumeRows(of: food)).min { a, b in
            func rank(_ r: VolumeRow) -> (Int, Int, Int) {
                let tier = r.unit.map { tiers.firstIndex(of: $0) ?? tiers.count } ?? tiers.count + 1
                return (tier, r.isPlain ? 0 : 1, r.portion.sequence)
            }
            return rank(a) < rank(b)
        }
        return best.map { ReferenceDensity(gramsPerMilliliter: $0.gramsPerMilliliter, source: $0.portion) }
    }

    /// The state-keeping measure closest in volume to `milliliters`: "15 ml" of sour cream is
    /// weighed by its tbsp, "250 ml" by its cup, so a volume agrees with the food's own rows.
    static func nearestDensityRow(_ rows: [VolumeRow], milliliters: Double) -> VolumeRow? {
        densityRows(rows).min { a, b in
            let da = abs(log(a.milliliters / milliliters)), db = abs(log(b.milliliters / milliliters))
            if abs(da - db) > 1e-9 { return da < db }
            return (a.isPlain ? 0 : 1, a.portion.sequence) < (b.isPlain ? 0 : 1, b.portion.sequence)
        }
    }

    /// Whether the food's volume measures disagree by more than 10% with `row` (then the card
    /// names the row a weight comes from).
    static func disagree(_ rows: [VolumeRow], with row: VolumeRow) -> Bool {
        rows.contains { abs($0.gramsPerMilliliter / row.gramsPerMilliliter - 1) > 0.10 }
    }

    /// `USDA's "cup, fluid (yields 2 cups whipped)" = 238 g`.
    static func rowNote(_ row: VolumeRow) -> String {
        "USDA's \"\(String(row.portion.label.prefix(60)))\" = \(row.portion.gramWeight.formattedAmount) g"
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
        let typed: AmountText
        do { typed = try AmountText.read(trimmed) } catch {
            throw JournalError.invalid(field: "portion", reason: "\(error); nothing logged")
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
            // Words after a weight are never dropped: "100 g cooked" of a raw food is not 100 g of it.
            let extra = descriptorWords(typed.descriptor, of: food)
            if !extra.isEmpty {
                throw JournalError.invalid(field: "portion", reason: "\"\(extra.joined(separator: " ").prefix(30))\" after \"\(quantity.formattedAmount) \(u.rawValue)\" is not part of this food (\(String(food.description.prefix(50)))); nothing logged: give the weight alone, e.g. \"\(quantity.formattedAmount) \(u.rawValue)\", or log the \(extra.joined(separator: " ").prefix(30)) food itself")
            }
            // Exact whatever USDA lists: its own "oz" rows are sometimes wrong.
            return mass(quantity, u)
        case .volume(let u)?:
            return try volume(quantity, u, descriptor: typed.descriptor, typed: typed.unitText, of: food)
        default:
            guard !typed.unitText.isEmpty else {
                throw JournalError.invalid(field: "portion", reason: "needs a unit or measure after the number, e.g. \"2 large\", \"1 cup\" or \"150 g\"; this food lists: \(listed(food))")
            }
            guard let match = food.portion(matching: typed.unitText, among: { kind($0) == .count }) else {
                // "a glass", "a bowl": the food's own row above, else the household table.
                let words = typed.unitText.lowercased().split(whereSeparator: { !$0.isLetter })
                if let first = words.first {
                    let named = HouseholdMeasures.measures(named: String(first))
                    if let measure = named.first(where: { applies($0, to: food) }) ?? named.last {
                        return try household(measure, quantity, rest: words.dropFirst().joined(separator: " "), of: food)
                    }
                }
                throw JournalError.invalid(field: "portion", reason: "\"\(typed.unitText.prefix(40))\" is not a measure of this food; give grams or one of: \(listed(food))")
            }
            return try portionAmount(match.portion, quantity: quantity * match.quantity, food: food)
        }
    }

    /// `quantity` of a volume unit, USDA's measure first:
    /// - words after the unit ("cooked", "sliced", "packed") choose the measure that has them
    ///   (in any volume unit, scaled by volume) or are refused with the measures there are;
    /// - a plain unit the food lists ("1 tbsp", "1 cup") scales that measure, one that keeps the
    ///   food's state first ("cup, fluid" before "cup, whipped"), else the first in USDA's order;
    /// - any other volume (mL, L, a unit the food does not list) goes through the density of the
    ///   state-keeping measure closest in size; with none, it is refused with the measures there are.
    /// A measure with words of its own, or one the food's other measures disagree with by more
    /// than 10%, is named in the amount's `note`.
    static func volume(_ quantity: Double, _ u: ServingUnit.VolumeUnit, descriptor: String, typed: String,
                       of food: ReferenceFood) throws -> ReferenceAmount {
        let rows = volumeRows(of: food)
        let wanted = descriptorWords(descriptor, of: food)
        let shown = "\(quantity.formattedAmount) \(typed.prefix(40))"
        let measures = rows.filter { $0.unit != nil }.prefix(6).map { "\($0.portion.label) (\($0.portion.gramWeight.formattedAmount) g)" }.joined(separator: ", ")
        func scaled(_ row: VolumeRow, named: Bool) -> ReferenceAmount {
            let grams = row.unit == u ? quantity / row.portion.amount * row.portion.gramWeight
                : quantity * u.milliliters / row.milliliters * row.portion.gramWeight
            if row.unit == u && !row.isPlain {
                // "1 cup strips or slices (122 g)": the measure itself names the row.
                return ReferenceAmount(grams: grams, serving: JournalStore.referenceServing(row.portion, quantity: quantity, grams: grams),
                                       label: "\(quantity.formattedAmount) \(String(row.portion.measure.prefix(60))) (\(grams.formattedAmount) g)")
            }
            let note = named ? rowNote(row) : nil
            let label = "\(quantity.formattedAmount) \(u.rawValue) (\(grams.formattedAmount) g)" + (note.map { ", \($0)" } ?? "")
            return ReferenceAmount(grams: grams, serving: ServingSize(quantity: quantity, unit: .volume(u), grams: grams), label: label, note: note)
        }
        let name = String(food.description.prefix(60))
        let lists = measures.isEmpty ? "lists no volume measure" : "lists \(measures)"
        if !wanted.isEmpty {
            // Every typed word in the measure's own words; the typed unit first, then the fewest
            // other words, then USDA's order.
            let matching = rows.filter { r in r.unit != nil && wanted.allSatisfy { w in r.words.contains { sameWord($0, w) } } }
            guard let row = matching.min(by: { a, b in
                (a.unit == u ? 0 : 1, a.words.count, a.portion.sequence) < (b.unit == u ? 0 : 1, b.words.count, b.portion.sequence)
            }) else {
                let words = String(wanted.joined(separator: " ").prefix(30))
                throw JournalError.invalid(field: "portion", reason: "\"\(shown)\": \"\(words)\" matches no USDA measure of \(name), which \(lists); nothing logged: type one of those or a weight (g, oz), or log the \(words) food itself")
            }
            return scaled(row, named: true)
        }
        let sameUnit = rows.filter { $0.unit == u }
        // Named when the rows it could have been (same unit, or any that keeps the state) disagree.
        let comparable = sameUnit + densityRows(rows)
        if let row = sameUnit.filter(\.keepsState).min(by: { ($0.isPlain ? 0 : 1, $0.portion.sequence) < ($1.isPlain ? 0 : 1, $1.portion.sequence) }) {
            return scaled(row, named: disagree(comparable, with: row))
        }
        let ml = quantity * u.milliliters
        if let row = nearestDensityRow(rows, milliliters: ml) {
            return scaled(row, named: disagree(comparable, with: row))
        }
        if let row = sameUnit.first {
            // Only measures that change the food's state ("cup, chopped"): USDA's first, named.
            return scaled(row, named: true)
        }
        if rows.isEmpty {
            throw JournalError.invalid(field: "portion", reason: "\"\(shown)\" is a volume and USDA gives this food no cup, tbsp, tsp or fl oz measure; give its weight (g, oz) or one of: \(listed(food))")
        }
        throw JournalError.invalid(field: "portion", reason: "\"\(shown)\" is a volume, and \(name) has no plain volume measure to weigh it by (it \(lists)); nothing logged: type one of those or a weight (g, oz)")
    }

    /// Whether the food is a drink: USDA files it under Beverages or measures it in fl oz.
    static func isDrink(_ food: ReferenceFood) -> Bool {
        food.group == "Beverages" || food.portions.contains { $0.measure.lowercased().contains("fl oz") }
    }

    /// Whether a household measure is meant for this food (the table's most specific row first).
    static func applies(_ m: HouseholdMeasure, to food: ReferenceFood) -> Bool {
        switch m.appliesTo {
        case .wine: return isDrink(food) && food.description.lowercased().hasPrefix("alcoholic beverage") && foodWords(food).contains("wine")
        case .drink: return isDrink(food)
        case .cup: return volumeRows(of: food).contains { $0.unit == .cup }
        }
    }

    /// `quantity` household measures ("a glass" = 240 mL) weighed like that volume, with the
    /// table's source on the card; refused when the food's state does not allow it (a glass of rice).
    static func household(_ m: HouseholdMeasure, _ quantity: Double, rest: String, of food: ReferenceFood) throws -> ReferenceAmount {
        let shown = "\(quantity.formattedAmount) \(m.word)"
        let ml = quantity * m.milliliters
        let volumeAmount: ReferenceAmount
        switch m.appliesTo {
        case .drink, .wine:
            guard applies(m, to: food) else {
                throw JournalError.invalid(field: "portion", reason: "\"\(shown)\" is a drink measure (\(m.milliliters.formattedAmount) mL) and \(String(food.description.prefix(60))) is not a drink; nothing logged: type e.g. \"1 cup\" or a weight (g, oz)")
            }
            volumeAmount = try volume(ml, .ml, descriptor: rest, typed: "ml", of: food)
        case .cup:
            guard applies(m, to: food) else {
                throw JournalError.invalid(field: "portion", reason: "\"\(shown)\" is a cup (\(m.milliliters.formattedAmount) mL) and USDA measures \(String(food.description.prefix(60))) by no cup; nothing logged: give one of \(listed(food, weights: true))")
            }
            volumeAmount = try volume(ml / ServingUnit.VolumeUnit.cup.milliliters, .cup, descriptor: rest, typed: "cup", of: food)
        }
        let grams = volumeAmount.grams
        let note = "household measure: a \(m.word) = \(m.milliliters.rounded(places: 1).formattedAmount) mL (\(m.source))"
        return ReferenceAmount(grams: grams, serving: ServingSize(quantity: quantity, unit: .count(m.word), grams: grams, milliliters: ml.rounded(places: 6)),
                               label: "\(shown) (\(grams.formattedAmount) g), \(note)", note: note)
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
    /// With `weights`, each measure says what it weighs ("1 cup chopped (128 g)").
    public static func listed(_ food: ReferenceFood, weights: Bool = false) -> String {
        var names: [String] = []
        for p in food.portions {
            switch kind(p) {
            case .mass: continue
            case .volume, .count: names.append(weights ? "\(p.label) (\(p.gramWeight.formattedAmount) g)" : p.label)
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
