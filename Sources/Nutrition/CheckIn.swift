// The goal check-in: a calorie target proposed from the expenditure estimate and the goal rate,
// never below a floor (pure; the caller shows it on an approval card and applies it only when approved).
import Base
import Foundation

/// What a check-in proposes, with its one-line reasoning.
public struct CheckInProposal: Sendable, Hashable {
    public var expenditureKcal: Double
    /// The weekly change the goal asks for in kg (negative to lose).
    public var kgPerWeek: Double
    /// The target before the floor, and the proposed target (rounded to 10 kcal).
    public var rawTargetKcal: Double
    public var targetKcal: Double
    /// The floor that applied (nil when the target is above it).
    public var floorApplied: Double?
    public var currentGoalKcal: Double?
    public var reasoning: String
    /// The current goal is within `CheckIn.tolerance` of the target: nothing worth changing.
    public var isNoChange: Bool
}

/// Why a check-in cannot propose anything yet: one line saying what to do.
public struct CheckInUnavailable: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A new calorie target = expenditure + the goal's weekly change × 7,700 kcal/kg ÷ 7.
///
/// **Floor**: 1,200 kcal a day for women, 1,500 for men (and when sex is not set): the intakes
/// below which common clinical guidance (e.g. the NIH/NHLBI obesity guidelines' low-calorie diets
/// of 1,000–1,200 kcal for women and 1,200–1,600 for men) says a diet needs medical supervision, because
/// below them it is hard to meet nutrient needs. A target under the floor is raised to it, and the
/// reasoning says so and what rate the floor gives instead.
public enum CheckIn {
    public static func floor(for sex: Sex?) -> Double { sex == .female ? 1_200 : 1_500 }
    /// A goal within this many kcal of the target is left alone (a week's noise, not a change).
    public static let tolerance = 50.0

    public static func propose(estimate e: ExpenditureEstimate, profile: Profile, currentGoalKcal: Double?) throws -> CheckInProposal {
        guard let goal = profile.goal else {
            throw CheckInUnavailable("no weight goal: set one with ofj profile set goal=lose rate=0.5kg/week (or goal=maintain)")
        }
        let rate = goal == .maintain ? 0 : (profile.rateKgPerWeek ?? 0)
        guard goal == .maintain || rate > 0 else {
            throw CheckInUnavailable("goal=\(goal.rawValue) has no rate: set one with ofj profile set rate=0.5kg/week")
        }
        guard let expenditure = e.expenditureKcal else {
            var needs: [String] = []
            if e.needsIntakeDays > 0 { needs.append("\(e.needsIntakeDays) more logged days") }
            if e.needsWeighIns > 0 { needs.append("\(e.needsWeighIns) more weigh-ins") }
            if e.needsSpanDays > 0 && e.needsWeighIns == 0 { needs.append("weigh-ins over \(e.needsSpanDays) more days") }
            throw CheckInUnavailable("not enough data for an expenditure estimate yet: needs \(needs.joined(separator: " and ")) (ofj expenditure)")
        }
        let kgPerWeek = goal == .lose ? -rate : rate
        let raw = Expenditure.target(expenditure: expenditure, kgPerWeek: kgPerWeek)
        let floor = floor(for: profile.sex)
        let target = (max(raw, floor) / 10).rounded() * 10
        let units = profile.unitSystem
        func weight(_ kg: Double) -> String {
            let u: WeightUnit = units == .imperial ? .lb : .kg
            return "\(u.amount(kg).rounded(places: 2).formattedAmount) \(u.rawValue)"
        }
        let plan = goal == .maintain ? "to maintain your weight" : "to \(goal.rawValue) \(weight(rate)) a week"
        let delta = abs(raw - expenditure)
        var reasoning = "Your expenditure is \(grouped(expenditure)) kcal a day (± \(grouped(e.uncertaintyKcal ?? 0)), \(e.confidence?.rawValue ?? "low") confidence); "
        if goal == .maintain {
            reasoning += "\(plan) eat about that: \(grouped(target)) kcal."
        } else {
            let direction = goal == .lose ? "less" : "more"
            if raw < floor {
                let actual = max(0, (expenditure - floor) / Expenditure.kcalPerKg * 7)
                let who = profile.sex == .female ? "women" : profile.sex == .male ? "men" : "men (sex not set)"
                reasoning += "\(plan) would take \(grouped(raw)) kcal (\(grouped(delta)) \(direction)), below the floor of \(grouped(floor)) kcal for \(who): \(grouped(target)) kcal, losing about \(weight(actual)) a week."
            } else {
                reasoning += "\(plan) eat \(grouped(delta)) kcal \(direction) (7,700 kcal per kg ÷ 7 days): \(grouped(target)) kcal."
            }
        }
        let noChange = currentGoalKcal.map { abs($0 - target) < tolerance } ?? false
        return CheckInProposal(expenditureKcal: expenditure, kgPerWeek: kgPerWeek, rawTargetKcal: raw, targetKcal: target,
                               floorApplied: raw < floor ? floor : nil, currentGoalKcal: currentGoalKcal, reasoning: reasoning, isNoChange: noChange)
    }

    /// "2,510": a whole number with thousands separators.
    public static func grouped(_ value: Double) -> String {
        let n = Int(value.rounded())
        let digits = String(abs(n))
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return (n < 0 ? "-" : "") + out
    }
}
