// The smoothed body-weight trend and its weekly rate, from weigh-ins (pure; no storage).
import Base
import Foundation

/// One weigh-in as the trend needs it: its day and kilograms.
public struct WeightReading: Sendable, Hashable {
    public var day: CalendarDay
    public var kg: Double
    public init(day: CalendarDay, kg: Double) {
        self.day = day
        self.kg = kg
    }
}

/// The trend on one day that has weigh-ins: their mean and the smoothed value.
public struct TrendPoint: Sendable, Hashable {
    public var day: CalendarDay
    /// The mean of the day's weigh-ins.
    public var mean: Double
    public var weighIns: Int
    public var trend: Double
}

/// An exponentially weighted trend as in The Hacker's Diet (each day's reading counts 10% in
/// the steady state, a half-life of about 6.6 days), with two changes:
/// - **No start-up bias.** Instead of seeding the average with the first weigh-in (whose noise
///   then weighs 90% on day 2 and fades slowly), the trend on a day is the weighted mean of every
///   reading so far with weights 0.9^(days ago), normalised by the sum of the weights (the
///   bias-corrected EWMA). Day 1 is its reading; from then on each reading counts as much as its
///   age says, and after a few weeks it is the classic EWMA exactly.
/// - **Time-aware.** Weights decay per calendar day, not per reading, so a week without weighing
///   counts as a week; several weigh-ins on one day count as one reading, their mean.
///
/// The weekly rate is not read off the trend (an EWMA lags a steady change by about 9 days, which
/// flattens a rate measured from its recent change while it warms up): it is the least-squares
/// slope of the daily means over the last `rateWindowDays` days, which has no lag for a steady change.
public enum WeightTrend {
    public static let smoothing = 0.1
    public static let rateWindowDays = 28

    /// One point per day with weigh-ins, in day order.
    public static func points(_ readings: [WeightReading]) -> [TrendPoint] {
        var byDay: [(day: CalendarDay, sum: Double, n: Int)] = []
        for r in readings.sorted(by: { $0.day < $1.day }) {
            if let last = byDay.last, last.day == r.day {
                byDay[byDay.count - 1].sum += r.kg
                byDay[byDay.count - 1].n += 1
            } else {
                byDay.append((r.day, r.kg, 1))
            }
        }
        var out: [TrendPoint] = []
        out.reserveCapacity(byDay.count)
        var weightedSum = 0.0, weights = 0.0
        var previous: CalendarDay?
        for d in byDay {
            let mean = d.sum / Double(d.n)
            if let p = previous {
                let decay = pow(1 - smoothing, Double(p.days(to: d.day)))
                weightedSum *= decay
                weights *= decay
            }
            weightedSum += mean
            weights += 1
            previous = d.day
            out.append(TrendPoint(day: d.day, mean: mean, weighIns: d.n, trend: weightedSum / weights))
        }
        return out
    }

    /// The least-squares slope in kg a day of the daily means within `days` days up to `end`
    /// (nil with fewer than two days of weigh-ins or when they span less than a week).
    public static func slopePerDay(_ points: [TrendPoint], endingOn end: CalendarDay, days: Int = rateWindowDays) -> Double? {
        let first = end.dayNumber - days + 1
        let used = points.filter { $0.day.dayNumber >= first && $0.day.dayNumber <= end.dayNumber }
        guard used.count >= 2, let a = used.first, let b = used.last, a.day.days(to: b.day) >= 7 else { return nil }
        let xs = used.map { Double($0.day.dayNumber - first) }, ys = used.map(\.mean)
        let mx = xs.reduce(0, +) / Double(xs.count), my = ys.reduce(0, +) / Double(ys.count)
        var sxy = 0.0, sxx = 0.0
        for (x, y) in zip(xs, ys) {
            sxy += (x - mx) * (y - my)
            sxx += (x - mx) * (x - mx)
        }
        return sxx > 0 ? sxy / sxx : nil
    }
}
