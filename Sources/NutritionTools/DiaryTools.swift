// The diary tools (issue 34 §2, §8): copy_journal_meal (a meal or a whole day logged again, the
// same copy `ofj copy` makes: one card, one undo step), add_day_note and get_eating_times.
import Agent
import Base
import Foundation
import Journal
import Nutrition
import SQLiteKit

struct CopyJournalMeal: JournalWriteTool {
    let journal: JournalStore
    let name = NutritionToolName.copyJournalMeal.rawValue
    var group: ToolGroup { .diary }
    let description = """
        Logs a meal (no `meal`: the whole day) of `from_date` again on `to_date` (default today), to `to_meal` or each entry's own \
        meal, same amounts and nutrients ("same breakfast as yesterday"). `again`: copy even if already there. Needs approval.
        """
    var parameters: JSONValue {
        Schema.object(["from_date": Schema.date, "meal": Schema.string("Meal to copy; none: the whole day.", maxLength: 20),
                       "to_date": Schema.date, "to_meal": Schema.string("Meal to copy to.", maxLength: 20),
                       "again": ["type": "boolean"]],
                      required: ["from_date"])
    }
    func activity(arguments: JSONValue) -> String { "preparing to copy a meal" }

    func plan(_ args: Args, _ db: Database) throws -> WritePlan {
        guard let from = try args.day("from_date", journal: journal) else { throw ToolArgumentError(field: "from_date", "is required") }
        let meal = try args.meal("meal")
        let toMeal = try args.meal("to_meal")
        let to = try args.day("to_date", journal: journal) ?? journal.today()
        if from == to && (toMeal ?? meal) == meal {
            throw ToolArgumentError(field: "to_date", "that copies \(from) onto itself; give another day or meal")
        }
        let entries = try journal.entriesToCopy(from: from, meal: meal, in: db)
        guard !entries.isEmpty else {
            throw ToolArgumentError(field: "from_date", "nothing is logged \(meal.map { "at \($0.rawValue) " } ?? "")on \(from); nothing was copied")
        }
        let twins = try journal.copiesAlreadyThere(entries, to: to, meal: toMeal, in: db)
        if twins > 0 && args.bool("again") != true {
            throw ToolArgumentError(field: "again", "\(to) already has \(twins == entries.count ? "these entries" : "\(twins) of these \(entries.count) entries"); "
                                        + "ask the person, and call again with again: true to copy them anyway")
        }
        var total = NutrientAmounts()
        for e in entries { total = total.adding(e.totalNutrients) }
        var lines = ["Copy \(entries.count) entr\(entries.count == 1 ? "y" : "ies"): \(meal.map { $0.rawValue + " on " } ?? "")\(Text.day(from)) → "
                     + "\((toMeal ?? meal).map { $0.rawValue + " on " } ?? "")\(Text.day(to))"]
        for e in entries {
            lines.append("  \(e.meal.rawValue): \(Text.food(e.name, brand: e.brand)) — \(Text.serving(e.serving, servings: e.servings))")
        }
        lines.append(Text.nutrientLines(total, label: "Nutrients added"))
        var resolved: [String: JSONValue] = ["from_date": .string(from.description), "to_date": .string(to.description)]
        if let meal { resolved["meal"] = .string(meal.rawValue) }
        if let toMeal { resolved["to_meal"] = .string(toMeal.rawValue) }
        let change: [String: JSONValue] = ["arguments": args.resolved(resolved),
                                           "entry_ids": .array(entries.map { .string($0.id.uuidString) })]
        return WritePlan(preview: lines.joined(separator: "\n"), change: change, preconditions: dependencies(entries.map(dependency))) { db in
            let copies = try journal.copyEntries(entries, to: to, meal: toMeal, in: db)
            return output(["copied": .array(copies.map(Shape.entry)), "count": .number(Double(copies.count))],
                          "copied \(copies.count) entr\(copies.count == 1 ? "y" : "ies") to \(to)")
        }
    }
}

/// add_day_note (issue 34 §8): a note on a day ("note: felt bloated"), one undo step.
struct AddDayNote: JournalWriteTool {
    let journal: JournalStore
    let name = NutritionToolName.addDayNote.rawValue
    var group: ToolGroup { .diary }
    let description = "Adds a day note in the person's words (\"felt bloated\"). Needs approval."
    var parameters: JSONValue {
        Schema.object(["text": Schema.string("The note.", maxLength: JournalStore.noteMaxCharacters), "date": Schema.date], required: ["text"])
    }
    func activity(arguments: JSONValue) -> String { "preparing to add a note" }

    func plan(_ args: Args, _ db: Database) throws -> WritePlan {
        guard let text = args.string("text")?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else {
            throw ToolArgumentError(field: "text", "is required: the note in the person's words")
        }
        guard text.count <= JournalStore.noteMaxCharacters else {
            throw ToolArgumentError(field: "text", "has \(JournalStore.grouped(text.count)) characters; a note holds at most \(JournalStore.grouped(JournalStore.noteMaxCharacters))")
        }
        let day = try args.day("date", journal: journal) ?? journal.today()
        let preview = "Add a note to \(Text.day(day)):\n  \(Text.clean(text, max: JournalStore.noteMaxCharacters))"
        let change: [String: JSONValue] = ["arguments": args.resolved(["date": .string(day.description)])]
        return WritePlan(preview: preview, change: change) { db in
            let note = try checked(field: "text") { try journal.addNote(text, day: day, in: db) }
            return output(["noted": ["id": .string(note.id.uuidString), "date": .string(note.day.description), "text": .string(note.text)]],
                          "added a note to \(note.day)")
        }
    }
}

/// get_eating_times (issue 34 §2, §8): what the person logs at this time of day (or for a meal),
/// when they last ate, and the overnight fasting windows of the last week, from entry times.
struct GetEatingTimes: JournalReadTool {
    let journal: JournalStore
    let name = NutritionToolName.getEatingTimes.rawValue
    var group: ToolGroup { .diary }
    let description = "Foods logged most at this time of day or for `meal` (28 days), the last entry and the last 7 nights' fasting windows."
    var parameters: JSONValue { Schema.object(["meal": Schema.string("A meal to rank for.", maxLength: 20)]) }
    func activity(arguments: JSONValue) -> String { "reading when you eat" }

    func read(_ args: Args, _ db: Database) throws -> ToolOutput {
        let meal = try args.meal("meal")
        let now = journal.now()
        let today = journal.today()
        func clock(_ d: Date) -> JSONValue { .string((try? TimeOfDay(minutes: journal.minuteOfDay(d)))?.description ?? "?") }
        let foods = try journal.recentFoods(meal: meal, at: now, limit: 10, in: db)
        var o: [String: JSONValue] = [
            "foods": .array(foods.map { f in
                var item: [String: JSONValue] = ["name": .string(Text.clean(f.name, max: 200)), "count": .number(Double(f.count)),
                                                 "last_date": .string(f.last.day.description)]
                if let id = f.savedFoodID { item["food_id"] = .string(id.uuidString) }
                return .object(item)
            }),
            "fasting_windows": .array(try journal.fastingWindows(from: try today.adding(days: -6), to: today, in: db).map { w in
                ["date": .string(w.day.description), "from": clock(w.start), "to": clock(w.end), "hours": Shape.number(w.hours)]
            }),
        ]
        if let meal { o["meal"] = .string(meal.rawValue) } else { o["around"] = clock(now) }
        if let last = try journal.lastEaten(in: db) {
            let at = journal.eatenTime(last)
            o["last_entry"] = ["name": .string(Text.clean(last.name, max: 200)), "date": .string(journal.day(of: at).description), "time": clock(at),
                               "hours_since": Shape.number(max(0, now.timeIntervalSince(at)) / 3600)]
        }
        return output(.object(o), "read \(foods.count) frequent foods")
    }
}
