// `ofj report`: one self-contained HTML file to share (inline CSS and SVG, no scripts, no
// network): daily energy and macros against the goals, nutrients below their Daily Value on
// average with the foods that gave the most, and the not-medical-advice note.
import Base
import Foundation
import Journal
import Nutrition
import OutputSafety

/// What a report shows; the command gathers it, `HTMLReport.render` only formats it.
public struct ReportData: Sendable {
    public let summary: RangeSummary
    public let goals: Goals
    /// Nutrients below their Daily Value (threshold 1), each with its top contributors.
    public let gaps: GapReport
    public let generated: CalendarDay
    /// Where each goal comes from (FDA default, the profile's DRIs, the person).
    public var sources: GoalSources
    /// The nutrients of the headline table (config.json's "pinned"); nil: calories and macros.
    public var pinned: [String]? = nil

    /// The weight trend over the range (nil: no weigh-ins in it, and the report says nothing of weight).
    public var weight: ReportWeight? = nil

    public init(summary: RangeSummary, goals: Goals, gaps: GapReport, generated: CalendarDay, sources: GoalSources = GoalSources(), pinned: [String]? = nil) {
        self.summary = summary; self.goals = goals; self.gaps = gaps; self.generated = generated; self.sources = sources; self.pinned = pinned
    }
}

/// The weight trend of a report's range: the trend at its first and last weigh-in and the weekly rate.
public struct ReportWeight: Sendable {
    public let first: TrendPoint
    public let last: TrendPoint
    /// Weigh-ins in the range.
    public let weighIns: Int
    /// The least-squares rate over the range's daily means, kg a week (nil when they span less than a week).
    public let weeklyRateKg: Double?
    /// The person's units for display.
    public let profile: Profile

    /// From the trend over every weigh-in up to `to` (so the trend has its history); nil without a weigh-in in the range.
    public init?(trend points: [TrendPoint], from: CalendarDay, to: CalendarDay, profile: Profile) {
        let shown = points.filter { $0.day >= from && $0.day <= to }
        guard let first = shown.first, let last = shown.last else { return nil }
        self.first = first; self.last = last; self.profile = profile
        weighIns = shown.reduce(0) { $0 + $1.weighIns }
        weeklyRateKg = WeightTrend.slopePerDay(shown, endingOn: to, days: from.days(to: to) + 1).map { $0 * 7 }
    }

    /// "Trend 81.5 kg on 2026-11-02, 80.9 kg on 2026-11-30 · −0.15 kg a week · 12 weigh-ins".
    public var line: String {
        var parts = [first.day == last.day ? "Trend \(profile.weightText(last.trend)) on \(last.day)"
                     : "Trend \(profile.weightText(first.trend)) on \(first.day), \(profile.weightText(last.trend)) on \(last.day)"]
        if let r = weeklyRateKg { parts.append("\(r < 0 ? "−" : "+")\(profile.weightText(abs(r), places: 2)) a week") }
        parts.append(weighIns == 1 ? "1 weigh-in" : "\(weighIns) weigh-ins")
        return parts.joined(separator: " · ")
    }
}

public enum HTMLReport {
    public static let notMedicalAdvice = """
        Not medical advice. ofj is a food journal, not a medical device: these numbers come from what was logged \
        and from reference data, and may be incomplete or wrong. Talk to a doctor or a registered dietitian \
        before changing what you eat because of them.
        """

    /// The colours the charts use (the render check looks for the bar and goal colours).
    static let barColour = "#2f6db5"
    static let overColour = "#b5472f"
    static let goalColour = "#e07b00"

    static let css = """
        body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d1d1f;background:#fff;margin:0}
        main{max-width:780px;margin:0 auto;padding:24px 20px 40px}
        h1{font-size:1.6em;margin:0 0 4px}h2{font-size:1.2em;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
        .period{color:#555;margin:0 0 16px}
        table{border-collapse:collapse;width:100%;font-size:.92em}
        th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #eee;vertical-align:top}
        td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
        figure{margin:8px 0 4px}figcaption{color:#555;font-size:.85em}
        svg{display:block;width:100%;height:auto}
        svg text{font-family:inherit;font-size:11px;fill:#555}
        .over{color:#8a2b17;font-weight:600}.short{color:#7a5600}
        .note{border:2px solid #e07b00;border-radius:6px;padding:10px 14px;margin-top:28px;background:#fff8ec}
        small{color:#666}
        """

    public static func render(_ data: ReportData) -> String {
        let s = data.summary
        var body: [String] = []
        body.append("<h1>Nutrition report</h1>")
        body.append("<p class=\"period\">\(s.from) to \(s.to) · \(s.loggedDayCount) of \(s.days.count) days logged · made with ofj on \(data.generated)</p>")

        let core = NutrientCatalog.coreIDs
        let tag = data.sources.tag(data.goals, ids: core)
        if !tag.isEmpty {
            body.append("<p class=\"period\">Goals: \(escape(tag)) · \(escape(data.sources.legend(data.goals, ids: core)))</p>")
        }
        body.append("<h2>Energy each day</h2>")
        body.append(chart(s, id: "energy_kcal", goal: data.goals["energy_kcal"], height: 200))

        body.append("<h2>Macronutrients</h2>")
        body.append(macroTable(s, goals: data.goals, pinned: data.pinned))
        for id in ["protein_g", "carbohydrate_g", "fat_g"] {
            body.append("<h3>\(escape(NutrientCatalog.displayName(id))), g a day</h3>")
            body.append(chart(s, id: id, goal: data.goals[id], height: 130))
        }

        if let w = data.weight {
            body.append("<h2>Weight</h2>")
            body.append("<p>\(escape(w.line)) <small>(smoothed trend; rate: least squares over the days weighed in this range)</small></p>")
        }

        body.append(data.gaps.personalTargets ? "<h2>Below your targets on average</h2>" : "<h2>Below the Daily Value on average</h2>")
        body.append(gapTable(data.gaps))

        body.append("<p class=\"note\" role=\"note\"><strong>Not medical advice.</strong> \(escape(String(notMedicalAdvice.dropFirst("Not medical advice. ".count))))</p>")
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
            <title>Nutrition report, \(s.from) to \(s.to)</title>
            <style>
            \(css)
            </style>
            </head>
            <body>
            <main>
            \(body.joined(separator: "\n"))
            </main>
            </body>
            </html>

            """
    }

    // MARK: - Charts

    static func f(_ v: Double) -> String { String(format: "%.1f", v) }

    /// A bar per day of `id` against its goal (a dashed line). Days without entries have no bar;
    /// days whose entries do not report the nutrient get a grey mark under the axis.
    static func chart(_ s: RangeSummary, id: String, goal: Double?, height: Double) -> String {
        let name = id == "energy_kcal" ? "Calories" : NutrientCatalog.displayName(id)
        let unit = NutrientCatalog.nutrient(id)?.unit.rawValue ?? ""
        let width = 760.0, left = 52.0, right = 8.0, top = 10.0, bottom = 26.0
        let plotW = width - left - right, plotH = height - top - bottom
        let values: [Double?] = s.days.map { d in (d.totals.reportedCounts[id] ?? 0) > 0 ? d.totals.amounts[id] : nil }
        let maxValue = max(values.compactMap { $0 }.max() ?? 0, goal ?? 0)
        let scale = maxValue > 0 ? maxValue * 1.1 : 1
        let n = max(1, s.days.count)
        let slot = plotW / Double(n)
        let barW = max(1, slot * (n > 60 ? 1 : 0.75))
        let baseY = top + plotH
        var parts: [String] = []
        parts.append("<svg viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\" aria-label=\"\(escape(name)) each day, \(s.from) to \(s.to)\">")
        parts.append("<line x1=\"\(f(left))\" y1=\"\(f(baseY))\" x2=\"\(f(width - right))\" y2=\"\(f(baseY))\" stroke=\"#999\" stroke-width=\"1\"/>")
        parts.append("<text x=\"\(f(left - 6))\" y=\"\(f(baseY))\" text-anchor=\"end\">0</text>")
        // The scale's top, unless the goal's label would sit on it.
        if goal.map({ abs((baseY - $0 / scale * plotH) - top) >= 14 }) ?? true {
            parts.append("<text x=\"\(f(left - 6))\" y=\"\(f(top + 8))\" text-anchor=\"end\">\(escape(Charts.value(scale)))</text>")
        }
        for (i, d) in s.days.enumerated() {
            let x = left + Double(i) * slot + (slot - barW) / 2
            if let v = values[i] {
                // A reported zero is a sliver, not nothing (nothing means no entries).
                let h = max(1.5, v / scale * plotH)
                let over = goal.map { Goals.direction(id) == .limit && v > $0 } ?? false
                parts.append("<rect x=\"\(f(x))\" y=\"\(f(baseY - h))\" width=\"\(f(barW))\" height=\"\(f(h))\" fill=\"\(over ? overColour : barColour)\">"
                             + "<title>\(d.day): \(escape(JournalViews.amount(id, v)))</title></rect>")
            } else if d.entryCount > 0 {
                parts.append("<rect x=\"\(f(x))\" y=\"\(f(baseY + 2))\" width=\"\(f(barW))\" height=\"3\" fill=\"#aaa\">"
                             + "<title>\(d.day): logged, \(escape(name.lowercased())) not reported</title></rect>")
            }
        }
        if let goal {
            let y = baseY - goal / scale * plotH
            parts.append("<line x1=\"\(f(left))\" y1=\"\(f(y))\" x2=\"\(f(width - right))\" y2=\"\(f(y))\" stroke=\"\(goalColour)\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>")
            parts.append("<text x=\"\(f(left - 6))\" y=\"\(f(y + 4))\" text-anchor=\"end\" style=\"fill:\(goalColour)\">goal</text>")
        }
        // Dates under the axis: first, middle and last day.
        let ticks = n >= 3 ? [0, n / 2, n - 1] : Array(0..<n)
        for i in ticks where i < s.days.count {
            let x = left + (Double(i) + 0.5) * slot
            let anchor = i == 0 ? "start" : (i == n - 1 ? "end" : "middle")
            let tx = i == 0 ? left : (i == n - 1 ? width - right : x)
            parts.append("<text x=\"\(f(tx))\" y=\"\(f(height - 8))\" text-anchor=\"\(anchor)\">\(s.days[i].day)</text>")
        }
        parts.append("</svg>")
        let goalText = goal.map { "The dashed line is the goal, \(escape(JournalViews.amount(id, $0)))." } ?? "No goal is set."
        let caption = "\(escape(name)) (\(unit)) each day. \(goalText) No bar: nothing logged that day; a grey mark under the axis: entries that do not report it."
            + (Goals.direction(id) == .limit && goal != nil ? " A limit: days over it are drawn in red-brown." : "")
        return "<figure>\n" + parts.joined(separator: "\n") + "\n<figcaption>\(caption)</figcaption>\n</figure>"
    }

    // MARK: - Tables

    static func days(_ n: Int, of total: Int) -> String { n == total ? "all \(total)" : "\(n) of \(total)" }

    static func macroTable(_ s: RangeSummary, goals: Goals, pinned: [String]? = nil) -> String {
        var rows = ["<table>", "<tr><th>Nutrient</th><th class=\"n\">Average a day</th><th class=\"n\">Goal</th><th class=\"n\">Of the goal</th><th class=\"n\">Logged days reporting it</th></tr>"]
        for id in pinned ?? JournalViews.mainNutrients {
            let name = id == "energy_kcal" ? "Calories" : NutrientCatalog.displayName(id)
            let avg = s.dailyAverages[id]
            let goal = goals[id]
            var share = "–"
            if let avg, let goal, goal > 0 {
                let frac = avg / goal
                let cls = Goals.direction(id) == .limit ? (frac > 1 ? " class=\"over\"" : "") : (frac < 0.8 ? " class=\"short\"" : "")
                share = "<span\(cls)>\(Charts.percent(frac))\(Goals.direction(id) == .limit && frac > 1 ? " (over the limit)" : "")</span>"
            }
            rows.append("<tr><td>\(escape(name))</td><td class=\"n\">\(avg.map { escape(JournalViews.amount(id, $0)) } ?? "not reported")</td>"
                        + "<td class=\"n\">\(goal.map { escape(JournalViews.amount(id, $0)) } ?? "–")</td><td class=\"n\">\(share)</td>"
                        + "<td class=\"n\">\(days(s.reportingDays(id), of: s.loggedDayCount))</td></tr>")
        }
        rows.append("</table>")
        rows.append("<p><small>Each average divides by the logged days that report the nutrient: a day without entries, or whose entries do not report it, is not counted as zero.</small></p>")
        return rows.joined(separator: "\n")
    }

    static func gapTable(_ g: GapReport) -> String {
        var out: [String] = []
        if g.gaps.isEmpty {
            out.append(g.loggedDays == 0 ? "<p>Nothing was logged in this period.</p>"
                       : "<p>No nutrient with a Daily Value to reach averaged below it over the days that report it.</p>")
        } else {
            out.append("<table>")
            let head = g.personalTargets ? "<th class=\"n\">Your target</th><th class=\"n\">Of the target</th>" : "<th class=\"n\">Daily Value</th><th class=\"n\">Of the DV</th>"
            out.append("<tr><th>Nutrient</th><th class=\"n\">Average a day</th>\(head)<th class=\"n\">Days reporting it</th><th>Foods that gave the most</th></tr>")
            for gap in g.gaps {
                let foods = gap.contributors.isEmpty ? "–" : gap.contributors.map { c in
                    escape(clean(c.name)) + (c.brand.map { " (\(escape(clean($0))))" } ?? "") + " <small>" + escape(JournalViews.amount(gap.nutrient, c.amount)) + "</small>"
                }.joined(separator: "<br>")
                out.append("<tr><td>\(escape(gap.name))</td><td class=\"n\">\(escape(JournalViews.amount(gap.nutrient, gap.average)))</td>"
                           + "<td class=\"n\">\(escape(JournalViews.amount(gap.nutrient, gap.reference)))"
                           + (g.personalTargets ? " <small>\((gap.targetOrigin ?? .fdaDefault).marker)</small>" : "") + "</td>"
                           + "<td class=\"n\"><span class=\"short\">\(Charts.percent(gap.fraction))</span></td>"
                           + "<td class=\"n\">\(days(gap.reportingDays, of: g.loggedDays))</td><td>\(foods)</td></tr>")
            }
            out.append("</table>")
            let basis = g.personalTargets
                ? "Targets are your goals: DRI = from your profile (NASEM Dietary Reference Intakes), you = set by you, FDA = the FDA Daily Value default (21 CFR 101.9)."
                : "Daily Values are the FDA's (21 CFR 101.9), the defaults for everyone."
            out.append("<p><small>\(basis) Foods are the journal's entries over the period, by the amount of the nutrient they gave.</small></p>")
        }
        if !g.notReported.isEmpty {
            out.append("<p>Not reported by any entry in this period (unknown, not zero): "
                       + g.notReported.map { escape(NutrientCatalog.displayName($0)) }.joined(separator: ", ") + ".</p>")
        }
        return out.joined(separator: "\n")
    }

    // MARK: - Text

    /// A journal name without control characters or bidi overrides.
    static func clean(_ s: String) -> String { TerminalText.sanitize(s, keepNewlines: false) }

    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.count)
        for ch in s {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(ch)
            }
        }
        return out
    }
}
