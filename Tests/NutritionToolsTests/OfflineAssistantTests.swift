// The offline assistant through the real AgentRunner: every utterance of issue 4 against the
// seeded journal, asserting the tool calls, the approvals and the journal rows they leave.
import Base
import Foundation
import Offline
import Testing
import Agent
import Journal
import Nutrition
import ReferenceFoods
@testable import NutritionTools

/// A runner with the offline assistant, the nutrition tools and an auto-approving gate.
final class OfflineHarness: Sendable {
    let fixture: Fixture
    let gate: ScriptedApprovalGate
    let runner: AgentRunner
    let store: ConversationStore

    init(approvals: [ApprovalDecision] = [], fallback: ApprovalDecision = .allowOnce) throws {
        fixture = try Fixture()
        gate = ScriptedApprovalGate(approvals, fallback: fallback)
        store = ConversationStore(queue: fixture.queue)
        let clock = fixture.clock
        runner = AgentRunner(store: store, model: OfflineAssistant(timeZone: utc, now: { clock.now() }), tools: fixture.registry,
                             approvals: gate, clock: clock, ids: CountingIDSource(prefix: "run-"),
                             configuration: AgentConfiguration(systemPrompt: "offline", jitter: { 0.5 }))
    }

    struct Reply {
        var outcome: RunOutcome
        /// Tool calls made for this message, in order.
        var calls: [ToolCall]
        var names: [String] { calls.map(\.name) }
        var text: String { outcome.text }
        func arguments(_ name: String) -> JSONValue? { calls.last { $0.name == name }.flatMap { try? $0.parsedArguments() } }
    }

    func ask(_ text: String, thread: String = "t1") async throws -> Reply {
        let handle = try runner.submit(threadID: thread, text: text)
        let outcome = try #require(await runner.outcome(of: handle.runID))
        let messages = try store.transcript(threadID: thread).map(\.message)
        let lastUser = messages.lastIndex { $0.role == .user } ?? 0
        let calls = messages[lastUser...].flatMap(\.toolCalls)
        return Reply(outcome: outcome, calls: calls)
    }

    var approvalTools: [String] { gate.asked.map(\.toolName) }
    var journal: JournalStore { fixture.journal }
    var seed: Seed { fixture.seed }
}

@Suite struct OfflineAssistantTests {
    @Test func logTwoEggsForBreakfast() async throws {
        let h = try OfflineHarness()
        let before = try h.fixture.entryCount()
        let r = try await h.ask("log 2 eggs for breakfast")
        #expect(r.outcome.phase == .completed)
        #expect(r.names == ["search_food_bank", "search_reference_foods", "log_reference_food"])
        #expect(r.calls.map(\.id) == ["offline-1-1", "offline-1-2", "offline-1-3"])
        #expect(r.arguments("search_reference_foods")?["query"] == "eggs")
        #expect(r.arguments("log_reference_food") == ["reference_id": "01123", "quantity": 2, "portion": "large", "meal": "breakfast"])
        #expect(h.approvalTools == ["log_reference_food"])
        #expect(h.gate.asked.first?.preview.hasPrefix("Log a reference food (USDA 01123): Egg, whole, raw, fresh — 2 large (100 g)") == true)
        #expect(try h.fixture.entryCount() == before + 1)
        let egg = try #require(try h.journal.lastEntry())
        #expect(egg.name == "Egg, whole, raw, fresh" && egg.meal == .breakfast && egg.day.description == "2026-11-29")
        #expect(egg.serving.grams == 100)
        #expect(egg.totalNutrients["protein_g"] == 12.56)
        #expect(r.text == "Logged Egg, whole, raw, fresh — 2 large (100 g), 143 kcal to breakfast on 2026-11-29.")
    }

    @Test func iHadABanana() async throws {
        let h = try OfflineHarness()
        let r = try await h.ask("I had a banana")
        #expect(r.names == ["search_food_bank", "search_reference_foods", "log_reference_food"])
        let args = try #require(r.arguments("log_reference_food"))
        #expect(args["meal"] == nil) // the tool takes the meal from the local clock
        #expect(args["portion"]?.stringValue?.hasPrefix("medium") == true)
        let e = try #require(try h.journal.lastEntry())
        #expect(e.name.hasPrefix("Banana"))
        #expect(e.meal == .breakfast) // 08:30 local
        #expect(e.serving.grams == 118)
        #expect(h.approvalTools == ["log_reference_food"])
        #expect(r.text.hasPrefix("Logged \(e.name) — 1 medium"))
    }

    @Test func log150gGreekYogurtAsASnack() async throws {
        let h = try OfflineHarness()
        // Whole-milk and nonfat Greek yogurt score close and differ: the assistant asks first.
        let ask = try await h.ask("log 150g greek yogurt as a snack")
        #expect(ask.names == ["search_food_bank", "search_reference_foods"])
        #expect(ask.text.contains("1. Yogurt, Greek, plain, whole milk [ref 01293]"))
        let r = try await h.ask("1")
        #expect(r.names == ["search_food_bank", "search_reference_foods", "log_reference_food"])
        let args = try #require(r.arguments("log_reference_food"))
        // The unit goes to the tool as typed; its amount model makes grams exact.
        #expect(args["portion"] == "g" && args["quantity"] == 150 && args["meal"] == "snack")
        let e = try #require(try h.journal.lastEntry())
        #expect(e.name.lowercased().contains("greek"))
        #expect(e.meal == .snack && e.serving.grams == 150 && e.source == .reference)
        #expect(r.text.contains("to snack on 2026-11-29"))
    }

    @Test func logMyUsualOatmealUsesTheFoodBank() async throws {
        let h = try OfflineHarness()
        let r = try await h.ask("log my usual oatmeal")
        #expect(r.names == ["search_food_bank", "search_reference_foods", "log_saved_food"])
        #expect(r.arguments("log_saved_food") == ["food_id": .string(h.seed.oatmeal.uuidString), "servings": 1])
        #expect(h.approvalTools == ["log_saved_food"])
        let e = try #require(try h.journal.lastEntry())
        #expect(e.savedFoodID == h.seed.oatmeal)
        #expect(e.totalNutrients == fullNutrients())
        #expect(fullNutrients()["energy_kcal"] == 1.3125)
        #expect(r.text == "Logged Oatmeal (Quaker) — 40 g, 1.31 kcal to breakfast on 2026-11-29.")
    }

    @Test func whatDidIEatToday() async throws {
        let h = try OfflineHarness()
        let r = try await h.ask("what did I eat today")
        #expect(r.names == ["get_journal_day"])
        #expect(r.arguments("get_journal_day") == ["date": "2026-11-29"])
        #expect(h.gate.asked.isEmpty)
        #expect(r.text == """
            Today (2026-11-29): 2 entries, 222 kcal, protein 18 g.
            Breakfast:
            - Scrambled tofu — 150 g, 220 kcal
            Lunch:
            - Coffee, brewed — 1 cup, 2 kcal
            """)
    }

    @Test func whatDidIEatYesterday() async throws {
        let h = try OfflineHarness()
        let r = try await h.ask("what did I eat yesterday")
        #expect(r.arguments("get_journal_day") == ["date": "2026-11-28"])
        #expect(r.text.contains("- Toast — 2 slice, 160 kcal"))
        #expect(r.text.contains("Snack:\n- Banana — 1 piece, 105 kcal"))
    }

    @Test func showLastWeek() async throws {
        let h = try OfflineHarness()
        let r = try await h.ask("show last week")
        #expect(r.names == ["get_journal_range"])
        #expect(r.arguments("get_journal_range") == ["from": "2026-11-23", "to": "2026-11-29",
                                                     "nutrients": ["energy_kcal", "protein_g", "carbohydrate_g", "fat_g"]])
        #expect(r.text.hasPrefix("The last 7 days (2026-11-23 to 2026-11-29): 2 logged days; daily average 244 kcal, protein 12.7 g."))
        #expect(r.text.contains("- 2026-11-28: 265 kcal (2 entries)"))
        #expect(r.text.contains("- 2026-11-24: nothing logged"))
    }

    @Test func proteinThisWeek() async throws {
        let h = try OfflineHarness()
        let r = try await h.ask("how much protein did I have this week")
        #expect(r.names == ["get_journal_range", "get_goals"])
        #expect(r.calls.map(\.id) == ["offline-1-1", "offline-1-2"])
        #expect(r.arguments("get_journal_range")?["nutrients"] == ["protein_g"])
        #expect(r.text == "You had 25.3 g protein over the last 7 days (2026-11-23 to 2026-11-29): 12.7 g a day on average over 2 logged days (daily goal 50 g, the FDA default). 1 entry does not report protein, so the real amount may be higher.")
    }

    @Test func sodiumTodayIsHonestAboutMissingValues() async throws {
        let h = try OfflineHarness()
        let r = try await h.ask("how much sodium today")
        #expect(r.arguments("get_journal_range") == ["from": "2026-11-29", "to": "2026-11-29", "nutrients": ["sodium_mg"]])
        #expect(r.text == "You had 400 mg sodium today (2026-11-29); your limit is 2300 mg (the FDA default), 1900 mg left. 1 entry does not report sodium, so the real amount may be higher.")
    }

    @Test func foodsWithTheMostSugarThisMonth() async throws {
        let h = try OfflineHarness()
        let r = try await h.ask("which foods gave me the most sugar this month")
        #expect(r.names == ["get_nutrient_breakdown"])
        #expect(r.arguments("get_nutrient_breakdown") == ["nutrient": "sugars_g", "from": "2026-11-01", "to": "2026-11-29", "limit": 5])
        #expect(r.text == """
            Most sugar this month (2026-11-01 to 2026-11-29), 17.4 g in total:
            1. Banana: 14.4 g (83%)
            2. Toast: 3 g (17%)
            2 entries do not report sugar.
            """)
    }

    @Test func setCalorieAndProteinGoals() async throws {
        let h = try OfflineHarness()
        let a = try await h.ask("set my calorie goal to 2200")
        #expect(a.names == ["set_goals"])
        #expect(a.arguments("set_goals") == ["goals": ["energy_kcal": 2200]])
        #expect(a.text == "Your daily calorie goal is now 2200 kcal.")
        let b = try await h.ask("set protein goal to 140g")
        #expect(b.calls.map(\.id) == ["offline-2-1"])
        #expect(b.text == "Your daily protein goal is now 140 g.")
        #expect(h.approvalTools == ["set_goals", "set_goals"])
        #expect(h.gate.asked[1].preview == "Change daily goals:\n  Protein: 50 g → 140 g")
        let goals = try h.journal.goals()
        #expect(goals["energy_kcal"] == 2200 && goals["protein_g"] == 140 && goals["sodium_mg"] == 2300)
    }

    @Test func deleteTheLastThingILogged() async throws {
        let h = try OfflineHarness()
        let before = try h.fixture.entryCount()
        let r = try await h.ask("delete the last thing I logged")
        #expect(r.names == ["search_journal", "delete_journal_entry"])
        #expect(r.arguments("search_journal") == ["limit": 1])
        #expect(r.arguments("delete_journal_entry") == ["entry_id": .string(h.seed.coffee.uuidString)])
        #expect(h.approvalTools == ["delete_journal_entry"])
        #expect(try h.fixture.entryCount() == before - 1)
        #expect(try h.journal.entry(h.seed.coffee) == nil)
        #expect(r.text == "Deleted Coffee, brewed — 1 cup, 2 kcal from lunch on 2026-11-29.")
    }

    @Test func moveMyCoffeeToBreakfast() async throws {
        let h = try OfflineHarness()
        let r = try await h.ask("move my coffee to breakfast")
        #expect(r.names == ["search_journal", "move_journal_entry"])
        #expect(r.arguments("move_journal_entry") == ["entry_id": .string(h.seed.coffee.uuidString), "meal": "breakfast"])
        #expect(try h.journal.entry(h.seed.coffee)?.meal == .breakfast)
        #expect(r.text == "Moved Coffee, brewed — 1 cup, 2 kcal to breakfast on 2026-11-29.")
    }

    @Test func whatCanIEatTonight() async throws {
        let h = try OfflineHarness()
        let r = try await h.ask("what can I eat tonight")
        #expect(r.names == ["recommend_shelf_foods"])
        #expect(h.gate.asked.isEmpty)
        #expect(r.text.hasPrefix("From your Shelf, for what's left of today's goals (FDA defaults):\n1. "))
        #expect(r.text.contains("Greek yogurt (Fage)") && r.text.contains("Oatmeal (Quaker)"))
    }

    @Test func findOatMilkInMyFoodBank() async throws {
        let h = try OfflineHarness()
        let r = try await h.ask("find oat milk in my food bank")
        #expect(r.names == ["search_food_bank"])
        #expect(r.arguments("search_food_bank") == ["query": "oat milk", "limit": 10])
        #expect(r.text == "1 food in your Food Bank matches \"oat milk\":\n- Oat milk (Oatly), 1 cup: 120 kcal")
    }

    @Test func helpAndUnknownAnnounceTheOfflineAssistant() async throws {
        let h = try OfflineHarness()
        let before = try h.fixture.snapshot()
        let help = try await h.ask("help")
        #expect(help.calls.isEmpty)
        #expect(help.text.hasPrefix("I'm the offline assistant"))
        #expect(help.text.contains("log 2 eggs for breakfast"))
        let unknown = try await h.ask("what's the capital of France")
        #expect(unknown.calls.isEmpty)
        #expect(unknown.text.hasPrefix("I'm the offline assistant and I didn't understand that."))
        #expect(unknown.text.contains("what can I eat tonight"))
        #expect(!unknown.text.contains("kcal") && !unknown.text.contains("mg"))
        #expect(try h.fixture.snapshot() == before)
    }

    @Test func aDeclinedLogWritesNothing() async throws {
        let h = try OfflineHarness(fallback: .deny)
        let before = try h.fixture.snapshot()
        let r = try await h.ask("log 2 eggs for breakfast")
        #expect(r.names == ["search_food_bank", "search_reference_foods", "log_reference_food"])
        #expect(r.text == "Okay, nothing was logged.")
        #expect(try h.fixture.snapshot() == before)
    }

    @Test func anUnknownFoodIsNotLogged() async throws {
        let h = try OfflineHarness()
        let before = try h.fixture.snapshot()
        let r = try await h.ask("log 2 zzyzx blorps")
        #expect(r.names == ["search_food_bank", "search_reference_foods"])
        #expect(r.text.hasPrefix("I couldn't find \"zzyzx blorps\""))
        #expect(h.gate.asked.isEmpty)
        #expect(try h.fixture.snapshot() == before)
    }

    @Test func sameInputGivesSameCallsIdsAndText() async throws {
        var replies: [(String, [ToolCall])] = []
        for _ in 0..<2 {
            let h = try OfflineHarness()
            let r = try await h.ask("log 150g greek yogurt as a snack")
            replies.append((r.text, r.calls))
        }
        #expect(replies[0].0 == replies[1].0)
        #expect(replies[0].1 == replies[1].1)
    }

    @Test func reportsZeroUsageAndItsIdentity() {
        let model = OfflineAssistant(timeZone: utc, now: { fixtureEpoch })
        #expect(model.provider == "offline" && model.model == "offline" && model.continuationFamily == "offline")
        let events = model.respond(to: [.user("help")])
        #expect(events.contains(.usage(.zero)))
        #expect(events.last == .finish(.stop))
        let first = model.respond(to: [.user("what did I eat today")])
        #expect(first.first == .toolCall(ToolCall(id: "offline-1-1", name: "get_journal_day", arguments: #"{"date":"2026-11-29"}"#)))
        #expect(first.last == .finish(.toolCalls))
    }
}

@Suite struct OfflineAssistantCalendarTests {
    /// The first call the assistant makes for `text` at `now` in `zone`.
    func firstCall(_ text: String, now: Double, zone: String) throws -> ToolCall {
        let model = OfflineAssistant(timeZone: try #require(TimeZone(identifier: zone)), now: { now })
        guard case .toolCall(let call)? = model.respond(to: [.user(text)]).first else { throw ToolArgumentError("no tool call for \(text)") }
        return call
    }

    @Test func todayFollowsTheLocalZone() throws {
        // 2026-11-29 02:30 UTC is still the evening of the 28th in Los Angeles and morning in Tokyo.
        let instant: Double = 1_795_941_000 - 6 * 3600
        #expect(try firstCall("what did I eat today", now: instant, zone: "America/Los_Angeles").arguments == #"{"date":"2026-11-28"}"#)
        #expect(try firstCall("what did I eat today", now: instant, zone: "Asia/Tokyo").arguments == #"{"date":"2026-11-29"}"#)
        #expect(try firstCall("what did I eat yesterday", now: instant, zone: "Asia/Tokyo").arguments == #"{"date":"2026-11-28"}"#)
    }

    @Test func monthsWeeksAndExplicitDatesAcrossBoundaries() throws {
        // 2024-03-01 12:00 UTC: a leap year, so the week reaches back into February.
        let march1: Double = 1_709_294_400
        let month = try firstCall("which foods gave me the most sugar this month", now: march1, zone: "UTC")
        #expect(month.arguments == #"{"from":"2024-03-01","limit":5,"nutrient":"sugars_g","to":"2024-03-01"}"#)
        let week = try firstCall("show last week", now: march1, zone: "UTC")
        #expect(try week.parsedArguments()["from"] == "2024-02-24")
        let onDay = try firstCall("what did I eat on 2023-12-31", now: march1, zone: "UTC")
        #expect(onDay.arguments == #"{"date":"2023-12-31"}"#)
        // New Year's Eve rolls into January in a zone ahead of UTC.
        let newYear = try firstCall("how much protein this month", now: 1_704_063_600, zone: "Europe/Berlin") // 2023-12-31 23:00 UTC
        #expect(try newYear.parsedArguments()["from"] == "2024-01-01")
    }

    @Test func echoedWordsAreSanitized() async throws {
        let h = try OfflineHarness()
        let r = try await h.ask("find \u{1B}]0;pwned\u{7}oat milk in my food bank")
        #expect(!r.text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 7 })
        #expect(r.arguments("search_food_bank")?["query"] == "]0;pwnedoat milk")
    }

    @Test func eachWriteIsOneLedgerRowAndTheTranscriptAnswersEveryCall() async throws {
        let h = try OfflineHarness()
        _ = try await h.ask("log 2 eggs for breakfast")
        _ = try await h.ask("move my coffee to breakfast")
        let ledger = try h.store.ledgerEntries(threadID: "t1")
        #expect(ledger.map(\.toolName) == ["log_reference_food", "move_journal_entry"])
        #expect(ledger.allSatisfy { $0.outcome == .committed })
        #expect(ledger.map(\.callID) == ["offline-1-3", "offline-2-2"])
        let messages = try h.store.transcript(threadID: "t1").map(\.message)
        #expect(RequestNormalizer.violations(messages).isEmpty)
    }
}

@Suite struct ToolboxTests {
    @Test func systemPromptStatesTheRulesAndTheContextNoteTheLocalDate() throws {
        let prompt = NutritionToolbox.systemPrompt
        for rule in ["ofj", "search_food_bank first", "search_reference_foods", "Never guess", "approval", "YYYY-MM-DD", "breakfast 02:00-12:00",
                     "Keep answers short", NutritionToolbox.contextLabel] {
            #expect(prompt.contains(rule), "missing: \(rule)")
        }
        let zone = try #require(TimeZone(identifier: "America/New_York"))
        let note = NutritionToolbox.contextNote(now: Date(timeIntervalSince1970: fixtureEpoch), timeZone: zone)
        #expect(note == NutritionToolbox.contextLabel + " Now: Sunday 2026-11-29, 03:30 local time (America/New_York).")
    }

    /// The prompt is the start of every request's cached prefix: nothing in it may depend on the
    /// clock. The note moves with every minute and day instead.
    @Test func onlyTheContextNoteChangesWithTheClock() throws {
        let zone = try #require(TimeZone(identifier: "America/New_York"))
        let late = Date(timeIntervalSince1970: fixtureEpoch + 20.5 * 3_600 - 30) // 23:59:30 local
        let notes = [late, late.addingTimeInterval(40), late.addingTimeInterval(24 * 3_600)].map {
            NutritionToolbox.contextNote(now: $0, timeZone: zone)
        }
        #expect(notes[0].hasSuffix("Now: Sunday 2026-11-29, 23:59 local time (America/New_York)."))
        #expect(notes[1].hasSuffix("Now: Monday 2026-11-30, 00:00 local time (America/New_York)."))
        #expect(notes[2].hasSuffix("Now: Monday 2026-11-30, 23:59 local time (America/New_York)."))
        for digits in ["23:59", "00:00", "2026-11-29", "2026-11-30", "03:30"] { #expect(!NutritionToolbox.systemPrompt.contains(digits)) }
    }

    @Test func aMissingReferenceDatabaseIsAnErrorNotAnEmptyAnswer() async throws {
        let f = try Fixture(seeded: false)
        let tools = NutritionToolbox.makeRegistry(journal: f.journal, reference: ReferenceDatabase(directoryPath: "/nonexistent/ofj-reference"))
        let tool = try #require(tools.tool(named: "search_reference_foods"))
        let out = try await tool.execute(arguments: ["query": "egg"], context: f.context)
        #expect(out.isError)
        #expect(out.content.contains("could not be loaded"))
    }
}

@Suite struct OfflineAssistantErrorTests {
    @Test func aRejectedLogIsReportedAndNothingIsAskedOrWritten() async throws {
        let h = try OfflineHarness()
        let before = try h.fixture.snapshot()
        let r = try await h.ask("log my usual 2 cups oatmeal")
        #expect(r.names == ["search_food_bank", "search_reference_foods", "log_saved_food"])
        #expect(r.arguments("log_saved_food") == ["food_id": .string(h.seed.oatmeal.uuidString), "quantity": 2, "unit": "cup"])
        #expect(h.gate.asked.isEmpty) // the preview rejected it before any approval
        #expect(r.text.hasPrefix("I couldn't log oatmeal: unit: cannot convert"))
        #expect(r.text.hasSuffix("Nothing was written."))
        #expect(try h.fixture.snapshot() == before)
    }

    @Test func nothingLoggedGivesNoNumbers() async throws {
        let h = try OfflineHarness()
        let r = try await h.ask("what did I eat on 2026-11-01")
        #expect(r.arguments("get_journal_day") == ["date": "2026-11-01"])
        #expect(r.text == "Nothing is logged on 2026-11-01.")
        let total = try await h.ask("how much fiber yesterday")
        #expect(total.text == "None of your 2 entries yesterday (2026-11-28) reported fiber.")
    }
}
