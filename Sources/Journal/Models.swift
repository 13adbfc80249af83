// Journal values: entries (snapshots), drafts and updates, and the shapes queries return.
import Base
import Foundation
import Nutrition

/// Where an entry came from.
public enum EntrySource: String, Sendable, Codable, CaseIterable {
    case manual
    case foodBank = "food_bank"
    case reference
    case assistant
    case calculator
    case `import`
    /// A packaged food looked up by barcode or search (Open Food Facts, FoodData Central).
    case packaged
}

/// A logged food: a snapshot that later edits of its saved food never change.
/// `nutrients` are per one serving; `totalNutrients` multiplies by `servings`.
public struct Entry: Sendable, Hashable, Codable, Identifiable {
    public var id: UUID
    public var day: CalendarDay
    public var meal: Meal
    public var name: String
    public var brand: String?
    public var serving: ServingSize
    public var servings: Double
    public var nutrients: NutrientAmounts
    public var savedFoodID: UUID?
    public var source: EntrySource
    public var createdAt: Date
    public var updatedAt: Date
    /// Canonical ids of nutrients whose value was derived by USDA's rules (vitamin D from IU,
    /// folate DFE) rather than reported, sorted; nil when none (then absent from JSON, so
    /// older backups and outputs are unchanged).
    public var derivedNutrients: [String]?
    /// When it was eaten, when given (`--at 08:15`, an import's time column); nil means when it
    /// was logged (`createdAt`). Absent from JSON when nil, so older outputs are unchanged.
    public var eatenAt: Date?
    /// A meal of the person's own ("Pre-workout", `ofj meals add`); then `meal` is snack, the
    /// kind the four fixed meals keep for it. Absent from JSON when nil.
    public var mealLabel: String?

    public init(id: UUID, day: CalendarDay, meal: Meal, name: String, brand: String?, serving: ServingSize,
                servings: Double, nutrients: NutrientAmounts, savedFoodID: UUID?, source: EntrySource,
                createdAt: Date, updatedAt: Date, derivedNutrients: [String]? = nil, eatenAt: Date? = nil, mealLabel: String? = nil) {
        self.id = id; self.day = day; self.meal = meal; self.name = name; self.brand = brand
        self.serving = serving; self.servings = servings; self.nutrients = nutrients
        self.savedFoodID = savedFoodID; self.source = source; self.createdAt = createdAt; self.updatedAt = updatedAt
        self.derivedNutrients = derivedNutrients; self.eatenAt = eatenAt; self.mealLabel = mealLabel
    }

    /// The meal as the person named it: the custom meal's name, else breakfast, lunch, dinner or snack.
    public var mealName: String { mealLabel ?? meal.rawValue }

    /// Nutrients for everything logged (per-serving amounts times servings).
    public var totalNutrients: NutrientAmounts { nutrients.scaled(by: servings) }

    enum CodingKeys: String, CodingKey {
        case id, day, meal, name, brand, serving, servings, nutrients
        case savedFoodID = "saved_food_id", source, createdAt = "created_at", updatedAt = "updated_at"
        case derivedNutrients = "derived", eatenAt = "eaten_at", mealLabel = "meal_label"
    }
}

/// What to log. `day` nil means today in the store's time zone; `meal` nil means the meal
/// schedule's default for the current local time.
public struct EntryDraft: Sendable, Hashable {
    public var day: CalendarDay?
    public var meal: Meal?
    public var name: String
    public var brand: String?
    public var serving: ServingSize
    public var servings: Double
    /// Per one serving.
    public var nutrients: NutrientAmounts
    public var savedFoodID: UUID?
    public var source: EntrySource
    /// Set only when importing or replaying a known entry; otherwise a new UUID is made.
    public var id: UUID?
    /// Ids of `nutrients` derived by USDA's rules rather than reported (ids without a value are dropped).
    public var derivedNutrients: Set<String>
    /// When it was eaten (nil: now). With no `meal`, the meal schedule picks the meal of this time.
    public var eatenAt: Date?
    /// A custom meal's name (then `meal` is ignored and stored as snack).
    public var mealLabel: String?

    public init(day: CalendarDay? = nil, meal: Meal? = nil, name: String, brand: String? = nil,
                serving: ServingSize = ServingSize(), servings: Double = 1, nutrients: NutrientAmounts = NutrientAmounts(),
                savedFoodID: UUID? = nil, source: EntrySource = .manual, id: UUID? = nil, derivedNutrients: Set<String> = [],
                eatenAt: Date? = nil, mealLabel: String? = nil) {
        self.day = day; self.meal = meal; self.name = name; self.brand = brand; self.serving = serving
        self.servings = servings; self.nutrients = nutrients; self.savedFoodID = savedFoodID; self.source = source; self.id = id
        self.derivedNutrients = derivedNutrients; self.eatenAt = eatenAt; self.mealLabel = mealLabel
    }
}

/// Changes to an entry; nil fields stay as they are. `brand` set to "" clears it.
public struct EntryUpdate: Sendable, Hashable {
    public var day: CalendarDay?
    public var meal: Meal?
    public var name: String?
    public var brand: String?
    public var serving: ServingSize?
    public var servings: Double?
    /// Replaces the whole per-serving map.
    public var nutrients: NutrientAmounts?

    public init(day: CalendarDay? = nil, meal: Meal? = nil, name: String? = nil, brand: String? = nil,
                serving: ServingSize? = nil, servings: Double? = nil, nutrients: NutrientAmounts? = nil) {
        self.day = day; self.meal = meal; self.name = name; self.brand = brand; self.serving = serving
        self.servings = servings; self.nutrients = nutrients
    }

    var isEmpty: Bool {
        day == nil && meal == nil && name == nil && brand == nil && serving == nil && servings == nil && nutrients == nil
    }
}

/// How much of a saved food to log: a count of its servings, or a quantity in some unit.
public enum FoodAmount: Sendable, Hashable {
    case servings(Double)
    case quantity(Double, ServingUnit)
}

/// What a saved food is made of, for create and edit. Flags (shelf, archive) and usage are
/// changed by their own operations.
public struct FoodDraft: Sendable, Hashable {
    public var kind: SavedFoodKind
    public var name: String
    public var brand: String?
    public var serving: ServingSize
    public var mappings: [UnitMapping]
    public var nutrients: NutrientAmounts
    public var ingredients: [IngredientSnapshot]
    public var recipeServings: Double
    public var calculatorIngredients: [CalculatorIngredient]
    public var isOnShelf: Bool
    /// Ids of `nutrients` derived by USDA's rules (a food made from a reference food).
    public var derivedNutrients: Set<String> = []
    /// A composite cooked as one batch: the whole cooked batch in grams (its serving's weight
    /// becomes this ÷ `recipeServings`).
    public var cookedGrams: Double?

    public init(kind: SavedFoodKind = .single, name: String, brand: String? = nil, serving: ServingSize = ServingSize(),
                mappings: [UnitMapping] = [], nutrients: NutrientAmounts = NutrientAmounts(),
                ingredients: [IngredientSnapshot] = [], recipeServings: Double = 1,
                calculatorIngredients: [CalculatorIngredient] = [], isOnShelf: Bool = false) {
        self.kind = kind; self.name = name; self.brand = brand; self.serving = serving; self.mappings = mappings
        self.nutrients = nutrients; self.ingredients = ingredients; self.recipeServings = recipeServings
        self.calculatorIngredients = calculatorIngredients; self.isOnShelf = isOnShelf
    }

    /// The editable parts of an existing food.
    public init(_ food: SavedFood) {
        self.init(kind: food.kind, name: food.name, brand: food.brand, serving: food.serving, mappings: food.mappings,
                  nutrients: food.nutrients, ingredients: food.ingredients, recipeServings: food.recipeServings,
                  calculatorIngredients: food.calculatorIngredients, isOnShelf: food.isOnShelf)
        derivedNutrients = Set(food.derivedNutrients ?? [])
        cookedGrams = food.cookedGrams
    }
}

// MARK: - Query results (Codable for --json)

/// One meal of a day with its entries and their totals.
public struct MealGroup: Sendable, Hashable, Codable {
    public let meal: Meal
    public let entries: [Entry]
    public let totals: NutrientTotals
}

/// A day by meal, with totals against goals. Every meal appears, empty or not.
public struct DayView: Sendable, Hashable, Codable {
    public let day: CalendarDay
    public let meals: [MealGroup]
    public let totals: NutrientTotals
    public let goals: [GoalProgress]
    /// Nutrient ids whose total includes a value derived by USDA's rules (an entry's
    /// `derived`); nil when none, and then absent from JSON.
    public var partlyDerived: [String]? = nil
    /// How the person marked the day's log ("complete" / "incomplete", issue 33); nil when unmarked,
    /// and then absent from JSON.
    public var mark: DayMark? = nil
    /// The day's notes and the water logged as water (issue 34 §8), when a command adds them;
    /// nil, and absent from JSON, otherwise.
    public var notes: [DayNote]? = nil
    public var waterML: Double? = nil

    public var entries: [Entry] { meals.flatMap(\.entries) }

    enum CodingKeys: String, CodingKey { case day, meals, totals, goals, partlyDerived = "partly_derived", mark, notes, waterML = "water_ml" }
}

/// One day's totals in a range.
public struct DayTotals: Sendable, Hashable, Codable {
    public let day: CalendarDay
    public let totals: NutrientTotals

    public var entryCount: Int { totals.entryCount }
}

/// Per-day totals over a date range and the averages over days that have entries.
public struct RangeSummary: Sendable, Hashable, Codable {
    public let from: CalendarDay
    public let to: CalendarDay
    /// Every day of the range in order, including days without entries.
    public let days: [DayTotals]
    /// Days with at least one entry.
    public let loggedDayCount: Int
    /// Per nutrient, the sum over the range divided by the logged days that report it (days
    /// without entries, and days whose entries do not report it, are not zeros).
    public let dailyAverages: [String: Double]
    /// Per nutrient, the logged days on which at least one entry reported it.
    public let reportingDayCounts: [String: Int]
    public let totals: NutrientTotals

    enum CodingKeys: String, CodingKey {
        case from, to, days, loggedDayCount = "logged_day_count", dailyAverages = "daily_averages",
             reportingDayCounts = "reporting_day_counts", totals
    }

    public init(from: CalendarDay, to: CalendarDay, days: [DayTotals], loggedDayCount: Int, dailyAverages: [String: Double],
                reportingDayCounts: [String: Int], totals: NutrientTotals) {
        self.from = from; self.to = to; self.days = days; self.loggedDayCount = loggedDayCount
        self.dailyAverages = dailyAverages; self.reportingDayCounts = reportingDayCounts; self.totals = totals
    }

    /// Logged days that report `id` (0 when none does).
    public func reportingDays(_ id: String) -> Int { reportingDayCounts[id] ?? 0 }

    /// "protein: 54.2 g a day over the 3 of 4 logged days that report it" for a nutrient some
    /// logged days do not report; nil when every logged day reports it or none does.
    public func partialAverageNote(_ id: String, amount: (Double) -> String) -> String? {
        let n = reportingDays(id)
        guard n > 0, n < loggedDayCount, let avg = dailyAverages[id] else { return nil }
        let name = id == "energy_kcal" ? "calories" : NutrientCatalog.displayName(id).lowercased()
        return "\(name): \(amount(avg)) a day over the \(n) of \(loggedDayCount) logged days that report it"
    }
}

/// One food's share of a nutrient over a period.
public struct FoodContribution: Sendable, Hashable, Codable {
    public let name: String
    public let brand: String?
    public let amount: Double
    public let entryCount: Int
    /// amount / total of the nutrient over the period (0...1).
    public let share: Double

    enum CodingKeys: String, CodingKey { case name, brand, amount, entryCount = "entry_count", share }
}

/// Which foods gave how much of one nutrient over a period.
public struct NutrientBreakdown: Sendable, Hashable, Codable {
    public let nutrient: String
    public let from: CalendarDay
    public let to: CalendarDay
    public let total: Double
    public let foods: [FoodContribution]
    /// Entries in the period that did not report the nutrient.
    public let notReportedCount: Int

    enum CodingKeys: String, CodingKey { case nutrient, from, to, total, foods, notReportedCount = "not_reported_count" }
}

/// A Food Bank row with its shown status.
public struct FoodBankItem: Sendable, Hashable, Codable {
    public let food: SavedFood
    public let status: FoodStatus
}

/// Food Bank sort orders.
public enum FoodSort: String, Sendable, Codable, CaseIterable {
    /// Name A–Z.
    case name
    /// Most recently used first (never used last).
    case lastUsed = "last_used"
    /// Brand A–Z (unbranded last), then name.
    case brand
}

/// A brand and how many saved foods carry it; `brand` nil is the "Unbranded" bucket.
public struct BrandBucket: Sendable, Hashable, Codable {
    public let brand: String?
    public let foodCount: Int
    public var displayName: String { brand ?? BrandBucket.unbrandedName }
    public static let unbrandedName = "Unbranded"

    enum CodingKeys: String, CodingKey { case brand, foodCount = "food_count" }
}
