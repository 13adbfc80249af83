// Golden mapped nutrients for every recorded product, and the nutriments/serving-size rules.
import Foundation
import Nutrition
import PackagedFoods
import XCTest

func fixture(_ name: String) throws -> Data {
    guard let url = Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil) else {
        throw NSError(domain: "fixture", code: 1, userInfo: [NSLocalizedDescriptionKey: "missing fixture \(name)"])
    }
    return try Data(contentsOf: url)
}

func jsonObject(_ name: String) throws -> [String: Any] {
    try XCTUnwrap(try JSONSerialization.jsonObject(with: fixture(name)) as? [String: Any])
}

/// A stable text form of a product for golden files.
func goldenText(_ p: PackagedProduct) -> String {
    var lines = ["source: \(p.source.rawValue)", "id: \(p.id)", "barcode: \(p.barcode ?? "-")", "name: \(p.name)",
                 "brand: \(p.brand ?? "-")", "data type: \(p.dataType ?? "-")", "per 100 \(p.per100Unit)",
                 "serving: \(p.serving?.label ?? "-") [\(p.servingText ?? "-")]",
                 "package: \(p.packageQuantity.map { "\($0)" } ?? "-")", "has nutrition: \(p.hasNutrition)",
                 "derived: \(p.derived.joined(separator: ","))", "at most: \(p.atMost.joined(separator: ","))"]
    lines.append("per 100:")
    for id in p.per100.ids { lines.append("  \(id) = \(p.per100[id] ?? -1)") }
    lines.append("per serving:")
    for id in p.perServing.ids { lines.append("  \(id) = \(p.perServing[id] ?? -1)") }
    return lines.joined(separator: "\n") + "\n"
}

/// Compares with Fixtures/golden/NAME; `OFJ_UPDATE_GOLDEN=1` rewrites the source-tree file.
func assertGolden(_ text: String, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
    let path = URL(fileURLWithPath: "\(#filePath)").deletingLastPathComponent().appendingPathComponent("Fixtures/golden/\(name)")
    if ProcessInfo.processInfo.environment["OFJ_UPDATE_GOLDEN"] == "1" {
        try text.write(to: path, atomically: true, encoding: .utf8)
        return
    }
    let expected = try String(contentsOf: path, encoding: .utf8)
    XCTAssertEqual(text, expected, "golden \(name) differs (OFJ_UPDATE_GOLDEN=1 to rewrite)", file: file, line: line)
}

final class MappingTests: XCTestCase {
    func testGoldenOFFProducts() throws {
        for code in ["3029330003533", "7622210288257"] {
            let body = try jsonObject("off-product-\(code).json")
            let p = OFFMapping.product(try XCTUnwrap(body["product"] as? [String: Any]), code: code)
            try assertGolden(goldenText(p), "off-\(code).txt")
        }
    }

    func testGoldenOFFSearchProducts() throws {
        let body = try jsonObject("off-search-coca.json")
        let items = try XCTUnwrap(body["products"] as? [[String: Any]])
        XCTAssertEqual(items.count, 20)
        let text = items.map { goldenText(OFFMapping.product($0, code: ($0["code"] as? String) ?? "?")) }.joined(separator: "---\n")
        try assertGolden(text, "off-search-coca.txt")
    }

    func testGoldenFDC() throws {
        let search = try jsonObject("fdc-search-cheddar.json")
        let foods = try XCTUnwrap(search["foods"] as? [[String: Any]])
        try assertGolden(foods.compactMap(FDCMapping.product).map(goldenText).joined(separator: "---\n"), "fdc-search-cheddar.txt")
        try assertGolden(goldenText(try XCTUnwrap(FDCMapping.product(try jsonObject("fdc-food-328637-abridged.json")))), "fdc-328637.txt")
        try assertGolden(goldenText(try XCTUnwrap(FDCMapping.product(try jsonObject("fdc-food-170720-full.json")))), "fdc-170720.txt")
    }

    func testBreadKeyFacts() throws {
        let body = try jsonObject("off-product-3029330003533.json")
        let p = OFFMapping.product(try XCTUnwrap(body["product"] as? [String: Any]), code: "3029330003533")
        XCTAssertEqual(p.per100["energy_kcal"], 246)
        XCTAssertEqual(p.per100["sodium_mg"], 440)
        XCTAssertEqual(p.perServing["energy_kcal"], 150)
        XCTAssertEqual(p.serving, ServingSize(quantity: 1, unit: .count("tranche"), grams: 60.8))
        XCTAssertEqual(p.packageQuantity, 730)
        XCTAssertEqual(p.derived, [], "sodium is given, so nothing is derived")
        XCTAssertNil(p.per100["vitamin_c_mg"], "not reported stays not reported")
    }

    func testEnergyKcalIsPreferredAndKJIsConverted() {
        let both = OFFMapping.nutrients(["energy-kcal_100g": 100, "energy-kj_100g": 900, "energy_100g": 900], suffix: "_100g")
        XCTAssertEqual(both.amounts["energy_kcal"], 100)
        XCTAssertFalse(both.derived.contains("energy_kcal"))
        let kj = OFFMapping.nutrients(["energy_100g": 418.4], suffix: "_100g")
        XCTAssertEqual(kj.amounts["energy_kcal"], 100)
        XCTAssertTrue(kj.derived.contains("energy_kcal"))
    }

    func testSodiumFromSaltOnlyWhenSodiumIsAbsent() {
        let salt = OFFMapping.nutrients(["salt_100g": 1.25], suffix: "_100g")
        XCTAssertEqual(salt.amounts["sodium_mg"], 500)
        XCTAssertEqual(salt.derived, ["sodium_mg"])
        let both = OFFMapping.nutrients(["salt_100g": 1.25, "sodium_100g": 0.4], suffix: "_100g")
        XCTAssertEqual(both.amounts["sodium_mg"], 400)
        XCTAssertEqual(both.derived, [])
    }

    func testStringNutriments() {
        let m = OFFMapping.nutrients(["fat_100g": "1,5", "sugars_100g": "<0.5", "proteins_100g": "~3", "fiber_100g": "traces",
                                      "salt_100g": "", "carbohydrates_100g": "12 g", "sodium_100g": "1.234,5",
                                      "saturated-fat_100g": -1, "calcium_100g": "abc"], suffix: "_100g")
        XCTAssertEqual(m.amounts["fat_g"], 1.5)
        XCTAssertEqual(m.amounts["sugars_g"], 0.5)
        XCTAssertEqual(m.atMost, ["sugars_g"])
        XCTAssertEqual(m.amounts["protein_g"], 3)
        XCTAssertEqual(m.amounts["carbohydrate_g"], 12)
        for id in ["fiber_g", "sodium_mg", "saturated_fat_g", "calcium_mg"] { XCTAssertNil(m.amounts[id], id) }
        let modifier = OFFMapping.nutrients(["fat_100g": 0.5, "fat_modifier": "<"], suffix: "_100g")
        XCTAssertEqual(modifier.atMost, ["fat_g"])
    }

    func testNoNutritionDataIsShownAsSuch() {
        let none = OFFMapping.product(["product_name": "Mystery"], code: "3017620422003")
        XCTAssertFalse(none.hasNutrition)
        XCTAssertTrue(none.per100.isEmpty)
        let zero = OFFMapping.product(["product_name": "Water", "nutriments": ["energy-kcal_100g": 0, "energy_100g": 0]], code: "3017620422003")
        XCTAssertFalse(zero.hasNutrition)
        let zeroAndSalt = OFFMapping.product(["product_name": "Cola zero", "nutriments": ["energy-kcal_100g": 0, "salt_100g": 0.02]], code: "50112579")
        XCTAssertTrue(zeroAndSalt.hasNutrition)
    }

    func testPerServingComputedFromServingWeightWhenAbsent() {
        let p = OFFMapping.product(["product_name": "Bar", "serving_size": "1 bar (40 g)",
                                    "nutriments": ["energy-kcal_100g": 500, "proteins_100g": 10]], code: "50112579")
        XCTAssertEqual(p.perServing["energy_kcal"], 200)
        XCTAssertEqual(p.perServing["protein_g"], 4)
    }

    func testServingSizeParser() {
        XCTAssertEqual(ServingSizeParser.parse("30 g"), ServingSize(quantity: 30, unit: .mass(.g)))
        XCTAssertEqual(ServingSizeParser.parse("1 bar (40 g)"), ServingSize(quantity: 1, unit: .count("bar"), grams: 40))
        XCTAssertEqual(ServingSizeParser.parse("250 ml"), ServingSize(quantity: 250, unit: .volume(.ml)))
        XCTAssertEqual(ServingSizeParser.parse("250ml"), ServingSize(quantity: 250, unit: .volume(.ml)))
        XCTAssertEqual(ServingSizeParser.parse("60.8 g (1 tranche)"), ServingSize(quantity: 1, unit: .count("tranche"), grams: 60.8))
        XCTAssertEqual(ServingSizeParser.parse("1 can (355 ml)"), ServingSize(quantity: 1, unit: .count("can"), milliliters: 355))
        XCTAssertEqual(ServingSizeParser.parse("33 cl"), ServingSize(quantity: 330, unit: .volume(.ml)))
        XCTAssertEqual(ServingSizeParser.parse("2 biscuits (25 g)"), ServingSize(quantity: 2, unit: .count("biscuit"), grams: 25))
        XCTAssertEqual(ServingSizeParser.parse("1,5 g"), ServingSize(quantity: 1.5, unit: .mass(.g)))
        XCTAssertNil(ServingSizeParser.parse("250.0"))
        XCTAssertNil(ServingSizeParser.parse(""))
        XCTAssertNil(ServingSizeParser.parse("une portion"))
        XCTAssertNil(ServingSizeParser.parse("-5 g"))
    }
}
