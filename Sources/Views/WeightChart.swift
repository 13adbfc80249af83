// `ofj trend weight`: the weigh-ins as bars with the smoothed trend marked on each row, drawn with
// the trend chart's bars (Charts.bar) over a baseline just below the lightest reading, since bars
// from zero would make a kilogram invisible.
import Base
import Foundation
import Nutrition

extension Charts {
    /// One row a day from `from` to `to`: the day's mean weigh-in as a bar, the trend as the row's
    /// mark (│), the values in the profile's units, and the weekly rate at the end.
    public static func weight(_ points: [TrendPoint], from: CalendarDay, to: CalendarDay, profile: Profile,
                              weeklyRateKg: Double?, options: ChartOptions) -> String {
        let style = options.style
        let shown = points.filter { $0.day >= from && $0.day <= to }
        let unit = profile.unitSystem == .imperial ? "lb" : "kg"
        var lines = [style.bold("Weight, \(unit)") + " · \(from) to \(to)"]
        lines.append("bar: the day's weigh-ins (their mean) · \(options.unicode ? "│" : "|") the smoothed trend")
        guard !shown.isEmpty else {
            lines.append("No weigh-ins in this range. Log one with: ofj weight 80.4")
            return finish(lines, options)
        }
        let values = shown.flatMap { [$0.mean, $0.trend] }
        let low = values.min() ?? 0, high = values.max() ?? 0
        // A baseline a little below the lightest value, so the differences fill the bars.
        let spread = max(high - low, 0.5)
        let base = low - spread * 0.25
        let byDay = Dictionary(uniqueKeysWithValues: shown.map { ($0.day, $0) })
        let withYear = from.year != to.year
        var rows: [(label: String, point: TrendPoint?)] = []
        var d = from
        while d <= to {
            let bar = TrendBar(start: d, end: d, value: nil, fraction: nil, loggedDays: 0, reportingDays: 0)
            rows.append((label(bar, .day, withYear: withYear), byDay[d]))
            guard let next = try? d.adding(days: 1) else { break }
            d = next
        }
        let labelWidth = rows.map(\.label.count).max() ?? 0
        let texts = rows.map { r in r.point.map { "\(profile.weightText($0.mean)) · trend \(profile.weightText($0.trend))" } ?? "" }
        let tailWidth = max(12, texts.map(\.count).max() ?? 0)
        let cells = max(10, min(60, options.width - labelWidth - 2 - tailWidth))
        let scale = high - base
        for (i, r) in rows.enumerated() {
            let label = r.label.padding(toLength: labelWidth, withPad: " ", startingAt: 0)
            guard let p = r.point else {
                lines.append((label + " " + String(repeating: " ", count: cells) + " " + style.dim("no weigh-in")).trimmingTrailingSpaces())
                continue
            }
            let mark = markColumn(goal: p.trend - base, scale: scale, cells: cells)
            let drawn = String(bar(p.mean - base, scale: scale, cells: cells, mark: mark, unicode: options.unicode))
            lines.append((label + " " + style.cyan(drawn) + " " + texts[i]).trimmingTrailingSpaces())
        }
        if let last = shown.last {
            var summary = "Trend \(profile.weightText(last.trend)) on \(last.day)"
            if let rate = weeklyRateKg { summary += "; \(rate < 0 ? "−" : "+")\(profile.weightText(abs(rate), places: 2)) a week (last 28 days)" }
            lines.append(summary + ".")
        }
        return finish(lines, options)
    }
}
