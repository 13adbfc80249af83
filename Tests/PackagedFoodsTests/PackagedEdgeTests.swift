// Packaged edge cases (issue 30 §6): FDC micrograms match whatever the case of "µ", a mass of a
// per-100 mL product needs the label's density, and per-serving-only products log by the serving.
import Foundation
import Nutrition
import XCTest
@testable import PackagedFoods

final class PackagedEdgeTests: XCTestCase {
    func testFDCMicrogramsMatchInEverySpelling() {
        // "µG" is what FDC sends; Swift's uppercased() of "µ" is a capital Greek mu, so a
        // case-folded comparison never matched and B12 was dropped.
        for unit in ["µg", "µG", "UG", "ug", "MCG", "mcg", "μg", "ΜG"] {
            let rows: [[String: Any]] = [["nutrientNumber": "418", "unitName": unit, "value": 2.4]]
            XCTAssertEqual(FDCMapping.nutrients(rows).amounts["vitamin_b12_mcg"], 2.4, unit)
        }
        let mg: [[String: Any]] = [["nutrientNumber": "307", "unitName": "MG", "value": 120], ["nutrientNumber": "208", "unitName": "KCAL", "value": 90]]
        XCTAssertEqual(FDCMapping.nutrients(mg).amounts["sodium_mg"], 120)
        XCTAssertEqual(FDCMapping.nutrients(mg).amounts["energy_kcal"], 90)
        let alcohol: [[String: Any]] = [["nutrientNumber": "221", "unitName": "G", "value": 10.6]]
        XCTAssertEqual(FDCMapping.nutrients(alcohol).amounts["alcohol_g"], 10.6)
    }

    func drink(serving: ServingSize?) -> PackagedProduct {
        PackagedProduct(source: .openFoodFacts, id: "50112579", barcode: "50112579", name: "Juice", brand: nil, per100Unit: "ml",
                        per100: NutrientAmounts(storedCanonical: ["energy_kcal": 45, "sugars_g": 10]), perServing: NutrientAmounts(),
                        serving: serving, servingText: nil, packageQuantity: nil)
    }

    func testAMassOfAPer100MillilitreProductWithoutADensityIsRefused() throws {
        for serving in [nil, ServingSize(quantity: 250, unit: .volume(.ml))] {
            let p = drink(serving: serving)
            XCTAssertThrowsError(try PackagedPortion.resolve(p, grams: 37)) { error in
                let line = "\(error)"
                XCTAssertTrue(line.contains("per 100 mL") && line.contains("mL") && !line.contains("\n"), line)
            }
            XCTAssertThrowsError(try PackagedPortion.resolve(p, amount: "37 g"))
            // mL is exact.
            XCTAssertEqual(try PackagedPortion.resolve(p, amount: "200 ml").total["energy_kcal"], 90)
        }
        // A label that gives both a weight and a volume is the density.
        let both = drink(serving: ServingSize(quantity: 1, unit: .count("bottle"), grams: 260, milliliters: 250))
        let portion = try PackagedPortion.resolve(both, grams: 104)
        XCTAssertEqual(portion.total["energy_kcal"] ?? 0, 45, accuracy: 1e-9)  // 104 g = 100 mL
    }

    func testAPerServingOnlyProductWithAnUnreadableServingLogsByTheServing() throws {
        let p = OFFMapping.product(["product_name": "Mystery bar", "serving_size": "une barre",
                                    "nutriments": ["energy-kcal_serving": 210, "proteins_serving": 9]], code: "50112579")
        XCTAssertTrue(p.per100.isEmpty)
        XCTAssertTrue(p.servingIsUnread)
        let one = try PackagedPortion.resolve(p)
        XCTAssertEqual(one.total["energy_kcal"], 210)
        XCTAssertEqual(try PackagedPortion.resolve(p, amount: "1 serving").total["energy_kcal"], 210)
        XCTAssertEqual(try PackagedPortion.resolve(p, servings: 2).total["protein_g"], 18)
        // A weight cannot be logged: the values are per serving of unknown weight.
        XCTAssertThrowsError(try PackagedPortion.resolve(p, grams: 40))
        // The card shows the per-serving column and says how it is logged.
        let card = PackagedText.card(p, origin: .network)
        XCTAssertTrue(card.contains("per serving") && card.contains("210 kcal"), card)
        XCTAssertTrue(card.contains("\"une barre\" (not understood; values per 1 serving, logged as \"1 serving\")"), card)
        // A cached copy (decoded) behaves the same.
        let decoded = try JSONDecoder().decode(PackagedProduct.self, from: try JSONEncoder().encode(p))
        XCTAssertEqual(try PackagedPortion.resolve(decoded).total["energy_kcal"], 210)
    }

    func testTypedAmountsFollowTheOneDecimalRule() throws {
        let p = drink(serving: ServingSize(quantity: 250, unit: .volume(.ml)))
        XCTAssertEqual(try PackagedPortion.resolve(p, amount: "1000 ml").total["energy_kcal"], 450)
        XCTAssertEqual(try PackagedPortion.resolve(p, amount: "0,5 l").total["energy_kcal"] ?? 0, 225, accuracy: 1e-9)
        XCTAssertThrowsError(try PackagedPortion.resolve(p, amount: "1.5,5 ml")) { error in
            XCTAssertTrue("\(error)".contains("two decimal separators") && "\(error)".contains("nothing logged"), "\(error)")
        }
        XCTAssertThrowsError(try PackagedPortion.resolve(p, amount: "1/0 serving"))
    }
}
