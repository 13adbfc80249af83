// Reading what can still be read from a damaged database, row by row, into a backup.
import Foundation
import Nutrition
import SQLiteKit

/// What `salvageBackup` could read and what it had to leave behind.
public struct SalvageReport: Sendable, Hashable {
    public var entriesSaved = 0
    /// Entries whose row or nutrients could not be read (a damaged page holds them).
    public var entriesSkipped = 0
    public var foodsSaved = 0
    public var foodsSkipped = 0
    public var goalsSaved = false
    public var goalsSkipped = false
    /// Saved entries whose `saved_food_id` named a food that could not be read: the link was
    /// dropped (the entry is a snapshot and keeps its own nutrients), so the backup imports.
    public var entriesUnlinked = 0
}

extension JournalStore {
    /// Every goal, food and entry that can still be read, as a backup `importBackup` accepts.
    /// A damaged page makes a whole scan fail, so rows are read one at a time by rowid (the
    /// table's b-tree routes each lookup around pages it does not need); a row that cannot be
    /// read or decoded is skipped and counted. An entry whose nutrients cannot be read is skipped
    /// too: saving it without them would turn "reported" values into "not reported".
    public func salvageBackup(in db: Database) -> (JournalBackup, SalvageReport) {
        var report = SalvageReport()
        var goals: Goals?
        do {
            if try db.row("SELECT 1 FROM journal_settings WHERE key = 'goals'") != nil {
                goals = try self.goals(in: db)
                report.goalsSaved = true
            }
        } catch {
            report.goalsSkipped = true
        }

        var foods: [SavedFood] = []
        var barcodes: [String: String] = [:]
        let foodRows = Self.probeRowids(db, table: "journal_saved_foods", bounds: [
            "SELECT max(rowid) FROM journal_saved_foods",
        ])
        for rowid in foodRows {
            do {
                guard let row = try db.row("SELECT \(JournalStore.foodColumns) FROM journal_saved_foods WHERE rowid = ?", [rowid]) else { continue }
                let food = try decodeFood(row)
                try importable(food)
                foods.append(food)
                report.foodsSaved += 1
                // A file from before barcodes existed has no column; a barcode that does not read
                // as one is left behind (the food keeps everything else).
                if let row = try? db.row("SELECT id, barcode FROM journal_saved_foods WHERE rowid = ?", [rowid]),
                   let id = row[0].string, let code = row[1].string,
                   (8...14).contains(code.count), code.allSatisfy({ $0.isASCII && $0.isNumber }) {
                    barcodes[id] = code
                }
            } catch {
                report.foodsSkipped += 1
            }
        }

        var entries: [Entry] = []
        let entryRows = Self.probeRowids(db, table: "journal_entries", bounds: [
            "SELECT max(seq) FROM journal_entries",
            "SELECT max(seq) FROM journal_entries INDEXED BY journal_entries_created",
            "SELECT max(entry_seq) FROM journal_entry_nutrients INDEXED BY journal_entry_nutrients_entry",
        ])
        // A salvage runs no migration: a file from before `derived_nutrients` existed reads NULL for it.
        var columns = JournalStore.entryColumns
        do { _ = try db.row("SELECT derived_nutrients FROM journal_entries LIMIT 0") } catch {
            columns = columns.replacingOccurrences(of: "derived_nutrients", with: "NULL AS derived_nutrients")
        }
        for added in ["eaten_at", "meal_label"] {
            do { _ = try db.row("SELECT \(added) FROM journal_entries LIMIT 0") } catch {
                columns = columns.replacingOccurrences(of: added, with: "NULL AS \(added)")
            }
        }
        for seq in entryRows {
            do {
                var decoded: (Int64, Entry)?
                try db.forEachRow("SELECT \(columns) FROM journal_entries WHERE seq = ?", [seq]) { s in decoded = try decodeEntry(s) }
                guard var entry = decoded?.1 else { continue }
                entry.nutrients = NutrientAmounts(storedCanonical: try salvageNutrients(seq: seq, day: entry.day.description, in: db))
                try importable(entry)
                entries.append(entry)
                report.entriesSaved += 1
            } catch {
                report.entriesSkipped += 1
            }
        }
        let foodIDs = Set(foods.map(\.id))
        for i in entries.indices {
            guard let link = entries[i].savedFoodID, !foodIDs.contains(link) else { continue }
            entries[i].savedFoodID = nil
            report.entriesUnlinked += 1
        }
        entries.sort { ($0.day.description, $0.createdAt, $0.id.uuidString) < ($1.day.description, $1.createdAt, $1.id.uuidString) }
        foods.sort { ($0.createdAt, $0.id.uuidString) < ($1.createdAt, $1.id.uuidString) }
        let backup = JournalBackup(schemaVersion: JournalStore.backupSchemaVersion, exportedAt: now(), goals: goals, foods: foods, entries: entries,
                                  foodBarcodes: barcodes.isEmpty ? nil : barcodes)
        return (backup, report)
    }

    /// A row damaged in a way the b-tree does not show (a flipped byte in a value) could make the
    /// whole salvage fail to import: each row must pass the checks `importBackup` makes.
    private func importable(_ f: SavedFood) throws {
        _ = try validatedFood(FoodDraft(f), id: f.id, createdAt: f.createdAt, updatedAt: f.updatedAt, lastUsedAt: f.lastUsedAt,
                              archived: f.isManuallyArchived)
        try checkDates(foods: [f], entries: [])
    }

    private func importable(_ e: Entry) throws {
        let d = EntryDraft(day: e.day, meal: e.meal, name: e.name, brand: e.brand, serving: e.serving, servings: e.servings,
                           nutrients: e.nutrients, savedFoodID: e.savedFoodID, source: e.source, id: e.id, eatenAt: e.eatenAt, mealLabel: e.mealLabel)
        _ = try validatedEntry(from: d, id: e.id, createdAt: e.createdAt, updatedAt: e.updatedAt)
        try checkDates(foods: [], entries: [e])
    }

    /// An entry's nutrients through the entry index, or (if that index is damaged) through the
    /// table's own key, which starts with the day.
    private func salvageNutrients(seq: Int64, day: String, in db: Database) throws -> [String: Double] {
        func read(_ sql: String, _ args: [DatabaseValueConvertible]) throws -> [String: Double] {
            var values: [String: Double] = [:]
            try db.forEachRow(sql, args) { s in
                if let k = s.value(at: 0).string, let v = s.value(at: 1).double { values[k] = v }
            }
            return values
        }
        do {
            return try read("SELECT nutrient, amount FROM journal_entry_nutrients WHERE entry_seq = ?", [seq])
        } catch {
            return try read("SELECT nutrient, amount FROM journal_entry_nutrients NOT INDEXED WHERE day = ? AND entry_seq = ?", [day, seq])
        }
    }

    /// Rowids to try: 1 through the largest any readable source knows, then the ones found
    /// further on, until 1,000 in a row are missing (rows past a damaged last page). ofj assigns
    /// rowids in order, so gaps are rare; a lookup that fails inside the range counts as skipped.
    static func probeRowids(_ db: Database, table: String, bounds: [String]) -> [Int64] {
        var upper: Int64 = 0
        for sql in bounds { if let n = try? db.scalar(sql).int64 { upper = max(upper, n) } }
        var out: [Int64] = upper > 0 ? Array(1...upper) : []
        var rowid = upper + 1
        var misses = 0
        while misses < 1_000 {
            if (try? db.row("SELECT 1 FROM \(table) WHERE rowid = ?", [rowid])) != nil {
                out.append(rowid)
                misses = 0
            } else {
                misses += 1
            }
            rowid += 1
        }
        return out
    }
}
