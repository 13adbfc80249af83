// Nutrient gaps: nutrients whose reported daily average is below a share of their FDA Daily
// Value, and the Food Bank or reference foods that close most of each gap per 100 kcal.
import Base
import Foundation
import Nutrition
import ReferenceFoods
import SQLiteKit

/// A food that supplies a nutrient densely: how much of it comes with 100 kcal of the food.
public struct GapFood: Sendable, Hashable, Codable {
    /// "food_bank" or "reference".
    public let source: String
    /// The Food Bank food's UUID or the USDA reference id.
    public let id: String
    public let name: String
    /// The nutrient in 100 kcal of the food, in the nutrient's unit.
    public let perHundredKcal: Double
    /// The share of the gap 100 kcal of the food closes (0.5 = half; may exceed 1).
    public let gapShare: Double

    enum CodingKeys: String, CodingKey {
        case source, id, name, perHundredKcal = "per_100_kcal", gapShare = "gap_share_per_100_kcal"
    }
}

/// One nutrient whose average falls short of its Daily Value.
public struct NutrientGap: Sendable, Hashable, Codable {
    public let nutrient: String
    public let name: String
    public let unit: String
    public let dailyValue: Double
    /// Average a day over the logged days that report the nutrient.
    public let average: Double
    /// average / dailyValue.
    public let fraction: Double
    /// Logged days that report the nutrient (the average's denominator).
    public let reportingDays: Int
    /// dailyValue − average.
    public let gap: Double
    /// Up to three foods that close most of the gap per 100 kcal (empty when none is known).
    public let foods: [GapFood]
    /// The foods of the journal that gave the most of it over the period (only when asked for).
    public let contributors: [FoodContribution]
    /// What the average is compared with: the person's goal once it is personal (from the profile's
    /// DRIs or set by them), else the Daily Value; `fraction` and `gap` are against it.
    public var target: Double? = nil
    public var targetOrigin: GoalOrigin? = nil

    enum CodingKeys: String, CodingKey {
        case nutrient, name, unit, dailyValue = "daily_value", average, fraction, reportingDays = "reporting_days", gap, foods,
             contributors, target, targetOrigin = "target_origin"
    }

    /// The amount the average is compared with.
    public var reference: Double { target ?? dailyValue }
}

/// The gaps of a period.
public struct GapReport: Sendable, Hashable, Codable {
    public let from: CalendarDay
    public let to: CalendarDay
    public let loggedDays: Int
    /// A nutrient is a gap when its average is below this share of its Daily Value.
    public let threshold: Double
    /// Largest shortfall (lowest fraction) first.
    public let gaps: [NutrientGap]
    /// Nutrients with a Daily Value that no entry of the period reports (not gaps: unknown).
    public let notReported: [String]
    /// True when some nutrient is compared with a personal target rather than its Daily Value.
    public var personalTargets: Bool = false

    enum CodingKeys: String, CodingKey {
        case from, to, loggedDays = "logged_days", threshold, gaps, notReported = "not_reported", personalTargets = "personal_targets"
    }
}

extension JournalStore {
    /// Nutrients a shortfall makes sense for: a Daily Value to reach (not a limit).
    public static var gapNutrients: [Nutrient] {
        // Energy and carbohydrate have reference amounts, not amounts to reach.
        NutrientCatalog.all.filter { $0.dailyValue != nil && $0.direction == .target && !["energy_kcal", "carbohydrate_g"].contains($0.id) }
    }

    /// Nutrients whose average a day over the logged days that report them is below
    /// `threshold` × their Daily Value from `from` through `to`; with `reference`, each gets up
    /// to 3 Food Bank or reference foods ranked by how much of the nutrient 100 kcal brings;
    /// with `contributors` > 0, the journal's foods that gave the most of it.
    public func nutrientGaps(from: CalendarDay, to: CalendarDay, threshold: Double = 0.8, reference: ReferenceDatabase? = nil,
                             contributors: Int = 0, in db: Database) throws -> GapReport {
        let candidates = Self.gapNutrients
        let summary = try rangeSummary(from: from, to: to, nutrients: candidates.map(\.id), in: db)
        // Personal targets (approved from the profile, or set by the person) replace the Daily Values.
        let goals = try self.goals(in: db), sources = try goalSources(in: db)
        func target(_ n: Nutrient) -> (Double, GoalOrigin)? {
            let origin = sources.origin(of: n.id, in: goals)
            if origin != .fdaDefault, let g = goals[n.id] { return (g, origin) }
            return n.dailyValue.map { ($0, .fdaDefault) }
        }
        var short: [(Nutrient, Double, Int)] = []
        var notReported: [String] = []
        for n in candidates {
            guard let (dv, _) = target(n) else { continue }
            let days = summary.reportingDays(n.id)
            guard days > 0, let avg = summary.dailyAverages[n.id] else {
                if summary.loggedDayCount > 0 { notReported.append(n.id) }
                continue
            }
            if avg < threshold * dv { short.append((n, avg, days)) }
        }
        let ranked = reference.map { _ in try? foodDensities(ids: short.map(\.0.id), reference: reference, in: db) } ?? nil
        let gaps = try short.map { n, avg, days -> NutrientGap in
            let (dv, origin) = target(n) ?? (n.dailyValue ?? 1, .fdaDefault)
            let gap = dv - avg
            let foods = (ranked?[n.id] ?? []).prefix(3).map { c in
                GapFood(source: c.source, id: c.id, name: c.name, perHundredKcal: c.per100, gapShare: gap > 0 ? c.per100 / gap : 0)
            }
            let top = contributors > 0 ? try nutrientBreakdown(n.id, from: from, to: to, limit: contributors, in: db).foods : []
            return NutrientGap(nutrient: n.id, name: n.displayName, unit: n.unit.rawValue, dailyValue: n.dailyValue ?? dv, average: avg,
                               fraction: avg / dv, reportingDays: days, gap: gap, foods: Array(foods), contributors: top,
                               target: dv, targetOrigin: origin)
        }.sorted { ($0.fraction, $0.nutrient) < ($1.fraction, $1.nutrient) }
        let personal = candidates.contains { target($0)?.1 != .fdaDefault }
        return GapReport(from: from, to: to, loggedDays: summary.loggedDayCount, threshold: threshold, gaps: gaps, notReported: notReported,
                         personalTargets: personal)
    }

    public func nutrientGaps(from: CalendarDay, to: CalendarDay, threshold: Double = 0.8, reference: ReferenceDatabase? = nil,
                             contributors: Int = 0) throws -> GapReport {
        try queue.read { try nutrientGaps(from: from, to: to, threshold: threshold, reference: reference, contributors: contributors, in: $0) }
    }

    struct DenseFood { let source: String; let id: String; let name: String; let per100: Double }

    /// Reference food groups left out of suggestions: not what a person eats to close a gap.
    static let skippedReferenceGroups: Set<String> = ["Baby Foods", "Spices and Herbs"]

    /// For each nutrient id, foods ranked by the amount in 100 kcal: active Food Bank foods and
    /// (when loaded) reference foods with at least 20 kcal per 100 g (so 100 kcal is at most
    /// 500 g), one per kind of food (the part of the USDA name before its first comma).
    func foodDensities(ids: [String], reference: ReferenceDatabase?, in db: Database) throws -> [String: [DenseFood]] {
        guard !ids.isEmpty else { return [:] }
        var out: [String: [DenseFood]] = [:]
        for item in try searchFoods("", limit: 10_000, in: db) {
            let f = item.food
            guard let kcal = f.nutrients["energy_kcal"], kcal >= 5 else { continue }
            for id in ids {
                guard let v = f.nutrients[id], v > 0 else { continue }
                out[id, default: []].append(DenseFood(source: "food_bank", id: f.id.uuidString, name: f.name, per100: v / kcal * 100))
            }
        }
        if let reference {
            for food in reference.allFoods where !Self.skippedReferenceGroups.contains(food.group) {
                if food.description.hasPrefix("Leavening agents") { continue }
                let per100g = food.nutrientsPer100g
                guard let kcal = per100g["energy_kcal"], kcal >= 20 else { continue }
                for id in ids {
                    guard let v = per100g[id], v > 0 else { continue }
                    out[id, default: []].append(DenseFood(source: "reference", id: food.id, name: food.description, per100: v / kcal * 100))
                }
            }
        }
        for (id, list) in out {
            var seen: Set<String> = []
            out[id] = list.sorted { ($1.per100, $0.name) < ($0.per100, $1.name) }.filter { food in
                let kind = food.source + ":" + (food.name.split(separator: ",").first.map(String.init) ?? food.name).lowercased()
                return seen.insert(kind).inserted
            }
        }
        return out
    }
}
