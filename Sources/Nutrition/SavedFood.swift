// Saved foods of the Food Bank (single, composite, calculator) and their nutrition math.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One ingredient of a composite food, frozen at the time it was added: editing the food it
/// came from later does not change the composite.
public struct IngredientSnapshot: Sendable, Hashable, Codable {
    public var name: String
    public var brand: String?
    public var quantity: Double
    public var unit: ServingUnit
    /// Nutrients for `quantity` `unit` (already scaled).
    public var nutrients: NutrientAmounts
    /// The saved food it was taken from, if any (informational only).
    public var sourceFoodID: UUID?
    /// The USDA reference food (NDB id) it was taken from, if any (informational only).
    public var referenceID: String?

    public init(name: String, brand: String? = nil, quantity: Double, unit: ServingUnit,
                nutrients: NutrientAmounts, sourceFoodID: UUID? = nil, referenceID: String? = nil) {
        self.name = name; self.brand = brand; self.quantity = quantity; self.unit = unit
        self.nutrients = nutrients; self.sourceFoodID = sourceFoodID; self.referenceID = referenceID
    }

    enum CodingKeys: String, CodingKey {
        case name, brand, quantity, unit, nutrients, sourceFoodID = "source_food_id", referenceID = "reference_id"
    }

    /// Snapshots `quantity` `unit` of a saved food, scaling its per-serving nutrients.
    public static func from(_ food: SavedFood, quantity: Double, unit: ServingUnit) throws -> IngredientSnapshot {
        let servings = try food.measures.servings(quantity, unit)
        return IngredientSnapshot(name: food.name, brand: food.brand, quantity: quantity, unit: unit,
                                  nutrients: food.nutrients.scaled(by: servings), sourceFoodID: food.id)
    }
}

/// A named portion of a calculator ingredient ("light", "regular", "double").
public struct CalculatorPortion: Sendable, Hashable, Codable {
    public var name: String
    public var nutrients: NutrientAmounts
    public init(name: String, nutrients: NutrientAmounts) { self.name = name; self.nutrients = nutrients }
}

/// One ingredient of a calculator food, with its portions.
public struct CalculatorIngredient: Sendable, Hashable, Codable {
    public var name: String
    public var portions: [CalculatorPortion]
    public init(name: String, portions: [CalculatorPortion]) { self.name = name; self.portions = portions }
}

/// The choice of one portion for one ingredient in a calculator build.
public struct CalculatorSelection: Sendable, Hashable, Codable {
    public var ingredient: String
    public var portion: String
    public init(ingredient: String, portion: String) { self.ingredient = ingredient; self.portion = portion }
}

/// What kind of saved food, with the data each kind needs.
public enum SavedFoodKind: String, Sendable, Codable, CaseIterable {
    case single, composite, calculator
}

/// A food in the Food Bank. `nutrients` are per serving; for a composite they are the sum of
/// the ingredients divided by `recipeServings`, for a calculator they are empty (each build
/// is different).
public struct SavedFood: Sendable, Hashable, Codable, Identifiable {
    public var id: UUID
    public var kind: SavedFoodKind
    public var name: String
    public var brand: String?
    public var serving: ServingSize
    /// Extra measures ("1 cup = 244 g").
    public var mappings: [UnitMapping]
    public var nutrients: NutrientAmounts
    public var ingredients: [IngredientSnapshot]
    /// Servings a composite recipe makes (1 when the whole thing is one serving).
    public var recipeServings: Double
    public var calculatorIngredients: [CalculatorIngredient]
    public var isOnShelf: Bool
    /// Archived by hand: wins over everything else.
    public var isManuallyArchived: Bool
    public var lastUsedAt: Date?
    public var createdAt: Date
    public var updatedAt: Date
    /// Ids of `nutrients` derived by USDA's rules rather than reported (a food made from a
    /// reference food), sorted; nil when none, and then absent from JSON.
    public var derivedNutrients: [String]?
    /// A composite cooked as one batch: what the whole cooked batch weighs, in grams. One
    /// serving is then 1/`recipeServings` of it, and grams of the cooked dish log that share
    /// of the ingredient sum (`batchNutrients`).
    public var cookedGrams: Double?
    /// The heaviest cooked batch accepted (a pot, not a typo).
    public static let maxCookedGrams: Double = 100_000

    public init(id: UUID = UUID(), kind: SavedFoodKind = .single, name: String, brand: String? = nil,
                serving: ServingSize = ServingSize(), mappings: [UnitMapping] = [], nutrients: NutrientAmounts = NutrientAmounts(),
                ingredients: [IngredientSnapshot] = [], recipeServings: Double = 1,
                calculatorIngredients: [CalculatorIngredient] = [], isOnShelf: Bool = false,
                isManuallyArchived: Bool = false, lastUsedAt: Date? = nil, createdAt: Date, updatedAt: Date? = nil,
                cookedGrams: Double? = nil) {
        self.id = id; self.kind = kind; self.name = name; self.brand = brand; self.serving = serving
        self.mappings = mappings; self.nutrients = nutrients; self.ingredients = ingredients
        self.recipeServings = recipeServings; self.calculatorIngredients = calculatorIngredients
        self.isOnShelf = isOnShelf; self.isManuallyArchived = isManuallyArchived
        self.lastUsedAt = lastUsedAt; self.createdAt = createdAt; self.updatedAt = updatedAt ?? createdAt
        self.cookedGrams = cookedGrams
        if kind == .composite { self.nutrients = SavedFood.compositeNutrients(ingredients, recipeServings: recipeServings) }
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, name, brand, serving, mappings, nutrients, ingredients
        case recipeServings = "recipe_servings", calculatorIngredients = "calculator_ingredients"
        case isOnShelf = "is_on_shelf", isManuallyArchived = "is_manually_archived"
        case lastUsedAt = "last_used_at", createdAt = "created_at", updatedAt = "updated_at"
        case derivedNutrients = "derived", cookedGrams = "cooked_grams"
    }

    public var measures: FoodMeasures { FoodMeasures(serving: serving, mappings: mappings) }

    /// Sum of ingredient snapshots per recipe serving.
    public static func compositeNutrients(_ ingredients: [IngredientSnapshot], recipeServings: Double) -> NutrientAmounts {
        var sum = NutrientAmounts()
        for i in ingredients { sum = sum.adding(i.nutrients) }
        return recipeServings > 0 ? sum.scaled(by: 1 / recipeServings) : sum
    }

    /// The whole batch of a composite: the plain sum of its ingredient snapshots.
    public var batchNutrients: NutrientAmounts { SavedFood.compositeNutrients(ingredients, recipeServings: 1) }

    /// Recomputes derived nutrition (composite sums) after an edit.
    public mutating func recompute() {
        if kind == .composite { nutrients = SavedFood.compositeNutrients(ingredients, recipeServings: recipeServings) }
    }

    /// Nutrients for `quantity` `unit` of this food (single or composite).
    public func nutrients(quantity: Double, unit: ServingUnit) throws -> (servings: Double, nutrients: NutrientAmounts) {
        guard kind != .calculator else {
            throw NutritionError.invalidFood("a calculator food is logged through a build of its ingredients")
        }
        let s = try measures.servings(quantity, unit)
        // Grams of a cooked batch are that share of the ingredient sum, computed from the sum itself.
        if kind == .composite, let cooked = cookedGrams, let g = measures.grams(quantity, unit) {
            return (s, batchNutrients.scaled(by: g / cooked))
        }
        return (s, nutrients.scaled(by: s))
    }

    /// Sums the chosen portions of a calculator build. Ingredient and portion names match
    /// case-insensitively; each ingredient at most once.
    public func build(_ selections: [CalculatorSelection]) throws -> NutrientAmounts {
        guard kind == .calculator else { throw NutritionError.invalidFood("only a calculator food has builds") }
        guard !selections.isEmpty else { throw NutritionError.emptyBuild }
        var seen: Set<String> = []
        var sum = NutrientAmounts()
        for sel in selections {
            let key = sel.ingredient.trimmingWhitespace().lowercased()
            guard let ing = calculatorIngredients.first(where: { $0.name.lowercased() == key }) else {
                throw NutritionError.unknownIngredient(String(sel.ingredient.prefix(60)))
            }
            guard seen.insert(key).inserted else { throw NutritionError.duplicateIngredient(ing.name) }
            let pkey = sel.portion.trimmingWhitespace().lowercased()
            guard let portion = ing.portions.first(where: { $0.name.lowercased() == pkey }) else {
                throw NutritionError.unknownPortion(ingredient: ing.name, portion: String(sel.portion.prefix(60)))
            }
            sum = sum.adding(portion.nutrients)
        }
        return sum
    }

    /// Checks names, quantities and kind-specific structure.
    public func validate() throws {
        _ = try Validate.text(name, field: "name")
        if let brand { _ = try Validate.text(brand, field: "brand", maxLength: 100, required: false) }
        try serving.validate()
        for (i, m) in mappings.enumerated() { try m.validate(field: "mapping \(i + 1)") }
        try Validate.positive(recipeServings, field: "recipe servings")
        if let cooked = cookedGrams {
            guard kind == .composite else { throw NutritionError.invalidFood("only a composite (a dish of --ingredient foods) has a cooked weight") }
            guard cooked.isFinite, cooked >= 1, cooked <= SavedFood.maxCookedGrams else {
                throw NutritionError.invalidFood("the cooked weight must be between 1 g and 100 kg (the whole batch after cooking)")
            }
            if serving.unit.isMass || serving.unit.isVolume {
                throw NutritionError.invalidFood("a cooked batch's serving is a share of it (1 serving, 1 bowl), not \(serving.label); log it by grams with --grams")
            }
        }
        switch kind {
        case .single:
            break
        case .composite:
            guard !ingredients.isEmpty else { throw NutritionError.invalidFood("a composite food needs at least one ingredient") }
            for (i, ing) in ingredients.enumerated() {
                _ = try Validate.text(ing.name, field: "ingredient \(i + 1) name")
                try Validate.positive(ing.quantity, field: "ingredient \(i + 1) quantity")
            }
        case .calculator:
            guard !calculatorIngredients.isEmpty else { throw NutritionError.invalidFood("a calculator food needs at least one ingredient") }
            var names: Set<String> = []
            for (i, ing) in calculatorIngredients.enumerated() {
                let n = try Validate.text(ing.name, field: "ingredient \(i + 1) name")
                guard names.insert(n.lowercased()).inserted else { throw NutritionError.duplicateIngredient(n) }
                guard !ing.portions.isEmpty else { throw NutritionError.invalidFood("ingredient \(i + 1) needs at least one portion") }
                var pnames: Set<String> = []
                for p in ing.portions {
                    let pn = try Validate.text(p.name, field: "ingredient \(i + 1) portion name", maxLength: 60)
                    guard pnames.insert(pn.lowercased()).inserted else {
                        throw NutritionError.invalidFood("ingredient \(i + 1) has two portions named \(pn)")
                    }
                }
            }
        }
    }
}

// MARK: - Archive rule

/// Whether a food is shown as active or archived in the Food Bank.
public enum FoodStatus: String, Sendable, Codable { case active, archived }

public enum ArchiveRule {
    /// Days without use after which a food is shown as archived.
    public static let inactiveDays = 14

    /// A manual archive always wins; otherwise a food on the Shelf is active; otherwise a food
    /// whose last use (or creation, if never used) is 14 days or more before `now` is archived.
    public static func status(isManuallyArchived: Bool, isOnShelf: Bool, lastUsedAt: Date?, createdAt: Date, now: Date) -> FoodStatus {
        if isManuallyArchived { return .archived }
        if isOnShelf { return .active }
        let last = lastUsedAt ?? createdAt
        return now.timeIntervalSince(last) >= Double(inactiveDays) * 86_400 ? .archived : .active
    }

    /// The instant before which a last use makes a food archived (for queries).
    public static func cutoff(now: Date) -> Date { now.addingTimeInterval(-Double(inactiveDays) * 86_400) }
}

extension SavedFood {
    public func status(now: Date) -> FoodStatus {
        ArchiveRule.status(isManuallyArchived: isManuallyArchived, isOnShelf: isOnShelf,
                           lastUsedAt: lastUsedAt, createdAt: createdAt, now: now)
    }
}
