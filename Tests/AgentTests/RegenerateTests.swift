// `/retry` (AgentRunner.regenerate): a new answer to the same message, the old one kept but never sent.
import Foundation
import Testing
import SQLiteKit
@testable import Agent

@Suite struct RegenerateTests {
    /// Issue 17, REPL 5: /retry used to send the user message a second time (with the old answer
    /// still in the history). Now the answer is replaced; earlier versions stay stored.
    @Test func retryReplacesTheAnswerAndKeepsEarlierVersions() async throws {
        let h = try Harness()
        h.model.enqueue(.text("First answer"), .text("Second answer"), .text("Third answer"))
        _ = try await h.ask("hello")

        let (second, versions) = try h.runner.regenerate(threadID: "t1")
        #expect(versions == 1)
        #expect(await h.runner.outcome(of: second.runID)?.text == "Second answer")
        // The request held the message once and not the superseded answer.
        #expect(h.model.requests.last?.messages == [.user("hello")])
        #expect(try h.store.transcript(threadID: "t1").map(\.message) == [.user("hello"), .assistant("Second answer")])

        let (third, again) = try h.runner.regenerate(threadID: "t1")
        #expect(again == 2)
        #expect(await h.runner.outcome(of: third.runID)?.text == "Third answer")
        #expect(h.model.requests.last?.messages == [.user("hello")])
        #expect(try h.store.transcript(threadID: "t1").map(\.message) == [.user("hello"), .assistant("Third answer")])
        #expect(try h.store.supersededAnswers(threadID: "t1").map(\.message) == [.assistant("First answer"), .assistant("Second answer")])
        #expect(try count(h.queue, "SELECT count(*) FROM agent_messages WHERE role = 'user'") == 1)
    }

    /// Only the closing text is replaced: the tool calls and results stay, so a retry neither
    /// repeats a write nor leaves a result without its call.
    @Test func retryKeepsTheToolActivityAndReplacesOnlyTheClosingText() async throws {
        let h = try Harness()
        h.model.enqueue(.calls(("w1", "add_entry", #"{"item":"egg","grams":50}"#)), .text("Logged."), .text("Done: one egg."))
        _ = try await h.ask("log an egg")
        #expect(try count(h.queue, "SELECT count(*) FROM test_entries") == 1)

        let (handle, _) = try h.runner.regenerate(threadID: "t1")
        #expect(await h.runner.outcome(of: handle.runID)?.text == "Done: one egg.")
        let sent = try #require(h.model.requests.last).messages
        #expect(sent.count == 3 && sent.first == .user("log an egg") && sent.last?.role == .tool, "\(sent)")
        #expect(!sent.contains(.assistant("Logged.")))
        #expect(try count(h.queue, "SELECT count(*) FROM test_entries") == 1)
        #expect(h.model.requests.count == 3)
    }

    @Test func nothingToRetryInAnEmptyThread() throws {
        let h = try Harness()
        #expect(throws: AgentError.self) { try h.runner.regenerate(threadID: "empty") }
    }
}
