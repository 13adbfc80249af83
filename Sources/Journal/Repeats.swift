// Logging again what was logged before: the amount a food was last logged with (issue 34 §1).
import Base
import Foundation
import Nutrition
import SQLiteKit

/// The amount a food was logged with last time, and how to say it ("80 g", "2 servings (80 g)").
public struct LastAmount: Sendable, Hashable {
    public var amount: FoodAmount
    public var label: String
    /// The entry it comes from.
    public var entryID: UUID

    /// "same as last time: 80 g", for the output and the card.
    public var note: String { "same as last time: \(label)" }
}

extension JournalStore {
    /// The newest entry logged from saved food `foodID` with an amount of it (a calculator
    /// build has none), or nil when it was never logged.
    public func lastEntry(ofFood foodID: UUID, in db: Database) throws -> Entry? {
        try loadEntries(where: "saved_food_id = ? AND source != 'calculator'", [foodID.uuidString],
                        order: "created_at DESC, seq DESC", limit: 1, in: db).first
    }

    /// The newest entry of a reference food (logged under its USDA description, not from a saved food).
    public func lastReferenceEntry(named description: String, in db: Database) throws -> Entry? {
        let name = description.count > Limits.name ? String(description.prefix(Limits.name - 1)) + "…" : description
        return try loadEntries(where: "name = ? AND source = 'reference' AND saved_food_id IS NULL", [name],
                               order: "created_at DESC, seq DESC", limit: 1, in: db).first
    }

    /// The amount of `food` its newest entry was logged with, as `logFood` takes it; nil when
    /// the food was never logged.
    public func lastAmount(of food: SavedFood, in db: Database) throws -> LastAmount? {
        guard let e = try lastEntry(ofFood: food.id, in: db) else { return nil }
        return JournalStore.lastAmount(of: food, from: e)
    }

    public func lastAmount(of food: SavedFood) throws -> LastAmount? { try queue.read { try lastAmount(of: food, in: $0) } }

    /// An entry's amount of `food`: a count of servings when it was logged by the food's own
    /// serving, otherwise the quantity it was logged as (servings multiplied in).
    public static func lastAmount(of food: SavedFood, from e: Entry) -> LastAmount {
        if e.serving.quantity == food.serving.quantity && e.serving.unit == food.serving.unit {
            let n = e.servings
            var label = "\(n.formattedAmount) serving\(n == 1 ? "" : "s")"
            if let g = food.serving.grams { label += " (\((g * n).formattedAmount) g)" }
            return LastAmount(amount: .servings(n), label: label, entryID: e.id)
        }
        let q = e.serving.quantity * e.servings
        return LastAmount(amount: .quantity(q, e.serving.unit), label: "\(q.formattedAmount) \(e.serving.unit.symbol)", entryID: e.id)
    }

    /// The amount and servings of a reference food's newest entry, for logging it again.
    public static func lastReferenceAmount(from e: Entry) -> (amount: ReferenceAmount, servings: Double, label: String)? {
        guard let grams = e.serving.grams, grams > 0 else { return nil }
        let label = e.servings == 1 ? e.serving.label : "\(e.servings.formattedAmount) × \(e.serving.label)"
        return (ReferenceAmount(grams: grams, serving: e.serving, label: e.serving.label), e.servings, label)
    }
}

// MARK: - Copying a meal or a day (issue 34 §2)

extension JournalStore {
    /// The entries of `day` (only `meal`'s when given), in the order they were logged.
    public func entriesToCopy(from day: CalendarDay, meal: Meal?, in db: Database) throws -> [Entry] {
        try dayView(day, in: db).entries.filter { meal == nil || $0.meal == meal }
    }

    /// How many of `entries` the target day already holds as they would be copied (same meal,
    /// name, serving, servings and nutrients): a copy made twice.
    public func copiesAlreadyThere(_ entries: [Entry], to target: CalendarDay, meal targetMeal: Meal?, in db: Database) throws -> Int {
        let there = try dayView(target, in: db).entries
        return entries.filter { e in
            there.contains { t in
                t.meal == (targetMeal ?? e.meal) && t.name == e.name && t.serving == e.serving && t.servings == e.servings && t.nutrients == e.nutrients
            }
        }.count
    }

    /// Copies `entries` to `target` (to `targetMeal`, or each to its own meal) in one transaction,
    /// so the copy is one undo step; each copy keeps its original's serving, servings, nutrients,
    /// source, saved food and derived marks, and gets a new id and times. A copy to the same meal
    /// is eaten at the original's time of day on the target day; one to another meal, now.
    @discardableResult
    public func copyEntries(_ entries: [Entry], to target: CalendarDay, meal targetMeal: Meal?, in db: Database) throws -> [Entry] {
        guard !entries.isEmpty else { throw JournalError.invalid(field: "copy", reason: "has no entries to copy") }
        return try db.transaction { db in
            try entries.map { e in
                let sameMeal = targetMeal == nil || targetMeal == e.meal
                let eaten = sameMeal ? date(on: target, minute: minuteOfDay(eatenTime(e))) : nil
                return try logEntry(EntryDraft(day: target, meal: targetMeal ?? e.meal, name: e.name, brand: e.brand, serving: e.serving,
                                               servings: e.servings, nutrients: e.nutrients, savedFoodID: e.savedFoodID, source: e.source,
                                               derivedNutrients: Set(e.derivedNutrients ?? []), eatenAt: eaten,
                                               mealLabel: targetMeal == nil ? e.mealLabel : nil), in: db)
            }
        }
    }
}
