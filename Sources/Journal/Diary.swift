// A fuller diary (issue 34 §8): day notes, water, and fasting windows derived from entry times.
// Notes are settings rows (`daynote:DAY:ID`), so they sync, back up and undo like the profile;
// water is an ordinary entry ("Water", water_g), so it does everything an entry does.
import Base
import Foundation
import Nutrition
import SQLiteKit

/// A note on a day ("felt bloated").
public struct DayNote: Sendable, Hashable, Codable, Identifiable {
    public var id: UUID
    public var day: CalendarDay
    public var text: String
    public var createdAt: Date

    public init(id: UUID, day: CalendarDay, text: String, createdAt: Date) {
        self.id = id; self.day = day; self.text = text; self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey { case id, day, text, createdAt = "created_at" }
}

/// One night without entries: from the last entry of `day`'s evening before to its first entry.
public struct FastingWindow: Sendable, Hashable {
    /// The day the window ends on (its first entry).
    public var day: CalendarDay
    public var start: Date
    public var end: Date
    public var hours: Double { end.timeIntervalSince(start) / 3600 }
}

extension JournalStore {
    /// The longest note, in characters.
    public static let noteMaxCharacters = 2_000
    static let notePrefix = "daynote:"

    /// 1048576 → "1,048,576".
    public static func grouped(_ n: Int) -> String {
        let digits = String(abs(n))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }

    static func noteKey(_ day: CalendarDay, _ id: UUID) -> String { "\(notePrefix)\(day):\(id.uuidString)" }

    /// Adds a note to `day` (today when nil). Empty, too long, or with control characters other
    /// than new lines: refused, nothing written. One undo step.
    @discardableResult
    public func addNote(_ text: String, day: CalendarDay? = nil, in db: Database) throws -> DayNote {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw JournalError.invalid(field: "note", reason: "is empty; write what to note") }
        guard trimmed.count <= Self.noteMaxCharacters else {
            throw JournalError.invalid(field: "note", reason: "has \(Self.grouped(trimmed.count)) characters; a note holds at most \(Self.grouped(Self.noteMaxCharacters))")
        }
        guard !trimmed.unicodeScalars.contains(where: { ($0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t") || $0 == "\u{1B}" }) else {
            throw JournalError.invalid(field: "note", reason: "contains control characters; write it as plain text")
        }
        let note = DayNote(id: UUID(), day: day ?? today(), text: trimmed, createdAt: now())
        try db.transaction { db in try writeNote(note, in: db) }
        return note
    }

    @discardableResult
    public func addNote(_ text: String, day: CalendarDay? = nil) throws -> DayNote { try queue.write { try addNote(text, day: day, in: $0) } }

    func writeNote(_ note: DayNote, in db: Database) throws {
        let value: JSONValue = ["text": .string(note.text), "created_at": .number(Double(note.createdAt.milliseconds))]
        let key = Self.noteKey(note.day, note.id)
        try recording(.profile, key, in: db) {
            try db.execute("INSERT INTO journal_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                           [key, value.serialized])
        }
    }

    /// The notes of `day`, oldest first.
    public func notes(on day: CalendarDay, in db: Database) throws -> [DayNote] {
        try loadNotes("key >= ? AND key < ?", ["\(Self.notePrefix)\(day):", "\(Self.notePrefix)\(day);"], in: db)
    }

    public func notes(on day: CalendarDay) throws -> [DayNote] { try queue.read { try notes(on: day, in: $0) } }

    /// Every note, oldest day first.
    public func allNotes(in db: Database) throws -> [DayNote] {
        try loadNotes("key >= ? AND key < ?", [Self.notePrefix, "daynote;"], in: db)
    }

    /// Notes containing every word of `query` (case- and accent-insensitive), newest first.
    public func searchNotes(_ query: String, limit: Int = 20, in db: Database) throws -> [DayNote] {
        let words = query.split(whereSeparator: \.isWhitespace).map(String.init)
        guard !words.isEmpty else { return [] }
        let found = try allNotes(in: db).filter { n in
            words.allSatisfy { n.text.range(of: $0, options: [.caseInsensitive, .diacriticInsensitive]) != nil }
        }
        return Array(found.reversed().prefix(max(0, limit)))
    }

    public func searchNotes(_ query: String, limit: Int = 20) throws -> [DayNote] { try queue.read { try searchNotes(query, limit: limit, in: $0) } }

    private func loadNotes(_ clause: String, _ args: [DatabaseValueConvertible], in db: Database) throws -> [DayNote] {
        var out: [DayNote] = []
        for row in try db.rows("SELECT key, value FROM journal_settings WHERE \(clause) ORDER BY key", args) {
            guard let key = row[0].string, let note = Self.decodeNote(key: key, value: row[1].string ?? "") else { continue }
            out.append(note)
        }
        return out.sorted { ($0.day, $0.createdAt, $0.id.uuidString) < ($1.day, $1.createdAt, $1.id.uuidString) }
    }

    /// A stored note row, or nil when the key or value is not one.
    static func decodeNote(key: String, value: String) -> DayNote? {
        guard key.hasPrefix(notePrefix) else { return nil }
        let parts = key.dropFirst(notePrefix.count).split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, let day = try? CalendarDay(parsing: parts[0]), let id = UUID(uuidString: parts[1]),
              let v = try? JSONValue.parse(value), let text = v["text"]?.stringValue, !text.isEmpty, text.count <= noteMaxCharacters,
              let ms = v["created_at"]?.doubleValue, ms.isFinite else { return nil }
        return DayNote(id: id, day: day, text: text, createdAt: Date(milliseconds: Int64(ms)))
    }

    /// Day notes as CSV (RFC 4180, like `exportCSV`): id, day, time (local HH:MM it was written), text.
    public func exportNotesCSV(from: CalendarDay? = nil, to: CalendarDay? = nil) throws -> String {
        let notes = try queue.read { try allNotes(in: $0) }.filter { n in (from.map { n.day >= $0 } ?? true) && (to.map { n.day <= $0 } ?? true) }
        var out = CSV.line(["id", "day", "time", "text"])
        for n in notes {
            out += CSV.line([n.id.uuidString, n.day.description, (try? TimeOfDay(minutes: minuteOfDay(n.createdAt)))?.description ?? "", n.text])
        }
        return out
    }

    /// Writes notes from a backup, by key: a note already there is left as it is. Returns how many were added.
    func importNotes(_ notes: [DayNote], in db: Database) throws -> Int {
        var added = 0
        for n in notes where try db.row("SELECT 1 FROM journal_settings WHERE key = ?", [Self.noteKey(n.day, n.id)]) == nil {
            try writeNote(n, in: db)
            added += 1
        }
        return added
    }

    // MARK: - Water

    /// Logs `milliliters` of water as an entry named "Water" with water_g (1 g per mL), to `meal`
    /// (or the meal of `eatenAt`/now). Plain water has no energy, protein, carbohydrate or fat:
    /// they are stored as 0, not left unreported.
    @discardableResult
    public func logWater(milliliters: Double, day: CalendarDay? = nil, meal: Meal? = nil, eatenAt: Date? = nil, in db: Database) throws -> Entry {
        try check(positive: milliliters, field: "water", max: 20_000)
        let ml = (milliliters * 1000).rounded() / 1000
        let draft = EntryDraft(day: day, meal: meal, name: Self.waterName,
                               serving: ServingSize(quantity: ml, unit: .volume(.ml), grams: ml, milliliters: ml),
                               nutrients: try NutrientAmounts(["water_g": ml, "energy_kcal": 0, "protein_g": 0, "carbohydrate_g": 0, "fat_g": 0]),
                               source: .manual, eatenAt: eatenAt)
        return try logEntry(draft, in: db)
    }

    /// Milliliters of water logged as water (`logWater`, the assistant's "Water") on `day`, not
    /// the water in foods.
    public func waterLogged(on day: CalendarDay, in db: Database) throws -> Double {
        try db.scalar("""
            SELECT COALESCE(sum(n.total), 0) FROM journal_entries e JOIN journal_entry_nutrients n ON n.entry_seq = e.seq AND n.day = e.day
            WHERE e.day = ? AND e.name = ? AND e.source IN ('manual', 'assistant') AND n.nutrient = 'water_g'
            """, [day.description, Self.waterName]).double ?? 0
    }

    // MARK: - Fasting

    /// A water entry: `logWater`'s, or the assistant's "Water" (log_food). Water does not end a fast.
    static let isWater = "(name = 'Water' AND source IN ('manual', 'assistant'))"
    static let notWater = "NOT \(isWater)"

    /// The newest entry (by the time it was eaten) of the last 60 days, water left out.
    public func lastEaten(in db: Database) throws -> Entry? {
        let today = self.today()
        let from = (try? today.adding(days: -60)) ?? today
        return try loadEntries(where: "day >= ? AND \(Self.notWater)", [from.description], order: "COALESCE(eaten_at, created_at) DESC, seq DESC", limit: 1, in: db).first
    }

    /// The overnight windows of the days `from`…`to`: for each day with entries whose day
    /// before has entries too, from the last time eaten the day before to the first time eaten
    /// that day (water left out). Derived from entry times only; no timer is kept.
    public func fastingWindows(from: CalendarDay, to: CalendarDay, in db: Database) throws -> [FastingWindow] {
        let start = (try? from.adding(days: -1)) ?? from
        var times: [(CalendarDay, Date)] = []
        try db.forEachRow("SELECT day, COALESCE(eaten_at, created_at) FROM journal_entries WHERE day >= ? AND day <= ? AND \(Self.notWater)",
                          [start.description, to.description]) { s in
            if let d = s.value(at: 0).string.flatMap({ try? CalendarDay(parsing: $0) }), let ms = s.value(at: 1).int64 {
                times.append((d, Date(milliseconds: ms)))
            }
        }
        return Self.overnightWindows(times).filter { $0.day >= from }
    }

    /// The overnight windows of entries given as (journal day, time eaten): for each day D whose
    /// day before has entries, the latest time of D-1 to the earliest time of D. A window that
    /// would be negative (times out of order) is left out.
    public static func overnightWindows(_ times: [(day: CalendarDay, at: Date)]) -> [FastingWindow] {
        var first: [CalendarDay: Date] = [:], last: [CalendarDay: Date] = [:]
        for (d, t) in times {
            first[d] = min(first[d] ?? t, t)
            last[d] = max(last[d] ?? t, t)
        }
        var out: [FastingWindow] = []
        for d in first.keys.sorted() {
            guard let before = try? d.adding(days: -1), let start = last[before], let end = first[d], end > start else { continue }
            out.append(FastingWindow(day: d, start: start, end: end))
        }
        return out
    }
}

/// A meal of the person's own, with the time it starts ("Pre-workout" at 16:30).
public struct CustomMeal: Sendable, Hashable {
    public static let maxName = 30
    /// Names the four meals and their everyday words already take.
    public static let reserved: Set<String> = ["breakfast", "lunch", "dinner", "snack", "snacks", "supper", "a snack"]

    public var name: String
    public var start: TimeOfDay

    public init(name: String, start: TimeOfDay) { self.name = name; self.start = start }

    /// Why `name` cannot be a custom meal, or nil: empty, too long, control characters, or a
    /// built-in meal's name (any case).
    public static func problem(_ name: String) -> String? {
        let t = name.trimmingCharacters(in: .whitespaces)
        if t.isEmpty { return "a meal needs a name" }
        if t.count > maxName { return "a meal's name is at most \(maxName) characters" }
        if reserved.contains(t.lowercased()) { return "'\(t)' is a built-in meal; choose another name, e.g. \"Pre-workout\"" }
        if t.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format }) {
            return "a meal's name cannot hold control characters"
        }
        return nil
    }
}

extension JournalStore {
    /// The custom meal whose slot holds the local time of `date`: the meals' starts (the
    /// schedule's three and the custom ones) in clock order, each running to the next; nil when
    /// the slot is one of the schedule's.
    public func customMeal(at date: Date) -> CustomMeal? {
        guard !customMeals.isEmpty else { return nil }
        let t = minuteOfDay(date)
        var starts: [(Int, CustomMeal?)] = [(mealSchedule.breakfastStart.minutes, nil), (mealSchedule.lunchStart.minutes, nil),
                                            (mealSchedule.dinnerStart.minutes, nil)]
        starts += customMeals.map { ($0.start.minutes, $0) }
        starts.sort { $0.0 < $1.0 }
        return (starts.last { $0.0 <= t } ?? starts.last)?.1
    }

    /// A copy of the store with these custom meals.
    public func with(customMeals: [CustomMeal]) -> JournalStore {
        var s = self
        s.customMeals = customMeals
        return s
    }
}
