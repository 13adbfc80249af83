// `ofj gaps` as text: nutrients below their Daily Value, with foods that close most of each gap.
import Foundation
import Journal
import Nutrition

extension JournalViews {
    /// `ofj gaps`: each nutrient below the threshold with its reporting days and the foods that
    /// bring the most of it per 100 kcal; then the nutrients no entry reports.
    public static func gaps(_ r: GapReport) -> String {
        guard r.loggedDays > 0 else { return "Nothing logged from \(r.from) to \(r.to); gaps need a few logged days." }
        let percent = number(r.threshold * 100, places: 0)
        let against = r.personalTargets ? "your targets" : "the Daily Value"
        var lines = [wrapText("Below \(percent)% of \(against), \(r.from) to \(r.to) (\(r.loggedDays) logged \(r.loggedDays == 1 ? "day" : "days")):", width: 80)]
        if r.personalTargets {
            lines.append("  (DRI = from your profile, you = set by you, FDA = FDA Daily Value default)")
        }
        if r.gaps.isEmpty { lines.append("  None: every nutrient reported averages at least \(percent)% of \(r.personalTargets ? "its target" : "its Daily Value").") }
        for g in r.gaps {
            let days = g.reportingDays == r.loggedDays ? "every logged day" : "\(g.reportingDays) of \(r.loggedDays) logged days"
            lines.append("")
            lines.append("  \(g.name): \(amount(g.nutrient, g.average)) a day, \(number(g.fraction * 100, places: 0))% of \(amount(g.nutrient, g.reference))\(r.personalTargets ? " " + (g.targetOrigin ?? .fdaDefault).marker : "") (reported on \(days))")
            if g.foods.isEmpty { lines.append("    no food with it known"); continue }
            lines.append("    foods that bring the most per 100 kcal:")
            for f in g.foods {
                let source = f.source == "reference" ? "USDA \(f.id)" : "Food Bank"
                var name = safeName(f.name)
                if name.count > 60 { name = String(name.prefix(59)) + "…" }
                // How many kcal of the food bring the whole gap.
                let kcal = f.perHundredKcal > 0 ? g.gap / f.perHundredKcal * 100 : .infinity
                let closes = kcal < 1 ? "under 1 kcal of it closes the gap" : "\(number(kcal, places: 0)) kcal of it closes the gap"
                lines.append("      \(name) [\(source)]")
                lines.append("        \(amount(g.nutrient, f.perHundredKcal)) per 100 kcal; \(closes)")
            }
        }
        if !r.notReported.isEmpty {
            lines.append("")
            lines.append(wrapText("Not reported by any entry (unknown, not zero): " + r.notReported.map { NutrientCatalog.displayName($0) }.joined(separator: ", ") + ".", width: 80))
        }
        return lines.joined(separator: "\n")
    }
}
