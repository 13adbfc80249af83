// The person: the profile (one settings row, so it syncs and backs up like the goals) and body
// weight (journal_weights, one row per weigh-in), each write recorded for undo.
import Base
import Foundation
import Nutrition
import SQLiteKit

/// One weigh-in.
public struct WeighIn: Sendable, Hashable, Codable, Identifiable {
    public var id: UUID
    public var day: CalendarDay
    public var kg: Double
    /// Where it came from: "cli", "assistant", "import:cronometer", …
    public var source: String
    public var createdAt: Date

    public init(id: UUID, day: CalendarDay, kg: Double, source: String, createdAt: Date) {
        self.id = id
        self.day = day
        self.kg = kg
        self.source = source
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey { case id, day, kg, source, createdAt = "created_at" }
}

extension JournalStore {
    static func registerPersonMigration(into migrator: inout Migrator) {
        // Issue 33: weigh-ins, and the undo log learns the profile and weigh-ins (the kind CHECK
        // is rebuilt: SQLite cannot alter a CHECK in place).
        migrator.register("journal-2-person", sql: """
            CREATE TABLE journal_weights (
                id TEXT PRIMARY KEY NOT NULL,
                day TEXT NOT NULL,
                kg REAL NOT NULL,
                source TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL
            );
            CREATE INDEX journal_weights_day ON journal_weights (day, created_at);
            CREATE TABLE journal_undo_changes_new (
                step_id INTEGER NOT NULL,
                ordinal INTEGER NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('entry', 'food', 'goals', 'profile', 'weight')),
                object_id TEXT NOT NULL,
                before TEXT,
                after TEXT,
                PRIMARY KEY (step_id, kind, object_id)
            ) WITHOUT ROWID;
            INSERT INTO journal_undo_changes_new SELECT step_id, ordinal, kind, object_id, before, after FROM journal_undo_changes;
            DROP TABLE journal_undo_changes;
            ALTER TABLE journal_undo_changes_new RENAME TO journal_undo_changes;
            """)
    }

    // MARK: - Profile

    /// The profile (empty until set).
    public func profile(in db: Database) throws -> Profile {
        guard let text = try db.scalar("SELECT value FROM journal_settings WHERE key = 'profile'").string else { return Profile() }
        do { return try JournalJSON.decoder.decode(Profile.self, from: Data(text.utf8)) } catch {
            throw JournalError.corruptRow("profile setting")
        }
    }

    public func profile() throws -> Profile { try queue.read { try profile(in: $0) } }

    /// Replaces the profile after checking it can be a person's today; nothing is stored otherwise.
    @discardableResult
    public func setProfile(_ profile: Profile, in db: Database) throws -> Profile {
        if let problem = profile.problem(today: today()) { throw JournalError.invalid(field: "profile", reason: "not stored: \(problem)") }
        let json = String(decoding: try JournalJSON.compactEncoder.encode(profile), as: UTF8.self)
        try db.transaction { db in
            try recording(.profile, "profile", in: db) {
                if profile.isEmpty {
                    try db.execute("DELETE FROM journal_settings WHERE key = 'profile'")
                } else {
                    try db.execute("INSERT INTO journal_settings (key, value) VALUES ('profile', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [json])
                }
            }
        }
        return profile
    }

    @discardableResult
    public func setProfile(_ profile: Profile) throws -> Profile { try queue.write { try setProfile(profile, in: $0) } }

    // MARK: - Standing notes

    /// Standing notes are at most this many characters (they go into every request).
    public static let notesLimit = 4_000

    /// What the person wants the assistant always to know (nil until set).
    public func notes(in db: Database) throws -> String? {
        try db.scalar("SELECT value FROM journal_settings WHERE key = 'notes'").string
    }

    public func notes() throws -> String? { try queue.read { try notes(in: $0) } }

    /// Replaces the standing notes; blank text removes them.
    public func setNotes(_ text: String, in db: Database) throws {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard t.count <= Self.notesLimit else {
            throw JournalError.invalid(field: "notes", reason: "are longer than \(Self.notesLimit) characters (\(t.count)); keep what the assistant must always know")
        }
        try db.transaction { db in
            try recording(.profile, "notes", in: db) {
                if t.isEmpty {
                    try db.execute("DELETE FROM journal_settings WHERE key = 'notes'")
                } else {
                    try db.execute("INSERT INTO journal_settings (key, value) VALUES ('notes', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [t])
                }
            }
        }
    }

    public func setNotes(_ text: String) throws { try queue.write { try setNotes(text, in: $0) } }

    // MARK: - Weigh-ins

    /// Weigh-ins from 2 to 650 kg.
    public static let weightRange = Profile.weightRange

    /// Logs a weigh-in on `day` (today by default).
    @discardableResult
    public func logWeight(kg: Double, day: CalendarDay? = nil, source: String, in db: Database) throws -> WeighIn {
        guard kg.isFinite, Self.weightRange.contains(kg) else {
            throw JournalError.invalid(field: "weight", reason: "must be between 2 and 650 kg, got \(kg.rounded(places: 1).formattedAmount) kg")
        }
        let source = try checkText(source, field: "source", max: 40)
        let w = WeighIn(id: UUID(), day: day ?? today(), kg: kg.rounded(places: 3), source: source, createdAt: now())
        try insertWeighIn(w, in: db)
        return w
    }

    /// Writes a checked weigh-in, recorded for undo.
    func insertWeighIn(_ w: WeighIn, in db: Database) throws {
        try db.transaction { db in
            try recording(.weight, w.id.uuidString, in: db) {
                try db.execute("INSERT INTO journal_weights (id, day, kg, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                               [w.id.uuidString, w.day.description, w.kg, w.source, w.createdAt.milliseconds, w.createdAt.milliseconds])
            }
        }
    }

    /// Deletes a weigh-in (recorded for undo); false when there is none with that id.
    @discardableResult
    public func deleteWeighIn(_ id: UUID, in db: Database) throws -> Bool {
        guard try db.row("SELECT 1 FROM journal_weights WHERE id = ?", [id.uuidString]) != nil else { return false }
        try db.transaction { db in
            try recording(.weight, id.uuidString, in: db) { try db.execute("DELETE FROM journal_weights WHERE id = ?", [id.uuidString]) }
        }
        return true
    }

    @discardableResult
    public func logWeight(kg: Double, day: CalendarDay? = nil, source: String) throws -> WeighIn {
        try queue.write { try logWeight(kg: kg, day: day, source: source, in: $0) }
    }

    /// Weigh-ins from `from` to `to` (inclusive; nil = open), oldest first.
    public func weighIns(from: CalendarDay? = nil, to: CalendarDay? = nil, in db: Database) throws -> [WeighIn] {
        try db.rows("SELECT id, day, kg, source, created_at FROM journal_weights WHERE day >= ? AND day <= ? ORDER BY day, created_at",
                    [from?.description ?? "", to?.description ?? "9999-12-31"]).map { r in
            guard let id = r[0].string.flatMap(UUID.init(uuidString:)), let dayText = r[1].string, let day = try? CalendarDay(parsing: dayText),
                  let kg = r[2].double, kg.isFinite, kg > 0, let source = r[3].string, let created = r[4].int64 else {
                throw JournalError.corruptRow("weigh-in")
            }
            return WeighIn(id: id, day: day, kg: kg, source: source, createdAt: Date(milliseconds: created))
        }
    }

    public func weighIns(from: CalendarDay? = nil, to: CalendarDay? = nil) throws -> [WeighIn] {
        try queue.read { try weighIns(from: from, to: to, in: $0) }
    }

    /// The trend over every weigh-in up to `to` (the trend needs the history before a shown range).
    public func weightTrend(to: CalendarDay? = nil, in db: Database) throws -> [TrendPoint] {
        // Only day and kg, already in day order: ten years of daily weigh-ins are 3,650 rows.
        var readings: [WeightReading] = []
        try db.forEachRow("SELECT day, kg FROM journal_weights WHERE day <= ? ORDER BY day, created_at", [to?.description ?? "9999-12-31"]) { s in
            guard let text = s.value(at: 0).string, let day = try? CalendarDay(parsing: text), let kg = s.value(at: 1).double, kg.isFinite, kg > 0 else {
                throw JournalError.corruptRow("weigh-in")
            }
            readings.append(WeightReading(day: day, kg: kg))
        }
        return WeightTrend.points(readings)
    }

    /// Why the stored weigh-in `id` breaks the journal's rules (nil when it does not).
    public func problemWithStoredWeight(id: String, in db: Database) throws -> String? {
        guard let r = try db.row("SELECT day, kg, source FROM journal_weights WHERE id = ?", [id]) else { return nil }
        guard UUID(uuidString: id) != nil else { return "its id is not a UUID" }
        guard let d = r[0].string, (try? CalendarDay(parsing: d)) != nil else { return "its day is not YYYY-MM-DD" }
        guard let kg = r[1].double, Self.weightRange.contains(kg) else { return "its weight is not between 2 and 650 kg" }
        guard let s = r[2].string, s.count <= 40 else { return "its source is not text of at most 40 characters" }
        return nil
    }
}
