// UTC timestamps as fixed-width ISO 8601 text ("2026-11-29T12:45:01.123Z"), which sorts as time:
// diagnostics events, backups and the undo log write them, without Foundation's slow formatter.

public enum UTCTimestamp {
    /// "2024-05-01T12:30:00.250Z" for milliseconds since 1970-01-01T00:00:00Z (before it too).
    public static func iso8601(milliseconds: Int64) -> String {
        let msPerDay: Int64 = 86_400_000
        let days = milliseconds >= 0 ? milliseconds / msPerDay : (milliseconds - (msPerDay - 1)) / msPerDay
        let msOfDay = milliseconds - days * msPerDay
        let h = msOfDay / 3_600_000, m = (msOfDay / 60_000) % 60, s = (msOfDay / 1000) % 60, ms = msOfDay % 1000
        return "\(CalendarDay.text(dayNumber: Int(days)))T\(zeroPadded(h, width: 2)):\(zeroPadded(m, width: 2)):"
            + "\(zeroPadded(s, width: 2)).\(zeroPadded(ms, width: 3))Z"
    }
}
