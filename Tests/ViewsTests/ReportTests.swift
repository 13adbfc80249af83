// Issue #22 §2: the HTML report, pinned by a golden file, self-contained, names escaped, and
// `ofj report` end to end (refuses to overwrite, --force, stdout).
import Base
import Foundation
import Testing
import Journal
import Nutrition
import SQLiteKit
import TestSupport
import Views

@Suite struct ReportTests {
    static func data() throws -> ReportData {
        let store = try ChartTests.journal()
        for d in ["2026-11-20", "2026-11-22"] {
            try store.logEntry(EntryDraft(day: try CalendarDay(parsing: d), meal: .dinner, name: "Spinach <b>&</b> \"feta\"",
                                          nutrients: try NutrientAmounts(["energy_kcal": 120, "iron_mg": 4, "fiber_g": 5])))
        }
        try store.logEntry(EntryDraft(day: try CalendarDay(parsing: "2026-11-22"), meal: .lunch, name: "Lentils", brand: "Acme",
                                      nutrients: try NutrientAmounts(["energy_kcal": 230, "iron_mg": 6.6, "fiber_g": 15.6])))
        let from = try CalendarDay(parsing: "2026-11-02"), to = store.today()
        return try store.queue.read { db in
            ReportData(summary: try store.rangeSummary(from: from, to: to, in: db), goals: try store.goals(in: db),
                       gaps: try store.nutrientGaps(from: from, to: to, threshold: 1, contributors: 3, in: db), generated: store.today())
        }
    }

    @Test func reportIsPinnedSelfContainedAndEscaped() throws {
        let data = try Self.data()
        let html = HTMLReport.render(data)
        try ChartTests().expectGolden(html, "report.html")
        for forbidden in ["<script", "http://", "https://", "src=", "@import", "url("] {
            #expect(!html.contains(forbidden), "the report must not load or run anything: \(forbidden)")
        }
        #expect(html.contains("Spinach &lt;b&gt;&amp;&lt;/b&gt; &quot;feta&quot;"))
        #expect(!html.contains("<b>&</b>"))
        #expect(html.contains("<strong>Not medical advice.</strong>"))
        // No weigh-ins: nothing about weight (issue 33 §3).
        #expect(!html.contains("Weight") && data.weight == nil)
        #expect(html.contains("Talk to a doctor or a registered dietitian"))
        // Iron: 8 + 6.6 mg over the 2 days that report it, below its 18 mg Daily Value, with the foods that gave it.
        let iron = try #require(data.gaps.gaps.first { $0.nutrient == "iron_mg" })
        #expect(iron.reportingDays == 2 && abs(iron.average - 7.3) < 1e-9)
        #expect(iron.contributors.map(\.name) == ["Spinach <b>&</b> \"feta\"", "Lentils"])
        // One bar per logged day that reports energy (11 in November, 2 in the range's first weeks: none).
        let energyChart = try #require(html.components(separatedBy: "<figure>").dropFirst().first)
        #expect(energyChart.components(separatedBy: "<rect").count - 1 == 12, "11 bars, and a grey mark for 11-27 (logged without energy)")
        #expect(energyChart.contains("stroke-dasharray"), "the goal line")
    }

    /// Issue 33 §3: with weigh-ins the report shows the trend at the range's start and end and the weekly rate.
    @Test func reportShowsTheWeightTrendOverItsRange() throws {
        let store = try ChartTests.journal()
        for (d, kg) in [("2026-10-20", 82.4), ("2026-11-03", 81.6), ("2026-11-10", 81.2), ("2026-11-17", 81.0), ("2026-11-24", 80.7),
                        ("2026-11-29", 80.4), ("2026-11-29", 80.8)] {
            try store.logWeight(kg: kg, day: try CalendarDay(parsing: d), source: "cli")
        }
        let from = try CalendarDay(parsing: "2026-11-02"), to = store.today()
        var data = try ReportTests.data()
        data.weight = try store.queue.read { db in
            ReportWeight(trend: try store.weightTrend(to: to, in: db), from: from, to: to, profile: try store.profile(in: db))
        }
        let w = try #require(data.weight)
        // The October weigh-in is before the range: it shapes the trend but is not counted.
        let nov3 = try CalendarDay(parsing: "2026-11-03"), nov29 = try CalendarDay(parsing: "2026-11-29")
        #expect(w.weighIns == 6 && w.first.day == nov3 && w.last.day == nov29)
        let rate = try #require(w.weeklyRateKg)
        #expect(rate < -0.2)
        let html = HTMLReport.render(data)
        let section = try #require(html.components(separatedBy: "<h2>Weight</h2>\n").dropFirst().first?.components(separatedBy: "\n<h2>").first)
        try ChartTests().expectGolden("<h2>Weight</h2>\n" + section + "\n", "report-weight.txt")
        // In pounds with units=imperial.
        _ = try store.setProfile(store.profile().setting("units", to: "imperial"))
        let lb = try store.queue.read { db in
            ReportWeight(trend: try store.weightTrend(to: to, in: db), from: from, to: to, profile: try store.profile(in: db))
        }
        #expect(lb?.line.contains(" lb on 2026-11-03") == true)
        // A range without weigh-ins: none.
        let none = try store.queue.read { db in
            ReportWeight(trend: try store.weightTrend(to: to, in: db), from: try CalendarDay(parsing: "2026-10-21"), to: try CalendarDay(parsing: "2026-11-02"),
                         profile: try store.profile(in: db))
        }
        #expect(none == nil)
    }

}
