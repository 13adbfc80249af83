// "Not reported" stays not reported: goal progress, range averages, and values derived by USDA's rules.
import Testing
import Foundation
import Nutrition
import ReferenceFoods
@testable import Journal

@Suite struct NotReportedTests {
    let reference = ReferenceDatabase.shared

    @Test func consumedIsNullWhenNoEntryReportsTheNutrient() throws {
        let (store, _) = try makeStore()
        let empty = try store.dayView(day("2024-05-01"))
        // Nothing logged is nothing eaten.
        #expect(empty.goals.first { $0.id == "fiber_g" }?.consumed == 0)
        try store.logEntry(EntryDraft(day: day("2024-05-01"), meal: .lunch, name: "Soup", nutrients: nutrients(["energy_kcal": 300])))
        let v = try store.dayView(day("2024-05-01"))
        let fiber = try #require(v.goals.first { $0.id == "fiber_g" })
        #expect(fiber.consumed == nil && fiber.remaining == nil && fiber.fraction == nil && fiber.notReportedCount == 1)
        #expect(v.goals.first { $0.id == "energy_kcal" }?.consumed == 300)
        let json = String(decoding: try JournalJSON.encoder.encode(v), as: UTF8.self)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let goals = try #require(object["goals"] as? [[String: Any]])
        let fiberJSON = try #require(goals.first { $0["id"] as? String == "fiber_g" })
        #expect(fiberJSON["consumed"] is NSNull && fiberJSON["remaining"] is NSNull)
    }

    @Test func averagesDivideByTheDaysThatReportTheNutrient() throws {
        let (store, _) = try makeStore()
        for (d, protein) in [("2024-05-01", 60.0), ("2024-05-02", 50), ("2024-05-03", 52.6)] {
            try store.logEntry(EntryDraft(day: day(d), meal: .lunch, name: "Meal", nutrients: nutrients(["energy_kcal": 2000, "protein_g": protein])))
        }
        // A fourth logged day whose only entry does not report protein is not a day of 0 g protein.
        try store.logEntry(EntryDraft(day: day("2024-05-04"), meal: .lunch, name: "Label without protein", nutrients: nutrients(["energy_kcal": 1000])))
        let r = try store.rangeSummary(from: day("2024-05-01"), to: day("2024-05-07"))
        #expect(r.loggedDayCount == 4)
        #expect(r.reportingDays("protein_g") == 3 && r.reportingDays("energy_kcal") == 4)
        #expect(abs((r.dailyAverages["protein_g"] ?? 0) - 54.2) < 1e-9)
        #expect(r.dailyAverages["energy_kcal"] == 1750)
        #expect(r.partialAverageNote("protein_g") { "\($0.rounded(places: 1)) g" } == "protein: 54.2 g a day over the 3 of 4 logged days that report it")
        #expect(r.partialAverageNote("energy_kcal") { "\($0)" } == nil)
        let json = String(decoding: try JournalJSON.encoder.encode(r), as: UTF8.self)
        #expect(json.contains("\"reporting_day_counts\""))
    }

    @Test func vitaminDFromIUIsDerivedAndMarked() throws {
        // 16613 reports vitamin D only as 10 IU per 100 g.
        let food = try #require(reference.food(id: "16613"))
        #expect(food.per100g("vitamin_d_mcg") == nil && food.per100g("vitamin_d_iu") == 10)
        #expect(food.derivedPer100g["vitamin_d_mcg"] == 0.25)
        #expect(JournalStore.referenceDerivations(food)["vitamin_d_mcg"]?.hasPrefix("derived") == true)
        let (store, _) = try makeStore()
        let e = try store.logReferenceFood(food, grams: 200)
        #expect(e.totalNutrients["vitamin_d_mcg"] == 0.5)
        #expect(e.totalNutrients["vitamin_d_iu"] == nil)
        // A reported value is never replaced.
        let milk = try #require(reference.food(id: "01077"))
        #expect(milk.derivedPer100g["vitamin_d_mcg"] == nil)
    }

    @Test func derivationRulesAgreeWithWhatUSDAReported() throws {
        var vitaminD = 0, vitaminDAgree = 0, dfe = 0, dfeAgree = 0
        for food in reference.allFoods {
            var p = food.nutrientsPer100g
            if let mcg = p["vitamin_d_mcg"], p["vitamin_d_iu"] != nil {
                p["vitamin_d_mcg"] = nil
                vitaminD += 1
                if let d = ReferenceFood.derive(from: p)["vitamin_d_mcg"], abs(d - mcg) <= 0.1 { vitaminDAgree += 1 }
                p["vitamin_d_mcg"] = mcg
            }
            if let reported = p["folate_dfe_mcg"], p["folate_food_mcg"] != nil, p["folic_acid_mcg"] != nil {
                p["folate_dfe_mcg"] = nil
                dfe += 1
                // USDA rounds DFE to whole µg.
                if let d = ReferenceFood.derive(from: p)["folate_dfe_mcg"], abs(d - reported) <= 1.01 { dfeAgree += 1 }
            }
        }
        #expect(vitaminD > 5000 && vitaminDAgree == vitaminD)
        #expect(dfe > 6000 && Double(dfeAgree) / Double(dfe) > 0.99, "\(dfeAgree) of \(dfe)")
        // Only what is reported is used: folate DFE needs both food folate and folic acid.
        #expect(ReferenceFood.derive(from: ["folate_total_mcg": 40, "folate_food_mcg": 40]).isEmpty)
        #expect(ReferenceFood.derive(from: ["folate_food_mcg": 40, "folic_acid_mcg": 10])["folate_dfe_mcg"] == 57)
    }

    @Test func totalFolateIsKeptWhenNoDFEIsKnown() throws {
        // A food with total folate but neither DFE nor folic acid: the total is kept as its own
        // nutrient, not dropped and not passed off as DFE.
        let food = try #require(reference.allFoods.first {
            $0.per100g("folate_total_mcg").map { $0 > 0 } == true && $0.per100g("folate_dfe_mcg") == nil
        })
        let n = JournalStore.referenceNutrients(food, grams: 100)
        #expect(n["folate_mcg"] == nil)
        #expect(n["folate_total_mcg"] == food.per100g("folate_total_mcg"))
        let egg = try #require(reference.food(id: "01123"))
        #expect(JournalStore.referenceNutrients(egg, grams: 100)["folate_total_mcg"] == nil)
    }
}
