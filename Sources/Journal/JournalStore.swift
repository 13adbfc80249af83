// JournalStore: the one place that changes journal data. Entry writes live here; foods, goals,
// queries and backup are in their own files.
import Base
import Foundation
import Nutrition
import SQLiteKit

/// The journal and Food Bank over one SQLite database.
///
/// Every write has two forms: `…(…, in db: Database)`, which runs inside the caller's
/// transaction (so the agent can commit a journal change and its ledger row together), and a
/// convenience form without `db` that opens its own immediate transaction on `queue`.
/// Every write validates all input first and throws `JournalError` naming the field; nothing
/// is written on error.
public struct JournalStore: Sendable {
    public let queue: DatabaseQueue
    public let timeZone: TimeZone
    public let mealSchedule: MealSchedule
    /// Meals beyond the four (issue 34 §8, config.json's "custom_meals"), each from its start time
    /// to the next meal's: an entry logged in that slot with no meal goes to it.
    public var customMeals: [CustomMeal] = []
    private let clock: @Sendable () -> Date

    /// - Parameters:
    ///   - queue: the database (migrated with `registerMigrations` or `migrate`).
    ///   - timeZone: the user's zone: it decides which calendar day "today" is.
    ///   - mealSchedule: windows for the default meal.
    ///   - now: the clock (tests pass a fixed one).
    public init(queue: DatabaseQueue, timeZone: TimeZone = .current, mealSchedule: MealSchedule = .standard,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.queue = queue; self.timeZone = timeZone; self.mealSchedule = mealSchedule; self.clock = now
    }

    /// Opens `queue` and applies only the journal's migrations (a database without other modules).
    public static func openStandalone(queue: DatabaseQueue, timeZone: TimeZone = .current, mealSchedule: MealSchedule = .standard,
                                      now: @escaping @Sendable () -> Date = { Date() }) throws -> JournalStore {
        try queue.unrestricted { try JournalStore.migrate($0) }
        return JournalStore(queue: queue, timeZone: timeZone, mealSchedule: mealSchedule, now: now)
    }

    // MARK: - Clock and calendar

    /// Now, at the millisecond precision timestamps are stored with.
    public func now() -> Date { Date(milliseconds: clock().milliseconds) }

    /// The calendar day of `date` in the store's time zone.
    public func day(of date: Date) -> CalendarDay {
        let local = date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))
        let n = Int((local / 86_400).rounded(.down))
        // Day numbers of any real clock are within CalendarDay's range.
        return (try? CalendarDay(dayNumber: n)) ?? JournalStore.epochDay
    }

    /// Today in the store's time zone.
    public func today() -> CalendarDay { day(of: now()) }

    /// The meal the schedule gives the current local time.
    public func defaultMeal(at date: Date? = nil) -> Meal {
        let d = date ?? now()
        let local = d.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: d))
        let seconds = local - (local / 86_400).rounded(.down) * 86_400
        let minutes = min(1439, max(0, Int(seconds / 60)))
        return (try? TimeOfDay(minutes: minutes)).map(mealSchedule.defaultMeal(at:)) ?? .breakfast
    }

    static let epochDay = CalendarDay.unixEpoch

    // MARK: - Entries

    /// Logs a new entry (manual, assistant or any other source that brings its own nutrients).
    @discardableResult
    public func logEntry(_ draft: EntryDraft, in db: Database) throws -> Entry {
        try db.transaction { db in try insertNew(draft, in: db) }
    }

    private func insertNew(_ draft: EntryDraft, in db: Database) throws -> Entry {
        let now = now()
        let entry = try validatedEntry(from: draft, id: draft.id ?? UUID(), createdAt: now, updatedAt: now)
        if let foodID = entry.savedFoodID {
            guard try foodExists(foodID, in: db) else { throw JournalError.notFound(kind: "saved food", id: foodID.uuidString) }
        }
        if try entryExists(entry.id, in: db) {
            throw JournalError.invalid(field: "id", reason: "\(entry.id.uuidString) is already used by another entry")
        }
        try recording(.entry, entry.id.uuidString, in: db) {
            try insertEntry(entry, in: db)
            try refreshDayTotals([entry.day], in: db)
        }
        if let foodID = entry.savedFoodID { try touchFood(foodID, at: now, in: db) }
        return entry
    }

    @discardableResult
    public func logEntry(_ draft: EntryDraft) throws -> Entry { try queue.write { try logEntry(draft, in: $0) } }

    /// Logs a saved food: a number of its servings or a quantity in any unit it converts from.
    /// Keeps `saved_food_id` and updates the food's `last_used_at`. `overrides` (canonical id →
    /// amount for everything logged) replace the food's values in this entry only; `eatenAt` is
    /// when it was eaten (nil: now).
    @discardableResult
    public func logFood(_ foodID: UUID, amount: FoodAmount = .servings(1), day: CalendarDay? = nil, meal: Meal? = nil,
                        source: EntrySource = .foodBank, eatenAt: Date? = nil, overrides: [String: Double] = [:],
                        mealLabel: String? = nil, in db: Database) throws -> Entry {
        guard let food = try food(foodID, in: db) else { throw JournalError.notFound(kind: "saved food", id: foodID.uuidString) }
        guard food.kind != .calculator else {
            throw JournalError.invalid(field: "food", reason: "is a calculator: log it with logCalculatorBuild and a portion per ingredient")
        }
        var draft = EntryDraft(day: day, meal: meal, name: food.name, brand: food.brand, serving: food.serving,
                               nutrients: food.nutrients, savedFoodID: food.id, source: source,
                               derivedNutrients: Set(food.derivedNutrients ?? []))
        switch amount {
        case .servings(let n):
            try check(positive: n, field: "servings", max: Limits.servings)
            draft.servings = n
        case .quantity(let q, let unit):
            try check(positive: q, field: "quantity", max: Limits.quantity)
            let measures = food.measures
            draft.serving = ServingSize(quantity: q, unit: unit, grams: measures.grams(q, unit), milliliters: measures.milliliters(q, unit))
            draft.nutrients = try domain { try food.nutrients(quantity: q, unit: unit).nutrients }.rounded(places: 6)
            draft.servings = 1
        }
        draft.eatenAt = eatenAt
        draft.mealLabel = mealLabel
        if !overrides.isEmpty {
            var values = draft.nutrients.values
            for (id, total) in overrides { values[id] = total / draft.servings }
            draft.nutrients = try NutrientAmounts(values)
            draft.derivedNutrients.subtract(overrides.keys)
        }
        return try logEntry(draft, in: db)
    }

    @discardableResult
    public func logFood(_ foodID: UUID, amount: FoodAmount = .servings(1), day: CalendarDay? = nil, meal: Meal? = nil,
                        source: EntrySource = .foodBank, eatenAt: Date? = nil, overrides: [String: Double] = [:],
                        mealLabel: String? = nil) throws -> Entry {
        try queue.write {
            try logFood(foodID, amount: amount, day: day, meal: meal, source: source, eatenAt: eatenAt, overrides: overrides, mealLabel: mealLabel, in: $0)
        }
    }

    /// Logs one build of a calculator food: one portion per chosen ingredient, summed.
    @discardableResult
    public func logCalculatorBuild(_ foodID: UUID, selections: [CalculatorSelection], servings: Double = 1,
                                   day: CalendarDay? = nil, meal: Meal? = nil, in db: Database) throws -> Entry {
        guard let food = try food(foodID, in: db) else { throw JournalError.notFound(kind: "saved food", id: foodID.uuidString) }
        let sum = try domain { try food.build(selections) }
        let detail = selections.map { "\($0.ingredient) \($0.portion)" }.joined(separator: ", ")
        var name = "\(food.name) (\(detail))"
        if name.count > Limits.name { name = String(name.prefix(Limits.name - 1)) + "…" }
        let draft = EntryDraft(day: day, meal: meal, name: name, brand: food.brand, serving: ServingSize(),
                               servings: servings, nutrients: sum, savedFoodID: food.id, source: .calculator)
        return try logEntry(draft, in: db)
    }

    @discardableResult
    public func logCalculatorBuild(_ foodID: UUID, selections: [CalculatorSelection], servings: Double = 1,
                                   day: CalendarDay? = nil, meal: Meal? = nil) throws -> Entry {
        try queue.write { try logCalculatorBuild(foodID, selections: selections, servings: servings, day: day, meal: meal, in: $0) }
    }

    /// Changes an entry. Fields left nil keep their value.
    @discardableResult
    public func updateEntry(_ id: UUID, _ update: EntryUpdate, in db: Database) throws -> Entry {
        guard !update.isEmpty else { throw JournalError.invalid(field: "update", reason: "changes nothing: give at least one field") }
        guard let old = try entry(id, in: db) else { throw JournalError.notFound(kind: "entry", id: id.uuidString) }
        var draft = EntryDraft(day: update.day ?? old.day, meal: update.meal ?? old.meal, name: update.name ?? old.name,
                               brand: old.brand, serving: update.serving ?? old.serving, servings: update.servings ?? old.servings,
                               nutrients: update.nutrients ?? old.nutrients, savedFoodID: old.savedFoodID, source: old.source,
                               derivedNutrients: Set(old.derivedNutrients ?? []), eatenAt: old.eatenAt,
                               mealLabel: update.meal == nil ? old.mealLabel : nil)
        if let b = update.brand { draft.brand = b }
        // A derived value stays marked while it is carried over (servings, amount); one set by
        // hand (a new value, or removed) is no longer derived.
        if let n = update.nutrients {
            draft.derivedNutrients = draft.derivedNutrients.filter { id in
                guard let a = old.nutrients.values[id], let b = n.values[id] else { return false }
                return abs(a - b) <= 1e-6 * max(1, abs(a))
            }
        }
        let new = try validatedEntry(from: draft, id: old.id, createdAt: old.createdAt, updatedAt: max(now(), old.updatedAt))
        try db.transaction { db in
            try recording(.entry, id.uuidString, in: db) {
                try replaceEntry(new, in: db)
                try refreshDayTotals([old.day, new.day], in: db)
            }
        }
        return new
    }

    @discardableResult
    public func updateEntry(_ id: UUID, _ update: EntryUpdate) throws -> Entry {
        try queue.write { try updateEntry(id, update, in: $0) }
    }

    /// Moves an entry to another day and/or meal.
    @discardableResult
    public func moveEntry(_ id: UUID, toDay day: CalendarDay? = nil, meal: Meal? = nil, in db: Database) throws -> Entry {
        guard day != nil || meal != nil else { throw JournalError.invalid(field: "move", reason: "needs a day or a meal") }
        return try updateEntry(id, EntryUpdate(day: day, meal: meal), in: db)
    }

    @discardableResult
    public func moveEntry(_ id: UUID, toDay day: CalendarDay? = nil, meal: Meal? = nil) throws -> Entry {
        try queue.write { try moveEntry(id, toDay: day, meal: meal, in: $0) }
    }

    /// Deletes an entry and returns what it was.
    @discardableResult
    public func deleteEntry(_ id: UUID, in db: Database) throws -> Entry {
        guard let old = try entry(id, in: db) else { throw JournalError.notFound(kind: "entry", id: id.uuidString) }
        try db.transaction { db in
            try recording(.entry, id.uuidString, in: db) {
                if let seq = try db.scalar("SELECT seq FROM journal_entries WHERE id = ?", [id.uuidString]).int64 {
                    try unindexEntry(seq: seq, in: db)
                }
                // Explicit rather than relying on ON DELETE CASCADE, which needs foreign keys on.
                try db.execute("DELETE FROM journal_entry_nutrients WHERE entry_seq = (SELECT seq FROM journal_entries WHERE id = ?)",
                               [id.uuidString])
                try db.execute("DELETE FROM journal_entries WHERE id = ?", [id.uuidString])
                try refreshDayTotals([old.day], in: db)
            }
        }
        return old
    }

    @discardableResult
    public func deleteEntry(_ id: UUID) throws -> Entry { try queue.write { try deleteEntry(id, in: $0) } }

    /// One entry by id.
    public func entry(_ id: UUID, in db: Database) throws -> Entry? {
        try loadEntries(where: "id = ?", [id.uuidString], order: "seq", in: db).first
    }

    public func entry(_ id: UUID) throws -> Entry? { try queue.read { try entry(id, in: $0) } }

    // MARK: - Validation

    /// Upper bounds that catch typos and hostile input without limiting real use.
    public enum Limits {
        public static let name = 200
        public static let brand = 100
        public static let quantity = 1_000_000.0
        public static let servings = 10_000.0
        public static let nutrientAmount = 10_000_000.0
        public static let nutrientCount = 200
        public static let searchText = 200
    }

    func check(positive v: Double, field: String, max: Double) throws {
        guard v.isFinite, v > 0 else { throw JournalError.invalid(field: field, reason: "must be a positive finite number, got \(v)") }
        guard v <= max else { throw JournalError.invalid(field: field, reason: "must be at most \(max.formattedAmount), got \(v)") }
    }

    func checkText(_ s: String, field: String, max: Int, required: Bool = true) throws -> String {
        try domain { try Validate.text(s, field: field, maxLength: max, required: required) }
    }

    func checkServing(_ s: ServingSize, field: String = "serving") throws {
        try check(positive: s.quantity, field: "\(field) quantity", max: Limits.quantity)
        if let g = s.grams { try check(positive: g, field: "\(field) grams", max: Limits.quantity) }
        if let m = s.milliliters { try check(positive: m, field: "\(field) mL", max: Limits.quantity) }
        if case .count(let name) = s.unit { _ = try checkText(name, field: "\(field) unit", max: 40) }
    }

    func checkNutrients(_ n: NutrientAmounts, field: String = "nutrients") throws {
        guard n.count <= Limits.nutrientCount else {
            throw JournalError.invalid(field: field, reason: "has more than \(Limits.nutrientCount) nutrients")
        }
        for (id, v) in n {
            guard NutrientAmounts.isPlausibleID(id) else {
                throw JournalError.invalid(field: field, reason: "has an invalid nutrient id \"\(id.prefix(40))\"; use snake_case ids such as protein_g")
            }
            guard v.isFinite, v >= 0, v <= Limits.nutrientAmount else {
                throw JournalError.invalid(field: "\(field).\(id)", reason: "must be between 0 and \(Limits.nutrientAmount.formattedAmount), got \(v)")
            }
        }
    }

    func validatedEntry(from d: EntryDraft, id: UUID, createdAt: Date, updatedAt: Date) throws -> Entry {
        let name = try checkText(d.name, field: "name", max: Limits.name)
        let brand = try d.brand.map { try checkText($0, field: "brand", max: Limits.brand, required: false) }
        try checkServing(d.serving)
        try check(positive: d.servings, field: "servings", max: Limits.servings)
        try checkNutrients(d.nutrients)
        let when = d.eatenAt ?? now()
        let custom = d.meal == nil && d.mealLabel == nil ? customMeal(at: when) : nil
        let label = try d.mealLabel.map { try checkText($0, field: "meal", max: CustomMeal.maxName) } ?? custom?.name
        return Entry(id: id, day: d.day ?? day(of: when), meal: label != nil ? .snack : d.meal ?? defaultMeal(at: when), name: name,
                     brand: (brand?.isEmpty ?? true) ? nil : brand, serving: d.serving, servings: d.servings,
                     nutrients: d.nutrients, savedFoodID: d.savedFoodID, source: d.source,
                     createdAt: createdAt, updatedAt: updatedAt, derivedNutrients: JournalStore.derivedList(d.derivedNutrients, d.nutrients),
                     eatenAt: d.eatenAt, mealLabel: label)
    }

    /// The derived ids that have a value, sorted; nil when none.
    static func derivedList(_ ids: Set<String>, _ nutrients: NutrientAmounts) -> [String]? {
        let kept = ids.filter { nutrients.values[$0] != nil }.sorted()
        return kept.isEmpty ? nil : kept
    }

    // MARK: - Rows

    func entryExists(_ id: UUID, in db: Database) throws -> Bool {
        try db.row("SELECT 1 FROM journal_entries WHERE id = ?", [id.uuidString]) != nil
    }

    func insertEntry(_ e: Entry, in db: Database) throws {
        try db.execute("""
            INSERT INTO journal_entries (id, day, meal, name, brand, serving_quantity, serving_unit, serving_grams, serving_ml,
                servings, saved_food_id, source, created_at, updated_at, derived_nutrients, eaten_at, meal_label)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [e.id.uuidString, e.day.description, e.meal.rawValue, e.name, e.brand, e.serving.quantity, e.serving.unit.symbol,
                  e.serving.grams, e.serving.milliliters, e.servings, e.savedFoodID?.uuidString, e.source.rawValue,
                  e.createdAt.milliseconds, e.updatedAt.milliseconds, e.derivedNutrients?.joined(separator: ","), e.eatenAt?.milliseconds, e.mealLabel])
        let seq = db.lastInsertRowID
        try insertNutrients(e, seq: seq, in: db)
        try indexEntry(seq: seq, name: e.name, brand: e.brand, in: db)
    }

    /// Overwrites an existing entry's row and nutrients, keeping its position.
    func replaceEntry(_ e: Entry, in db: Database) throws {
        try db.execute("""
            UPDATE journal_entries SET day = ?, meal = ?, name = ?, brand = ?, serving_quantity = ?, serving_unit = ?,
                serving_grams = ?, serving_ml = ?, servings = ?, saved_food_id = ?, source = ?, created_at = ?, updated_at = ?,
                derived_nutrients = ?, eaten_at = ?, meal_label = ?
            WHERE id = ?
            """, [e.day.description, e.meal.rawValue, e.name, e.brand, e.serving.quantity, e.serving.unit.symbol,
                  e.serving.grams, e.serving.milliliters, e.servings, e.savedFoodID?.uuidString, e.source.rawValue,
                  e.createdAt.milliseconds, e.updatedAt.milliseconds, e.derivedNutrients?.joined(separator: ","), e.eatenAt?.milliseconds, e.mealLabel, e.id.uuidString])
        guard let seq = try db.scalar("SELECT seq FROM journal_entries WHERE id = ?", [e.id.uuidString]).int64 else {
            throw JournalError.notFound(kind: "entry", id: e.id.uuidString)
        }
        try db.execute("DELETE FROM journal_entry_nutrients WHERE entry_seq = ?", [seq])
        try insertNutrients(e, seq: seq, in: db)
        try indexEntry(seq: seq, name: e.name, brand: e.brand, in: db)
    }

    func insertNutrients(_ e: Entry, seq: Int64, in db: Database) throws {
        let day = e.day.description
        for (id, v) in e.nutrients.values {
            try db.execute("INSERT INTO journal_entry_nutrients (day, nutrient, entry_seq, amount, total) VALUES (?, ?, ?, ?, ?)",
                           [day, id, seq, v, v * e.servings])
        }
    }

    /// Recomputes the cached per-day sums of `days` from their entries' nutrients.
    func refreshDayTotals<S: Sequence>(_ days: S, in db: Database) throws where S.Element == CalendarDay {
        for day in Set(days.map(\.description)) {
            try db.execute("DELETE FROM journal_day_totals WHERE day = ?", [day])
            try db.execute("""
                INSERT INTO journal_day_totals (day, nutrient, total, reported)
                SELECT day, nutrient, sum(total), count(*) FROM journal_entry_nutrients WHERE day = ? GROUP BY day, nutrient
                """, [day])
        }
    }

    /// Rebuilds every cached per-day sum (after bulk writes).
    func rebuildAllDayTotals(in db: Database) throws {
        try db.execute("DELETE FROM journal_day_totals")
        try db.execute("""
            INSERT INTO journal_day_totals (day, nutrient, total, reported)
            SELECT day, nutrient, sum(total), count(*) FROM journal_entry_nutrients GROUP BY day, nutrient
            """)
    }

    static let entryColumns = """
        seq, id, day, meal, name, brand, serving_quantity, serving_unit, serving_grams, serving_ml, servings,
        saved_food_id, source, created_at, updated_at, derived_nutrients, eaten_at, meal_label
        """

    /// Entries matching a WHERE clause on journal_entries, with their nutrients.
    /// `days`, when given (a range covering every matching entry), lets the nutrients of all
    /// matching entries load in one ordered scan instead of one lookup per entry.
    func loadEntries(where clause: String, _ args: [DatabaseValueConvertible], order: String, limit: Int? = nil,
                     days: (from: String, to: String)? = nil, in db: Database) throws -> [Entry] {
        var sql = "SELECT \(JournalStore.entryColumns) FROM journal_entries WHERE \(clause) ORDER BY \(order)"
        var args = args
        // Bound, not interpolated, so the statement cache holds one statement per query shape.
        if let limit { sql += " LIMIT ?"; args.append(max(0, limit)) }
        var rows: [(Int64, Entry)] = []
        try db.forEachRow(sql, args) { s in rows.append(try decodeEntry(s)) }
        guard !rows.isEmpty else { return [] }
        var bySeq: [Int64: [String: Double]] = [:]
        if let days {
            try db.forEachRow("SELECT entry_seq, nutrient, amount FROM journal_entry_nutrients WHERE day >= ? AND day <= ?",
                              [days.from, days.to]) { s in
                if let k = s.value(at: 1).string, let v = s.value(at: 2).double { bySeq[s.value(at: 0).int64 ?? 0, default: [:]][k] = v }
            }
        }
        var out: [Entry] = []
        out.reserveCapacity(rows.count)
        for (seq, var e) in rows {
            var values: [String: Double] = [:]
            if days != nil {
                values = bySeq[seq] ?? [:]
            } else {
                try db.forEachRow("SELECT nutrient, amount FROM journal_entry_nutrients WHERE entry_seq = ?", [seq]) { s in
                    if let k = s.value(at: 0).string, let v = s.value(at: 1).double { values[k] = v }
                }
            }
            // Stored ids and amounts were validated when written.
            e.nutrients = NutrientAmounts(storedCanonical: values)
            out.append(e)
        }
        return out
    }

    func decodeEntry(_ s: Statement) throws -> (Int64, Entry) {
        func text(_ i: Int) throws -> String {
            guard let t = s.value(at: i).string else { throw JournalError.corruptRow("entry column \(s.columnName(i))") }
            return t
        }
        let seq = s.value(at: 0).int64 ?? 0
        guard let id = UUID(uuidString: try text(1)) else { throw JournalError.corruptRow("entry id") }
        guard let day = try? CalendarDay(parsing: try text(2)) else { throw JournalError.corruptRow("entry day") }
        guard let meal = Meal(rawValue: try text(3)) else { throw JournalError.corruptRow("entry meal") }
        let unit = ServingUnit(storedSymbol: try text(7))
        let serving = ServingSize(quantity: s.value(at: 6).double ?? 1, unit: unit, grams: s.value(at: 8).double,
                                  milliliters: s.value(at: 9).double)
        let source = EntrySource(rawValue: try text(12)) ?? .manual
        let e = Entry(id: id, day: day, meal: meal, name: try text(4), brand: s.value(at: 5).string, serving: serving,
                      servings: s.value(at: 10).double ?? 1, nutrients: NutrientAmounts(),
                      savedFoodID: s.value(at: 11).string.flatMap(UUID.init(uuidString:)), source: source,
                      createdAt: Date(milliseconds: s.value(at: 13).int64 ?? 0), updatedAt: Date(milliseconds: s.value(at: 14).int64 ?? 0),
                      derivedNutrients: s.value(at: 15).string.map { $0.split(separator: ",").map(String.init) }.flatMap { $0.isEmpty ? nil : $0 },
                      eatenAt: s.value(at: 16).int64.map(Date.init(milliseconds:)), mealLabel: s.value(at: 17).string)
        return (seq, e)
    }
}

extension Date {
    /// Milliseconds since 1970, as stored.
    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
    init(milliseconds: Int64) { self.init(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
