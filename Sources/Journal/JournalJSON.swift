// JSON coders with the journal's conventions: sorted keys, ISO 8601 dates with milliseconds.
import Base
import Foundation
import Nutrition

public enum JournalJSON {
    /// For --json output and backups: sorted keys, pretty printed, ISO 8601 dates.
    public static var encoder: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(formatISO(date))
        }
        return e
    }

    /// Compact form for columns stored in the database.
    static var compactEncoder: JSONEncoder {
        let e = encoder
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }

    /// Reads what `encoder` writes.
    public static var decoder: JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .custom { decoder in
            let c = try decoder.singleValueContainer()
            let s = try c.decode(String.self)
            guard let date = parseISO(s) else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "invalid timestamp \(s.prefix(40)); use ISO 8601")
            }
            return date
        }
        return d
    }

    /// "2024-05-01T12:30:00.250Z" (UTC, milliseconds). Hand-rolled: backups format tens of
    /// thousands of timestamps and Foundation's formatter is far slower.
    public static func formatISO(_ date: Date) -> String {
        UTCTimestamp.iso8601(milliseconds: date.milliseconds)
    }

    /// Parses ISO 8601 ("…Z" fast, any offset through Foundation), with or without fractions.
    public static func parseISO(_ s: String) -> Date? {
        let u = Array(s.utf8)
        func num(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r { guard u[i] >= 48, u[i] <= 57 else { return nil }; v = v * 10 + Int(u[i] - 48) }
            return v
        }
        if (u.count == 20 || u.count == 24), u[10] == 84, u[13] == 58, u[16] == 58, u[u.count - 1] == 90 {
            // The exact UTC shape we write: parse it strictly, never leniently.
            guard let day = try? CalendarDay(parsing: String(decoding: u[0..<10], as: UTF8.self)),
                  let h = num(11..<13), let m = num(14..<16), let sec = num(17..<19), h < 24, m < 60, sec < 60 else { return nil }
            var ms = 0
            if u.count == 24 {
                guard u[19] == 46, let f = num(20..<23) else { return nil }
                ms = f
            }
            let total = Int64(day.dayNumber) * 86_400_000 + Int64(((h * 60 + m) * 60 + sec) * 1000 + ms)
            return Date(milliseconds: total)
        }
        if let d = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(s) { return d }
        return try? Date.ISO8601FormatStyle().parse(s)
    }
}
