// The offline assistant hands the typed unit to log_reference_food, whose amount model makes
// mass exact, volume go through the food's density and fl oz never mean a container.
import Testing
import Journal
@testable import NutritionTools

@Suite struct OfflineAmountTests {
    @Test func millilitresOfMilkGoThroughItsCupWeight() async throws {
        let h = try OfflineHarness()
        let r = try await h.ask("log 200 ml milk")
        let args = try #require(r.arguments("log_reference_food"))
        #expect(args["portion"] == "ml" && args["quantity"] == 200)
        let e = try #require(try h.journal.lastEntry())
        #expect(e.name.lowercased().hasPrefix("milk"))
        #expect(abs((e.serving.grams ?? 0) - 200 * 244 / 236.5882365) < 0.01)
    }

    @Test func fluidOuncesAreAVolumeAndOuncesAMass() async throws {
        let h = try OfflineHarness()
        let r = try await h.ask("log 8 fl oz red bull")
        #expect(try #require(r.arguments("log_reference_food"))["portion"] == "fl oz")
        let drink = try #require(try h.journal.lastEntry())
        #expect(abs((drink.serving.grams ?? 0) - 8 * 258 / 8.4) < 0.01)   // not 8 cans of 258 g
        _ = try await h.ask("log 3 oz cheddar cheese")
        let cheese = try #require(try h.journal.lastEntry())
        #expect(cheese.serving.grams == 3 * 28.349523125)
    }

    @Test func rangeAveragesSayWhichDaysTheyAreOver() async throws {
        let h = try OfflineHarness()
        // The seeded entries report no carbohydrate; a banana today makes one of two logged days report it.
        _ = try await h.ask("I had a banana")
        let r = try await h.ask("how much carbs this week")
        #expect(r.text.contains("a day on average over the 1 of 2 logged days that report it"), "\(r.text)")
        let week = try await h.ask("show last week")
        #expect(week.text.contains("a day over the 1 of 2 logged days that report it"), "\(week.text)")
    }

    @Test func aDecimalCommaIsANumberAndARefusedNumberLogsNothing() async throws {
        let h = try OfflineHarness()
        _ = try await h.ask("log 1,5 cups milk")
        let milk = try #require(try h.journal.lastEntry())
        #expect(milk.name.lowercased().hasPrefix("milk") && milk.serving.grams == 366, "\(milk.name) \(milk.serving)")
        let before = try h.fixture.entryCount()
        let r = try await h.ask("log 1.5,5 cups milk")
        #expect(r.calls.isEmpty && r.text.contains("two decimal separators") && r.text.contains("nothing was logged"), "\(r.text)")
        #expect(try h.fixture.entryCount() == before)
    }

    /// The approval card names the USDA row a weight comes from when the food's rows disagree.
    @Test func theCardNamesTheUSDARowUsed() throws {
        let f = try Fixture()
        let card = try f.preview("log_reference_food", ["reference_id": "01053", "portion": "1 cup", "date": "2026-11-29", "meal": "snack"])
        #expect(card.hasPrefix("Log a reference food (USDA 01053): Cream, fluid, heavy whipping — 1 cup (238 g), USDA's \"1 cup, fluid (yields 2 cups whipped)\" = 238 g\n"), "\(card)")
        let glass = try f.preview("log_reference_food", ["reference_id": "01077", "portion": "glass", "date": "2026-11-29", "meal": "snack"])
        #expect(glass.contains("1 glass (247.52 g), household measure: a glass = 240 mL (FDA reference amount"), "\(glass)")
    }
}
