// The approval card of `ofj goals from-profile`: every nutrient's target for the person's DRI
// life-stage group with its basis and source table, the energy equation, the weekday targets.
import Base
import Nutrition

public enum TargetCard {
    /// The whole card; `weightNote` says where the weight came from ("weight trend on 2026-12-01").
    public static func render(_ plan: TargetPlan, profile: Profile, weightNote: String?) -> String {
        var lines: [String] = []
        lines.append("Personal targets for \(plan.group.label) (age \(plan.ageYears)), from your profile and the DRIs")
        if let kg = plan.weightKg {
            lines.append("Weight: \(profile.weightText(kg))" + (weightNote.map { " (\($0))" } ?? ""))
        } else {
            lines.append("Weight: none logged (protein uses the table's reference weight; energy needs it: ofj weight KG)")
        }
        lines.append("Energy: " + plan.energy.method)
        if plan.energy.kcal != nil {
            lines.append("  until your own expenditure estimate replaces it.")
        }
        for n in plan.energy.notes { lines.append("  " + n) }
        if !plan.weekdayEnergy.isEmpty {
            lines.append("Calories by weekday (yours; they replace the calorie goal on their days): " + weekdayText(plan.weekdayEnergy))
        }
        lines.append("")
        let header = [pad("Nutrient", 20), pad("Now", 18), pad("New", 14), pad("Basis", 26), pad("Upper limit", 16), "Source"]
        lines.append("  " + header.joined())
        for r in plan.rows {
            let name = NutrientCatalog.displayName(r.id)
            let now = r.current.map { JournalViews.amount(r.id, $0) + " " + (r.currentOrigin?.marker ?? "") } ?? "none"
            let arrow = r.kept ? "  " : "→ "
            let new = r.value.map { JournalViews.amount(r.id, $0) } ?? "none"
            let limit = r.limit.map { "\($0.kind) \(JournalViews.amount(r.id, $0.value))" } ?? "–"
            let basis = r.kept ? (r.basis == "no DRI" ? "no DRI: kept" : "kept") : r.basis
            lines.append("  " + pad(name, 20) + pad(now, 16) + arrow + pad(new, 14) + pad(basis, 26) + pad(limit, 16) + r.source)
        }
        let notes = plan.rows.filter { !$0.caveat.isEmpty && (caveatMatters($0)) }
        if !notes.isEmpty {
            lines.append("Notes:")
            for r in notes { lines.append("  \(NutrientCatalog.displayName(r.id)): \(r.caveat)") }
        }
        lines.append("Sources: NASEM Dietary Reference Intakes summary tables (RDA, AI, UL; sodium CDRR 2019), with each report's year;")
        lines.append("  protein as g per kg of body weight (RDA, macronutrient report 2002/2005); full list: Sources/Nutrition/Resources/PROVENANCE.md.")
        if plan.changes {
            lines.append("Approving replaces the goals shown as → (the rest stay as they are); ofj undo puts them back in one step.")
        } else {
            lines.append("These are already your goals: nothing would change.")
        }
        return lines.joined(separator: "\n")
    }

    /// "mon–fri 2,200 kcal, sat–sun 2,500 kcal": runs of days with the same target.
    public static func weekdayText(_ w: [Int: Double]) -> String {
        var parts: [String] = []
        var d = 1
        while d <= 7 {
            guard let v = w[d] else { d += 1; continue }
            var e = d
            while e < 7, w[e + 1] == v { e += 1 }
            let name = GoalSources.weekdayNames[d - 1] + (e > d ? "–" + GoalSources.weekdayNames[e - 1] : "")
            parts.append("\(name) \(JournalViews.amount("energy_kcal", v))")
            d = e + 1
        }
        return parts.joined(separator: ", ") + (w.count < 7 ? "; other days the calorie goal" : "")
    }

    /// Caveats that change what a figure means (units, supplements only, no DRI), not advice.
    static func caveatMatters(_ r: TargetRow) -> Bool {
        r.kept || ["vitamin_a_mcg", "folate_mcg", "vitamin_e_mg", "niacin_mg", "magnesium_mg", "sodium_mg", "protein_g", "vitamin_d_mcg"].contains(r.id)
    }

    static func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
}
