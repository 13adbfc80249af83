// Issue 17, REPL 6: arguments edited at the card are validated, shown on a new card, and are
// what is recorded and applied.
import Base
import Foundation
import Synchronization
import Testing
import SQLiteKit
@testable import Agent

/// Answers cards from a script and keeps the requests it was shown.
final class ScriptedAnswerGate: ApprovalGate {
    private let state: Mutex<(answers: [ApprovalAnswer], requests: [ApprovalRequest])>
    init(_ answers: [ApprovalAnswer]) { state = Mutex((answers, [])) }
    func decide(_ request: ApprovalRequest) async -> ApprovalDecision { .deny }
    func answer(_ request: ApprovalRequest) async -> ApprovalAnswer {
        state.withLock { s in
            s.requests.append(request)
            return s.answers.isEmpty ? .decision(.deny) : s.answers.removeFirst()
        }
    }
    var requests: [ApprovalRequest] { state.withLock { $0.requests } }
}

@Suite struct EditedApprovalTests {
    @Test func anEditIsValidatedShownAgainAndIsWhatIsWritten() async throws {
        let gate = ScriptedAnswerGate([
            .edited(arguments: #"{"item": "egg", "grams": "lots"}"#),   // invalid: refused, same card again
            .edited(arguments: #"{"item": "egg", "grams": 120}"#),      // valid: a new card
            .decision(.allowOnce),
        ])
        let h = try Harness(gate: gate)
        h.model.enqueue(.calls(("w1", "add_entry", #"{"item":"egg","grams":50}"#)), .text("Logged."))
        _ = try await h.ask("log an egg")

        let cards = gate.requests
        #expect(cards.count == 3)
        #expect(cards[0].preview == "add 50 g of egg")
        #expect(cards[0].arguments == #"{"item":"egg","grams":50}"#)
        #expect(cards[1].preview.hasPrefix("Your edit was not used (invalid arguments for 'add_entry'"))
        #expect(cards[1].preview.hasSuffix("the change is still:\nadd 50 g of egg"))
        #expect(cards[2].preview == "Edited by you; the change is now:\nadd 120 g of egg")
        #expect(try JSONValue.parse(cards[2].arguments) == ["item": "egg", "grams": 120])

        #expect(try count(h.queue, "SELECT count(*) FROM test_entries WHERE grams = 120") == 1)
        #expect(try count(h.queue, "SELECT count(*) FROM test_entries") == 1)
        let approval = try h.queue.read { try $0.row("SELECT decision, source FROM agent_approvals") }
        #expect(approval?[0].string == "allow_once" && approval?[1].string == "person_edited")
        let ledger = try h.queue.read { try $0.scalar("SELECT arguments FROM agent_ledger").string } ?? ""
        #expect(try JSONValue.parse(ledger)["grams"] == 120)
        // The model hears what was actually done.
        let result = try #require(h.model.requests.last?.messages.last)
        guard case .toolResult(let r)? = result.parts.first else { Issue.record("no tool result: \(result)"); return }
        #expect(try JSONValue.parse(r.content)["arguments_edited_by_person"]?["grams"] == 120)
    }
}
