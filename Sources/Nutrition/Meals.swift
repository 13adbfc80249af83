// Meals, the default-meal schedule from the local clock, and calendar days (YYYY-MM-DD).

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

/// A calendar date (the user's day), written YYYY-MM-DD. Ordering and arithmetic are exact
/// (proleptic Gregorian), independent of time zones.
public struct CalendarDay: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    public init(year: Int, month: Int, day: Int) throws {
        guard (1...9999).contains(year), (1...12).contains(month),
              (1...CalendarDay.daysInMonth(year: year, month: month)).contains(day) else {
            throw NutritionError.invalidDate("\(year)-\(month)-\(day)")
        }
        self.year = year; self.month = month; self.day = day
    }

    /// 1970-01-01, the day numbers' origin.
    public static let unixEpoch = CalendarDay(unchecked: 1970, 1, 1)

    private init(unchecked y: Int, _ m: Int, _ d: Int) { year = y; month = m; day = d }

    /// Parses exactly "YYYY-MM-DD".
    public init(parsing text: String) throws {
        let u = Array(text.utf8)
        func digits(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r { guard u[i] >= 48, u[i] <= 57 else { return nil }; v = v * 10 + Int(u[i] - 48) }
            return v
        }
        guard u.count == 10, u[4] == 45, u[7] == 45, let y = digits(0..<4), let m = digits(5..<7), let d = digits(8..<10) else {
            throw NutritionError.invalidDate(String(text.prefix(40)))
        }
        do { try self.init(year: y, month: m, day: d) } catch { throw NutritionError.invalidDate(text) }
    }

    public static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 (negative before).
    public var dayNumber: Int {
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The day with this day number.
    public init(dayNumber z0: Int) throws {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        try self.init(year: yoe + era * 400 + (m <= 2 ? 1 : 0), month: m, day: d)
    }

    /// This day plus `n` days.
    public func adding(days n: Int) throws -> CalendarDay { try CalendarDay(dayNumber: dayNumber + n) }

    /// Days from `self` to `other` (positive when `other` is later).
    public func days(to other: CalendarDay) -> Int { other.dayNumber - dayNumber }

    /// Monday = 1 ... Sunday = 7.
    public var isoWeekday: Int { ((dayNumber % 7 + 7 + 3) % 7) + 1 }

    public var description: String {
        func pad(_ v: Int, _ w: Int) -> String { let s = String(v); return String(repeating: "0", count: max(0, w - s.count)) + s }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    public static func < (a: CalendarDay, b: CalendarDay) -> Bool { a.dayNumber < b.dayNumber }

    public init(from decoder: Decoder) throws {
        try self.init(parsing: try decoder.singleValueContainer().decode(String.self))
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}
