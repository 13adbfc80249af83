// Nutrient amount maps (id -> amount in the canonical unit) and totals that count "not reported".

/// Amounts keyed by nutrient id, each in the nutrient's canonical unit. A missing key means
/// "not reported", never zero. Unknown ids are kept as given.
public struct NutrientAmounts: Sendable, Hashable, Codable, Sequence {
    public private(set) var values: [String: Double]

    public init() { values = [:] }

    /// Builds a map from raw input, mapping legacy display names to canonical ids
    /// ("Saturated Fat" -> saturated_fat_g) and keeping unknown ids unchanged. When two inputs
    /// map to the same id, the canonical spelling wins, otherwise the first in sorted key order.
    /// Throws when an amount is negative or not finite.
    public init(_ raw: [String: Double]) throws {
        var out: [String: Double] = [:]
        var fromCanonical: Set<String> = []
        for key in raw.keys.sorted() {
            guard let value = raw[key] else { continue }
            let trimmed = key.trimmingWhitespace()
            guard !trimmed.isEmpty else { throw NutritionError.invalidNutrientID(key) }
            guard trimmed.utf8.count <= 64, !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw NutritionError.invalidNutrientID(String(trimmed.prefix(20)))
            }
            guard value.isFinite, value >= 0 else { throw NutritionError.invalidNutrientAmount(id: trimmed, value: value) }
            let isKilojoules = NutrientAmounts.kilojouleSpellings.contains(NutrientCatalog.normalize(trimmed))
            let canonical = isKilojoules ? "energy_kj" : NutrientCatalog.canonicalID(for: trimmed) ?? trimmed
            let isCanonicalSpelling = canonical == trimmed
            if out[canonical] != nil {
                if isCanonicalSpelling && !fromCanonical.contains(canonical) { out[canonical] = value; fromCanonical.insert(canonical) }
                continue
            }
            out[canonical] = value
            if isCanonicalSpelling { fromCanonical.insert(canonical) }
        }
        // Energy given in kJ is stored in kcal (1 kcal = 4.184 kJ): the journal shows one energy.
        if let kj = out.removeValue(forKey: "energy_kj"), out["energy_kcal"] == nil {
            out["energy_kcal"] = (kj / NutrientAmounts.kilojoulesPerKcal).rounded(places: 6)
        }
        values = out
    }

    /// 1 kcal = 4.184 kJ (the thermochemical calorie USDA and the FDA use).
    public static let kilojoulesPerKcal = 4.184
    static let kilojouleSpellings: Set<String> = ["energykj", "kj", "kilojoules", "energykilojoules", "kilojoule"]
    /// Whether `id` names energy in kilojoules ("energy_kj", "kJ"); such input is stored as kcal.
    public static func isKilojoules(_ id: String) -> Bool { kilojouleSpellings.contains(NutrientCatalog.normalize(id)) }

    /// Amounts already known to be canonical and valid (internal fast path).
    init(trusted values: [String: Double]) { self.values = values }

    /// Amounts read back from storage that validated them when written: no re-checking, no
    /// name mapping. Do not use for input from people, models or files.
    public init(storedCanonical values: [String: Double]) { self.values = values }

    public subscript(_ id: String) -> Double? {
        get { values[id] }
        set { values[id] = newValue }
    }

    public var ids: [String] { NutrientCatalog.sorted(values.keys) }
    public var isEmpty: Bool { values.isEmpty }
    public var count: Int { values.count }

    public func makeIterator() -> Dictionary<String, Double>.Iterator { values.makeIterator() }

    /// Every amount multiplied by `factor` (servings, portions).
    public func scaled(by factor: Double) -> NutrientAmounts {
        NutrientAmounts(trusted: values.mapValues { $0 * factor })
    }

    /// Sum of amounts: a nutrient reported by either side is reported in the sum. Use
    /// `NutrientTotals` when "how many lacked it" matters.
    public func adding(_ other: NutrientAmounts) -> NutrientAmounts {
        var out = values
        for (k, v) in other.values { out[k, default: 0] += v }
        return NutrientAmounts(trusted: out)
    }

    /// Values rounded for display and storage stability (6 significant decimals).
    public func rounded(places: Int = 6) -> NutrientAmounts {
        NutrientAmounts(trusted: values.mapValues { $0.rounded(places: places) })
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode([String: Double].self)
        do { try self.init(raw) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(error)")
        }
    }

    /// Encoded key by key: JSONEncoder handles a keyed container far faster than a Dictionary.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: NutrientKey.self)
        for (k, v) in values { try container.encode(v, forKey: NutrientKey(k)) }
    }
}

/// A coding key for any nutrient id.
struct NutrientKey: CodingKey {
    let stringValue: String
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    var intValue: Int? { nil }
    init?(intValue: Int) { return nil }
}

/// Totals over several entries: the sum of what was reported plus, per nutrient, how many
/// entries did not report it.
public struct NutrientTotals: Sendable, Hashable, Codable {
    /// Sum per nutrient over the entries that reported it.
    public private(set) var amounts: [String: Double]
    /// Entries that reported each nutrient.
    public private(set) var reportedCounts: [String: Int]
    /// Entries counted.
    public private(set) var entryCount: Int

    public init() { amounts = [:]; reportedCounts = [:]; entryCount = 0 }

    enum CodingKeys: String, CodingKey {
        case amounts, reportedCounts = "reported_counts", entryCount = "entry_count"
    }

    public init(amounts: [String: Double], reportedCounts: [String: Int], entryCount: Int) {
        self.amounts = amounts; self.reportedCounts = reportedCounts; self.entryCount = entryCount
    }

    /// Adds one entry's (already scaled) amounts.
    public mutating func add(_ entry: NutrientAmounts) {
        entryCount += 1
        for (k, v) in entry.values {
            amounts[k, default: 0] += v
            reportedCounts[k, default: 0] += 1
        }
    }

    /// Adds another total (e.g. meals into a day).
    public mutating func add(_ other: NutrientTotals) {
        entryCount += other.entryCount
        for (k, v) in other.amounts { amounts[k, default: 0] += v }
        for (k, v) in other.reportedCounts { reportedCounts[k, default: 0] += v }
    }

    /// The summed amount, nil when no entry reported it.
    public subscript(_ id: String) -> Double? { amounts[id] }

    /// How many entries lacked `id` ("not reported").
    public func notReportedCount(_ id: String) -> Int { entryCount - (reportedCounts[id] ?? 0) }

    /// Ids with at least one entry not reporting them, among `ids`.
    public func incompleteIDs(among ids: [String]) -> [String] { ids.filter { notReportedCount($0) > 0 } }

    /// All ids reported by at least one entry, in display order.
    public var ids: [String] { NutrientCatalog.sorted(amounts.keys) }
}

extension Double {
    /// Rounds to `places` decimal places.
    public func rounded(places: Int) -> Double {
        var p = 1.0
        for _ in 0..<max(0, places) { p *= 10 }
        return (self * p).rounded() / p
    }
}

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let end = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[start...end])
    }
}
