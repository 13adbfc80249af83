// Calendar days without Foundation's Calendar: YYYY-MM-DD in the proleptic Gregorian calendar and
// day numbers (days since 1970-01-01). The one copy of the day arithmetic (Howard Hinnant's
// days-from-civil and civil-from-days), used by the journal, approval rules' dates, the offline
// assistant and every UTC timestamp.

/// A date that is not a real YYYY-MM-DD day ("2026-02-30", "2026-2-3", "today").
public struct InvalidDate: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was given (at most 40 characters of it).
    public let text: String
    public init(_ text: String) { self.text = String(text.prefix(40)) }
    public var description: String { "invalid date \"\(text)\": use YYYY-MM-DD" }
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
            throw InvalidDate("\(year)-\(month)-\(day)")
        }
        self.year = year; self.month = month; self.day = day
    }

    /// 1970-01-01, the day numbers' origin.
    public static let unixEpoch = CalendarDay(unchecked: 1970, 1, 1)

    private init(unchecked y: Int, _ m: Int, _ d: Int) { year = y; month = m; day = d }

    /// Parses exactly "YYYY-MM-DD" (ASCII digits only: no signs, no other separators).
    public init(parsing text: String) throws {
        let u = Array(text.utf8)
        func digits(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r { guard u[i] >= 48, u[i] <= 57 else { return nil }; v = v * 10 + Int(u[i] - 48) }
            return v
        }
        guard u.count == 10, u[4] == 45, u[7] == 45, let y = digits(0..<4), let m = digits(5..<7), let d = digits(8..<10) else {
            throw InvalidDate(text)
        }
        do { try self.init(year: y, month: m, day: d) } catch { throw InvalidDate(text) }
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
    public var dayNumber: Int { Self.dayNumber(year: year, month: month, day: day) }

    /// The day with this day number (years 1 through 9999).
    public init(dayNumber: Int) throws {
        let c = Self.civil(dayNumber)
        try self.init(year: c.year, month: c.month, day: c.day)
    }

    /// This day plus `n` days.
    public func adding(days n: Int) throws -> CalendarDay { try CalendarDay(dayNumber: dayNumber + n) }

    /// Days from `self` to `other` (positive when `other` is later).
    public func days(to other: CalendarDay) -> Int { other.dayNumber - dayNumber }

    /// Monday = 1 ... Sunday = 7.
    public var isoWeekday: Int { ((dayNumber % 7 + 7 + 3) % 7) + 1 }

    public var description: String { Self.text(year: year, month: month, day: day) }

    public static func < (a: CalendarDay, b: CalendarDay) -> Bool { a.dayNumber < b.dayNumber }

    public init(from decoder: Decoder) throws {
        try self.init(parsing: try decoder.singleValueContainer().decode(String.self))
    }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    // MARK: - The arithmetic, for any day number

    /// Days since 1970-01-01 of a year, month and day (Howard Hinnant's days_from_civil; no range check).
    public static func dayNumber(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Year, month and day of any day number (Howard Hinnant's civil_from_days; no range check,
    /// so timestamps far from today still have a date).
    public static func civil(_ dayNumber: Int) -> (year: Int, month: Int, day: Int) {
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// "YYYY-MM-DD" of any day number (a year past 9999 has five digits).
    public static func text(dayNumber: Int) -> String {
        let c = civil(dayNumber)
        return text(year: c.year, month: c.month, day: c.day)
    }

    private static func text(year: Int, month: Int, day: Int) -> String {
        "\(zeroPadded(year, width: 4))-\(zeroPadded(month, width: 2))-\(zeroPadded(day, width: 2))"
    }
}
