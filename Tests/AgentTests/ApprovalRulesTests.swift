// Standing approval rules: parsing and validation against the tools' schemas, the precedence
// matrix (deny > ask > allow, most specific named), relative dates, reload on change (never
// half-applied), and the runner deciding, recording and explaining rule decisions.
import Base
import Foundation
import Testing
import SQLiteKit
import TestSupport
@testable import Agent

/// A write tool with a number, a string and a date argument, and a figure (`energy_kcal`).
struct RuledWriteTool: WriteTool {
    var name = "log_item"
    var description = "Logs an item."
    var parameters: JSONValue = ["type": "object",
                                 "properties": ["item": ["type": "string"], "grams": ["type": "number"], "date": ["type": "string"],
                                                "tags": ["type": "array", "items": ["type": "string"]]],
                                 "required": ["item"], "additionalProperties": false]
    func activity(arguments: JSONValue) -> String { "logging" }
    func preview(arguments: JSONValue, context: ToolContext, database: Database) throws -> PlannedChange {
        let grams = arguments["grams"]?.doubleValue ?? 100
        var resolved = arguments.objectValue ?? [:]
        if resolved["date"] == nil { resolved["date"] = "2026-11-29" }
        return PlannedChange(card: "log \(arguments["item"]?.stringValue ?? "")", change: ["arguments": .object(resolved), "kcal": .number(grams * 2)])
    }
    func apply(_ change: PlannedChange, context: ToolContext, database: Database) throws -> ToolOutput {
        try database.execute("INSERT INTO test_entries (item, grams, call_id) VALUES (?, ?, ?)",
                             [change.change["arguments"]?["item"]?.stringValue ?? "", change.change["arguments"]?["grams"]?.doubleValue ?? 100, context.callID])
        return ToolOutput(content: #"{"ok":true}"#, summary: "logged")
    }
    func ruleFigureKind(_ name: String) -> RuleFieldKind? { name == "energy_kcal" ? .number : nil }
    func ruleFigures(_ planned: PlannedChange, database: Database) -> [String: JSONValue] {
        var f = planned.change["arguments"]?.objectValue ?? [:]
        f["energy_kcal"] = planned.change["kcal"]
        return f
    }
}

@Suite struct ApprovalRulesTests {
    static let vocabulary = RuleVocabulary(registry: ToolRegistry([RuledWriteTool(), LookupTool()]))
    static let today = "2026-11-29"

    static func rules(_ json: String) throws -> ApprovalRuleSet {
        try ApprovalRuleSet.parse(try JSONValue.parse(json), vocabulary: vocabulary)
    }

    static func problems(_ json: String) -> [String] {
        do { _ = try rules(json); return [] } catch let e as ApprovalRulesError { return e.problems } catch { return ["\(error)"] }
    }

    func decide(_ set: ApprovalRuleSet, _ figures: [String: JSONValue]) -> String {
        guard let v = set.verdict(tool: "log_item", figures: figures, today: Self.today) else { return "none" }
        return "\(v.decision.rawValue) by \(v.rule.number)"
    }

    @Test func theIssuesExampleLoadsAndReadsAsWritten() throws {
        let set = try Self.rules("""
            [{"tool": "log_item", "when": {"date": "today"}, "decision": "allow"},
             {"tool": "log_item", "when": {"energy_kcal": {"lt": 800}}, "decision": "allow"},
             {"tool": "log_item", "when": {"date": {"before": "-7d"}}, "decision": "deny"}]
            """)
        #expect(set.rules.map(\.text) == ["allow log_item when date = today", "allow log_item when energy_kcal < 800",
                                          "deny log_item when date before -7d"])
        #expect(decide(set, ["date": "2026-11-29", "energy_kcal": 900]) == "allow by 1")
        #expect(decide(set, ["date": "2026-11-28", "energy_kcal": 799]) == "allow by 2")
        #expect(decide(set, ["date": "2026-11-28", "energy_kcal": 800]) == "none")
        #expect(decide(set, ["date": "2026-11-21", "energy_kcal": 100]) == "deny by 3")
        #expect(decide(set, ["date": "2026-11-22", "energy_kcal": 900]) == "none")
    }

    /// Every pair of decisions on overlapping rules, each order, with and without conditions.
    @Test func precedenceMatrixDenyOverAskOverAllowMostSpecificNamed() throws {
        let decisions = ["allow", "ask", "deny"]
        for a in decisions {
            for b in decisions {
                for (aWhen, bWhen) in [("", ""), (#","when":{"grams":{"gt":10}}"#, ""), ("", #","when":{"grams":{"gt":10}}"#)] {
                    // Identical conditions with different decisions are contradictory (tested below).
                    if a != b && aWhen == bWhen { continue }
                    let set = try Self.rules(#"[{"tool":"log_item","decision":"\#(a)"\#(aWhen)},{"tool":"log_item","decision":"\#(b)"\#(bWhen)}]"#)
                    let strongest = [a, b].max { ["allow": 1, "ask": 2, "deny": 3][$0]! < ["allow": 1, "ask": 2, "deny": 3][$1]! }!
                    // Both match at 50 g: the stronger decision wins whatever the order and specificity.
                    let v = try #require(set.verdict(tool: "log_item", figures: ["grams": 50], today: Self.today))
                    #expect(v.decision.rawValue == strongest, "\(a)\(aWhen) vs \(b)\(bWhen)")
                    // Among rules of the winning decision, the more specific one is named.
                    if a == b { #expect(v.rule.number == (aWhen.isEmpty && !bWhen.isEmpty ? 2 : 1), "\(a)\(aWhen) vs \(b)\(bWhen)") }
                    // At 5 g only the rule without conditions matches.
                    let low = try #require(set.verdict(tool: "log_item", figures: ["grams": 5], today: Self.today))
                    #expect(low.decision.rawValue == (aWhen.isEmpty ? a : b))
                }
            }
        }
        // No rule for the tool: nobody decides automatically.
        #expect(try Self.rules(#"[{"tool":"log_item","decision":"deny","when":{"item":"cake"}}]"#)
            .verdict(tool: "log_item", figures: ["item": "bread"], today: Self.today) == nil)
    }

    @Test func operatorsBareValuesListsAndMissingFigures() throws {
        let set = try Self.rules("""
            [{"tool":"log_item","when":{"item":{"in":["tea","Coffee"]}},"decision":"allow"},
             {"tool":"log_item","when":{"grams":{"ge":100,"le":200}},"decision":"ask"},
             {"tool":"log_item","when":{"date":{"after":"+1d"}},"decision":"deny"},
             {"tool":"log_item","when":{"date":"2026-11-01"},"decision":"deny"}]
            """)
        let dated: [String: JSONValue] = ["date": "2026-11-29"]
        #expect(decide(set, dated.merging(["item": "coffee", "grams": 1]) { $1 }) == "allow by 1")
        #expect(decide(set, dated.merging(["item": "coffee", "grams": 150]) { $1 }) == "ask by 2")
        #expect(decide(set, dated.merging(["grams": 201]) { $1 }) == "none")
        #expect(decide(set, ["grams": 100]) == "ask by 2")
        #expect(decide(set, ["date": "2026-12-01", "grams": 1]) == "deny by 3")
        #expect(decide(set, ["date": "2026-11-30", "grams": 1]) == "none")
        #expect(decide(set, ["date": "2026-11-01", "grams": 1]) == "deny by 4")
        // A figure the call does not have never meets an allow condition; a deny or ask rule
        // that cannot be checked for want of it asks, naming the figure (issue 31 §6).
        #expect(decide(set, ["date": "2026-11-29", "grams": 1]) == "none")
        #expect(decide(set, ["date": "2026-11-29"]) == "ask by 2")
        #expect(set.verdict(tool: "log_item", figures: ["grams": 1], today: Self.today)?.unstated == "date")
        #expect(set.verdict(tool: "log_item", figures: ["grams": 1], today: Self.today)?.askedLine
            == "Asked because your approval rule 3 (deny log_item when date after +1d) cannot be checked: this change does not state date")
        #expect(RuleDates.resolve("-7d", today: "2026-03-03") == "2026-02-24")
        #expect(RuleDates.resolve("yesterday", today: "2024-03-01") == "2024-02-29")
        #expect(RuleDates.resolve("2026-02-30", today: "2026-03-03") == nil)
    }

    /// Sides of a change (an entry's date as it is and where it goes): a deny or ask matches if
    /// either side does; an allow only if both do.
    @Test func denyMatchesEitherSideAllowNeedsBoth() throws {
        let set = try Self.rules("""
            [{"tool":"log_item","when":{"date":{"before":"-7d"}},"decision":"deny"},
             {"tool":"log_item","when":{"date":"today"},"decision":"allow"}]
            """)
        // Moving an old entry to today: the deny sees the old day.
        #expect(decide(set, ["date": ["2026-11-01", "2026-11-29"]]) == "deny by 1")
        #expect(decide(set, ["date": ["2026-11-29", "2026-11-01"]]) == "deny by 1")
        // Moving yesterday's entry to today: the allow needs both days to be today.
        #expect(decide(set, ["date": ["2026-11-28", "2026-11-29"]]) == "none")
        #expect(decide(set, ["date": ["2026-11-29", "2026-11-29"]]) == "allow by 2")
    }

    /// `ofj doctor` warns about allow rules that constrain only a name: names match in any case.
    @Test func nameOnlyAllowRulesAreWarnedAbout() throws {
        let set = try Self.rules("""
            [{"tool":"log_item","when":{"item":"Water"},"decision":"allow"},
             {"tool":"log_item","when":{"item":"Tea","grams":{"lt":300}},"decision":"allow"}]
            """)
        #expect(decide(set, ["item": "WATER", "grams": 4999, "date": "2026-11-29"]) == "allow by 1")
        #expect(set.nameOnlyAllowWarnings.isEmpty, "item is not a name field: \(set.nameOnlyAllowWarnings)")
        let vocabulary = RuleVocabulary(tools: ["log_food": { $0 == "name" || $0 == "brand" ? .string : $0 == "energy_kcal" ? .number : nil }])
        let named = try ApprovalRuleSet.parse(try JSONValue.parse("""
            [{"tool":"log_food","when":{"name":"Water"},"decision":"allow"},
             {"tool":"log_food","when":{"name":"Tea","energy_kcal":{"lt":5}},"decision":"allow"},
             {"tool":"log_food","when":{"name":"Cake"},"decision":"deny"}]
            """), vocabulary: vocabulary)
        #expect(named.nameOnlyAllowWarnings == ["config.json approvals rule 1 (allow log_food when name = Water) constrains only a name: "
            + "any amount of anything with name = Water (in any case) is written without a card; add a limit such as {\"energy_kcal\": {\"lt\": 50}}"])
        #expect(named.verdict(tool: "log_food", figures: ["name": "WATER", "energy_kcal": 4999], today: Self.today)?.rule.number == 1)
    }

    @Test func typeErrorsUnknownNamesAndContradictionsAreErrorsNamingTheRule() {
        #expect(Self.problems(#"[{"tool":"log_itme","decision":"allow"}]"#).first?.hasPrefix(
            "config.json approvals rule 1: unknown tool \"log_itme\" (did you mean log_item?)") == true)
        #expect(Self.problems(#"[{"tool":"lookup","decision":"allow"}]"#)
            == ["config.json approvals rule 1: lookup only reads and is never asked about; rules are for tools that change the journal"])
        #expect(Self.problems(#"[{"tool":"log_item","decision":"allow","when":{"kcal":{"lt":1}}}]"#).first?.contains(
            "log_item has no argument or figure \"kcal\"") == true)
        #expect(Self.problems(#"[{"tool":"log_item","decision":"allow","when":{"energy_kcal":{"lt":"800"}}}]"#)
            == ["config.json approvals rule 1: energy_kcal lt needs a number, not \"800\""])
        #expect(Self.problems(#"[{"tool":"log_item","decision":"allow","when":{"item":{"lt":3}}}]"#)
            == ["config.json approvals rule 1: lt does not apply to item (a string); use eq, in"])
        #expect(Self.problems(#"[{"tool":"log_item","decision":"allow","when":{"date":{"before":"last week"}}}]"#).first?.contains(
            "date before needs a date (today, yesterday, -7d, +1d or YYYY-MM-DD)") == true)
        #expect(Self.problems(#"[{"tool":"log_item","decision":"allow","when":{"grams":{"below":3}}}]"#).first?.contains("unknown operator \"below\"") == true)
        #expect(Self.problems(#"[{"tool":"log_item","decision":"maybe"}]"#) == ["config.json approvals rule 1 needs \"decision\": \"allow\", \"ask\" or \"deny\""])
        #expect(Self.problems(#"[{"tool":"log_item","decision":"allow","when":{"tags":"a"}}]"#).first?.contains("has no argument or figure \"tags\"") == true)
        #expect(Self.problems(#"{"tool":"log_item"}"#).first?.contains("must be a list") == true)
        #expect(Self.problems(#"[{"tool":"log_item","decision":"allow","when":{"grams":{"in":[]}}}]"#).first?.contains("non-empty list") == true)
        // Exactly the same calls, two decisions: contradictory. Every problem is reported.
        let both = Self.problems("""
            [{"tool":"log_item","when":{"grams":{"gt":5}},"decision":"allow"},
             {"tool":"log_item","when":{"grams":{"gt":5}},"decision":"deny"},
             {"tool":"nope","decision":"deny"}]
            """)
        #expect(both.count == 2)
        #expect(both.contains("config.json approvals rules 1 and 2 give the same calls of log_item different decisions (allow, deny); remove one"))
    }

    @Test func aRuleFileEditedWhileRunningIsReloadedWholeOrNotUsedAtAll() throws {
        let dir = TempDirectory()
        let path = dir.file("config.json")
        try #"{"provider":"offline","approvals":{"rules":[{"tool":"log_item","decision":"allow"}]}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let book = ApprovalRuleBook(path: path, vocabulary: Self.vocabulary, today: { Self.today })
        #expect(book.snapshot().rules.rules.count == 1)
        // A valid edit replaces the rules at the next decision.
        try #"{"approvals":{"rules":[{"tool":"log_item","decision":"deny"},{"tool":"log_item","decision":"ask","when":{"grams":1}}]}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        #expect(book.snapshot().rules.rules.map(\.decision) == [.deny, .ask])
        // An edit with one bad rule among good ones: none of them applies (never half-applied).
        try #"{"approvals":{"rules":[{"tool":"log_item","decision":"allow"},{"tool":"log_item","decision":"deny","when":{"grams":"x"}}]}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let broken = book.snapshot()
        #expect(broken.rules.rules.isEmpty)
        #expect(broken.problem == "config.json approvals rule 2: grams eq needs a number, not \"x\"")
        try "{not json".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(book.snapshot().problem?.hasPrefix("config.json is not valid JSON") == true)
        // add refuses while the file does not parse, and leaves it as it is.
        #expect(throws: ApprovalRulesError.self) { try book.add(["tool": "log_item", "decision": "allow"]) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{not json")
        // add and remove keep the rest of the file.
        try #"{"provider":"offline"}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let added = try book.add(["tool": "log_item", "decision": "allow", "when": ["grams": ["lt": 50]]])
        #expect(added.number == 1 && added.text == "allow log_item when grams < 50")
        #expect(try book.add(["tool": "log_item", "decision": "deny"]).number == 2)
        #expect(throws: ApprovalRulesError.self) { try book.add(["tool": "log_item", "decision": "ask", "when": ["grams": ["lt": 50]]]) }
        #expect(try book.remove(1).decision == .allow)
        let doc = try JSONValue.parse(try String(contentsOfFile: path, encoding: .utf8))
        #expect(doc["provider"]?.stringValue == "offline")
        #expect(doc["approvals"]?["rules"]?.arrayValue?.count == 1)
        #expect(book.snapshot().rules.rules.map(\.text) == ["deny log_item for every call"])
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o600)
    }

    // MARK: - The runner

    static func model(_ clock: VirtualClock, _ arguments: String) -> ScriptedChatModel {
        ScriptedChatModel(clock: clock) { request, _ in
            if request.results["w1"] != nil { return .text("Done.") }
            return .calls(("w1", "log_item", arguments))
        }
    }

    @Test func anAllowRuleWritesWithoutAskingAndIsRecordedWithTheRule() async throws {
        let clock = VirtualClock()
        let gate = ScriptedApprovalGate(fallback: .deny)
        let rules = FixedApprovalRules(try Self.rules(#"[{"tool":"log_item","when":{"energy_kcal":{"lt":800}},"decision":"allow"}]"#), today: { Self.today })
        let h = try Harness(model: Self.model(clock, #"{"item":"tea","grams":10}"#), clock: clock, tools: [RuledWriteTool()], gate: gate, rules: rules)
        let (handle, outcome) = try await h.ask("log tea")
        #expect(outcome.phase == .completed)
        #expect(gate.asked.isEmpty)
        #expect(try h.entries() == 1)
        let row = try #require(try h.queue.read { try $0.row("SELECT decision, source, rule FROM agent_approvals WHERE run_id = ?", [handle.runID]) })
        #expect(row[0].string == "allow_once" && row[1].string == "rule")
        #expect(row[2].string == "rule 1 (allow log_item when energy_kcal < 800)")
        let lines = try await h.events(of: handle.runID).compactMap { e -> String? in
            if case .ruleDecided(_, _, _, let line) = e.kind { return line } else { return nil }
        }
        #expect(lines == ["allowed by rule 1: allow log_item when energy_kcal < 800"])
    }

    @Test func aDenyRuleRefusesWithoutAskingAndTellsTheModelWhichRule() async throws {
        let clock = VirtualClock()
        let gate = ScriptedApprovalGate(fallback: .allowOnce)
        let rules = FixedApprovalRules(try Self.rules(#"[{"tool":"log_item","decision":"allow"},{"tool":"log_item","when":{"date":{"before":"-7d"}},"decision":"deny"}]"#),
                                       today: { Self.today })
        let model = Self.model(clock, #"{"item":"tea","date":"2026-11-01"}"#)
        let h = try Harness(model: model, clock: clock, tools: [RuledWriteTool()], gate: gate, rules: rules)
        let (handle, outcome) = try await h.ask("log tea")
        #expect(outcome.phase == .completed)
        #expect(gate.asked.isEmpty)
        #expect(try h.entries() == 0)
        #expect(try h.ledgerRows("denied") == 1)
        let result = try #require(model.requests.last?.results["w1"])
        #expect(result.content.contains("rule 2 (deny log_item when date before -7d) refuses this change; nothing was written"))
        #expect(try h.queue.read { try $0.row("SELECT rule FROM agent_approvals WHERE run_id = ?", [handle.runID])?[0].string }
            == "rule 2 (deny log_item when date before -7d)")
    }

    @Test func anAskRuleAsksEvenWithAThreadGrantAndNamesItselfOnTheCard() async throws {
        let clock = VirtualClock()
        let gate = ScriptedApprovalGate([.alwaysAllow, .deny])
        let rules = FixedApprovalRules(try Self.rules(#"[{"tool":"log_item","when":{"grams":{"gt":500}},"decision":"ask"}]"#), today: { Self.today })
        let model = ScriptedChatModel(clock: clock) { request, _ in
            if request.results["w2"] != nil { return .text("Done.") }
            if request.results["w1"] != nil { return .calls(("w2", "log_item", #"{"item":"cake","grams":900}"#)) }
            return .calls(("w1", "log_item", #"{"item":"tea","grams":10}"#))
        }
        let h = try Harness(model: model, clock: clock, tools: [RuledWriteTool()], gate: gate, rules: rules)
        _ = try await h.ask("log tea and cake")
        // The first card was answered "always"; the second is over 500 g, so the rule asks anyway.
        #expect(gate.asked.count == 2)
        #expect(gate.asked.last?.preview.hasPrefix("Asked because of your approval rule 1 (ask log_item when grams > 500):\n") == true)
        #expect(try h.entries() == 1)
    }

    @Test func aBrokenRuleFileIsSaidOnceAWriteAndEveryChangeIsAsked() async throws {
        let dir = TempDirectory()
        let path = dir.file("config.json")
        try #"{"approvals":{"rules":[{"tool":"log_item","decision":"allow"},{"tool":"log_itme","decision":"deny"}]}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let clock = VirtualClock()
        let gate = ScriptedApprovalGate(fallback: .allowOnce)
        let book = ApprovalRuleBook(path: path, vocabulary: Self.vocabulary, today: { Self.today })
        let h = try Harness(model: Self.model(clock, #"{"item":"tea"}"#), clock: clock, tools: [RuledWriteTool()], gate: gate, rules: book)
        let (handle, _) = try await h.ask("log tea")
        #expect(gate.asked.count == 1)
        let notices = try await h.events(of: handle.runID).compactMap { e -> String? in
            if case .ruleDecided(_, _, nil, let line) = e.kind { return line } else { return nil }
        }
        #expect(notices.count == 1)
        #expect(notices.first?.hasPrefix("approval rules not used: config.json approvals rule 2: unknown tool \"log_itme\"") == true)
    }

    /// Saving a rule rewrites config.json indented, with every other key kept and each rule on
    /// one line (as people write them by hand).
    @Test func savedRulesStayOneLineEachAndOtherKeysAreKept() throws {
        let dir = TempDirectory()
        let path = dir.file("config.json")
        try #"{"policy":"patient","meals":{"breakfast":"05:00"},"approvals":{"rules":[{"tool":"log_item","decision":"allow"}]}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let book = ApprovalRuleBook(path: path, vocabulary: Self.vocabulary, today: { Self.today })
        _ = try book.add(["tool": "log_item", "decision": "deny", "when": ["item": ["eq": "cake"]]])
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == """
            {
              "approvals": {
                "rules": [
                  {"decision":"allow","tool":"log_item"},
                  {"decision":"deny","tool":"log_item","when":{"item":{"eq":"cake"}}}
                ]
              },
              "meals": {
                "breakfast": "05:00"
              },
              "policy": "patient"
            }

            """, "\(text)")
    }
}
