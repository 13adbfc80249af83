// Adaptive energy expenditure from logged intake and the body-weight trend (pure; no storage):
// energy balance over the preceding weeks, leaving out days that were not logged.
import Base
import Foundation

/// How the person marked a day's log: complete (every food is in) or incomplete (some are missing).
public enum DayMark: String, Sendable, Codable, CaseIterable {
    case complete, incomplete
}

/// One day's intake as the estimate reads it. A day with no entries is absent, never zero.
public enum IntakeDay: Sendable, Hashable {
    /// Logged and not marked incomplete: its energy counts.
    case counted(kcal: Double)
    /// Logged, but the person marked it incomplete: left out.
    case markedIncomplete
    /// Entries, but none of them reports energy: left out.
    case noEnergy
    /// Today, not marked complete: still being logged, so left out.
    case inProgress
}

/// The estimate as of one day, with everything it was made from (nil figures when there is not
/// enough data yet; `needsIntakeDays`/`needsWeighIns` then say how much more it needs).
public struct ExpenditureEstimate: Sendable, Hashable {
    public enum Confidence: String, Sendable, Codable { case high, medium, low }

    public var date: CalendarDay
    /// The first day of the stretch used (the window, or the recent stretch after a gap).
    public var windowStart: CalendarDay
    public var windowDays: Int
    /// Days whose intake counted.
    public var intakeDays: Int
    /// Days left out: nothing logged, marked incomplete, entries without energy.
    public var unloggedDays: Int
    public var incompleteDays: Int
    public var noEnergyDays: Int
    /// Today while it is still being logged (not marked complete).
    public var inProgressDays: Int = 0
    /// Weigh-ins in the stretch, and the days they fall on.
    public var weighIns: Int
    public var weighInDays: Int
    /// A gap of `Expenditure.gapDays` days or more without a counted day that the stretch starts after.
    public var gap: ClosedRange<CalendarDay>?
    public var meanIntakeKcal: Double?
    /// The weight trend's change in kg a day: the least-squares slope of the daily mean weights,
    /// each corrected for the intake swings of the counted days before it.
    public var trendKgPerDay: Double?
    public var expenditureKcal: Double?
    /// One standard error of the estimate in kcal (weight noise around the slope and the sampling of intake days).
    public var uncertaintyKcal: Double?
    public var confidence: Confidence?
    /// How many more counted days and weigh-in days the estimate needs (0 when enough).
    public var needsIntakeDays: Int
    public var needsWeighIns: Int
    /// More days the weigh-ins must cover (first to last, inclusive) before the slope means anything (0 when enough).
    public var needsSpanDays: Int

    public var leftOutDays: Int { unloggedDays + incompleteDays + noEnergyDays + inProgressDays }
}

/// Energy balance over the preceding weeks: expenditure = mean intake on the counted days −
/// `kcalPerKg` × the weight trend's change per day (a loss adds to expenditure, a gain takes away).
/// The trend's change is the least-squares slope of the daily mean weigh-ins (no EWMA lag), each
/// weigh-in first corrected by the counted days' intake above or below the mean before it (a big
/// dinner shows on the next morning's scale; on synthetic journals this removes about a third
/// of the error a plain slope has).
///
/// - **Energy density 7,700 kcal/kg** (≈ 3,500 kcal/lb, Wishnofsky's rule): the energy in a
///   kilogram of body fat tissue (about 87% fat at ~9 kcal/g). Over weeks most of a change in body
///   weight is fat tissue; over days water and glycogen swing the scale by a kilogram or more with
///   little energy, which is why the estimate needs weeks, not days.
/// - **Window**: the last 56 days up to the date (8 weeks). The slope's noise falls with the window's
///   length to the power 1.5, so 8 weeks is about three times steadier than 4 while a real change
///   in expenditure still shows in full within 8 weeks (half of it within 4).
/// - **Gaps**: a run of 14 days or more without a counted day (a pause in logging) ends the usable
///   past: only the stretch after it is used, and the estimate says so. Intake during a pause is
///   unknown, and the weight change across it would be read against the wrong days.
/// - **Left out**: days with no entries (never read as zero), days marked incomplete, days whose
///   entries report no energy, and today while it is being logged (unless marked complete). A
///   day with entries counts unless it is marked incomplete.
/// - **Enough data**: 14 counted days and weigh-ins on 8 days covering at least 14 days (first to last).
public enum Expenditure {
    public static let kcalPerKg = 7_700.0
    public static let windowDays = 56
    public static let gapDays = 14
    public static let minIntakeDays = 14
    public static let minWeighInDays = 8
    public static let minSpanDays = 14

    /// The estimate as of `date` from `intake` (days absent are unlogged) and `weights`.
    public static func estimate(on date: CalendarDay, intake: [CalendarDay: IntakeDay], weights: [WeightReading]) -> ExpenditureEstimate {
        let windowFirst = date.dayNumber - windowDays + 1
        // The counted days in the window, oldest first; a gap of gapDays or more restarts the stretch.
        let countedDays = intake.compactMap { day, status -> Int? in
            guard case .counted = status, day.dayNumber >= windowFirst, day.dayNumber <= date.dayNumber else { return nil }
            return day.dayNumber
        }.sorted()
        var start = windowFirst
        var gap: ClosedRange<CalendarDay>?
        var previous: Int?
        for d in countedDays {
            if let p = previous, d - p - 1 >= gapDays, let a = try? CalendarDay(dayNumber: p + 1), let b = try? CalendarDay(dayNumber: d - 1) {
                gap = a...b
                start = d
            }
            previous = d
        }
        if let last = countedDays.last, date.dayNumber - last >= gapDays,
           let a = try? CalendarDay(dayNumber: last + 1) {
            // Nothing counted for weeks up to the date: the stretch is those weeks, with no intake in them.
            gap = a...date
            start = last + 1
        }
        // Before the journal's first data, days are not "unlogged": the window starts at the first data.
        let firstData = min(countedDays.first(where: { $0 >= start }) ?? Int.max,
                            weights.map(\.day.dayNumber).filter { $0 >= start && $0 <= date.dayNumber }.min() ?? Int.max)
        if gap == nil, firstData != Int.max { start = max(start, firstData) }
        start = min(start, date.dayNumber)
        let startDay = (try? CalendarDay(dayNumber: start)) ?? date

        var intakeValues: [Double] = []
        var unlogged = 0, incomplete = 0, noEnergy = 0, inProgress = 0
        for n in start...date.dayNumber {
            guard let day = try? CalendarDay(dayNumber: n) else { continue }
            switch intake[day] {
            case .counted(let kcal)?: intakeValues.append(kcal)
            case .markedIncomplete?: incomplete += 1
            case .noEnergy?: noEnergy += 1
            case .inProgress?: inProgress += 1
            case nil: unlogged += 1
            }
        }
        let readings = weights.filter { $0.day.dayNumber >= start && $0.day.dayNumber <= date.dayNumber }
        let points = WeightTrend.points(readings)
        // The days the weigh-ins cover, first to last inclusive.
        let span = (points.first.map { $0.day.days(to: points.last?.day ?? $0.day) + 1 }) ?? 0

        var e = ExpenditureEstimate(
            date: date, windowStart: startDay, windowDays: date.dayNumber - start + 1,
            intakeDays: intakeValues.count, unloggedDays: unlogged, incompleteDays: incomplete, noEnergyDays: noEnergy,
            weighIns: readings.count, weighInDays: points.count, gap: gap,
            needsIntakeDays: max(0, minIntakeDays - intakeValues.count), needsWeighIns: max(0, minWeighInDays - points.count),
            needsSpanDays: max(0, minSpanDays - span))
        e.inProgressDays = inProgress
        if !intakeValues.isEmpty { e.meanIntakeKcal = intakeValues.reduce(0, +) / Double(intakeValues.count) }
        // A day's weight carries the food of the days before it: a big dinner shows on the next
        // morning's scale. Each weigh-in is corrected by the intake swings before it (counted days'
        // intake minus the mean, over kcalPerKg; left-out days at the mean), so the slope reads the
        // balance, not the week's feasts and light days.
        let mean0 = e.meanIntakeKcal ?? 0
        var swing: [Int: Double] = [:]
        var running = 0.0
        for n in start...date.dayNumber {
            swing[n] = running
            if let day = try? CalendarDay(dayNumber: n), case .counted(let kcal)? = intake[day] { running += kcal - mean0 }
        }
        let fit = slope(points.map { (Double($0.day.dayNumber - start), $0.mean - (swing[$0.day.dayNumber] ?? 0) / kcalPerKg) })
        e.trendKgPerDay = fit?.slope
        guard e.needsIntakeDays == 0, e.needsWeighIns == 0, e.needsSpanDays == 0, let mean = e.meanIntakeKcal, let fit else { return e }

        let expenditure = mean - kcalPerKg * fit.slope
        // The intake days are a sample of the stretch's days: the standard error of their mean,
        // with the finite-population correction (all days counted: no sampling error).
        let n = Double(intakeValues.count), total = Double(e.windowDays)
        let variance = intakeValues.count > 1 ? intakeValues.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / (n - 1) : 0
        let intakeSE = (variance / n * max(0, 1 - n / total)).squareRoot()
        let uncertainty = ((kcalPerKg * fit.standardError) * (kcalPerKg * fit.standardError) + intakeSE * intakeSE).squareRoot()
        e.expenditureKcal = expenditure
        e.uncertaintyKcal = uncertainty
        e.confidence = uncertainty <= 100 && intakeValues.count >= 21 ? .high : uncertainty <= 200 ? .medium : .low
        return e
    }

    /// The least-squares slope of `(x, y)` and its standard error (nil with fewer than 3 points or one x).
    static func slope(_ xy: [(Double, Double)]) -> (slope: Double, standardError: Double)? {
        guard xy.count >= 3 else { return nil }
        let n = Double(xy.count)
        let mx = xy.map(\.0).reduce(0, +) / n, my = xy.map(\.1).reduce(0, +) / n
        var sxx = 0.0, sxy = 0.0
        for (x, y) in xy {
            sxx += (x - mx) * (x - mx)
            sxy += (x - mx) * (y - my)
        }
        guard sxx > 0 else { return nil }
        let b = sxy / sxx
        var ssr = 0.0
        for (x, y) in xy {
            let r = y - (my + b * (x - mx))
            ssr += r * r
        }
        return (b, (ssr / (n - 2) / sxx).squareRoot())
    }

    /// The calorie target for a weekly weight change of `kgPerWeek` (negative to lose) at `expenditure`.
    public static func target(expenditure: Double, kgPerWeek: Double) -> Double {
        expenditure + kgPerWeek * kcalPerKg / 7
    }
}
