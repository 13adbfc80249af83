// Daily goals: a target or limit per nutrient, defaulting to the FDA Daily Values.

/// Daily goals keyed by nutrient id, in the nutrient's canonical unit.
public struct Goals: Sendable, Hashable, Codable {
    public private(set) var values: [String: Double]

    /// Goals from explicit values (validated: finite, positive; legacy names mapped).
    public init(_ values: [String: Double]) throws {
        var out: [String: Double] = [:]
        for key in values.keys.sorted() {
            guard let v = values[key] else { continue }
            guard let id = NutrientCatalog.canonicalID(for: key) ?? (NutrientAmounts.isPlausibleID(key) ? key : nil) else {
                throw NutritionError.invalidNutrientID(String(key.prefix(40)))
            }
            try Validate.positive(v, field: "goal \(id)")
            out[id] = v
        }
        self.values = out
    }

    /// Every nutrient with an FDA Daily Value (energy 2,000 kcal).
    public static let fdaDefaults: Goals = {
        var v: [String: Double] = [:]
        for n in NutrientCatalog.all { if let dv = n.dailyValue { v[n.id] = dv } }
        return Goals(trusted: v)
    }()

    init(trusted: [String: Double]) { values = trusted }

    /// Coded as a plain object of id -> amount.
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        do { try self.init(try c.decode([String: Double].self)) } catch let e as NutritionError {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: e.description)
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(values)
    }

    public subscript(_ id: String) -> Double? { values[id] }

    /// Goal ids in display order.
    public var ids: [String] { NutrientCatalog.sorted(values.keys) }

    /// A copy with `id` set (or cleared with nil).
    public func setting(_ id: String, to value: Double?) throws -> Goals {
        var v = values
        guard let canonical = NutrientCatalog.canonicalID(for: id) ?? (NutrientAmounts.isPlausibleID(id) ? id : nil) else {
            throw NutritionError.invalidNutrientID(String(id.prefix(40)))
        }
        if let value { try Validate.positive(value, field: "goal \(canonical)") }
        v[canonical] = value
        return Goals(trusted: v)
    }

    /// Whether a goal is a target to reach or a limit to stay under.
    public static func direction(_ id: String) -> GoalDirection { NutrientCatalog.nutrient(id)?.direction ?? .target }

    /// What is left of each goal after `consumed` (negative when over).
    public func remaining(after consumed: NutrientTotals) -> [String: Double] {
        var out: [String: Double] = [:]
        for (id, goal) in values { out[id] = goal - (consumed[id] ?? 0) }
        return out
    }
}

/// One nutrient's progress against its goal, ready to render.
public struct GoalProgress: Sendable, Hashable, Codable {
    public let id: String
    public let name: String
    public let unit: NutrientUnit?
    public let goal: Double
    /// The total eaten; nil ("not reported", JSON null) when entries were logged but none
    /// reported this nutrient. A day with no entries has consumed 0.
    public let consumed: Double?
    /// goal − consumed; nil when consumed is.
    public let remaining: Double?
    /// consumed / goal (0.5 = 50%); nil when consumed is.
    public let fraction: Double?
    public let direction: GoalDirection
    /// Entries in the total that did not report this nutrient.
    public let notReportedCount: Int
    /// Where the goal comes from (FDA default, the profile's DRIs, the person); nil when not known.
    public var origin: GoalOrigin? = nil

    enum CodingKeys: String, CodingKey {
        case id, name, unit, goal, consumed, remaining, fraction, direction, notReportedCount = "not_reported_count", origin
    }

    /// Writes `consumed`, `remaining` and `fraction` as null when not reported, rather than leaving them out.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encodeIfPresent(unit, forKey: .unit)
        try c.encode(goal, forKey: .goal)
        try c.encode(consumed, forKey: .consumed)
        try c.encode(remaining, forKey: .remaining)
        try c.encode(fraction, forKey: .fraction)
        try c.encode(direction, forKey: .direction)
        try c.encode(notReportedCount, forKey: .notReportedCount)
        try c.encodeIfPresent(origin, forKey: .origin)
    }

    /// Progress for every goal; with `sources`, each says where its goal comes from.
    public static func make(goals: Goals, totals: NutrientTotals, sources: GoalSources? = nil) -> [GoalProgress] {
        goals.ids.compactMap { id in
            guard let goal = goals[id] else { return nil }
            // Nothing reported is not zero eaten; nothing logged is.
            let consumed = totals[id] ?? (totals.entryCount == 0 ? 0 : nil)
            return GoalProgress(id: id, name: NutrientCatalog.displayName(id), unit: NutrientCatalog.nutrient(id)?.unit,
                                goal: goal, consumed: consumed, remaining: consumed.map { goal - $0 },
                                fraction: consumed.map { goal > 0 ? $0 / goal : 0 }, direction: Goals.direction(id),
                                notReportedCount: totals.notReportedCount(id), origin: sources?.origin(of: id, in: goals))
        }
    }
}

extension NutrientAmounts {
    /// A snake_case id of letters, digits and underscores, 1–64 long.
    public static func isPlausibleID(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 64 && s.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
    }
}
