// The value types of the USDA SR28 reference foods: a food, its household portions and the nutrient columns.

/// One nutrient column of the reference data (e.g. `energy_kcal`, unit `kcal`).
public struct ReferenceNutrientColumn: Sendable, Hashable {
    /// Canonical id, e.g. `protein_g`, `vitamin_a_rae_mcg`; the unit is part of the id.
    public let id: String
    /// Unit as USDA gives it: `g`, `mg`, `mcg`, `kcal`, `kJ`, `IU`.
    public let unit: String
    /// USDA's nutrient name, e.g. "Fatty acids, total saturated".
    public let name: String
    /// SR28 `Nutr_No` (FDC `nutrient_nbr`), e.g. "208" for energy in kcal.
    public let sr28Number: String
    /// How many reference foods report a value for this nutrient.
    public let foodsWithValue: Int
}

/// A household measure of a reference food: `amount` × `measure` weighs `gramWeight` grams
/// (e.g. 1 "large" egg = 50 g; 2 "tbsp" peanut butter = 32 g).
public struct ReferencePortion: Sendable, Hashable {
    /// USDA's sequence number within the food (the order USDA lists the measures in).
    public let sequence: Int
    /// How many `measure`s weigh `gramWeight` (can be fractional, e.g. 0.125 pie).
    public let amount: Double
    /// USDA's measure text, verbatim (e.g. "cup (4.86 large eggs)", "pat (1\" sq, 1/3\" high)").
    public let measure: String
    /// Grams of `amount` × `measure`.
    public let gramWeight: Double

    public init(sequence: Int, amount: Double, measure: String, gramWeight: Double) {
        self.sequence = sequence
        self.amount = amount
        self.measure = measure
        self.gramWeight = gramWeight
    }

    /// Grams of one `measure` (gramWeight / amount).
    public var gramsPerMeasure: Double { gramWeight / amount }

    /// Grams of `quantity` measures, e.g. 2 "large" eggs = 100 g. Nil when quantity is negative or not finite.
    public func grams(forQuantity quantity: Double) -> Double? {
        guard quantity.isFinite, quantity >= 0, amount > 0 else { return nil }
        return quantity * gramsPerMeasure
    }

    /// Human label such as "1 large" or "2 tbsp" (amount printed without a needless ".0").
    public var label: String { "\(ReferencePortion.format(amount)) \(measure)" }

    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}

/// What a typed portion ("1 large egg", "2 tbsp", "1/2 cup") resolved to.
public struct ReferencePortionMatch: Sendable, Hashable {
    /// The household measure that matched.
    public let portion: ReferencePortion
    /// How many measures the text asked for (1 when it gave no number).
    public let quantity: Double
    /// Grams of `quantity` measures.
    public let grams: Double
}

/// Column ids and dense values for every food; one shared table instead of a dictionary per food
/// keeps loading fast. A NaN cell means "not reported".
final class NutrientTable: Sendable {
    let columns: [ReferenceNutrientColumn]
    let values: [Double]

    init(columns: [ReferenceNutrientColumn], values: [Double]) {
        self.columns = columns
        self.values = values
    }
}

/// A USDA SR28 food. Nutrient values are per 100 g of edible portion; a nutrient USDA did not
/// report is absent from the maps (never 0).
public struct ReferenceFood: Sendable, Identifiable, Equatable, CustomStringConvertible {
    /// SR28 NDB number, e.g. "01123" (Egg, whole, raw, fresh).
    public let id: String
    /// USDA's long description, e.g. "Egg, whole, raw, fresh".
    public let description: String
    /// USDA food group, e.g. "Dairy and Egg Products".
    public let group: String
    /// FoodData Central SR Legacy id, when the crosswalk found one.
    public let fdcID: Int?
    /// USDA's common names, e.g. "oatmeal, old-fashioned oats, rolled oats".
    public let commonName: String?
    /// Household measures in USDA order (may be empty).
    public let portions: [ReferencePortion]

    let table: NutrientTable
    let row: Int

    /// Per-100 g values keyed by column id (`energy_kcal`, `protein_g`, `sodium_mg`, …); only
    /// nutrients USDA reported are present.
    public var nutrientsPer100g: [String: Double] {
        var result: [String: Double] = [:]
        result.reserveCapacity(table.columns.count)
        let base = row * table.columns.count
        for (offset, column) in table.columns.enumerated() {
            let value = table.values[base + offset]
            if !value.isNaN { result[column.id] = value }
        }
        return result
    }

    /// One nutrient per 100 g, or nil when it is not reported (or the id is unknown).
    public func per100g(_ nutrientID: String) -> Double? {
        guard let offset = table.columns.firstIndex(where: { $0.id == nutrientID }) else { return nil }
        let value = table.values[row * table.columns.count + offset]
        return value.isNaN ? nil : value
    }

    /// Nutrients of `grams` grams of this food (per-100 g values scaled). Absent nutrients stay
    /// absent. Negative or non-finite grams give an empty map: validate quantities before calling.
    public func nutrients(forGrams grams: Double) -> [String: Double] {
        guard grams.isFinite, grams >= 0 else { return [:] }
        return nutrientsPer100g.mapValues { $0 * grams / 100 }
    }

    /// Resolves what a person typed ("large", "1 large egg", "2 cups", "tbsp", "1/2 cup",
    /// "slice") to one of this food's portions, with the quantity and grams it means.
    /// Nil when the text names no measure of this food or the quantity is zero, negative or invalid.
    public func portion(matching text: String) -> ReferencePortionMatch? {
        PortionMatcher.match(text, in: self)
    }

    /// Like `portion(matching:)`, considering only the portions `allowed` accepts (a count
    /// typed by a person is never matched to a mass or volume measure).
    public func portion(matching text: String, among allowed: (ReferencePortion) -> Bool) -> ReferencePortionMatch? {
        PortionMatcher.match(text, in: self, allowed: allowed)
    }

    public static func == (lhs: ReferenceFood, rhs: ReferenceFood) -> Bool {
        lhs.id == rhs.id && lhs.description == rhs.description && lhs.group == rhs.group
            && lhs.fdcID == rhs.fdcID && lhs.commonName == rhs.commonName && lhs.portions == rhs.portions
            && lhs.nutrientsPer100g == rhs.nutrientsPer100g
    }
}
