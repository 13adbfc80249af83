// JSON coders with the journal's conventions: sorted keys, ISO 8601 dates with milliseconds.
import Foundation

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

    /// "2024-05-01T12:30:00.250Z".
    public static func formatISO(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// Parses ISO 8601 with or without fractional seconds.
    public static func parseISO(_ s: String) -> Date? {
        if let d = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(s) { return d }
        return try? Date.ISO8601FormatStyle().parse(s)
    }
}
