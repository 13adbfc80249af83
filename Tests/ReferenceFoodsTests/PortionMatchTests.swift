// Matching typed portions ("1 large egg", "2 tbsp", "1/2 cup") to USDA household measures.
import Testing
@testable import ReferenceFoods

@Suite("Portion matching")
struct PortionMatchTests {
    let db = Fixtures.shipped

    private func match(_ id: String, _ text: String) throws -> ReferencePortionMatch? {
        try #require(db.food(id: id)).portion(matching: text)
    }

    @Test(arguments: [
        ("large", 1.0, "large", 50.0),
        ("1 large egg", 1, "large", 50),
        ("2 large eggs", 2, "large", 100),
        ("Large", 1, "large", 50),
        ("lg", 1, "large", 50),
        ("xl", 1, "extra large", 56),
        ("extra large", 1, "extra large", 56),
        ("1 jumbo egg", 1, "jumbo", 63),
        ("medium", 1, "medium", 44),
        ("3 small eggs", 3, "small", 114),
        ("cup", 1, "cup (4.86 large eggs)", 243),
        ("1/2 cup", 0.5, "cup (4.86 large eggs)", 121.5),
        ("½ cup", 0.5, "cup (4.86 large eggs)", 121.5),
        ("1 1/2 cups", 1.5, "cup (4.86 large eggs)", 364.5),
        ("0.5 cup of eggs", 0.5, "cup (4.86 large eggs)", 121.5),
    ])
    func eggPortions(text: String, quantity: Double, measure: String, grams: Double) throws {
        let found = try #require(try match("01123", text), "\(text)")
        #expect(found.portion.measure == measure)
        #expect(found.quantity == quantity)
        #expect(abs(found.grams - grams) < 1e-9, "\(text): \(found.grams)")
    }

    @Test func unitSpellingsAndAmountsOtherThanOne() throws {
        // Peanut butter: USDA gives "2 tbsp = 32 g", so one tablespoon is 16 g.
        #expect(try match("16098", "tbsp")?.grams == 16)
        #expect(try match("16098", "1 tablespoon")?.grams == 16)
        #expect(try match("16098", "2 Tablespoons")?.grams == 32)
        #expect(try match("16098", "2 tbs")?.grams == 32)
        #expect(try match("16098", "cup")?.grams == 258)
        // Whole milk: cup, fl oz, tbsp, quart.
        #expect(try match("01077", "1 cup milk")?.grams == 244)
        #expect(try match("01077", "8 fl oz")?.grams == 244)
        #expect(try match("01077", "1 quart")?.grams == 976)
        // Chicken breast: "3 oz = 85 g".
        let ounces = try #require(try match("05062", "3 oz"))
        #expect(abs(ounces.grams - 85) < 1e-9)
        #expect(try match("05062", "1 ounce")?.portion.measure == "oz")
    }

    @Test func slicesAndSizesWithUSDADetail() throws {
        // Bread, whole-wheat (18069) lists "slice" twice (29 g and 25 g): USDA's first one wins.
        #expect(try match("18069", "slice")?.grams == 29)
        #expect(try match("18069", "2 slices")?.grams == 58)
        #expect(try match("18069", "large slice")?.portion.measure == "slice, large")
        #expect(try match("18069", "thin slice")?.portion.measure == "slice, thin")
        // Banana: "medium (7\" to 7-7/8\" long)" and "cup, sliced".
        #expect(try match("09040", "1 medium banana")?.grams == 118)
        #expect(try match("09040", "cup sliced")?.grams == 150)
        #expect(try match("09040", "cup")?.portion.sequence == 1)
        #expect(try match("09003", "small apple")?.grams == 149)
    }

    @Test func textWithoutAMeasureOrWithABadQuantityMatchesNothing() throws {
        for text in ["", "egg", "2 eggs", "2", "gallon", "0 large", "-1 large", "1/0 large", "inf large", "nan large",
                     "1e400 large", "large large large " + String(repeating: "x", count: 300)] {
            #expect(try match("01123", text) == nil, "\(text)")
        }
        // A food without household measures matches nothing.
        let noPortions = try #require(db.allFoods.first { $0.portions.isEmpty })
        #expect(noPortions.portion(matching: "cup") == nil)
    }

    @Test func gramsForQuantity() {
        let portion = ReferencePortion(sequence: 1, amount: 0.5, measure: "cup", gramWeight: 60)
        #expect(portion.gramsPerMeasure == 120)
        #expect(portion.grams(forQuantity: 2) == 240)
        #expect(portion.grams(forQuantity: 0) == 0)
        #expect(portion.grams(forQuantity: -1) == nil)
        #expect(portion.grams(forQuantity: .nan) == nil)
        #expect(portion.label == "0.5 cup")
    }
}
