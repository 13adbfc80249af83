// Issue 33: what `ofj expenditure` and `ofj trend weight` show, pinned by golden files: an estimate
// with days left out and a gap, one that needs more data, and the weight chart in kg and lb.
import Base
import Foundation
import Testing
import Nutrition
import TestSupport
import Views

@Suite struct PersonViewTests {
    static let golden = OfjBinary.repositoryRoot + "/Tests/Golden/person/"

    func expectGolden(_ text: String, _ name: String) throws {
        let path = Self.golden + name
        if ProcessInfo.processInfo.environment["OFJ_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(atPath: Self.golden, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        }
        let expected = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == expected, "\(name) differs from its golden file; run with OFJ_UPDATE_GOLDEN=1 and review the diff")
    }

    /// 70 days eating 2,000-2,300 kcal and losing 0.06 kg a day with ±0.3 kg alternating noise;
    /// nothing logged on days 20-35 (a gap), every 5th day unlogged, day 60 marked incomplete.
    static func journal() throws -> (CalendarDay, [CalendarDay: IntakeDay], [WeightReading]) {
        let start = try CalendarDay(parsing: "2026-09-21")
        var intake: [CalendarDay: IntakeDay] = [:], weights: [WeightReading] = []
        for i in 0..<70 where !(20...35).contains(i) {
            let day = try start.adding(days: i)
            weights.append(WeightReading(day: day, kg: 84 - 0.06 * Double(i) + (i % 2 == 0 ? 0.3 : -0.3)))
            if i % 5 == 4 { continue }
            intake[day] = i == 60 ? .markedIncomplete : .counted(kcal: 2_000 + Double((i * 37) % 300))
        }
        return (try start.adding(days: 69), intake, weights)
    }

    @Test func theExpenditureShowsItsSumTheDaysLeftOutAndTheGap() throws {
        let (end, intake, weights) = try Self.journal()
        let e = Expenditure.estimate(on: end, intake: intake, weights: weights)
        #expect(e.gap != nil && e.expenditureKcal != nil)
        let metric = ExpenditureView.text(e, profile: Profile())
        let imperial = ExpenditureView.text(e, profile: Profile(units: .imperial))
        let early = ExpenditureView.text(Expenditure.estimate(on: try CalendarDay(parsing: "2026-09-30"), intake: intake, weights: weights),
                                         profile: Profile())
        let json = ExpenditureView.json(e).serialized
        try expectGolden([metric, imperial, early, json].joined(separator: "\n\n") + "\n", "expenditure.txt")
    }

    @Test func theWeightChartMarksTheTrendOnEachDay() throws {
        let (end, _, weights) = try Self.journal()
        let points = WeightTrend.points(weights)
        let from = try end.adding(days: -13)
        let rate = WeightTrend.slopePerDay(points, endingOn: end).map { $0 * 7 }
        var out: [String] = []
        for (profile, options) in [(Profile(), ChartOptions(width: 80)), (Profile(units: .imperial), ChartOptions(width: 100, unicode: false))] {
            out.append(Charts.weight(points, from: from, to: end, profile: profile, weeklyRateKg: rate, options: options))
        }
        out.append(Charts.weight([], from: from, to: end, profile: Profile(), weeklyRateKg: nil, options: ChartOptions()))
        try expectGolden(out.joined(separator: "\n\n") + "\n", "weight-trend.txt")
    }
}
