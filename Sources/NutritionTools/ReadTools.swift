// The read tools: journal days and ranges, search, breakdowns, Food Bank, goals, reference foods, Shelf.
import Agent
import Base
import Foundation
import Journal
import Nutrition
import ReferenceFoods
import SQLiteKit

// MARK: - Schemas

enum Schema {
    /// An arguments object; `required` is left out when empty (every request carries these bytes).
    static func object(_ properties: [String: JSONValue], required: [String] = []) -> JSONValue {
        var o: [String: JSONValue] = ["type": "object", "properties": .object(properties), "additionalProperties": false]
        if !required.isEmpty { o["required"] = .array(required.map { .string($0) }) }
        return .object(o)
    }
    static func string(_ description: String, maxLength: Int = 200) -> JSONValue {
        ["type": "string", "description": .string(description), "maxLength": .number(Double(maxLength))]
    }
    static func number(_ description: String) -> JSONValue { ["type": "number", "description": .string(description)] }
    static func limit(default d: Int, max m: Int) -> JSONValue {
        ["type": "integer", "minimum": 1, "maximum": .number(Double(m)), "description": .string("Default \(d).")]
    }
    /// An id from a tool result (parsed by the tool, which names the field of a bad one).
    static let id: JSONValue = ["type": "string"]
    /// Dates and meals are parsed by the tool (`Args.day`, `Args.meal`), which refuses bad ones.
    static let date: JSONValue = ["type": "string", "description": "YYYY-MM-DD, today, yesterday (default today)."]
    static let meal: JSONValue = ["type": "string", "description": "breakfast, lunch, dinner, snack (default by time)."]
    /// A nutrient map {id: amount}. The ids are not declared one by one (42 named properties cost
    /// ~900 tokens per tool on every request): the description names the common ones, and
    /// `Args.nutrients` checks every id, answering an unknown one with the catalog's ids.
    static let nutrients: JSONValue = [
        "type": "object",
        "description": "id -> amount in the id's unit: energy_kcal, protein_g, carbohydrate_g, fat_g, fiber_g, sugars_g, saturated_fat_g, sodium_mg, potassium_mg, calcium_mg, iron_mg, vitamin_d_mcg... Leave out unknown ones.",
        "additionalProperties": ["type": "number"],
    ]
    /// A nutrient map for nested places (calculator portions, per-serving values).
    static let plainNutrients: JSONValue = [
        "type": "object", "description": "Nutrient id -> amount in the unit the id ends with.",
        "additionalProperties": ["type": "number"],
    ]
    static let goalMap: JSONValue = [
        "type": "object",
        "description": "Nutrient id -> daily amount in the unit the id ends with (energy_kcal, protein_g, sodium_mg, ...), or null to remove that goal.",
        "additionalProperties": ["type": ["number", "null"]],
    ]
    static let nutrientList: JSONValue = [
        "type": "array", "items": ["type": "string", "maxLength": 64], "maxItems": 20,
        "description": "Nutrient ids such as protein_g, sodium_mg.",
    ]
}

/// A read tool over the journal database.
protocol JournalReadTool: Tool {
    var journal: JournalStore { get }
    func read(_ args: Args, _ db: Database) throws -> ToolOutput
}

extension JournalReadTool {
    var effect: ToolEffect { .read }
    func execute(arguments: JSONValue, context: ToolContext) async throws -> ToolOutput {
        try journal.queue.read { db in try read(Args(arguments), db) }
    }
}

/// The longest range a read tool sums in one call, so results stay bounded.
let maxToolRangeDays = 366

func range(_ args: Args, journal: JournalStore, defaultDays: Int = 7) throws -> (CalendarDay, CalendarDay) {
    let to = try args.day("to", journal: journal) ?? journal.today()
    let from = try args.day("from", journal: journal) ?? (try? to.adding(days: -(defaultDays - 1))) ?? to
    guard from <= to else { throw ToolArgumentError(field: "from", "\(from) is after to (\(to))") }
    guard from.days(to: to) < maxToolRangeDays else {
        throw ToolArgumentError(field: "to", "the range is longer than \(maxToolRangeDays) days; ask for a shorter period")
    }
    return (from, to)
}

// MARK: - Context

struct GetNutritionContext: JournalReadTool {
    let journal: JournalStore
    let name = NutritionToolName.getNutritionContext.rawValue
    let description = "Today's date, time and default meal, meal schedule, goals, today's totals and what remains of each goal, the last 7 days' totals. Call first for questions about today, goals or recent eating."
    var parameters: JSONValue { Schema.object([:]) }
    func activity(arguments: JSONValue) -> String { "reading today's journal and goals" }

    func read(_ args: Args, _ db: Database) throws -> ToolOutput {
        let now = journal.now()
        let today = journal.today()
        let view = try checked(field: "date") { try journal.dayView(today, in: db) }
        let goals = try journal.goals(on: today, in: db)
        let sources = try journal.goalSources(in: db)
        let start = (try? today.adding(days: -6)) ?? today
        let week = try checked(field: "date") { try journal.rangeSummary(from: start, to: today, in: db) }
        let local = now.timeIntervalSince1970 + Double(journal.timeZone.secondsFromGMT(for: now))
        let minutes = Int((local - (local / 86_400).rounded(.down) * 86_400) / 60)
        let schedule = journal.mealSchedule
        let json: JSONValue = [
            "today": .string(today.description),
            "weekday": .string(Text.day(today).components(separatedBy: " ")[0]),
            "local_time": .string(String(format: "%02d:%02d", minutes / 60, minutes % 60)),
            "time_zone": .string(journal.timeZone.identifier),
            "default_meal": .string(journal.defaultMeal().rawValue),
            "meal_schedule": ["breakfast_from": .string(schedule.breakfastStart.description), "lunch_from": .string(schedule.lunchStart.description),
                              "dinner_from": .string(schedule.dinnerStart.description), "snack": "only when chosen"],
            "goals": Shape.goals(goals),
            // Whose goals these are: FDA defaults until personal targets are approved or set.
            "goals_basis": .string(sources.tag(goals, ids: goals.ids)),
            // Goals that are not the FDA default (from the profile or set by the person).
            "personal_goals": .array(goals.ids.filter { sources.origin(of: $0, in: goals) != .fdaDefault }.map { .string($0) }),
            "today_totals": Shape.totals(view.totals),
            // A goal nutrient no entry reported has no known remainder: it is left out, not counted as 0 eaten.
            "remaining": Shape.nutrients(Dictionary(uniqueKeysWithValues: view.goals.compactMap { g in g.remaining.map { (g.id, $0) } })),
            "last_7_days": .array(week.days.map { d in ["date": .string(d.day.description), "totals": Shape.totals(d.totals)] }),
        ]
        return output(json, "read today's journal and goals")
    }
}

// MARK: - Journal

struct GetJournalDay: JournalReadTool {
    let journal: JournalStore
    let name = NutritionToolName.getJournalDay.rawValue
    let description = "One day's entries by meal (id, name, amount, kcal, macros), meal and day totals, goal progress. `nutrients` adds nutrients per entry; `entry_id` gives one entry in full; long days come in pages (`offset` = next_offset)."
    var parameters: JSONValue {
        Schema.object(["date": Schema.date, "nutrients": Schema.nutrientList, "entry_id": Schema.id,
                       "offset": Paging.offsetSchema, "limit": Schema.limit(default: 60, max: 100)])
    }
    func activity(arguments: JSONValue) -> String { "reading your journal for \(Text.clean(arguments["date"]?.stringValue ?? "today", max: 20))" }

    func read(_ args: Args, _ db: Database) throws -> ToolOutput {
        let day = try args.day("date", journal: journal) ?? journal.today()
        let view = try checked(field: "date") { try journal.dayView(day, in: db) }
        if let id = try args.uuid("entry_id") {
            guard let entry = view.entries.first(where: { $0.id == id }) else {
                throw ToolArgumentError(field: "entry_id", "no entry with id \(id.uuidString) on \(day); read the day without entry_id for the ids")
            }
            return output(["date": .string(day.description), "entry": Shape.entry(entry)], "opened \(Text.clean(entry.name, max: 60))")
        }
        let requested = args.raw["nutrients"]?.arrayValue?.compactMap(\.stringValue)
        let shown = Paging.shown(requested)
        // Entries in meal order; a page groups its entries under their meals.
        let entries: [JSONValue] = view.meals.flatMap { m in
            m.entries.map { ["meal": .string(m.meal.rawValue), "entry": Paging.entry($0, shown: shown)] as JSONValue }
        }
        let mealTotals = Dictionary(uniqueKeysWithValues: view.meals.map { ($0.meal.rawValue, Shape.totals($0.totals, only: shown)) })
        func grouped(_ page: [JSONValue]) -> [JSONValue] {
            var groups: [(meal: String, entries: [JSONValue])] = []
            for item in page {
                let meal = item["meal"]?.stringValue ?? ""
                if groups.last?.meal != meal { groups.append((meal, [])) }
                if let e = item["entry"] { groups[groups.count - 1].entries.append(e) }
            }
            return groups.map { g in ["meal": .string(g.meal), "entries": .array(g.entries), "totals": mealTotals[g.meal] ?? .null] }
        }
        let goals: [JSONValue] = view.goals.map { g in
            ["id": .string(g.id), "goal": Shape.number(g.goal), "consumed": g.consumed.map(Shape.number) ?? .null, "remaining": g.remaining.map(Shape.number) ?? .null,
             "direction": .string(g.direction.rawValue)]
        }
        // Whose goals these are, once for the day (per goal: get_goals).
        let basis = GoalSources.tag(view.goals.compactMap { g in g.origin.map { (g.id, $0) } })
        let offset = max(0, args.raw["offset"]?.intValue ?? 0)
        let json = Paging.fit(entries, offset: offset, limit: args.limit(default: 60, max: 100)) { page, next in
            var o: [String: JSONValue] = ["date": .string(day.description), "entry_count": .number(Double(entries.count)),
                                          "offset": .number(Double(min(offset, entries.count))), "meals": .array(grouped(page)),
                                          "totals": Shape.totals(view.totals, only: shown), "goals": .array(goals),
                                          "goals_basis": .string(basis)]
            // Shown totals that include a value derived by USDA's rules (vitamin D from IU, folate DFE).
            let derived = (view.partlyDerived ?? []).filter(shown.contains)
            if !derived.isEmpty { o["totals_partly_derived"] = .array(derived.map { .string($0) }) }
            if let next {
                o["next_offset"] = .number(Double(next))
                o["more"] = .string("\(entries.count - next) more entries: call get_journal_day again with offset \(next)")
            }
            return .object(o)
        }
        return output(json, "\(view.entries.count) entries on \(day)")
    }
}

struct GetJournalRange: JournalReadTool {
    let journal: JournalStore
    let name = NutritionToolName.getJournalRange.rawValue
    var group: ToolGroup { .trends }
    let description = "Per-day totals and daily averages (each over the logged days that report that nutrient; `reporting_days` lists those some logged days lack) for a date range, up to 366 days (past 31 days only days with entries are listed; past 14 days without `nutrients` only macros per day). Use for weeks and months (\"show last week\", \"protein this week\"); pass `nutrients` to keep the answer small."
    var parameters: JSONValue {
        Schema.object(["from": Schema.string("First day: YYYY-MM-DD, today or yesterday. Defaults to 6 days before `to`.", maxLength: 20),
                       "to": Schema.string("Last day: YYYY-MM-DD, today or yesterday. Defaults to today.", maxLength: 20),
                       "nutrients": Schema.nutrientList, "offset": Paging.offsetSchema])
    }
    func activity(arguments: JSONValue) -> String {
        "summing your journal from \(Text.clean(arguments["from"]?.stringValue ?? "the last 7 days", max: 20)) to \(Text.clean(arguments["to"]?.stringValue ?? "today", max: 20))"
    }

    func read(_ args: Args, _ db: Database) throws -> ToolOutput {
        let (from, to) = try range(args, journal: journal)
        let ids = args.raw["nutrients"]?.arrayValue?.compactMap(\.stringValue)
        let summary = try checked(field: "nutrients") { try journal.rangeSummary(from: from, to: to, nutrients: ids, in: db) }
        // Totals that include a value derived by USDA's rules (vitamin D from IU, folate DFE).
        let partlyDerived = try journal.partlyDerivedNutrients(from: from, to: to, in: db).filter { summary.totals.amounts[$0] != nil }
        // Long ranges without a nutrient list keep only the macros per day, so the answer stays whole.
        let perDay: Set<String>? = ids == nil && from.days(to: to) >= 14 ? Set(NutrientCatalog.coreIDs) : nil
        // Past a month, days without entries are left out (logged_days and the range say how many there are).
        let includeEmpty = from.days(to: to) < 31
        let days: [JSONValue] = summary.days.filter { includeEmpty || $0.entryCount > 0 }.map { d in
            ["date": .string(d.day.description), "totals": Shape.totals(d.totals, only: perDay)]
        }
        // A long range's days come in pages (totals and averages always cover the whole range).
        let offset = max(0, args.raw["offset"]?.intValue ?? 0)
        let out = Paging.fit(days, offset: offset, limit: maxToolRangeDays) { page, next in
            var json: JSONValue = [
                "from": .string(from.description), "to": .string(to.description),
                "logged_days": .number(Double(summary.loggedDayCount)),
                "days": .array(page),
                "totals": Shape.totals(summary.totals),
                "daily_averages": Shape.nutrients(summary.dailyAverages),
                // Each average divides by the logged days that report the nutrient; listed when fewer than logged_days.
                "reporting_days": .object(summary.reportingDayCounts.filter { $0.value < summary.loggedDayCount }.mapValues { .number(Double($0)) }),
            ]
            if !partlyDerived.isEmpty { json = json.merging(["totals_partly_derived": .array(partlyDerived.map { .string($0) })]) }
            if ids == nil && perDay != nil { json = json.merging(["per_day_nutrients": "energy_kcal, protein_g, carbohydrate_g and fat_g only; pass `nutrients` for others"]) }
            if let next {
                json = json.merging(["next_offset": .number(Double(next)),
                                     "more": .string("\(days.count - next) more days: call get_journal_range again with the same from/to and offset \(next)")])
            }
            return json
        }
        return output(out, "\(summary.loggedDayCount) logged days from \(from) to \(to)")
    }
}

struct SearchJournal: JournalReadTool {
    let journal: JournalStore
    let name = NutritionToolName.searchJournal.rawValue
    let description = "Logged entries whose name or brand has every word of `text`, newest first, with ids, `last_day` and `total_matches` (\"when did I last eat X\": limit 1). Without `text`: the latest logged entries (\"the last thing I logged\"). Finds entry ids to change."
    var parameters: JSONValue {
        Schema.object(["text": ["type": "string", "maxLength": 200],
                       "from": Schema.string("First date (YYYY-MM-DD, today, yesterday).", maxLength: 20),
                       "to": Schema.string("Last date.", maxLength: 20),
                       "limit": Schema.limit(default: 10, max: 50)])
    }
    func activity(arguments: JSONValue) -> String {
        if let t = arguments["text"]?.stringValue { return "searching your journal for '\(Text.clean(t, max: 60))'" }
        return "finding what you logged last"
    }

    func read(_ args: Args, _ db: Database) throws -> ToolOutput {
        let limit = args.limit(default: 10, max: 50)
        let from = try args.day("from", journal: journal)
        let to = try args.day("to", journal: journal)
        if let f = from, let t = to, f > t { throw ToolArgumentError(field: "from", "\(f) is after to (\(t))") }
        let entries: [Entry]
        var result: [String: JSONValue] = [:]
        if let text = try args.text("text", max: JournalStore.Limits.searchText, required: false), !text.isEmpty {
            entries = try checked(field: "text") { try journal.searchEntries(text, from: from, to: to, limit: limit, in: db) }
            if from == nil && to == nil, let last = try checked(field: "text", { try journal.lastEaten(text, in: db) }) {
                result["last_day"] = .string(last.day.description)
                result["total_matches"] = .number(Double(last.matches))
            }
        } else {
            entries = try recent(from: from, to: to, limit: limit, db)
        }
        result["entries"] = .array(entries.map(Shape.entry))
        result["count"] = .number(Double(entries.count))
        return output(.object(result), "found \(entries.count) entries")
    }

    /// Most recently created entries in the window (the last 60 days by default), newest first.
    private func recent(from: CalendarDay?, to: CalendarDay?, limit: Int, _ db: Database) throws -> [Entry] {
        if from == nil && to == nil && limit == 1 { return try journal.lastEntry(in: db).map { [$0] } ?? [] }
        let start = from ?? (try? journal.today().adding(days: -60))
        let all = try journal.entries(from: start, to: to, in: db)
        let ordered = all.enumerated().sorted { a, b in
            a.element.createdAt != b.element.createdAt ? a.element.createdAt > b.element.createdAt : a.offset > b.offset
        }
        return ordered.prefix(limit).map(\.element)
    }
}

struct GetNutrientBreakdown: JournalReadTool {
    let journal: JournalStore
    let name = NutritionToolName.getNutrientBreakdown.rawValue
    var group: ToolGroup { .trends }
    let description = "Which foods contributed the most of one nutrient over a period (largest first, with share of the total and how many entries did not report it). Use for \"which foods gave me the most sugar this month\"."
    var parameters: JSONValue {
        Schema.object(["nutrient": Schema.string("A nutrient id such as sugars_g, sodium_mg, protein_g.", maxLength: 64),
                       "from": Schema.string("First day (YYYY-MM-DD, today, yesterday). Defaults to 6 days before `to`.", maxLength: 20),
                       "to": Schema.string("Last day. Defaults to today.", maxLength: 20),
                       "limit": Schema.limit(default: 10, max: 30)], required: ["nutrient"])
    }
    func activity(arguments: JSONValue) -> String {
        "finding which foods gave you the most \(NutrientCatalog.displayName(Text.clean(arguments["nutrient"]?.stringValue ?? "?", max: 40)).lowercased())"
    }

    func read(_ args: Args, _ db: Database) throws -> ToolOutput {
        let (from, to) = try range(args, journal: journal)
        let nutrient = try args.requiredString("nutrient")
        let b = try checked(field: "nutrient") { try journal.nutrientBreakdown(nutrient, from: from, to: to, limit: args.limit(default: 10, max: 30), in: db) }
        let foods: [JSONValue] = b.foods.map { f in
            var o: [String: JSONValue] = ["name": .string(Text.clean(f.name)), "amount": Shape.number(f.amount), "entries": .number(Double(f.entryCount)),
                                          "share": Shape.number(f.share)]
            if let brand = f.brand { o["brand"] = .string(Text.clean(brand, max: 100)) }
            return .object(o)
        }
        let json: JSONValue = ["nutrient": .string(b.nutrient), "unit": .string(NutrientCatalog.nutrient(b.nutrient)?.unit.rawValue ?? Units.suffix(of: b.nutrient)),
                               "from": .string(from.description), "to": .string(to.description), "total": Shape.number(b.total),
                               "foods": .array(foods), "entries_not_reporting": .number(Double(b.notReportedCount))]
        return output(json, "\(b.foods.count) foods with \(NutrientCatalog.displayName(b.nutrient).lowercased())")
    }
}

// MARK: - Food Bank

struct SearchFoodBank: JournalReadTool {
    let journal: JournalStore
    let name = NutritionToolName.searchFoodBank.rawValue
    let description = "The person's saved foods (Food Bank) by words of name or brand, archived included: ids, serving, nutrients per serving, Shelf/archive. Search here first (\"my usual oatmeal\"); no query lists active foods."
    var parameters: JSONValue {
        Schema.object(["query": ["type": "string", "maxLength": 200],
                       "brand": Schema.string("Only this brand (\"Unbranded\": none).", maxLength: 100),
                       "sort": ["type": "string", "enum": ["name", "last_used", "brand"]],
                       "offset": Paging.offsetSchema, "limit": Schema.limit(default: 10, max: 30)])
    }
    func activity(arguments: JSONValue) -> String {
        if let q = arguments["query"]?.stringValue, !q.isEmpty { return "searching your Food Bank for '\(Text.clean(q, max: 60))'" }
        return "listing your Food Bank"
    }

    func read(_ args: Args, _ db: Database) throws -> ToolOutput {
        let query = try args.text("query", max: JournalStore.Limits.searchText, required: false) ?? ""
        let brand = try args.text("brand", max: JournalStore.Limits.brand, required: false)
        let sort = args.string("sort").flatMap(FoodSort.init(rawValue:)) ?? .name
        let offset = max(0, args.raw["offset"]?.intValue ?? 0)
        let limit = args.limit(default: 10, max: 30)
        // One more than the page, to know whether there is a next one.
        let items = try checked(field: "query") { try journal.searchFoods(query, brand: brand, sort: sort, limit: offset + limit + 1, in: db) }
        let foods = items.map { Shape.food($0.food, status: $0.status, full: false) }
        let json = Paging.fit(foods, offset: offset, limit: limit) { page, next in
            var o: [String: JSONValue] = ["foods": .array(page), "count": .number(Double(page.count))]
            if let next {
                o["next_offset"] = .number(Double(next))
                o["more"] = .string("more foods match: call search_food_bank again with the same arguments and offset \(next)")
            }
            return .object(o)
        }
        let shown = json["foods"]?.arrayValue?.count ?? 0
        return output(json, "found \(shown) saved foods")
    }
}

struct GetSavedFood: JournalReadTool {
    let journal: JournalStore
    let name = NutritionToolName.getSavedFood.rawValue
    var group: ToolGroup { .foodBank }
    let description = "One saved food in full: serving, extra units, per-serving nutrients, composite ingredients, or a calculator food's ingredients and their named portions (needed for log_calculator_build)."
    var parameters: JSONValue { Schema.object(["food_id": Schema.id], required: ["food_id"]) }
    func activity(arguments: JSONValue) -> String { "opening a saved food" }

    func read(_ args: Args, _ db: Database) throws -> ToolOutput {
        let id = try args.requiredUUID("food_id")
        guard let food = try journal.food(id, in: db) else {
            throw ToolArgumentError(field: "food_id", "no saved food with id \(id.uuidString); search the Food Bank first")
        }
        return output(Shape.food(food, status: food.status(now: journal.now()), full: true), "opened \(Text.clean(food.name, max: 60))")
    }
}

struct ListBrands: JournalReadTool {
    let journal: JournalStore
    let name = NutritionToolName.listBrands.rawValue
    var group: ToolGroup { .foodBank }
    let description = "Brands in the Food Bank with how many foods carry each (\"Unbranded\" last). Use before renaming a brand or filtering by brand."
    var parameters: JSONValue { Schema.object([:]) }
    func activity(arguments: JSONValue) -> String { "listing your brands" }

    func read(_ args: Args, _ db: Database) throws -> ToolOutput {
        let buckets = try journal.brandBuckets(in: db)
        let list: [JSONValue] = buckets.map { ["brand": .string(Text.clean($0.displayName, max: 100)), "foods": .number(Double($0.foodCount)),
                                               "unbranded": .bool($0.brand == nil)] }
        return output(["brands": .array(list)], "\(buckets.count) brands")
    }
}

struct GetGoals: JournalReadTool {
    let journal: JournalStore
    let name = NutritionToolName.getGoals.rawValue
    var group: ToolGroup { .goals }
    let description = "The person's daily goals (id -> amount in the id's unit), whether each is a target to reach or a limit to stay under, and whether they are still the FDA defaults."
    var parameters: JSONValue { Schema.object([:]) }
    func activity(arguments: JSONValue) -> String { "reading your goals" }

    func read(_ args: Args, _ db: Database) throws -> ToolOutput {
        let goals = try journal.goals(in: db)
        let sources = try journal.goalSources(in: db)
        let list: [JSONValue] = goals.ids.compactMap { id in
            goals[id].map { v -> JSONValue in
                // origin: fda_default (the label Daily Value, not personal), profile (DRIs, with the source) or person.
                var o: [String: JSONValue] = ["id": .string(id), "name": .string(NutrientCatalog.displayName(id)), "amount": Shape.number(v),
                                              "direction": .string(Goals.direction(id).rawValue),
                                              "origin": .string(sources.origin(of: id, in: goals).rawValue)]
                if sources.origin(of: id, in: goals) == .profile, let s = sources.sources[id]?.source { o["source"] = .string(s) }
                if let l = sources.upperLimits[id] { o["upper_limit"] = ["kind": .string(l.kind), "amount": Shape.number(l.value)] }
                return .object(o)
            }
        }
        var out: [String: JSONValue] = ["goals": .array(list), "fda_defaults": .bool(goals == .fdaDefaults)]
        if !sources.weekdayEnergy.isEmpty {
            out["energy_kcal_by_weekday"] = .object(Dictionary(uniqueKeysWithValues: sources.weekdayEnergy.map { (GoalSources.weekdayNames[$0.key - 1], Shape.number($0.value)) }))
        }
        return output(.object(out), "read \(list.count) goals")
    }
}

// MARK: - Reference foods and Shelf

struct SearchReferenceFoods: Tool {
    let reference: ReferenceDatabase
    /// When given, the `choices` the person logs at this time of day come first (issue 34 §2).
    var journal: JournalStore?
    let name = NutritionToolName.searchReferenceFoods.rawValue
    let description = "USDA reference foods (offline) by words, best first: reference ids, portions (\"1 large\" = 50 g), nutrients per 100 g. When `clear_winner` is false, ask which one the person means (up to 3) instead of guessing."
    var parameters: JSONValue {
        Schema.object(["query": Schema.string("e.g. \"egg whole raw\", \"greek yogurt plain\"."), "limit": Schema.limit(default: 5, max: 10)],
                      required: ["query"])
    }
    var effect: ToolEffect { .read }
    func activity(arguments: JSONValue) -> String { "searching reference foods for '\(Text.clean(arguments["query"]?.stringValue ?? "", max: 60))'" }
    /// The first search of the process reads the files and builds the word index (ReferenceDatabase).
    func prepare() async { try? reference.prepareSearch() }

    func execute(arguments: JSONValue, context: ToolContext) async throws -> ToolOutput {
        let args = Args(arguments)
        guard let query = try args.text("query", max: 200, required: true) else { throw ToolArgumentError(field: "query", "is required") }
        // A database whose files failed to load answers every search with nothing; say so instead.
        guard reference.count > 0 else {
            return .error("the reference foods could not be loaded on this computer; search the Food Bank or ask the person for the nutrients")
        }
        let ranked = reference.rankedSearch(query, limit: args.limit(default: 5, max: 10))
        let foods: [JSONValue] = ranked.hits.map { hit in
            SearchReferenceFoods.shape(hit.food).merging(["score": .number(Double(hit.score))])
        }
        // Every nutrient per 100 g makes a food about 2 KB; the page shrinks rather than be cut.
        let json = Paging.fit(foods, offset: 0, limit: foods.count) { page, _ in
            ["foods": .array(page), "count": .number(Double(page.count)), "clear_winner": .bool(ranked.clearWinner),
             "choices": .array(recentFirst(ranked.choices).map { .string($0) }),
             "how_to_choose": .string(ranked.clearWinner
                ? "the first food is a clear match"
                : "no clear winner: foods that score close differ, or the words do not say dry or cooked; ask the person which of `choices` they mean")]
        }
        let count = json["foods"]?.arrayValue?.count ?? 0
        return output(json, "found \(count) reference foods")
    }

    /// `choices` with the foods logged at this time of day in the last weeks first (in their
    /// ranking), the others after in the search's order.
    func recentFirst(_ choices: [String]) -> [String] {
        guard choices.count > 1, let journal, let recent = try? journal.recentFoods(limit: 50) else { return choices }
        let names = recent.filter { $0.source == .reference }.map { $0.name.lowercased() }
        func rank(_ id: String) -> Int {
            guard let d = reference.food(id: id)?.description.lowercased() else { return Int.max }
            return names.firstIndex { $0 == d || (d.count > JournalStore.Limits.name && $0.hasSuffix("…") && d.hasPrefix(String($0.dropLast()))) } ?? Int.max
        }
        return choices.enumerated().sorted { a, b in
            let (ra, rb) = (rank(a.element), rank(b.element))
            return ra != rb ? ra < rb : a.offset < b.offset
        }.map(\.element)
    }

    static func shape(_ f: ReferenceFood) -> JSONValue {
        var o: [String: JSONValue] = [
            "reference_id": .string(f.id), "name": .string(Text.clean(f.description, max: 200)), "group": .string(f.group),
            "portions": .array(f.portions.prefix(8).map { p in ["measure": .string(Text.clean(p.measure, max: 60)), "amount": Shape.number(p.amount), "grams": Shape.number(p.gramWeight)] }),
            "nutrients_per_100g": Shape.nutrients(ReferenceConversion.nutrients(f, grams: 100)),
        ]
        if let c = f.commonName { o["common_name"] = .string(Text.clean(c, max: 100)) }
        let derived = JournalStore.referenceDerivations(f)
        if !derived.isEmpty { o["derived"] = .object(derived.mapValues { .string($0) }) }
        return .object(o)
    }
}

struct RecommendShelfFoods: JournalReadTool {
    let journal: JournalStore
    let name = NutritionToolName.recommendShelfFoods.rawValue
    var group: ToolGroup { .foodBank }
    let description = "Ranks the foods on the person's Shelf (available at home) at 0.5x to 2x servings against what is left of today's goals, with a plain reason. Use for \"what can I eat tonight\"."
    var parameters: JSONValue { Schema.object(["date": Schema.date, "limit": Schema.limit(default: 5, max: 10)]) }
    func activity(arguments: JSONValue) -> String { "checking your Shelf against today's goals" }

    func read(_ args: Args, _ db: Database) throws -> ToolOutput {
        let day = try args.day("date", journal: journal) ?? journal.today()
        let recs = try checked(field: "date") { try journal.recommendFromShelf(day: day, limit: args.limit(default: 5, max: 10), in: db) }
        let list: [JSONValue] = recs.map { r in
            var o: [String: JSONValue] = ["food_id": .string(r.foodID.uuidString), "name": .string(Text.clean(r.name)), "servings": Shape.number(r.servings),
                                          "serving": .string(Text.clean(r.servingLabel, max: 60)), "nutrients": Shape.nutrients(r.nutrients),
                                          "score": Shape.number(r.score), "reason": .string(r.reason)]
            if let b = r.brand { o["brand"] = .string(Text.clean(b, max: 100)) }
            return .object(o)
        }
        let goals = try journal.goals(on: day, in: db)
        return output(["date": .string(day.description), "recommendations": .array(list),
                       "goals_basis": .string(try journal.goalSources(in: db).tag(goals, ids: goals.ids))], "\(recs.count) Shelf suggestions")
    }
}
