// Where each daily goal came from (FDA default, the profile's DRIs, or the person), the upper
// limits that came with the DRIs, and per-weekday calorie targets: stored beside the goals.
import Base
import Foundation

/// Who a goal's value comes from.
public enum GoalOrigin: String, Sendable, Codable, CaseIterable {
    /// The FDA label Daily Value (21 CFR 101.9), the same for everyone.
    case fdaDefault = "fda_default"
    /// Approved on `ofj goals from-profile`: the DRIs for the person's life-stage group, their energy.
    case profile
    /// Set by the person (`ofj goals set`, the assistant's set_goals).
    case person

    /// The words a chart or an answer puts after a goal: "FDA default", "from your profile", "set by you".
    public var phrase: String {
        switch self {
        case .fdaDefault: return "FDA default"
        case .profile: return "from your profile"
        case .person: return "set by you"
        }
    }

    /// The one-letter marker views put after a goal, explained by `GoalSources.legend`.
    public var marker: String {
        switch self {
        case .fdaDefault: return "FDA"
        case .profile: return "DRI"
        case .person: return "you"
        }
    }
}

/// One goal's origin and, for profile goals, the table or equation it came from.
public struct GoalSource: Sendable, Hashable, Codable {
    public var origin: GoalOrigin
    public var source: String?

    public init(_ origin: GoalOrigin, source: String? = nil) {
        self.origin = origin
        self.source = source
    }
}

/// An upper limit that came with the DRIs (a UL or the sodium CDRR), shown beside the goal.
public struct UpperLimit: Sendable, Hashable, Codable {
    public var kind: String
    public var value: Double
    public var source: String
    public var caveat: String?

    public init(kind: String, value: Double, source: String, caveat: String? = nil) {
        self.kind = kind
        self.value = value
        self.source = source
        self.caveat = caveat
    }
}

/// The provenance stored with the goals (journal_settings row `goal_sources`).
public struct GoalSources: Sendable, Hashable, Codable {
    /// Origins by nutrient id. A goal without one is the FDA default when it equals the Daily
    /// Value and the person's own otherwise (goals set before provenance was kept).
    public var sources: [String: GoalSource]
    public var upperLimits: [String: UpperLimit]
    /// Calorie targets by ISO weekday (1 = Monday … 7 = Sunday) that replace energy_kcal on that day.
    public var weekdayEnergy: [Int: Double]
    /// The DRI group the profile goals are for, and the day they were approved.
    public var group: DRIGroup?
    public var approvedOn: CalendarDay?

    public init(sources: [String: GoalSource] = [:], upperLimits: [String: UpperLimit] = [:], weekdayEnergy: [Int: Double] = [:],
                group: DRIGroup? = nil, approvedOn: CalendarDay? = nil) {
        self.sources = sources
        self.upperLimits = upperLimits
        self.weekdayEnergy = weekdayEnergy
        self.group = group
        self.approvedOn = approvedOn
    }

    enum CodingKeys: String, CodingKey {
        case sources, upperLimits = "upper_limits", weekdayEnergy = "weekday_energy", group, approvedOn = "approved_on"
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        sources = try c.decodeIfPresent([String: GoalSource].self, forKey: .sources) ?? [:]
        upperLimits = try c.decodeIfPresent([String: UpperLimit].self, forKey: .upperLimits) ?? [:]
        let days = try c.decodeIfPresent([String: Double].self, forKey: .weekdayEnergy) ?? [:]
        var w: [Int: Double] = [:]
        for (k, v) in days {
            guard let d = Self.weekdayNames.firstIndex(of: k), v.isFinite, v > 0 else {
                throw DecodingError.dataCorruptedError(forKey: .weekdayEnergy, in: c, debugDescription: "not a weekday target")
            }
            w[d + 1] = v
        }
        weekdayEnergy = w
        group = try c.decodeIfPresent(DRIGroup.self, forKey: .group)
        approvedOn = try c.decodeIfPresent(CalendarDay.self, forKey: .approvedOn)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(sources, forKey: .sources)
        if !upperLimits.isEmpty { try c.encode(upperLimits, forKey: .upperLimits) }
        if !weekdayEnergy.isEmpty {
            try c.encode(Dictionary(uniqueKeysWithValues: weekdayEnergy.map { (Self.weekdayNames[$0.key - 1], $0.value) }), forKey: .weekdayEnergy)
        }
        try c.encodeIfPresent(group, forKey: .group)
        try c.encodeIfPresent(approvedOn, forKey: .approvedOn)
    }

    public var isEmpty: Bool { self == GoalSources() }

    /// mon … sun, in ISO order.
    public static let weekdayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// Where the goal `id` of `goals` comes from.
    public func origin(of id: String, in goals: Goals) -> GoalOrigin {
        if let s = sources[id] { return s.origin }
        if let v = goals[id], let dv = NutrientCatalog.nutrient(id)?.dailyValue, v == dv { return .fdaDefault }
        return .person
    }

    /// `goals` as they apply on `day`: the weekday's calorie target replaces energy_kcal.
    public func goals(_ goals: Goals, on day: CalendarDay) -> Goals {
        guard let kcal = weekdayEnergy[day.isoWeekday], let g = try? goals.setting("energy_kcal", to: kcal) else { return goals }
        return g
    }

    /// Provenance after the person changed goals from `old` to `new` by hand: changed and new ids
    /// are theirs, removed ids lose their source (and a weekday plan goes with a hand-set energy goal).
    public func afterPersonChange(from old: Goals, to new: Goals) -> GoalSources {
        var s = self
        for id in Set(old.values.keys).union(new.values.keys) where old[id] != new[id] {
            if new[id] == nil { s.sources[id] = nil } else { s.sources[id] = GoalSource(.person) }
            if id == "energy_kcal" { s.weekdayEnergy = [:] }
        }
        return s
    }

    /// Without the origins `origin(of:in:)` infers anyway (a hand-set value that differs from the
    /// Daily Value, a Daily Value nobody changed), so goals set by hand alone need no row at all.
    public func normalized(for goals: Goals) -> GoalSources {
        var s = self
        for (id, src) in sources where src.source == nil {
            var bare = self
            bare.sources[id] = nil
            if bare.origin(of: id, in: goals) == src.origin || goals[id] == nil { s.sources[id] = nil }
        }
        if s.sources.isEmpty && s.upperLimits.isEmpty && s.weekdayEnergy.isEmpty { return GoalSources() }
        return s
    }

    /// One line that says what the markers of `ids` (all goals by default) mean, the same in every view:
    /// "DRI = from your profile (females 31–50 y, approved 2026-12-02) · FDA = FDA Daily Value default".
    public func legend(_ goals: Goals, ids: [String]? = nil) -> String {
        let shown = ids ?? goals.ids
        let origins = Set(shown.filter { goals[$0] != nil }.map { origin(of: $0, in: goals) })
        if origins.isEmpty || origins == [.fdaDefault] {
            return "FDA = the FDA label Daily Values, the same for everyone; for personal targets: ofj goals from-profile"
        }
        var parts: [String] = []
        if origins.contains(.profile) {
            var p = "DRI = from your profile"
            if let g = group { p += " (\(g.label)" + (approvedOn.map { ", approved \($0)" } ?? "") + ")" }
            parts.append(p)
        }
        if origins.contains(.person) { parts.append("you = set by you") }
        if origins.contains(.fdaDefault) { parts.append("FDA = FDA Daily Value default") }
        return parts.joined(separator: " · ")
    }

    /// The short tag views put after "Goals" for the goals they show: "FDA defaults", "personal",
    /// or, when mixed, the fewer named: "personal; FDA default: fat" or "FDA defaults; yours: protein".
    /// Empty when no origin is known.
    public static func tag(_ origins: [(id: String, origin: GoalOrigin)]) -> String {
        guard !origins.isEmpty else { return "" }
        func names(_ list: [(id: String, origin: GoalOrigin)]) -> String {
            list.map { $0.id == "energy_kcal" ? "calories" : NutrientCatalog.displayName($0.id).lowercased() }.joined(separator: ", ")
        }
        let defaults = origins.filter { $0.origin == .fdaDefault }
        let personal = origins.filter { $0.origin != .fdaDefault }
        if personal.isEmpty { return "FDA defaults" }
        if defaults.isEmpty { return "personal" }
        if defaults.count > personal.count, personal.count <= 3 { return "FDA defaults; yours: " + names(personal) }
        if defaults.count <= 3 { return "personal; FDA default: " + names(defaults) }
        return "partly personal: \(personal.count) of \(origins.count)"
    }

    /// The tag for `ids` of `goals` (see `tag(_:)`).
    public func tag(_ goals: Goals, ids: [String]) -> String {
        Self.tag(ids.filter { goals[$0] != nil }.map { ($0, origin(of: $0, in: goals)) })
    }

    /// "FDA default", "from your profile (DRI …)", "set by you": how an answer names a goal's origin.
    public func describe(_ id: String, in goals: Goals) -> String {
        switch origin(of: id, in: goals) {
        case .fdaDefault: return "the FDA Daily Value default, not a personal target"
        case .profile: return "from your profile" + (sources[id]?.source.map { " (\($0))" } ?? "")
        case .person: return "set by you"
        }
    }

    /// Parses `mon-fri=2200,sat-sun=2500` (also `mon=2000,tue=2100`, `weekdays=…`, `weekend=…`)
    /// into kcal by ISO weekday; each day at most once.
    public static func parseWeekdays(_ text: String) throws -> [Int: Double] {
        var out: [Int: Double] = [:]
        func day(_ s: Substring) throws -> Int {
            guard let i = weekdayNames.firstIndex(of: String(s.prefix(3)).lowercased()) else {
                throw NutritionError.invalidText(field: "--weekdays", reason: "takes weekdays mon … sun, not '\(s.prefix(12))'")
            }
            return i + 1
        }
        for part in text.split(separator: ",") {
            let kv = part.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, let kcal = Double(kv[1].trimmingCharacters(in: .whitespaces)), kcal.isFinite else {
                throw NutritionError.invalidText(field: "--weekdays", reason: "takes DAYS=KCAL (e.g. mon-fri=2200,sat-sun=2500), not '\(part.prefix(24))'")
            }
            guard (800...10_000).contains(kcal) else {
                throw NutritionError.invalidText(field: "--weekdays", reason: "takes 800 to 10,000 kcal a day, not \(kcal.formattedAmount)")
            }
            let key = kv[0].trimmingCharacters(in: .whitespaces).lowercased()
            var days: [Int]
            switch key {
            case "weekdays": days = Array(1...5)
            case "weekend", "weekends": days = [6, 7]
            case "all", "every", "daily": days = Array(1...7)
            default:
                let ends = key.split(separator: "-", maxSplits: 1)
                let a = try day(ends[0])
                let b = ends.count == 2 ? try day(ends[1]) : a
                days = a <= b ? Array(a...b) : Array(a...7) + Array(1...b)
            }
            for d in days {
                guard out[d] == nil else {
                    throw NutritionError.invalidText(field: "--weekdays", reason: "names \(weekdayNames[d - 1]) twice")
                }
                out[d] = kcal
            }
        }
        guard !out.isEmpty else { throw NutritionError.invalidText(field: "--weekdays", reason: "takes DAYS=KCAL, e.g. mon-fri=2200,sat-sun=2500") }
        return out
    }
}
