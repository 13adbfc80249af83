// Personal targets from the profile: the DRIs of the person's life-stage group, energy from
// Mifflin–St Jeor × activity (until an expenditure estimate replaces it), protein per kg of body
// weight, per-weekday calorie targets. Pure: the card shows the plan, approval stores it whole.
import Base
import Foundation

/// The day's energy target and how it was reached (nil kcal: not estimated, `method` says why).
public struct EnergyTarget: Sendable, Hashable {
    public let kcal: Double?
    /// The equation or estimate in words, with its figures.
    public let method: String
    /// Extra lines (pregnancy and lactation add-ons) the card shows under the method.
    public let notes: [String]
}

/// One nutrient on the card: what it is now, what it becomes, and where that comes from.
public struct TargetRow: Sendable, Hashable {
    public let id: String
    public let current: Double?
    public let currentOrigin: GoalOrigin?
    /// The new goal; equal to `current` when `kept`.
    public let value: Double?
    /// True when the DRIs give nothing to set (no DRI, or energy not estimated): the goal stays.
    public let kept: Bool
    /// "RDA", "AI", "CDRR", "AMDR", "RDA 0.8 g/kg", "Mifflin–St Jeor", "no DRI".
    public let basis: String
    /// The source table and report year, short ("Elements RDA/AI, 2001").
    public let source: String
    public let limit: UpperLimit?
    public let caveat: String
}

/// What `ofj goals from-profile` proposes, complete: approving it stores `goals` and `sources`.
public struct TargetPlan: Sendable, Hashable {
    public let group: DRIGroup
    public let ageYears: Int
    public let weightKg: Double?
    public let energy: EnergyTarget
    public let rows: [TargetRow]
    public let weekdayEnergy: [Int: Double]
    public let goals: Goals
    public let sources: GoalSources
    /// Whether approving it changes anything.
    public let changes: Bool
}

public enum PersonalTargets {
    /// The profile keys `goals from-profile` needs (empty when it has them all).
    public static func missingFields(_ p: Profile) -> [String] {
        var out: [String] = []
        if p.sex == nil { out.append("sex") }
        if p.birth == nil { out.append("birth") }
        if p.heightCm == nil { out.append("height") }
        if p.activity == nil { out.append("activity") }
        return out
    }

    /// Mifflin–St Jeor resting energy (kcal/day): 10 × kg + 6.25 × cm − 5 × years, +5 for men, −161 for women.
    public static func mifflinStJeor(sex: Sex, kg: Double, cm: Double, years: Int) -> Double {
        10 * kg + 6.25 * cm - 5 * Double(years) + (sex == .male ? 5 : -161)
    }

    /// The energy target. An expenditure estimate (kcal/day, from the person's own intake and
    /// weight trend) replaces the equation when given: this is the hook for `ofj expenditure`.
    public static func energy(profile: Profile, ageYears: Int, weightKg: Double?, expenditureKcal: Double? = nil) -> EnergyTarget {
        if let e = expenditureKcal, e.isFinite, e > 0 {
            return EnergyTarget(kcal: (e / 10).rounded() * 10, method: "your expenditure estimate (from your intake and weight trend): \(grouped(e.rounded())) kcal", notes: [])
        }
        guard let sex = profile.sex, let cm = profile.heightCm, let activity = profile.activity else {
            return EnergyTarget(kcal: nil, method: "not estimated: needs sex, height and activity in the profile", notes: [])
        }
        guard ageYears >= 18 else {
            return EnergyTarget(kcal: nil, method: "not estimated: Mifflin–St Jeor is an equation for adults (18+); the goal stays (set one with ofj goals set energy_kcal=…)", notes: [])
        }
        guard let kg = weightKg else {
            return EnergyTarget(kcal: nil, method: "not estimated: needs your weight (log a weigh-in with ofj weight KG)", notes: [])
        }
        let bmr = mifflinStJeor(sex: sex, kg: kg, cm: cm, years: ageYears)
        let kcal = (bmr * activity.factor / 10).rounded() * 10
        let kgText = kg.rounded(places: 1).formattedAmount, cmText = cm.rounded().formattedAmount
        let method = "Mifflin–St Jeor: 10 × \(kgText) kg + 6.25 × \(cmText) cm − 5 × \(ageYears) y \(sex == .male ? "+ 5" : "− 161") = "
            + "\(grouped(bmr.rounded())) kcal at rest × \(String(format: "%g", activity.factor)) (activity \(activity.rawValue)) = \(grouped(kcal)) kcal"
        var notes: [String] = []
        switch profile.lifeStage {
        case .pregnant?: notes.append("Pregnancy: add 340 kcal a day in the 2nd trimester and 452 in the 3rd (NASEM EER, 2005); not added: ofj does not know the trimester.")
        case .lactating?: notes.append("Lactation: add 330 kcal a day in the first 6 months, 400 after (NASEM EER, 2005); not added: set it with --weekdays or ofj goals set.")
        case nil: break
        }
        return EnergyTarget(kcal: kcal, method: method, notes: notes)
    }

    /// 2,160 or 0.9: thousands grouped, as the views print amounts.
    static func grouped(_ v: Double) -> String {
        let text = v.formattedAmount
        let intPart = text.prefix { $0 != "." }
        guard intPart.count > 3, !intPart.hasPrefix("-") else { return text }
        var out = ""
        for (i, c) in intPart.enumerated() {
            if i > 0 && (intPart.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out + text.dropFirst(intPart.count)
    }

    /// "Elements RDA/AI, 2001" from "DRI summary tables, Elements RDA/AI, NASEM; … (2001)".
    public static func shortSource(_ s: String) -> String {
        var table = s.components(separatedBy: ";").first ?? s
        table = table.replacingOccurrences(of: "DRI summary tables, ", with: "").replacingOccurrences(of: ", NASEM", with: "")
        guard let open = s.lastIndex(of: "("), let close = s.lastIndex(of: ")"), open < close else { return table }
        return table + ", " + s[s.index(after: open)..<close]
    }

    /// The plan for `profile` on `today`. `weightKg` is the weight trend's latest value;
    /// `expenditureKcal` an expenditure estimate when there is one. Throws when the profile lacks
    /// what the plan needs (see `missingFields`).
    public static func plan(profile: Profile, today: CalendarDay, weightKg: Double?, expenditureKcal: Double? = nil,
                            current: Goals, currentSources: GoalSources, weekdays: [Int: Double] = [:], table: DRITable) throws -> TargetPlan {
        let missing = missingFields(profile)
        guard missing.isEmpty, let sex = profile.sex, let birth = profile.birth, let years = profile.age(on: today) else {
            let list = missing.count == 1 ? missing[0] : missing.dropLast().joined(separator: ", ") + " and " + missing.last!
            throw ProfileError("goals from-profile needs \(list) in the profile; set \(missing.count == 1 ? "it" : "them") with: ofj profile set "
                + missing.map { ["sex": "sex=female|male", "birth": "birth=YYYY-MM-DD", "height": "height=170cm", "activity": "activity=moderate"][$0] ?? $0 }.joined(separator: " "))
        }
        let months = (today.year - birth.year) * 12 + today.month - birth.month - (today.day < birth.day ? 1 : 0)
        let group = DRIGroup.group(sex: sex, ageYears: years, ageMonths: months, lifeStage: profile.lifeStage)
        let energy = energy(profile: profile, ageYears: years, weightKg: weightKg, expenditureKcal: expenditureKcal)
        var rows: [TargetRow] = []
        var goals = current
        var sources = GoalSources(group: group, approvedOn: today)
        for id in table.nutrients {
            guard let dri = table.value(group, id) else { continue }
            let now = current[id]
            let nowOrigin = now == nil ? nil : currentSources.origin(of: id, in: current)
            let direction = Goals.direction(id)
            var value: Double?
            var basis = dri.intakeKind.rawValue
            var source = shortSource(dri.intakeSource)
            var limit: UpperLimit?
            if dri.limitKind != .none, let l = dri.limit {
                limit = UpperLimit(kind: dri.limitKind.rawValue, value: l, source: dri.limitSource, caveat: dri.caveat.isEmpty ? nil : dri.caveat)
            }
            switch id {
            case "energy_kcal":
                value = energy.kcal
                basis = expenditureKcal != nil ? "expenditure" : "Mifflin–St Jeor × " + String(format: "%g", profile.activity?.factor ?? 1)
                source = expenditureKcal != nil ? "ofj expenditure" : energy.kcal == nil ? "not estimated (see Energy)" : "Mifflin & St Jeor 1990"
            case "protein_g":
                if let kg = weightKg, dri.intake != nil {
                    value = (group.proteinPerKg * kg).rounded()
                    basis = "\(dri.intakeKind.rawValue) \(group.proteinPerKg.formattedAmount) g/kg × \(kg.rounded(places: 1).formattedAmount) kg"
                } else {
                    value = dri.intake
                    if dri.intake != nil { basis += " (reference weight)" }
                }
            case "fat_g" where energy.kcal != nil:
                let pct = years <= 3 ? 40.0 : 35.0
                value = (energy.kcal! * pct / 100 / 9).rounded()
                basis = "AMDR ≤\(Int(pct))% of energy"
            default:
                if direction == .limit {
                    // A limit goal (sodium) takes the DRI's limit; an intake to reach is not a limit.
                    value = limit?.value
                    if let l = limit {
                        basis = l.kind + (dri.intake.map { " (AI \(grouped($0)))" } ?? "")
                        source = shortSource(l.source)
                        limit = nil
                    }
                } else {
                    value = dri.intake
                }
            }
            let kept = value == nil
            if kept {
                if dri.intakeKind == .none, id != "energy_kcal" { basis = "no DRI" }
                value = now
            }
            if !kept, let v = value {
                goals = try goals.setting(id, to: v)
                sources.sources[id] = GoalSource(.profile, source: "\(basis), \(group.label); \(id == "energy_kcal" ? source : dri.intakeSource)")
            } else if let o = currentSources.sources[id] {
                sources.sources[id] = o
            }
            if let limit { sources.upperLimits[id] = limit }
            rows.append(TargetRow(id: id, current: now, currentOrigin: nowOrigin, value: value, kept: kept, basis: basis, source: source,
                                  limit: limit, caveat: dri.caveat))
        }
        // Goals the DRIs do not cover (water, caffeine, …) keep their origin.
        for id in current.ids where sources.sources[id] == nil && table.value(group, id) == nil {
            if let s = currentSources.sources[id] { sources.sources[id] = s }
        }
        sources.weekdayEnergy = weekdays.isEmpty && energy.kcal == nil ? currentSources.weekdayEnergy : weekdays
        let changes = goals != current || sources.upperLimits != currentSources.upperLimits || sources.weekdayEnergy != currentSources.weekdayEnergy
            || sources.sources != currentSources.sources
        return TargetPlan(group: group, ageYears: years, weightKg: weightKg, energy: energy, rows: rows, weekdayEnergy: sources.weekdayEnergy,
                          goals: goals, sources: sources, changes: changes)
    }
}
