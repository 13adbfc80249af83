// `ofj trend|month|report|gaps`: the journal as charts, a shareable HTML report and nutrient gaps.
import Base
import CommandLineKit
import Foundation
import Journal
import Nutrition
import OutputSafety
import REPL
import Views

extension OfjCommands {
    static func trend(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("trend", summary: "bars of a nutrient per day, week or month against its goal (default: calories over 14 days); days without entries stay blank",
                    details: """
                        One bar per day (--days), ISO week (--weeks) or month (--months) ending today, with its value and
                        % of the goal; the goal is a │ (| in ASCII). Week and month bars are averages a day over the days
                        that report the nutrient. NUTRIENT: energy_kcal (default), protein, sodium_mg, "vitamin d", …
                        "weight" draws the weigh-ins with their smoothed trend, a row a day (--days).
                        Colour only on a terminal without NO_COLOR; ASCII when the locale is not UTF-8.
                        """,
                    arguments: [PositionalSpec("NUTRIENT", .suggestions(NutrientCatalog.all.map(\.id) + ["weight"]), optional: true, variadic: true)],
                    options: [.value("--days", "N", .integer(1...3_660), "one bar per day for the last N days", default: "14",
                                     excludes: ["--weeks", "--months"]),
                              .value("--weeks", "N", .integer(1...520), "one bar per week for the last N weeks", excludes: ["--months"]),
                              .value("--months", "N", .integer(1...120), "one bar per month for the last N months"),
                              .json],
                    access: .read,
                    action: journal(ctx) { c, inv in try c.trend(inv.arguments, environment: ctx.environment) })
    }

    static func month(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("month", summary: "a calendar of a month: each day's calories as % of the goal, with a glyph (default: this month)",
                    arguments: [PositionalSpec("YYYY-MM", optional: true)],
                    access: .read,
                    action: journal(ctx) { c, inv in try c.month(inv.arguments, environment: ctx.environment) })
    }

    static func gaps(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("gaps", summary: "nutrients averaging below 80% of their Daily Value, with foods that bring the most per 100 kcal",
                    options: [.value("--days", "N", .integer(1...366), "the last N days", default: "14"), .json],
                    access: .read,
                    action: journal(ctx, reference: true) { c, inv in try c.gaps(inv.arguments) })
    }

    static func report(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("report", summary: "a self-contained HTML report to share: energy and macros against goals, nutrients below their Daily Value (default: the last 30 days)",
                    details: "One HTML file with inline CSS and SVG charts: no scripts, nothing fetched. Not medical advice.",
                    options: [.value("--from", "DATE", .date, "first day (default: 29 days before --to)"),
                              .value("--to", "DATE", .date, "last day", default: "today"),
                              .value("--output", short: "-o", "FILE", .file, "the HTML file to write (- for stdout)"), .force],
                    access: .read,
                    action: journal(ctx) { c, inv in try c.report(inv.arguments, pinned: PinnedNutrients.load(configPath: ctx.paths.configPath)) })
    }
}

extension JournalCommands {
    // MARK: - trend

    /// The days `--days N`, `--weeks N` (whole ISO weeks) or `--months N` (whole months) end
    /// today with, and the bar period.
    func trendRange(_ p: ParsedArguments) throws -> (CalendarDay, CalendarDay, TrendPeriod) {
        let today = journal.today()
        if let w = p.value("--weeks").flatMap(Int.init) {
            let monday = try today.adding(days: -(today.isoWeekday - 1))
            return (try monday.adding(days: -7 * (w - 1)), today, .week)
        }
        if let m = p.value("--months").flatMap(Int.init) {
            var year = today.year, month = today.month - (m - 1)
            while month < 1 { month += 12; year -= 1 }
            return (try CalendarDay(year: year, month: month, day: 1), today, .month)
        }
        let days = p.value("--days").flatMap(Int.init) ?? 14
        return (try today.adding(days: -(days - 1)), today, .day)
    }

    /// Nutrient ids from what was typed ("protein", "protein_g", "Vitamin D"); energy by default.
    func chartNutrients(_ words: [String]) throws -> [String] {
        guard !words.isEmpty else { return ["energy_kcal"] }
        var ids: [String] = []
        for w in words {
            guard let id = NutrientCatalog.canonicalID(for: w), NutrientCatalog.nutrient(id) != nil else {
                try requireKnownNutrient(w)
                throw CLIError("'\(JournalViews.safeName(String(w.prefix(40))))' is not a nutrient ofj charts; use ids such as energy_kcal, protein_g, sodium_mg", status: 2)
            }
            if !ids.contains(id) { ids.append(id) }
        }
        return ids
    }

    func trend(_ p: ParsedArguments, environment: [String: String]) throws {
        if p.positionals.map({ $0.lowercased() }) == ["weight"] { try weightTrend(p, environment: environment); return }
        let ids = try chartNutrients(p.positionals)
        let (from, to, period) = try trendRange(p)
        let summary = try journal.rangeSummary(from: from, to: to, nutrients: ids)
        let (goals, sources) = try journal.queue.read { (try journal.goals(in: $0), try journal.goalSources(in: $0)) }
        let trends = ids.map { Trend(summary, nutrient: $0, goal: goals[$0], period: period, goalOrigin: sources.origin(of: $0, in: goals),
                                     weekdayGoals: $0 == "energy_kcal" ? sources.weekdayEnergy : [:]) }
        if p.has("--json") {
            try json(trends.count == 1 ? AnyEncodable(trends[0]) : AnyEncodable(trends))
            return
        }
        let options = ChartOptions.detect(environment: environment)
        out(trends.map { Charts.trend($0, options: options) }.joined(separator: "\n\n"))
    }

    /// `ofj trend weight`: the weigh-ins and their trend, a row a day (--days N, default 14).
    func weightTrend(_ p: ParsedArguments, environment: [String: String]) throws {
        guard p.value("--weeks") == nil, p.value("--months") == nil else {
            throw CLIError("ofj trend weight draws a row a day: use --days N (ofj weight --days N lists them)", status: 2)
        }
        let (from, to, _) = try trendRange(p)
        let (points, profile) = try journal.queue.read { db in (try journal.weightTrend(to: to, in: db), try journal.profile(in: db)) }
        let rate = WeightTrend.slopePerDay(points, endingOn: to).map { $0 * 7 }
        if p.has("--json") {
            let rows: [JSONValue] = points.filter { $0.day >= from }.map {
                .object(["day": .string($0.day.description), "mean_kg": .number($0.mean.rounded(places: 3)),
                         "trend_kg": .number($0.trend.rounded(places: 3)), "weigh_ins": .number(Double($0.weighIns))])
            }
            out(TerminalText.escapingJSON(JSONValue.object(["from": .string(from.description), "to": .string(to.description), "unit": "kg",
                                                            "days": .array(rows), "weekly_rate_kg": rate.map { .number($0.rounded(places: 3)) } ?? .null]).serialized))
            return
        }
        out(Charts.weight(points, from: from, to: to, profile: profile, weeklyRateKg: rate, options: ChartOptions.detect(environment: environment)))
    }

    // MARK: - month

    func month(_ p: ParsedArguments, environment: [String: String]) throws {
        let today = journal.today()
        var year = today.year, month = today.month
        if let text = p.positionals.first {
            let parts = text.split(separator: "-")
            guard parts.count == 2, let y = Int(parts[0]), let m = Int(parts[1]), (1900...2200).contains(y), (1...12).contains(m), parts[0].count == 4 else {
                throw CLIError("invalid month '\(JournalViews.safeName(String(text.prefix(20))))': use YYYY-MM, e.g. \(String(today.description.prefix(7)))", status: 2)
            }
            year = y; month = m
        }
        out(try Charts.month(of: journal, year: year, month: month, options: ChartOptions.detect(environment: environment)))
    }

    // MARK: - report

    func report(_ p: ParsedArguments, pinned: [String]? = nil) throws {
        guard let path = p.value("-o") ?? p.value("--output") else {
            throw CLIError("give the file to write with -o, e.g. ofj report -o report.html (-o - writes to stdout)", status: 2)
        }
        let today = journal.today()
        let to = try p.value("--to").map { try parseDay($0) } ?? today
        let from = try p.value("--from").map { try parseDay($0) } ?? (try to.adding(days: -29))
        guard from <= to else { throw CLIError("--from \(from) is after --to \(to)", status: 2) }
        guard from.days(to: to) < 3_660 else { throw CLIError("the report covers at most 10 years; give a later --from", status: 2) }
        // Refuse an existing file before doing the work.
        var isDirectory: ObjCBool = false
        if path != "-", FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw CLIError("\(path) is a folder; give a file name, e.g. \(path)/report.html", status: 2) }
            if !p.has("--force") { throw CLIError("\(path) already exists; choose another name or add --force to replace it") }
        }
        let data = try journal.queue.read { db in
            var d = ReportData(summary: try journal.rangeSummary(from: from, to: to, in: db), goals: try journal.goals(in: db),
                               gaps: try journal.nutrientGaps(from: from, to: to, threshold: 1, contributors: 3, in: db), generated: today,
                               sources: try journal.goalSources(in: db), pinned: pinned)
            d.weight = ReportWeight(trend: try journal.weightTrend(to: to, in: db), from: from, to: to, profile: try journal.profile(in: db))
            return d
        }
        try write(Data(HTMLReport.render(data).utf8), to: path, force: p.has("--force"))
    }

    // MARK: - gaps

    func gaps(_ p: ParsedArguments) throws {
        let days = p.value("--days").flatMap(Int.init) ?? 14
        let to = journal.today()
        let from = try to.adding(days: -(days - 1))
        let report = try journal.nutrientGaps(from: from, to: to, reference: reference)
        if p.has("--json") { try json(report); return }
        out(TerminalText.sanitize(JournalViews.gaps(report)))
    }
}

/// One or many trends as JSON without two code paths.
struct AnyEncodable: Encodable {
    let value: any Encodable
    init(_ value: any Encodable) { self.value = value }
    func encode(to encoder: Encoder) throws { try value.encode(to: encoder) }
}
