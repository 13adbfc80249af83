// Calendar days without Foundation's Calendar: days since 1970-01-01 and "YYYY-MM-DD" in the
// proleptic Gregorian calendar (Howard Hinnant's days-from-civil and civil-from-days). Used by
// approval rules' date conditions and by the offline assistant (Agent is below both).

public enum CivilDays {
    /// The day number of a real "YYYY-MM-DD" date; nil for anything else ("2026-02-30", "2026-2-3").
    public static func dayNumber(_ s: String) -> Int? {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]), (1...12).contains(m), (1...31).contains(d) else { return nil }
        let yy = m <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let n = era * 146_097 + doe - 719_468
        // A day past the month's end lands in the next month: not this date.
        return civil(n) == (y, m, d) ? n : nil
    }

    /// Year, month and day of a day number.
    public static func civil(_ n: Int) -> (year: Int, month: Int, day: Int) {
        let z = n + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// "YYYY-MM-DD" of a day number.
    public static func format(_ n: Int) -> String {
        let (y, m, d) = civil(n)
        func pad(_ v: Int, _ w: Int) -> String { let t = String(v); return String(repeating: "0", count: max(0, w - t.count)) + t }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }
}
