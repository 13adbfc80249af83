// Plain-text views of the journal, shared by `ofj day`/`ofj foods`/`ofj goals` and the REPL's
// /day, /week, /foods and /goals, and the CLI's entry and reference-food views. Names are
// sanitized: they are user or model supplied.
import Base
import Foundation
import Journal
import Nutrition
import ReferenceFoods

public enum JournalViews {
    /// The footer of the banner, `/help`, thread exports and the README.
    public static let medicalNote = "Not medical advice: ofj's numbers are estimates; ask a doctor or dietitian about your health."

    static let mainNutrients = ["energy_kcal", "protein_g", "carbohydrate_g", "fat_g"]

    /// "1,234" / "12.5" / "0.25": at most `places` decimals, trailing zeros dropped.
    public static func number(_ value: Double, places: Int = 1) -> String {
        guard value.isFinite else { return "–" }
        // Past 1e15 the digits mean nothing (and would overflow Int): a stored value no check let through.
        guard abs(value) < 1e15 else { return String(format: "%.3g", value) }
        let factor = pow(10.0, Double(places))
        let rounded = (value * factor).rounded() / factor
        let negative = rounded < 0
        let absValue = abs(rounded)
        let integer = Int(absValue)
        var text = String(integer)
        if integer >= 1000 {
            var groups: [String] = []
            var n = integer
            while n >= 1000 { groups.insert(String(format: "%03d", n % 1000), at: 0); n /= 1000 }
            text = ([String(n)] + groups).joined(separator: ",")
        }
        let fraction = absValue - Double(integer)
        if fraction > 0 {
            var digits = String(format: "%.\(places)f", fraction).dropFirst() // ".25"
            while digits.hasSuffix("0") { digits = digits.dropLast() }
            if digits != "." { text += digits }
        }
        return (negative ? "-" : "") + text
    }

    public static func amount(_ id: String, _ value: Double) -> String {
        let unit = NutrientCatalog.nutrient(id)?.unit.rawValue ?? ""
        let places = value >= 100 ? 0 : 1
        return number(value, places: places) + (unit.isEmpty ? "" : (unit == "kcal" ? " kcal" : " " + unit))
    }

    static func macros(_ amounts: [String: Double], notReported: (String) -> Int = { _ in 0 }, ids: [String] = mainNutrients) -> String {
        ids.map { id -> String in
            let name = id == "energy_kcal" ? "" : NutrientCatalog.displayName(id).lowercased() + " "
            guard let v = amounts[id] else { return name + "not reported" }
            let missing = notReported(id)
            return name + amount(id, v) + (missing > 0 ? "*" : "")
        }.joined(separator: " · ")
    }

    static func safe(_ s: String) -> String { Terminal.sanitize(s, keepNewlines: false) }
    /// A user- or model-supplied name made safe for one line of terminal output.
    public static func safeName(_ s: String) -> String { safe(s) }

    public static func entryLine(_ e: Entry) -> String {
        let brand = e.brand.map { " (\(safe($0)))" } ?? ""
        let serving = safe(e.servings == 1 ? e.serving.label : number(e.servings, places: 2) + " × " + e.serving.label)
        let totals = e.totalNutrients
        let kcal = totals["energy_kcal"].map { amount("energy_kcal", $0) } ?? "kcal not reported"
        return "\(safe(e.name))\(brand) — \(serving) — \(kcal)"
    }

    /// `ofj entry show`: the entry's line, day, meal and source, and every nutrient it reports.
    public static func entryDetail(_ e: Entry) -> String {
        var lines = ["Entry \(e.id.uuidString.lowercased())",
                     "  " + entryLine(e),
                     "  \(e.day) · \(safe(e.mealName)) · from \(e.source.rawValue.replacingOccurrences(of: "_", with: " "))"]
        let totals = e.totalNutrients
        let ids = NutrientCatalog.sorted(totals.values.keys)
        if !ids.isEmpty {
            lines.append("  Nutrients: " + ids.compactMap { id in
                totals[id].map { (id == "energy_kcal" ? "" : NutrientCatalog.displayName(id).lowercased() + " ") + amount(id, $0) }
            }.joined(separator: ", "))
        }
        if let food = e.savedFoodID { lines.append("  Food Bank food: \(JournalStore.shortID(food))") }
        return lines.joined(separator: "\n")
    }

    /// `ofj ref`: one line per USDA reference food (id, description, kcal per 100 g, a portion).
    public static func referenceFoods(_ foods: [ReferenceFood], query: String) -> String {
        guard !foods.isEmpty else { return "No reference foods match '\(safeName(query))'." }
        return foods.map { f in
            let kcal = f.per100g("energy_kcal").map { amount("energy_kcal", $0) } ?? "kcal not reported"
            let portion = f.portions.first.map { " · \($0.label) = \(number($0.gramWeight)) g" } ?? ""
            return safe("  \(f.id)  \(f.description) — \(kcal) per 100 g\(portion)")
        }.joined(separator: "\n")
    }

    /// A day by meal with totals against goals.
    /// `ids`: each entry starts with its short id (the command line, where ids are typed back).
    ///
    /// `pinned`: the nutrients the totals and goals lines show (config.json's "pinned", `--pin`),
    /// calories, protein, carbs and fat when nil. `notes` are the day's notes; `water` the water
    /// logged with `ofj water` (a line of its own when water is not pinned and there is some or a goal).
    public static func day(_ view: DayView, today: CalendarDay? = nil, ids: Bool = false, pinned: [String]? = nil,
                           notes: [DayNote] = [], water: Double? = nil) -> String {
        let main = pinned ?? mainNutrients
        var lines: [String] = []
        let label = view.day == today ? "Today, \(view.day)" : "\(weekdayName(view.day)) \(view.day)"
        // A marked day says so: ofj expenditure counts it or leaves it out by the mark.
        lines.append(label + (view.mark.map { " (marked \($0.rawValue))" } ?? ""))
        if view.entries.isEmpty {
            lines.append("  Nothing logged.")
        }
        // Meals of the person's own (stored as snack with their name) get a heading each, after the four.
        var own: [(String, [Entry])] = []
        for group in view.meals {
            let plain = group.entries.filter { $0.mealLabel == nil }
            for e in group.entries {
                guard let label = e.mealLabel else { continue }
                if let i = own.firstIndex(where: { $0.0 == label }) { own[i].1.append(e) } else { own.append((label, [e])) }
            }
            guard !plain.isEmpty else { continue }
            lines.append("  \(group.meal.displayName)")
            for e in plain { lines.append("    " + (ids ? JournalStore.shortID(e.id) + "  " : "") + entryLine(e)) }
        }
        for (label, entries) in own {
            lines.append("  " + safe(label))
            for e in entries { lines.append("    " + (ids ? JournalStore.shortID(e.id) + "  " : "") + entryLine(e)) }
        }
        if !view.entries.isEmpty {
            lines.append("  Total: " + macros(view.totals.amounts, notReported: view.totals.notReportedCount, ids: main))
            // The footnote explains the stars: nutrients with a total that some entries lack.
            let starred = main.filter { view.totals.amounts[$0] != nil && view.totals.notReportedCount($0) > 0 }
            if !starred.isEmpty {
                lines.append("  * not reported by " + starred.map { "\(view.totals.notReportedCount($0)) \(view.totals.notReportedCount($0) == 1 ? "entry" : "entries") for \(NutrientCatalog.displayName($0).lowercased())" }.joined(separator: ", "))
            }
        }
        let shown = main.compactMap { id in view.goals.first { $0.id == id } }
        if !shown.isEmpty {
            let tag = GoalSources.tag(shown.compactMap { g in g.origin.map { (g.id, $0) } })
            lines.append("  Goals\(tag.isEmpty ? "" : " (\(tag))"): " + shown.map { g in
                let name = g.id == "energy_kcal" ? "calories" : safe(g.name.lowercased())
                // Nothing reported is not zero eaten.
                let consumed = g.consumed.map { amount(g.id, $0) } ?? "–"
                return "\(name) \(consumed)/\(amount(g.id, g.goal))"
            }.joined(separator: " · "))
        }
        let waterGoal = view.goals.first { $0.id == "water_g" }
        if !main.contains("water_g"), (water ?? 0) > 0 || waterGoal != nil {
            var line = "  Water: " + number(water ?? 0, places: 0) + " mL logged"
            if let all = view.totals.amounts["water_g"], all > (water ?? 0) + 0.5 { line += " (" + number(all, places: 0) + " g with the water in foods)" }
            if let g = waterGoal { line += " · goal " + number(g.goal, places: 0) + " g" + (g.consumed.map { " (\(Int(($0 / g.goal * 100).rounded()))%)" } ?? "") }
            lines.append(line)
        }
        for n in notes {
            let text = Terminal.sanitize(n.text, keepNewlines: true).replacingOccurrences(of: "\n", with: "\n    ")
            lines.append("  Note: " + text)
        }
        return lines.joined(separator: "\n")
    }

    /// Per-day totals of a range with daily averages.
    /// `pinned`: the nutrients each line shows (calories, protein, carbs and fat when nil).
    public static func range(_ summary: RangeSummary, pinned: [String]? = nil) -> String {
        let main = pinned ?? mainNutrients
        var lines = ["\(summary.from) to \(summary.to)"]
        for d in summary.days {
            if d.entryCount == 0 {
                lines.append("  \(d.day)  nothing logged")
            } else {
                lines.append("  \(d.day)  " + macros(d.totals.amounts, notReported: d.totals.notReportedCount, ids: main))
            }
        }
        if summary.loggedDayCount > 0 {
            lines.append("  Daily average over \(summary.loggedDayCount) logged \(summary.loggedDayCount == 1 ? "day" : "days"): "
                         + macros(summary.dailyAverages, notReported: { summary.reportingDays($0) < summary.loggedDayCount ? 1 : 0 }, ids: main))
            let notes = main.compactMap { id in summary.partialAverageNote(id) { amount(id, $0) } }
            if !notes.isEmpty { lines.append("  * " + notes.joined(separator: "; ")) }
        }
        return lines.joined(separator: "\n")
    }

    public static func foods(_ items: [FoodBankItem], query: String, ids: Bool = false) -> String {
        guard !items.isEmpty else {
            return query.isEmpty ? "Your Food Bank is empty. With an AI provider configured, ask the assistant to save a food (\"save my oatmeal as a food\"); `ofj backup import` restores saved foods." : "No foods match '\(safe(query))'."
        }
        return items.map { item in
            let f = item.food
            let brand = f.brand.map { " (\(safe($0)))" } ?? ""
            let status = item.status.rawValue == "active" ? "" : " [\(item.status.rawValue)]"
            let kcal = f.nutrients["energy_kcal"].map { amount("energy_kcal", $0) } ?? "kcal not reported"
            return "  " + (ids ? JournalStore.shortID(f.id) + "  " : "") + "\(safe(f.name))\(brand) — \(safe(f.serving.label)) — \(kcal)\(status)"
        }.joined(separator: "\n")
    }

    /// The goals, each marked with where it comes from (FDA, DRI, you), its DRI upper limit, and
    /// the weekday calorie targets; the first line is the legend every view shares.
    public static func goals(_ goals: Goals, sources: GoalSources = GoalSources()) -> String {
        let ids = goals.ids
        guard !ids.isEmpty else { return "No goals set." }
        let allDefaults = ids.allSatisfy { sources.origin(of: $0, in: goals) == .fdaDefault }
        var lines = ["Daily goals (\(allDefaults ? "FDA defaults" : "personal"))"]
        let width = ids.map { safe(NutrientCatalog.displayName($0)).count }.max() ?? 0
        for id in ids {
            guard let v = goals.values[id] else { continue }
            let name = safe(NutrientCatalog.displayName(id))
            var line = "  \(name):" + String(repeating: " ", count: width - name.count + 1) + amount(id, v)
            let origin = sources.origin(of: id, in: goals)
            line += String(repeating: " ", count: max(1, 12 - amount(id, v).count)) + origin.marker
            var basis = ""
            if origin == .profile, let s = sources.sources[id]?.source { basis = profileBasis(s, group: sources.group) }
            let limit = sources.upperLimits[id].map { l in "\(l.kind) \(amount(id, l.value))" + (l.caveat.map { caveatHint($0) } ?? "") } ?? ""
            if !basis.isEmpty || !limit.isEmpty {
                line += String(repeating: " ", count: 6 - origin.marker.count) + basis
                if !limit.isEmpty { line += String(repeating: " ", count: max(2, 52 - basis.count)) + limit }
            }
            lines.append(line)
        }
        if !sources.weekdayEnergy.isEmpty {
            lines.append("  Calories by weekday (set by you): " + TargetCard.weekdayText(sources.weekdayEnergy))
        }
        lines.append("  " + sources.legend(goals))
        return lines.joined(separator: "\n")
    }

    /// "RDA · Elements RDA/AI, 2001" from a profile goal's stored source
    /// ("RDA, females 31–50 y; DRI summary tables, Elements RDA/AI, NASEM; … (2001)").
    static func profileBasis(_ source: String, group: DRIGroup?) -> String {
        let parts = source.components(separatedBy: "; ")
        var basis = parts[0]
        if let g = group, basis.hasSuffix(", " + g.label) { basis = String(basis.dropLast(g.label.count + 2)) }
        let rest = parts.dropFirst().joined(separator: "; ")
        return rest.isEmpty ? basis : basis + " · " + PersonalTargets.shortSource(rest)
    }

    /// A UL's caveat in a few words, where it changes what the limit means.
    static func caveatHint(_ caveat: String) -> String {
        if caveat.contains("supplemental magnesium") { return " (supplements only)" }
        if caveat.contains("preformed vitamin A") { return " (preformed vitamin A)" }
        if caveat.contains("folic acid") { return " (folic acid)" }
        if caveat.contains("synthetic niacin") { return " (supplements, fortified foods)" }
        if caveat.contains("supplemental alpha-tocopherol") { return " (supplements)" }
        return ""
    }

    static func weekdayName(_ day: CalendarDay) -> String {
        ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][(day.isoWeekday - 1) % 7]
    }
}
