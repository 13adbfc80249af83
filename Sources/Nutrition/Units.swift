// Serving units and conversion: mass and volume within their dimension, across only via density
// or a per-food mapping; count units ("egg", "slice") only via a per-food mapping or the serving.

/// A unit of a serving: mass, volume or a named count.
public enum ServingUnit: Sendable, Hashable, Codable, CustomStringConvertible {
    case mass(MassUnit)
    case volume(VolumeUnit)
    /// A countable thing ("egg", "slice", "serving"), singular and lowercased.
    case count(String)

    public enum MassUnit: String, Sendable, CaseIterable, Codable {
        case g, kg, mg, oz, lb
        /// Grams in one of this unit (exact: 1 oz = 28.349523125 g, 1 lb = 453.59237 g).
        public var grams: Double {
            switch self {
            case .g: return 1
            case .mg: return 0.001
            case .kg: return 1000
            case .oz: return 28.349523125
            case .lb: return 453.59237
            }
        }
    }

    public enum VolumeUnit: String, Sendable, CaseIterable, Codable {
        case ml = "mL", l = "L", cup, tbsp, tsp, flOz = "fl oz", pint, quart
        /// Millilitres in one of this unit (US customary; 1 fl oz = 29.5735295625 mL).
        public var milliliters: Double {
            switch self {
            case .ml: return 1
            case .l: return 1000
            case .cup: return 236.5882365
            case .tbsp: return 14.78676478125
            case .tsp: return 4.92892159375
            case .flOz: return 29.5735295625
            case .pint: return 473.176473
            case .quart: return 946.352946
            }
        }
    }

    /// Count words accepted without a per-food mapping (a manual entry of "2 slices").
    public static let knownCounts: Set<String> = [
        "serving", "piece", "item", "each", "egg", "slice", "bar", "bottle", "can", "container",
        "package", "packet", "pack", "scoop", "bowl", "plate", "portion", "cookie", "cracker",
        "muffin", "bagel", "tortilla", "sandwich", "burger", "taco", "burrito", "wrap", "roll",
        "bun", "biscuit", "pancake", "waffle", "fruit", "apple", "banana", "orange", "stick",
        "square", "patty", "link", "strip", "fillet", "breast", "thigh", "wing", "drumstick",
        "leg", "clove", "leaf", "sprig", "pinch", "dash", "handful", "glass", "mug", "shot",
        "pouch", "jar", "carton", "box", "bag", "cube", "wedge", "chunk", "ball", "nugget",
        "pod", "capsule", "tablet", "sachet", "meal", "order", "small", "medium", "large",
        "extra large", "cupful", "spoon", "spoonful", "scoopful", "piece of fruit", "whole",
    ]

    static let aliases: [String: ServingUnit] = {
        var t: [String: ServingUnit] = [:]
        let mass: [(MassUnit, [String])] = [
            (.g, ["g", "gram", "grams", "gr", "gm", "gms"]),
            (.kg, ["kg", "kilogram", "kilograms", "kilo", "kilos", "kgs"]),
            (.mg, ["mg", "milligram", "milligrams", "mgs"]),
            (.oz, ["oz", "ounce", "ounces", "ozs", "oz wt", "oz. wt."]),
            (.lb, ["lb", "lbs", "pound", "pounds"]),
        ]
        let volume: [(VolumeUnit, [String])] = [
            (.ml, ["ml", "milliliter", "milliliters", "millilitre", "millilitres", "cc"]),
            (.l, ["l", "liter", "liters", "litre", "litres"]),
            (.cup, ["cup", "cups", "c"]),
            (.tbsp, ["tbsp", "tbs", "tablespoon", "tablespoons", "tbsps", "tbl"]),
            (.tsp, ["tsp", "teaspoon", "teaspoons", "tsps"]),
            (.flOz, ["fl oz", "floz", "fluid ounce", "fluid ounces", "fl. oz", "fl. oz.", "fl oz.", "fl-oz", "fl ozs"]),
            (.pint, ["pint", "pints", "pt", "pts"]),
            (.quart, ["quart", "quarts", "qt", "qts"]),
        ]
        for (u, names) in mass { for n in names { t[n] = .mass(u) } }
        for (u, names) in volume { for n in names { t[n] = .volume(u) } }
        return t
    }()

    /// Parses a unit as people write it ("g", "Tablespoons", "fl oz", "eggs", "slice").
    /// Count words are singularised. Throws `unknownUnit` for anything else, unless
    /// `extraCounts` (a food's own measures) contains it.
    public static func parse(_ text: String, extraCounts: Set<String> = []) throws -> ServingUnit {
        let key = normalizeWord(text)
        guard !key.isEmpty, key.count <= 40 else { throw NutritionError.unknownUnit(String(text.prefix(40))) }
        if let u = aliases[key] { return u }
        let extra = Set(extraCounts.map(normalizeWord))
        for candidate in singularCandidates(key) where knownCounts.contains(candidate) || extra.contains(candidate) {
            return .count(candidate)
        }
        throw NutritionError.unknownUnit(text)
    }

    /// A unit read back from storage (its `symbol`), without the known-count check.
    public init(storedSymbol s: String) {
        switch s {
        case "g": self = .mass(.g)
        case "serving": self = .count("serving")
        default:
            if let u = ServingUnit.aliases[ServingUnit.normalizeWord(s)] { self = u } else { self = .count(ServingUnit.normalizeWord(s)) }
        }
    }

    /// Lowercased, trimmed, inner whitespace collapsed, a trailing "." dropped.
    /// The mass or volume unit name a typed unit is probably a typo of ("gramz" → "grams",
    /// "tablspoon" → "tablespoon"): its first word is one edit from a unit name of four letters or
    /// more, and is neither a unit nor a known count word itself. nil when it reads as typed.
    public static func measureTypo(_ unitText: String) -> String? {
        guard leadingMeasure(unitText) == nil,
              let word = unitText.lowercased().split(separator: " ").first.map(String.init),
              word.count >= 4, word.allSatisfy(\.isLetter), !knownCounts.contains(word),
              !singularCandidates(word).contains(where: knownCounts.contains) else { return nil }
        // A same-length name first ("gramz" meant grams more likely than gram).
        return aliases.keys.filter { $0.count >= 4 && $0.allSatisfy(\.isLetter) && oneEditApart(word, $0) }
            .min { (abs($0.count - word.count), $0) < (abs($1.count - word.count), $1) }
    }

    /// Whether `a` becomes `b` by one insertion, deletion or substitution.
    static func oneEditApart(_ a: String, _ b: String) -> Bool {
        let x = Array(a), y = Array(b)
        guard x != y, abs(x.count - y.count) <= 1 else { return false }
        var i = 0, j = 0, edits = 0
        while i < x.count && j < y.count {
            if x[i] == y[j] { i += 1; j += 1; continue }
            edits += 1
            if edits > 1 { return false }
            if x.count > y.count { i += 1 } else if x.count < y.count { j += 1 } else { i += 1; j += 1 }
        }
        return edits + (x.count - i) + (y.count - j) == 1
    }

    static func normalizeWord(_ text: String) -> String {
        var s = text.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
        while s.hasSuffix(".") && s != "fl oz." && s != "oz. wt." && s != "fl. oz." { s.removeLast() }
        return s
    }

    /// The word itself, then plausible singular forms ("slices" -> "slice", "patties" -> "patty").
    static func singularCandidates(_ word: String) -> [String] {
        var out = [word]
        if word.hasSuffix("ies") { out.append(String(word.dropLast(3)) + "y") }
        if word.hasSuffix("es") { out.append(String(word.dropLast(2))) }
        if word.hasSuffix("s") { out.append(String(word.dropLast())) }
        if word.hasSuffix("ves") { out.append(String(word.dropLast(3)) + "f") }
        return out
    }

    /// The spelling used for storage and display ("g", "mL", "fl oz", "egg").
    public var symbol: String {
        switch self {
        case .mass(let u): return u.rawValue
        case .volume(let u): return u.rawValue
        case .count(let name): return name
        }
    }

    public var description: String { symbol }

    /// Same unit, counting "slices" and "Slice" as the same count.
    public func matches(_ other: ServingUnit) -> Bool {
        if self == other { return true }
        guard case .count(let a) = self, case .count(let b) = other else { return false }
        let sa = Set(ServingUnit.singularCandidates(ServingUnit.normalizeWord(a)))
        return !sa.isDisjoint(with: ServingUnit.singularCandidates(ServingUnit.normalizeWord(b)))
    }

    public var isMass: Bool { if case .mass = self { return true } else { return false } }
    public var isVolume: Bool { if case .volume = self { return true } else { return false } }

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        let s = try c.decode(String.self)
        // Units were validated when written; a food's own count names are kept as is.
        self.init(storedSymbol: s)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(symbol)
    }
}

/// Converts between units of the same dimension; anything across dimensions needs a food.
public enum UnitConverter {
    /// `quantity` of `from` expressed in `to`. Throws `impossibleConversion` across dimensions
    /// or between different count units.
    public static func convert(_ quantity: Double, from: ServingUnit, to: ServingUnit) throws -> Double {
        switch (from, to) {
        case let (.mass(a), .mass(b)): return quantity * a.grams / b.grams
        case let (.volume(a), .volume(b)): return quantity * a.milliliters / b.milliliters
        case (.count, .count) where from.matches(to): return quantity
        default: throw NutritionError.impossibleConversion(from: from.symbol, to: to.symbol)
        }
    }
}

/// One measure of a food: `quantity` `unit` weighs `grams` and/or fills `milliliters`
/// ("1 cup = 244 g", "1 egg = 50 g", "1 can = 355 mL").
public struct UnitMapping: Sendable, Hashable, Codable {
    public var quantity: Double
    public var unit: ServingUnit
    public var grams: Double?
    public var milliliters: Double?

    public init(quantity: Double = 1, unit: ServingUnit, grams: Double? = nil, milliliters: Double? = nil) {
        self.quantity = quantity; self.unit = unit; self.grams = grams; self.milliliters = milliliters
    }

    enum CodingKeys: String, CodingKey { case quantity, unit, grams, milliliters = "ml" }

    /// Checks quantities are positive and finite and that the mapping says something.
    public func validate(field: String = "mapping") throws {
        try Validate.positive(quantity, field: "\(field) quantity")
        if let g = grams { try Validate.positive(g, field: "\(field) grams") }
        if let m = milliliters { try Validate.positive(m, field: "\(field) mL") }
        if grams == nil && milliliters == nil && !unit.isMass && !unit.isVolume {
            throw NutritionError.invalidFood("\(field) for \(unit.symbol) needs grams or mL")
        }
    }
}

/// A serving as written on a label: `quantity` `unit`, with its weight and volume when known.
public struct ServingSize: Sendable, Hashable, Codable {
    public var quantity: Double
    public var unit: ServingUnit
    public var grams: Double?
    public var milliliters: Double?

    public init(quantity: Double = 1, unit: ServingUnit = .count("serving"), grams: Double? = nil, milliliters: Double? = nil) {
        self.quantity = quantity; self.unit = unit; self.grams = grams; self.milliliters = milliliters
        // A mass or volume unit knows its own weight or volume.
        if case .mass(let u) = unit, self.grams == nil { self.grams = quantity * u.grams }
        if case .volume(let u) = unit, self.milliliters == nil { self.milliliters = quantity * u.milliliters }
    }

    enum CodingKeys: String, CodingKey { case quantity, unit, grams, milliliters = "ml" }

    public func validate(field: String = "serving") throws {
        try Validate.positive(quantity, field: "\(field) quantity")
        if let g = grams { try Validate.positive(g, field: "\(field) grams") }
        if let m = milliliters { try Validate.positive(m, field: "\(field) mL") }
    }

    /// "1 cup (244 g)".
    public var label: String {
        var s = "\(quantity.formattedAmount) \(unit.symbol)"
        if let g = grams, !unit.isMass { s += " (\(g.formattedAmount) g)" }
        else if let m = milliliters, !unit.isVolume { s += " (\(m.formattedAmount) mL)" }
        return s
    }
}

/// How a particular food's measures relate: its serving plus extra mappings. Answers how many
/// servings a quantity in some unit is, refusing to guess across dimensions.
public struct FoodMeasures: Sendable, Hashable {
    public var serving: ServingSize
    public var mappings: [UnitMapping]

    public init(serving: ServingSize, mappings: [UnitMapping] = []) {
        self.serving = serving; self.mappings = mappings
    }

    /// Count units this food knows (its serving unit and its mappings), for `ServingUnit.parse`.
    public var countNames: Set<String> {
        var s: Set<String> = []
        if case .count(let n) = serving.unit { s.insert(n) }
        for m in mappings { if case .count(let n) = m.unit { s.insert(n) } }
        return s
    }

    /// Grams per millilitre when some measure gives both, or a volume measure gives grams, or a
    /// mass measure gives mL. Like reference foods, a cup measure is preferred, then tbsp, tsp,
    /// fl oz, other volumes, then any other measure that gives both (the serving first).
    public var density: Double? {
        var candidates: [(grams: Double?, ml: Double?, unit: ServingUnit, quantity: Double)] =
            [(serving.grams, serving.milliliters, serving.unit, serving.quantity)]
        candidates += mappings.map { ($0.grams, $0.milliliters, $0.unit, $0.quantity) }
        let preference: [ServingUnit.VolumeUnit] = [.cup, .tbsp, .tsp, .flOz]
        func rank(_ unit: ServingUnit) -> Int {
            guard case .volume(let v) = unit else { return preference.count + 1 }
            return preference.firstIndex(of: v) ?? preference.count
        }
        // A stable sort keeps the serving ahead of mappings of the same rank.
        candidates = candidates.enumerated().sorted { (rank($0.element.unit), $0.offset) < (rank($1.element.unit), $1.offset) }.map(\.element)
        for c in candidates {
            let g: Double? = c.grams ?? { if case .mass(let u) = c.unit { return c.quantity * u.grams } else { return nil } }()
            let m: Double? = c.ml ?? { if case .volume(let u) = c.unit { return c.quantity * u.milliliters } else { return nil } }()
            if let g, let m, m > 0 { return g / m }
        }
        return nil
    }

    /// Grams in `quantity` `unit`, when derivable.
    public func grams(_ quantity: Double, _ unit: ServingUnit) -> Double? {
        if case .mass(let u) = unit { return quantity * u.grams }
        if let direct = directMeasure(quantity, unit, \.grams) { return direct }
        if let ml = milliliters(quantityDirectOnly: quantity, unit), let d = density { return ml * d }
        return nil
    }

    /// Millilitres in `quantity` `unit`, when derivable.
    public func milliliters(_ quantity: Double, _ unit: ServingUnit) -> Double? {
        if let ml = milliliters(quantityDirectOnly: quantity, unit) { return ml }
        if let g = gramsDirectOnly(quantity, unit), let d = density, d > 0 { return g / d }
        return nil
    }

    private func gramsDirectOnly(_ quantity: Double, _ unit: ServingUnit) -> Double? {
        if case .mass(let u) = unit { return quantity * u.grams }
        return directMeasure(quantity, unit, \.grams)
    }

    private func milliliters(quantityDirectOnly quantity: Double, _ unit: ServingUnit) -> Double? {
        if case .volume(let u) = unit { return quantity * u.milliliters }
        return directMeasure(quantity, unit, \.milliliters)
    }

    /// Uses a mapping or the serving written in exactly this unit (or, for volume units,
    /// another volume unit converted first).
    private func directMeasure(_ quantity: Double, _ unit: ServingUnit, _ key: KeyPath<UnitMapping, Double?>) -> Double? {
        let all = [UnitMapping(quantity: serving.quantity, unit: serving.unit, grams: serving.grams, milliliters: serving.milliliters)] + mappings
        for m in all where m.unit.matches(unit) {
            if let v = m[keyPath: key], m.quantity > 0 { return quantity / m.quantity * v }
        }
        return nil
    }

    /// How many servings `quantity` `unit` is. Throws `impossibleConversion` when no measure
    /// links the unit to the serving.
    public func servings(_ quantity: Double, _ unit: ServingUnit) throws -> Double {
        try Validate.positive(quantity, field: "quantity")
        if let same = try? UnitConverter.convert(quantity, from: unit, to: serving.unit) {
            return same / serving.quantity
        }
        if let g = grams(quantity, unit), let sg = grams(serving.quantity, serving.unit), sg > 0 { return g / sg }
        if let m = milliliters(quantity, unit), let sm = milliliters(serving.quantity, serving.unit), sm > 0 { return m / sm }
        throw NutritionError.impossibleConversion(from: unit.symbol, to: serving.unit.symbol)
    }

    /// `quantity` of `from` expressed in `to` for this food.
    public func convert(_ quantity: Double, from: ServingUnit, to: ServingUnit) throws -> Double {
        if let v = try? UnitConverter.convert(quantity, from: from, to: to) { return v }
        let s = try servings(quantity, from)
        let perServingInTarget = try servings(1, to) // servings in one `to`
        guard perServingInTarget > 0 else { throw NutritionError.impossibleConversion(from: from.symbol, to: to.symbol) }
        return s / perServingInTarget
    }
}

/// Shared input checks.
public enum Validate {
    public static func positive(_ value: Double, field: String) throws {
        guard value.isFinite, value > 0 else { throw NutritionError.invalidQuantity(field: field, value: value) }
    }

    /// Trims and checks free text: non-empty when required, at most `maxLength` characters,
    /// no control characters (newlines included).
    public static func text(_ value: String, field: String, maxLength: Int = 200, required: Bool = true) throws -> String {
        let t = value.trimmingWhitespace()
        if required && t.isEmpty { throw NutritionError.invalidText(field: field, reason: "must not be empty") }
        if t.count > maxLength { throw NutritionError.invalidText(field: field, reason: "is longer than \(maxLength) characters") }
        if t.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == "\u{FFFD}" }) {
            throw NutritionError.invalidText(field: field, reason: "contains control characters or invalid UTF-8")
        }
        return t
    }
}

extension Double {
    /// A short human form: integers without decimals, otherwise up to 2 decimals. Total: NaN,
    /// infinities and numbers past 1e15 (a stored value no check let through) print as text, never trap.
    public var formattedAmount: String {
        guard isFinite else { return isNaN ? "NaN" : (self < 0 ? "-∞" : "∞") }
        if abs(self) >= 1e15 { return String(self) }
        if self == rounded() { return String(Int64(self)) }
        let r = rounded(places: 2)
        if r == r.rounded() { return String(Int64(r)) }
        var s = String(r)
        if s.contains("e") { s = String(self) }
        return s
    }
}
