// Values USDA left empty but that follow, by USDA's own rules, from values it did report:
// vitamin D in µg from IU, folate DFE from food folate and folic acid. Kept apart from the
// verbatim per-100 g values so every use can say they are derived.

extension ReferenceFood {
    /// USDA's rule for each derived column, as shown next to a derived value.
    public static let derivationRules: [String: String] = [
        "vitamin_d_mcg": "derived: vitamin D IU ÷ 40 (USDA: 1 µg = 40 IU)",
        "folate_dfe_mcg": "derived: food folate + 1.7 × folic acid (USDA's DFE rule)",
    ]

    /// Derived per-100 g values for columns this food leaves empty (never replacing a reported
    /// value); empty when nothing can be derived.
    public var derivedPer100g: [String: Double] { ReferenceFood.derive(from: nutrientsPer100g) }

    /// The derivation on a per-100 g map: vitamin D µg = IU / 40 where only IU is reported;
    /// folate DFE = food folate + 1.7 × folic acid where both are reported and DFE is not.
    public static func derive(from per100g: [String: Double]) -> [String: Double] {
        var out: [String: Double] = [:]
        if per100g["vitamin_d_mcg"] == nil, let iu = per100g["vitamin_d_iu"] {
            out["vitamin_d_mcg"] = iu / 40
        }
        if per100g["folate_dfe_mcg"] == nil, let food = per100g["folate_food_mcg"], let folicAcid = per100g["folic_acid_mcg"] {
            out["folate_dfe_mcg"] = food + 1.7 * folicAcid
        }
        return out
    }
}
