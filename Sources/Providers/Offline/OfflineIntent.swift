// The offline assistant's grammar: turns a few common requests into structured intents.
// Deterministic and small on purpose; anything else gets help, never a made-up number.
import Foundation

public enum Period: Hashable, Sendable {
    case today, yesterday
    case lastDays(Int)      // the N days ending today
    case thisMonth
    case date(String)       // YYYY-MM-DD
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
        "bowl": "bowl", "bowls": "bowl", "glass": "glass", "glasses": "glass", "scoop": "scoop", "scoops": "scoop",
    ]

    /// Parses one utterance.
    public static func parse(_ utterance: String) -> OfflineIntent {
        var s = utterance.lowercased()
            .replacingOccurrences(of: "’", with: "'")
            .trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: ".!?")))
        s = s.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        if s.isEmpty || s == "help" || s == "?" || s.hasPrefix("what can you do") || s == "help me" { return .help }

        if let r = setGoal(s) { return r }
        if s.range(of: #"^(delete|remove|undo)( the)? (last|latest)( thing| entry| food| item| one)?( i logged| i ate| logged)?$"#, options: .regularExpression) != nil
            || s == "undo" || s == "undo that" {
            return .deleteLast
        }
        if let m = s.firstMatch(#"^move (?:my |the )?(.+?) to (breakfast|lunch|dinner|snacks?|a snack|supper)$"#) {
            return .move(food: m[0], meal: mealWords[m[1]] ?? m[1])
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
        if let m = s.firstMatch(#"^how much (.+?)(?: did i (?:have|eat|get))?(?: (today|yesterday|this week|last week|this month|last month|last 30 days))?$"#),
           let n = nutrientID(m[0]) {
            return .nutrientTotal(nutrient: n, period: period(m.count > 1 ? m[1] : "") ?? .today)
        }
        if let m = s.firstMatch(#"^(?:what did i eat|what have i eaten|show(?: me)?|what's in my journal|journal)(?: (today|yesterday|this week|last week|this month|on \d{4}-\d{2}-\d{2}))?$"#) {
            let p = period(m.first ?? "") ?? .today
            switch p {
            case .today, .yesterday, .date: return .showDay(p)
            default: return .showRange(p)
            }
        }
        if let r = log(s) { return r }
        return .unknown
    }

    static func setGoal(_ s: String) -> OfflineIntent? {
        guard let m = s.firstMatch(#"^set (?:my )?(?:daily )?(.+?) goal to ([0-9]+(?:\.[0-9]+)?) ?(?:g|mg|mcg|kcal|calories|grams)?$"#)
            ?? s.firstMatch(#"^(?:my )?(.+?) goal (?:is|should be|=) ([0-9]+(?:\.[0-9]+)?) ?(?:g|mg|mcg|kcal|calories|grams)?$"#),
              let n = nutrientID(m[0]), let v = Double(m[1]) else { return nil }
        return .setGoal(nutrient: n, amount: v)
    }

    static func log(_ s: String) -> OfflineIntent? {
        guard let m = s.firstMatch(#"^(?:please )?(?:log|i had|i've had|i ate|i just ate|i just had|had|ate|add|track|record|i drank|drank)(?: me)? (.+)$"#) else { return nil }
        var rest = m[0]
        var meal: String?
        if let mm = rest.firstMatch(#"^(.+?) (?:for|as|at|with) (breakfast|lunch|dinner|supper|snacks?|a snack)$"#) {
            rest = mm[0]
            meal = mealWords[mm[1]]
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
        if let q = rest.firstMatch(#"^([0-9]+(?:\.[0-9]+)?|[0-9]+/[0-9]+) ?(fl oz|fluid ounces?|[a-z]+)?(?: of)? (.+)$"#) {
            quantity = number(q[0]) ?? 1
            if let u = units[q[1]] {
                unit = u
                rest = q[2]
            } else {
                rest = (q[1].isEmpty ? "" : q[1] + " ") + q[2]
            }
        } else if let q = rest.firstMatch(#"^([0-9]+(?:\.[0-9]+)?|[0-9]+/[0-9]+)([a-z]+)$"#) {
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
              rest.firstMatch(#"\b(yesterday|today|tomorrow|tonight|last night|for (brunch|supper|elevenses|tea))\b|\bon \d"#) == nil else { return nil }
        return .log(food: rest, quantity: quantity, unit: unit, meal: meal, usual: usual)
    }

    static func number(_ text: String) -> Double? {
        if let slash = text.firstIndex(of: "/") {
            guard let a = Double(text[..<slash]), let b = Double(text[text.index(after: slash)...]), b != 0 else { return nil }
            return a / b
        }
        return Double(text)
    }

    /// The nutrient a phrase names exactly ("protein", "added sugar"); anything more is not guessed,
    /// so "protein did i have last month" is not read as "protein today".
    static func nutrientID(_ phrase: String) -> String? {
        let p = phrase.trimmingCharacters(in: .whitespaces)
        for (words, id) in nutrients where words.contains(p) { return id }
        return nil
    }

    static func period(_ phrase: String) -> Period? {
        switch phrase {
        case "today": return .today
        case "yesterday": return .yesterday
        case "this week", "last week": return .lastDays(7)
        case "this month": return .thisMonth
        case "last month", "the last month", "last 30 days", "the last 30 days": return .lastDays(30)
        default:
            if phrase.hasPrefix("on ") { return .date(String(phrase.dropFirst(3))) }
            return nil
        }
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
