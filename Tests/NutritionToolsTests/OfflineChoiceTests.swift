// The offline assistant asks rather than guesses: numbered choices when the reference search has
// no clear winner, the person's pick logged with the amount first asked for, and a long day read whole.
import Base
import Foundation
import Testing
import Journal
import Nutrition
import ReferenceFoods
@testable import NutritionTools

@Suite struct OfflineChoiceTests {
    /// The numbered choices of an answer: (number, reference id).
    static func choices(_ text: String) -> [(Int, String)] {
        let pattern = try? NSRegularExpression(pattern: #"^([1-3])\. .+ \[ref ([0-9]{5})\]$"#)
        return text.split(separator: "\n").compactMap { line in
            let s = String(line)
            guard let m = pattern?.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)),
                  let a = Range(m.range(at: 1), in: s), let b = Range(m.range(at: 2), in: s), let n = Int(s[a]) else { return nil }
            return (n, String(s[b]))
        }
    }

    @Test func blackBeansWithoutCookedOrDryAsksAndLogsThePick() async throws {
        let h = try OfflineHarness()
        let before = try h.fixture.entryCount()
        let ask = try await h.ask("log 1/2 cup black beans for lunch")
        #expect(ask.names == ["search_food_bank", "search_reference_foods"])
        #expect(ask.text.contains("Nothing is logged yet"))
        let choices = Self.choices(ask.text)
        #expect(choices.count >= 2 && choices.count <= 3)
        #expect(choices.map(\.1).contains("16014"))   // dry (raw) beans are offered, not taken
        #expect(choices.first?.1 != "16014")
        #expect(try h.fixture.entryCount() == before)
        let pick = try #require(choices.first { $0.1 != "16014" })
        let r = try await h.ask("\(pick.0)")
        #expect(r.names.last == "log_reference_food")
        let args = try #require(r.arguments("log_reference_food"))
        #expect(args["reference_id"] == .string(pick.1))
        #expect(args["quantity"] == 0.5 && args["meal"] == "lunch")
        #expect(args["portion"]?.stringValue?.hasPrefix("cup") == true)
        #expect(try h.fixture.entryCount() == before + 1)
        let e = try #require(try h.journal.lastEntry())
        #expect(e.meal == .lunch && e.source == .reference)
        #expect(r.text.hasPrefix("Logged "))
    }

    @Test func theSecondPicksTheSecondChoice() async throws {
        let h = try OfflineHarness()
        let ask = try await h.ask("log 1 cup rice")
        let choices = Self.choices(ask.text)
        #expect(choices.count >= 2)
        let r = try await h.ask("the second")
        #expect(r.arguments("log_reference_food")?["reference_id"] == .string(choices[1].1))
    }

    @Test func aClearWinnerIsLoggedWithoutAsking() async throws {
        let h = try OfflineHarness()
        let rice = try await h.ask("log 1 cup white rice cooked")
        #expect(rice.names == ["search_food_bank", "search_reference_foods", "log_reference_food"])
        let id = try #require(rice.arguments("log_reference_food")?["reference_id"]?.stringValue)
        let food = try #require(ReferenceDatabase.shared.food(id: id))
        #expect(food.description.contains("cooked") && !food.description.contains("glutinous"))
        let coffee = try await h.ask("log 12 oz coffee")
        let coffeeID = try #require(coffee.arguments("log_reference_food")?["reference_id"]?.stringValue)
        let brewed = try #require(ReferenceDatabase.shared.food(id: coffeeID))
        #expect(brewed.description.contains("brewed"), "\(brewed.description)")
    }

    @Test func aNumberWithoutChoicesIsNotGuessed() async throws {
        let h = try OfflineHarness()
        let before = try h.fixture.entryCount()
        let r = try await h.ask("2")
        #expect(r.names.isEmpty)
        #expect(r.text.hasPrefix("There is no list of choices"))
        #expect(try h.fixture.entryCount() == before)
    }

    @Test func theSearchToolTellsRealModelsWhetherToAsk() async throws {
        let f = try Fixture(seeded: false)
        let beans = try await f.read("search_reference_foods", ["query": "black beans"])
        #expect(beans["clear_winner"] == false)
        let scores = beans["foods"]?.arrayValue?.compactMap { $0["score"]?.doubleValue } ?? []
        #expect(scores.count >= 2 && scores == scores.sorted(by: >))
        let banana = try await f.read("search_reference_foods", ["query": "banana"])
        #expect(banana["clear_winner"] == true)
    }

    @Test func whatDidIEatTodayReadsADayOf60Entries() async throws {
        let h = try OfflineHarness()
        for i in 0..<58 {
            try h.fixture.write("log_food", ["name": .string("Snack \(i)"), "nutrients": json(fullNutrients()), "meal": "snack"])
        }
        let r = try await h.ask("what did I eat today")
        #expect(r.names == ["get_journal_day"])
        #expect(r.text.hasPrefix("Today (2026-11-29): 60 entries"))
        #expect(!r.text.contains("couldn't read"))
        #expect(r.text.contains("- Snack 0 —") && r.text.contains("- Snack 57 —"))
        #expect(!r.text.contains("not shown"))
    }
}

@Suite struct OfflinePhrasingPlannerTests {
    @Test func caloriesLeftToday() async throws {
        let h = try OfflineHarness()
        let r = try await h.ask("how many calories left today")
        #expect(r.names == ["get_nutrition_context"])
        #expect(r.text == "1778 kcal of calories left today (goal 2000 kcal, the FDA default, eaten 222 kcal).")
    }

    @Test func proteinGoal() async throws {
        let h = try OfflineHarness()
        let r = try await h.ask("what's my protein goal")
        #expect(r.names == ["get_goals"])
        #expect(r.text == "Your protein goal is 50 g a day (a target to reach; the FDA Daily Value default, not a personal target; ofj goals from-profile proposes yours).")
    }

    @Test func aGoalFromTheProfileOrSetByHandSaysWhereItComesFrom() async throws {
        let h = try OfflineHarness()
        let j = h.journal
        let p = Profile(sex: .female, birth: try CalendarDay(parsing: "1991-06-01"), heightCm: 168, activity: .moderate)
        let plan = try PersonalTargets.plan(profile: p, today: j.today(), weightKg: 68, current: try j.goals(), currentSources: try j.goalSources(),
                                            table: try DRITable.bundled())
        try j.setGoals(plan.goals, sources: plan.sources)
        let r = try await h.ask("what's my protein goal")
        #expect(r.text == "Your protein goal is 54 g a day (a target to reach; from your profile: RDA 0.8 g/kg × 68 kg, females 31–50 y).")
        try j.setGoal("protein_g", to: 120)
        let mine = try await h.ask("what's my protein goal")
        #expect(mine.text == "Your protein goal is 120 g a day (a target to reach; set by you).")
        let left = try await h.ask("how many calories left today")
        #expect(!left.text.contains("FDA default"))
    }

    @Test func deleteTheEggsFindsTheEggEntry() async throws {
        let h = try OfflineHarness()
        _ = try await h.ask("log 2 eggs for breakfast")
        let before = try h.fixture.entryCount()
        let r = try await h.ask("delete the eggs")
        #expect(r.names == ["search_journal", "delete_journal_entry"])
        #expect(r.arguments("search_journal")?["text"] == "egg")
        #expect(try h.fixture.entryCount() == before - 1)
        #expect(r.text == "Deleted Egg, whole, raw, fresh.")
    }

    @Test func logYesterdayForDinnerWritesThatDayAndMeal() async throws {
        let h = try OfflineHarness()
        let r = try await h.ask("log 2 eggs for dinner yesterday")
        let args = try #require(r.arguments("log_reference_food"))
        #expect(args["date"] == "2026-11-28" && args["meal"] == "dinner")
        let e = try #require(try h.journal.lastEntry())
        #expect(e.day.description == "2026-11-28" && e.meal == .dinner && e.name == "Egg, whole, raw, fresh")
    }

    @Test func typosInMealsAndFoods() async throws {
        let h = try OfflineHarness()
        let r = try await h.ask("log 2 egs for brekfast")
        #expect(r.arguments("log_reference_food")?["reference_id"] == "01123")
        #expect(r.arguments("log_reference_food")?["meal"] == "breakfast")
    }

    @Test func lastMondayAndTheThird() async throws {
        let h = try OfflineHarness()
        let monday = try await h.ask("what did I eat last monday")
        #expect(monday.arguments("get_journal_day") == ["date": "2026-11-23"])
        let third = try await h.ask("what did I eat on the 3rd")
        #expect(third.arguments("get_journal_day") == ["date": "2026-11-03"])
        let tomorrow = try await h.ask("what did I eat tomorrow")
        #expect(tomorrow.arguments("get_journal_day") == ["date": "2026-11-30"])
    }
}

@Suite struct OfflineSeveralFoodsPlannerTests {
    @Test func threeEggsAndToastBecomeTwoEntries() async throws {
        let h = try OfflineHarness()
        let before = try h.fixture.entryCount()
        let r = try await h.ask("log 3 eggs and toast for breakfast")
        #expect(r.names == ["search_food_bank", "search_reference_foods", "log_reference_food",
                            "search_food_bank", "search_reference_foods", "log_reference_food"])
        #expect(try h.fixture.entryCount() == before + 2)
        let queries = r.calls.filter { $0.name == "search_reference_foods" }.compactMap { try? $0.parsedArguments()["query"]?.stringValue }
        #expect(queries == ["eggs", "toast"])
        let egg = try #require(r.calls.first { $0.name == "log_reference_food" }.flatMap { try? $0.parsedArguments() })
        #expect(egg["reference_id"] == "01123" && egg["quantity"] == 3 && egg["meal"] == "breakfast")
        #expect(r.text.split(separator: "\n").count == 2)
        #expect(r.text.hasPrefix("Logged Egg, whole, raw, fresh — 3 large (150 g)"))
    }
}
