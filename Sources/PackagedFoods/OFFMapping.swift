// Open Food Facts `product` objects to PackagedProduct: nutriments, serving size, quantity.
import Foundation
import Nutrition

public enum OFFMapping {
    /// OFF nutriment key -> (ofj id, factor from OFF's normalised `_100g`/`_serving` unit).
    /// OFF stores every mass nutrient in grams in those keys (whatever the label's unit), so
    /// mg nutrients are ×1000 and µg ones ×1,000,000. Energy is handled apart (kcal vs kJ).
    static let table: [(key: String, id: String, factor: Double)] = [
        ("proteins", "protein_g", 1), ("carbohydrates", "carbohydrate_g", 1), ("fat", "fat_g", 1),
        ("fiber", "fiber_g", 1), ("sugars", "sugars_g", 1), ("added-sugars", "added_sugars_g", 1),
        ("sodium", "sodium_mg", 1000), ("cholesterol", "cholesterol_mg", 1000),
        ("saturated-fat", "saturated_fat_g", 1), ("trans-fat", "trans_fat_g", 1),
        ("monounsaturated-fat", "monounsaturated_fat_g", 1), ("polyunsaturated-fat", "polyunsaturated_fat_g", 1),
        ("vitamin-a", "vitamin_a_mcg", 1e6), ("vitamin-c", "vitamin_c_mg", 1000), ("vitamin-d", "vitamin_d_mcg", 1e6),
        ("vitamin-e", "vitamin_e_mg", 1000), ("vitamin-k", "vitamin_k_mcg", 1e6), ("vitamin-b6", "vitamin_b6_mg", 1000),
        ("vitamin-b12", "vitamin_b12_mcg", 1e6), ("vitamin-b1", "thiamin_mg", 1000), ("vitamin-b2", "riboflavin_mg", 1000),
        ("vitamin-pp", "niacin_mg", 1000), ("pantothenic-acid", "pantothenic_acid_mg", 1000), ("biotin", "biotin_mcg", 1e6),
        ("vitamin-b9", "folate_mcg", 1e6), ("folates", "folate_mcg", 1e6), ("choline", "choline_mg", 1000),
        ("calcium", "calcium_mg", 1000), ("iron", "iron_mg", 1000), ("magnesium", "magnesium_mg", 1000),
        ("phosphorus", "phosphorus_mg", 1000), ("potassium", "potassium_mg", 1000), ("zinc", "zinc_mg", 1000),
        ("copper", "copper_mg", 1000), ("manganese", "manganese_mg", 1000), ("selenium", "selenium_mcg", 1e6),
        ("chromium", "chromium_mcg", 1e6), ("molybdenum", "molybdenum_mcg", 1e6), ("iodine", "iodine_mcg", 1e6),
        ("chloride", "chloride_mg", 1000), ("caffeine", "caffeine_mg", 1000),
    ]

    /// kJ per kcal.
    public static let kilojoulesPerKilocalorie = 4.184
    /// Grams of salt per gram of sodium (the EU label convention OFF uses).
    public static let saltPerSodium = 2.5

    /// The mapped nutrients of one basis (`suffix` "_100g" or "_serving").
    public struct Mapped: Sendable, Hashable {
        public var amounts: NutrientAmounts
        public var derived: Set<String>
        public var atMost: Set<String>
    }

    /// Maps an OFF `nutriments` object for one basis. Unknown keys are ignored; a nutrient
    /// whose value is missing or unreadable stays not reported.
    /// - Energy: `energy-kcal` when present, else `energy-kj` (or `energy`, which OFF keeps in
    ///   kJ) ÷ 4.184, marked derived.
    /// - Sodium: `sodium` when present, else `salt` ÷ 2.5 (in mg), marked derived.
    public static func nutrients(_ nutriments: [String: Any], suffix: String) -> Mapped {
        var out: [String: Double] = [:]
        var derived: Set<String> = [], atMost: Set<String> = []
        func read(_ key: String) -> LabelNumber? {
            guard var n = LabelNumber.parse(nutriments[key + suffix]) else { return nil }
            // OFF keeps a "<" typed on the label in `<key>_modifier`, the number in the value.
            if let m = nutriments[key + "_modifier"] as? String, n.qualifier == .exact {
                if m.hasPrefix("<") || m == "≤" { n.qualifier = .atMost } else if m.hasPrefix("~") || m.hasPrefix(">") { n.qualifier = .approximate }
            }
            return n
        }
        func put(_ id: String, _ n: LabelNumber, factor: Double) {
            out[id] = (n.value * factor).rounded(places: 6)
            if n.qualifier == .atMost { atMost.insert(id) }
        }
        if let kcal = read("energy-kcal") {
            put("energy_kcal", kcal, factor: 1)
        } else if let kj = read("energy-kj") ?? read("energy") {
            put("energy_kcal", kj, factor: 1 / kilojoulesPerKilocalorie)
            derived.insert("energy_kcal")
        }
        for row in table where out[row.id] == nil {
            if let n = read(row.key) { put(row.id, n, factor: row.factor) }
        }
        if out["sodium_mg"] == nil, let salt = read("salt") {
            put("sodium_mg", salt, factor: 1000 / saltPerSodium)
            derived.insert("sodium_mg")
        }
        return Mapped(amounts: NutrientAmounts(storedCanonical: out), derived: derived, atMost: atMost)
    }

    /// A product from an OFF `product` object. `code` is the barcode asked for (OFF sometimes
    /// omits the product's own `code`).
    public static func product(_ p: [String: Any], code: String) -> PackagedProduct {
        let nutriments = p["nutriments"] as? [String: Any] ?? [:]
        let per100 = nutrients(nutriments, suffix: "_100g")
        var perServing = nutrients(nutriments, suffix: "_serving")
        let servingText = (p["serving_size"] as? String).map { clean($0, max: 120) }.flatMap { $0.isEmpty ? nil : $0 }
        let serving = servingText.flatMap(ServingSizeParser.parse)
        let quantityText = (p["quantity"] as? String) ?? ""
        let liquid = serving?.unit.isVolume == true || (serving?.milliliters != nil && serving?.grams == nil)
            || quantityText.lowercased().range(of: #"\d\s*(ml|cl|l)\b"#, options: .regularExpression) != nil
        let unit = liquid ? "ml" : "g"
        var product = PackagedProduct(
            source: .openFoodFacts, id: code, barcode: code,
            name: clean(firstText(p, ["product_name", "product_name_en", "generic_name", "abbreviated_product_name"]) ?? "", max: 200),
            brand: firstText(p, ["brands"]).map { clean(String($0.split(separator: ",").first ?? ""), max: 100) }.flatMap { $0.isEmpty ? nil : $0 },
            per100Unit: unit, per100: per100.amounts, perServing: perServing.amounts, serving: serving,
            servingText: servingText, packageQuantity: LabelNumber.parse(p["product_quantity"]).map(\.value).flatMap { $0 > 0 ? $0 : nil })
        // No per-serving values but a known serving weight: compute them from per-100.
        if perServing.amounts.isEmpty, let amount = product.servingAmount, !per100.amounts.isEmpty {
            perServing = Mapped(amounts: product.nutrients(per100Amount: amount), derived: per100.derived, atMost: per100.atMost)
            product.perServing = perServing.amounts
        }
        if product.name.isEmpty { product.name = "Product \(code)" }
        product.derived = per100.derived.union(perServing.derived).sorted()
        product.atMost = per100.atMost.union(perServing.atMost).sorted()
        return product
    }

    static func firstText(_ p: [String: Any], _ keys: [String]) -> String? {
        for k in keys {
            if let s = p[k] as? String, !s.trimmingCharacters(in: .whitespaces).isEmpty { return s }
        }
        return nil
    }

    /// Crowd-sourced text: control characters dropped, whitespace collapsed, length capped.
    static func clean(_ s: String, max: Int) -> String {
        let kept = s.unicodeScalars.filter { !($0.properties.generalCategory == .control || $0.properties.generalCategory == .format) }
        let text = String(String.UnicodeScalarView(kept)).split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return String(text.prefix(max))
    }
}
