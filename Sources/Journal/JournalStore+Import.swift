// Import from other apps (issue 23 §4): Cronometer's "Servings" export, MyFitnessPal's
// "Nutrition Summary" export, and any CSV with a column map. The file is streamed (ImportCSV.swift),
// each row becomes an EntryDraft checked by the store's own validation, and rows are written in
// batched transactions through `logEntries` (the store's insert code). Every source row has a
// stable hash kept in `journal_import_rows`, so importing a file twice adds nothing.
import Base
import Foundation
import Nutrition
import SQLiteKit

/// Which app a file comes from.
public enum ImportFormat: Sendable, Hashable {
    /// Cronometer, More → Account → Export Data → "Food & Recipe Entries" (servings.csv).
    case cronometer
    /// MyFitnessPal Premium, Settings → Export Data → "Nutrition Summary" (one row per meal).
    case myFitnessPal
    /// Any CSV: FIELD → column header (FIELD is date, meal, name, amount, time or a nutrient id).
    case csv([String: String])

    public var name: String {
        switch self {
        case .cronometer: return "cronometer"
        case .myFitnessPal: return "myfitnesspal"
        case .csv: return "csv"
        }
    }

    public var displayName: String {
        switch self {
        case .cronometer: return "Cronometer"
        case .myFitnessPal: return "MyFitnessPal"
        case .csv: return "CSV"
        }
    }

    /// Fields a map may name besides nutrient ids.
    public static let mapFields = ["date", "meal", "name", "amount", "time", "brand"]
}

public struct ImportOptions: Sendable {
    public var format: ImportFormat
    public var dryRun: Bool
    /// Read an ambiguous slash date (03/04/2026) day first.
    public var dayFirst: Bool
    /// Rows per transaction.
    public var batchSize: Int
    /// Entries a dry run lists.
    public var previewLimit: Int
    public init(format: ImportFormat, dryRun: Bool = false, dayFirst: Bool = false, batchSize: Int = 5_000, previewLimit: Int = 10) {
        self.format = format; self.dryRun = dryRun; self.dayFirst = dayFirst; self.batchSize = max(1, batchSize)
        self.previewLimit = previewLimit
    }
}

/// A column that holds nutrient amounts ofj cannot take, and why.
public struct ImportUnmappedColumn: Sendable, Hashable, Codable {
    public var column: String
    public var reason: String
}

/// A row not imported, and why.
public struct ImportSkippedRow: Sendable, Hashable, Codable {
    public var line: Int
    public var reason: String
}

/// What an import did (or, with --dry-run, would do).
public struct ImportReport: Sendable, Codable {
    public var format: String
    public var dryRun: Bool
    public var rowsRead = 0
    /// Entries added (dry run: that would be added).
    public var added = 0
    /// Rows a previous import already added.
    public var alreadyImported = 0
    public var skipped = 0
    /// The first skipped rows with their reasons (all of them are counted in `skipped`).
    public var skippedRows: [ImportSkippedRow] = []
    /// Skipped rows per reason kind ("no date", "cut short", …).
    public var skippedByReason: [String: Int] = [:]
    /// Columns in the file that ofj did not read (not a field or nutrient it knows).
    public var unknownColumns: [String] = []
    /// Columns of nutrients ofj cannot take (not tracked, or a unit that does not convert).
    public var unmappedNutrients: [ImportUnmappedColumn] = []
    /// Columns read into fields and nutrients, with what they became ("Fat (g)": "fat_g").
    public var mappedColumns: [String: String] = [:]
    /// Meal names that are not breakfast, lunch, dinner or snack, logged as snacks (with counts).
    public var otherMeals: [String: Int] = [:]
    /// Amounts that could not be read; those entries are logged as 1 serving.
    public var amountsNotRead = 0
    public var firstDay: CalendarDay?
    public var lastDay: CalendarDay?
    /// With --dry-run: the first entries that would be added.
    public var preview: [Entry] = []
    /// The file held weigh-ins (a biometrics or progress export): `added` counts weigh-ins, and
    /// `alreadyImported` those already in the journal (same day and kg).
    public var weighIns = false
    /// Rows of a biometrics or progress export that are not a weight, per measurement ("Body Fat": 3).
    public var otherMeasurements: [String: Int] = [:]
    /// The unit read for weights the file gave none for (the profile's units), when there were any.
    public var unitAssumed: String?
    /// With --dry-run: the first weigh-ins that would be added.
    public var weightPreview: [WeighIn] = []

    static let maxSkippedListed = 20

    mutating func skip(_ line: Int, _ kind: String, _ detail: String) {
        skipped += 1
        skippedByReason[kind, default: 0] += 1
        if skippedRows.count < Self.maxSkippedListed { skippedRows.append(ImportSkippedRow(line: line, reason: detail)) }
    }

    enum CodingKeys: String, CodingKey {
        case format, dryRun = "dry_run", rowsRead = "rows_read", added, alreadyImported = "already_imported", skipped
        case skippedRows = "skipped_rows", skippedByReason = "skipped_by_reason", unknownColumns = "unknown_columns"
        case unmappedNutrients = "unmapped_nutrients", mappedColumns = "mapped_columns", otherMeals = "other_meals"
        case amountsNotRead = "amounts_not_read", firstDay = "first_day", lastDay = "last_day", preview
        case weighIns = "weigh_ins", otherMeasurements = "other_measurements", unitAssumed = "unit_assumed", weightPreview = "weigh_in_preview"
    }
}

/// How one file's columns are read.
struct ImportPlan {
    var date: Int
    var meal: Int?
    var name: Int?
    var amount: Int?
    var time: Int?
    var brand: Int?
    /// MyFitnessPal rows are meals, not foods: the entry is named after the meal.
    var nameFromMeal = false
    var nutrients: [(index: Int, id: String, factor: Double)] = []
    var width: Int
}

extension JournalStore {
    // MARK: - The store's bulk insert

    /// Checks a draft as `logEntry` would, without writing (the import skips a row that fails).
    public func validate(_ draft: EntryDraft) throws {
        let now = now()
        _ = try validatedEntry(from: draft, id: draft.id ?? UUID(), createdAt: now, updatedAt: now)
    }

    /// Logs many new entries in the caller's transaction (one savepoint): each validated as
    /// `logEntry` does, inserted by the same code, and the touched days' totals refreshed once.
    /// Drafts naming a saved food are refused (imports bring their own nutrients).
    @discardableResult
    public func logEntries(_ drafts: [EntryDraft], in db: Database) throws -> [Entry] {
        let now = now()
        let entries = try drafts.map { d -> Entry in
            guard d.savedFoodID == nil else { throw JournalError.invalid(field: "saved_food_id", reason: "is not taken by a bulk insert; use logFood") }
            return try validatedEntry(from: d, id: d.id ?? UUID(), createdAt: now, updatedAt: now)
        }
        return try db.transaction { db in
            for (d, e) in zip(drafts, entries) {
                // A new UUID cannot collide; an id the caller brings may.
                if d.id != nil, try entryExists(e.id, in: db) {
                    throw JournalError.invalid(field: "id", reason: "\(e.id.uuidString) is already used by another entry")
                }
                try insertEntry(e, in: db)
            }
            try refreshDayTotals(Set(entries.map(\.day)), in: db)
            return entries
        }
    }

    // MARK: - Import

    /// Imports `path` (see `ImportFormat`). Rows already imported (same stable hash) are counted,
    /// not added; rows that cannot be read are skipped with their line and reason. Throws
    /// `ImportFileError` when the file as a whole cannot be read (missing columns, UTF-16, …).
    public func importFile(_ path: String, options: ImportOptions) throws -> ImportReport {
        let reader = try CSVReader(path: path)
        try reader.detectSeparator()
        guard let headerRecord = try reader.next() else { throw ImportFileError("\(path) is empty; export the file again") }
        let header = headerRecord.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        // Cronometer's biometrics and MyFitnessPal's progress exports hold weigh-ins (ImportWeights.swift).
        if let weights = Self.weightPlan(header, format: options.format) {
            return try importWeighIns(reader, header: header, plan: weights, options: options)
        }
        var report = ImportReport(format: options.format.name, dryRun: options.dryRun)
        let plan = try Self.plan(header, format: options.format, report: &report)
        let headerKey = header.map { $0.lowercased() }
        // How many copies of each row came before, to tell identical rows apart (two bananas).
        // Kept in a TEMP table, not in memory, so a file of any length stays within SQLite's cache
        // (a TEMP table is a write: `unrestricted`, not `read`).
        try queue.unrestricted { db in
            try db.execute(batch: """
                CREATE TEMP TABLE IF NOT EXISTS import_occurrences (content INTEGER PRIMARY KEY, seen INTEGER NOT NULL);
                DELETE FROM temp.import_occurrences;
                """)
        }
        defer { _ = try? queue.unrestricted { try $0.execute(batch: "DELETE FROM temp.import_occurrences") } }
        var batch: [(content: Int64, draft: EntryDraft)] = []

        /// The row's hash: its content's, with "#n" for the n-th identical copy in this file.
        func rowHash(_ content: Int64, in db: Database) throws -> Int64 {
            let n = try db.scalar("""
                INSERT INTO temp.import_occurrences (content, seen) VALUES (?, 0)
                ON CONFLICT (content) DO UPDATE SET seen = seen + 1 RETURNING seen
                """, [content]).int64 ?? 0
            guard n > 0 else { return content }
            return Int64(bitPattern: ImportValues.stableHash([String(UInt64(bitPattern: content), radix: 16), "#\(n)"]))
        }

        func flush() throws {
            guard !batch.isEmpty else { return }
            let rows = batch
            batch.removeAll(keepingCapacity: true)
            if options.dryRun {
                // Writes only the TEMP occurrence counts (rowHash), never the journal.
                try queue.unrestricted { db in
                    for r in rows {
                        if try db.row("SELECT 1 FROM journal_import_rows WHERE hash = ?", [try rowHash(r.content, in: db)]) != nil {
                            report.alreadyImported += 1
                        } else {
                            noteAdded(r.draft, &report)
                            if report.preview.count < options.previewLimit {
                                let now = now()
                                report.preview.append(try validatedEntry(from: r.draft, id: UUID(), createdAt: now, updatedAt: now))
                            }
                        }
                    }
                }
                return
            }
            try queue.write { db in
                var fresh: [(hash: Int64, draft: EntryDraft)] = []
                for r in rows {
                    let hash = try rowHash(r.content, in: db)
                    if try db.row("SELECT 1 FROM journal_import_rows WHERE hash = ?", [hash]) != nil { report.alreadyImported += 1 } else { fresh.append((hash, r.draft)) }
                }
                let entries = try logEntries(fresh.map(\.draft), in: db)
                let stamp = now().milliseconds
                for (r, e) in zip(fresh, entries) {
                    try db.execute("INSERT INTO journal_import_rows (hash, source, entry_id, imported_at) VALUES (?, ?, ?, ?)",
                                   [r.hash, options.format.name, e.id.uuidString, stamp])
                    noteAdded(r.draft, &report)
                }
            }
        }

        while let record = try reader.next() {
            report.rowsRead += 1
            let line = record.line
            // Cells trimmed once, for the row's fields and its hash.
            var record = record
            record.fields = record.fields.map { $0.trimmingCharacters(in: .whitespaces) }
            if record.fields.count == headerKey.count, record.fields.first?.lowercased() == headerKey.first,
               record.fields.map({ $0.lowercased() }) == headerKey {
                report.skip(line, "repeated header", "line \(line) repeats the header row (two exports joined?)")
                continue
            }
            guard record.complete else {
                report.skip(line, "cut short", "line \(line) ends inside a quoted value (the file may be truncated)")
                continue
            }
            if record.fields.count < plan.width {
                report.skip(line, "cut short", "line \(line) has \(record.fields.count) of \(header.count) columns (the file may be truncated)")
                continue
            }
            if record.fields.count > header.count, record.fields[header.count...].contains(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) {
                report.skip(line, "too many columns", "line \(line) has \(record.fields.count) columns, the header \(header.count) (an unquoted separator?)")
                continue
            }
            let draft: EntryDraft
            do { draft = try self.draft(record, plan: plan, options: options, separator: reader.separator, report: &report) } catch let e as RowProblem {
                report.skip(line, e.kind, "line \(line): \(e.detail)")
                continue
            }
            do { try validate(draft) } catch {
                report.skip(line, "invalid", "line \(line): \(error)")
                continue
            }
            // The same row twice in one file is two entries (two bananas): the n-th copy has its own hash (rowHash).
            let content = ImportValues.stableHash([options.format.name] + record.fields)
            batch.append((Int64(bitPattern: content), draft))
            if batch.count >= options.batchSize { try flush() }
        }
        try flush()
        return report
    }

    private func noteAdded(_ d: EntryDraft, _ report: inout ImportReport) {
        report.added += 1
        if let day = d.day {
            if report.firstDay.map({ day < $0 }) ?? true { report.firstDay = day }
            if report.lastDay.map({ day > $0 }) ?? true { report.lastDay = day }
        }
    }

    struct RowProblem: Error {
        var kind: String
        var detail: String
    }

    func draft(_ record: CSVRecord, plan: ImportPlan, options: ImportOptions, separator: UInt8, report: inout ImportReport) throws -> EntryDraft {
        // The importer trimmed the cells.
        func cell(_ i: Int?) -> String { i.map { $0 < record.fields.count ? record.fields[$0] : "" } ?? "" }
        func shown(_ s: String) -> String { "\"" + String(s.prefix(30)).filter { !$0.isNewline } + "\"" }
        let dateText = cell(plan.date)
        guard !dateText.isEmpty else { throw RowProblem(kind: "no date", detail: "no date") }
        guard let day = ImportValues.day(dateText, dayFirst: options.dayFirst) else {
            throw RowProblem(kind: "bad date", detail: "\(shown(dateText)) is not a date (YYYY-MM-DD, MM/DD/YYYY or DD.MM.YYYY)")
        }
        var meal: Meal?
        let mealText = cell(plan.meal)
        if !mealText.isEmpty {
            if let m = try? Meal(parsing: mealText) { meal = m } else {
                meal = .snack
                report.otherMeals[String(mealText.prefix(40)), default: 0] += 1
            }
        }
        // The time column (Cronometer's Time, --map time=…) is when it was eaten, and picks the meal when none is given.
        let time = Self.timeOfDay(cell(plan.time))
        if meal == nil, let t = time { meal = mealSchedule.defaultMeal(at: t) }
        var name = cell(plan.name)
        if plan.nameFromMeal {
            name = mealText.isEmpty ? "Meal" : mealText
            name += " (\(options.format.displayName))"
        }
        guard !name.isEmpty else { throw RowProblem(kind: "no name", detail: "no food name") }
        var values: [String: Double] = [:]
        for n in plan.nutrients {
            let text = cell(n.index)
            if text.isEmpty { continue }
            guard let v = ImportValues.number(text, separator: separator) else {
                throw RowProblem(kind: "bad number", detail: "\(shown(text)) in \(NutrientCatalog.displayName(n.id).lowercased()) is not a number")
            }
            guard v >= 0 else { throw RowProblem(kind: "bad number", detail: "\(NutrientCatalog.displayName(n.id).lowercased()) is negative (\(shown(text)))") }
            // Two columns for one nutrient (kcal and kJ): the first one given wins.
            if values[n.id] == nil { values[n.id] = (v * n.factor).rounded(places: 6) }
        }
        guard !values.isEmpty else { throw RowProblem(kind: "no nutrients", detail: "no nutrient values") }
        var serving = ServingSize()
        let amountText = cell(plan.amount)
        if !amountText.isEmpty {
            if let s = Self.serving(amountText, separator: separator) { serving = s } else { report.amountsNotRead += 1 }
        }
        let brand = cell(plan.brand)
        return EntryDraft(day: day, meal: meal ?? .snack, name: name, brand: brand.isEmpty ? nil : brand, serving: serving, servings: 1,
                          nutrients: try NutrientAmounts(values), source: .import, eatenAt: time.map { date(on: day, minute: $0.minutes) })
    }

    /// "100.00 g", "1.00 cup", "2 medium", "8 fl oz", "1,5 cup" (a decimal comma), through the one
    /// amount parser and its one decimal rule (`TypedNumber`: "1,000 g" is 1000 g, "1.5,5" is not read).
    static func serving(_ text: String, separator: UInt8) -> ServingSize? {
        guard let typed = AmountText.parse(text), typed.quantity <= JournalStore.Limits.quantity else { return nil }
        if typed.unitText.isEmpty { return ServingSize(quantity: typed.quantity, unit: .count("serving")) }
        let word = String(typed.unitText.prefix(40))
        guard let unit = try? ServingUnit.parse(word, extraCounts: [word]) else { return nil }
        return ServingSize(quantity: typed.quantity, unit: unit)
    }

    /// "8:05 AM", "08:15", "19:30", "7:00:00 PM".
    static func timeOfDay(_ text: String) -> TimeOfDay? {
        let t = text.uppercased().trimmingCharacters(in: .whitespaces)
        guard !t.isEmpty else { return nil }
        let pm = t.hasSuffix("PM"), am = t.hasSuffix("AM")
        let core = (pm || am) ? String(t.dropLast(2)).trimmingCharacters(in: .whitespaces) : t
        let parts = core.split(separator: ":")
        guard parts.count >= 2, var h = Int(parts[0]), let m = Int(parts[1]) else { return nil }
        if pm && h < 12 { h += 12 }
        if am && h == 12 { h = 0 }
        return try? TimeOfDay(hour: h, minute: m)
    }

    // MARK: - Column plans

    /// Cronometer's nutrient names (the header without its unit) that the catalog's aliases miss.
    static let cronometerNames: [String: String] = [
        "energy": "energy_kcal", "carbs": "carbohydrate_g", "sugars": "sugars_g", "added sugars": "added_sugars_g",
        "saturated": "saturated_fat_g", "trans-fats": "trans_fat_g", "monounsaturated": "monounsaturated_fat_g",
        "polyunsaturated": "polyunsaturated_fat_g", "b1 (thiamine)": "thiamin_mg", "b2 (riboflavin)": "riboflavin_mg",
        "b3 (niacin)": "niacin_mg", "b5 (pantothenic acid)": "pantothenic_acid_mg", "b6 (pyridoxine)": "vitamin_b6_mg",
        "b12 (cobalamin)": "vitamin_b12_mcg", "folate": "folate_mcg",
    ]

    /// MyFitnessPal's "Nutrition Summary" columns: unit-less ones have documented units; the four
    /// vitamin and mineral columns are a percentage of the daily value, not an amount.
    static let myFitnessPalColumns: [String: (id: String, unit: String)] = [
        "calories": ("energy_kcal", "kcal"), "saturated fat": ("saturated_fat_g", "g"), "polyunsaturated fat": ("polyunsaturated_fat_g", "g"),
        "monounsaturated fat": ("monounsaturated_fat_g", "g"), "trans fat": ("trans_fat_g", "g"), "cholesterol": ("cholesterol_mg", "mg"),
        "potassium": ("potassium_mg", "mg"), "fiber": ("fiber_g", "g"), "sugar": ("sugars_g", "g"),
    ]
    static let myFitnessPalPercentColumns: Set<String> = ["vitamin a", "vitamin c", "calcium", "iron"]

    static func plan(_ header: [String], format: ImportFormat, report: inout ImportReport) throws -> ImportPlan {
        var firstIndex: [String: Int] = [:]
        for (i, h) in header.enumerated() where firstIndex[h.lowercased()] == nil { firstIndex[h.lowercased()] = i }
        func column(_ names: [String]) -> Int? { names.lazy.compactMap { firstIndex[$0.lowercased()] }.first }
        var used: Set<Int> = []
        var plan: ImportPlan
        var ignored: Set<String> = []
        var mapNutrients: [(index: Int, id: String, factor: Double)] = []
        switch format {
        case .cronometer:
            guard let date = column(["Day", "Date"]), let name = column(["Food Name"]) else {
                throw ImportFileError("this is not a Cronometer servings or biometrics export (it needs the columns Day and Food Name, or Day, Metric and Amount; found \(listed(header))); for another CSV use `ofj import csv FILE --map …`")
            }
            plan = ImportPlan(date: date, meal: column(["Group"]), name: name, amount: column(["Amount"]), time: column(["Time"]), width: 0)
            ignored = ["category", "completed"]
        case .myFitnessPal:
            guard let date = column(["Date"]), let meal = column(["Meal"]), column(["Calories"]) != nil else {
                throw ImportFileError("this is not a MyFitnessPal nutrition or progress export (it needs the columns Date, Meal and Calories, or Date and Weight; found \(listed(header))); for another CSV use `ofj import csv FILE --map …`")
            }
            plan = ImportPlan(date: date, meal: meal, width: 0)
            plan.nameFromMeal = true
            ignored = ["note"]
        case .csv(let map):
            var fields: [String: Int] = [:]
            for (field, col) in map.sorted(by: { $0.key < $1.key }) {
                guard let i = firstIndex[col.trimmingCharacters(in: .whitespaces).lowercased()] else {
                    throw ImportFileError("--map \(field)=\(String(col.prefix(40))): the file has no column \"\(String(col.prefix(40)))\"; its columns are \(listed(header))")
                }
                if ImportFormat.mapFields.contains(field) {
                    fields[field] = i
                } else {
                    let kj = NutrientAmounts.isKilojoules(field)
                    guard let id = kj ? "energy_kcal" : NutrientCatalog.nutrient(field)?.id else {
                        throw ImportFileError("--map: '\(String(field.prefix(40)))' is not a field or nutrient id (fields: date, meal, name, amount, time, brand; nutrients look like energy_kcal, protein_g, sodium_mg)")
                    }
                    mapNutrients.append((i, id, kj ? 1 / NutrientAmounts.kilojoulesPerKcal : 1))
                    report.mappedColumns[header[i]] = kj ? "energy_kcal (from kJ)" : id
                }
            }
            guard let date = fields["date"], fields["name"] != nil else {
                throw ImportFileError("--map needs date=COLUMN and name=COLUMN (and nutrients such as energy_kcal=COLUMN)")
            }
            guard !mapNutrients.isEmpty else {
                throw ImportFileError("--map names no nutrient: add e.g. energy_kcal=Calories,protein_g=\"Protein (g)\"")
            }
            plan = ImportPlan(date: date, meal: fields["meal"], name: fields["name"], amount: fields["amount"], time: fields["time"],
                              brand: fields["brand"], width: 0)
            plan.nutrients = mapNutrients
        }
        for (field, i) in [("date", plan.date), ("meal", plan.meal), ("name", plan.name), ("amount", plan.amount), ("time", plan.time), ("brand", plan.brand)] {
            guard let i else { continue }
            used.insert(i)
            report.mappedColumns[header[i]] = field
        }
        used.formUnion(plan.nutrients.map(\.index))
        var mappedIDs = Set(plan.nutrients.map(\.id))
        for (i, h) in header.enumerated() where !used.contains(i) {
            if firstIndex[h.lowercased()] != i {
                report.unknownColumns.append(h + " (a second column with this name; the first is used)")
                continue
            }
            if ignored.contains(h.lowercased()) || h.isEmpty { continue }
            let (name, unit) = ImportValues.splitUnit(h)
            var id: String?
            var unitText = unit
            if case .myFitnessPal = format {
                if myFitnessPalPercentColumns.contains(name.lowercased()) {
                    report.unmappedNutrients.append(ImportUnmappedColumn(column: h, reason: "a percentage of the daily value, not an amount"))
                    continue
                }
                if unit == nil, let known = myFitnessPalColumns[name.lowercased()] { id = known.id; unitText = known.unit }
            }
            if id == nil { id = cronometerNames[name.lowercased()] ?? NutrientCatalog.canonicalID(for: name) }
            if id == nil, NutrientAmounts.isKilojoules(name) || unit?.lowercased() == "kj" { id = "energy_kcal" }
            guard let id else {
                if unit.map({ ImportValues.factor(from: $0, to: "protein_g") != nil || ["iu", "kcal", "kj", "%"].contains($0.lowercased()) }) ?? false {
                    report.unmappedNutrients.append(ImportUnmappedColumn(column: h, reason: "not a nutrient ofj tracks"))
                } else {
                    report.unknownColumns.append(h)
                }
                continue
            }
            if case .csv = format {
                // Not in the map: listed so the person can add it.
                report.unmappedNutrients.append(ImportUnmappedColumn(column: h, reason: "not in --map (add \(id)=\(h.contains(",") ? "\"\(h)\"" : h) to import it)"))
                continue
            }
            guard let u = unitText, let factor = ImportValues.factor(from: u, to: id) else {
                report.unmappedNutrients.append(ImportUnmappedColumn(column: h, reason: unitText == nil ? "no unit in the header" : "\(unitText!) does not convert to \(NutrientCatalog.nutrient(id)?.unit.rawValue ?? "its unit")"))
                continue
            }
            guard !mappedIDs.contains(id) else {
                report.unmappedNutrients.append(ImportUnmappedColumn(column: h, reason: "\(id) is already read from another column"))
                continue
            }
            mappedIDs.insert(id)
            plan.nutrients.append((i, id, factor))
            report.mappedColumns[h] = id
        }
        if plan.nutrients.isEmpty {
            throw ImportFileError("no column of the file holds a nutrient ofj reads (columns: \(listed(header))); check the file is the right export")
        }
        plan.width = ([plan.date] + plan.nutrients.map(\.index) + [plan.meal, plan.name, plan.amount].compactMap { $0 }).max().map { $0 + 1 } ?? 1
        return plan
    }

    static func listed(_ header: [String]) -> String {
        let shown = header.prefix(8).map { "\"\(String($0.prefix(30)))\"" }.joined(separator: ", ")
        return header.count > 8 ? shown + ", …" : shown
    }
}

