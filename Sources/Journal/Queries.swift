// Journal reads: a day by meal, per-day totals over a range, entry search, breakdown by food.
import Base
import Foundation
import Nutrition
import SQLiteKit

extension JournalStore {
    /// Longest range a single query accepts (a little over ten years).
    public static let maxRangeDays = 3_700

    /// A day by meal (every meal present, possibly empty), with totals against goals and
    /// per-nutrient "not reported" counts.
    public func dayView(_ day: CalendarDay, in db: Database) throws -> DayView {
        let entries = try loadEntries(where: "day = ?", [day.description], order: "COALESCE(eaten_at, created_at), seq",
                                      days: (day.description, day.description), in: db)
        var groups: [Meal: [Entry]] = [:]
        for e in entries { groups[e.meal, default: []].append(e) }
        var dayTotals = NutrientTotals()
        let meals = Meal.allCases.map { meal -> MealGroup in
            var t = NutrientTotals()
            let list = groups[meal] ?? []
            for e in list { t.add(e.totalNutrients) }
            dayTotals.add(t)
            return MealGroup(meal: meal, entries: list, totals: t)
        }
        let derived = Set(entries.flatMap { $0.derivedNutrients ?? [] }).sorted()
        let sources = try goalSources(in: db)
        var view = DayView(day: day, meals: meals, totals: dayTotals,
                           goals: GoalProgress.make(goals: sources.goals(try goals(in: db), on: day), totals: dayTotals, sources: sources),
                           partlyDerived: derived.isEmpty ? nil : derived)
        view.mark = try dayMark(day, in: db)
        return view
    }

    public func dayView(_ day: CalendarDay) throws -> DayView { try queue.read { try dayView(day, in: $0) } }

    /// Per-day totals for every day from `from` through `to` and the daily averages over days
    /// that have entries. `nutrients` limits the ids summed (all when nil).
    /// Nutrient ids whose totals from `from` to `to` include a value derived by USDA's rules
    /// (some entry's `derivedNutrients`), sorted.
    public func partlyDerivedNutrients(from: CalendarDay, to: CalendarDay, in db: Database) throws -> [String] {
        var ids: Set<String> = []
        try db.forEachRow("SELECT derived_nutrients FROM journal_entries WHERE day >= ? AND day <= ? AND derived_nutrients IS NOT NULL",
                          [from.description, to.description]) { s in
            for id in (s.value(at: 0).string ?? "").split(separator: ",") { ids.insert(String(id)) }
        }
        return ids.sorted()
    }

    public func rangeSummary(from: CalendarDay, to: CalendarDay, nutrients: [String]? = nil, in db: Database) throws -> RangeSummary {
        try checkRange(from, to)
        let ids = try nutrients.map { list in try list.map { try canonicalNutrient($0) } }
        var counts: [String: Int] = [:]
        try db.forEachRow("SELECT day, count(*) FROM journal_entries WHERE day >= ? AND day <= ? GROUP BY day",
                          [from.description, to.description]) { s in
            if let d = s.value(at: 0).string { counts[d] = s.value(at: 1).int ?? 0 }
        }
        var amounts: [String: [String: Double]] = [:]
        var reported: [String: [String: Int]] = [:]
        var sql = """
            SELECT day, nutrient, total, reported FROM journal_day_totals WHERE day >= ? AND day <= ?
            """
        var args: [DatabaseValueConvertible] = [from.description, to.description]
        if let ids {
            sql += " AND nutrient IN (\(Array(repeating: "?", count: ids.count).joined(separator: ", ")))"
            args += ids.map { $0 as DatabaseValueConvertible }
        }
        if ids?.isEmpty != true {
            try db.forEachRow(sql, args) { s in
                guard let d = s.value(at: 0).string, let n = s.value(at: 1).string else { return }
                amounts[d, default: [:]][n] = s.value(at: 2).double ?? 0
                reported[d, default: [:]][n] = s.value(at: 3).int ?? 0
            }
        }
        var days: [DayTotals] = []
        var overall = NutrientTotals()
        var logged = 0
        var d = from
        while d <= to {
            let key = d.description
            let t = NutrientTotals(amounts: amounts[key] ?? [:], reportedCounts: reported[key] ?? [:], entryCount: counts[key] ?? 0)
            if t.entryCount > 0 { logged += 1 }
            overall.add(t)
            days.append(DayTotals(day: d, totals: t))
            d = try domain { try d.adding(days: 1) }
        }
        // A day that does not report a nutrient is not a day of zero: each average divides by
        // the logged days that report it.
        var reportingDays: [String: Int] = [:]
        for day in days where day.totals.entryCount > 0 {
            for (k, n) in day.totals.reportedCounts where n > 0 { reportingDays[k, default: 0] += 1 }
        }
        var averages: [String: Double] = [:]
        for (k, v) in overall.amounts { if let n = reportingDays[k], n > 0 { averages[k] = v / Double(n) } }
        return RangeSummary(from: from, to: to, days: days, loggedDayCount: logged, dailyAverages: averages,
                            reportingDayCounts: reportingDays, totals: overall)
    }

    public func rangeSummary(from: CalendarDay, to: CalendarDay, nutrients: [String]? = nil) throws -> RangeSummary {
        try queue.read { try rangeSummary(from: from, to: to, nutrients: nutrients, in: $0) }
    }

    /// Entries whose name or brand has every word of `text` (as the start of a word), newest day
    /// first, through the full-text index.
    public func searchEntries(_ text: String, from: CalendarDay? = nil, to: CalendarDay? = nil, limit: Int = 50,
                              in db: Database) throws -> [Entry] {
        let q = try checkText(text, field: "search text", max: Limits.searchText)
        guard let query = FullTextQuery(q) else {
            throw JournalError.invalid(field: "search text", reason: "needs a letter or digit to search for")
        }
        var clauses = [Self.fullTextClause]
        var args: [DatabaseValueConvertible] = [query.matchExpression]
        if let from { clauses.append("day >= ?"); args.append(from.description) }
        if let to { clauses.append("day <= ?"); args.append(to.description) }
        return try loadEntries(where: clauses.joined(separator: " AND "), args, order: "day DESC, created_at DESC, seq DESC",
                               limit: max(0, min(limit, 10_000)), in: db)
    }

    public func searchEntries(_ text: String, from: CalendarDay? = nil, to: CalendarDay? = nil, limit: Int = 50) throws -> [Entry] {
        try queue.read { try searchEntries(text, from: from, to: to, limit: limit, in: $0) }
    }

    /// Which foods gave how much of `nutrient` from `from` through `to`, largest first.
    /// Entries are grouped by name and brand (case-insensitive).
    public func nutrientBreakdown(_ nutrient: String, from: CalendarDay, to: CalendarDay, limit: Int = 20,
                                  in db: Database) throws -> NutrientBreakdown {
        try checkRange(from, to)
        let id = try canonicalNutrient(nutrient)
        let total = try db.row("""
            SELECT (SELECT count(*) FROM journal_entries WHERE day >= ?1 AND day <= ?2),
                   (SELECT sum(total) FROM journal_entry_nutrients WHERE day >= ?1 AND day <= ?2 AND nutrient = ?3),
                   (SELECT count(*) FROM journal_entry_nutrients WHERE day >= ?1 AND day <= ?2 AND nutrient = ?3)
            """, [from.description, to.description, id])
        let entryCount = total?[0].int ?? 0
        let sum = total?[1].double ?? 0
        let reported = total?[2].int ?? 0
        var foods: [FoodContribution] = []
        try db.forEachRow("""
            SELECT min(e.name), min(e.brand), sum(n.total) AS amount, count(*)
            FROM journal_entry_nutrients n JOIN journal_entries e ON e.seq = n.entry_seq
            WHERE n.nutrient = ? AND n.day >= ? AND n.day <= ?
            GROUP BY lower(e.name), lower(coalesce(e.brand, ''))
            ORDER BY amount DESC, lower(min(e.name)), min(e.brand)
            LIMIT ?
            """, [id, from.description, to.description, max(0, min(limit, 1000))]) { s in
            let amount = s.value(at: 2).double ?? 0
            foods.append(FoodContribution(name: s.value(at: 0).string ?? "", brand: s.value(at: 1).string, amount: amount,
                                          entryCount: s.value(at: 3).int ?? 0, share: sum > 0 ? amount / sum : 0))
        }
        return NutrientBreakdown(nutrient: id, from: from, to: to, total: sum, foods: foods, notReportedCount: entryCount - reported)
    }

    public func nutrientBreakdown(_ nutrient: String, from: CalendarDay, to: CalendarDay, limit: Int = 20) throws -> NutrientBreakdown {
        try queue.read { try nutrientBreakdown(nutrient, from: from, to: to, limit: limit, in: $0) }
    }

    /// The most recently logged entry (by creation time), if any.
    public func lastEntry(in db: Database) throws -> Entry? {
        try loadEntries(where: "1", [], order: "created_at DESC, seq DESC", limit: 1, in: db).first
    }

    public func lastEntry() throws -> Entry? { try queue.read { try lastEntry(in: $0) } }

    /// All entries from `from` through `to` (both optional), oldest first.
    public func entries(from: CalendarDay? = nil, to: CalendarDay? = nil, in db: Database) throws -> [Entry] {
        var clauses = ["1"]
        var args: [DatabaseValueConvertible] = []
        if let from { clauses.append("day >= ?"); args.append(from.description) }
        if let to { clauses.append("day <= ?"); args.append(to.description) }
        return try loadEntries(where: clauses.joined(separator: " AND "), args, order: "day, created_at, seq",
                               days: (from?.description ?? "0000-00-00", to?.description ?? "9999-99-99"), in: db)
    }

    public func entries(from: CalendarDay? = nil, to: CalendarDay? = nil) throws -> [Entry] {
        try queue.read { try entries(from: from, to: to, in: $0) }
    }

    // MARK: - Helpers

    func checkRange(_ from: CalendarDay, _ to: CalendarDay) throws {
        guard from <= to else { throw JournalError.invalid(field: "date range", reason: "starts after it ends (\(from) > \(to))") }
        guard from.days(to: to) < JournalStore.maxRangeDays else {
            throw JournalError.invalid(field: "date range", reason: "is longer than \(JournalStore.maxRangeDays) days")
        }
    }

    func canonicalNutrient(_ s: String) throws -> String {
        if let id = NutrientCatalog.canonicalID(for: s) { return id }
        guard NutrientAmounts.isPlausibleID(s) else {
            throw JournalError.invalid(field: "nutrient", reason: "\"\(s.prefix(40))\" is not a nutrient id such as protein_g")
        }
        return s
    }
}
