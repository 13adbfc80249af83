// Tests for the nutrient catalog, amount maps, legacy names and "not reported" totals.
import Testing
@testable import Nutrition

@Suite struct CatalogTests {
    @Test func catalogHasEverySpecNutrientWithItsUnit() {
        let expected = ["energy_kcal", "protein_g", "carbohydrate_g", "fat_g", "fiber_g", "sugars_g", "added_sugars_g",
                        "sodium_mg", "cholesterol_mg", "saturated_fat_g", "trans_fat_g", "monounsaturated_fat_g",
                        "polyunsaturated_fat_g", "vitamin_a_mcg", "vitamin_c_mg", "vitamin_d_mcg", "vitamin_e_mg",
                        "vitamin_k_mcg", "vitamin_b6_mg", "vitamin_b12_mcg", "thiamin_mg", "riboflavin_mg", "niacin_mg",
                        "pantothenic_acid_mg", "biotin_mcg", "folate_mcg", "choline_mg", "calcium_mg", "iron_mg",
                        "magnesium_mg", "phosphorus_mg", "potassium_mg", "zinc_mg", "copper_mg", "manganese_mg",
                        "selenium_mcg", "chromium_mcg", "molybdenum_mcg", "iodine_mcg", "chloride_mg", "water_g", "caffeine_mg",
                        // The other nutrients reference foods carry (issue 30 §7).
                        "starch_g", "alcohol_g", "ash_g", "theobromine_mg", "pufa_18_2_g", "pufa_18_3_g", "ala_18_3_n3_g",
                        "epa_20_5_n3_g", "dpa_22_5_n3_g", "dha_22_6_n3_g", "fluoride_mcg", "retinol_mcg", "beta_carotene_mcg",
                        "alpha_carotene_mcg", "beta_cryptoxanthin_mcg", "lycopene_mcg", "lutein_zeaxanthin_mcg", "folate_total_mcg",
                        "betaine_mg", "vitamin_b12_added_mcg", "vitamin_d2_mcg", "vitamin_d3_mcg", "vitamin_e_added_mg", "vitamin_k2_mk4_mcg"]
        #expect(NutrientCatalog.all.map(\.id) == expected)
        for n in NutrientCatalog.all {
            // The id's suffix is its unit.
            #expect(n.id.hasSuffix("_" + n.unit.rawValue), "\(n.id)")
        }
    }

    /// Every nutrient a reference food entry stores under its own id is in the catalog: it can be
    /// typed (`--nutrient alcohol_g=14`), imported and goaled, with its unit.
    @Test func everyStoredReferenceNutrientIsInTheCatalog() throws {
        let stored = ["energy_kcal", "protein_g", "fat_g", "carbohydrate_g", "fiber_g", "sugars_g", "starch_g", "water_g", "ash_g",
                      "alcohol_g", "caffeine_mg", "theobromine_mg", "saturated_fat_g", "monounsaturated_fat_g", "polyunsaturated_fat_g",
                      "trans_fat_g", "cholesterol_mg", "pufa_18_2_g", "pufa_18_3_g", "ala_18_3_n3_g", "epa_20_5_n3_g", "dpa_22_5_n3_g",
                      "dha_22_6_n3_g", "calcium_mg", "iron_mg", "magnesium_mg", "phosphorus_mg", "potassium_mg", "sodium_mg", "zinc_mg",
                      "copper_mg", "manganese_mg", "selenium_mcg", "fluoride_mcg", "vitamin_a_mcg", "retinol_mcg", "beta_carotene_mcg",
                      "alpha_carotene_mcg", "beta_cryptoxanthin_mcg", "lycopene_mcg", "lutein_zeaxanthin_mcg", "vitamin_c_mg",
                      "thiamin_mg", "riboflavin_mg", "niacin_mg", "pantothenic_acid_mg", "vitamin_b6_mg", "folate_total_mcg",
                      "folate_mcg", "choline_mg", "betaine_mg", "vitamin_b12_mcg", "vitamin_b12_added_mcg", "vitamin_d_mcg",
                      "vitamin_d2_mcg", "vitamin_d3_mcg", "vitamin_e_mg", "vitamin_e_added_mg", "vitamin_k_mcg", "vitamin_k2_mk4_mcg"]
        for id in stored { #expect(NutrientCatalog.nutrient(id) != nil, "\(id)") }
        #expect(NutrientCatalog.canonicalID(for: "Alcohol") == "alcohol_g" && NutrientCatalog.canonicalID(for: "Starch (g)") == "starch_g")
        #expect(NutrientCatalog.nutrient("alcohol_g")?.unit == .g && NutrientCatalog.nutrient("lycopene_mcg")?.unit == .mcg)
        #expect(try Goals(["alcohol_g": 14]).values["alcohol_g"] == 14)
    }

    @Test func dailyValuesMatch21CFR101_9() {
        let dv: [String: Double] = ["fat_g": 78, "saturated_fat_g": 20, "cholesterol_mg": 300, "carbohydrate_g": 275,
                                    "sodium_mg": 2300, "fiber_g": 28, "protein_g": 50, "added_sugars_g": 50,
                                    "vitamin_d_mcg": 20, "calcium_mg": 1300, "iron_mg": 18, "potassium_mg": 4700,
                                    "vitamin_a_mcg": 900, "vitamin_c_mg": 90, "folate_mcg": 400, "vitamin_b12_mcg": 2.4,
                                    "choline_mg": 550, "copper_mg": 0.9, "chromium_mcg": 35, "iodine_mcg": 150,
                                    "energy_kcal": 2000, "biotin_mcg": 30, "selenium_mcg": 55]
        for (id, v) in dv { #expect(NutrientCatalog.nutrient(id)?.dailyValue == v, "\(id)") }
        #expect(NutrientCatalog.nutrient("sugars_g")?.dailyValue == nil)
        #expect(NutrientCatalog.nutrient("trans_fat_g")?.dailyValue == nil)
        #expect(NutrientCatalog.nutrient("caffeine_mg")?.dailyValue == nil)
    }

    @Test func noSpellingMapsToTwoNutrients() {
        var seen: [String: String] = [:]
        for n in NutrientCatalog.all {
            for name in [n.id, n.displayName] + n.aliases {
                let key = NutrientCatalog.normalize(name)
                if let other = seen[key] { #expect(other == n.id, "\(name) maps to \(other) and \(n.id)") }
                seen[key] = n.id
            }
        }
    }

    @Test(arguments: [("Saturated Fat", "saturated_fat_g"), ("Sodium", "sodium_mg"), ("Vitamin C", "vitamin_c_mg"),
                      ("Calories", "energy_kcal"), ("Total Carbohydrate", "carbohydrate_g"), ("Dietary Fiber", "fiber_g"),
                      ("Total Sugars", "sugars_g"), ("Added Sugars", "added_sugars_g"), ("Trans Fat", "trans_fat_g"),
                      ("vitamin_a_rae_mcg", "vitamin_a_mcg"), ("folate_dfe_mcg", "folate_mcg"), ("Vitamin B-12", "vitamin_b12_mcg"),
                      ("sodium (mg)", "sodium_mg"), ("  protein  ", "protein_g"), ("PROTEIN", "protein_g"), ("Total Fat", "fat_g")])
    func legacyNamesMapToCanonicalIDs(name: String, id: String) throws {
        #expect(NutrientCatalog.canonicalID(for: name) == id)
        let amounts = try NutrientAmounts([name: 3])
        #expect(amounts[id] == 3)
        #expect(amounts.count == 1)
    }

    @Test func unknownIDsAreKept() throws {
        let a = try NutrientAmounts(["omega_3_epa_mg": 12.5, "Protein": 4])
        #expect(a["omega_3_epa_mg"] == 12.5)
        #expect(a["protein_g"] == 4)
        #expect(a.ids == ["protein_g", "omega_3_epa_mg"])
        #expect(NutrientCatalog.displayName("omega_3_epa_mg") == "omega_3_epa_mg")
    }

    @Test func canonicalSpellingWinsOverLegacyDuplicate() throws {
        let a = try NutrientAmounts(["Sodium": 100, "sodium_mg": 250])
        #expect(a["sodium_mg"] == 250)
        #expect(a.count == 1)
    }

    @Test func badAmountsAreRejected() {
        #expect(throws: NutritionError.invalidNutrientAmount(id: "protein_g", value: -1)) { try NutrientAmounts(["protein_g": -1]) }
        #expect(throws: NutritionError.self) { try NutrientAmounts(["protein_g": .nan]) }
        #expect(throws: NutritionError.self) { try NutrientAmounts(["protein_g": .infinity]) }
        #expect(throws: NutritionError.self) { try NutrientAmounts(["": 1]) }
        #expect(throws: NutritionError.self) { try NutrientAmounts(["bad\u{7}id": 1]) }
        #expect(throws: NutritionError.self) { try NutrientAmounts([String(repeating: "x", count: 65): 1]) }
        // Zero is a reported value, not a missing one.
        #expect((try? NutrientAmounts(["fiber_g": 0]))?["fiber_g"] == 0)
    }

    @Test func amountsScaleAndAdd() throws {
        let a = try NutrientAmounts(["protein_g": 10, "fat_g": 2])
        let b = try NutrientAmounts(["protein_g": 5, "fiber_g": 1])
        let s = a.scaled(by: 1.5).adding(b)
        #expect(s["protein_g"] == 20)
        #expect(s["fat_g"] == 3)
        #expect(s["fiber_g"] == 1)
    }

    @Test func totalsCountNotReported() throws {
        var t = NutrientTotals()
        t.add(try NutrientAmounts(["energy_kcal": 100, "fiber_g": 2]))
        t.add(try NutrientAmounts(["energy_kcal": 50]))
        t.add(try NutrientAmounts(["energy_kcal": 0, "fiber_g": 0]))
        #expect(t["energy_kcal"] == 150)
        #expect(t["fiber_g"] == 2)
        #expect(t.notReportedCount("energy_kcal") == 0)
        #expect(t.notReportedCount("fiber_g") == 1)
        #expect(t.notReportedCount("sodium_mg") == 3)
        #expect(t["sodium_mg"] == nil) // not reported is not zero
        #expect(t.incompleteIDs(among: ["energy_kcal", "fiber_g", "sodium_mg"]) == ["fiber_g", "sodium_mg"])
        var u = NutrientTotals()
        u.add(t); u.add(t)
        #expect(u.entryCount == 6)
        #expect(u.notReportedCount("fiber_g") == 2)
    }

    @Test func amountsRoundTripAsPlainJSONObject() throws {
        let a = try NutrientAmounts(["protein_g": 1.5, "x_custom": 2])
        let data = try JSONEncoderForTests.encode(a)
        #expect(data == "{\"protein_g\":1.5,\"x_custom\":2}")
        let back = try JSONEncoderForTests.decode(NutrientAmounts.self, "{\"Saturated Fat\": 3}")
        #expect(back["saturated_fat_g"] == 3)
        #expect(throws: (any Error).self) { try JSONEncoderForTests.decode(NutrientAmounts.self, "{\"protein_g\": -3}") }
    }
}
