// Read tools: each one's happy path against the seeded journal, with full micronutrients round-tripping.
import Base
import Foundation
import Testing
import Agent
import Journal
import Nutrition
@testable import NutritionTools

@Suite struct ReadToolsTests {
    @Test func registryOffersEveryToolWithStrictSchemas() throws {
        let f = try Fixture(seeded: false)
        #expect(f.registry.tools.map(\.name) == NutritionToolbox.readToolNames + NutritionToolbox.writeToolNames)
        for tool in f.registry.tools {
            #expect(tool.effect == (NutritionToolbox.writeToolNames.contains(tool.name) ? .write : .read), "\(tool.name)")
            #expect(tool.parameters["type"] == "object", "\(tool.name)")
            #expect(tool.parameters["additionalProperties"] == .bool(false), "\(tool.name)")
            #expect(tool.description.count > 40, "\(tool.name) needs a description that says when to use it")
            #expect(!tool.activity(arguments: [:]).isEmpty)
        }
    }

    @Test func nutritionContextGivesTodayGoalsAndLastWeek() async throws {
        let f = try Fixture()
        let c = try await f.read("get_nutrition_context")
        #expect(c["today"] == "2026-11-29")
        #expect(c["weekday"] == "Sunday")
        #expect(c["local_time"] == "08:30")
        #expect(c["default_meal"] == "breakfast")
        #expect(c["meal_schedule"]?["lunch_from"] == "12:00")
        #expect(c["goals"]?["energy_kcal"] == 2000)
        #expect(c["today_totals"]?["entry_count"] == 2)
        #expect(c["today_totals"]?["nutrients"]?["energy_kcal"] == 222)
        #expect(c["today_totals"]?["not_reported_by"]?["sodium_mg"] == 1)
        #expect(c["remaining"]?["energy_kcal"] == 1778)
        let days = try #require(c["last_7_days"]?.arrayValue)
        #expect(days.count == 7)
        #expect(days.first?["date"] == "2026-11-23")
        #expect(days[5]["totals"]?["entry_count"] == 2)
    }

    @Test func journalDayIsCompactAndOneEntryRoundTripsEveryNutrient() async throws {
        let f = try Fixture()
        let full = fullNutrients(0.5)
        try f.write("log_food", ["name": "Lab meal", "quantity": 1, "unit": "serving", "nutrients": json(full), "meal": "dinner", "date": "yesterday"])
        let day = try await f.read("get_journal_day", ["date": "2026-11-28"])
        #expect(day["date"] == "2026-11-28")
        let dinner = try #require(day["meals"]?.arrayValue?.first { $0["meal"] == "dinner" })
        let entry = try #require(dinner["entries"]?.arrayValue?.first { $0["name"] == "Lab meal" })
        // The default shape: id, name, amount, kcal and macros only.
        #expect(Set((entry.objectValue ?? [:]).keys) == Set(["id", "name", "amount"] + NutrientCatalog.coreIDs))
        #expect(day["totals"]?["entry_count"] == 3)
        #expect(day["entry_count"] == 3)
        let snack = try #require(day["meals"]?.arrayValue?.first { $0["meal"] == "snack" })
        #expect(snack["entries"]?[0]?["name"] == "Banana")
        #expect(snack["totals"]?["entry_count"] == 1)
        #expect(day["goals"]?.arrayValue?.contains { $0["id"] == "protein_g" } == true)
        // Named nutrients on request; one entry in full.
        let withSodium = try await f.read("get_journal_day", ["date": "2026-11-28", "nutrients": ["sodium_mg"]])
        let sodiumEntry = try #require(Self.entries(withSodium).first { $0["name"] == "Lab meal" })
        #expect(sodiumEntry["sodium_mg"] != nil && sodiumEntry["calcium_mg"] == nil)
        let id = try #require(entry["id"]?.stringValue)
        let one = try await f.read("get_journal_day", ["date": "2026-11-28", "entry_id": .string(id)])
        #expect(amounts(one["entry"]?["nutrients"]) == full.values)
        #expect(full.count == NutrientCatalog.all.count + 1)
    }

    @Test func journalRangeSumsChosenNutrients() async throws {
        let f = try Fixture()
        let r = try await f.read("get_journal_range", ["from": "2026-11-23", "to": "today", "nutrients": ["protein_g", "energy_kcal"]])
        #expect(r["logged_days"] == 2)
        #expect(r["days"]?.arrayValue?.count == 7)
        #expect(r["totals"]?["nutrients"]?["protein_g"] == 25.3)
        #expect(r["totals"]?["nutrients"]?["sodium_mg"] == nil)
        #expect(r["daily_averages"]?["energy_kcal"] == 243.5)
    }

    @Test func searchJournalByTextAndMostRecent() async throws {
        let f = try Fixture()
        let found = try await f.read("search_journal", ["text": "coffee"])
        #expect(found["entries"]?[0]?["id"] == .string(f.seed.coffee.uuidString))
        #expect(found["entries"]?[0]?["nutrients"]?["caffeine_mg"] == 95)
        let last = try await f.read("search_journal", ["limit": 1])
        #expect(last["entries"]?[0]?["id"] == .string(f.seed.coffee.uuidString))
        let recent = try await f.read("search_journal", ["limit": 10])
        #expect(recent["count"] == 4)
        let ranged = try await f.read("search_journal", ["text": "banana", "from": "today"])
        #expect(ranged["count"] == 0)
        #expect(ranged["last_day"] == nil) // only for a search over the whole journal
        // "When did I last eat a banana": the newest day and how many entries match, from the index.
        let lastBanana = try await f.read("search_journal", ["text": "BANAN", "limit": 1])
        let bananaDays = try f.journal.searchEntries("banana", limit: 100).map(\.day.description)
        #expect(!bananaDays.isEmpty)
        #expect(lastBanana["last_day"] == .string(bananaDays.max() ?? ""))
        #expect(lastBanana["total_matches"] == .number(Double(bananaDays.count)))
        #expect(lastBanana["entries"]?[0]?["date"] == .string(bananaDays.max() ?? ""))
        // FTS syntax in the text is searched as words, never an error.
        let syntax = try await f.read("search_journal", ["text": "banana* OR \"("])
        #expect(syntax["count"] == 0)
    }

    @Test func nutrientBreakdownRanksFoods() async throws {
        let f = try Fixture()
        let b = try await f.read("get_nutrient_breakdown", ["nutrient": "sugars_g", "from": "2026-11-01"])
        #expect(b["unit"] == "g")
        #expect(b["total"] == 17.4)
        #expect(b["foods"]?[0]?["name"] == "Banana")
        #expect(b["foods"]?[0]?["amount"] == 14.4)
        #expect(b["foods"]?[1]?["name"] == "Toast")
        #expect(b["entries_not_reporting"] == 2)
    }

    @Test func foodBankSearchKeepsEveryNutrientAndId() async throws {
        let f = try Fixture()
        let r = try await f.read("search_food_bank", ["query": "oat"])
        let foods = try #require(r["foods"]?.arrayValue)
        #expect(foods.map { $0["name"] } == ["Oat milk", "Oatmeal"])
        let oatmeal = try #require(foods.first { $0["name"] == "Oatmeal" })
        #expect(oatmeal["id"] == .string(f.seed.oatmeal.uuidString))
        #expect(amounts(oatmeal["nutrients_per_serving"]) == fullNutrients().values)
        #expect(oatmeal["serving"]?["label"] == "40 g")
        #expect(oatmeal["on_shelf"] == true)
        let byBrand = try await f.read("search_food_bank", ["brand": "fage"])
        #expect(byBrand["foods"]?.arrayValue?.map { $0["name"] } == ["Greek yogurt"])
    }

    @Test func savedFoodShowsCalculatorPortions() async throws {
        let f = try Fixture()
        let bowl = try await f.read("get_saved_food", ["food_id": .string(f.seed.bowl.uuidString)])
        #expect(bowl["kind"] == "calculator")
        let ingredients = try #require(bowl["calculator_ingredients"]?.arrayValue)
        #expect(ingredients.map { $0["name"] } == ["Rice", "Protein"])
        #expect(ingredients[0]["portions"]?[1]?["name"] == "brown")
        #expect(ingredients[1]["portions"]?[0]?["nutrients"]?["sodium_mg"] == 310)
    }

    @Test func brandsAndGoals() async throws {
        let f = try Fixture()
        let b = try await f.read("list_brands")
        #expect(b["brands"]?.arrayValue?.map { $0["brand"] } == ["Chipotle", "Fage", "Oatly", "Quaker"])
        let g = try await f.read("get_goals")
        #expect(g["fda_defaults"] == true)
        let sodium = try #require(g["goals"]?.arrayValue?.first { $0["id"] == "sodium_mg" })
        #expect(sodium["amount"] == 2300)
        #expect(sodium["direction"] == "limit")
    }

    @Test func referenceSearchGivesPortionsAndCanonicalNutrients() async throws {
        let f = try Fixture(seeded: false)
        let r = try await f.read("search_reference_foods", ["query": "egg whole raw fresh", "limit": 3])
        let egg = try #require(r["foods"]?.arrayValue?.first { $0["reference_id"] == "01123" })
        #expect(egg["name"] == "Egg, whole, raw, fresh")
        #expect(egg["portions"]?[0]?["measure"] == "large")
        #expect(egg["portions"]?[0]?["grams"] == 50)
        let n = amounts(egg["nutrients_per_100g"])
        #expect(n["protein_g"] == 12.56)
        #expect(n["energy_kcal"] == 143)
        #expect(n["cholesterol_mg"] == 372)
        #expect(n["vitamin_a_mcg"] != nil && n["vitamin_a_rae_mcg"] == nil)
        #expect(n["energy_kj"] == nil && n["vitamin_d_iu"] == nil)
        #expect(n.count > 40)
    }

    @Test func shelfRecommendationsComeFromTheShelf() async throws {
        let f = try Fixture()
        let r = try await f.read("recommend_shelf_foods", ["limit": 5])
        let names = r["recommendations"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        #expect(Set(names) == ["Oatmeal", "Greek yogurt"])
        #expect(r["recommendations"]?[0]?["reason"]?.stringValue?.isEmpty == false)
        #expect(r["date"] == "2026-11-29")
    }

    /// Every entry of a get_journal_day page, in meal order.
    static func entries(_ day: JSONValue) -> [JSONValue] {
        (day["meals"]?.arrayValue ?? []).flatMap { $0["entries"]?.arrayValue ?? [] }
    }

    @Test func aDayOf60EntriesFitsWhole() async throws {
        let f = try Fixture()
        for i in 0..<60 {
            try f.write("log_food", ["name": .string("Meal number \(i) with a fairly long descriptive name"), "nutrients": json(fullNutrients()),
                                     "meal": "lunch", "date": "2026-11-27"])
        }
        let r = try f.resolve("get_journal_day", ["date": "2026-11-27"])
        let raw = try await r.tool.execute(arguments: r.arguments, context: f.context)
        #expect(raw.content.utf8.count <= Paging.byteBudget)
        let day = try JSONValue.parse(raw.content)
        #expect(Self.entries(day).count == 60)
        #expect(day["next_offset"] == nil)
        #expect(f.registry.bounded(raw, toolName: "get_journal_day").content == raw.content)
    }

    @Test func aLongDayComesInPagesThatJoinUp() async throws {
        let f = try Fixture()
        for i in 0..<150 {
            try f.write("log_food", ["name": .string("Snack \(i) \(String(repeating: "x", count: 80))"), "nutrients": json(fullNutrients()),
                                     "meal": "snack", "date": "2026-11-27"])
        }
        var names: [String] = []
        var offset = 0
        for _ in 0..<10 {
            let r = try f.resolve("get_journal_day", ["date": "2026-11-27", "offset": .number(Double(offset)), "limit": 100])
            let raw = try await r.tool.execute(arguments: r.arguments, context: f.context)
            #expect(raw.content.utf8.count <= Paging.byteBudget)
            let page = try JSONValue.parse(raw.content)
            names += Self.entries(page).compactMap { $0["name"]?.stringValue }
            guard let next = page["next_offset"]?.intValue else { break }
            #expect(page["more"]?.stringValue?.contains("offset \(next)") == true)
            offset = next
        }
        #expect(names.count == 150)
        #expect(Set(names).count == 150)
    }

    /// Issue 16: a 5,000-food Food Bank is listed in pages that fit, join up and never truncate.
    @Test func aFiveThousandFoodBankPagesWithoutTruncation() async throws {
        let f = try Fixture(seeded: false)
        try f.journal.queue.write { db in
            for i in 0..<5_000 {
                _ = try f.journal.createFood(FoodDraft(name: String(format: "Food %04d with a fairly long descriptive name", i), brand: "Brand \(i % 40)",
                                                       serving: ServingSize(quantity: 100, unit: .mass(.g)),
                                                       nutrients: nutrients(["energy_kcal": 200, "protein_g": 10, "fat_g": 5, "carbohydrate_g": 25])), in: db)
            }
        }
        // The first, a middle and the last page: each fits whole, and each says where the next starts.
        for (offset, first, next) in [(0, 0, 30), (2_490, 2_490, 2_520), (4_980, 4_980, nil)] as [(Int, Int, Int?)] {
            let r = try f.resolve("search_food_bank", ["query": "food", "offset": .number(Double(offset)), "limit": 30])
            let raw = try await r.tool.execute(arguments: r.arguments, context: f.context)
            #expect(raw.content.utf8.count <= Paging.byteBudget)
            #expect(f.registry.bounded(raw, toolName: "search_food_bank").content == raw.content)
            let page = try JSONValue.parse(raw.content)
            let names = (page["foods"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
            #expect(names.count == min(30, 5_000 - offset))
            #expect(names.first == String(format: "Food %04d with a fairly long descriptive name", first))
            #expect(page["next_offset"]?.intValue == next)
        }
    }

    @Test func aYearOfLoggedDaysPagesWithoutTruncation() async throws {
        let f = try Fixture()
        try f.journal.queue.write { db in
            var day = try CalendarDay(year: 2025, month: 11, day: 30)
            for _ in 0..<365 {
                _ = try f.journal.logEntry(EntryDraft(day: day, meal: .lunch, name: "Soup",
                                                      nutrients: nutrients(["energy_kcal": 300, "protein_g": 12, "fat_g": 9, "carbohydrate_g": 40])), in: db)
                day = try day.adding(days: 1)
            }
        }
        var dates = Set<String>()
        var offset = 0
        for _ in 0..<10 {
            let r = try f.resolve("get_journal_range", ["from": "2025-11-30", "to": "2026-11-29", "offset": .number(Double(offset))])
            let raw = try await r.tool.execute(arguments: r.arguments, context: f.context)
            #expect(raw.content.utf8.count <= Paging.byteBudget)
            let page = try JSONValue.parse(raw.content)
            for d in page["days"]?.arrayValue ?? [] { if let s = d["date"]?.stringValue { dates.insert(s) } }
            guard let next = page["next_offset"]?.intValue else { break }
            offset = next
        }
        #expect(dates.count == 365)
    }

    @Test func aTruncatedResultIsStillJSONAndSaysHowToGetTheRest() throws {
        let f = try Fixture(seeded: false)
        let items: [JSONValue] = (0..<2000).map { ["name": .string("item \($0)"), "n": .number(Double($0))] }
        let big = ToolOutput(content: JSONValue.object(["entries": .array(items), "date": "2026-11-29"]).serialized, summary: "big")
        let bounded = f.registry.bounded(big, toolName: "get_journal_day")
        #expect(bounded.content.utf8.count <= f.registry.resultLimit)
        let parsed = try JSONValue.parse(bounded.content)
        #expect(parsed["date"] == "2026-11-29")
        let shown = try #require(parsed["entries"]?.arrayValue?.count)
        #expect(shown > 100 && shown < 2000)
        let note = try #require(parsed["truncated"]?["note"]?.stringValue)
        #expect(note.contains("call get_journal_day again with the same arguments and offset \(shown)"))
        // A tool without offset is told which of its arguments ask for less.
        let noOffset = try JSONValue.parse(f.registry.bounded(big, toolName: "get_nutrient_breakdown").content)
        #expect(noOffset["truncated"]?["note"]?.stringValue?.contains("limit") == true)
        #expect(noOffset["truncated"]?["note"]?.stringValue?.contains("offset") == false)
    }
}

@Suite struct SchemaTests {
    @Test func nutrientMapsNameEveryCatalogIdAndStayCompact() throws {
        let f = try Fixture(seeded: false)
        let logFood = try #require(f.registry.tool(named: "log_food"))
        let properties = try #require(logFood.parameters["properties"]?["nutrients"]?["properties"]?.objectValue)
        #expect(Set(properties.keys) == Set(NutrientCatalog.all.map(\.id)))
        let size = f.registry.specs.map { $0.name.utf8.count + $0.description.utf8.count + $0.parameters.serialized.utf8.count }.reduce(0, +)
        // 25,153 bytes after paging arguments, kJ input and folate_total_mcg were added; 26,136
        // with get_nutrient_gaps and the "when did I last eat" fields of search_journal (every
        // request carries these, so growth must be a choice); 27,642 with copy_journal_meal,
        // add_day_note and get_eating_times (issue 34: "same breakfast as yesterday", "note: felt
        // bloated", "how long have I been fasting").
        #expect(size < 27_800, "tool specs are \(size) bytes")
    }

    @Test func schemaRejectsWrongTypesBeforeTheToolRuns() throws {
        let f = try Fixture()
        let call = ToolCall(id: "x", name: "log_food", arguments: #"{"name":"Soup","nutrients":{"protein_g":"lots"}}"#)
        guard case .failure(let rejection) = f.registry.resolve(call) else { Issue.record("accepted a string amount"); return }
        #expect(rejection.message.contains("nutrients.protein_g"))
    }
}

@Suite struct BoundsTests {
    @Test func aLongRangeKeepsMacrosPerDayAndEverythingInTotals() async throws {
        let f = try Fixture()
        let year = try await f.read("get_journal_range", ["from": "2025-12-01", "to": "today"])
        #expect(year["days"]?.arrayValue?.count == 2)
        #expect(year["logged_days"] == 2)
        let day = try #require(year["days"]?.arrayValue?.first { $0["date"] == "2026-11-28" })
        #expect(day["totals"]?["nutrients"] == ["energy_kcal": 265, "protein_g": 7.3])
        #expect(year["totals"]?["nutrients"]?["sodium_mg"] == 700)
        #expect(year["per_day_nutrients"] != nil)
        let week = try await f.read("get_journal_range", ["from": "2026-11-23"])
        #expect(week["days"]?[5]?["totals"]?["nutrients"]?["sugars_g"] == 17.4)
    }

    @Test func activityLinesSayWhatIsHappening() throws {
        let f = try Fixture(seeded: false)
        let lines = [
            ("search_food_bank", ["query": "yogurt"] as JSONValue, "searching your Food Bank for 'yogurt'"),
            ("search_reference_foods", ["query": "egg\u{1B}[2J"], "searching reference foods for 'egg[2J'"),
            ("get_journal_day", ["date": "yesterday"], "reading your journal for yesterday"),
            ("get_nutrient_breakdown", ["nutrient": "sugars_g"], "finding which foods gave you the most sugars"),
            ("search_journal", [:], "finding what you logged last"),
        ]
        for (name, args, expected) in lines {
            #expect(f.registry.tool(named: name)?.activity(arguments: args) == expected)
        }
    }
}
