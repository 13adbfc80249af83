// Issue #22 §1: `ofj trend` bars and the `ofj month` calendar, pinned by golden files at 80 and
// 120 columns, with and without colour, Unicode and ASCII, with days without entries and
// nutrients some days do not report.
import Base
import Foundation
import Testing
import Journal
import Nutrition
import SQLiteKit
import TestSupport
import Views

@Suite struct ChartTests {
    static let golden = OfjBinary.repositoryRoot + "/Tests/Golden/charts/"

    func expectGolden(_ text: String, _ name: String) throws {
        let path = Self.golden + name
        if ProcessInfo.processInfo.environment["OFJ_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(atPath: Self.golden, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        }
        let expected = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == expected, "\(name) differs from its golden file; run with OFJ_UPDATE_GOLDEN=1 and review the diff")
    }

    /// Sunday 2026-11-29, noon UTC. Two weeks with two days without entries (11-19, 11-24), a
    /// day whose only entry reports no protein (11-26), a day whose only entry reports no energy
    /// (11-27), a day over the goal (11-20), and a few days in September and October.
    static func journal() throws -> JournalStore {
        let queue = try DatabaseQueue.inMemory()
        let store = try JournalStore.openStandalone(queue: queue, timeZone: TimeZone(secondsFromGMT: 0) ?? .gmt,
                                                    now: { Date(timeIntervalSince1970: 1_795_953_600) })
        func log(_ day: String, _ name: String, _ n: [String: Double], meal: Meal = .lunch) throws {
            try store.logEntry(EntryDraft(day: try CalendarDay(parsing: day), meal: meal, name: name, nutrients: try NutrientAmounts(n)))
        }
        let kcal = [1_850.0, 2_100, 1_420, 0, 2_640, 1_990, 1_760, 1_530, 0, 2_010, 0, 0, 1_880, 1_240]
        for (i, k) in kcal.enumerated() {
            let day = try CalendarDay(parsing: "2026-11-16").adding(days: i).description
            if k == 0 { continue }
            try log(day, "Meals", ["energy_kcal": k, "protein_g": (k / 30).rounded(), "carbohydrate_g": k / 8, "fat_g": k / 30])
        }
        try log("2026-11-26", "Label without protein", ["energy_kcal": 1_600, "fat_g": 50])
        try log("2026-11-27", "Coffee", ["caffeine_mg": 95])
        for (day, k) in [("2026-09-10", 1_700.0), ("2026-09-11", 2_300), ("2026-10-02", 1_950), ("2026-10-20", 2_050)] {
            try log(day, "Meals", ["energy_kcal": k, "protein_g": 60])
        }
        return store
    }

    static let variants: [(String, ChartOptions)] = [
        ("80 columns, no colour, Unicode", ChartOptions(width: 80, color: false, unicode: true)),
        ("80 columns, colour, Unicode", ChartOptions(width: 80, color: true, unicode: true)),
        ("120 columns, no colour, Unicode", ChartOptions(width: 120, color: false, unicode: true)),
        ("120 columns, colour, Unicode", ChartOptions(width: 120, color: true, unicode: true)),
        ("80 columns, no colour, ASCII (locale not UTF-8)", ChartOptions(width: 80, color: false, unicode: false)),
        ("120 columns, colour, ASCII (locale not UTF-8)", ChartOptions(width: 120, color: true, unicode: false)),
    ]

    /// Every variant of a chart in one golden file, each checked for width, colour and charset.
    func checkVariants(_ name: String, _ render: (ChartOptions) throws -> String) throws {
        var file = ""
        for (title, options) in Self.variants {
            let text = try render(options)
            file += "== \(title)\n\(text)\n\n"
            let plain = Self.stripANSI(text)
            for line in plain.split(separator: "\n") {
                #expect(line.count <= options.width, "\(name) \(title): a line of \(line.count) columns: \(line)")
            }
            #expect(text.contains("\u{1B}[") == options.color, "\(name) \(title): colour \(options.color ? "missing" : "present")")
            if !options.unicode {
                #expect(plain.unicodeScalars.allSatisfy { $0.isASCII }, "\(name) \(title): non-ASCII in the ASCII chart")
            } else {
                #expect(!plain.unicodeScalars.allSatisfy { $0.isASCII }, "\(name) \(title): no Unicode in the Unicode chart")
            }
        }
        try expectGolden(file, name)
    }

    static func stripANSI(_ s: String) -> String {
        var out = ""
        var inEscape = false
        for ch in s.unicodeScalars {
            if inEscape { if ch == "m" { inEscape = false }; continue }
            if ch == "\u{1B}" { inEscape = true; continue }
            out.unicodeScalars.append(ch)
        }
        return out
    }

    static func trend(_ store: JournalStore, _ id: String, from: String, period: TrendPeriod) throws -> Trend {
        let summary = try store.rangeSummary(from: try CalendarDay(parsing: from), to: store.today(), nutrients: [id])
        return Trend(summary, nutrient: id, goal: try store.goals()[id], period: period)
    }

    @Test func dailyEnergyBarsLeaveDaysWithoutEntriesBlank() throws {
        let store = try Self.journal()
        let t = try Self.trend(store, "energy_kcal", from: "2026-11-16", period: .day)
        #expect(t.bars.count == 14)
        #expect(t.bars[3].value == nil && t.bars[3].loggedDays == 0, "11-19 has no entries: a gap, not a zero")
        #expect(t.bars[11].value == nil && t.bars[11].loggedDays == 1, "11-27 is logged without energy: not reported")
        #expect(t.bars[4].fraction.map { abs($0 - 1.32) < 0.001 } == true, "11-20: 2,640 of 2,000 kcal")
        // Averages divide by the logged days that report energy (11 of 12), as everywhere in ofj.
        #expect(t.reportingDays == 11 && t.loggedDays == 12)
        try checkVariants("trend-days-energy.txt") { Charts.trend(t, options: $0) }
        let plain = Charts.trend(t, options: ChartOptions(width: 80, color: false, unicode: true))
        #expect(plain.contains("Thu 11-19") && plain.split(separator: "\n").contains { $0.hasPrefix("Thu 11-19") && $0.hasSuffix("no entries") })
        #expect(plain.split(separator: "\n").contains { $0.hasPrefix("Fri 11-27") && $0.hasSuffix("not reported") })
        #expect(plain.contains("┃"), "the goal mark shows over the bar that passes it")
        // Across New Year the day labels carry the year.
        let newYear = try store.rangeSummary(from: try CalendarDay(parsing: "2025-12-31"), to: try CalendarDay(parsing: "2026-01-01"), nutrients: ["energy_kcal"])
        let text = Charts.trend(Trend(newYear, nutrient: "energy_kcal", goal: 2_000, period: .day), options: ChartOptions())
        #expect(text.contains("Wed 2025-12-31") && text.contains("Thu 2026-01-01"), "\(text)")
    }

    @Test func weekdayCalorieTargetsSetEachDayBarsPercent() throws {
        let store = try Self.journal()
        let summary = try store.rangeSummary(from: try CalendarDay(parsing: "2026-11-16"), to: store.today(), nutrients: ["energy_kcal"])
        // 11-20 is a Friday: 2,640 kcal of a 2,400 kcal Friday target, not of the 2,000 kcal goal.
        let t = Trend(summary, nutrient: "energy_kcal", goal: 2_000, period: .day, goalOrigin: .profile, weekdayGoals: [5: 2_400])
        #expect(t.bars[4].fraction.map { abs($0 - 1.1) < 0.001 } == true)
        #expect(t.bars[5].fraction == Trend(summary, nutrient: "energy_kcal", goal: 2_000, period: .day).bars[5].fraction)
        let text = Charts.trend(t, options: ChartOptions(width: 120, color: false, unicode: true))
        #expect(text.contains("goal 2,000 kcal (from your profile); % of each day's target (weekday targets)"), "\(text)")
        // Week bars average over days: they keep the one goal.
        #expect(Trend(summary, nutrient: "energy_kcal", goal: 2_000, period: .week, weekdayGoals: [5: 2_400]).weekdayGoals.isEmpty)
        let month = Charts.month(summary, year: 2026, month: 11, goal: 2_000, today: store.today(), options: ChartOptions(width: 80, color: false, unicode: true),
                                 goalOrigin: .profile, weekdayGoals: [5: 2_400])
        #expect(month.contains("or of the day's weekday target") && month.contains("110%"), "\(month)")
    }

    @Test func proteinBarsSayWhichDaysDoNotReportIt() throws {
        let store = try Self.journal()
        let t = try Self.trend(store, "protein_g", from: "2026-11-16", period: .day)
        // 11-26 and 11-27 are logged, but their entries report no protein.
        #expect(t.bars[10].value == nil && t.bars[10].loggedDays == 1)
        #expect(t.bars[11].value == nil && t.bars[11].loggedDays == 1)
        #expect(t.reportingDays == 10)
        try checkVariants("trend-days-protein.txt") { Charts.trend(t, options: $0) }
    }

    @Test func weekAndMonthBarsAverageOverReportingDays() throws {
        let store = try Self.journal()
        let weeks = try Self.trend(store, "energy_kcal", from: "2026-10-12", period: .week)
        #expect(weeks.bars.count == 7)
        #expect(weeks.bars.filter { $0.loggedDays == 0 }.count == 4, "weeks without entries are gaps")
        // The week of 11-16: 1,850 + 2,100 + 1,420 + 2,640 + 1,990 + 1,760 over 6 logged days.
        #expect(weeks.bars[5].value.map { abs($0 - 11_760.0 / 6) < 0.001 } == true)
        try checkVariants("trend-weeks-energy.txt") { Charts.trend(weeks, options: $0) }
        let months = try Self.trend(store, "energy_kcal", from: "2026-08-01", period: .month)
        #expect(months.bars.map(\.loggedDays) == [0, 2, 2, 12])
        #expect(months.bars[1].value == 2_000)
        try checkVariants("trend-months-energy.txt") { Charts.trend(months, options: $0) }
    }

    @Test func monthCalendarShowsPercentAndGlyph() throws {
        let store = try Self.journal()
        try checkVariants("month-2026-11.txt") { try Charts.month(of: store, year: 2026, month: 11, options: $0) }
        let text = try Charts.month(of: store, year: 2026, month: 11, options: ChartOptions(width: 80, color: false, unicode: true))
        #expect(text.contains("▲ 132%"), "11-20 is over 110% of the goal")
        #expect(text.contains("● 93%") || text.contains("○ 93%"))
        #expect(text.contains("29 ◆"), "today is marked")
        #expect(text.contains("Average: 1,820 kcal a day over the 11 of 12 logged days that report calories\n(91% of the goal)."))
        // Without a goal the calendar shows kcal.
        _ = try store.setGoals(try store.goals().setting("energy_kcal", to: nil))
        #expect(try store.goals()["energy_kcal"] == nil)
        try checkVariants("month-2026-11-no-goal.txt") { try Charts.month(of: store, year: 2026, month: 11, options: $0) }
        let noGoal = try Self.trend(store, "energy_kcal", from: "2026-11-16", period: .day)
        #expect(noGoal.goal == nil && noGoal.bars.allSatisfy { $0.fraction == nil })
        try checkVariants("trend-days-energy-no-goal.txt") { Charts.trend(noGoal, options: $0) }
    }

    @Test func localeDecidesUnicode() {
        #expect(ChartOptions.localeIsUTF8(["LANG": "en_US.UTF-8"]))
        #expect(ChartOptions.localeIsUTF8(["LC_ALL": "C.utf8", "LANG": "C"]))
        #expect(!ChartOptions.localeIsUTF8(["LC_ALL": "C", "LANG": "en_US.UTF-8"]), "LC_ALL wins")
        #expect(!ChartOptions.localeIsUTF8([:]))
        #expect(!ChartOptions.localeIsUTF8(["LANG": "de_DE.ISO-8859-1"]))
    }
}
