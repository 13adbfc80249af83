// `ofj status`: one line for a shell prompt, tmux, starship or Claude Code's status line, from a
// format with fields in braces. Only numbers and fixed words: no journal text reaches it.
import Foundation
import Journal

public enum StatusLine {
    public static let defaultFormat = "{kcal}/{kcal_goal} kcal · {protein_g} g P · {fast}"

    /// Every field a format may name, with what it shows (for `--help` and the error line).
    public static let fields: [(name: String, meaning: String)] = [
        ("kcal", "today's energy in kcal"),
        ("kcal_goal", "the energy goal (– when none)"),
        ("kcal_left", "goal minus today's energy (negative when over)"),
        ("protein_g", "today's protein in g"),
        ("protein_goal", "the protein goal in g"),
        ("carbs_g", "today's carbohydrate in g"),
        ("fat_g", "today's fat in g"),
        ("entries", "how many entries today has"),
        ("fast", "time since the last entry, e.g. \"fast 3h05m\" (\"fast –\" before the first)"),
        ("fast_min", "the same in whole minutes (empty before the first entry)"),
    ]

    public enum Piece: Equatable, Sendable {
        case text(String)
        case field(String)
    }

    /// A format that cannot be used, in one line naming the known fields.
    public struct FormatError: Error, CustomStringConvertible {
        public let description: String
    }

    static var knownList: String { fields.map { "{\($0.name)}" }.joined(separator: ", ") }

    /// Splits `format` into text and fields; `{{` and `}}` are literal braces.
    public static func parse(_ format: String) throws -> [Piece] {
        var pieces: [Piece] = []
        var text = ""
        var i = format.startIndex
        while i < format.endIndex {
            let c = format[i]
            let next = format.index(after: i)
            if c == "{" || c == "}", next < format.endIndex, format[next] == c {
                text.append(c)
                i = format.index(after: next)
                continue
            }
            if c == "}" { throw FormatError(description: "--format has a } without its {; write }} for a brace (known fields: \(knownList))") }
            guard c == "{" else { text.append(c); i = next; continue }
            guard let close = format[next...].firstIndex(where: { $0 == "}" || $0 == "{" }), format[close] == "}" else {
                throw FormatError(description: "--format has a { without its }; write {{ for a brace (known fields: \(knownList))")
            }
            let name = String(format[next..<close])
            guard fields.contains(where: { $0.name == name }) else {
                let shown = name.count > 30 ? String(name.prefix(30)) + "…" : name
                throw FormatError(description: "unknown field {\(shown)} in --format; known fields: \(knownList)")
            }
            if !text.isEmpty { pieces.append(.text(text)); text = "" }
            pieces.append(.field(name))
            i = format.index(after: close)
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        return pieces
    }

    /// The line for `figures` at `now`; nil figures (the journal could not be read at once, e.g.
    /// busy) show every field as "?", so the line keeps its shape.
    public static func render(_ pieces: [Piece], figures: StatusFigures?, now: Date) -> String {
        pieces.map { piece in
            switch piece {
            case .text(let t): return t
            case .field(let name): return figures.map { value(name, $0, now: now) } ?? "?"
            }
        }.joined()
    }

    static func value(_ name: String, _ f: StatusFigures, now: Date) -> String {
        let kcal = f.totals["energy_kcal"] ?? 0
        switch name {
        case "kcal": return whole(kcal)
        case "kcal_goal": return f.goals["energy_kcal"].map(whole) ?? "–"
        case "kcal_left": return f.goals["energy_kcal"].map { whole($0 - kcal) } ?? "–"
        case "protein_g": return whole(f.totals["protein_g"] ?? 0)
        case "protein_goal": return f.goals["protein_g"].map(whole) ?? "–"
        case "carbs_g": return whole(f.totals["carbohydrate_g"] ?? 0)
        case "fat_g": return whole(f.totals["fat_g"] ?? 0)
        case "entries": return String(f.entries)
        case "fast": return "fast " + (minutesSince(f.lastEntryAt, now: now).map(duration) ?? "–")
        case "fast_min": return minutesSince(f.lastEntryAt, now: now).map(String.init) ?? ""
        default: return "?"
        }
    }

    /// Rounded to a whole number, no separators (a prompt is narrow); "-0" never shows.
    static func whole(_ v: Double) -> String {
        guard v.isFinite, abs(v) < 1e12 else { return "?" }
        let n = Int(v.rounded())
        return String(n)
    }

    static func minutesSince(_ date: Date?, now: Date) -> Int? {
        guard let date else { return nil }
        return max(0, Int(now.timeIntervalSince(date) / 60))
    }

    /// "42m", "3h05m", "2d04h".
    static func duration(_ minutes: Int) -> String {
        if minutes < 60 { return "\(minutes)m" }
        let hours = minutes / 60
        if hours < 48 { return "\(hours)h" + pad(minutes % 60) + "m" }
        return "\(hours / 24)d" + pad(hours % 24) + "h"
    }

    static func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
}
