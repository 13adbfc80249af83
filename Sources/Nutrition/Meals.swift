// Meals and the default-meal schedule from the local clock (calendar days are Base's CalendarDay).

/// The meal an entry belongs to.
public enum Meal: String, Sendable, Codable, CaseIterable, Comparable {
    case breakfast, lunch, dinner, snack

    /// Parses "breakfast", "Lunch", "snacks" ...
    public init(parsing text: String) throws {
        var key = text.trimmingWhitespace().lowercased()
        if key == "snacks" { key = "snack" }
        guard let m = Meal(rawValue: key) else { throw NutritionError.unknownMeal(String(text.prefix(40))) }
        self = m
    }

    public var displayName: String { rawValue.prefix(1).uppercased() + rawValue.dropFirst() }

    private var order: Int { Meal.allCases.firstIndex(of: self) ?? 0 }
    public static func < (a: Meal, b: Meal) -> Bool { a.order < b.order }
}

/// A wall-clock time of day in minutes since midnight (0..<1440).
public struct TimeOfDay: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    public let minutes: Int

    public init(hour: Int, minute: Int = 0) throws {
        guard (0..<24).contains(hour), (0..<60).contains(minute) else {
            throw NutritionError.invalidTime("\(hour):\(minute)")
        }
        minutes = hour * 60 + minute
    }

    public init(minutes: Int) throws {
        guard (0..<1440).contains(minutes) else { throw NutritionError.invalidTime("\(minutes) minutes") }
        self.minutes = minutes
    }

    /// Parses "HH:MM".
    public init(parsing text: String) throws {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let h = Int(parts[0]), let m = Int(parts[1]), parts[1].count == 2 else {
            throw NutritionError.invalidTime(String(text.prefix(20)))
        }
        try self.init(hour: h, minute: m)
    }

    public var description: String {
        let h = minutes / 60, m = minutes % 60
        return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
    }

    public static func < (a: TimeOfDay, b: TimeOfDay) -> Bool { a.minutes < b.minutes }

    public init(from decoder: Decoder) throws {
        try self.init(parsing: try decoder.singleValueContainer().decode(String.self))
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}

/// When each main meal starts; the default meal is the one whose window contains the clock.
/// Snack is never a default: it is only used when chosen.
public struct MealSchedule: Sendable, Hashable, Codable {
    public var breakfastStart: TimeOfDay
    public var lunchStart: TimeOfDay
    public var dinnerStart: TimeOfDay

    enum CodingKeys: String, CodingKey {
        case breakfastStart = "breakfast_start", lunchStart = "lunch_start", dinnerStart = "dinner_start"
    }

    /// Breakfast 02:00–12:00, lunch 12:00–18:00, dinner 18:00–02:00.
    public static let standard = MealSchedule(uncheckedBreakfast: 120, lunch: 720, dinner: 1080)

    private init(uncheckedBreakfast b: Int, lunch l: Int, dinner d: Int) {
        // Values are constants in range; the failable initialiser cannot fail here.
        breakfastStart = (try? TimeOfDay(minutes: b)) ?? TimeOfDay.midnight
        lunchStart = (try? TimeOfDay(minutes: l)) ?? TimeOfDay.midnight
        dinnerStart = (try? TimeOfDay(minutes: d)) ?? TimeOfDay.midnight
    }

    /// A custom schedule. The three starts must be distinct and in cyclic order
    /// breakfast -> lunch -> dinner (dinner may wrap past midnight).
    public init(breakfastStart: TimeOfDay, lunchStart: TimeOfDay, dinnerStart: TimeOfDay) throws {
        let b = breakfastStart.minutes, l = lunchStart.minutes, d = dinnerStart.minutes
        let lOff = (l - b + 1440) % 1440, dOff = (d - b + 1440) % 1440
        guard lOff > 0, dOff > lOff else {
            throw NutritionError.invalidTime("meal schedule must run breakfast, lunch, dinner in order")
        }
        self.breakfastStart = breakfastStart; self.lunchStart = lunchStart; self.dinnerStart = dinnerStart
    }

    /// The meal for a local clock time.
    public func defaultMeal(at time: TimeOfDay) -> Meal {
        let b = breakfastStart.minutes
        let t = (time.minutes - b + 1440) % 1440
        let l = (lunchStart.minutes - b + 1440) % 1440
        let d = (dinnerStart.minutes - b + 1440) % 1440
        if t < l { return .breakfast }
        if t < d { return .lunch }
        return .dinner
    }
}

extension TimeOfDay {
    static var midnight: TimeOfDay { TimeOfDay(uncheckedMinutes: 0) }
    private init(uncheckedMinutes: Int) { minutes = uncheckedMinutes }
}
