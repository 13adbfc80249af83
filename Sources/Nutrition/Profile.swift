// The person's profile (sex, birth date, height, activity, life stage, units, weight goal) and
// the height and body-weight text it is set from; every check that makes a profile impossible.
import Base
import Foundation

/// Sex as the Dietary Reference Intakes group people (female and male tables).
public enum Sex: String, Sendable, Codable, CaseIterable { case female, male }

/// A life stage with its own DRI tables.
public enum LifeStage: String, Sendable, Codable, CaseIterable { case pregnant, lactating }

/// Units people read and type heights and weights in.
public enum UnitSystem: String, Sendable, Codable, CaseIterable { case metric, imperial }

/// The direction of a body-weight goal.
public enum WeightGoal: String, Sendable, Codable, CaseIterable { case lose, maintain, gain }

/// How active a person is, with the factor that multiplies the resting energy (BMR) into a day's
/// expenditure: the five levels and factors commonly used with Mifflin–St Jeor (1.2 to 1.9).
public enum ActivityLevel: String, Sendable, Codable, CaseIterable {
    case sedentary, light, moderate, active, veryActive = "very_active"

    public var factor: Double {
        switch self {
        case .sedentary: return 1.2
        case .light: return 1.375
        case .moderate: return 1.55
        case .active: return 1.725
        case .veryActive: return 1.9
        }
    }

    public var meaning: String {
        switch self {
        case .sedentary: return "little or no exercise"
        case .light: return "light exercise 1–3 days a week"
        case .moderate: return "moderate exercise 3–5 days a week"
        case .active: return "hard exercise 6–7 days a week"
        case .veryActive: return "hard daily exercise and a physical job"
        }
    }
}

/// A profile that cannot be a person's, or text that is not a height or weight: one line.
public struct ProfileError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// What the person told ofj about themselves; every field may still be missing.
public struct Profile: Sendable, Hashable, Codable {
    public var sex: Sex?
    public var birth: CalendarDay?
    public var heightCm: Double?
    public var activity: ActivityLevel?
    public var lifeStage: LifeStage?
    public var units: UnitSystem?
    public var goal: WeightGoal?
    /// The goal's rate in kg a week (positive; the goal gives the direction).
    public var rateKgPerWeek: Double?

    public init(sex: Sex? = nil, birth: CalendarDay? = nil, heightCm: Double? = nil, activity: ActivityLevel? = nil,
                lifeStage: LifeStage? = nil, units: UnitSystem? = nil, goal: WeightGoal? = nil, rateKgPerWeek: Double? = nil) {
        self.sex = sex
        self.birth = birth
        self.heightCm = heightCm
        self.activity = activity
        self.lifeStage = lifeStage
        self.units = units
        self.goal = goal
        self.rateKgPerWeek = rateKgPerWeek
    }

    enum CodingKeys: String, CodingKey {
        case sex, birth, heightCm = "height_cm", activity, lifeStage = "life_stage", units, goal, rateKgPerWeek = "rate_kg_per_week"
    }

    /// The keys `profile set` takes, in the order help and errors list them.
    public static let keys = ["sex", "birth", "height", "activity", "life_stage", "units", "goal", "rate"]

    public var isEmpty: Bool { self == Profile() }
    public var unitSystem: UnitSystem { units ?? .metric }

    /// Whole years of age on `day` (nil without a birth date).
    public func age(on day: CalendarDay) -> Int? {
        guard let b = birth else { return nil }
        var years = day.year - b.year
        if (day.month, day.day) < (b.month, b.day) { years -= 1 }
        return years
    }

    // MARK: - Limits

    /// Heights people have: 45 cm (a small child) to 272 cm (the tallest recorded).
    public static let heightRange = 45.0...272.0
    /// Body weights a scale reading can be: 2 kg to 650 kg.
    public static let weightRange = 2.0...650.0
    /// A goal rate above 1.5 kg a week is not a plan a tracker should help with.
    public static let rateRange = 0.05...1.5

    /// Why this profile cannot be a person's on `today` (nil when it can).
    public func problem(today: CalendarDay) -> String? {
        if let b = birth {
            if b > today { return "the birth date \(b) is in the future" }
            if let age = age(on: today), age > 120 { return "a birth date of \(b) makes an age over 120" }
        }
        if let h = heightCm, !Self.heightRange.contains(h) {
            return "a height of \(h.rounded(places: 1).formattedAmount) cm is not a person's height (45 to 272 cm)"
        }
        if let stage = lifeStage {
            if sex == .male { return "life_stage=\(stage.rawValue) needs sex=female" }
            if let age = age(on: today), !(10...60).contains(age) { return "life_stage=\(stage.rawValue) at age \(age) is not possible" }
        }
        if let r = rateKgPerWeek {
            if goal == .maintain { return "goal=maintain takes no rate" }
            if !Self.rateRange.contains(r) { return "a rate of \(r.formattedAmount) kg/week is outside 0.05 to 1.5 kg/week" }
        }
        return nil
    }

    // MARK: - Setting from KEY=VALUE

    /// A copy with `key` set from the text `value` ("none" clears it). Units in the text win
    /// over the profile's unit setting; a bare number reads as cm (metric) or inches (imperial).
    public func setting(_ key: String, to value: String) throws -> Profile {
        var p = self
        let v = value.trimmingCharacters(in: .whitespaces)
        let clear = v.lowercased() == "none"
        func choice<T: RawRepresentable & CaseIterable>(_: T.Type) throws -> T? where T.RawValue == String {
            if clear { return nil }
            guard let c = T(rawValue: v.lowercased().replacingOccurrences(of: "-", with: "_")) else {
                throw ProfileError("\(key) takes \(T.allCases.map(\.rawValue).joined(separator: ", ")), not '\(v.prefix(20))'")
            }
            return c
        }
        switch key.lowercased() {
        case "sex": p.sex = try choice(Sex.self)
        case "birth":
            if clear { p.birth = nil } else {
                do { p.birth = try CalendarDay(parsing: v) } catch { throw ProfileError("birth takes a date as YYYY-MM-DD, not '\(v.prefix(20))'") }
            }
        case "height": p.heightCm = clear ? nil : try Self.parseHeight(v, units: unitSystem)
        case "activity": p.activity = try choice(ActivityLevel.self)
        case "life_stage", "lifestage": p.lifeStage = v.lowercased() == "none" ? nil : try choice(LifeStage.self)
        case "units": p.units = try choice(UnitSystem.self)
        case "goal":
            p.goal = try choice(WeightGoal.self)
            // Maintaining has no rate: switching to it drops the old one instead of refusing.
            if p.goal == .maintain { p.rateKgPerWeek = nil }
        case "rate": p.rateKgPerWeek = clear ? nil : try Self.parseRate(v, units: unitSystem)
        default:
            throw ProfileError("unknown profile key '\(key.prefix(20))': use \(Self.keys.joined(separator: ", "))")
        }
        return p
    }

    // MARK: - Height and weight text

    /// "180cm", "1.8m", "71in", "5ft11in", "5'11\"", "5 ft 11"; a bare number in `units`.
    public static func parseHeight(_ text: String, units: UnitSystem) throws -> Double {
        let t = text.lowercased().replacingOccurrences(of: " ", with: "")
        let bad = ProfileError("'\(text.prefix(20))' is not a height: use e.g. 180cm, 1.8m, 71in or 5ft11in")
        func number(_ s: Substring) throws -> Double {
            guard let d = Double(s), d.isFinite, d >= 0 else { throw bad }
            return d
        }
        let cm: Double
        if t.hasSuffix("cm") { cm = try number(t.dropLast(2)) } else if t.hasSuffix("m") { cm = try number(t.dropLast()) * 100 } else if let r = t.range(of: "ft") ?? t.range(of: "'") {
            let feet = try number(t[..<r.lowerBound])
            var rest = t[r.upperBound...]
            for suffix in ["inches", "inch", "in", "\"", "''"] where rest.hasSuffix(suffix) { rest = rest.dropLast(suffix.count); break }
            let inches = rest.isEmpty ? 0 : try number(rest)
            guard inches < 12 else { throw bad }
            cm = (feet * 12 + inches) * 2.54
        } else if t.hasSuffix("in") || t.hasSuffix("\"") {
            cm = try number(t.dropLast(t.hasSuffix("in") ? 2 : 1)) * 2.54
        } else {
            let n = try number(Substring(t))
            cm = units == .imperial ? n * 2.54 : n
        }
        guard heightRange.contains(cm) else {
            throw ProfileError("a height of \(cm.rounded(places: 1).formattedAmount) cm is not a person's height (45 to 272 cm)")
        }
        return cm
    }

    /// A body weight in kg from "80.4", "80.4kg", "177lb": the number and the unit it was given in (nil when bare).
    public static func parseWeight(_ text: String) throws -> (value: Double, unit: WeightUnit?) {
        let t = text.lowercased().replacingOccurrences(of: " ", with: "")
        var unit: WeightUnit?
        var digits = Substring(t)
        for (suffix, u) in [("kgs", WeightUnit.kg), ("kg", .kg), ("lbs", .lb), ("lb", .lb), ("pounds", .lb)] where t.hasSuffix(suffix) {
            unit = u
            digits = t.dropLast(suffix.count)
            break
        }
        guard let d = Double(digits), d.isFinite, d > 0 else { throw ProfileError("'\(text.prefix(20))' is not a weight: use e.g. 80.4, 80.4kg or 177lb") }
        return (d, unit)
    }

    /// "0.5kg/week", "1lb/week", "0.5": kg a week (a bare number in `units`).
    public static func parseRate(_ text: String, units: UnitSystem) throws -> Double {
        var t = text.lowercased().replacingOccurrences(of: " ", with: "")
        for suffix in ["/week", "/wk", "perweek", "/w"] where t.hasSuffix(suffix) { t = String(t.dropLast(suffix.count)); break }
        let (value, unit) = try parseWeight(t)
        let kg = (unit ?? (units == .imperial ? .lb : .kg)).kilograms(value)
        guard rateRange.contains(kg) else { throw ProfileError("a rate of \(kg.rounded(places: 2).formattedAmount) kg/week is outside 0.05 to 1.5 kg/week") }
        return kg
    }

    // MARK: - Display

    /// "180 cm" or "5 ft 11 in" in the profile's units.
    public func heightText(_ cm: Double) -> String {
        guard unitSystem == .imperial else { return "\(cm.rounded().formattedAmount) cm" }
        let totalInches = (cm / 2.54).rounded()
        return "\(Int(totalInches) / 12) ft \(Int(totalInches) % 12) in"
    }

    /// "80.4 kg" or "177.2 lb" in the profile's units.
    public func weightText(_ kg: Double, places: Int = 1) -> String {
        let u: WeightUnit = unitSystem == .imperial ? .lb : .kg
        return "\(u.amount(kg).rounded(places: places).formattedAmount) \(u.rawValue)"
    }
}

/// The two units a scale shows.
public enum WeightUnit: String, Sendable, Codable, CaseIterable {
    case kg, lb

    public static let poundInKg = 0.45359237

    /// `value` of this unit in kilograms.
    public func kilograms(_ value: Double) -> Double { self == .kg ? value : value * Self.poundInKg }
    /// `kg` in this unit.
    public func amount(_ kg: Double) -> Double { self == .kg ? kg : kg / Self.poundInKg }
}
