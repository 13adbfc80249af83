// The meal schedule in config.json: when breakfast, lunch and dinner start, which decides the
// default meal of a new entry. The four meal kinds stay fixed (breakfast, lunch, dinner, snack:
// the journal's CHECK constraint and the SPEC's meal list); snack has no start time, it is only
// used when chosen. `"meals": {"breakfast": "06:00", "lunch": "11:30", "dinner": "17:30"}`.
// Meals of the person's own (`"custom_meals": {"Pre-workout": "16:30"}`, issue 34 §8) are stored
// as snack with the meal's name (`meal_label`) and take the slot from their start to the next meal.
import Base
import Foundation
import Journal
import Nutrition
import OutputSafety
import REPL
import Settings

enum MealConfig {
    static let kinds = ["breakfast", "lunch", "dinner"]

    /// The schedule in config.json, the standard one when there is none or it is invalid
    /// (`problem` says why; `ofj meals` and `ofj doctor` show it).
    static func load(configPath: String) -> (schedule: MealSchedule, configured: Bool, problem: String?) {
        guard let json = try? ConfigFile(path: configPath).document(), let meals = json["meals"] else { return (.standard, false, nil) }
        do { return (try schedule(meals, base: .standard), true, nil) } catch {
            return (.standard, false, "\(configPath): \"meals\": \(error); fix it or run ofj meals reset")
        }
    }

    /// Reads `{"breakfast": "HH:MM", …}`; missing meals keep `base`'s start.
    static func schedule(_ value: JSONValue, base: MealSchedule) throws -> MealSchedule {
        guard let object = value.objectValue else { throw CLIError("must be an object like {\"breakfast\": \"06:00\", \"lunch\": \"12:00\", \"dinner\": \"18:00\"}") }
        var starts = [base.breakfastStart, base.lunchStart, base.dinnerStart]
        for (key, v) in object.sorted(by: { $0.key < $1.key }) {
            guard let i = kinds.firstIndex(of: key) else {
                throw CLIError("\"\(TerminalText.sanitize(String(key.prefix(30)), keepNewlines: false))\" is not a meal with a start time (breakfast, lunch, dinner; snack is only used when chosen)")
            }
            guard let text = v.stringValue, let t = try? TimeOfDay(parsing: text) else {
                throw CLIError("\(key) must be a time as \"HH:MM\" (24-hour), e.g. \"07:30\"")
            }
            starts[i] = t
        }
        do { return try MealSchedule(breakfastStart: starts[0], lunchStart: starts[1], dinnerStart: starts[2]) } catch {
            throw CLIError("the starts must be distinct and run breakfast, lunch, dinner through the day (dinner may end after midnight)")
        }
    }

    static func json(_ s: MealSchedule) -> JSONValue {
        ["breakfast": .string(s.breakfastStart.description), "lunch": .string(s.lunchStart.description), "dinner": .string(s.dinnerStart.description)]
    }

    /// `ofj meals`: the schedule as lines.
    static func describe(_ s: MealSchedule, configured: Bool) -> String {
        let rows = [("breakfast", s.breakfastStart, s.lunchStart), ("lunch", s.lunchStart, s.dinnerStart), ("dinner", s.dinnerStart, s.breakfastStart)]
        var lines = ["Meal schedule (\(configured ? "config.json" : "the default")): a new entry goes to the meal of the local time."]
        for (name, start, end) in rows { lines.append("  " + name.padding(toLength: 10, withPad: " ", startingAt: 0) + "\(start)–\(end)") }
        lines.append("  snack     only when chosen")
        lines.append("Change it with: ofj meals set breakfast=HH:MM lunch=HH:MM dinner=HH:MM")
        return lines.joined(separator: "\n")
    }

    /// `ofj meals set NAME=HH:MM…`: validates, then writes config.json (other settings kept).
    static func set(_ assignments: [String], configPath: String) throws -> MealSchedule {
        guard !assignments.isEmpty else { throw CLIError("give at least one MEAL=HH:MM, e.g. ofj meals set breakfast=06:30", status: 2) }
        var root = try configObject(configPath)
        var current = MealSchedule.standard
        if let meals = root["meals"], let s = try? Self.schedule(meals, base: .standard) { current = s }
        var given: [String: JSONValue] = [:]
        for a in assignments {
            let parts = a.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw CLIError("'\(TerminalText.sanitize(String(a.prefix(40)), keepNewlines: false))' is not MEAL=HH:MM, e.g. lunch=12:30", status: 2) }
            given[parts[0].lowercased()] = .string(parts[1])
        }
        let schedule: MealSchedule
        do { schedule = try Self.schedule(.object(given), base: current) } catch let e as CLIError { throw CLIError(e.description, status: 2) }
        root["meals"] = json(schedule)
        try save(root, configPath)
        return schedule
    }

    /// `ofj meals reset`: removes the schedule from config.json.
    static func reset(configPath: String) throws {
        var root = try configObject(configPath)
        guard root.removeValue(forKey: "meals") != nil else { return }
        try save(root, configPath)
    }

    static func configObject(_ path: String) throws -> [String: JSONValue] {
        do { return try ConfigFile(path: path).object() } catch {
            throw CLIError("\(path) is not a JSON object; fix it (ofj doctor shows the problem) before changing the meal schedule")
        }
    }

    /// The whole file, other sections kept (approval rules stay one line each).
    static func save(_ root: [String: JSONValue], _ path: String) throws {
        do { try ConfigFile(path: path).write(root) } catch { throw CLIError(error.description) }
    }
}

// MARK: - Meals of the person's own (issue 34 §8)

/// `"custom_meals": {"Pre-workout": "16:30"}` in config.json: meals beyond the four, each with
/// the time it starts. Entries of one are stored as snack with the meal's name.
extension MealConfig {
    /// The custom meals in config.json, in clock order; entries that are not a valid name and
    /// "HH:MM" are left out (`ofj meals` names them).
    static func customMeals(configPath: String) -> [CustomMeal] {
        guard let json = try? ConfigFile(path: configPath).document(), let object = json["custom_meals"]?.objectValue else { return [] }
        return object.compactMap { name, value -> CustomMeal? in
            guard CustomMeal.problem(name) == nil, let text = value.stringValue, let t = try? TimeOfDay(parsing: text) else { return nil }
            return CustomMeal(name: name, start: t)
        }.sorted { ($0.start, $0.name) < ($1.start, $1.name) }
    }

    /// `ofj meals add NAME --at HH:MM`: refused when NAME is a built-in meal, is already a meal, or
    /// its start is another meal's.
    static func addCustom(_ name: String, at text: String, configPath: String, schedule: MealSchedule) throws -> [CustomMeal] {
        let name = name.trimmingCharacters(in: .whitespaces)
        if let problem = CustomMeal.problem(name) { throw CLIError(TerminalText.sanitize(problem, keepNewlines: false), status: 2) }
        guard let start = try? TimeOfDay(parsing: text) else {
            throw CLIError("invalid time '\(TerminalText.sanitize(String(text.prefix(20)), keepNewlines: false))': use HH:MM on a 24-hour clock, e.g. 16:30", status: 2)
        }
        var root = try configObject(configPath)
        var object = root["custom_meals"]?.objectValue ?? [:]
        if object.keys.contains(where: { $0.lowercased() == name.lowercased() }) {
            throw CLIError("there is already a meal named '\(TerminalText.sanitize(name, keepNewlines: false))'; ofj meals remove it first", status: 2)
        }
        let taken = [schedule.breakfastStart, schedule.lunchStart, schedule.dinnerStart] + customMeals(configPath: configPath).map(\.start)
        if taken.contains(start) { throw CLIError("another meal starts at \(start); choose another time", status: 2) }
        object[name] = .string(start.description)
        root["custom_meals"] = .object(object)
        try save(root, configPath)
        return customMeals(configPath: configPath)
    }

    /// `ofj meals remove NAME`: entries already logged to it keep its name.
    static func removeCustom(_ name: String, configPath: String) throws {
        var root = try configObject(configPath)
        var object = root["custom_meals"]?.objectValue ?? [:]
        guard let key = object.keys.first(where: { $0.lowercased() == name.trimmingCharacters(in: .whitespaces).lowercased() }) else {
            throw CLIError("no meal of your own is named '\(TerminalText.sanitize(String(name.prefix(40)), keepNewlines: false))'; ofj meals lists them", status: 2)
        }
        object.removeValue(forKey: key)
        root["custom_meals"] = object.isEmpty ? nil : .object(object)
        try save(root, configPath)
    }

    static func describeCustom(_ meals: [CustomMeal]) -> String {
        guard !meals.isEmpty else { return "No meals of your own. Add one with: ofj meals add \"Pre-workout\" --at 16:30" }
        return (["Your own meals (each until the next meal starts; log to one with --meal NAME):"]
            + meals.map { "  " + TerminalText.sanitize($0.name, keepNewlines: false).padding(toLength: max(10, $0.name.count), withPad: " ", startingAt: 0) + "  from \($0.start)" })
            .joined(separator: "\n")
    }

    static func customJSON(_ meals: [CustomMeal]) -> JSONValue {
        .array(meals.map { ["name": .string($0.name), "start": .string($0.start.description)] })
    }
}
