// The broker hands each answer to the card it was given for, and to no other.
import Agent
import Testing
@testable import REPL

@Suite struct ApprovalBrokerTests {
    func request() -> ApprovalRequest {
        ApprovalRequest(threadID: "t1", runID: "run-1", callID: "c1", toolName: "log_food", preview: "Log to the journal: Apple")
    }

    /// Issue 17, defect 1: Ctrl-C at a card, /continue, the card again, `y` — was recorded as a
    /// denial, because the stop's denial was kept and answered the second card of the same call.
    @Test func theAnswerToACardShownAgainAfterCtrlCIsTheOneGiven() async throws {
        let broker = ApprovalBroker()
        let first = request()
        let waiting = Task { await broker.decide(first) }
        try await Task.sleep(for: .milliseconds(50)) // the person looks at the card
        // Ctrl-C: the run is stopped (its task cancelled) and the REPL releases the card.
        waiting.cancel()
        broker.resolve(first, .deny)
        #expect(await waiting.value == .deny)

        // /continue asks about the same call again; the person answers y.
        let second = request()
        #expect(second.askID != first.askID)
        let again = Task { await broker.decide(second) }
        try await Task.sleep(for: .milliseconds(50))
        broker.resolve(second, .allowOnce)
        #expect(await again.value == .allowOnce)
    }

    @Test func anAnswerGivenBeforeTheRunnerWaitsIsKeptForItsCardOnly() async {
        let broker = ApprovalBroker()
        let card = request()
        broker.resolve(card, .alwaysAllow)
        broker.resolve(card, .deny) // a second answer to the same card changes nothing
        #expect(await broker.decide(card) == .alwaysAllow)
        // A late answer to a card that was already answered does not wait for the next card.
        broker.resolve(card, .deny)
        let next = request()
        broker.resolve(next, .allowOnce)
        #expect(await broker.decide(next) == .allowOnce)
    }

    /// Issue 17, REPL 6: `e` at the card answers with the edited arguments, which reach the runner
    /// as such (it re-validates them and asks again); a decision-only gate reads them as no allow.
    @Test func editedArgumentsReachTheRunnerAsAnEdit() async {
        let broker = ApprovalBroker()
        let card = request()
        let waiting = Task { await broker.answer(card) }
        try? await Task.sleep(for: .milliseconds(20))
        broker.resolve(card, editedArguments: #"{"name":"Pear"}"#)
        #expect(await waiting.value == .edited(arguments: #"{"name":"Pear"}"#))
        let other = request()
        broker.resolve(other, editedArguments: "{}")
        #expect(await broker.decide(other) == .deny)
    }
}
