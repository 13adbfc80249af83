// What `ofj expenditure` shows: the estimate with its window, the days used and left out, the
// weigh-ins and the energy balance written out, or how much more data it needs; and its JSON.
import Base
import Foundation
import Nutrition

public enum ExpenditureView {
    /// `ofj expenditure --json`: every figure of the estimate, `needs` when there is none yet.
    public static func json(_ e: ExpenditureEstimate) -> JSONValue {
        func number(_ v: Double?, _ places: Int) -> JSONValue { v.map { .number($0.rounded(places: places)) } ?? .null }
        var o: [String: JSONValue] = [
            "date": .string(e.date.description),
            "expenditure_kcal": e.expenditureKcal.map { .number($0.rounded()) } ?? .null,
            "uncertainty_kcal": e.uncertaintyKcal.map { .number($0.rounded()) } ?? .null,
            "confidence": e.confidence.map { .string($0.rawValue) } ?? .null,
            "window_start": .string(e.windowStart.description),
            "window_days": .number(Double(e.windowDays)),
            "intake_days": .number(Double(e.intakeDays)),
            "left_out_days": .number(Double(e.leftOutDays)),
            "left_out": .object(["not_logged": .number(Double(e.unloggedDays)), "marked_incomplete": .number(Double(e.incompleteDays)),
                                 "no_energy": .number(Double(e.noEnergyDays)), "today_in_progress": .number(Double(e.inProgressDays))]),
            "weigh_ins": .number(Double(e.weighIns)),
            "weigh_in_days": .number(Double(e.weighInDays)),
            "mean_intake_kcal": number(e.meanIntakeKcal, 0),
            "trend_kg_per_day": number(e.trendKgPerDay, 4),
            "energy_density_kcal_per_kg": .number(Expenditure.kcalPerKg),
            "gap": e.gap.map { .object(["from": .string($0.lowerBound.description), "to": .string($0.upperBound.description)]) } ?? .null,
            "method": .string("mean intake of counted days - 7700 kcal/kg x least-squares slope of daily mean weights (corrected for the intake swings before each), over up to 56 days"),
        ]
        if e.expenditureKcal == nil {
            o["needs"] = .object(["logged_days": .number(Double(e.needsIntakeDays)), "weigh_ins": .number(Double(e.needsWeighIns)),
                                  "weigh_in_span_days": .number(Double(e.needsSpanDays))])
        }
        return .object(o)
    }

    /// `ofj expenditure`: the estimate (or what it needs), the window, intake, weight and the sum itself.
    public static func text(_ e: ExpenditureEstimate, profile: Profile) -> String {
        func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
        var lines: [String] = []
        let window = "\(e.windowStart) – \(e.date) (\(plural(e.windowDays, "day")))"
        if let kcal = e.expenditureKcal, let u = e.uncertaintyKcal, let c = e.confidence {
            lines.append("Expenditure on \(e.date): \(grouped(kcal)) kcal a day (± \(grouped(u)), \(c.rawValue) confidence)")
        } else {
            lines.append("Expenditure on \(e.date): not enough data yet")
            var needs: [String] = []
            if e.needsIntakeDays > 0 { needs.append("\(e.needsIntakeDays) more logged day\(e.needsIntakeDays == 1 ? "" : "s")") }
            if e.needsWeighIns > 0 { needs.append("\(e.needsWeighIns) more weigh-in\(e.needsWeighIns == 1 ? "" : "s") (on different days)") }
            if e.needsSpanDays > 0 && e.needsWeighIns == 0 { needs.append("weigh-ins over \(e.needsSpanDays) more day\(e.needsSpanDays == 1 ? "" : "s")") }
            lines.append("  needs      " + needs.joined(separator: " and ") + " (in all: 14 logged days, weigh-ins on 8 days covering 2 weeks)")
        }
        lines.append("  window     " + window)
        if let g = e.gap {
            lines.append("  gap        nothing logged \(g.lowerBound) – \(g.upperBound): only the stretch after it is used")
        }
        var leftOut: [String] = []
        if e.unloggedDays > 0 { leftOut.append("\(e.unloggedDays) not logged") }
        if e.incompleteDays > 0 { leftOut.append("\(e.incompleteDays) marked incomplete") }
        if e.noEnergyDays > 0 { leftOut.append("\(e.noEnergyDays) without energy") }
        if e.inProgressDays > 0 { leftOut.append("today, still being logged") }
        let intake = e.meanIntakeKcal.map { "\(grouped($0)) kcal a day on " } ?? ""
        lines.append("  intake     \(intake)\(plural(e.intakeDays, "logged day"))" + (leftOut.isEmpty ? "" : "; left out \(e.leftOutDays) (\(leftOut.joined(separator: ", ")))"))
        var weight = "\(plural(e.weighIns, "weigh-in")) on \(plural(e.weighInDays, "day"))"
        if let slope = e.trendKgPerDay {
            let week = slope * 7
            weight = "trend \(signed(profile.weightText(abs(week), places: 2), week))/week (\(signed(String(format: "%.3f", abs(slope)), slope)) kg a day) from " + weight
        }
        lines.append("  weight     " + weight)
        if let kcal = e.expenditureKcal, let mean = e.meanIntakeKcal, let slope = e.trendKgPerDay {
            lines.append("  balance    \(grouped(mean)) − 7,700 kcal/kg × (\(signed(String(format: "%.4f", abs(slope)), slope)) kg a day) = \(grouped(kcal)) kcal a day")
        }
        lines.append("7,700 kcal per kg of weight change: the energy in body fat tissue (ofj expenditure --help says why).")
        return lines.joined(separator: "\n")
    }

    static func signed(_ magnitude: String, _ value: Double) -> String { (value < 0 ? "−" : "+") + magnitude }

    static func grouped(_ value: Double) -> String { CheckIn.grouped(value) }
}
