// Deterministic synthetic journals for tests and benchmarks (seeded; same seed, same data).
import Base
import Foundation
import Nutrition
import SQLiteKit

public enum JournalFixtures {
    /// What `generateYears` wrote.
    public struct Summary: Sendable, Hashable {
        public let firstDay: CalendarDay
        public let lastDay: CalendarDay
        public let entryCount: Int
        public let foodIDs: [UUID]
    }

    /// Fills `db` (journal tables migrated) with `years` of entries ending on `lastDay`, about
    /// 11 a day (≈40,000 for 10 years), and `foods` saved foods, about a fifth on the Shelf.
    /// Deterministic from `seed`. Writes in one transaction.
    @discardableResult
    public static func generateYears(_ years: Int = 10, endingOn lastDay: CalendarDay, foods foodCount: Int = 3_000,
                                     seed: UInt64 = 42, store: JournalStore, in db: Database) throws -> Summary {
        var rng = SplitMix64(seed: seed)
        let firstDay = try lastDay.adding(days: -(years * 365) + 1)
        let dayStartMs = Int64(firstDay.dayNumber) * 86_400_000
        return try db.transaction { db in
            var foods: [SavedFood] = []
            foods.reserveCapacity(foodCount)
            for i in 0..<foodCount {
                let created = Date(milliseconds: dayStartMs + Int64(rng.next(upTo: 86_400_000)))
                let name = "\(adjectives[rng.next(upTo: adjectives.count)]) \(nouns[rng.next(upTo: nouns.count)]) \(i)"
                let brand: String? = rng.next(upTo: 3) == 0 ? nil : brands[rng.next(upTo: brands.count)]
                let food = SavedFood(id: rng.uuid(), kind: .single, name: name, brand: brand,
                                     serving: ServingSize(quantity: Double(20 + rng.next(upTo: 230)), unit: .mass(.g)),
                                     nutrients: randomNutrients(&rng), isOnShelf: rng.next(upTo: 5) == 0,
                                     isManuallyArchived: rng.next(upTo: 20) == 0, lastUsedAt: nil, createdAt: created)
                try store.upsertFood(food, in: db)
                foods.append(food)
            }
            var count = 0
            var lastUsed: [Int: Int64] = [:]
            var d = firstDay
            while d <= lastDay {
                let perDay = 8 + rng.next(upTo: 7)
                let dayMs = Int64(d.dayNumber) * 86_400_000
                for k in 0..<perDay {
                    let meal: Meal = [.breakfast, .lunch, .dinner, .snack][k % 4]
                    let at = Date(milliseconds: dayMs + Int64(7 * 3_600_000 + k * 3_600_000 + rng.next(upTo: 1_800_000)))
                    let entry: Entry
                    if !foods.isEmpty && rng.next(upTo: 10) < 7 {
                        let fi = rng.next(upTo: foods.count)
                        let f = foods[fi]
                        entry = Entry(id: rng.uuid(), day: d, meal: meal, name: f.name, brand: f.brand, serving: f.serving,
                                      servings: [0.5, 1, 1, 1, 1.5, 2][rng.next(upTo: 6)], nutrients: f.nutrients,
                                      savedFoodID: f.id, source: .foodBank, createdAt: at, updatedAt: at)
                        lastUsed[fi] = at.milliseconds
                    } else {
                        entry = Entry(id: rng.uuid(), day: d, meal: meal, name: "\(adjectives[rng.next(upTo: adjectives.count)]) \(nouns[rng.next(upTo: nouns.count)])",
                                      brand: nil, serving: ServingSize(quantity: 1, unit: .count("serving")), servings: 1,
                                      nutrients: randomNutrients(&rng), savedFoodID: nil,
                                      source: [.manual, .assistant, .reference][rng.next(upTo: 3)], createdAt: at, updatedAt: at)
                    }
                    try store.insertEntry(entry, in: db)
                    count += 1
                }
                d = try d.adding(days: 1)
            }
            for (fi, ms) in lastUsed.sorted(by: { $0.key < $1.key }) {
                try db.execute("UPDATE journal_saved_foods SET last_used_at = ? WHERE id = ?", [ms, foods[fi].id.uuidString])
            }
            try store.rebuildAllDayTotals(in: db)
            return Summary(firstDay: firstDay, lastDay: lastDay, entryCount: count, foodIDs: foods.map(\.id))
        }
    }

    /// `generateYears` in its own transaction on `store.queue`.
    @discardableResult
    public static func generateYears(_ years: Int = 10, endingOn lastDay: CalendarDay, foods foodCount: Int = 3_000,
                                     seed: UInt64 = 42, store: JournalStore) throws -> Summary {
        try store.queue.write { try generateYears(years, endingOn: lastDay, foods: foodCount, seed: seed, store: store, in: $0) }
    }

    static func randomNutrients(_ rng: inout SplitMix64) -> NutrientAmounts {
        var v: [String: Double] = [
            "energy_kcal": Double(20 + rng.next(upTo: 600)),
            "protein_g": Double(rng.next(upTo: 400)) / 10,
            "carbohydrate_g": Double(rng.next(upTo: 800)) / 10,
            "fat_g": Double(rng.next(upTo: 300)) / 10,
        ]
        let micro = ["fiber_g", "sugars_g", "sodium_mg", "saturated_fat_g", "cholesterol_mg", "calcium_mg", "iron_mg",
                     "potassium_mg", "vitamin_c_mg", "vitamin_a_mcg", "magnesium_mg", "zinc_mg"]
        for id in micro where rng.next(upTo: 3) != 0 { v[id] = Double(rng.next(upTo: 5000)) / 10 }
        if rng.next(upTo: 10) == 0 { v.removeValue(forKey: "fat_g") } // some entries do not report fat
        return (try? NutrientAmounts(v)) ?? NutrientAmounts()
    }

    static let adjectives = ["Greek", "Roasted", "Grilled", "Fresh", "Spicy", "Sweet", "Whole", "Organic", "Smoked", "Baked",
                             "Steamed", "Crispy", "Creamy", "Plain", "Honey", "Garlic", "Lemon", "Vanilla", "Chocolate", "Wild"]
    static let nouns = ["yogurt", "chicken breast", "salmon", "oatmeal", "banana", "apple", "rice", "pasta", "tofu", "eggs",
                        "almonds", "bread", "cheese", "milk", "lentils", "broccoli", "spinach", "beef", "granola", "soup",
                        "salad", "burrito", "pizza", "sandwich", "smoothie", "coffee", "tea", "beans", "quinoa", "avocado"]
    static let brands = ["Trader Joe's", "Chobani", "Kirkland", "Fage", "Quaker", "Barilla", "Annie's", "Kind", "Clif",
                         "Oatly", "Siggi's", "Dave's Killer Bread", "Amy's", "Nature Valley", "Starbucks"]
}

/// A small, fast, seedable random generator (SplitMix64).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// 0..<n (n > 0).
    public mutating func next(upTo n: Int) -> Int { Int(next() % UInt64(max(1, n))) }
    /// A version-4-shaped UUID from the stream.
    public mutating func uuid() -> UUID {
        let a = next(), b = next()
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 { bytes[i] = UInt8(truncatingIfNeeded: a >> (8 * UInt64(i))); bytes[8 + i] = UInt8(truncatingIfNeeded: b >> (8 * UInt64(i))) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
