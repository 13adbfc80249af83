// Versioned JSON backup (export; import upserts by UUID so importing twice changes nothing) and CSV export.
import Base
import Foundation
import Nutrition
import OutputSafety
import SQLiteKit

/// Everything in the journal except secrets (there are none in it): goals, foods, entries.
public struct JournalBackup: Sendable, Codable {
    public var schemaVersion: Int
    public var exportedAt: Date
    public var goals: Goals?
    public var foods: [SavedFood]
    public var entries: [Entry]
    /// Saved food id -> barcode (issue 18); absent when no saved food has one, so older backups
    /// and backups without barcodes are unchanged.
    public var foodBarcodes: [String: String]? = nil
    /// Attached images and PDFs (issue 19 §4), only with `ofj backup export --with-attachments`.
    /// Absent otherwise, so the file is unchanged; an older ofj ignores the key (unknown keys are
    /// skipped when decoding), which is why the schema version stays 1. This module only carries
    /// them: the ofj command reads and restores them through the Agent's attachment store.
    public var attachments: [BackupAttachment]? = nil
    /// The profile and the standing notes (issue 33); absent when not set, ignored by an older ofj.
    public var profile: Profile? = nil
    public var notes: String? = nil
    /// Weigh-ins (issue 33); absent when there are none.
    public var weights: [WeighIn]? = nil
    /// Where each goal came from, DRI upper limits and weekday calorie targets (issue 33 §2);
    /// absent when there is no goal_sources row, ignored by an older ofj.
    public var goalSources: GoalSources? = nil
    /// Days marked complete or incomplete (issue 33 §4), day -> mark; absent when none is.
    public var dayMarks: [String: DayMark]? = nil
    /// Day notes (issue 34 §8); absent when there are none.
    public var dayNotes: [DayNote]? = nil

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", exportedAt = "exported_at", goals, foods, entries, foodBarcodes = "food_barcodes"
        case attachments, profile, notes, weights, goalSources = "goal_sources", dayMarks = "day_marks", dayNotes = "day_notes"
    }
}

/// One stored attachment in a backup: its bytes (base64) and the names and dates it was attached with.
public struct BackupAttachment: Sendable, Codable, Hashable {
    public var sha256: String
    public var mediaType: String
    public var byteCount: Int
    /// The bytes, base64 (RFC 4648, padded).
    public var data: String
    public var attached: [Use]

    /// One time the file was attached to a message: the file name it had, and when.
    public struct Use: Sendable, Codable, Hashable {
        public var name: String
        public var attachedAt: Date
        public init(name: String, attachedAt: Date) {
            self.name = name
            self.attachedAt = attachedAt
        }
        enum CodingKeys: String, CodingKey { case name, attachedAt = "attached_at" }
    }

    public init(sha256: String, mediaType: String, byteCount: Int, data: String, attached: [Use]) {
        self.sha256 = sha256
        self.mediaType = mediaType
        self.byteCount = byteCount
        self.data = data
        self.attached = attached
    }

    enum CodingKeys: String, CodingKey { case sha256, mediaType = "media_type", byteCount = "byte_count", data, attached }
}

/// What an import did.
public struct BackupImportReport: Sendable, Hashable, Codable {
    public var entriesInserted = 0
    public var entriesUpdated = 0
    public var entriesUnchanged = 0
    public var foodsInserted = 0
    public var foodsUpdated = 0
    public var foodsUnchanged = 0
    public var goalsChanged = false
    public var profileChanged = false
    public var weightsInserted = 0
    /// Day notes added (nil, and absent from JSON, when the backup has none).
    public var dayNotesInserted: Int? = nil
    /// Composite ingredients whose `source_food_id` names a food neither in the backup nor in the
    /// journal. The link is informational (the ingredient is a snapshot), so they are imported
    /// as they are and only counted.
    public var unknownIngredientLinks = 0

    /// True when the import wrote nothing.
    public var changedNothing: Bool { entriesInserted + entriesUpdated + foodsInserted + foodsUpdated + weightsInserted + (dayNotesInserted ?? 0) == 0 && !goalsChanged && !profileChanged }

    enum CodingKeys: String, CodingKey {
        case entriesInserted = "entries_inserted", entriesUpdated = "entries_updated", entriesUnchanged = "entries_unchanged"
        case foodsInserted = "foods_inserted", foodsUpdated = "foods_updated", foodsUnchanged = "foods_unchanged"
        case goalsChanged = "goals_changed", profileChanged = "profile_changed", weightsInserted = "weights_inserted"
        case dayNotesInserted = "day_notes_inserted"
        case unknownIngredientLinks = "unknown_ingredient_links"
    }
}

extension JournalStore {
    // MARK: - Backup

    /// The whole journal as a backup value.
    public func backup(in db: Database) throws -> JournalBackup {
        let hasGoals = try db.row("SELECT 1 FROM journal_settings WHERE key = 'goals'") != nil
        let foods = try db.rows("SELECT \(JournalStore.foodColumns) FROM journal_saved_foods ORDER BY created_at, id").map(decodeFood)
        var barcodes: [String: String] = [:]
        for row in try db.rows("SELECT id, barcode FROM journal_saved_foods WHERE barcode IS NOT NULL") {
            if let id = row[0].string, let code = row[1].string { barcodes[id] = code }
        }
        var doc = JournalBackup(schemaVersion: JournalStore.backupSchemaVersion, exportedAt: now(),
                                goals: hasGoals ? try goals(in: db) : nil, foods: foods, entries: try entries(in: db),
                                foodBarcodes: barcodes.isEmpty ? nil : barcodes)
        let profile = try profile(in: db)
        doc.profile = profile.isEmpty ? nil : profile
        doc.notes = try notes(in: db)
        let weights = try weighIns(in: db)
        doc.weights = weights.isEmpty ? nil : weights
        let sources = try goalSources(in: db)
        doc.goalSources = sources.isEmpty ? nil : sources
        let marks = try dayMarks(in: db)
        doc.dayMarks = marks.isEmpty ? nil : Dictionary(uniqueKeysWithValues: marks.map { ($0.key.description, $0.value) })
        let dayNotes = try allNotes(in: db)
        doc.dayNotes = dayNotes.isEmpty ? nil : dayNotes
        return doc
    }

    /// The backup as JSON bytes (UTF-8, sorted keys).
    public func exportBackup(in db: Database) throws -> Data { try JournalJSON.encoder.encode(try backup(in: db)) }

    public func exportBackup() throws -> Data { try queue.read { try exportBackup(in: $0) } }

    /// Imports a backup: inserts what is new, replaces rows whose imported `updated_at` is
    /// newer, leaves everything else alone. Importing the same file twice changes nothing.
    /// Rejects a newer `schema_version`; validates everything before writing anything.
    @discardableResult
    public func importBackup(_ data: Data, in db: Database) throws -> BackupImportReport {
        struct Header: Decodable {
            let schemaVersion: Int?
            enum CodingKeys: String, CodingKey { case schemaVersion = "schema_version" }
        }
        let header: Header
        do { header = try JSONDecoder().decode(Header.self, from: data) } catch {
            throw JournalError.malformedBackup("not a JSON object")
        }
        guard let version = header.schemaVersion else { throw JournalError.malformedBackup("schema_version is missing") }
        guard version <= JournalStore.backupSchemaVersion else {
            throw JournalError.newerBackup(version: version, supported: JournalStore.backupSchemaVersion)
        }
        guard version >= 1 else { throw JournalError.malformedBackup("schema_version \(version) is not valid") }
        let doc: JournalBackup
        do { doc = try JournalJSON.decoder.decode(JournalBackup.self, from: data) } catch {
            throw JournalError.malformedBackup(JournalStore.describe(decoding: error))
        }
        return try importBackup(doc, in: db)
    }

    @discardableResult
    public func importBackup(_ data: Data) throws -> BackupImportReport { try queue.write { try importBackup(data, in: $0) } }

    /// Imports a decoded backup (see `importBackup(_:in:)`).
    @discardableResult
    public func importBackup(_ doc: JournalBackup, in db: Database) throws -> BackupImportReport {
        guard doc.schemaVersion <= JournalStore.backupSchemaVersion else {
            throw JournalError.newerBackup(version: doc.schemaVersion, supported: JournalStore.backupSchemaVersion)
        }
        // Validate everything first so a bad row writes nothing.
        let foods = try doc.foods.enumerated().map { i, f -> SavedFood in
            do {
                var v = try validatedFood(FoodDraft(f), id: f.id, createdAt: f.createdAt, updatedAt: f.updatedAt,
                                          lastUsedAt: f.lastUsedAt, archived: f.isManuallyArchived)
                if f.kind == .composite { v.nutrients = f.nutrients }
                return v
            } catch { throw JournalError.malformedBackup("food \(i + 1): \(error)") }
        }
        let entries = try doc.entries.enumerated().map { i, e -> Entry in
            do {
                let d = EntryDraft(day: e.day, meal: e.meal, name: e.name, brand: e.brand, serving: e.serving, servings: e.servings,
                                   nutrients: e.nutrients, savedFoodID: e.savedFoodID, source: e.source, id: e.id,
                                   derivedNutrients: Set(e.derivedNutrients ?? []), eatenAt: e.eatenAt, mealLabel: e.mealLabel)
                return try validatedEntry(from: d, id: e.id, createdAt: e.createdAt, updatedAt: e.updatedAt)
            } catch { throw JournalError.malformedBackup("entry \(i + 1): \(error)") }
        }
        if let g = doc.goals { for (id, v) in g.values { try check(positive: v, field: "goal \(id)", max: Limits.nutrientAmount) } }
        for (id, code) in doc.foodBarcodes ?? [:] {
            guard UUID(uuidString: id) != nil, (8...14).contains(code.count), code.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw JournalError.malformedBackup("food_barcodes: \(String(id.prefix(40))) has no valid barcode")
            }
        }
        try checkDates(foods: foods, entries: entries)
        if let p = doc.profile, let why = p.problem(today: today()) { throw JournalError.malformedBackup("profile: \(why)") }
        if let n = doc.notes, n.count > Self.notesLimit { throw JournalError.malformedBackup("notes: longer than \(Self.notesLimit) characters") }
        for day in (doc.dayMarks ?? [:]).keys where (try? CalendarDay(parsing: day)) == nil {
            throw JournalError.malformedBackup("day_marks: '\(String(day.prefix(20)))' is not YYYY-MM-DD")
        }
        for (i, n) in (doc.dayNotes ?? []).enumerated() {
            let t = n.text
            guard !t.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, t.count <= Self.noteMaxCharacters, (1900...2200).contains(n.day.year),
                  dateProblem([("created_at", n.createdAt)]) == nil else {
                throw JournalError.malformedBackup("day note \(i + 1) (id \(n.id.uuidString)): not a note this journal can hold")
            }
        }
        for (i, w) in (doc.weights ?? []).enumerated() {
            guard Self.weightRange.contains(w.kg), (1900...2200).contains(w.day.year), w.source.count <= 40,
                  dateProblem([("created_at", w.createdAt)]) == nil else {
                throw JournalError.malformedBackup("weight \(i + 1) (id \(w.id.uuidString)): not a weigh-in this journal can hold")
            }
        }
        // An entry logged from a food must name a food this journal will have: a dangling link
        // means the file was edited or cut, so nothing is imported (the first offender is named).
        let backupFoods = Set(foods.map(\.id))
        for (i, e) in entries.enumerated() {
            guard let foodID = e.savedFoodID, !backupFoods.contains(foodID), try food(foodID, in: db) == nil else { continue }
            throw JournalError.malformedBackup("entry \(i + 1) (id \(e.id.uuidString)): its saved_food_id names a food that is neither in the backup nor in this journal")
        }

        return try db.transaction { db in
            var report = BackupImportReport()
            for f in foods {
                for ingredient in f.ingredients {
                    guard let source = ingredient.sourceFoodID, !backupFoods.contains(source), try food(source, in: db) == nil else { continue }
                    report.unknownIngredientLinks += 1
                }
            }
            for f in foods {
                if let old = try food(f.id, in: db) {
                    if f.updatedAt > old.updatedAt {
                        var merged = f
                        merged.lastUsedAt = [f.lastUsedAt, old.lastUsedAt].compactMap { $0 }.max()
                        try upsertFood(merged, in: db)
                        report.foodsUpdated += 1
                    } else if let used = f.lastUsedAt, used > (old.lastUsedAt ?? .distantPast) {
                        try touchFood(f.id, at: used, in: db)
                        report.foodsUpdated += 1
                    } else {
                        report.foodsUnchanged += 1
                    }
                } else {
                    try upsertFood(f, in: db)
                    report.foodsInserted += 1
                }
            }
            // A barcode another saved food already has stays with that food (barcodes are unique).
            for (id, code) in (doc.foodBarcodes ?? [:]).sorted(by: { $0.key < $1.key }) {
                try db.execute("""
                    UPDATE journal_saved_foods SET barcode = ? WHERE id = ? AND barcode IS NULL
                        AND NOT EXISTS (SELECT 1 FROM journal_saved_foods WHERE barcode = ?)
                    """, [code, id, code])
            }
            var touchedDays: Set<CalendarDay> = []
            for e in entries {
                // Only the stamp and day are needed to decide; loading whole entries made restores slow.
                if let row = try db.row("SELECT updated_at, day FROM journal_entries WHERE id = ?", [e.id.uuidString]) {
                    if e.updatedAt.milliseconds > (row[0].int64 ?? 0) {
                        try replaceEntry(e, in: db)
                        if let d = row[1].string.flatMap({ try? CalendarDay(parsing: $0) }) { touchedDays.insert(d) }
                        touchedDays.insert(e.day)
                        report.entriesUpdated += 1
                    } else {
                        report.entriesUnchanged += 1
                    }
                } else {
                    try insertEntry(e, in: db)
                    touchedDays.insert(e.day)
                    report.entriesInserted += 1
                }
            }
            if touchedDays.count > 200 { try rebuildAllDayTotals(in: db) } else { try refreshDayTotals(touchedDays, in: db) }
            if let g = doc.goals, try goals(in: db) != g || db.row("SELECT 1 FROM journal_settings WHERE key = 'goals'") == nil
                || (doc.goalSources.map { try goalSources(in: db) != $0 } ?? false) {
                // With its sources the backup's goals keep their origins; without, they count as set by hand.
                if let s = doc.goalSources { try setGoals(g, sources: s, in: db) } else { try setGoals(g, in: db) }
                report.goalsChanged = true
            }
            if let p = doc.profile, try profile(in: db) != p {
                try setProfile(p, in: db)
                report.profileChanged = true
            }
            if let n = doc.notes, try notes(in: db) != n {
                try setNotes(n, in: db)
                report.profileChanged = true
            }
            for w in doc.weights ?? [] where try db.row("SELECT 1 FROM journal_weights WHERE id = ?", [w.id.uuidString]) == nil {
                try insertWeighIn(w, in: db)
                report.weightsInserted += 1
            }
            for (text, mark) in (doc.dayMarks ?? [:]).sorted(by: { $0.key < $1.key }) {
                guard let day = try? CalendarDay(parsing: text), try dayMark(day, in: db) != mark else { continue }
                try writeDayMark(mark, on: day, in: db)
                report.profileChanged = true
            }
            if let notes = doc.dayNotes { report.dayNotesInserted = try importNotes(notes, in: db) }
            return report
        }
    }

    /// Dates a journal can hold: days and timestamps in 1900–2200, and nothing stamped more than a
    /// day after now (a far-future `updated_at` would win every later merge). The first offending
    /// record is named by its position and id, never by its content.
    func checkDates(foods: [SavedFood], entries: [Entry]) throws {
        for (i, f) in foods.enumerated() {
            if let why = dateProblem([("created_at", f.createdAt), ("updated_at", f.updatedAt), ("last_used_at", f.lastUsedAt)]) {
                throw JournalError.malformedBackup("food \(i + 1) (id \(f.id.uuidString)): \(why)")
            }
        }
        for (i, e) in entries.enumerated() {
            let why = (1900...2200).contains(e.day.year) ? dateProblem([("created_at", e.createdAt), ("updated_at", e.updatedAt)]) : "its day is outside 1900–2200"
            if let why { throw JournalError.malformedBackup("entry \(i + 1) (id \(e.id.uuidString)): \(why)") }
        }
    }

    /// 1900-01-01T00:00Z ..< 2201-01-01T00:00Z.
    static let importDateRange = Date(timeIntervalSince1970: -2_208_988_800)..<Date(timeIntervalSince1970: 7_289_654_400)

    static func describe(decoding error: Error) -> String {
        guard let e = error as? DecodingError else { return "unreadable JSON" }
        func path(_ p: [CodingKey]) -> String {
            p.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch e {
        case .dataCorrupted(let c): return "invalid value at \(path(c.codingPath)): \(c.debugDescription)"
        case .keyNotFound(let k, let c): return "missing \(k.stringValue) at \(path(c.codingPath))"
        case .typeMismatch(_, let c): return "wrong type at \(path(c.codingPath))"
        case .valueNotFound(_, let c): return "missing value at \(path(c.codingPath))"
        @unknown default: return "unreadable JSON"
        }
    }

    // MARK: - CSV

    /// Entries as CSV (RFC 4180: CRLF line ends, fields with commas, quotes or line breaks
    /// quoted, quotes doubled). Nutrient columns hold the entry's totals; an empty cell means
    /// "not reported". `time` is the local HH:MM it was eaten (`--at`, an import's time column,
    /// else when it was logged).
    public func exportCSV(from: CalendarDay? = nil, to: CalendarDay? = nil, in db: Database) throws -> String {
        let list = try entries(from: from, to: to, in: db)
        var nutrientIDs: Set<String> = []
        for e in list { nutrientIDs.formUnion(e.nutrients.values.keys) }
        let ids = NutrientCatalog.sorted(nutrientIDs)
        let fixed = ["id", "day", "meal", "name", "brand", "serving_quantity", "serving_unit", "serving_grams", "serving_ml",
                     "servings", "source", "saved_food_id", "created_at", "updated_at", "time"]
        // Which nutrient cells hold a value derived by USDA's rules (";"-separated ids); the column
        // appears only when some entry has one, so other exports are unchanged.
        let anyDerived = list.contains { $0.derivedNutrients != nil }
        var out = CSV.line(fixed + ids + (anyDerived ? ["derived"] : []))
        for e in list {
            let totals = e.totalNutrients
            var fields = [e.id.uuidString, e.day.description, e.meal.rawValue, e.name, e.brand ?? "",
                          CSV.number(e.serving.quantity), e.serving.unit.symbol, e.serving.grams.map(CSV.number) ?? "",
                          e.serving.milliliters.map(CSV.number) ?? "", CSV.number(e.servings), e.source.rawValue,
                          e.savedFoodID?.uuidString ?? "", JournalJSON.formatISO(e.createdAt), JournalJSON.formatISO(e.updatedAt),
                          (try? TimeOfDay(minutes: minuteOfDay(eatenTime(e))))?.description ?? ""]
            fields += ids.map { id in totals[id].map(CSV.number) ?? "" }
            if anyDerived { fields.append((e.derivedNutrients ?? []).joined(separator: ";")) }
            out += CSV.line(fields)
        }
        return out
    }

    public func exportCSV(from: CalendarDay? = nil, to: CalendarDay? = nil) throws -> String {
        try queue.read { try exportCSV(from: from, to: to, in: $0) }
    }
}

/// RFC 4180 field quoting.
public enum CSV {
    /// One field, quoted when it holds a comma, a quote, CR or LF (quotes doubled).
    public static func field(_ s: String) -> String {
        // Escape sequences and controls (a name may come from a model) never reach a terminal
        // that shows the export. A text cell starting with = + - @ (or a tab/CR) would run as a
        // formula in a spreadsheet: prefix an apostrophe, as OWASP recommends. Numbers ofj writes
        // are never negative.
        var s = TerminalText.sanitize(s)
        if let first = s.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) { s = "'" + s }
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A record terminated by CRLF.
    public static func line(_ fields: [String]) -> String { fields.map(field).joined(separator: ",") + "\r\n" }

    /// Shortest exact form: integers without ".0", no exponent for ordinary sizes.
    public static func number(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        let r = v.rounded(places: 6)
        if r == r.rounded(), abs(r) < 1e15 { return String(Int64(r)) }
        var s = String(r)
        if s.contains("e") { s = String(format: "%.6f", r) }
        return s
    }
}
