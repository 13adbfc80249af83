// The nutrient catalog: canonical ids with fixed units, display names and FDA Daily Values.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The unit a nutrient is always stored in.
public enum NutrientUnit: String, Codable, Sendable, CaseIterable {
    case kcal, g, mg, mcg
}

/// Whether a goal is something to reach (protein) or to stay under (sodium).
public enum GoalDirection: String, Codable, Sendable {
    case target, limit
}

/// One catalog entry. `id` is the canonical snake_case id (`saturated_fat_g`).
public struct Nutrient: Sendable, Hashable, Codable {
    public let id: String
    public let displayName: String
    public let unit: NutrientUnit
    /// FDA Daily Value for adults and children 4+ (21 CFR 101.9), in `unit`; nil when none.
    public let dailyValue: Double?
    public let direction: GoalDirection
    /// Other spellings accepted on input ("Saturated Fat", "Sat fat").
    public let aliases: [String]

    public init(id: String, displayName: String, unit: NutrientUnit, dailyValue: Double?,
                direction: GoalDirection = .target, aliases: [String] = []) {
        self.id = id; self.displayName = displayName; self.unit = unit
        self.dailyValue = dailyValue; self.direction = direction; self.aliases = aliases
    }
}

/// The fixed list of nutrients ofj knows by name. Unknown ids are still kept in amounts.
public enum NutrientCatalog {
    /// Every known nutrient in display order (macros first, then the label order).
    public static let all: [Nutrient] = [
        Nutrient(id: "energy_kcal", displayName: "Calories", unit: .kcal, dailyValue: 2000,
                 aliases: ["Energy", "Calories", "kcal", "Calorie", "Energy (kcal)"]),
        Nutrient(id: "protein_g", displayName: "Protein", unit: .g, dailyValue: 50),
        Nutrient(id: "carbohydrate_g", displayName: "Carbohydrate", unit: .g, dailyValue: 275,
                 aliases: ["Total Carbohydrate", "Carbohydrates", "Carbs", "Carb", "Total Carbs", "Total Carbohydrates"]),
        Nutrient(id: "fat_g", displayName: "Fat", unit: .g, dailyValue: 78, direction: .limit,
                 aliases: ["Total Fat", "Total lipid (fat)", "Lipids"]),
        Nutrient(id: "fiber_g", displayName: "Fiber", unit: .g, dailyValue: 28,
                 aliases: ["Dietary Fiber", "Fibre", "Dietary Fibre", "Total Fiber"]),
        Nutrient(id: "sugars_g", displayName: "Sugars", unit: .g, dailyValue: nil, direction: .limit,
                 aliases: ["Total Sugars", "Sugar"]),
        Nutrient(id: "added_sugars_g", displayName: "Added sugars", unit: .g, dailyValue: 50, direction: .limit,
                 aliases: ["Added Sugar", "Includes Added Sugars"]),
        Nutrient(id: "sodium_mg", displayName: "Sodium", unit: .mg, dailyValue: 2300, direction: .limit),
        Nutrient(id: "cholesterol_mg", displayName: "Cholesterol", unit: .mg, dailyValue: 300, direction: .limit),
        Nutrient(id: "saturated_fat_g", displayName: "Saturated fat", unit: .g, dailyValue: 20, direction: .limit,
                 aliases: ["Sat Fat", "Saturated", "Saturated Fatty Acids"]),
        Nutrient(id: "trans_fat_g", displayName: "Trans fat", unit: .g, dailyValue: nil, direction: .limit,
                 aliases: ["Trans", "Trans Fatty Acids"]),
        Nutrient(id: "monounsaturated_fat_g", displayName: "Monounsaturated fat", unit: .g, dailyValue: nil,
                 aliases: ["Monounsaturated", "MUFA"]),
        Nutrient(id: "polyunsaturated_fat_g", displayName: "Polyunsaturated fat", unit: .g, dailyValue: nil,
                 aliases: ["Polyunsaturated", "PUFA"]),
        Nutrient(id: "vitamin_a_mcg", displayName: "Vitamin A", unit: .mcg, dailyValue: 900,
                 aliases: ["Vitamin A RAE", "vitamin_a_rae_mcg"]),
        Nutrient(id: "vitamin_c_mg", displayName: "Vitamin C", unit: .mg, dailyValue: 90, aliases: ["Ascorbic Acid"]),
        Nutrient(id: "vitamin_d_mcg", displayName: "Vitamin D", unit: .mcg, dailyValue: 20),
        Nutrient(id: "vitamin_e_mg", displayName: "Vitamin E", unit: .mg, dailyValue: 15),
        Nutrient(id: "vitamin_k_mcg", displayName: "Vitamin K", unit: .mcg, dailyValue: 120),
        Nutrient(id: "vitamin_b6_mg", displayName: "Vitamin B6", unit: .mg, dailyValue: 1.7, aliases: ["Vitamin B-6"]),
        Nutrient(id: "vitamin_b12_mcg", displayName: "Vitamin B12", unit: .mcg, dailyValue: 2.4, aliases: ["Vitamin B-12"]),
        Nutrient(id: "thiamin_mg", displayName: "Thiamin", unit: .mg, dailyValue: 1.2, aliases: ["Thiamine", "Vitamin B1"]),
        Nutrient(id: "riboflavin_mg", displayName: "Riboflavin", unit: .mg, dailyValue: 1.3, aliases: ["Vitamin B2"]),
        Nutrient(id: "niacin_mg", displayName: "Niacin", unit: .mg, dailyValue: 16, aliases: ["Vitamin B3"]),
        Nutrient(id: "pantothenic_acid_mg", displayName: "Pantothenic acid", unit: .mg, dailyValue: 5, aliases: ["Vitamin B5"]),
        Nutrient(id: "biotin_mcg", displayName: "Biotin", unit: .mcg, dailyValue: 30, aliases: ["Vitamin B7"]),
        Nutrient(id: "folate_mcg", displayName: "Folate", unit: .mcg, dailyValue: 400,
                 aliases: ["Folate DFE", "folate_dfe_mcg", "Vitamin B9"]),
        Nutrient(id: "choline_mg", displayName: "Choline", unit: .mg, dailyValue: 550),
        Nutrient(id: "calcium_mg", displayName: "Calcium", unit: .mg, dailyValue: 1300),
        Nutrient(id: "iron_mg", displayName: "Iron", unit: .mg, dailyValue: 18),
        Nutrient(id: "magnesium_mg", displayName: "Magnesium", unit: .mg, dailyValue: 420),
        Nutrient(id: "phosphorus_mg", displayName: "Phosphorus", unit: .mg, dailyValue: 1250),
        Nutrient(id: "potassium_mg", displayName: "Potassium", unit: .mg, dailyValue: 4700),
        Nutrient(id: "zinc_mg", displayName: "Zinc", unit: .mg, dailyValue: 11),
        Nutrient(id: "copper_mg", displayName: "Copper", unit: .mg, dailyValue: 0.9),
        Nutrient(id: "manganese_mg", displayName: "Manganese", unit: .mg, dailyValue: 2.3),
        Nutrient(id: "selenium_mcg", displayName: "Selenium", unit: .mcg, dailyValue: 55),
        Nutrient(id: "chromium_mcg", displayName: "Chromium", unit: .mcg, dailyValue: 35),
        Nutrient(id: "molybdenum_mcg", displayName: "Molybdenum", unit: .mcg, dailyValue: 45),
        Nutrient(id: "iodine_mcg", displayName: "Iodine", unit: .mcg, dailyValue: 150),
        Nutrient(id: "chloride_mg", displayName: "Chloride", unit: .mg, dailyValue: 2300),
        Nutrient(id: "water_g", displayName: "Water", unit: .g, dailyValue: nil),
        Nutrient(id: "caffeine_mg", displayName: "Caffeine", unit: .mg, dailyValue: nil, direction: .limit),
        // The other nutrients reference foods carry (SR28 columns ofj stores under their own id),
        // so each can be typed, imported and goaled with its unit; none has an FDA Daily Value.
        Nutrient(id: "starch_g", displayName: "Starch", unit: .g, dailyValue: nil),
        Nutrient(id: "alcohol_g", displayName: "Alcohol", unit: .g, dailyValue: nil, direction: .limit,
                 aliases: ["Alcohol, ethyl", "Ethanol", "Ethyl alcohol"]),
        Nutrient(id: "ash_g", displayName: "Ash", unit: .g, dailyValue: nil),
        Nutrient(id: "theobromine_mg", displayName: "Theobromine", unit: .mg, dailyValue: nil),
        Nutrient(id: "pufa_18_2_g", displayName: "Linoleic acid (18:2)", unit: .g, dailyValue: nil, aliases: ["Linoleic acid", "PUFA 18:2"]),
        Nutrient(id: "pufa_18_3_g", displayName: "Linolenic acid (18:3)", unit: .g, dailyValue: nil, aliases: ["Linolenic acid", "PUFA 18:3"]),
        Nutrient(id: "ala_18_3_n3_g", displayName: "ALA (18:3 n-3)", unit: .g, dailyValue: nil, aliases: ["ALA", "Alpha-linolenic acid"]),
        Nutrient(id: "epa_20_5_n3_g", displayName: "EPA (20:5 n-3)", unit: .g, dailyValue: nil, aliases: ["EPA", "Eicosapentaenoic acid"]),
        Nutrient(id: "dpa_22_5_n3_g", displayName: "DPA (22:5 n-3)", unit: .g, dailyValue: nil, aliases: ["DPA", "Docosapentaenoic acid"]),
        Nutrient(id: "dha_22_6_n3_g", displayName: "DHA (22:6 n-3)", unit: .g, dailyValue: nil, aliases: ["DHA", "Docosahexaenoic acid"]),
        Nutrient(id: "fluoride_mcg", displayName: "Fluoride", unit: .mcg, dailyValue: nil),
        Nutrient(id: "retinol_mcg", displayName: "Retinol", unit: .mcg, dailyValue: nil),
        Nutrient(id: "beta_carotene_mcg", displayName: "Beta-carotene", unit: .mcg, dailyValue: nil, aliases: ["Carotene, beta"]),
        Nutrient(id: "alpha_carotene_mcg", displayName: "Alpha-carotene", unit: .mcg, dailyValue: nil, aliases: ["Carotene, alpha"]),
        Nutrient(id: "beta_cryptoxanthin_mcg", displayName: "Beta-cryptoxanthin", unit: .mcg, dailyValue: nil, aliases: ["Cryptoxanthin, beta"]),
        Nutrient(id: "lycopene_mcg", displayName: "Lycopene", unit: .mcg, dailyValue: nil),
        Nutrient(id: "lutein_zeaxanthin_mcg", displayName: "Lutein + zeaxanthin", unit: .mcg, dailyValue: nil, aliases: ["Lutein+Zeaxanthin"]),
        Nutrient(id: "folate_total_mcg", displayName: "Folate, total", unit: .mcg, dailyValue: nil, aliases: ["Total folate"]),
        Nutrient(id: "betaine_mg", displayName: "Betaine", unit: .mg, dailyValue: nil),
        Nutrient(id: "vitamin_b12_added_mcg", displayName: "Vitamin B12, added", unit: .mcg, dailyValue: nil),
        Nutrient(id: "vitamin_d2_mcg", displayName: "Vitamin D2", unit: .mcg, dailyValue: nil, aliases: ["Ergocalciferol"]),
        Nutrient(id: "vitamin_d3_mcg", displayName: "Vitamin D3", unit: .mcg, dailyValue: nil, aliases: ["Cholecalciferol"]),
        Nutrient(id: "vitamin_e_added_mg", displayName: "Vitamin E, added", unit: .mg, dailyValue: nil),
        Nutrient(id: "vitamin_k2_mk4_mcg", displayName: "Vitamin K2 (MK-4)", unit: .mcg, dailyValue: nil, aliases: ["Menaquinone-4"]),
    ]

    /// The nutrients of labels and Daily Values (every entry of `all` before the other nutrients
    /// reference foods carry): the ones tool schemas name as properties, so every request stays
    /// compact; the others are accepted by id all the same.
    public static let named: [Nutrient] = Array(all.prefix { $0.id != "starch_g" })

    /// The four macros every entry shows.
    public static let coreIDs = ["energy_kcal", "protein_g", "carbohydrate_g", "fat_g"]

    private static let byIDTable: [String: Nutrient] = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
    private static let orderTable: [String: Int] = Dictionary(uniqueKeysWithValues: all.enumerated().map { ($1.id, $0) })

    /// Normalised spelling (letters and digits only, lowercased) to canonical id.
    private static let lookup: [String: String] = {
        var table: [String: String] = [:]
        for n in all {
            for name in [n.id, n.displayName] + n.aliases { table[normalize(name)] = n.id }
            // "Sodium (mg)" and "Sodium mg" style labels.
            table[normalize(n.displayName + n.unit.rawValue)] = n.id
        }
        return table
    }()

    /// The catalog entry for a canonical id.
    public static func nutrient(_ id: String) -> Nutrient? { byIDTable[id] }

    /// Position in display order; unknown ids sort after every known one.
    public static func displayOrder(_ id: String) -> Int { orderTable[id] ?? all.count }

    /// Sorts ids in display order, unknown ids last by name.
    public static func sorted<S: Sequence>(_ ids: S) -> [String] where S.Element == String {
        ids.sorted { a, b in
            let (oa, ob) = (displayOrder(a), displayOrder(b))
            return oa != ob ? oa < ob : a < b
        }
    }

    /// The canonical id for an id or a legacy display name ("Saturated Fat" -> saturated_fat_g);
    /// nil when the name is not in the catalog.
    public static func canonicalID(for name: String) -> String? {
        if byIDTable[name] != nil { return name }
        return lookup[normalize(name)]
    }

    /// Display name for any id: the catalog name, or the id itself when unknown.
    public static func displayName(_ id: String) -> String { byIDTable[id]?.displayName ?? id }

    static func normalize(_ s: String) -> String {
        String(s.lowercased().unicodeScalars.filter { ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") }.map(Character.init))
    }
}
