// Tests for unit parsing and the conversion matrix (within, across via density/mapping, impossible).
import Testing
@testable import Nutrition

private func close(_ a: Double, _ b: Double, _ tol: Double = 1e-9) -> Bool { abs(a - b) <= tol * max(1, abs(b)) }

@Suite struct UnitsTests {
    @Test(arguments: [("g", "g"), ("grams", "g"), ("Kg", "kg"), ("ounces", "oz"), ("lbs", "lb"), ("mL", "mL"), ("ml", "mL"),
                      ("Liters", "L"), ("cups", "cup"), ("Tablespoons", "tbsp"), ("tsp", "tsp"), ("fl oz", "fl oz"),
                      ("fluid ounces", "fl oz"), ("eggs", "egg"), ("slices", "slice"), ("serving", "serving"),
                      ("patties", "patty"), ("  Pieces ", "piece")])
    func parsesUnitsAsPeopleWriteThem(text: String, symbol: String) throws {
        #expect(try ServingUnit.parse(text).symbol == symbol)
    }

    @Test func unknownUnitsAreRejectedUnlessTheFoodKnowsThem() throws {
        #expect(throws: NutritionError.unknownUnit("parsec")) { try ServingUnit.parse("parsec") }
        #expect(throws: NutritionError.self) { try ServingUnit.parse("") }
        #expect(throws: NutritionError.self) { try ServingUnit.parse(String(repeating: "z", count: 50)) }
        #expect(try ServingUnit.parse("dollops", extraCounts: ["dollop"]) == .count("dollop"))
    }

    /// Every pair within mass and within volume converts both ways and back again.
    @Test func conversionMatrixWithinDimensions() throws {
        let masses = ServingUnit.MassUnit.allCases.map(ServingUnit.mass)
        let volumes = ServingUnit.VolumeUnit.allCases.map(ServingUnit.volume)
        for group in [masses, volumes] {
            for a in group {
                for b in group {
                    let there = try UnitConverter.convert(3, from: a, to: b)
                    let back = try UnitConverter.convert(there, from: b, to: a)
                    #expect(close(back, 3), "\(a) -> \(b)")
                }
            }
        }
        #expect(close(try UnitConverter.convert(1, from: .mass(.lb), to: .mass(.oz)), 16))
        #expect(close(try UnitConverter.convert(1, from: .mass(.kg), to: .mass(.g)), 1000))
        #expect(close(try UnitConverter.convert(1, from: .volume(.cup), to: .volume(.tbsp)), 16))
        #expect(close(try UnitConverter.convert(1, from: .volume(.tbsp), to: .volume(.tsp)), 3))
        #expect(close(try UnitConverter.convert(1, from: .volume(.cup), to: .volume(.flOz)), 8))
        #expect(close(try UnitConverter.convert(1, from: .volume(.l), to: .volume(.ml)), 1000))
    }

    @Test func crossDimensionWithoutAFoodIsImpossible() {
        for m in ServingUnit.MassUnit.allCases {
            for v in ServingUnit.VolumeUnit.allCases {
                #expect(throws: NutritionError.impossibleConversion(from: m.rawValue, to: v.rawValue)) {
                    try UnitConverter.convert(1, from: .mass(m), to: .volume(v))
                }
            }
        }
        #expect(throws: NutritionError.self) { try UnitConverter.convert(1, from: .count("egg"), to: .mass(.g)) }
        #expect(throws: NutritionError.self) { try UnitConverter.convert(1, from: .count("egg"), to: .count("slice")) }
    }

    @Test func perFoodMappingBridgesVolumeAndMass() throws {
        // Milk: 1 cup = 244 g.
        let milk = FoodMeasures(serving: ServingSize(quantity: 1, unit: .volume(.cup), grams: 244))
        #expect(close(try milk.servings(244, .mass(.g)), 1))
        #expect(close(try milk.servings(8, .volume(.flOz)), 1))
        #expect(close(try milk.servings(122, .mass(.g)), 0.5))
        // Tablespoons go through the density the cup mapping implies.
        #expect(close(try milk.servings(16, .volume(.tbsp)), 1))
        #expect(close(try milk.convert(1, from: .volume(.cup), to: .mass(.oz)), 244 / 28.349523125))
    }

    @Test func densityFromGramsAndMillilitres() throws {
        let oil = FoodMeasures(serving: ServingSize(quantity: 1, unit: .volume(.tbsp), grams: 13.6))
        #expect(close(oil.density ?? 0, 13.6 / 14.78676478125))
        #expect(close(try oil.servings(27.2, .mass(.g)), 2))
        let soda = FoodMeasures(serving: ServingSize(quantity: 1, unit: .count("can"), grams: 368, milliliters: 355))
        #expect(close(try soda.servings(710, .volume(.ml)), 2))
        #expect(close(try soda.servings(736, .mass(.g)), 2))
        // A cup measure gives the density before a tbsp one or a container's, as for reference foods.
        let flour = FoodMeasures(serving: ServingSize(quantity: 1, unit: .count("bag"), grams: 1000, milliliters: 1900),
                                 mappings: [UnitMapping(quantity: 1, unit: .volume(.tbsp), grams: 7.8),
                                            UnitMapping(quantity: 1, unit: .volume(.cup), grams: 125)])
        #expect(close(flour.density ?? 0, 125 / 236.5882365))
    }

    @Test func countUnitsThroughMappings() throws {
        let egg = FoodMeasures(serving: ServingSize(quantity: 100, unit: .mass(.g)),
                               mappings: [UnitMapping(quantity: 1, unit: .count("egg"), grams: 50)])
        #expect(close(try egg.servings(2, .count("egg")), 1))
        #expect(close(try egg.servings(3, .count("egg")), 1.5))
        let bread = FoodMeasures(serving: ServingSize(quantity: 2, unit: .count("slice")))
        #expect(close(try bread.servings(1, .count("slice")), 0.5))
        #expect(throws: NutritionError.impossibleConversion(from: "g", to: "slice")) { try bread.servings(30, .mass(.g)) }
        #expect(throws: NutritionError.self) { try bread.servings(1, .volume(.cup)) }
        #expect(throws: NutritionError.self) { try egg.servings(1, .volume(.cup)) } // no density known
        #expect(egg.countNames == ["egg"])
    }

    @Test func servingsRejectsBadQuantities() {
        let f = FoodMeasures(serving: ServingSize(quantity: 1, unit: .mass(.g)))
        for q in [0, -1, Double.nan, .infinity] {
            #expect(throws: NutritionError.self) { try f.servings(q, .mass(.g)) }
        }
    }

    @Test func servingSizeFillsItsOwnDimensionAndLabels() {
        let s = ServingSize(quantity: 2, unit: .mass(.oz))
        #expect(close(s.grams ?? 0, 56.69904625))
        #expect(ServingSize(quantity: 1, unit: .volume(.cup), grams: 244).label == "1 cup (244 g)")
        #expect(ServingSize(quantity: 1.5, unit: .count("slice")).label == "1.5 slice")
    }

    @Test func unitsCodeAsTheirSymbol() throws {
        #expect(try JSONEncoderForTests.encode([ServingUnit.volume(.flOz), .count("egg")]) == "[\"fl oz\",\"egg\"]")
        #expect(try JSONEncoderForTests.decode([ServingUnit].self, "[\"Tbsp\",\"dollop\"]") == [.volume(.tbsp), .count("dollop")])
    }
}

@Suite struct UnitSpellingTests {
    @Test(arguments: ["fl. oz.", "fl oz.", "FL OZ", "fluid  ounces", "floz"])
    func fluidOunceSpellings(text: String) throws {
        #expect(try ServingUnit.parse(text) == .volume(.flOz))
    }

    @Test func pluralCountsMatchTheirSingularMappings() throws {
        let f = FoodMeasures(serving: ServingSize(quantity: 1, unit: .count("patty"), grams: 113))
        #expect(try f.servings(2, .count("patties")) == 2)
        #expect(try f.servings(226, .mass(.g)) == 2)
        #expect(ServingUnit.count("Slices").matches(.count("slice")))
        #expect(!ServingUnit.count("egg").matches(.count("slice")))
        #expect(!ServingUnit.mass(.oz).matches(.volume(.flOz)))
    }

    @Test func storedSymbolsReadBackAsWritten() {
        for u: ServingUnit in [.mass(.g), .mass(.lb), .volume(.ml), .volume(.flOz), .volume(.l), .count("serving"),
                               .count("cup (4.86 large eggs)"), .count("large")] {
            #expect(ServingUnit(storedSymbol: u.symbol) == u, "\(u)")
        }
    }
}

/// A unit one edit from a mass or volume name is a typo to ask about, not a new countable unit;
/// real count words, units and other words read as typed.
@Suite struct MeasureTypoTests {
    @Test(arguments: [
        ("gramz", "grams"), ("grms", "grams"), ("tablspoon", "tablespoon"), ("ounse", "ounce"), ("litr", "liter"),
        ("cupz", "cups"), ("grams", nil), ("30 g", nil), ("bar", nil), ("bars", nil), ("slice", nil), ("bowl", nil),
        ("wedge", nil), ("handful", nil), ("tranche", nil), ("", nil), ("fl oz", nil),
    ] as [(String, String?)])
    func typos(_ typed: String, _ meant: String?) {
        #expect(ServingUnit.measureTypo(typed) == meant, "\(typed)")
    }
}
