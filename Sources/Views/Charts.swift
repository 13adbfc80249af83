// Terminal charts of the journal: `ofj trend` bars (per day, week or month, value printed, goal
// marked, days without entries left blank) and `ofj month`'s calendar. Meaning is carried by
// numbers and symbols; colour only adds. Unicode blocks when the locale is UTF-8, ASCII otherwise.
import Base
import Foundation
import Journal
import Nutrition
#if canImport(Glibc)
import Glibc
#endif

/// How a chart may draw: its width in columns, colour, and Unicode or ASCII.
public struct ChartOptions: Sendable, Hashable {
    public var width: Int
    public var color: Bool
    public var unicode: Bool

    public init(width: Int = 80, color: Bool = false, unicode: Bool = true) {
        self.width = max(40, width)
        self.color = color
        self.unicode = unicode
    }

    /// For stdout: the terminal's width (else COLUMNS, else 80), colour as `Style.detect`
    /// decides (a terminal without NO_COLOR), Unicode when the locale is UTF-8.
    public static func detect(environment: [String: String], fd: Int32 = STDOUT_FILENO) -> ChartOptions {
        let width = Terminal.isTTY(fd) ? Terminal.width() : (environment["COLUMNS"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil } ?? 80)
        return ChartOptions(width: width, color: Style.detect(environment: environment, fd: fd).enabled,
                            unicode: localeIsUTF8(environment))
    }

    /// Whether the locale the environment names (LC_ALL, then LC_CTYPE, then LANG) is UTF-8.
    public static func localeIsUTF8(_ environment: [String: String]) -> Bool {
        let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        let lower = locale.lowercased()
        return lower.contains("utf-8") || lower.contains("utf8")
    }

    var style: Style { Style(enabled: color) }
}

public enum TrendPeriod: String, Sendable, Codable, CaseIterable {
    case day, week, month
}

/// One bar: a day's total, or a week's or month's average a day over the days that report it.
public struct TrendBar: Sendable, Hashable, Codable {
    public let start: CalendarDay
    public let end: CalendarDay
    /// Nil when no day of the bar reports the nutrient (no entries, or entries without it).
    public let value: Double?
    /// value / goal, when both are known.
    public let fraction: Double?
    public let loggedDays: Int
    public let reportingDays: Int

    enum CodingKeys: String, CodingKey {
        case start, end, value, fraction, loggedDays = "logged_days", reportingDays = "reporting_days"
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(start, forKey: .start)
        try c.encode(end, forKey: .end)
        try c.encode(value, forKey: .value)
        try c.encode(fraction, forKey: .fraction)
        try c.encode(loggedDays, forKey: .loggedDays)
        try c.encode(reportingDays, forKey: .reportingDays)
    }
}

/// A nutrient over a range, as bars.
public struct Trend: Sendable, Hashable, Codable {
    public let nutrient: String
    public let name: String
    public let unit: String
    public let period: TrendPeriod
    public let from: CalendarDay
    public let to: CalendarDay
    public let goal: Double?
    public let direction: GoalDirection
    public let bars: [TrendBar]
    /// Average a day over the logged days of the range that report the nutrient.
    public let average: Double?
    public let reportingDays: Int
    public let loggedDays: Int
    /// Where the goal comes from (FDA default, the profile, the person); nil when not known.
    public var goalOrigin: GoalOrigin? = nil
    /// Day bars' goals by ISO weekday where a weekday target replaces `goal` (not encoded: each
    /// bar's `fraction` already uses it).
    public var weekdayGoals: [Int: Double] = [:]

    enum CodingKeys: String, CodingKey {
        case nutrient, name, unit, period, from, to, goal, direction, bars, average, reportingDays = "reporting_days",
             loggedDays = "logged_days", goalOrigin = "goal_origin"
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(nutrient, forKey: .nutrient)
        try c.encode(name, forKey: .name)
        try c.encode(unit, forKey: .unit)
        try c.encode(period, forKey: .period)
        try c.encode(from, forKey: .from)
        try c.encode(to, forKey: .to)
        try c.encode(goal, forKey: .goal)
        try c.encode(direction, forKey: .direction)
        try c.encode(bars, forKey: .bars)
        try c.encode(average, forKey: .average)
        try c.encode(reportingDays, forKey: .reportingDays)
        try c.encode(loggedDays, forKey: .loggedDays)
        try c.encodeIfPresent(goalOrigin, forKey: .goalOrigin)
    }

    /// Bars of `nutrient` from a range summary (which must include it): one per day, per ISO
    /// week (Monday first) or per calendar month, cut to the summary's range.
    /// `weekdayGoals` (ISO weekday → goal, the person's weekday calorie targets) replace `goal`
    /// for the day bars on their weekdays.
    public init(_ summary: RangeSummary, nutrient: String, goal: Double?, period: TrendPeriod, goalOrigin: GoalOrigin? = nil,
                weekdayGoals: [Int: Double] = [:]) {
        self.goalOrigin = goal == nil ? nil : goalOrigin
        self.weekdayGoals = period == .day ? weekdayGoals : [:]
        self.nutrient = nutrient
        name = NutrientCatalog.displayName(nutrient)
        unit = NutrientCatalog.nutrient(nutrient)?.unit.rawValue ?? ""
        self.period = period
        from = summary.from
        to = summary.to
        self.goal = goal
        direction = Goals.direction(nutrient)
        var bars: [TrendBar] = []
        var group: [DayTotals] = []
        func flush() {
            guard let first = group.first, let last = group.last else { return }
            var sum = 0.0, logged = 0, reporting = 0
            for d in group where d.entryCount > 0 {
                logged += 1
                if (d.totals.reportedCounts[nutrient] ?? 0) > 0 { reporting += 1; sum += d.totals.amounts[nutrient] ?? 0 }
            }
            let value = reporting > 0 ? sum / Double(reporting) : nil
            let barGoal = period == .day ? (weekdayGoals[first.day.isoWeekday] ?? goal) : goal
            let fraction = value.flatMap { v in barGoal.flatMap { $0 > 0 ? v / $0 : nil } }
            bars.append(TrendBar(start: first.day, end: last.day, value: value, fraction: fraction, loggedDays: logged, reportingDays: reporting))
            group = []
        }
        func key(_ d: CalendarDay) -> Int {
            switch period {
            case .day: return d.dayNumber
            case .week: return d.dayNumber - (d.isoWeekday - 1)
            case .month: return d.year * 12 + d.month
            }
        }
        for d in summary.days {
            if let first = group.first, key(first.day) != key(d.day) { flush() }
            group.append(d)
        }
        flush()
        self.bars = bars
        average = summary.dailyAverages[nutrient]
        reportingDays = summary.reportingDays(nutrient)
        loggedDays = summary.loggedDayCount
    }
}

public enum Charts {
    static let eighths = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]

    /// "1,850" / "54.2": a chart value without its unit (the heading names it).
    static func value(_ v: Double) -> String { JournalViews.number(v, places: v >= 100 ? 0 : 1) }

    static func percent(_ f: Double) -> String { JournalViews.number(f * 100, places: 0) + "%" }

    static func unitLabel(_ id: String) -> String {
        guard let unit = NutrientCatalog.nutrient(id)?.unit.rawValue else { return "" }
        return unit
    }

    /// "Mon 11-24"; "Mon 2025-11-24" when the chart spans more than one year.
    static func label(_ bar: TrendBar, _ period: TrendPeriod, withYear: Bool = false) -> String {
        switch period {
        case .day:
            return JournalViews.weekdayName(bar.start) + " " + (withYear ? bar.start.description : String(bar.start.description.dropFirst(5)))
        case .week:
            // The Monday of the week, even when the range starts later in that week.
            let monday = (try? bar.start.adding(days: -(bar.start.isoWeekday - 1))) ?? bar.start
            return "wk " + monday.description
        case .month:
            return String(bar.start.description.prefix(7))
        }
    }

    /// A bar of `cells` columns for `v`: the first `cells - 1` columns hold `scale`, so the goal
    /// mark (at the column just past a bar exactly at the goal) always fits.
    static func bar(_ v: Double?, scale: Double, cells: Int, mark: Int?, unicode: Bool) -> [Character] {
        var out = Array(repeating: Character(" "), count: cells)
        let area = cells - 1
        if let v, v > 0, scale > 0 {
            let units = unicode ? 8 : 1
            let filled = min(area * units, (v / scale * Double(area * units)).clampedInt)
            let full = filled / units
            for i in 0..<full { out[i] = unicode ? "█" : "#" }
            if unicode, filled % 8 > 0, full < area, let c = eighths[filled % 8].first { out[full] = c }
            // Something eaten never draws as nothing.
            if filled == 0 { out[0] = unicode ? "▏" : "#" }
        }
        if let mark, mark >= 0, mark < cells {
            out[mark] = unicode ? (out[mark] == " " ? "│" : "┃") : "|"
        }
        return out
    }

    /// Where the goal mark goes: the column just past a bar exactly at the goal.
    static func markColumn(goal: Double?, scale: Double, cells: Int) -> Int? {
        guard let goal, scale > 0, (goal / scale).isFinite else { return nil }
        return min(cells - 1, (goal / scale * Double(cells - 1)).clampedInt)
    }

    /// One chart: a heading, a bar per day/week/month with its value and % of the goal, and the
    /// average over the days that report the nutrient. Rows without entries stay blank.
    public static func trend(_ trend: Trend, options: ChartOptions) -> String {
        let style = options.style
        let id = trend.nutrient
        let unit = unitLabel(id)
        let name = id == "energy_kcal" ? "Calories" : NutrientCatalog.displayName(id)
        let lowerName = id == "energy_kcal" ? "calories" : lowercasedName(id)
        var lines = [style.bold("\(name), \(unit) a day") + " · \(trend.from) to \(trend.to)"]
        var key = trend.goal.map { "\(options.unicode ? "│" : "|") goal \(value($0)) \(unit)" + (trend.goalOrigin.map { " (\($0.phrase))" } ?? "") } ?? "no goal set"
        if trend.goal != nil, !trend.weekdayGoals.isEmpty { key += "; % of each day's target (weekday targets)" }
        let each = "each bar: average a day over its days that report it"
        if trend.period != .day, (key + " · " + each).count <= options.width {
            key += " · " + each
        } else if trend.period != .day {
            // Too long for one line (a goal with its origin): the note goes on its own line, unbroken.
            lines.append(wrapText(key, width: options.width))
            key = each
        }
        lines.append(wrapText(key, width: options.width))

        let labels = trend.bars.map { label($0, trend.period, withYear: trend.from.year != trend.to.year) }
        let labelWidth = labels.map(\.count).max() ?? 0
        let values = trend.bars.map { $0.value.map(value) ?? "" }
        let valueWidth = values.map(\.count).max() ?? 0
        let percents = trend.bars.map { $0.fraction.map(percent) ?? "" }
        let percentWidth = trend.goal == nil ? 0 : max(4, percents.map(\.count).max() ?? 0)
        let tailWidth = max(12, valueWidth + (percentWidth > 0 ? 1 + percentWidth : 0))
        let cells = max(10, min(100, options.width - labelWidth - 2 - tailWidth))
        let maxValue = trend.bars.compactMap(\.value).max() ?? 0
        let scale = max(maxValue, trend.goal ?? 0)
        // The goal sits on the last column when it is the largest value, else in proportion.
        let mark = markColumn(goal: trend.goal, scale: scale, cells: cells)

        for (i, b) in trend.bars.enumerated() {
            let label = labels[i].padding(toLength: labelWidth, withPad: " ", startingAt: 0)
            let drawn = String(bar(b.value, scale: scale, cells: cells, mark: mark, unicode: options.unicode))
            var tail: String
            if b.loggedDays == 0 {
                tail = style.dim("no entries")
            } else if b.value == nil {
                tail = style.dim("not reported")
            } else {
                let v = String(repeating: " ", count: valueWidth - values[i].count) + values[i]
                tail = v
                if percentWidth > 0 {
                    let p = String(repeating: " ", count: percentWidth - percents[i].count) + percents[i]
                    tail += " " + colour(p, fraction: b.fraction, direction: trend.direction, style: style)
                }
            }
            let barText = b.value == nil ? style.dim(drawn) : colour(drawn, fraction: b.fraction, direction: trend.direction, style: style)
            lines.append((label + " " + barText + " " + tail).trimmingTrailingSpaces())
        }
        lines.append(wrapText(averageLine(trend, unit: unit), width: options.width))
        let blank = trend.bars.filter { $0.loggedDays == 0 }.count
        let unreported = trend.bars.filter { $0.loggedDays > 0 && $0.value == nil }.count
        var notes: [String] = []
        let noun = trend.period.rawValue + "s"
        if blank > 0 { notes.append("\(blank) \(blank == 1 ? trend.period.rawValue : noun) without entries (blank, not zero)") }
        if unreported > 0 { notes.append("\(unreported) \(unreported == 1 ? trend.period.rawValue : noun) whose entries do not report \(lowerName)") }
        if !notes.isEmpty { lines.append(wrapText(notes.joined(separator: "; ") + ".", width: options.width)) }
        return finish(lines, options)
    }

    /// "vitamin C", "saturated fat": the display name with its first letter lowered.
    static func lowercasedName(_ id: String) -> String {
        let name = NutrientCatalog.displayName(id)
        return name.prefix(1).lowercased() + name.dropFirst()
    }

    /// The chart's lines; without a UTF-8 locale the separators become ASCII too.
    static func finish(_ lines: [String], _ options: ChartOptions) -> String {
        let text = lines.joined(separator: "\n")
        return options.unicode ? text : text.replacingOccurrences(of: "·", with: "-").replacingOccurrences(of: "–", with: "-")
    }

    static func averageLine(_ trend: Trend, unit: String) -> String {
        let name = trend.nutrient == "energy_kcal" ? "calories" : lowercasedName(trend.nutrient)
        guard let avg = trend.average, trend.reportingDays > 0 else {
            return trend.loggedDays == 0 ? "Nothing logged in this range." : "No entry in this range reports \(name)."
        }
        let days = trend.reportingDays == trend.loggedDays
            ? "the \(trend.loggedDays) logged \(trend.loggedDays == 1 ? "day" : "days")"
            : "the \(trend.reportingDays) of \(trend.loggedDays) logged days that report it"
        let ofGoal = trend.goal.flatMap { $0 > 0 ? " (\(percent(avg / $0)) of the goal)" : nil } ?? ""
        return "Average: \(value(avg)) \(unit) a day over \(days)\(ofGoal)."
    }

    /// Colour for a value against its goal: a target reached or a limit kept is green, a limit
    /// passed red, a target short of 90% yellow. Only adds to the number and the bar.
    static func colour(_ text: String, fraction: Double?, direction: GoalDirection, style: Style) -> String {
        guard let f = fraction else { return style.cyan(text) }
        switch direction {
        case .limit: return f > 1 ? style.red(text) : style.green(text)
        case .target: return f >= 0.9 ? style.green(text) : style.yellow(text)
        }
    }

    // MARK: - Month

    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                             "October", "November", "December"]

    /// The glyph of a day's energy against the goal: under 90%, 90–110%, over 110%.
    static func glyph(_ fraction: Double?, logged: Bool, reported: Bool, unicode: Bool) -> String {
        guard logged else { return unicode ? "·" : "." }
        guard reported else { return "?" }
        guard let f = fraction else { return unicode ? "●" : "=" }
        if f < 0.9 { return unicode ? "○" : "-" }
        if f <= 1.1 { return unicode ? "●" : "=" }
        return unicode ? "▲" : "+"
    }

    /// The calendar of a month of `journal` (`ofj month`, /month).
    public static func month(of journal: JournalStore, year: Int, month: Int, options: ChartOptions) throws -> String {
        let first = try CalendarDay(year: year, month: month, day: 1)
        let last = try CalendarDay(year: year, month: month, day: CalendarDay.daysInMonth(year: year, month: month))
        let today = journal.today()
        // Days after today are not summed (nothing to show there), but the calendar has them.
        let summary = try journal.rangeSummary(from: first, to: min(last, max(first, today)), nutrients: ["energy_kcal"])
        let (goals, sources) = try journal.queue.read { (try journal.goals(in: $0), try journal.goalSources(in: $0)) }
        return Charts.month(summary, year: year, month: month, goal: goals["energy_kcal"], today: today, options: options,
                            goalOrigin: sources.origin(of: "energy_kcal", in: goals), weekdayGoals: sources.weekdayEnergy)
    }

    /// The last 7 days' calories as bars (/week); nil when nothing was logged in them.
    public static func week(of journal: JournalStore, options: ChartOptions) throws -> String? {
        let today = journal.today()
        let summary = try journal.rangeSummary(from: try today.adding(days: -6), to: today, nutrients: ["energy_kcal"])
        guard summary.loggedDayCount > 0 else { return nil }
        let (goals, sources) = try journal.queue.read { (try journal.goals(in: $0), try journal.goalSources(in: $0)) }
        return trend(Trend(summary, nutrient: "energy_kcal", goal: goals["energy_kcal"], period: .day,
                           goalOrigin: sources.origin(of: "energy_kcal", in: goals), weekdayGoals: sources.weekdayEnergy), options: options)
    }

    /// A calendar of a month (`summary` covers it, or its first days up to today): each day's
    /// energy as a percentage of the goal (kcal when no goal is set) and a glyph.
    public static func month(_ summary: RangeSummary, year: Int, month: Int, goal: Double?, today: CalendarDay, options: ChartOptions,
                             goalOrigin: GoalOrigin? = nil, weekdayGoals: [Int: Double] = [:]) -> String {
        let style = options.style
        let cell = max(7, min(16, options.width / 7))
        let byDay = Dictionary(summary.days.map { ($0.day, $0) }, uniquingKeysWith: { a, _ in a })
        var goalText = goal.map { "energy as % of the \(value($0)) kcal goal" + (goalOrigin.map { " (\($0.phrase))" } ?? "") } ?? "energy in kcal (no goal set)"
        if goal != nil, !weekdayGoals.isEmpty { goalText += ", or of the day's weekday target" }
        var lines = [style.bold("\(monthNames[month - 1]) \(year)") + " · " + goalText]
        lines.append(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map { $0.padding(toLength: cell, withPad: " ", startingAt: 0) }
            .joined().trimmingTrailingSpaces())
        let days = CalendarDay.daysInMonth(year: year, month: month)
        guard let first = try? CalendarDay(year: year, month: month, day: 1) else { return lines.joined(separator: "\n") }
        var week: [(top: String, bottom: String, colour: (String) -> String)] = Array(repeating: ("", "", { $0 }), count: first.isoWeekday - 1)
        func flushWeek() {
            guard !week.isEmpty else { return }
            lines.append("")
            lines.append(week.map { $0.top.padding(toLength: cell, withPad: " ", startingAt: 0) }.joined().trimmingTrailingSpaces())
            lines.append(week.enumerated().map { i, c in
                let padded = c.bottom.padding(toLength: cell, withPad: " ", startingAt: 0)
                let shown = c.bottom.isEmpty ? "" : c.colour(c.bottom)
                return i == week.count - 1 ? shown : shown + String(padded.dropFirst(c.bottom.count))
            }.joined().trimmingTrailingSpaces())
            week = []
        }
        for n in 1...days {
            guard let d = try? CalendarDay(year: year, month: month, day: n) else { continue }
            let top = String(n) + (d == today ? (options.unicode ? " ◆" : " *") : "")
            var bottom = ""
            var paint: (String) -> String = { $0 }
            if d <= today {
                let t = byDay[d]?.totals
                let logged = (t?.entryCount ?? 0) > 0
                let kcal = t.flatMap { ($0.reportedCounts["energy_kcal"] ?? 0) > 0 ? $0.amounts["energy_kcal"] : nil }
                let dayGoal = weekdayGoals[d.isoWeekday] ?? goal
                let fraction = kcal.flatMap { k in dayGoal.flatMap { $0 > 0 ? k / $0 : nil } }
                let g = glyph(fraction, logged: logged, reported: kcal != nil, unicode: options.unicode)
                if let fraction { bottom = g + " " + percent(fraction) } else if let kcal { bottom = g + " " + value(kcal) } else { bottom = g }
                if !logged || kcal == nil { paint = { style.dim($0) } } else if let fraction {
                    paint = { colour($0, fraction: fraction, direction: .target, style: style) }
                    if fraction > 1.1 { paint = { style.red($0) } }
                }
            }
            week.append((top, bottom, paint))
            if d.isoWeekday == 7 { flushWeek() }
        }
        flushWeek()
        lines.append("")
        let u = options.unicode
        let legend = goal == nil
            ? "\(u ? "●" : "=") logged  ? logged, calories not reported  \(u ? "·" : ".") nothing logged"
            : "\(u ? "○" : "-") under 90%  \(u ? "●" : "=") 90–110%  \(u ? "▲" : "+") over 110%  ? calories not reported  \(u ? "·" : ".") nothing logged"
        lines.append(wrapText(u ? legend : legend.replacingOccurrences(of: "–", with: "-"), width: options.width))
        let logged = summary.loggedDayCount
        let reporting = summary.reportingDays("energy_kcal")
        if let avg = summary.dailyAverages["energy_kcal"], reporting > 0 {
            let over = reporting == logged ? "\(logged) logged \(logged == 1 ? "day" : "days")" : "the \(reporting) of \(logged) logged days that report calories"
            let ofGoal = goal.flatMap { $0 > 0 ? " (\(percent(avg / $0)) of the goal)" : nil } ?? ""
            lines.append(wrapText("Average: \(value(avg)) kcal a day over \(over)\(ofGoal).", width: options.width))
        } else {
            lines.append(logged == 0 ? "Nothing logged this month." : "No entry this month reports calories.")
        }
        return finish(lines, options)
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
