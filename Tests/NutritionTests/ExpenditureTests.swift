// Adaptive expenditure (issue 33 §4) against synthetic journals with a known true expenditure:
// daily weight noise, unlogged and incomplete days, gaps, and the trend's start-up.
import Testing
import Base
import Foundation
@testable import Nutrition

/// A seeded generator (SplitMix64) with normal deviates (Box–Muller): same seed, same journal.
struct SeededRandom {
    var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func normal(_ mean: Double, _ sd: Double) -> Double {
        let u1 = max(uniform(), 1e-12), u2 = uniform()
        return mean + sd * (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}

/// A person whose true expenditure is `trueKcal`: each day they eat around `meanIntake` (sd 250),
/// and their true weight moves by the day's balance / 7,700 kcal/kg. They log `logged` of the
/// days (some of those marked incomplete) and weigh in on `weighed` of them with noise `noise` kg.
struct SyntheticJournal {
    var intake: [CalendarDay: IntakeDay] = [:]
    var weights: [WeightReading] = []
    var trueWeight: [CalendarDay: Double] = [:]
    let start: CalendarDay

    init(seed: UInt64, days: Int = 90, trueKcal: Double = 2_600, meanIntake: Double = 2_100, logged: Double = 0.8,
         incomplete: Double = 0.05, weighed: Double = 0.85, noise: Double = 0.25, skip: ClosedRange<Int>? = nil) throws {
        var r = SeededRandom(seed)
        start = try CalendarDay(parsing: "2025-01-01")
        var w = 88.0
        for i in 0..<days {
            let day = try start.adding(days: i)
            let eaten = r.normal(meanIntake, 250)
            trueWeight[day] = w
            let paused = skip?.contains(i) ?? false
            if !paused, r.uniform() < weighed { weights.append(WeightReading(day: day, kg: w + r.normal(0, noise))) }
            if !paused, r.uniform() < logged {
                // An incomplete day shows only part of what was eaten; the person marked it.
                intake[day] = r.uniform() < incomplete ? .markedIncomplete : .counted(kcal: eaten)
            }
            w += (eaten - trueKcal) / Expenditure.kcalPerKg
        }
    }

    func estimate(onDay i: Int) throws -> ExpenditureEstimate {
        Expenditure.estimate(on: try start.adding(days: i), intake: intake, weights: weights)
    }
}

@Suite struct ExpenditureTests {
    @Test func the90DayJournalIsWithin100KcalByDay28AndStaysThere() throws {
        for seed: UInt64 in [1, 2, 3] {
            let j = try SyntheticJournal(seed: seed)
            for i in 27..<90 {
                let e = try j.estimate(onDay: i)
                let kcal = try #require(e.expenditureKcal, "seed \(seed) day \(i + 1): no estimate")
                #expect(abs(kcal - 2_600) <= 100, "seed \(seed) day \(i + 1): \(Int(kcal)) kcal")
                #expect(e.intakeDays + e.leftOutDays == e.windowDays)
                #expect(e.windowDays <= min(i + 1, Expenditure.windowDays))
            }
        }
    }

    @Test func unloggedDaysAreLeftOutNotReadAsZero() throws {
        // Half the days unlogged: reading them as zero would put the estimate ~1,000 kcal low.
        let j = try SyntheticJournal(seed: 7, logged: 0.5, noise: 0.2)
        let e = try j.estimate(onDay: 89)
        let kcal = try #require(e.expenditureKcal)
        #expect(abs(kcal - 2_600) <= 150)
        #expect(e.unloggedDays > 20)
        #expect(e.meanIntakeKcal.map { abs($0 - 2_100) < 120 } == true)
    }

    @Test func aDayMarkedIncompleteIsLeftOutAndCounted() throws {
        let j = try SyntheticJournal(seed: 4, incomplete: 0.2)
        let e = try j.estimate(onDay: 89)
        #expect(e.incompleteDays > 0)
        #expect(e.incompleteDays == j.intake.filter { $0.key >= e.windowStart && $0.value == .markedIncomplete }.count)
    }

    @Test func notEnoughDataBefore14LoggedDaysSaysWhatIsMissing() throws {
        let j = try SyntheticJournal(seed: 5, logged: 1, incomplete: 0, weighed: 1)
        for i in 0..<13 {
            let e = try j.estimate(onDay: i)
            #expect(e.expenditureKcal == nil)
            #expect(e.needsIntakeDays == 14 - (i + 1))
        }
        // Weigh-ins twice a week only: 14 logged days are there, weigh-ins are not.
        var sparse = j
        sparse.weights = j.weights.filter { j.start.days(to: $0.day) % 4 == 0 }
        let e = try sparse.estimate(onDay: 15)
        #expect(e.expenditureKcal == nil && e.needsIntakeDays == 0 && e.needsWeighIns == 8 - 4)
        #expect(try j.estimate(onDay: 13).expenditureKcal != nil)
    }

    @Test func aGapOfWeeksUsesTheRecentStretchOnly() throws {
        // Logging and weighing stop for days 30-49: the estimate on day 75 uses days 50-75.
        let j = try SyntheticJournal(seed: 9, noise: 0.2, skip: 30...49)
        let e = try j.estimate(onDay: 75)
        let gap = try #require(e.gap)
        #expect(e.windowStart > gap.upperBound)
        #expect(e.windowStart.dayNumber >= j.start.dayNumber + 50)
        #expect(gap.lowerBound.dayNumber <= j.start.dayNumber + 30)
        #expect(e.unloggedDays < 10)
        #expect(abs((e.expenditureKcal ?? 0) - 2_600) <= 250)
        // Weeks with nothing logged up to the date: nothing to estimate, and it says from when.
        let stopped = try SyntheticJournal(seed: 9, days: 60, skip: 40...59)
        let s = try stopped.estimate(onDay: 59)
        #expect(s.expenditureKcal == nil && s.gap != nil && s.intakeDays == 0)
    }

    @Test func theConfidenceFollowsTheData() throws {
        let early = try SyntheticJournal(seed: 2).estimate(onDay: 20)
        let late = try SyntheticJournal(seed: 2).estimate(onDay: 89)
        #expect(try #require(early.uncertaintyKcal) > (late.uncertaintyKcal ?? .infinity))
        #expect(late.confidence == .high)
        #expect(early.confidence != .high)
    }

    @Test func theTrendHasNoStartUpBias() throws {
        // A steady 80 kg with ±0.5 kg noise, 200 people: the bias-corrected trend of the first days
        // averages the true weight and is closer to it than an EWMA seeded with the first weigh-in.
        var meanError = [Double](repeating: 0, count: 7), squared = meanError, seededSquared = meanError
        for seed in 0..<200 {
            var r = SeededRandom(UInt64(seed) + 100)
            let start = try CalendarDay(parsing: "2025-01-01")
            let readings = try (0..<7).map { WeightReading(day: try start.adding(days: $0), kg: 80 + r.normal(0, 0.5)) }
            var seeded = readings[0].kg
            for (i, p) in WeightTrend.points(readings).enumerated() {
                if i > 0 { seeded += WeightTrend.smoothing * (p.mean - seeded) }
                meanError[i] += (p.trend - 80) / 200
                squared[i] += (p.trend - 80) * (p.trend - 80) / 200
                seededSquared[i] += (seeded - 80) * (seeded - 80) / 200
            }
        }
        for i in 0..<7 { #expect(abs(meanError[i]) < 0.1, "day \(i + 1)") }
        for i in 1..<7 { #expect(squared[i] < seededSquared[i], "day \(i + 1)") }
    }

    @Test func theTargetForARateUses7700KcalPerKg() {
        #expect(Expenditure.target(expenditure: 2_500, kgPerWeek: -0.5) == 2_500 - 550)
        #expect(Expenditure.target(expenditure: 2_500, kgPerWeek: 0) == 2_500)
    }
}
