// The offline assistant's grammar: turns a few common requests into structured intents.
// Deterministic and small on purpose; anything else gets help, never a made-up number.
import Base
import Foundation

public enum Period: Hashable, Sendable {
    case today, yesterday
    case lastDays(Int)      // the N days ending today
    case thisMonth
    case date(String)       // YYYY-MM-DD
    case tomorrow
    case weekday(Int)       // the latest past Monday (1) … Sunday (7): "last monday", "on friday"
    case dayOfMonth(Int)    // the latest past day with this number: "on the 3rd"
}

public enum OfflineIntent: Hashable, Sendable {
    /// Log a food: quantity and unit as typed (unit nil = count of servings/items).
    case log(food: String, quantity: Double, unit: String?, meal: String?, usual: Bool)
    case showDay(Period)
    case showRange(Period)
    case nutrientTotal(nutrient: String, period: Period)
    case topFoods(nutrient: String, period: Period)
    case setGoal(nutrient: String, amount: Double)
    case deleteLast
    case move(food: String, meal: String)
    case recommend
    case searchFoodBank(String)
    /// "2", "the second": a pick from the numbered choices of the previous answer.
    case choose(Int)
    /// An intent on one day ("log 2 eggs yesterday").
    indirect case dated(OfflineIntent, Period)
    /// "how many calories left today": what remains of a goal today.
    case remaining(nutrient: String)
    /// "what's my protein goal".
    case goal(nutrient: String)
    /// "delete the eggs": the newest entry matching the words.
    case deleteFood(String)
    /// "when did I last eat X": the latest journal day with X, from the journal's full-text index.
    case lastEaten(String)
    /// "3 eggs and toast": several foods, logged one after the other.
    case logEach([OfflineIntent])
    /// "log 1.5,5 cups milk": an amount the one decimal rule (`TypedNumber`) refuses; the line
    /// says what was read and what to type, and nothing is logged.
    case badAmount(String)
    /// "I weigh 80.4 kg": a weigh-in (unit nil: the profile's units).
    case logWeight(value: Double, unit: String?)
    /// "what's my weight trend".
    case weightTrend
    /// "same breakfast as yesterday", "copy yesterday's lunch to dinner": a meal (nil: the whole
    /// day) of one day logged again on another (nil: today), to its own meal or `toMeal`.
    case copyMeal(from: Period, meal: String?, to: Period?, toMeal: String?)
    /// "I drank 500 ml of water", "2 glasses of water": water in milliliters.
    case water(milliliters: Double)
    /// "note: felt bloated", "add a note that I slept badly": a day note in the person's words.
    case note(String)
    /// "what do I usually have for breakfast", "my recent foods": the foods logged most at this
    /// time of day (meal nil) or for a meal.
    case recentFoods(meal: String?)
    /// "how long have I been fasting", "when did I last eat": the time since the last entry and
    /// the overnight windows.
    case fasting
    case help
    case unknown
}

public enum OfflineGrammar {
    static let meals = ["breakfast", "lunch", "dinner", "snack"]
    static let mealWords: [String: String] = [
        "breakfast": "breakfast", "lunch": "lunch", "dinner": "dinner", "supper": "dinner",
        "snack": "snack", "a snack": "snack", "snacks": "snack",
    ]

    /// Nutrient words people use, mapped to canonical ids.
    static let nutrients: [(words: [String], id: String)] = [
        (["calories", "calorie", "kcal", "energy"], "energy_kcal"),
        (["protein"], "protein_g"),
        (["carbs", "carb", "carbohydrates", "carbohydrate"], "carbohydrate_g"),
        (["saturated fat", "sat fat"], "saturated_fat_g"),
        (["fat", "fats"], "fat_g"),
        (["fiber", "fibre"], "fiber_g"),
        (["added sugar", "added sugars"], "added_sugars_g"),
        (["sugar", "sugars"], "sugars_g"),
        (["sodium", "salt"], "sodium_mg"),
        (["cholesterol"], "cholesterol_mg"),
        (["potassium"], "potassium_mg"),
        (["calcium"], "calcium_mg"),
        (["iron"], "iron_mg"),
        (["magnesium"], "magnesium_mg"),
        (["vitamin c"], "vitamin_c_mg"),
        (["vitamin d"], "vitamin_d_mcg"),
        (["caffeine"], "caffeine_mg"),
        (["alcohol"], "alcohol_g"),
        (["starch"], "starch_g"),
        (["water"], "water_g"),
    ]

    static let numberWords: [String: Double] = [
        "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
        "seven": 7, "eight": 8, "nine": 9, "ten": 10, "half": 0.5, "a half": 0.5, "half a": 0.5, "a couple of": 2, "some": 1,
    ]

    static let units: [String: String] = [
        "g": "g", "gram": "g", "grams": "g", "gr": "g", "kg": "kg", "oz": "oz", "ounce": "oz", "ounces": "oz",
        "lb": "lb", "lbs": "lb", "pound": "lb", "pounds": "lb", "ml": "ml", "l": "l", "liter": "l", "litre": "l",
        "mg": "mg", "fl oz": "fl oz", "fluid ounce": "fl oz", "fluid ounces": "fl oz", "floz": "fl oz",
        "pint": "pint", "pints": "pint", "quart": "quart", "quarts": "quart", "liters": "l", "litres": "l",
        "cup": "cup", "cups": "cup", "tbsp": "tbsp", "tablespoon": "tbsp", "tablespoons": "tbsp",
        "tsp": "tsp", "teaspoon": "tsp", "teaspoons": "tsp", "slice": "slice", "slices": "slice",
        "piece": "piece", "pieces": "piece", "serving": "serving", "servings": "serving",
        "bowl": "bowl", "bowls": "bowl", "glass": "glass", "glasses": "glass", "mug": "mug", "mugs": "mug", "scoop": "scoop", "scoops": "scoop",
    ]

    /// Parses one utterance.
    public static func parse(_ utterance: String) -> OfflineIntent {
        var s = utterance.lowercased()
            .replacingOccurrences(of: "’", with: "'")
            .trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: ".!?")))
        s = correctedWords(s.split(whereSeparator: \.isWhitespace).map(String.init)).joined(separator: " ")
        if s.isEmpty || s == "help" || s == "?" || s.hasPrefix("what can you do") || s == "help me" { return .help }

        if let n = note(utterance) { return n }
        if let w = water(s) { return w }
        if let r = habits(s) { return r }
        if let n = choice(s) { return .choose(n) }
        if let r = weight(s) { return r }
        if let r = setGoal(s) { return r }
        if let m = s.firstMatch(#"^how (?:many|much) (.+?) (?:do i have |have i got |are |is )?(?:left|remaining)(?: for)?(?: today)?$"#)
            ?? s.firstMatch(#"^what(?:'s| is) left(?: of)?(?: my)? (.+?)(?: today)?$"#),
           let n = nutrientID(m[0]) {
            return .remaining(nutrient: n)
        }
        if s.range(of: #"^(?:what's|what is) left(?: today)?$"#, options: .regularExpression) != nil { return .remaining(nutrient: "energy_kcal") }
        if let m = s.firstMatch(#"^(?:what(?:'s| is|s) )?my (?:daily )?(.+?) goal$"#) ?? s.firstMatch(#"^what(?:'s| is) the (.+?) goal$"#),
           let n = nutrientID(m[0]) {
            return .goal(nutrient: n)
        }
        if s.range(of: #"^(delete|remove|undo)( the)? (last|latest)( thing| entry| food| item| one)?( i logged| i ate| logged)?$"#, options: .regularExpression) != nil
            || s == "undo" || s == "undo that" {
            return .deleteLast
        }
        if let r = copyMeal(s) { return r }
        if let m = s.firstMatch(#"^when did i (?:last |most recently )?(?:eat|have|log|drink) (?:my |the |some |any |a |an )?(.+?)(?: last)?$"#)
            ?? s.firstMatch(#"^when was the last time i (?:ate|had|logged|drank) (?:my |the |some |any |a |an )?(.+?)$"#) {
            return .lastEaten(m[0])
        }
        if let m = s.firstMatch(#"^move (?:my |the )?(.+?) to (breakfast|lunch|dinner|snacks?|a snack|supper)$"#) {
            return .move(food: m[0], meal: mealWords[m[1]] ?? m[1])
        }
        if let m = s.firstMatch(#"^(?:delete|remove) (?:my |the )?(.+?)(?: entry| i logged| i ate)?$"#),
           !["last", "latest", "last thing", "last entry", "last one"].contains(m[0]) {
            return .deleteFood(m[0])
        }
        if s.range(of: #"^what (can|should) i (eat|have)( tonight| today| now| for (dinner|lunch|breakfast|a snack))?$"#, options: .regularExpression) != nil
            || s.hasPrefix("recommend") || s.hasPrefix("suggest") || s.contains("what's on my shelf") {
            return .recommend
        }
        if let m = s.firstMatch(#"^(?:find|search(?: for)?|look up|lookup) (.+?) in my food ?bank$"#)
            ?? s.firstMatch(#"^(?:search|find in) (?:my )?food ?bank (?:for )?(.+)$"#) {
            return .searchFoodBank(m[0])
        }
        if let m = s.firstMatch(#"^(?:which|what) foods? (?:gave|give|gives) me (?:the )?most (.+?)(?: (today|yesterday|this week|last week|this month))?$"#),
           let n = nutrientID(m[0]) {
            return .topFoods(nutrient: n, period: period(m.count > 1 ? m[1] : "") ?? .thisMonth)
        }
        if let m = s.firstMatch(#"^how (?:much|many) (.+?)(?: did i (?:have|eat|get))?(?: (\#(periodPattern)))?$"#),
           let n = nutrientID(m[0]) {
            guard m[1].isEmpty || period(m[1]) != nil else { return .unknown }
            return .nutrientTotal(nutrient: n, period: period(m[1]) ?? .today)
        }
        if let m = s.firstMatch(#"^(?:what did i eat|what did i have|what have i eaten|show(?: me)?(?: what i ate)?|what's in my journal|journal)(?: (\#(periodPattern)))?$"#) {
            guard m[0].isEmpty || period(m[0]) != nil else { return .unknown }
            let p = period(m[0]) ?? .today
            switch p {
            case .lastDays, .thisMonth: return .showRange(p)
            default: return .showDay(p)
            }
        }
        if let r = log(s) { return r }
        return .unknown
    }

    /// "same breakfast as yesterday", "I had the same lunch as monday", "copy yesterday's lunch",
    /// "repeat breakfast from yesterday to lunch", "yesterday's dinner again", "same as yesterday".
    static func copyMeal(_ s: String) -> OfflineIntent? {
        let meal = #"(breakfast|lunch|dinner|supper|snacks?|a snack)"#
        let day = "(" + dayPattern + ")"
        let lead = #"^(?:please )?(?:(?:i had|i ate|i have|i'm having|i am having|i'll have|i will have|i want|had|ate|have|log|eat|eating) )?(?:the )?"#
        /// Where to: "" (today, same meal), "dinner", "today's dinner", "dinner today", "tomorrow".
        func target(_ text: String) -> (Period?, String?)? {
            var t = text.trimmingCharacters(in: .whitespaces)
            for prefix in ["my ", "the "] where t.hasPrefix(prefix) { t = String(t.dropFirst(prefix.count)) }
            if t.isEmpty { return (nil, nil) }
            if let m = t.firstMatch("^\(day)'s? \(meal)$"), let p = period(m[0]) { return (p, mealWords[m[1]]) }
            if let m = t.firstMatch("^\(meal)(?:,? (?:on |for )?\(day))?$") {
                if m[1].isEmpty { return (nil, mealWords[m[0]]) }
                guard let p = period(m[1]) else { return nil }
                return (p, mealWords[m[0]])
            }
            if let m = t.firstMatch("^\(day)$"), let p = period(m[0]) { return (p, nil) }
            return nil
        }
        let to = #"(?:,? (?:to|for|into|as|on) (.+?)|,? (today|tomorrow))?$"#
        func made(_ from: String, _ m: String?, _ toText: String, _ toDay: String) -> OfflineIntent? {
            guard let p = period(from), let (tp, tm) = target(toText.isEmpty ? toDay : toText) else { return nil }
            return .copyMeal(from: p, meal: m.flatMap { mealWords[$0] }, to: tp, toMeal: tm)
        }
        // "same breakfast as yesterday [for lunch]", "the same lunch as on monday"
        if let m = s.firstMatch(lead + "same " + meal + " as " + day + to) { return made(m[1], m[0], m[2], m[3]) }
        // "same as yesterday": the whole day
        if let m = s.firstMatch(lead + "same (?:food |foods |thing |things )?as " + day + to) { return made(m[0], nil, m[1], m[2]) }
        let verb = #"^(?:please )?(?:copy|repeat|re-?log|duplicate|log again|redo)(?: me)? (?:my |the )?"#
        // "copy yesterday's lunch [to dinner]"
        if let m = s.firstMatch(verb + day + "'s? " + meal + to) { return made(m[0], m[1], m[2], m[3]) }
        // "copy lunch from yesterday [to dinner]", "repeat breakfast yesterday"
        if let m = s.firstMatch(verb + meal + " (?:from |of )?" + day + to) { return made(m[1], m[0], m[2], m[3]) }
        // "copy yesterday [to today]": the whole day
        if let m = s.firstMatch(verb + "(?:all of |everything from |what i ate |what i had )?" + day + to) { return made(m[0], nil, m[1], m[2]) }
        // "yesterday's breakfast again"
        if let m = s.firstMatch(lead + day + "'s? " + meal + " again" + to) { return made(m[0], m[1], m[2], m[3]) }
        return nil
    }

    /// "note: felt bloated", "add a note: …", "make a note that …", "note that …": the words as
    /// typed (case kept), from the original utterance.
    static func note(_ utterance: String) -> OfflineIntent? {
        let t = utterance.trimmingCharacters(in: .whitespacesAndNewlines)
        let pattern = #"^(?:please )?(?:(?:add|make|write|take|leave) (?:a |me a )?(?:day )?note|note(?: down)?|write down|jot down)(?: for today| to today| on today)?(?:\s*:\s*|,\s*| that | saying | )(\S[\s\S]*)$"#
        guard let re = try? NSRegularExpression(pattern: pattern, options: [.caseInsensitive]),
              let m = re.firstMatch(in: t, range: NSRange(t.startIndex..., in: t)), let r = Range(m.range(at: 1), in: t) else { return nil }
        let text = String(t[r]).trimmingCharacters(in: .whitespacesAndNewlines)
        // "note: " alone, or a question about notes, is not a note.
        guard !text.isEmpty, !text.hasSuffix("?") || t.lowercased().hasPrefix("note:") else { return nil }
        return .note(text)
    }

    /// "what do I usually eat for breakfast", "my usual foods", "recent foods"; "how long have I been
    /// fasting", "when did I last eat", "my fasting window".
    static func habits(_ s: String) -> OfflineIntent? {
        if s.firstMatch(#"^(?:how long (?:have i been fasting|since i (?:last )?(?:ate|eaten|had something)|has it been since i (?:last )?ate)|when did i (?:last )?eat|when was my last (?:meal|entry)|(?:show |what(?:'s| is|s) )?my (?:overnight )?fasting(?: window| windows)?|fasting)$"#) != nil {
            return .fasting
        }
        if let m = s.firstMatch(#"^what do i (?:usually|normally|often|mostly) (?:eat|have|log)(?: (?:for|at) (breakfast|lunch|dinner|supper|snacks?|a snack))?(?: now| at this time)?$"#) {
            return .recentFoods(meal: m[0].isEmpty ? nil : mealWords[m[0]])
        }
        if let m = s.firstMatch(#"^(?:show |list )?(?:my )?(?:recent|frequent|usual) (?:foods|meals)(?: (?:for|at) (breakfast|lunch|dinner|supper|snacks?|a snack))?$"#) {
            return .recentFoods(meal: m[0].isEmpty ? nil : mealWords[m[0]])
        }
        return nil
    }

    /// "I drank 500 ml of water", "had 2 glasses of water", "log 0.5 l water", "water 500ml".
    static func water(_ s: String) -> OfflineIntent? {
        let amount = #"([0-9]+(?:\.[0-9]+)?|a|an|one|two|three|four|five|half a)"#
        let unit = #"(ml|milliliters?|millilitres?|l|liters?|litres?|fl oz|fluid ounces?|oz|ounces?|cups?|glass(?:es)?|bottles?)"#
        guard let m = s.firstMatch(#"^(?:please )?(?:(?:i )?(?:drank|had|have had|'ve had|just drank|just had)|log|add|track|record)? ?"# + amount + " ?" + unit
                                   + #"(?: of)? (?:water|plain water|tap water|still water|sparkling water)(?: today)?$"#)
            ?? s.firstMatch(#"^water "# + amount + " ?" + unit + "$") else { return nil }
        let q = Double(m[0]) ?? numberWords[m[0]] ?? 1
        let per: [String: Double] = ["ml": 1, "l": 1000, "fl oz": 29.5735, "oz": 29.5735, "cup": 240, "glass": 240, "bottle": 500]  // a glass as household-measures.tsv has it
        let u = m[1]
        let key = u.hasPrefix("milli") ? "ml" : u.hasPrefix("lit") ? "l" : u.hasPrefix("fl") || u.hasPrefix("fluid") ? "fl oz"
            : u.hasPrefix("ounce") ? "oz" : u.hasPrefix("cup") ? "cup" : u.hasPrefix("glass") ? "glass" : u.hasPrefix("bottle") ? "bottle" : u
        guard let f = per[key], q > 0 else { return nil }
        return .water(milliliters: q * f)
    }

    static let ordinals: [String: Int] = ["first": 1, "second": 2, "third": 3, "1st": 1, "2nd": 2, "3rd": 3,
                                          "one": 1, "two": 2, "three": 3]

    /// "2", "#2", "number 2", "option 2", "the second", "the second one", "2nd".
    static func choice(_ s: String) -> Int? {
        if let m = s.firstMatch(#"^(?:#|no\.? ?|number |option |choice )?([1-9])(?: please)?$"#) { return Int(m[0]) }
        if let m = s.firstMatch(#"^(?:the )?(first|second|third|1st|2nd|3rd)(?: one)?(?: please)?$"#) { return ordinals[m[0]] }
        if let m = s.firstMatch(#"^(?:number|option) (one|two|three)$"#) { return ordinals[m[0]] }
        return nil
    }

    /// "I weigh 80.4 kg", "my weight is 177 lb", "log my weight 80.4"; "what's my weight trend", "how's my weight".
    static func weight(_ s: String) -> OfflineIntent? {
        if let m = s.firstMatch(#"^(?:i weigh|i weighed|i'm|i am|my weight is|my weight's|weighed in at|weight|log (?:my )?weight(?: of| as| at)?|weigh-in|weigh in)(?: in)?(?: at)? ([0-9]+(?:[.,][0-9]+)?) ?(kg|kgs|kilos?|kilograms?|lb|lbs|pounds?)?(?: today| this morning| now)?$"#),
           let v = Double(m[0].replacingOccurrences(of: ",", with: ".")) {
            // "i'm 30" is an age, not a weight: without a unit only "weigh" phrasings count.
            if m[1].isEmpty, s.hasPrefix("i'm") || s.hasPrefix("i am") { return nil }
            let unit: String? = m[1].isEmpty ? nil : m[1].hasPrefix("k") ? "kg" : "lb"
            return .logWeight(value: v, unit: unit)
        }
        if s.range(of: #"^(?:what(?:'s| is|s) |show(?: me)? |how(?:'s| is) )?my (?:weight|body weight)(?: trend| doing| going| lately| now| so far)?$"#, options: .regularExpression) != nil
            || s.range(of: #"^(?:show |what(?:'s| is) )?(?:the |my )?weight trend$"#, options: .regularExpression) != nil
            || s == "how much do i weigh" || s == "what do i weigh" {
            return .weightTrend
        }
        return nil
    }

    static func setGoal(_ s: String) -> OfflineIntent? {
        guard let m = s.firstMatch(#"^set (?:my )?(?:daily )?(.+?) goal to ([0-9][0-9.,]*) ?(?:g|mg|mcg|kcal|calories|grams)?$"#)
            ?? s.firstMatch(#"^(?:my )?(.+?) goal (?:is|should be|=) ([0-9][0-9.,]*) ?(?:g|mg|mcg|kcal|calories|grams)?$"#),
              let n = nutrientID(m[0]) else { return nil }
        // The one decimal rule: "2,200" is 2200, "1,5" is 1.5; "2.200,5" is not guessed.
        guard let v = TypedNumber.value(m[1]) else { return .unknown }
        return .setGoal(nutrient: n, amount: v)
    }

    static func log(_ s: String) -> OfflineIntent? {
        guard let m = s.firstMatch(#"^(?:please )?(?:log|i had|i've had|i ate|i just ate|i just had|had|ate|add|track|record|i drank|drank)(?: me)? (.+)$"#) else { return nil }
        // "3 eggs and toast": two foods when the first starts with an amount and is not "… of …"
        // ("1 cup of mac and cheese" stays one food). A day or meal at the end applies to both.
        if let pair = m[0].firstMatch(#"^((?:[0-9][0-9.,/]*|a|an|one|two|three|four|five|six) [a-z]+(?: [a-z]+)?) and (.+)$"#),
           !pair[0].contains(" of ") {
            var tail = ""
            if let t = pair[1].firstMatch(#"^.+?((?:,? (?:for|as|at|with|to|in|into) (?:my |the |a )?(?:breakfast|lunch|dinner|supper|snacks?))?(?:,? (?:\#(dayPattern)))?(?:,? (?:for|as|at|with|to|in|into) (?:my |the |a )?(?:breakfast|lunch|dinner|supper|snacks?))?)$"#) {
                tail = t[0]
            }
            if let first = log("log " + pair[0] + tail), let second = log("log " + pair[1]) {
                for item in [first, second] { if case .badAmount = item { return item } }
                return .logEach([first, second])
            }
        }
        var rest = m[0]
        var meal: String?
        var day: Period?
        // A day and a meal may come in either order at the end ("for dinner yesterday", "yesterday
        // for dinner") or a meal first ("for breakfast 2 eggs"); neither becomes part of the food.
        for _ in 0..<2 {
            if let dd = rest.firstMatch(#"^(.+?),? (\#(dayPattern))$"#), let p = period(dd[1]), day == nil {
                rest = dd[0]
                day = p
            }
            if let mm = rest.firstMatch(#"^(.+?),? (?:for|as|at|with|to|in|into) (?:my |the |a )?(breakfast|lunch|dinner|supper|snacks?)$"#), meal == nil {
                rest = mm[0]
                meal = mealWords[mm[1]]
            }
        }
        if meal == nil, let mm = rest.firstMatch(#"^(?:for|at) (?:my )?(breakfast|lunch|dinner|supper|snacks?),? (.+)$"#) {
            meal = mealWords[mm[0]]
            rest = mm[1]
        }
        var usual = false
        for prefix in ["my usual ", "the usual ", "my "] where rest.hasPrefix(prefix) {
            usual = prefix != "my "
            rest = String(rest.dropFirst(prefix.count))
            break
        }
        var quantity = 1.0
        var unit: String?
        // "150g greek yogurt", "150 g of yogurt", "2 eggs", "a banana", "half a cup of rice", "1/2 cup oats"
        if let q = rest.firstMatch(#"^([0-9][0-9.,/]*) ?(fl oz|fluid ounces?|[a-z]+)?(?: of)? (.+)$"#) {
            switch TypedNumber.read(q[0]) {
            case .success(let v)?: quantity = v
            case .failure(let problem)?: return .badAmount("I read \(problem) in \"\(String(rest.prefix(40)))\", so nothing was logged: \(problem.hint).")
            case nil: quantity = 1
            }
            if let u = units[q[1]] {
                unit = u
                rest = q[2]
            } else {
                rest = (q[1].isEmpty ? "" : q[1] + " ") + q[2]
            }
        } else if let q = rest.firstMatch(#"^([0-9][0-9.,/]*)([a-z]+)$"#) {
            // "log 150g" with no food is not a food.
            _ = q
            return nil
        } else {
            for (word, value) in numberWords.sorted(by: { $0.key.count > $1.key.count }) where rest.hasPrefix(word + " ") {
                quantity = value
                rest = String(rest.dropFirst(word.count + 1))
                if let u = rest.firstMatch(#"^([a-z]+) (?:of )?(.+)$"#), let unitName = units[u[0]] {
                    unit = unitName
                    rest = u[1]
                }
                break
            }
        }
        rest = rest.trimmingCharacters(in: .whitespaces)
        // "-2 eggs" or "eggs yesterday" are not something to guess about: the reply lists what
        // is understood instead of logging a different food or day.
        guard !rest.isEmpty, quantity > 0, quantity.isFinite, !rest.hasPrefix("-"),
              rest.firstMatch(#"\b(yesterday|today|tomorrow|tonight|last night|for (brunch|supper|elevenses|tea))\b|\bon \d|\bthe day (after|before)\b|\bnext (week|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"#) == nil else { return nil }
        let intent = OfflineIntent.log(food: rest, quantity: quantity, unit: unit, meal: meal, usual: usual)
        guard let day, day != .today else { return intent }
        return .dated(intent, day)
    }

    /// A number by the one decimal rule (`TypedNumber`: "1,5" = 1.5, "1,000" = 1000).
    static func number(_ text: String) -> Double? {
        TypedNumber.value(text)
    }

    /// The nutrient a phrase names exactly ("protein", "added sugar"); anything more is not guessed,
    /// so "protein did i have last month" is not read as "protein today".
    static func nutrientID(_ phrase: String) -> String? {
        let p = phrase.trimmingCharacters(in: .whitespaces)
        for (words, id) in nutrients where words.contains(p) { return id }
        return nil
    }

    static let weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    /// One day: "yesterday", "tomorrow", "last monday", "on friday", "on the 3rd", "on 2026-11-03".
    static let dayPattern = #"today|yesterday|tomorrow|(?:last |on |this past )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(?:on )?the \d{1,2}(?:st|nd|rd|th)?|(?:on )?\d{4}-\d{2}-\d{2}"#
    /// A day or a range.
    static let periodPattern = dayPattern + #"|this week|last week|this month|last month|the last month|last 30 days|the last 30 days"#

    static func period(_ phrase: String) -> Period? {
        var p = phrase
        for prefix in ["on ", "last ", "this past "] where p.hasPrefix(prefix) && !p.hasSuffix("week") && !p.hasSuffix("month") && !p.hasSuffix("days") {
            p = String(p.dropFirst(prefix.count))
            break
        }
        if let i = weekdays.firstIndex(of: p) { return .weekday(i + 1) }
        if let m = p.firstMatch(#"^the (\d{1,2})(?:st|nd|rd|th)?$"#), let d = Int(m[0]), (1...31).contains(d) { return .dayOfMonth(d) }
        if p.firstMatch(#"^\d{4}-\d{2}-\d{2}$"#) != nil {
            // An impossible date ("2026-02-30") is not read as another day.
            guard (try? CalendarDay(parsing: p)) != nil else { return nil }
            return .date(p)
        }
        switch phrase {
        case "today": return .today
        case "tomorrow": return .tomorrow
        case "yesterday": return .yesterday
        case "this week", "last week": return .lastDays(7)
        case "this month": return .thisMonth
        case "last month", "the last month", "last 30 days", "the last 30 days": return .lastDays(30)
        default:
            return nil
        }
    }

    // MARK: - Typos

    /// Words the grammar relies on; a typed word within a small edit distance of one of them
    /// ("brekfast", "tday", "yesterdy", "protien") is read as that word. Food words are left to
    /// the reference search, which corrects them against its own vocabulary.
    static let knownWords: Set<String> = Set(["breakfast", "lunch", "dinner", "supper", "snack", "snacks", "today", "yesterday",
                                              "tomorrow", "calories", "protein", "sodium", "cholesterol", "potassium", "magnesium",
                                              "caffeine", "calcium", "delete", "remove", "journal", "remaining"] + weekdays)

    /// Words that introduce a meal or a day ("for brekfast", "on tuesdy", "since yesterdy").
    static let slotIntroducers: Set<String> = ["for", "at", "to", "on", "as", "since", "from", "of", "my", "this", "last", "into"]
    static let questionStarts: Set<String> = ["what", "what's", "whats", "how", "which", "show", "list", "when", "did", "delete", "remove", "move"]

    /// Typo correction applied only where the grammar expects one of its words, so a food name is
    /// never rewritten ("fruit punch" stays punch, "hot toddy" stays toddy): anywhere in a question or
    /// command, after a word that introduces a meal or day, or a long last word that is a day
    /// ("eggs yesterdy"). Elsewhere the word belongs to the food and the reference search reads it.
    static func correctedWords(_ words: [String]) -> [String] {
        let question = words.first.map { questionStarts.contains($0) } ?? false
        return words.enumerated().map { i, word in
            let fixed = corrected(word)
            guard fixed != word else { return word }
            if question { return fixed }
            if i > 0, slotIntroducers.contains(words[i - 1]) { return fixed }
            let isDay = ["today", "yesterday", "tomorrow"].contains(fixed) || weekdays.contains(fixed)
            if i == words.count - 1, isDay, word.count >= 6 { return fixed }
            let isGrammarOnly = !mealWords.keys.contains(fixed) && !isDay
            return isGrammarOnly ? fixed : word
        }
    }

    /// The known word a typed word is a typo of, or the word itself.
    static func corrected(_ word: String) -> String {
        guard word.count >= 4, word.allSatisfy(\.isLetter), !knownWords.contains(word) else { return word }
        let limit = word.count >= 6 ? 2 : 1
        var best: (word: String, distance: Int)?
        for known in knownWords where abs(known.count - word.count) <= limit {
            let d = editDistance(word, known, limit: limit)
            if d <= limit, d < (best?.distance ?? Int.max) { best = (known, d) }
        }
        return best?.word ?? word
    }
}

extension String {
    /// Capture groups of the first match of a regular expression ("" for groups that did not take part).
    func firstMatch(_ pattern: String) -> [String]? {
        guard let re = try? NSRegularExpression(pattern: pattern),
              let m = re.firstMatch(in: self, range: NSRange(startIndex..., in: self)) else { return nil }
        return (1..<m.numberOfRanges).map { i in
            Range(m.range(at: i), in: self).map { String(self[$0]) } ?? ""
        }
    }
}
