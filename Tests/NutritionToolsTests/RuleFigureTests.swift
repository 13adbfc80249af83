// What approval rules can test on the journal's write tools: the resolved arguments (date and meal
// filled in), the nutrients of the entry written, and the date of an entry being deleted or moved.
import Base
import Foundation
import Testing
import Agent
import Journal
import SQLiteKit
@testable import NutritionTools

@Suite struct RuleFigureTests {
    func figures(_ f: Fixture, _ name: String, _ args: JSONValue) throws -> [String: JSONValue] {
        let r = try f.resolve(name, args)
        let tool = try f.writeTool(name)
        return try f.queue.read { db in tool.ruleFigures(try tool.preview(arguments: r.arguments, context: f.context, database: db), database: db) }
    }

    @Test func aLogsFiguresAreItsResolvedDayMealAndNutrientsWritten() throws {
        let f = try Fixture()
        let log = try figures(f, "log_saved_food", ["food_id": .string(f.seed.oatmeal.uuidString), "servings": 2])
        #expect(log["date"]?.stringValue == "2026-11-29")
        #expect(log["meal"]?.stringValue == "breakfast")
        // The fixture's energy is below what its macronutrients make: rules see the larger.
        let food = try #require(try f.journal.food(f.seed.oatmeal)?.nutrients)
        let stated = (try #require(food["energy_kcal"]) * 2 * 10_000).rounded() / 10_000
        let grams = [("protein_g", 4.0), ("carbohydrate_g", 4.0), ("fat_g", 9.0)].map { id, kcal in
            ((food[id] ?? 0) * 2 * 10_000).rounded() / 10_000 * kcal
        }
        #expect(abs(try #require(log["energy_kcal"]?.doubleValue) - max(stated, grams.reduce(0, +))) < 1e-6)
        let manual = try figures(f, "log_food", ["name": "Apple", "nutrients": ["energy_kcal": 95], "date": "yesterday"])
        #expect(manual["energy_kcal"]?.doubleValue == 95)
        #expect(manual["date"]?.stringValue == "2026-11-28")
        #expect(manual["nutrients"] == nil)
    }

    @Test func aDeleteIsJudgedByTheDateOfTheEntryItRemoves() throws {
        let f = try Fixture()
        let delete = try figures(f, "delete_journal_entry", ["entry_id": .string(f.seed.bananaYesterday.uuidString)])
        #expect(delete["date"]?.stringValue == "2026-11-28")
        #expect(delete["meal"]?.stringValue == "snack")
        #expect(delete["energy_kcal"] != nil)
        let rules = try ApprovalRuleSet.parse(try JSONValue.parse(#"[{"tool":"delete_journal_entry","when":{"date":{"before":"today"}},"decision":"deny"}]"#),
                                              vocabulary: RuleVocabulary(registry: f.registry))
        #expect(rules.verdict(tool: "delete_journal_entry", figures: delete, today: "2026-11-29")?.decision == .deny)
        let move = try figures(f, "move_journal_entry", ["entry_id": .string(f.seed.bananaYesterday.uuidString), "meal": "lunch"])
        #expect(move["date"]?.stringValue == "2026-11-28" && move["meal"] == ["snack", "lunch"])
    }

    /// Issue 31 §6: an edit or move is judged by the entry as it is and where it goes.
    @Test func anEditOrMoveIsJudgedOnBothSides() throws {
        let f = try Fixture()
        let vocabulary = RuleVocabulary(registry: f.registry)
        func verdict(_ tool: String, _ rule: String, _ args: [String: JSONValue]) throws -> RuleVerdict? {
            var args = args
            args["entry_id"] = .string(f.seed.bananaYesterday.uuidString)
            let set = try ApprovalRuleSet.parse(try JSONValue.parse("[\(rule)]"), vocabulary: vocabulary)
            return set.verdict(tool: tool, figures: try figures(f, tool, .object(args)), today: "2026-11-29")
        }
        // Yesterday's snack, moved to today / to lunch: a deny on the old day or meal still matches.
        for tool in ["move_journal_entry", "update_journal_entry"] {
            #expect(try verdict(tool, #"{"tool":"\#(tool)","when":{"date":{"before":"today"}},"decision":"deny"}"#, ["date": "today"])?.decision == .deny, "\(tool)")
            #expect(try verdict(tool, #"{"tool":"\#(tool)","when":{"meal":"snack"},"decision":"deny"}"#, ["meal": "lunch"])?.decision == .deny, "\(tool)")
            #expect(try verdict(tool, #"{"tool":"\#(tool)","when":{"meal":"lunch"},"decision":"deny"}"#, ["meal": "lunch"])?.decision == .deny, "\(tool)")
            // An allow for today's entries does not cover moving yesterday's into today.
            #expect(try verdict(tool, #"{"tool":"\#(tool)","when":{"date":"today"},"decision":"allow"}"#, ["date": "today"]) == nil, "\(tool)")
        }
    }

    /// A deny on energy matches a log that states only fat (energy from the macronutrients); one
    /// whose energy cannot be worked out is asked about, naming the rule.
    @Test func aDenyOnAFigureTheCallLeavesOutIsStillChecked() throws {
        let f = try Fixture()
        let set = try ApprovalRuleSet.parse(try JSONValue.parse(#"[{"tool":"log_food","decision":"allow"},{"tool":"log_food","when":{"energy_kcal":{"gt":2000}},"decision":"deny"}]"#),
                                            vocabulary: RuleVocabulary(registry: f.registry))
        let fat = try figures(f, "log_food", ["name": "Lard", "nutrients": ["fat_g": 500]])
        #expect(fat["energy_kcal"]?.doubleValue == 4500)
        #expect(set.verdict(tool: "log_food", figures: fat, today: "2026-11-29")?.decision == .deny)
        let salt = try figures(f, "log_food", ["name": "Salt", "nutrients": ["sodium_mg": 5]])
        let asked = try #require(set.verdict(tool: "log_food", figures: salt, today: "2026-11-29"))
        #expect(asked.decision == .ask && asked.unstated == "energy_kcal" && asked.rule.number == 2)
        let small = try figures(f, "log_food", ["name": "Apple", "nutrients": ["energy_kcal": 95]])
        #expect(set.verdict(tool: "log_food", figures: small, today: "2026-11-29")?.decision == .allow)
    }

    /// Issue 31 §6: rules see a meal and a name as the journal writes them (trimmed, "snacks" is
    /// snack), and energy no smaller than the macronutrients make.
    @Test func rulesSeeTheMealNameAndEnergyTheWriteWouldStore() throws {
        let f = try Fixture()
        let vocabulary = RuleVocabulary(registry: f.registry)
        func verdict(_ tool: String, _ rule: String, _ args: [String: JSONValue]) throws -> RuleVerdict? {
            let set = try ApprovalRuleSet.parse(try JSONValue.parse("[\(rule)]"), vocabulary: vocabulary)
            return set.verdict(tool: tool, figures: try figures(f, tool, .object(args)), today: "2026-11-29")
        }
        let banana = JSONValue.string(f.seed.bananaYesterday.uuidString)
        #expect(try verdict("move_journal_entry", #"{"tool":"move_journal_entry","when":{"meal":"breakfast"},"decision":"deny"}"#,
                            ["entry_id": banana, "meal": " breakfast"])?.decision == .deny)
        #expect(try verdict("move_journal_entry", #"{"tool":"move_journal_entry","when":{"meal":"lunch"},"decision":"deny"}"#,
                            ["entry_id": banana, "meal": "Lunch "])?.decision == .deny)
        #expect(try verdict("log_food", #"{"tool":"log_food","when":{"meal":"snack"},"decision":"deny"}"#,
                            ["name": "Apple", "meal": "snacks", "nutrients": ["energy_kcal": 95]])?.decision == .deny)
        #expect(try verdict("log_food", #"{"tool":"log_food","when":{"name":"Donut"},"decision":"deny"}"#,
                            ["name": "Donut ", "nutrients": ["energy_kcal": 95]])?.decision == .deny)
        // 1 kcal stated beside 500 g of fat is judged as the 4,500 kcal the fat makes.
        let lard = try figures(f, "log_food", ["name": "Lard", "nutrients": ["energy_kcal": 1, "fat_g": 500]])
        #expect(lard["energy_kcal"]?.doubleValue == 4500)
        #expect(try verdict("log_food", #"{"tool":"log_food","when":{"energy_kcal":{"lt":800}},"decision":"allow"}"#,
                            ["name": "Lard", "nutrients": ["energy_kcal": 1, "fat_g": 500]]) == nil)
        // Stated energy above the macronutrients' stays as stated.
        let cake = try figures(f, "log_food", ["name": "Cake", "nutrients": ["energy_kcal": 400, "fat_g": 10]])
        #expect(cake["energy_kcal"]?.doubleValue == 400)
    }

    @Test func rulesAreCheckedAgainstTheRealToolsSchemas() throws {
        let f = try Fixture()
        let vocabulary = RuleVocabulary(registry: f.registry)
        func problems(_ json: String) -> [String] {
            do { _ = try ApprovalRuleSet.parse(try JSONValue.parse(json), vocabulary: vocabulary); return [] } catch let e as ApprovalRulesError { return e.problems } catch { return ["\(error)"] }
        }
        #expect(problems(#"[{"tool":"log_saved_food","when":{"date":"today"},"decision":"allow"},{"tool":"log_food","when":{"energy_kcal":{"lt":800}},"decision":"allow"},{"tool":"delete_journal_entry","when":{"date":{"before":"-7d"}},"decision":"deny"},{"tool":"set_goals","decision":"ask"}]"#).isEmpty)
        #expect(problems(#"[{"tool":"set_goals","when":{"energy_kcal":{"lt":3}},"decision":"allow"}]"#).first?.contains("set_goals has no argument or figure \"energy_kcal\"") == true)
        #expect(problems(#"[{"tool":"search_food_bank","decision":"deny"}]"#).first?.contains("only reads") == true)
        #expect(problems(#"[{"tool":"log_food","when":{"meal":{"in":["lunch","dinner"]},"servings":2},"decision":"allow"}]"#).first?.contains("no argument or figure \"servings\"") == true)
    }
}
