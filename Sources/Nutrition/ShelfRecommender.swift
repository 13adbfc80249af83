// The deterministic Shelf recommender: ranks shelf foods at 0.5x/1x/1.5x/2x servings against
// what is left of today's goals, with a plain-language reason. No AI, no network.
import Base
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One suggestion: a shelf food at a serving multiple, its score and why.
public struct ShelfRecommendation: Sendable, Hashable, Codable {
    public let foodID: UUID
    public let name: String
    public let brand: String?
    /// 0.5, 1, 1.5 or 2 servings.
    public let servings: Double
    public let servingLabel: String
    /// Nutrients for `servings` servings.
    public let nutrients: NutrientAmounts
    public let score: Double
    public let reason: String

    enum CodingKeys: String, CodingKey {
        case foodID = "food_id", name, brand, servings, servingLabel = "serving_label", nutrients, score, reason
    }
}

public enum ShelfRecommender {
    public static let multipliers: [Double] = [0.5, 1, 1.5, 2]

    /// How much filling each target nutrient counts; others with a goal count 0.2.
    static let weights: [String: Double] = ["energy_kcal": 1.0, "protein_g": 1.5, "fiber_g": 1.0, "carbohydrate_g": 0.5]
    static let overPenalty = 4.0

    /// Ranks the foods on the Shelf (manually archived and calculator foods are skipped) by
    /// their best serving multiple. Ties break by score, then name, then id, so the same input
    /// always gives the same order.
    public static func recommend(foods: [SavedFood], goals: Goals, consumed: NutrientTotals, limit: Int = 5) -> [ShelfRecommendation] {
        let remaining = goals.remaining(after: consumed)
        var best: [ShelfRecommendation] = []
        for food in foods where food.isOnShelf && !food.isManuallyArchived && food.kind != .calculator && !food.nutrients.isEmpty {
            var top: ShelfRecommendation?
            for m in multipliers {
                let amounts = food.nutrients.scaled(by: m)
                let s = score(amounts, goals: goals, remaining: remaining)
                if top == nil || s > (top?.score ?? -.infinity) {
                    top = ShelfRecommendation(foodID: food.id, name: food.name, brand: food.brand, servings: m,
                                              servingLabel: servingLabel(food.serving, m), nutrients: amounts, score: s,
                                              reason: reason(amounts, servings: m, goals: goals, remaining: remaining))
                }
            }
            if let top { best.append(top) }
        }
        best.sort { a, b in
            if a.score != b.score { return a.score > b.score }
            let (na, nb) = (a.name.lowercased(), b.name.lowercased())
            if na != nb { return na < nb }
            if a.name != b.name { return a.name < b.name }
            return a.foodID.uuidString < b.foodID.uuidString
        }
        return Array(best.prefix(max(0, limit)))
    }

    /// Reward for filling what is left of targets, penalty for going over energy or a limit.
    /// Rounded to 1e-6 so that float noise never reorders equal foods.
    static func score(_ amounts: NutrientAmounts, goals: Goals, remaining: [String: Double]) -> Double {
        var s = 0.0
        for id in goals.ids {
            guard let goal = goals[id], goal > 0, let a = amounts[id], let rem = remaining[id] else { continue }
            let left = max(rem, 0)
            if Goals.direction(id) == .target && left > 0 {
                s += (weights[id] ?? 0.2) * min(a, left) / left
            }
            if Goals.direction(id) == .limit || id == "energy_kcal" {
                let over = max(0, a - left)
                s -= overPenalty * (weights[id] ?? 0.5) * over / goal
            }
        }
        return (s * 1_000_000).rounded() / 1_000_000
    }

    static func servingLabel(_ serving: ServingSize, _ m: Double) -> String {
        "\((serving.quantity * m).formattedAmount) \(serving.unit.symbol)"
    }

    /// "covers 45% of your remaining protein (27 g of 60 g left); 180 kcal of 700 kcal left."
    static func reason(_ amounts: NutrientAmounts, servings m: Double, goals: Goals, remaining: [String: Double]) -> String {
        var parts: [String] = []
        let servingsText = m == 1 ? "1 serving" : "\(m.formattedAmount) servings"
        // The target nutrient (not energy) this portion helps most with.
        var bestID: String?
        var bestGain = 0.0
        for id in goals.ids where id != "energy_kcal" && Goals.direction(id) == .target {
            guard let a = amounts[id], let rem = remaining[id], rem > 0 else { continue }
            let gain = (weights[id] ?? 0.2) * min(a, rem) / rem
            if gain > bestGain { bestGain = gain; bestID = id }
        }
        if let id = bestID, let a = amounts[id], let rem = remaining[id] {
            let unit = NutrientCatalog.nutrient(id)?.unit.rawValue ?? ""
            let pct = (min(a, rem) / rem * 100).clampedInt
            parts.append("\(servingsText) covers \(pct)% of your remaining \(NutrientCatalog.displayName(id).lowercased()) (\(a.formattedAmount) \(unit) of \(rem.formattedAmount) \(unit) left)")
        } else {
            parts.append("\(servingsText) adds little toward your remaining goals")
        }
        if let kcal = amounts["energy_kcal"], let rem = remaining["energy_kcal"] {
            if kcal <= rem {
                parts.append("\(kcal.formattedAmount) kcal fits in the \(max(rem, 0).formattedAmount) kcal you have left")
            } else {
                parts.append("\(kcal.formattedAmount) kcal goes \((kcal - max(rem, 0)).formattedAmount) kcal over your calorie goal")
            }
        }
        for id in goals.ids where Goals.direction(id) == .limit {
            guard let a = amounts[id], let rem = remaining[id], a > max(rem, 0) else { continue }
            parts.append("goes over your \(NutrientCatalog.displayName(id).lowercased()) limit")
            break
        }
        return parts.joined(separator: "; ")
    }
}
