// Tests for the day view, range totals, entry search, breakdown by food, last entry and goals.
import Testing
import Foundation
import Nutrition
@testable import Journal

@Suite struct QueryTests {
    @Test func dayViewGroupsByMealWithTotalsGoalsAndNotReported() throws {
        let (store, _) = try makeStore()
        let d = day("2024-05-01")
        try store.logEntry(EntryDraft(day: d, meal: .breakfast, name: "Eggs", servings: 2, nutrients: nutrients(["energy_kcal": 70, "protein_g": 6])))
        try store.logEntry(EntryDraft(day: d, meal: .breakfast, name: "Coffee", nutrients: nutrients(["energy_kcal": 5])))
        try store.logEntry(EntryDraft(day: d, meal: .dinner, name: "Salmon", nutrients: nutrients(["energy_kcal": 400, "protein_g": 40, "sodium_mg": 100])))
        try store.logEntry(EntryDraft(day: day("2024-05-02"), meal: .dinner, name: "Other day", nutrients: nutrients(["energy_kcal": 1])))
        let v = try store.dayView(d)
        #expect(v.meals.map(\.meal) == [.breakfast, .lunch, .dinner, .snack])
        #expect(v.meals[0].entries.map(\.name) == ["Eggs", "Coffee"])
        #expect(v.meals[1].entries.isEmpty)
        #expect(v.meals[0].totals["energy_kcal"] == 145)
        #expect(v.meals[0].totals.notReportedCount("protein_g") == 1)
        #expect(v.totals["energy_kcal"] == 545)
        #expect(v.totals["protein_g"] == 52)
        #expect(v.totals.notReportedCount("sodium_mg") == 2)
        #expect(v.totals["fiber_g"] == nil)
        let energy = try #require(v.goals.first { $0.id == "energy_kcal" })
        #expect(energy.goal == 2000 && energy.remaining == 1455)
        #expect(v.goals.first { $0.id == "sodium_mg" }?.notReportedCount == 2)
        #expect(try store.dayView(day("2020-01-01")).entries.isEmpty)
        // Renders as JSON for --json.
        let json = String(decoding: try JournalJSON.encoder.encode(v), as: UTF8.self)
        #expect(json.contains("\"day\" : \"2024-05-01\""))
        #expect(json.contains("\"not_reported_count\""))
    }

    @Test func rangeSummaryPerDayTotalsAndAverages() throws {
        let (store, _) = try makeStore()
        try store.logEntry(EntryDraft(day: day("2024-05-01"), meal: .lunch, name: "A", nutrients: nutrients(["energy_kcal": 1000, "protein_g": 50])))
        try store.logEntry(EntryDraft(day: day("2024-05-01"), meal: .dinner, name: "B", servings: 2, nutrients: nutrients(["energy_kcal": 250])))
        try store.logEntry(EntryDraft(day: day("2024-05-03"), meal: .lunch, name: "C", nutrients: nutrients(["energy_kcal": 1000, "protein_g": 10])))
        try store.logEntry(EntryDraft(day: day("2024-05-05"), meal: .lunch, name: "Outside", nutrients: nutrients(["energy_kcal": 9999])))
        let r = try store.rangeSummary(from: day("2024-04-30"), to: day("2024-05-03"))
        #expect(r.days.map(\.day.description) == ["2024-04-30", "2024-05-01", "2024-05-02", "2024-05-03"])
        #expect(r.days.map(\.entryCount) == [0, 2, 0, 1])
        #expect(r.days[1].totals["energy_kcal"] == 1500)
        #expect(r.days[1].totals.notReportedCount("protein_g") == 1)
        #expect(r.days[0].totals["energy_kcal"] == nil)
        #expect(r.loggedDayCount == 2)
        #expect(r.dailyAverages["energy_kcal"] == 1250)
        #expect(r.dailyAverages["protein_g"] == 30)
        #expect(r.totals.entryCount == 3)
        let onlyProtein = try store.rangeSummary(from: day("2024-05-01"), to: day("2024-05-01"), nutrients: ["Protein"])
        #expect(onlyProtein.days[0].totals.amounts == ["protein_g": 50])
        #expect(onlyProtein.days[0].entryCount == 2)
        #expect(journalError { _ = try store.rangeSummary(from: day("2024-05-03"), to: day("2024-05-01")) }?.description.hasPrefix("date range") == true)
        #expect(journalError { _ = try store.rangeSummary(from: day("2000-01-01"), to: day("2024-05-01")) } != nil)
        #expect(journalError { _ = try store.rangeSummary(from: day("2024-05-01"), to: day("2024-05-01"), nutrients: ["not a nutrient!"]) } != nil)
    }

    @Test func searchBreakdownAndLastEntry() throws {
        let (store, clock) = try makeStore()
        #expect(try store.lastEntry() == nil)
        try store.logEntry(EntryDraft(day: day("2024-04-01"), name: "Greek yogurt", brand: "Fage", servings: 2, nutrients: nutrients(["protein_g": 15])))
        clock.advance(seconds: 1)
        try store.logEntry(EntryDraft(day: day("2024-04-02"), name: "greek yogurt", brand: "fage", nutrients: nutrients(["protein_g": 15])))
        clock.advance(seconds: 1)
        try store.logEntry(EntryDraft(day: day("2024-04-02"), name: "Chicken", nutrients: nutrients(["protein_g": 40])))
        clock.advance(seconds: 1)
        let last = try store.logEntry(EntryDraft(day: day("2024-03-01"), name: "Apple", nutrients: nutrients(["energy_kcal": 95])))
        #expect(try store.searchEntries("YOGURT").map(\.day.description) == ["2024-04-02", "2024-04-01"])
        #expect(try store.searchEntries("fage greek").count == 2)
        #expect(try store.searchEntries("yogurt", from: day("2024-04-02")).count == 1)
        #expect(try store.searchEntries("pizza").isEmpty)
        #expect(journalError { _ = try store.searchEntries("") } != nil)
        #expect(try store.lastEntry()?.id == last.id)

        let b = try store.nutrientBreakdown("Protein", from: day("2024-03-01"), to: day("2024-04-30"))
        #expect(b.nutrient == "protein_g")
        #expect(b.total == 85)
        #expect(b.foods.map(\.name) == ["Greek yogurt", "Chicken"])
        #expect(b.foods[0].amount == 45 && b.foods[0].entryCount == 2)
        #expect(abs(b.foods[1].share - 40.0 / 85) < 1e-12)
        #expect(b.notReportedCount == 1)
        #expect(journalError { _ = try store.nutrientBreakdown("Protein", from: day("2024-05-01"), to: day("2024-04-01")) } != nil)
    }

    @Test func goalsDefaultSetAndReset() throws {
        let (store, _) = try makeStore()
        #expect(try store.goals() == .fdaDefaults)
        let g = try store.setGoal("Calories", to: 2200)
        #expect(g["energy_kcal"] == 2200 && g["protein_g"] == 50)
        #expect(try store.goals() == g)
        try store.setGoal("sodium_mg", to: nil)
        #expect(try store.goals()["sodium_mg"] == nil)
        for bad in [0, -1, Double.nan, Double.infinity, 1e12] {
            #expect(journalError { try store.setGoal("protein_g", to: bad) }?.description.contains("goal") == true)
        }
        #expect(journalError { try store.setGoal("Bogus Nutrient!", to: 5) } != nil)
        #expect(try store.goals()["energy_kcal"] == 2200)
        #expect(try store.resetGoals() == .fdaDefaults)
        #expect(try store.goals() == .fdaDefaults)
    }
}
