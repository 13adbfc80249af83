// /permissions add: a rule typed at the REPL becomes the shape config.json holds.
import Base
import Testing
import Agent
@testable import REPL

@Suite struct PermissionsCommandTests {
    @Test func aRuleTypedAtTheREPLBecomesTheConfigJSONShape() throws {
        #expect(try REPLSession.parseRule("allow log_saved_food date today")
            == JSONValue.parse(#"{"tool":"log_saved_food","decision":"allow","when":{"date":"today"}}"#))
        #expect(try REPLSession.parseRule("deny delete_journal_entry when date before -7d")
            == JSONValue.parse(#"{"tool":"delete_journal_entry","decision":"deny","when":{"date":{"before":"-7d"}}}"#))
        #expect(try REPLSession.parseRule("ask log_food energy_kcal gt 800 and meal in lunch,dinner")
            == JSONValue.parse(#"{"tool":"log_food","decision":"ask","when":{"energy_kcal":{"gt":800},"meal":{"in":["lunch","dinner"]}}}"#))
        #expect(try REPLSession.parseRule(#"{"tool":"set_goals","decision":"deny"}"#) == JSONValue.parse(#"{"tool":"set_goals","decision":"deny"}"#))
        #expect(throws: ApprovalRulesError.self) { try REPLSession.parseRule("allow") }
        #expect(throws: ApprovalRulesError.self) { try REPLSession.parseRule("allow log_food energy_kcal") }
    }
}
