// `ofj recent` (issue 34 §2): the foods a person logs at this time of day or for one meal.
import Base
import CommandLineKit
import Foundation
import Journal
import Nutrition
import OutputSafety
import Settings
import Views

extension OfjCommands {
    static func recent(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("recent", summary: "the foods you log most at this time of day (or for --meal) in the last 4 weeks",
                    details: """
                        Counts the entries of the last 28 days (today included) eaten within 90 minutes of the
                        current time of day, or logged to MEAL with --meal, per food (a Food Bank food, or one name
                        from the reference foods or by hand); quick adds and water are left out. The most often
                        logged come first, then the most recently logged. Tab completion of --food and the offline
                        assistant's choices offer them first.
                        """,
                    options: [.value("--meal", "MEAL", .suggestions(mealNames), "rank for this meal instead of the time of day"),
                              .value("--limit", "N", .integer(1...100), "at most N foods", default: "10"), .json],
                    access: .read,
                    action: journal(ctx) { c, inv in try c.recent(inv.arguments) })
    }
}

extension JournalCommands {
    func parseMeal(_ text: String) throws -> Meal {
        do { return try Meal(parsing: text) } catch { throw CLIError("invalid meal '\(JournalViews.safeName(String(text.prefix(40))))': use breakfast, lunch, dinner or snack", status: 2) }
    }

    /// `--meal`: one of the four, or a meal of the person's own (`ofj meals add`), any case.
    func mealOrCustom(_ text: String) throws -> (Meal?, String?) {
        if let m = try? Meal(parsing: text) { return (m, nil) }
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let c = journal.customMeals.first(where: { $0.name.lowercased() == t }) { return (nil, c.name) }
        let own = journal.customMeals.map(\.name)
        throw CLIError("invalid meal '\(JournalViews.safeName(String(text.prefix(40))))': use breakfast, lunch, dinner or snack"
                       + (own.isEmpty ? " (ofj meals add NAME makes one of your own)" : " or one of yours: " + own.map(JournalViews.safeName).joined(separator: ", ")), status: 2)
    }

    func recent(_ p: ParsedArguments) throws {
        let meal = try p.value("--meal").map(parseMeal)
        let limit = Int(p.value("--limit") ?? "10") ?? 10
        let now = journal.now()
        let foods = try journal.recentFoods(meal: meal, at: now, limit: limit)
        let around = (try? TimeOfDay(minutes: journal.minuteOfDay(now)))?.description ?? "00:00"
        if p.has("--json") {
            let items: [JSONValue] = foods.map { f in
                .object([
                    "name": .string(f.name), "brand": f.brand.map(JSONValue.string) ?? .null,
                    "saved_food_id": f.savedFoodID.map { .string($0.uuidString) } ?? .null,
                    "source": .string(f.source.rawValue), "count": .number(Double(f.count)),
                    "last_day": .string(f.last.day.description), "last_entry_id": .string(f.last.id.uuidString),
                    "last_amount": .string(Self.amountLabel(f.last)),
                ])
            }
            var doc: [String: JSONValue] = ["window_days": .number(Double(JournalStore.recentWindowDays)), "foods": .array(items)]
            if let meal { doc["meal"] = .string(meal.rawValue) } else {
                doc["around"] = .string(around)
                doc["span_minutes"] = .number(Double(JournalStore.recentTimeSpan))
            }
            out(TerminalText.escapingJSON(PrettyJSON.format(.object(doc))).trimmingCharacters(in: .newlines))
            return
        }
        let scope = meal.map { "for \($0.rawValue)" } ?? "around \(around)"
        guard !foods.isEmpty else {
            out("Nothing logged \(scope) in the last \(JournalStore.recentWindowDays) days.")
            return
        }
        var lines = ["Foods you log \(scope) (last \(JournalStore.recentWindowDays) days), most often first:"]
        let width = min(40, foods.map { JournalViews.safeName($0.name).count }.max() ?? 0)
        for (i, f) in foods.enumerated() {
            let name = JournalViews.safeName(f.name)
            var line = "  \(i + 1). " + name.padding(toLength: max(width, name.count), withPad: " ", startingAt: 0)
            line += "  \(f.count)×  last \(f.last.day): " + TerminalText.sanitize(Self.amountLabel(f.last))
            if f.savedFoodID != nil { line += "  (ofj log --food \(Self.shellQuoted(f.name)))" }
            lines.append(line)
        }
        out(lines.joined(separator: "\n"))
    }

    static func amountLabel(_ e: Entry) -> String {
        e.servings == 1 ? e.serving.label : e.servings.formattedAmount + " × " + e.serving.label
    }

    static func shellQuoted(_ s: String) -> String {
        let safe = JournalViews.safeName(s)
        if safe.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) { return safe }
        return "'" + safe.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

// MARK: - fasting, water, notes (issue 34 §8)

extension OfjCommands {
    static func fasting(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("fasting", summary: "the time since your last entry and each night's fasting window, from entry times",
                    details: """
                        Derived from the times entries were eaten (--at, else when they were logged); no timer is kept.
                        A night's window runs from the last entry of a day to the first entry of the next; a day or
                        the day before it without entries has no window.
                        """,
                    options: [.value("--days", "N", .integer(1...366), "how many nights to show, ending today", default: "7"), .json],
                    access: .read,
                    action: journal(ctx) { c, inv in try c.fasting(inv.arguments) })
    }

    static func water(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("water", summary: "add water toward the water goal: ofj water 500ml (ml, l, fl oz, cups); no amount shows the day",
                    details: """
                        Logs an entry named "Water" with water_g (1 g per mL), so it syncs, backs up and undoes like any
                        entry. A cup is 240 mL (US), a fl oz 29.57 mL. Set a goal with: ofj goals set water_g=2000
                        """,
                    arguments: [PositionalSpec("AMOUNT", optional: true, variadic: true)],
                    options: [.value("--date", "DATE", .date, "the day", default: "today"),
                              .value("--at", "HH:MM", .text, "when it was drunk (24-hour; default: now)"),
                              .value("--meal", "MEAL", .suggestions(mealNames), "the meal it goes to (default: the meal of the time)"),
                              .json],
                    access: .write,
                    action: journal(ctx) { c, inv in try c.water(inv.arguments) })
    }

    static func note(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("note", summary: "add a note to a day (ofj note \"felt bloated\"); ofj day shows it, ofj search finds it",
                    details: "A note holds up to \(JournalStore.grouped(JournalStore.noteMaxCharacters)) characters; TEXT - reads it from stdin. Without TEXT it lists the day's notes.\n`ofj undo` removes a note just added.",
                    arguments: [PositionalSpec("TEXT", optional: true, variadic: true)],
                    options: [.value("--date", "DATE", .date, "the day", default: "today"), .json],
                    access: .write,
                    action: journal(ctx) { c, inv in try c.note(inv.arguments) })
    }
}

/// An amount of water as typed: "500ml", "0.5 l", "16 fl oz", "2 cups".
enum WaterAmount {
    static let milliliters: [String: Double] = [
        "ml": 1, "milliliter": 1, "milliliters": 1, "millilitre": 1, "millilitres": 1,
        "l": 1000, "liter": 1000, "liters": 1000, "litre": 1000, "litres": 1000,
        "cl": 10, "dl": 100,
        "floz": 29.5735, "fl oz": 29.5735, "fl. oz": 29.5735, "fluid ounce": 29.5735, "fluid ounces": 29.5735, "oz": 29.5735,
        "cup": 240, "cups": 240, "glass": 240, "glasses": 240,  // as household-measures.tsv has a glass
    ]

    /// Milliliters, or nil when the text is not a positive number with one of the units.
    static func parse(_ text: String) -> Double? {
        let t = text.lowercased().trimmingCharacters(in: .whitespaces)
        guard let m = t.range(of: #"^([0-9][0-9.,]*)\s*([a-z. ]+)$"#, options: .regularExpression).map({ String(t[$0]) }) else { return nil }
        let digits = String(m.prefix { $0.isNumber || $0 == "." || $0 == "," })
        let unit = m.dropFirst(digits.count).trimmingCharacters(in: .whitespaces)
        // The one decimal rule of every typed amount: "1,5 l" is 1.5 l, "1,000 ml" is refused.
        guard case .success(let q)? = TypedNumber.read(digits), q > 0, q.isFinite, let per = milliliters[unit] else { return nil }
        return q * per
    }
}

extension JournalCommands {
    func fasting(_ p: ParsedArguments) throws {
        let days = Int(p.value("--days") ?? "7") ?? 7
        let today = journal.today()
        let from = try today.adding(days: -(days - 1))
        let now = journal.now()
        let (last, windows) = try journal.queue.read { db in (try journal.lastEaten(in: db), try journal.fastingWindows(from: from, to: today, in: db)) }
        func clock(_ d: Date) -> String { (try? TimeOfDay(minutes: journal.minuteOfDay(d)))?.description ?? "?" }
        func span(_ seconds: Double) -> String {
            let minutes = max(0, Int((seconds / 60).rounded(.down)))
            return "\(minutes / 60) h \(minutes % 60 < 10 ? "0" : "")\(minutes % 60) min"
        }
        if p.has("--json") {
            var doc: [String: JSONValue] = [
                "windows": .array(windows.map { w in
                    ["day": .string(w.day.description), "start": .string(SearchViews.isoTime(w.start.timeIntervalSince1970, journal.timeZone)),
                     "end": .string(SearchViews.isoTime(w.end.timeIntervalSince1970, journal.timeZone)), "hours": .number((w.hours * 100).rounded() / 100)]
                }),
            ]
            if let last {
                let at = journal.eatenTime(last)
                doc["last_entry"] = ["entry_id": .string(last.id.uuidString), "name": .string(last.name),
                                     "at": .string(SearchViews.isoTime(at.timeIntervalSince1970, journal.timeZone)),
                                     "hours_since": .number((max(0, now.timeIntervalSince(at)) / 36).rounded() / 100)]
            } else { doc["last_entry"] = .null }
            out(TerminalText.escapingJSON(PrettyJSON.format(.object(doc))).trimmingCharacters(in: .newlines))
            return
        }
        var lines: [String] = []
        if let last {
            let at = journal.eatenTime(last)
            let when = journal.day(of: at) == today ? "today" : journal.day(of: at) == (try? today.adding(days: -1)) ? "yesterday" : journal.day(of: at).description
            lines.append("\(span(now.timeIntervalSince(at))) since your last entry (\(JournalViews.safeName(last.name)), \(when) at \(clock(at))).")
        } else {
            lines.append("Nothing logged in the last 60 days.")
        }
        if windows.isEmpty {
            lines.append("No overnight window in the last \(days) day\(days == 1 ? "" : "s"): a night needs entries on the day before and the day after.")
        } else {
            lines.append("Overnight fasting windows (last entry → first entry):")
            for w in windows {
                lines.append("  \(w.day)  \(clock(w.start)) → \(clock(w.end))  \(span(w.end.timeIntervalSince(w.start)))")
            }
            let avg = windows.map(\.hours).reduce(0, +) / Double(windows.count)
            lines.append("  Average: \(span(avg * 3600)) over \(windows.count) night\(windows.count == 1 ? "" : "s")")
        }
        out(lines.joined(separator: "\n"))
    }

    func water(_ p: ParsedArguments) throws {
        let day = try p.value("--date").map { try parseDay($0) }
        let meal = try p.value("--meal").map(parseMeal)
        let eatenAt = try p.value("--at").map { try parseEatenAt($0, day: day) }
        let typed = p.positionals.joined(separator: " ")
        var logged: Entry?
        if !typed.isEmpty {
            guard let ml = WaterAmount.parse(typed) else {
                throw CLIError("'\(JournalViews.safeName(String(typed.prefix(30))))' is not an amount of water; e.g. 500ml, 0.5 l, 16 fl oz, 2 cups", status: 2)
            }
            guard ml <= 20_000 else { throw CLIError("\(JournalViews.number(ml, places: 0)) mL is more than one entry of water can be; check the amount", status: 2) }
            logged = try journal.queue.write { try journal.logWater(milliliters: ml, day: day, meal: meal, eatenAt: eatenAt, in: $0) }
        } else if p.value("--at") != nil || p.value("--meal") != nil {
            throw CLIError("give the amount, e.g. ofj water 500ml --at 09:00", status: 2)
        }
        let target = logged?.day ?? day ?? journal.today()
        let (total, view) = try journal.queue.read { db in (try journal.waterLogged(on: target, in: db), try journal.dayView(target, in: db)) }
        let goal = view.goals.first { $0.id == "water_g" }
        if p.has("--json") {
            var doc: [String: JSONValue] = ["date": .string(target.description), "water_ml": .number((total * 10).rounded() / 10)]
            if let all = view.totals.amounts["water_g"] { doc["water_g_all"] = .number((all * 10).rounded() / 10) }
            doc["goal_g"] = goal.map { .number($0.goal) } ?? .null
            if let logged { doc["logged"] = try JSONValue.parse(String(decoding: try JournalJSON.encoder.encode(logged), as: UTF8.self)) }
            out(TerminalText.escapingJSON(PrettyJSON.format(.object(doc))).trimmingCharacters(in: .newlines))
            return
        }
        var lines: [String] = []
        if let logged {
            lines.append("Logged water: \(JournalViews.number(logged.serving.milliliters ?? 0, places: 0)) mL to \(logged.meal.rawValue) on \(logged.day) (id \(JournalStore.shortID(logged.id))).")
        }
        var line = "Water \(target == journal.today() ? "today" : "on \(target)"): \(JournalViews.number(total, places: 0)) mL"
        if let goal {
            let all = view.totals.amounts["water_g"] ?? 0
            line += " · goal \(JournalViews.number(goal.goal, places: 0)) g: \(JournalViews.number(all, places: 0)) g with the water in foods (\(Int((all / goal.goal * 100).rounded()))%)"
        } else {
            line += " (no water goal; set one with ofj goals set water_g=2000)"
        }
        lines.append(line)
        out(lines.joined(separator: "\n"))
    }

    func note(_ p: ParsedArguments) throws {
        let day = try p.value("--date").map { try parseDay($0) } ?? journal.today()
        var text = p.positionals.joined(separator: " ")
        if text == "-" { text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) }
        if text.isEmpty {
            let notes = try journal.notes(on: day)
            if p.has("--json") { try json(notes); return }
            out(notes.isEmpty ? "No notes on \(day). Add one with: ofj note \"…\"" : notes.map { "  " + TerminalText.sanitize($0.text) }.joined(separator: "\n"))
            return
        }
        let note: DayNote
        do { note = try journal.addNote(text, day: day) } catch let e as JournalError { throw CLIError("the \(e)", status: 2) }
        if p.has("--json") { try json(note); return }
        out("Noted on \(note.day). `ofj undo` removes it.")
    }
}

/// The nutrients `ofj day`, `/week` and the report headline show (issue 34 §8): config.json's
/// `"pinned": ["energy_kcal", "protein_g", "water_g"]`, or `ofj day --pin kcal,protein,water`.
enum PinnedNutrients {
    static let maxPins = 8
    static let aliases: [String: String] = [
        "kcal": "energy_kcal", "calories": "energy_kcal", "energy": "energy_kcal", "protein": "protein_g",
        "carbs": "carbohydrate_g", "carb": "carbohydrate_g", "fat": "fat_g", "water": "water_g", "fiber": "fiber_g", "fibre": "fiber_g",
        "sugar": "sugars_g", "sugars": "sugars_g", "sodium": "sodium_mg", "salt": "sodium_mg", "caffeine": "caffeine_mg",
    ]

    /// Canonical ids, in the order given, each once; an unknown one is a one-line error.
    static func parse(_ names: [String], from source: String) throws -> [String] {
        var out: [String] = []
        for raw in names {
            let name = raw.trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { continue }
            guard let id = aliases[name.lowercased()] ?? NutrientCatalog.canonicalID(for: name) else {
                throw CLIError("\(source): '\(JournalViews.safeName(String(name.prefix(40))))' is not a nutrient; use ids like energy_kcal, protein_g, water_g", status: 2)
            }
            if !out.contains(id) { out.append(id) }
        }
        guard !out.isEmpty else { throw CLIError("\(source): name at least one nutrient, e.g. energy_kcal,protein_g,water_g", status: 2) }
        guard out.count <= maxPins else { throw CLIError("\(source): at most \(maxPins) nutrients fit on a line; \(out.count) are given", status: 2) }
        return out
    }

    /// config.json's "pinned", nil when absent; a malformed one is a one-line error.
    static func load(configPath: String) throws -> [String]? {
        guard let json = try? ConfigFile(path: configPath).document(), let value = json["pinned"] else { return nil }
        guard let list = value.arrayValue?.compactMap(\.stringValue), list.count == value.arrayValue?.count else {
            throw CLIError("\(configPath): \"pinned\" must be a list of nutrient ids, e.g. [\"energy_kcal\", \"protein_g\", \"water_g\"]")
        }
        return try parse(list, from: "\(configPath): \"pinned\"")
    }

    /// `--pin` when given, else config.json's list, else nil (the four main nutrients).
    static func chosen(_ p: ParsedArguments, configPath: String) throws -> [String]? {
        if let pin = p.value("--pin") { return try parse(pin.split(separator: ",").map(String.init), from: "--pin") }
        return try load(configPath: configPath)
    }
}

// MARK: - values for shell completion

extension OfjCommands {
    /// `ofj __complete foods`: what Tab offers for `--food` (issue 34 §2).
    static func complete(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("__complete", summary: "values for shell completion, one a line",
                    arguments: [PositionalSpec("WHAT", .choice(["foods"]))],
                    access: .read, hidden: true,
                    action: journal(ctx) { c, _ in try c.completeFoods() })
    }
}

extension JournalCommands {
    /// Food Bank names for Tab: the foods logged at this time of day in the last weeks first (as
    /// `ofj recent` ranks them), then the other active foods, most recently used first.
    func completeFoods() throws {
        var names: [String] = []
        func add(_ name: String) {
            let clean = JournalViews.safeName(name)
            if !clean.isEmpty && !names.contains(clean) { names.append(clean) }
        }
        for f in try journal.recentFoods(limit: 20) where f.savedFoodID != nil { add(f.name) }
        for item in try journal.searchFoods(sort: .lastUsed, limit: 200) { add(item.food.name) }
        out(names.joined(separator: "\n"))
    }
}
