// A packaged or branded food as ofj shows, caches and logs it, whatever database it came from.
import Foundation
import Nutrition

/// Where a product's data came from.
public enum PackagedSource: String, Sendable, Hashable, Codable, CaseIterable {
    case openFoodFacts = "off"
    case foodDataCentral = "fdc"

    public var displayName: String {
        switch self {
        case .openFoodFacts: return "Open Food Facts"
        case .foodDataCentral: return "USDA FoodData Central"
        }
    }

    /// The line every output showing this source's data carries once (nil: public domain).
    public var attribution: String? {
        switch self {
        case .openFoodFacts: return "data © Open Food Facts contributors, ODbL"
        case .foodDataCentral: return nil
        }
    }
}

/// A product with its nutrients mapped to ofj's canonical ids.
public struct PackagedProduct: Sendable, Hashable, Codable {
    public var source: PackagedSource
    /// The barcode (OFF) or FDC id as text.
    public var id: String
    /// The barcode when the source knows one (OFF code, FDC gtinUpc).
    public var barcode: String?
    public var name: String
    public var brand: String?
    /// "Branded", "Foundation", "SR Legacy" for FDC; nil for OFF.
    public var dataType: String?
    /// Whether the per-100 values are per 100 g or per 100 mL.
    public var per100Unit: String
    /// Amounts per 100 g (or mL); a nutrient the source did not report is absent.
    public var per100: NutrientAmounts
    /// Amounts per serving as the source gives them, or computed from per-100 and the
    /// serving's weight; empty when neither is known.
    public var perServing: NutrientAmounts
    /// The label's serving as a named portion ("1 tranche", 60.8 g); nil when unknown.
    public var serving: ServingSize?
    /// The label's serving text as given ("60.8 g (1 tranche)").
    public var servingText: String?
    /// Net quantity of the package in g or mL (`product_quantity`).
    public var packageQuantity: Double?
    /// Nutrients computed rather than read (sodium from salt).
    public var derived: [String]
    /// Nutrients the label gives as an upper bound ("<0.5"): the bound is recorded.
    public var atMost: [String]

    /// The computed nutrients among `nutrients`, for an entry or food made from this product, so
    /// the journal marks them like the reference's derived values.
    public func derived(in nutrients: NutrientAmounts) -> Set<String> {
        Set(derived.filter { nutrients.values[$0] != nil })
    }

    public init(source: PackagedSource, id: String, barcode: String?, name: String, brand: String?, dataType: String? = nil,
                per100Unit: String = "g", per100: NutrientAmounts, perServing: NutrientAmounts, serving: ServingSize?,
                servingText: String?, packageQuantity: Double?, derived: [String] = [], atMost: [String] = []) {
        self.source = source; self.id = id; self.barcode = barcode; self.name = name; self.brand = brand
        self.dataType = dataType; self.per100Unit = per100Unit; self.per100 = per100; self.perServing = perServing
        self.serving = serving; self.servingText = servingText; self.packageQuantity = packageQuantity
        self.derived = derived; self.atMost = atMost
        normalizeServing()
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        source = try c.decode(PackagedSource.self, forKey: .source)
        id = try c.decode(String.self, forKey: .id)
        barcode = try c.decodeIfPresent(String.self, forKey: .barcode)
        name = try c.decode(String.self, forKey: .name)
        brand = try c.decodeIfPresent(String.self, forKey: .brand)
        dataType = try c.decodeIfPresent(String.self, forKey: .dataType)
        per100Unit = try c.decode(String.self, forKey: .per100Unit)
        per100 = try c.decode(NutrientAmounts.self, forKey: .per100)
        perServing = try c.decode(NutrientAmounts.self, forKey: .perServing)
        serving = try c.decodeIfPresent(ServingSize.self, forKey: .serving)
        servingText = try c.decodeIfPresent(String.self, forKey: .servingText)
        packageQuantity = try c.decodeIfPresent(Double.self, forKey: .packageQuantity)
        derived = try c.decodeIfPresent([String].self, forKey: .derived) ?? []
        atMost = try c.decodeIfPresent([String].self, forKey: .atMost) ?? []
        normalizeServing()
    }

    /// The serving a label with per-serving values but no readable serving size is logged by:
    /// "1 serving" (of unknown weight), so its values can be shown and logged as "1 serving" or
    /// `--servings N` instead of being unreachable.
    public static let unreadServing = ServingSize(quantity: 1, unit: .count("serving"))

    /// Whether `serving` is `unreadServing` (the label's serving text was not understood).
    public var servingIsUnread: Bool {
        serving == PackagedProduct.unreadServing && !perServing.isEmpty && servingText.flatMap(ServingSizeParser.parse) == nil
    }

    mutating func normalizeServing() {
        if serving == nil, !perServing.isEmpty { serving = PackagedProduct.unreadServing }
    }

    enum CodingKeys: String, CodingKey {
        case source, id, barcode, name, brand, dataType = "data_type", per100Unit = "per_100_unit", per100 = "per_100"
        case perServing = "per_serving", serving, servingText = "serving_text", packageQuantity = "package_quantity"
        case derived, atMost = "at_most"
    }

    /// False when the source has no nutrition for it (nothing, or energy 0 and nothing else):
    /// such a product is shown as "no nutrition data" and never logged as zeros.
    public var hasNutrition: Bool {
        let values = per100.isEmpty ? perServing : per100
        if values.isEmpty { return false }
        if values.count == 1, let e = values["energy_kcal"], e == 0 { return false }
        return true
    }

    /// Nutrients of `grams` (or mL) of the product, from the per-100 values.
    public func nutrients(per100Amount amount: Double) -> NutrientAmounts {
        per100.scaled(by: amount / 100).rounded(places: 6)
    }

    /// The weight (or volume) of one serving in the per-100 unit, when known.
    public var servingAmount: Double? {
        guard let serving else { return nil }
        return per100Unit == "ml" ? (serving.milliliters ?? serving.grams) : (serving.grams ?? serving.milliliters)
    }
}
