// Saved foods' unique barcodes (issue 18): found by barcode, never two foods with one barcode,
// kept through edits.
import Foundation
import Testing
import Nutrition
@testable import Journal

@Suite struct FoodBankBarcodeTests {
    @Test func aBarcodeFindsItsFoodAndIsUnique() throws {
        let (j, _) = try makeStore()
        let draft = FoodDraft(name: "Hazelnut bar", brand: "Nutty", serving: ServingSize(quantity: 1, unit: .count("bar"), grams: 40),
                              nutrients: try NutrientAmounts(["energy_kcal": 200]))
        let food = try j.createFood(draft, barcode: "3017620422003")
        #expect(try j.food(barcode: "3017620422003")?.id == food.id)
        #expect(try j.food(barcode: "50112579") == nil)
        #expect(throws: JournalError.self) { try j.createFood(draft, barcode: "3017620422003") }
        #expect(throws: JournalError.self) { try j.createFood(draft, barcode: "12ab") }
        #expect(try j.searchFoods("Hazelnut").count == 1, "a refused duplicate writes nothing")
        var edited = FoodDraft(food)
        edited.name = "Hazelnut bar (new recipe)"
        _ = try j.editFood(food.id, edited)
        #expect(try j.food(barcode: "3017620422003")?.name == "Hazelnut bar (new recipe)")
    }
}

@Suite struct BackupBarcodeTests {
    @Test func barcodesTravelWithTheBackup() throws {
        let (a, _) = try makeStore()
        let food = try a.createFood(FoodDraft(name: "Hazelnut bar", nutrients: try NutrientAmounts(["energy_kcal": 200])), barcode: "3017620422003")
        let data = try a.exportBackup()
        #expect(String(decoding: data, as: UTF8.self).contains("\"food_barcodes\""))
        let (b, _) = try makeStore()
        _ = try b.importBackup(data)
        #expect(try b.food(barcode: "3017620422003")?.id == food.id)
        _ = try b.importBackup(data) // twice changes nothing
        #expect(try b.food(barcode: "3017620422003")?.id == food.id)
    }

    @Test func aBackupWithoutBarcodesHasNoBarcodeKey() throws {
        let (a, _) = try makeStore()
        _ = try a.createFood(FoodDraft(name: "Toast", nutrients: try NutrientAmounts(["energy_kcal": 80])))
        #expect(!String(decoding: try a.exportBackup(), as: UTF8.self).contains("food_barcodes"))
    }
}
