// The offline assistant's decisions: which tool calls an intent needs next, and the short answer
// written only from the tool results once they are in.
import Base
import Foundation
import NutritionTools

enum OfflineStep {
    /// The next tool calls, by the tools' published names.
    case calls([(name: NutritionToolName, arguments: JSONValue)])
    case answer(String)
}

struct OfflinePlanner {
    let state: OfflineState
    let calendar: OfflineCalendar

    static let coreNutrients: [JSONValue] = ["energy_kcal", "protein_g", "carbohydrate_g", "fat_g"]

    func next() -> OfflineStep {
        // Barcodes (issue 18) are a separate branch: OfflinePlanner+Barcode.swift.
        if let request = OfflinePlanner.barcodeRequest(state.utterance) { return barcode(request) }
        return next(OfflinePlanner.sanitized(OfflineGrammar.parse(state.utterance)))
    }

    func next(_ intent: OfflineIntent) -> OfflineStep {
        switch intent {
        case .help:
            return .answer("I'm the offline assistant: I work on this computer without an AI provider and understand these requests:\n"
                           + OfflineAssistant.capabilities + "\nConfigure a provider for anything else.")
        case .unknown:
            return .answer("I'm the offline assistant and I didn't understand that. I can help with:\n"
                           + OfflineAssistant.capabilities + "\nConfigure an AI provider for other questions.")
        case .log(let food, let quantity, let unit, let meal, let usual):
            return log(food: food, quantity: quantity, unit: unit, meal: meal, usual: usual)
        case .choose(let number):
            return choose(number)
        case .dated(.log(let food, let quantity, let unit, let meal, let usual), let p):
            return log(food: food, quantity: quantity, unit: unit, meal: meal, usual: usual, date: calendar.string(calendar.range(p).0))
        case .dated(let intent, _):
            return OfflinePlanner(state: state, calendar: calendar).next(intent)
        case .remaining(let n):
            return remaining(n)
        case .goal(let n):
            return goal(n)
        case .deleteFood(let food):
            return deleteFood(food)
        case .lastEaten(let food):
            return lastEaten(food)
        case .logEach(let items):
            return logEach(items)
        case .badAmount(let line):
            return .answer(line)
        case .showDay(let p):
            return showDay(p)
        case .showRange(let p):
            return showRange(p)
        case .nutrientTotal(let n, let p):
            return nutrientTotal(n, p)
        case .topFoods(let n, let p):
            return topFoods(n, p)
        case .setGoal(let n, let amount):
            return setGoal(n, amount)
        case .deleteLast:
            return deleteLast()
        case .move(let food, let meal):
            return move(food, meal)
        case .recommend:
            return recommend()
        case .searchFoodBank(let q):
            return searchFoodBank(q)
        case .logWeight(let value, let unit):
            return logWeight(value, unit: unit)
        case .weightTrend:
            return weightTrend()
        case .copyMeal(let from, let meal, let to, let toMeal):
            return copyMeal(from: from, meal: meal, to: to, toMeal: toMeal)
        case .water(let ml):
            return water(ml)
        case .note(let text):
            return note(text)
        case .recentFoods(let meal):
            return eatingTimes(meal: meal, fasting: false)
        case .fasting:
            return eatingTimes(meal: nil, fasting: true)
        }
    }

    // MARK: - Water and notes (issue 34 §8)

    /// Water as `ofj water` logs it: "Water", water_g, no energy or macros.
    func water(_ ml: Double) -> OfflineStep {
        if let done = state.last(.logFood) { return .answer(loggedAnswer(done, food: "water")) }
        let amount = JSONValue.number((ml * 1000).rounded() / 1000)
        return .calls([(.logFood, ["name": "Water", "quantity": amount, "unit": "mL", "grams": amount,
                                   "nutrients": ["water_g": amount, "energy_kcal": 0, "protein_g": 0, "carbohydrate_g": 0, "fat_g": 0]])])
    }

    /// "what do I usually have for breakfast" / "how long have I been fasting": get_eating_times.
    func eatingTimes(meal: String?, fasting: Bool) -> OfflineStep {
        guard let done = state.last(.getEatingTimes) else {
            return .calls([(.getEatingTimes, .object(meal.map { ["meal": .string($0)] } ?? [:]))])
        }
        if let error = failure(done) { return .answer(error) }
        let c = done.content
        if fasting {
            guard let last = c?["last_entry"] else { return .answer("Nothing is logged in the last 60 days, so I can't tell how long you've been fasting.") }
            let minutes = Int(((last["hours_since"]?.doubleValue ?? 0) * 60).rounded(.down))
            var lines = ["\(minutes / 60) h \(minutes % 60) min since your last entry (\(last["name"]?.stringValue ?? "?"), \(last["date"]?.stringValue ?? "?") at \(last["time"]?.stringValue ?? "?"))."]
            let windows = c?["fasting_windows"]?.arrayValue ?? []
            if !windows.isEmpty {
                lines.append("Overnight fasting windows:")
                for w in windows {
                    lines.append("- \(w["date"]?.stringValue ?? "?"): \(w["from"]?.stringValue ?? "?") → \(w["to"]?.stringValue ?? "?"), \(format(w["hours"]?.doubleValue ?? 0)) h")
                }
            }
            return .answer(lines.joined(separator: "\n"))
        }
        let foods = c?["foods"]?.arrayValue ?? []
        let scope = meal.map { "for \($0)" } ?? "around \(c?["around"]?.stringValue ?? "this time")"
        guard !foods.isEmpty else { return .answer("Nothing is logged \(scope) in the last 4 weeks.") }
        var lines = ["What you log most \(scope) (last 4 weeks):"]
        for (i, f) in foods.prefix(5).enumerated() {
            let n = Int(f["count"]?.doubleValue ?? 0)
            lines.append("\(i + 1). \(f["name"]?.stringValue ?? "?") — \(n) time\(n == 1 ? "" : "s"), last on \(f["last_date"]?.stringValue ?? "?")")
        }
        return .answer(lines.joined(separator: "\n"))
    }

    func note(_ text: String) -> OfflineStep {
        if let done = state.last(.addDayNote) {
            if done.denied { return .answer("Okay, no note was added.") }
            if let error = failure(done) { return .answer(error) }
            return .answer("Noted on \(done.content?["noted"]?["date"]?.stringValue ?? "today"). /undo (or ofj undo) takes it back.")
        }
        return .calls([(.addDayNote, ["text": .string(text)])])
    }

    // MARK: - Copying (issue 34 §2)

    /// "same breakfast as yesterday": one copy_journal_meal call (one card, one undo step).
    func copyMeal(from: Period, meal: String?, to: Period?, toMeal: String?) -> OfflineStep {
        if let done = state.last(.copyJournalMeal) {
            if done.denied { return .answer("Okay, nothing was copied.") }
            if let error = failure(done) { return .answer(error) }
            let copied = done.content?["copied"]?.arrayValue ?? []
            guard let first = copied.first else { return .answer("The journal did not confirm the copy.") }
            var lines = ["Copied \(copied.count) entr\(copied.count == 1 ? "y" : "ies") to \(first["meal"]?.stringValue.map { meal == nil && toMeal == nil ? "" : $0 + " on " } ?? "")\(first["date"]?.stringValue ?? "?"):"]
            for e in copied { lines.append("- \(entryLine(e))") }
            lines.append("/undo (or ofj undo) takes the whole copy back in one step.")
            return .answer(lines.joined(separator: "\n"))
        }
        var arguments: [String: JSONValue] = ["from_date": .string(calendar.string(calendar.range(from).0))]
        if let meal { arguments["meal"] = .string(meal) }
        if let to { arguments["to_date"] = .string(calendar.string(calendar.range(to).0)) }
        if let toMeal { arguments["to_meal"] = .string(toMeal) }
        return .calls([(.copyJournalMeal, .object(arguments))])
    }

    // MARK: - Logging

    /// `chosen`: the reference id the person picked from a list of choices (then nothing is asked).
    func log(food: String, quantity: Double, unit: String?, meal: String?, usual: Bool, chosen: String? = nil, date: String? = nil) -> OfflineStep {
        guard let bank = state.last(.searchFoodBank), let ref = state.last(.searchReferenceFoods) else {
            return .calls([(.searchFoodBank, ["query": .string(food), "limit": 5]),
                           (.searchReferenceFoods, ["query": .string(food), "limit": 5])])
        }
        let logNames: [NutritionToolName] = [.logSavedFood, .logReferenceFood]
        if let done = state.calls.last(where: { call in logNames.contains { call.is($0) } }) {
            return .answer(loggedAnswer(done, food: food))
        }
        if let failed = [bank, ref].first(where: { $0.isError }), bank.isError && ref.isError {
            return .answer("I couldn't look that up: \(failed.errorText ?? "the search failed"). Nothing was logged.")
        }
        let savedFoods = (bank.content?["foods"]?.arrayValue ?? []).filter { $0["kind"]?.stringValue != "calculator" }
        var referenceFoods = ref.content?["foods"]?.arrayValue ?? []
        if let chosen {
            referenceFoods = referenceFoods.filter { $0["reference_id"]?.stringValue == chosen }
            guard !referenceFoods.isEmpty else {
                return .answer("That choice is no longer among the reference foods for \"\(food)\", so nothing was logged. Ask again to see the choices.")
            }
        } else if !usual, let ask = askWhich(food: food, quantity: quantity, unit: unit, ref: ref, referenceFoods: referenceFoods) {
            return ask
        }
        var mealArg: [String: JSONValue] = [:]
        if let meal { mealArg["meal"] = .string(meal) }
        if let date { mealArg["date"] = .string(date) }

        func fromBank(_ f: JSONValue) -> OfflineStep? {
            guard let id = f["id"]?.stringValue else { return nil }
            var args = mealArg
            args["food_id"] = .string(id)
            if let unit {
                args["quantity"] = .number(quantity)
                args["unit"] = .string(unit)
            } else {
                args["servings"] = .number(quantity)
            }
            return .calls([(.logSavedFood, .object(args))])
        }
        func fromReference(_ f: JSONValue) -> OfflineStep? {
            guard let id = f["reference_id"]?.stringValue else { return nil }
            var args = mealArg
            args["reference_id"] = .string(id)
            let portions = f["portions"]?.arrayValue?.compactMap { $0["measure"]?.stringValue } ?? []
            // "a cup of sliced carrots": words of the request that are not the food's name but
            // are in its measures ("sliced" of "cup strips or slices") go with the unit, so they
            // choose the measure instead of being dropped.
            let descriptor = unit == nil ? [] : OfflinePlanner.measureWords(food, name: f["name"]?.stringValue ?? "", portions: portions)
            let typedUnit = unit.map { ([$0] + descriptor).joined(separator: " ") }
            args.merge(OfflinePlanner.referenceAmount(quantity: quantity, unit: typedUnit, portions: portions)) { $1 }
            return .calls([(.logReferenceFood, .object(args))])
        }

        let order: [() -> OfflineStep?] = usual
            ? [{ savedFoods.first.flatMap(fromBank) }, { referenceFoods.first.flatMap(fromReference) }]
            : [{ referenceFoods.first.flatMap(fromReference) }, { savedFoods.first.flatMap(fromBank) }]
        for option in order { if let step = option() { return step } }
        return .answer("I couldn't find \"\(food)\" in your Food Bank or the reference foods, so nothing was logged. "
                       + "Try another name (e.g. \"log 1 apple\"), or save the food to your Food Bank first.")
    }

    /// The amount arguments of log_reference_food for what was typed. The unit goes to the tool
    /// as typed ("oz", "fl oz", "ml", "cup", "slice"): the tool's one amount model makes mass
    /// exact, volume go through the food's density and counts use USDA's measures. With no unit,
    /// a whole item.
    static func referenceAmount(quantity: Double, unit: String?, portions: [String]) -> [String: JSONValue] {
        var args: [String: JSONValue] = ["quantity": .number(quantity)]
        if let unit {
            args["portion"] = .string(unit)
        } else if let p = wholeItemPortion(portions) {
            args["portion"] = .string(p)
        }
        return args
    }

    /// Several foods in one message: each is searched and logged in turn (its calls start at its
    /// own search_food_bank call); a question or a failure stops there and says what was logged.
    func logEach(_ items: [OfflineIntent]) -> OfflineStep {
        var starts = state.calls.indices.filter { state.calls[$0].is(.searchFoodBank) }
        starts.append(state.calls.count)
        var answers: [String] = []
        for (k, item) in items.enumerated() {
            var sub = state
            sub.calls = k + 1 < starts.count ? Array(state.calls[starts[k]..<starts[k + 1]]) : []
            let step = OfflinePlanner(state: sub, calendar: calendar).next(item)
            guard case .answer(let text) = step else { return step }
            answers.append(text)
            let logged = sub.calls.contains { ($0.is(.logSavedFood) || $0.is(.logReferenceFood)) && !$0.isError && !$0.denied }
            if !logged { break }
        }
        return .answer(answers.joined(separator: "\n"))
    }

    // MARK: - Choosing

    static let choiceLine = #"^([1-3])\. .+ \[ref ([0-9]{5})\]$"#

    /// Lists up to 3 numbered choices when the search has no clear winner (close scores, or
    /// dry vs cooked not said); nil when the first food is clear.
    func askWhich(food: String, quantity: Double, unit: String?, ref: OfflineState.Done, referenceFoods: [JSONValue]) -> OfflineStep? {
        guard ref.content?["clear_winner"]?.boolValue == false, referenceFoods.count >= 2 else { return nil }
        // The foods the search offers as choices (they differ from each other), else the first three.
        let ids = ref.content?["choices"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let offered = ids.compactMap { id in referenceFoods.first { $0["reference_id"]?.stringValue == id } }
        let list = offered.count >= 2 ? offered : Array(referenceFoods.prefix(3))
        var lines = ["\"\(food)\" could be one of these:"]
        for (i, f) in list.prefix(3).enumerated() {
            guard let id = f["reference_id"]?.stringValue else { continue }
            lines.append("\(i + 1). \(foodName(f)) [ref \(id)]")
        }
        lines.append("Reply with its number (e.g. \"2\") and I'll log it. Nothing is logged yet.")
        return .answer(lines.joined(separator: "\n"))
    }

    /// "2" after a list of choices: logs that food with the amount and meal first asked for.
    func choose(_ number: Int) -> OfflineStep {
        var picked: String?
        for line in (state.previousAnswer ?? "").split(separator: "\n") {
            if let m = String(line).firstMatch(OfflinePlanner.choiceLine), Int(m[0]) == number { picked = m[1] }
        }
        var asked = state.previousUtterance.map { OfflinePlanner.sanitized(OfflineGrammar.parse($0)) }
        // "3 eggs and rice": the pick is for the food the question named.
        if case .logEach(let items)? = asked {
            asked = items.first { item in
                var food = ""
                if case .log(let f, _, _, _, _) = item { food = f }
                if case .dated(.log(let f, _, _, _, _), _) = item { food = f }
                return (state.previousAnswer ?? "").hasPrefix("\"\(food)\" could be one of these") || (state.previousAnswer ?? "").contains("\n\"\(food)\" could be one of these")
            }
        }
        var date: String?
        if case .dated(let inner, let p)? = asked {
            asked = inner
            date = calendar.string(calendar.range(p).0)
        }
        guard let id = picked, case .log(let food, let quantity, let unit, let meal, _)? = asked else {
            return .answer("There is no list of choices to pick \(number) from. Ask to log a food first, e.g. \"log 1 cup rice\".")
        }
        return log(food: food, quantity: quantity, unit: unit, meal: meal, usual: false, chosen: id, date: date)
    }

    /// For "2 eggs" or "a banana": a whole item rather than a cup or a weight. USDA lists the
    /// usual whole item first when there is one ("large" egg); otherwise take a medium one.
    /// Words of `request` that the food's name does not have and one of its measures does
    /// (compared on their first four letters: "sliced" ~ "slices").
    static func measureWords(_ request: String, name: String, portions: [String]) -> [String] {
        func words(_ t: String) -> [String] { t.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init) }
        let named = Set(words(name).map { String($0.prefix(4)) })
        let measured = Set(portions.flatMap { words($0) }.filter { $0.count >= 4 }.map { String($0.prefix(4)) })
        return words(request).filter { $0.count >= 4 && !named.contains(String($0.prefix(4))) && measured.contains(String($0.prefix(4))) }
    }

    static func wholeItemPortion(_ portions: [String]) -> String? {
        let measures = ["cup", "tbsp", "tsp", "fl oz", "oz", "ml", "g", "lb", "liter", "quart", "pint"]
        func isMeasure(_ p: String) -> Bool { measures.contains { p.lowercased() == $0 || p.lowercased().hasPrefix($0 + " ") || p.lowercased().hasPrefix($0 + ",") } }
        // A drink (USDA measures it in fl oz): "a coffee", "a coke" is one container USDA lists
        // (can, bottle, carton), else one cup, never one fl oz or "1 fruit yields".
        if portions.contains(where: { $0.lowercased().hasPrefix("fl oz") }) {
            let containers = ["can", "bottle", "carton", "box", "container", "glass", "mug"]
            if let c = portions.first(where: { p in containers.contains { p.lowercased().hasPrefix($0) } }) { return c }
            if let cup = portions.first(where: { $0.lowercased().hasPrefix("cup") }) { return cup }
        }
        if let first = portions.first, !isMeasure(first) { return first }
        // A whole item is USDA's medium, else its "fruit" (an orange: 131 g), else its large.
        for preferred in ["medium", "fruit", "large"] {
            if let p = portions.first(where: { $0.lowercased().hasPrefix(preferred) }) { return p }
        }
        return portions.first { !isMeasure($0) } ?? portions.first
    }

    func loggedAnswer(_ done: OfflineState.Done, food: String) -> String {
        if done.denied { return "Okay, nothing was logged." }
        if done.isError { return "I couldn't log \(food): \(done.errorText ?? "the tool failed"). Nothing was written." }
        guard let e = done.content?["logged"] else { return "The journal did not confirm the entry; check it with \"what did I eat today\"." }
        return "Logged \(entryLine(e)) to \(e["meal"]?.stringValue ?? "?") on \(e["date"]?.stringValue ?? "?")."
    }

    // MARK: - Reading

    func showDay(_ p: Period) -> OfflineStep {
        let (day, _) = calendar.range(p)
        guard let done = state.last(.getJournalDay) else {
            return .calls([(.getJournalDay, ["date": .string(calendar.string(day))])])
        }
        if let error = failure(done) { return .answer(error) }
        guard let content = done.content else { return .answer("I couldn't read your journal.") }
        // A long day comes in pages: read them all (at most 10) before answering.
        let pages = state.calls.filter { $0.is(.getJournalDay) }
        if let next = content["next_offset"]?.intValue, pages.count < 10 {
            return .calls([(.getJournalDay, ["date": .string(calendar.string(day)), "offset": .number(Double(next))])])
        }
        let meals = pages.flatMap { $0.content?["meals"]?.arrayValue ?? [] }
        let entries = meals.flatMap { m in (m["entries"]?.arrayValue ?? []).map { (meal: m["meal"]?.stringValue ?? "", entry: $0) } }
        let count = Int(content["entry_count"]?.doubleValue ?? content["totals"]?["entry_count"]?.doubleValue ?? 0)
        let when = calendar.describe(p)
        guard count > 0 else { return .answer("Nothing is logged \(when).") }
        var lines = ["\(when.prefix(1).uppercased() + when.dropFirst()): \(count) \(count == 1 ? "entry" : "entries"), \(macros(content["totals"]?["nutrients"]))."]
        // Entries come in meal order; a heading starts each meal.
        var meal: String?
        for (this, e) in entries {
            if this != meal {
                lines.append("\(capitalized(this)):")
                meal = this
            }
            lines.append("- \(entryLine(e))")
        }
        if entries.count < count { lines.append("(\(count - entries.count) more entries not shown; ofj day lists them all.)") }
        return .answer(lines.joined(separator: "\n"))
    }

    func showRange(_ p: Period) -> OfflineStep {
        let (from, to) = calendar.range(p)
        guard let done = state.last(.getJournalRange) else {
            return .calls([(.getJournalRange, ["from": .string(calendar.string(from)), "to": .string(calendar.string(to)),
                                               "nutrients": .array(OfflinePlanner.coreNutrients)])])
        }
        if let error = failure(done) { return .answer(error) }
        guard let content = done.content else { return .answer("I couldn't read your journal.") }
        let logged = Int(content["logged_days"]?.doubleValue ?? 0)
        let when = calendar.describe(p)
        guard logged > 0 else { return .answer("Nothing is logged for \(when).") }
        var lines = ["\(capitalized(when)): \(logged) logged \(logged == 1 ? "day" : "days"); daily average \(macros(content["daily_averages"]))\(partialAverages(content, logged: logged))."]
        for d in content["days"]?.arrayValue ?? [] {
            let n = (d["totals"]?["entry_count"]?.doubleValue ?? 0).clampedInt
            let date = d["date"]?.stringValue ?? "?"
            if n == 0 {
                lines.append("- \(date): nothing logged")
            } else {
                let kcal = d["totals"]?["nutrients"]?["energy_kcal"]?.doubleValue
                lines.append("- \(date): \(kcal.map { "\(format($0)) kcal" } ?? "calories not reported") (\(n) \(n == 1 ? "entry" : "entries"))")
            }
        }
        return .answer(lines.joined(separator: "\n"))
    }

    func nutrientTotal(_ nutrient: String, _ p: Period) -> OfflineStep {
        let (from, to) = calendar.range(p)
        guard let done = state.last(.getJournalRange), let goalsDone = state.last(.getGoals) else {
            return .calls([(.getJournalRange, ["from": .string(calendar.string(from)), "to": .string(calendar.string(to)),
                                               "nutrients": [.string(nutrient)]]),
                           (.getGoals, [:])])
        }
        if let error = failure(done) { return .answer(error) }
        guard let content = done.content else { return .answer("I couldn't read your journal.") }
        let name = OfflinePlanner.nutrientName(nutrient)
        let when = calendar.describe(p)
        let entries = Int(content["totals"]?["entry_count"]?.doubleValue ?? 0)
        guard entries > 0 else { return .answer("Nothing is logged for \(when), so I have no \(name) total.") }
        let missing = Int(content["totals"]?["not_reported_by"]?[nutrient]?.doubleValue ?? 0)
        guard let total = content["totals"]?["nutrients"]?[nutrient]?.doubleValue else {
            return .answer("None of your \(entries) entries \(when) reported \(name).")
        }
        let unit = OfflinePlanner.unit(nutrient)
        let label = nutrient == "energy_kcal" ? "" : " \(name)"
        let goal = (goalsDone.content?["goals"]?.arrayValue ?? []).first { $0["id"]?.stringValue == nutrient }
        let goalAmount = goal?["amount"]?.doubleValue
        let isLimit = goal?["direction"]?.stringValue == "limit"
        let fda = goal?["origin"]?.stringValue == "fda_default" ? " (the FDA default)" : ""
        var text: String
        if from == to {
            text = "You had \(format(total))\(unit)\(label) \(when)"
            if let g = goalAmount {
                let left = g - total
                if isLimit {
                    text += left >= 0 ? "; your limit is \(format(g))\(unit)\(fda), \(format(left))\(unit) left" : "; that is \(format(-left))\(unit) over your limit of \(format(g))\(unit)\(fda)"
                } else {
                    text += left > 0 ? "; your goal is \(format(g))\(unit)\(fda), \(format(left))\(unit) to go" : "; you reached your goal of \(format(g))\(unit)\(fda)"
                }
            }
            text += "."
        } else {
            let logged = Int(content["logged_days"]?.doubleValue ?? 0)
            let average = content["daily_averages"]?[nutrient]?.doubleValue ?? 0
            text = "You had \(format(total))\(unit)\(label) over \(when): \(format(average))\(unit) a day on average \(averageBasis(content, nutrient, logged: logged))"
            if let g = goalAmount { text += " (daily \(isLimit ? "limit" : "goal") \(format(g))\(unit)\(fda.isEmpty ? "" : ", the FDA default"))" }
            text += "."
        }
        if missing > 0 { text += " \(missing) \(missing == 1 ? "entry does" : "entries do") not report \(name), so the real amount may be higher." }
        if content["totals_partly_derived"]?.arrayValue?.contains(.string(nutrient)) == true {
            text += " Part of it is derived by USDA's rules (e.g. vitamin D from IU ÷ 40), not reported directly."
        }
        return .answer(text)
    }

    func topFoods(_ nutrient: String, _ p: Period) -> OfflineStep {
        let (from, to) = calendar.range(p)
        guard let done = state.last(.getNutrientBreakdown) else {
            return .calls([(.getNutrientBreakdown, ["nutrient": .string(nutrient), "from": .string(calendar.string(from)),
                                                    "to": .string(calendar.string(to)), "limit": 5])])
        }
        if let error = failure(done) { return .answer(error) }
        guard let content = done.content else { return .answer("I couldn't read your journal.") }
        let name = OfflinePlanner.nutrientName(nutrient)
        let unit = OfflinePlanner.unit(nutrient)
        let foods = content["foods"]?.arrayValue ?? []
        let when = calendar.describe(p)
        guard !foods.isEmpty else { return .answer("No food logged \(when) reported \(name).") }
        var lines = ["Most \(name) \(when), \(format(content["total"]?.doubleValue ?? 0))\(unit) in total:"]
        for (i, f) in foods.enumerated() {
            let share = ((f["share"]?.doubleValue ?? 0) * 100).clampedInt
            lines.append("\(i + 1). \(foodName(f)): \(format(f["amount"]?.doubleValue ?? 0))\(unit) (\(share)%)")
        }
        let missing = Int(content["entries_not_reporting"]?.doubleValue ?? 0)
        if missing > 0 { lines.append("\(missing) \(missing == 1 ? "entry does" : "entries do") not report \(name).") }
        return .answer(lines.joined(separator: "\n"))
    }

    // MARK: - Changes

    func setGoal(_ nutrient: String, _ amount: Double) -> OfflineStep {
        guard let done = state.last(.setGoals) else {
            return .calls([(.setGoals, ["goals": .object([nutrient: .number(amount)])])])
        }
        if done.denied { return .answer("Okay, your goals are unchanged.") }
        if let error = failure(done) { return .answer(error) }
        guard let value = done.content?["goals"]?[nutrient]?.doubleValue else { return .answer("The goal was not confirmed; check it with /goals.") }
        return .answer("Your daily \(nutrient == "energy_kcal" ? "calorie" : OfflinePlanner.nutrientName(nutrient)) goal is now \(format(value))\(OfflinePlanner.unit(nutrient)).")
    }

    // MARK: - Body weight

    /// Reads the trend first (for the profile's units when no unit was typed), then logs on a card.
    func logWeight(_ value: Double, unit: String?) -> OfflineStep {
        guard let trend = state.last(.getWeightTrend) else { return .calls([(.getWeightTrend, ["days": 7])]) }
        let imperial = trend.content?["profile_units"]?.stringValue == "imperial"
        let unit = unit ?? (imperial ? "lb" : "kg")
        guard let done = state.last(.logWeight) else {
            return .calls([(.logWeight, ["weight": .number(value), "unit": .string(unit)])])
        }
        if done.denied { return .answer("Okay, no weigh-in was logged.") }
        if let error = failure(done) { return .answer(error) }
        guard let kg = done.content?["kg"]?.doubleValue, let date = done.content?["date"]?.stringValue else {
            return .answer("The journal did not confirm the weigh-in; check it with ofj weight.")
        }
        var answer = "Logged a weigh-in of \(weightText(kg, imperial: imperial)) on \(date)."
        if let t = trend.content?["latest_trend_kg"]?.doubleValue { answer += " Your trend was \(weightText(t, imperial: imperial)) before it." }
        return .answer(answer)
    }

    func weightTrend() -> OfflineStep {
        guard let done = state.last(.getWeightTrend) else { return .calls([(.getWeightTrend, ["days": 30])]) }
        if let error = failure(done) { return .answer(error) }
        let c = done.content
        let imperial = c?["profile_units"]?.stringValue == "imperial"
        guard let trend = c?["latest_trend_kg"]?.doubleValue else {
            return .answer("You have no weigh-ins yet. Tell me \"I weigh 80.4 kg\" (or run ofj weight 80.4) to log one.")
        }
        let days = c?["days"]?.arrayValue?.count ?? 0
        var lines = ["Your weight trend is \(weightText(trend, imperial: imperial)) (smoothed, from weigh-ins on \(days) of the last 30 days)."]
        if let rate = c?["weekly_rate_kg"]?.doubleValue {
            lines.append("It is changing by \(rate < 0 ? "−" : "+")\(weightText(abs(rate), imperial: imperial, places: 2)) a week (last 28 days).")
        }
        let e = c?["expenditure"]
        if let kcal = e?["expenditure_kcal"]?.doubleValue {
            lines.append("Your expenditure is about \(format(kcal)) kcal a day (± \(format(e?["uncertainty_kcal"]?.doubleValue ?? 0)), \(e?["confidence"]?.stringValue ?? "low") confidence).")
        } else if let needs = e?["needs"] {
            let d = Int(needs["logged_days"]?.doubleValue ?? 0), w = Int(needs["weigh_ins"]?.doubleValue ?? 0)
            let parts = [d > 0 ? "\(d) more logged days" : nil, w > 0 ? "\(w) more weigh-ins" : nil].compactMap { $0 }
            if !parts.isEmpty { lines.append("An expenditure estimate needs \(parts.joined(separator: " and ")).") }
        }
        return .answer(lines.joined(separator: " "))
    }

    func weightText(_ kg: Double, imperial: Bool, places: Int = 1) -> String {
        let v = imperial ? kg / 0.45359237 : kg
        let scale = pow(10, Double(places))
        return "\(format((v * scale).rounded() / scale)) \(imperial ? "lb" : "kg")"
    }

    func deleteLast() -> OfflineStep {
        guard let found = state.last(.searchJournal) else { return .calls([(.searchJournal, ["limit": 1])]) }
        if let error = failure(found) { return .answer(error) }
        if let done = state.last(.deleteJournalEntry) {
            if done.denied { return .answer("Okay, nothing was deleted.") }
            if let error = failure(done) { return .answer(error) }
            guard let e = done.content?["deleted"] else { return .answer("The journal did not confirm the deletion.") }
            return .answer("Deleted \(entryLine(e)) from \(e["meal"]?.stringValue ?? "?") on \(e["date"]?.stringValue ?? "?").")
        }
        guard let id = found.content?["entries"]?[0]?["id"]?.stringValue else { return .answer("Your journal is empty: there is nothing to delete.") }
        return .calls([(.deleteJournalEntry, ["entry_id": .string(id)])])
    }

    func move(_ food: String, _ meal: String) -> OfflineStep {
        guard let found = state.last(.searchJournal) else { return .calls([(.searchJournal, ["text": .string(food), "limit": 5])]) }
        if let error = failure(found) { return .answer(error) }
        if let done = state.last(.moveJournalEntry) {
            if done.denied { return .answer("Okay, nothing was moved.") }
            if let error = failure(done) { return .answer(error) }
            guard let e = done.content?["moved"] else { return .answer("The journal did not confirm the move.") }
            return .answer("Moved \(entryLine(e)) to \(e["meal"]?.stringValue ?? "?") on \(e["date"]?.stringValue ?? "?").")
        }
        let entries = found.content?["entries"]?.arrayValue ?? []
        guard let newestDay = entries.first?["date"]?.stringValue else { return .answer("I couldn't find \"\(food)\" in your journal, so nothing was moved.") }
        let sameDay = entries.filter { $0["date"]?.stringValue == newestDay }
        let pick = sameDay.first { $0["meal"]?.stringValue != meal } ?? sameDay[0]
        guard let id = pick["id"]?.stringValue else { return .answer("I couldn't find \"\(food)\" in your journal, so nothing was moved.") }
        return .calls([(.moveJournalEntry, ["entry_id": .string(id), "meal": .string(meal)])])
    }

    /// "when did I last eat oatmeal": search_journal's newest match and how many entries match.
    func lastEaten(_ food: String) -> OfflineStep {
        let words = OfflinePlanner.singular(food)
        guard let found = state.last(.searchJournal) else { return .calls([(.searchJournal, ["text": .string(words), "limit": 1])]) }
        if let error = failure(found) { return .answer(error) }
        guard let e = found.content?["entries"]?[0], let day = e["date"]?.stringValue else {
            return .answer("I couldn't find \"\(food)\" in your journal.")
        }
        let n = found.content?["total_matches"]?.intValue ?? 1
        return .answer("You last had \(entryLine(e)) on \(day) (\(e["meal"]?.stringValue ?? "?"))"
                       + (n > 1 ? "; \(n) entries match \"\(food)\" in all." : "."))
    }

    /// "delete the eggs": the newest entry whose name has the words (plurals read as singular).
    func deleteFood(_ food: String) -> OfflineStep {
        let words = OfflinePlanner.singular(food)
        guard let found = state.last(.searchJournal) else { return .calls([(.searchJournal, ["text": .string(words), "limit": 5])]) }
        if let error = failure(found) { return .answer(error) }
        if let done = state.last(.deleteJournalEntry) {
            if done.denied { return .answer("Okay, nothing was deleted.") }
            if let error = failure(done) { return .answer(error) }
            let name = found.content?["entries"]?[0]?["name"]?.stringValue ?? food
            return .answer("Deleted \(name).")
        }
        guard let id = found.content?["entries"]?[0]?["id"]?.stringValue else {
            return .answer("I couldn't find \"\(food)\" in your journal, so nothing was deleted.")
        }
        return .calls([(.deleteJournalEntry, ["entry_id": .string(id)])])
    }

    /// Each word in its singular form for a contains-search: "eggs" → "egg", "berries" → "berr"
    /// (finds "berry" and "berries"), "peaches" → "peach", "potatoes" → "potato".
    static func singular(_ text: String) -> String {
        text.split(separator: " ").map { w -> String in
            let word = String(w)
            guard word.count > 3 else { return word }
            if word.hasSuffix("ies") { return String(word.dropLast(3)) }
            if ["ches", "shes", "sses", "xes", "oes"].contains(where: word.hasSuffix) { return String(word.dropLast(2)) }
            if word.hasSuffix("s") && !word.hasSuffix("ss") { return String(word.dropLast()) }
            return word
        }.joined(separator: " ")
    }

    // MARK: - Goals

    /// "how many calories left today": the goal minus today's total.
    func remaining(_ nutrient: String) -> OfflineStep {
        guard let done = state.last(.getNutritionContext) else { return .calls([(.getNutritionContext, [:])]) }
        if let error = failure(done) { return .answer(error) }
        let name = OfflinePlanner.nutrientName(nutrient), unit = OfflinePlanner.unit(nutrient)
        guard let goal = done.content?["goals"]?[nutrient]?.doubleValue else {
            return .answer("You have no \(name) goal, so nothing is counted down. Set one with \"set my \(name) goal to …\".")
        }
        let eaten = done.content?["today_totals"]?["nutrients"]?[nutrient]?.doubleValue ?? 0
        let left = goal - eaten
        let line = left >= 0 ? "\(format(left))\(unit) of \(name) left today" : "\(format(-left))\(unit) over your \(name) goal today"
        let personal = done.content?["personal_goals"]?.arrayValue?.contains(.string(nutrient)) ?? false
        let basis = personal ? "" : ", the FDA default"
        return .answer("\(capitalized(line)) (goal \(format(goal))\(unit)\(basis), eaten \(format(eaten))\(unit)).")
    }

    /// "what's my protein goal".
    func goal(_ nutrient: String) -> OfflineStep {
        guard let done = state.last(.getGoals) else { return .calls([(.getGoals, [:])]) }
        if let error = failure(done) { return .answer(error) }
        let name = OfflinePlanner.nutrientName(nutrient)
        guard let g = done.content?["goals"]?.arrayValue?.first(where: { $0["id"]?.stringValue == nutrient }),
              let amount = g["amount"]?.doubleValue else {
            return .answer("You have no \(name) goal. Set one with \"set my \(name) goal to …\".")
        }
        let kind = g["direction"]?.stringValue == "limit" ? "a limit to stay under" : "a target to reach"
        return .answer("Your \(name) goal is \(format(amount))\(OfflinePlanner.unit(nutrient)) a day (\(kind); \(OfflinePlanner.origin(g))).")
    }

    /// Where a goal of get_goals comes from, in words: the FDA default must never sound personal.
    static func origin(_ goal: JSONValue) -> String {
        switch goal["origin"]?.stringValue {
        case "profile": return "from your profile" + (goal["source"]?.stringValue.map { ": " + String($0.prefix { $0 != ";" }) } ?? "")
        case "person": return "set by you"
        default: return "the FDA Daily Value default, not a personal target; ofj goals from-profile proposes yours"
        }
    }

    // MARK: - Food Bank and Shelf

    func recommend() -> OfflineStep {
        guard let done = state.last(.recommendShelfFoods) else { return .calls([(.recommendShelfFoods, ["limit": 3])]) }
        if let error = failure(done) { return .answer(error) }
        let recs = done.content?["recommendations"]?.arrayValue ?? []
        guard !recs.isEmpty else {
            return .answer("Your Shelf is empty, so I have nothing to suggest. Mark foods you have at home as on the Shelf in your Food Bank.")
        }
        let basis = done.content?["goals_basis"]?.stringValue ?? ""
        var lines = ["From your Shelf, for what's left of today's goals\(basis.isEmpty ? "" : " (\(basis))"):"]
        for (i, r) in recs.enumerated() {
            let kcal = r["nutrients"]?["energy_kcal"]?.doubleValue
            lines.append("\(i + 1). \(foodName(r)), \(format(r["servings"]?.doubleValue ?? 1)) × \(r["serving"]?.stringValue ?? "serving")"
                         + "\(kcal.map { " (\(format($0)) kcal)" } ?? ""): \(r["reason"]?.stringValue ?? "")")
        }
        return .answer(lines.joined(separator: "\n"))
    }

    func searchFoodBank(_ query: String) -> OfflineStep {
        guard let done = state.last(.searchFoodBank) else { return .calls([(.searchFoodBank, ["query": .string(query), "limit": 10])]) }
        if let error = failure(done) { return .answer(error) }
        let foods = done.content?["foods"]?.arrayValue ?? []
        guard !foods.isEmpty else { return .answer("No food in your Food Bank matches \"\(query)\".") }
        var lines = ["\(foods.count) \(foods.count == 1 ? "food" : "foods") in your Food Bank \(foods.count == 1 ? "matches" : "match") \"\(query)\":"]
        for f in foods {
            let kcal = f["nutrients_per_serving"]?["energy_kcal"]?.doubleValue
            var line = "- \(foodName(f)), \(f["serving"]?["label"]?.stringValue ?? "1 serving")"
            if let kcal { line += ": \(format(kcal)) kcal" }
            if f["status"]?.stringValue == "archived" { line += " (archived)" }
            if f["on_shelf"]?.boolValue == true { line += " (on the Shelf)" }
            lines.append(line)
        }
        return .answer(lines.joined(separator: "\n"))
    }

    // MARK: - Wording

    /// The intent with the person's own words made safe to echo (no control or format characters).
    static func sanitized(_ intent: OfflineIntent) -> OfflineIntent {
        func clean(_ s: String) -> String {
            let kept = s.unicodeScalars.filter { u in
                switch u.properties.generalCategory {
                case .control, .format, .lineSeparator, .paragraphSeparator: return false
                default: return true
                }
            }
            return String(String.UnicodeScalarView(kept.prefix(100)))
        }
        switch intent {
        case .log(let food, let q, let unit, let meal, let usual): return .log(food: clean(food), quantity: q, unit: unit, meal: meal, usual: usual)
        case .move(let food, let meal): return .move(food: clean(food), meal: meal)
        case .searchFoodBank(let q): return .searchFoodBank(clean(q))
        case .deleteFood(let q): return .deleteFood(clean(q))
        case .lastEaten(let q): return .lastEaten(clean(q))
        case .note(let t): return .note(String(t.unicodeScalars.filter { $0 == "\n" || !($0.properties.generalCategory == .control || $0.properties.generalCategory == .format) }.map(Character.init)))
        case .dated(let inner, let p): return .dated(sanitized(inner), p)
        case .logEach(let items): return .logEach(items.map(sanitized))
        case .badAmount(let line): return .badAmount(clean(line))
        default: return intent
        }
    }

    /// The error of a failed call as one line, or nil when it succeeded.
    func failure(_ done: OfflineState.Done) -> String? {
        if done.denied { return "Okay, nothing was changed." }
        guard done.isError else { return nil }
        return "That didn't work: \(done.errorText ?? "the tool failed"). Nothing was changed."
    }

    /// "Egg, whole, raw, fresh — 2 large (100 g), 143 kcal".
    func entryLine(_ e: JSONValue) -> String {
        var s = foodName(e)
        if let amount = e["amount"]?.stringValue { s += " — \(amount)" }
        if let kcal = (e["nutrients"]?["energy_kcal"] ?? e["energy_kcal"])?.doubleValue { s += ", \(format(kcal)) kcal" }
        return s
    }

    func foodName(_ f: JSONValue) -> String {
        let name = f["name"]?.stringValue ?? "?"
        if let b = f["brand"]?.stringValue, !b.isEmpty { return "\(name) (\(b))" }
        return name
    }

    /// "520 kcal, protein 30 g, carbs 60 g, fat 15 g" with "not reported" kept honest.
    func macros(_ n: JSONValue?) -> String {
        let parts: [(String, String, String)] = [("energy_kcal", "", " kcal"), ("protein_g", "protein ", " g"),
                                                 ("carbohydrate_g", "carbs ", " g"), ("fat_g", "fat ", " g")]
        let shown = parts.compactMap { id, label, unit in n?[id]?.doubleValue.map { "\(label)\(format($0))\(unit)" } }
        return shown.isEmpty ? "no calories or macros reported" : shown.joined(separator: ", ")
    }

    func capitalized(_ s: String) -> String { s.prefix(1).uppercased() + s.dropFirst() }

    func format(_ v: Double) -> String {
        guard v.isFinite else { return "?" }
        let r = abs(v) >= 100 ? v.rounded() : abs(v) >= 10 ? (v * 10).rounded() / 10 : (v * 100).rounded() / 100
        return JSONValue.format(r)
    }

    static func nutrientName(_ id: String) -> String {
        let names = ["energy_kcal": "calories", "carbohydrate_g": "carbohydrate", "sugars_g": "sugar", "added_sugars_g": "added sugar",
                     "saturated_fat_g": "saturated fat", "vitamin_c_mg": "vitamin C", "vitamin_d_mcg": "vitamin D"]
        if let n = names[id] { return n }
        var parts = id.split(separator: "_").map(String.init)
        if parts.count > 1, ["g", "mg", "mcg", "kcal"].contains(parts.last ?? "") { parts.removeLast() }
        return parts.joined(separator: " ")
    }

    /// " g", " mg", " kcal"... (with its leading space) from the id's suffix.
    static func unit(_ id: String) -> String {
        for u in ["kcal", "mcg", "mg", "g"] where id.hasSuffix("_\(u)") { return " \(u)" }
        return ""
    }
}
