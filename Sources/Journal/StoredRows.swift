// What a stored journal row must be for every view to read it: the rules the store and backup
// import apply to what they write, checked on a row as it is stored. Sync checks each pulled row
// with them before it keeps it (Sources/Sync), `ofj doctor` checks every row, and `ofj entry
// delete` can remove an entry row that does not pass (its id need not even be a UUID).
import Foundation
import Nutrition
import SQLiteKit

/// A stored row the journal's rules reject, named by table and id (never by content).
public struct StoredRowProblem: Sendable, Hashable {
    public var table: String
    public var id: String
    public var reason: String
}

extension JournalStore {
    /// Why the stored entry `id` breaks the journal's rules, or nil when it is one the store
    /// could have written (and every view can read). No row: nil.
    public func problemWithStoredEntry(id: String, in db: Database) throws -> String? {
        guard let raw = try db.row("SELECT id FROM journal_entries WHERE id = ?", [id]) else { return nil }
        // The store writes UUIDs in their canonical (upper-case) form and looks them up that way.
        guard let text = raw[0].string, let uuid = UUID(uuidString: text), uuid.uuidString == text else {
            return "its id is not a UUID"
        }
        var decoded: (Int64, Entry)?
        do {
            try db.forEachRow("SELECT \(JournalStore.entryColumns) FROM journal_entries WHERE id = ?", [id]) { s in
                decoded = try decodeEntry(s)
            }
        } catch let e as JournalError {
            if case .corruptRow(let what) = e { return "its \(what.replacingOccurrences(of: "entry ", with: "")) is not readable" }
            return "it is not readable"
        }
        guard let (seq, e) = decoded else { return nil }
        if let problem = try storedColumnProblem(table: "journal_entries", id: id, numbers: [
            "serving_quantity", "serving_grams", "serving_ml", "servings", "created_at", "updated_at",
        ], in: db) { return problem }
        if let food = try db.scalar("SELECT saved_food_id FROM journal_entries WHERE id = ?", [id]).string, UUID(uuidString: food) == nil {
            return "its saved_food_id is not a UUID"
        }
        var values: [String: Double] = [:]
        var problem: String?
        try db.forEachRow("SELECT nutrient, amount, total, day FROM journal_entry_nutrients WHERE entry_seq = ?", [seq]) { s in
            guard problem == nil else { return }
            guard let k = s.value(at: 0).string, let amount = s.value(at: 1).double, let total = s.value(at: 2).double else {
                problem = "a nutrient of it is not readable"; return
            }
            guard total.isFinite, abs(total) <= Limits.nutrientAmount * Limits.servings else { problem = "a nutrient total is out of range"; return }
            guard s.value(at: 3).string == e.day.description else { problem = "a nutrient is filed under another day"; return }
            values[k] = amount
        }
        if let problem { return problem }
        do {
            let draft = EntryDraft(day: e.day, meal: e.meal, name: e.name, brand: e.brand, serving: e.serving, servings: e.servings,
                                   nutrients: NutrientAmounts(storedCanonical: values), savedFoodID: e.savedFoodID, source: e.source,
                                   id: e.id, derivedNutrients: Set(e.derivedNutrients ?? []), eatenAt: e.eatenAt, mealLabel: e.mealLabel)
            _ = try validatedEntry(from: draft, id: e.id, createdAt: e.createdAt, updatedAt: e.updatedAt)
        } catch {
            return "\(error)"
        }
        guard (1900...2200).contains(e.day.year) else { return "its day is outside 1900–2200" }
        return dateProblem([("created_at", e.createdAt), ("updated_at", e.updatedAt)])
    }

    /// Why the stored saved food `id` breaks the journal's rules (nil: readable and valid, or absent).
    public func problemWithStoredFood(id: String, in db: Database) throws -> String? {
        guard let row = try db.row("SELECT \(JournalStore.foodColumns) FROM journal_saved_foods WHERE id = ?", [id]) else { return nil }
        guard let text = row[0].string, let uuid = UUID(uuidString: text), uuid.uuidString == text else { return "its id is not a UUID" }
        let f: SavedFood
        do { f = try decodeFood(row) } catch let e as JournalError {
            if case .corruptRow(let what) = e { return "its \(what.replacingOccurrences(of: "saved food ", with: "")) is not readable" }
            return "it is not readable"
        }
        if let problem = try storedColumnProblem(table: "journal_saved_foods", id: id, numbers: [
            "serving_quantity", "serving_grams", "serving_ml", "created_at", "updated_at", "last_used_at",
        ], in: db) { return problem }
        do {
            var draft = FoodDraft(f)
            draft.derivedNutrients = Set(f.derivedNutrients ?? [])
            _ = try validatedFood(draft, id: f.id, createdAt: f.createdAt, updatedAt: f.updatedAt, lastUsedAt: f.lastUsedAt,
                                  archived: f.isManuallyArchived)
            if f.kind == .composite { try checkNutrients(f.nutrients) }
        } catch {
            return "\(error)"
        }
        if let code = try db.scalar("SELECT barcode FROM journal_saved_foods WHERE id = ?", [id]).string,
           !(8...14).contains(code.count) || !code.allSatisfy({ $0.isASCII && $0.isNumber }) {
            return "its barcode is not 8 to 14 digits"
        }
        return dateProblem([("created_at", f.createdAt), ("updated_at", f.updatedAt), ("last_used_at", f.lastUsedAt)])
    }

    /// Why the stored setting `key` breaks the journal's rules: goals must be the goals JSON with
    /// plausible ids and positive values; any other key is kept as it is (a newer ofj's setting), up to 64 KiB.
    public func problemWithStoredSetting(key: String, in db: Database) throws -> String? {
        guard let row = try db.row("SELECT value FROM journal_settings WHERE key = ?", [key]) else { return nil }
        guard let value = row[0].string else { return "its value is not text" }
        guard value.utf8.count <= 64 << 10 else { return "its value is larger than 64 KiB" }
        if key == "profile" {
            do { return try profile(in: db).problem(today: today()) } catch { return "the profile is not readable" }
        }
        if key == Self.goalSourcesKey {
            let s: GoalSources
            do { s = try goalSources(in: db) } catch { return "the goal sources are not readable" }
            for v in s.weekdayEnergy.values where !(v.isFinite && v > 0 && v <= Limits.nutrientAmount) { return "a weekday energy goal is out of range" }
            for (id, l) in s.upperLimits where !NutrientAmounts.isPlausibleID(id) || !(l.value.isFinite && l.value > 0) { return "an upper limit is not valid" }
            return nil
        }
        if let problem = problemWithStoredDayMark(key: key, value: value) { return problem }
        if key.hasPrefix(Self.notePrefix) {
            return Self.decodeNote(key: key, value: value) == nil ? "not a day note (daynote:YYYY-MM-DD:ID with text and created_at)" : nil
        }
        guard key == "goals" else { return nil }
        let g: Goals
        do { g = try goals(in: db) } catch { return "the goals are not readable" }
        for (id, v) in g.values {
            guard NutrientAmounts.isPlausibleID(id) else { return "a goal id is not a snake_case id" }
            do { try check(positive: v, field: "goal \(id)", max: Limits.nutrientAmount) } catch { return "\(error)" }
        }
        return nil
    }

    /// Every stored entry, food and setting that breaks the journal's rules (for `ofj doctor`), at most `limit`.
    public func storedRowProblems(limit: Int = 20, in db: Database) throws -> (problems: [StoredRowProblem], total: Int) {
        var out: [StoredRowProblem] = []
        var total = 0
        func note(_ table: String, _ id: String, _ reason: String?) {
            guard let reason else { return }
            total += 1
            if out.count < limit { out.append(StoredRowProblem(table: table, id: id, reason: reason)) }
        }
        for row in try db.rows("SELECT CAST(id AS TEXT) FROM journal_entries ORDER BY seq") {
            let id = row[0].string ?? ""
            note("entry", id, try problemWithStoredEntry(id: id, in: db))
        }
        for row in try db.rows("SELECT CAST(id AS TEXT) FROM journal_saved_foods ORDER BY rowid") {
            let id = row[0].string ?? ""
            note("food", id, try problemWithStoredFood(id: id, in: db))
        }
        for row in try db.rows("SELECT CAST(id AS TEXT) FROM journal_weights ORDER BY rowid") {
            let id = row[0].string ?? ""
            note("weight", id, try problemWithStoredWeight(id: id, in: db))
        }
        for row in try db.rows("SELECT CAST(key AS TEXT) FROM journal_settings ORDER BY key") {
            let key = row[0].string ?? ""
            note("setting", key, try problemWithStoredSetting(key: key, in: db))
        }
        return (out, total)
    }

    /// Deletes the stored entry row whose id is exactly `id` (and its nutrients), whatever it
    /// holds: the way out for a row the views cannot read. The sync capture records it like any
    /// delete; undo does not (what it held cannot be read back). False when there is no such row.
    @discardableResult
    public func deleteStoredEntryRow(id: String, in db: Database) throws -> Bool {
        guard let row = try db.row("SELECT seq, day FROM journal_entries WHERE id = ?", [id]), let seq = row[0].int64 else { return false }
        try db.transaction { db in
            try unindexEntry(seq: seq, in: db)
            try db.execute("DELETE FROM journal_entry_nutrients WHERE entry_seq = ?", [seq])
            try db.execute("DELETE FROM journal_entries WHERE seq = ?", [seq])
            let days = try db.rows("SELECT DISTINCT day FROM journal_day_totals WHERE day = ?", [row[1].string ?? ""]).compactMap { $0[0].string }
            for day in days {
                try db.execute("DELETE FROM journal_day_totals WHERE day = ?", [day])
                try db.execute("""
                    INSERT INTO journal_day_totals (day, nutrient, total, reported)
                    SELECT day, nutrient, sum(total), count(*) FROM journal_entry_nutrients WHERE day = ? GROUP BY day, nutrient
                    """, [day])
            }
        }
        return true
    }

    /// Entry rows whose id is exactly `id` or starts with it (any case), for rows the usual lookup cannot read.
    public func storedEntryIDs(matching key: String, in db: Database) throws -> [String] {
        let t = key.trimmingCharacters(in: .whitespaces)
        guard !t.isEmpty, t.count <= 400 else { return [] }
        if try db.row("SELECT 1 FROM journal_entries WHERE id = ?", [t]) != nil { return [t] }
        return try db.rows("SELECT CAST(id AS TEXT) FROM journal_entries WHERE lower(substr(id, 1, ?)) = lower(?) ORDER BY id LIMIT 6",
                           [t.count, t]).compactMap { $0[0].string }
    }

    /// A number column that holds text or a blob (SQLite keeps whatever it is given): the views read it as nothing.
    func storedColumnProblem(table: String, id: String, numbers: [String], in db: Database) throws -> String? {
        let types = numbers.map { "typeof(\($0))" }.joined(separator: ", ")
        guard let row = try db.row("SELECT \(types) FROM \(table) WHERE id = ?", [id]) else { return nil }
        for (i, name) in numbers.enumerated() {
            let type = row[i].string ?? ""
            if type != "integer" && type != "real" && type != "null" { return "its \(name) is not a number" }
        }
        return nil
    }

    /// Dates a journal can hold: 1900–2200 and no more than a day after now (a far-future
    /// `updated_at` would win every later merge). Nil when all are fine.
    func dateProblem(_ stamps: [(String, Date?)]) -> String? {
        let earliest = JournalStore.importDateRange.lowerBound, latest = JournalStore.importDateRange.upperBound
        let horizon = now().addingTimeInterval(24 * 3600)
        for (field, date) in stamps {
            guard let date else { continue }
            if date < earliest || date >= latest { return "its \(field) is outside 1900–2200" }
            if date > horizon { return "its \(field) is more than a day in the future" }
        }
        return nil
    }
}
