// USDA FoodData Central foods (search hits and food details) to PackagedProduct.
import Foundation
import Nutrition

public enum FDCMapping {
    /// FDC nutrient number -> ofj id. Energy has several numbers: 208 (kcal) first, then the
    /// Atwater energies Foundation foods carry (958 specific, 957 general), then 268 (kJ).
    static let numbers: [String: String] = [
        "203": "protein_g", "205": "carbohydrate_g", "204": "fat_g", "291": "fiber_g",
        "269": "sugars_g", "269.3": "sugars_g", "539": "added_sugars_g", "307": "sodium_mg", "601": "cholesterol_mg",
        "606": "saturated_fat_g", "605": "trans_fat_g", "645": "monounsaturated_fat_g", "646": "polyunsaturated_fat_g",
        "320": "vitamin_a_mcg", "401": "vitamin_c_mg", "328": "vitamin_d_mcg", "323": "vitamin_e_mg", "430": "vitamin_k_mcg",
        "415": "vitamin_b6_mg", "418": "vitamin_b12_mcg", "404": "thiamin_mg", "405": "riboflavin_mg", "406": "niacin_mg",
        "410": "pantothenic_acid_mg", "416": "biotin_mcg", "435": "folate_mcg", "421": "choline_mg",
        "301": "calcium_mg", "303": "iron_mg", "304": "magnesium_mg", "305": "phosphorus_mg", "306": "potassium_mg",
        "309": "zinc_mg", "312": "copper_mg", "315": "manganese_mg", "317": "selenium_mcg", "255": "water_g", "262": "caffeine_mg",
        "209": "starch_g", "221": "alcohol_g", "263": "theobromine_mg",
    ]
    static let energyNumbers = ["208", "958", "957"]

    /// Factor from an FDC unit name to the canonical unit of `id`; nil when it does not convert (IU).
    static func factor(from unitName: String, to id: String) -> Double? {
        let from: Double
        switch unitKey(unitName) {
        case "g": from = 1
        case "mg": from = 1e-3
        case "ug", "mcg": from = 1e-6
        case "kcal": return id == "energy_kcal" ? 1 : nil
        case "kj": return id == "energy_kcal" ? 1 / OFFMapping.kilojoulesPerKilocalorie : nil
        default: return nil
        }
        guard let unit = NutrientCatalog.nutrient(id)?.unit else { return nil }
        switch unit {
        case .g: return from
        case .mg: return from * 1e3
        case .mcg: return from * 1e6
        case .kcal: return nil
        }
    }

    /// A unit name compared without Unicode case folding: only ASCII letters are lowercased, and
    /// the micro sign (U+00B5), Greek mu (U+03BC) and capital Greek mu (U+039C, what Swift's
    /// `uppercased()` turns "µ" into) all read as "u", so "µg", "µG", "μg", "UG" and "mcg" match.
    static func unitKey(_ unitName: String) -> String {
        var out = ""
        for scalar in unitName.unicodeScalars {
            switch scalar.value {
            case 0x41...0x5A: out.unicodeScalars.append(Unicode.Scalar(scalar.value + 0x20) ?? scalar)
            case 0xB5, 0x3BC, 0x39C: out.append("u")
            case 0x20, 0x09: continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Reads the nutrient rows of any FDC shape: search hits (`nutrientNumber`, `value`),
    /// abridged details (`number`, `amount`) and full details (`nutrient{number,unitName}`,
    /// `amount`; group-header rows without an amount are skipped). Values are per 100 g.
    public static func nutrients(_ rows: [[String: Any]]) -> (amounts: NutrientAmounts, derived: Set<String>) {
        var byNumber: [String: (Double, String)] = [:]
        for row in rows {
            let nested = row["nutrient"] as? [String: Any]
            guard let number = text(row["nutrientNumber"]) ?? text(row["number"]) ?? nested.flatMap({ text($0["number"]) }),
                  let unit = (row["unitName"] as? String) ?? (nested?["unitName"] as? String),
                  let value = LabelNumber.parse(row["value"] ?? row["amount"])?.value else { continue }
            if byNumber[number] == nil { byNumber[number] = (value, unit) }
        }
        var out: [String: Double] = [:]
        var derived: Set<String> = []
        if let n = energyNumbers.first(where: { byNumber[$0].map { unitKey($0.1) == "kcal" } == true }), let (v, _) = byNumber[n] {
            out["energy_kcal"] = v.rounded(places: 6)
        } else if let (v, u) = byNumber["268"], let f = factor(from: u, to: "energy_kcal") {
            out["energy_kcal"] = (v * f).rounded(places: 6)
            derived.insert("energy_kcal")
        }
        for (number, (value, unit)) in byNumber {
            guard let id = numbers[number], out[id] == nil || number == "269", let f = factor(from: unit, to: id) else { continue }
            if number == "269.3", byNumber["269"] != nil { continue }
            out[id] = (value * f).rounded(places: 6)
        }
        return (NutrientAmounts(storedCanonical: out), derived)
    }

    /// A product from an FDC food (search hit or detail).
    public static func product(_ f: [String: Any]) -> PackagedProduct? {
        guard let id = text(f["fdcId"]) else { return nil }
        let rows = f["foodNutrients"] as? [[String: Any]] ?? []
        let (per100, derived) = nutrients(rows)
        let dataType = f["dataType"] as? String
        let unitText = ((f["servingSizeUnit"] as? String) ?? "g").lowercased()
        let liquid = unitText == "ml" || unitText == "mlt"
        var serving: ServingSize?
        var servingText: String?
        if let size = LabelNumber.parse(f["servingSize"])?.value, size > 0 {
            let household = (f["householdServingFullText"] as? String).map { OFFMapping.clean($0, max: 60) }
            servingText = "\(size.formattedAmount) \(liquid ? "mL" : "g")" + (household.map { " (\($0))" } ?? "")
            // "1 ONZ", "2 Tbsp", "1 bar": a household count names the portion; its weight is servingSize.
            let named = household.flatMap { ServingSizeParser.amount($0.lowercased()) }
            if let named, case .count = named.unit {
                serving = ServingSize(quantity: named.quantity, unit: named.unit, grams: liquid ? nil : size, milliliters: liquid ? size : nil)
            } else {
                serving = ServingSize(quantity: size, unit: liquid ? .volume(.ml) : .mass(.g))
            }
        }
        let brand = (f["brandName"] as? String) ?? (f["brandOwner"] as? String)
        var product = PackagedProduct(
            source: .foodDataCentral, id: id, barcode: (f["gtinUpc"] as? String).flatMap { $0.isEmpty ? nil : $0 },
            name: OFFMapping.clean((f["description"] as? String) ?? "FDC \(id)", max: 200),
            brand: brand.map { OFFMapping.clean($0, max: 100) }.flatMap { $0.isEmpty ? nil : $0 }, dataType: dataType,
            per100Unit: liquid ? "ml" : "g", per100: per100, perServing: NutrientAmounts(), serving: serving,
            servingText: servingText, packageQuantity: nil, derived: derived.sorted())
        if let amount = product.servingAmount, !per100.isEmpty { product.perServing = product.nutrients(per100Amount: amount) }
        return product
    }

    static func text(_ any: Any?) -> String? {
        if let s = any as? String, !s.isEmpty { return s }
        if let n = any as? NSNumber {
            let d = n.doubleValue
            return d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
        }
        return nil
    }
}
