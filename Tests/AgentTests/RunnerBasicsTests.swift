// The runner's basic loop: submit, requests sent, events, busy threads, diagnostics.
import Base
import Foundation
import Testing
import SQLiteKit
import TestSupport
@testable import Agent

@Suite struct RunnerBasicsTests {
    @Test func answersAndStoresEverything() async throws {
        let h = try Harness()
        h.model.enqueue(ScriptedTurn([.responseID("resp-1"), .text("Hello"), .text(", world"),
                                      .usage(Usage(inputTokens: 100, cachedInputTokens: 20, outputTokens: 5, reasoningTokens: 2))]))
        let (handle, outcome) = try await h.ask("hi there")
        #expect(outcome == RunOutcome(phase: .completed, text: "Hello, world"))

        let request = try #require(h.model.requests.first)
        #expect(request.system == "You are a test assistant.")
        #expect(request.messages == [.user("hi there")])
        #expect(request.tools.map(\.name) == ["lookup", "add_entry"])

        let stored = try h.store.transcript(threadID: "t1")
        #expect(stored.map(\.message) == [.user("hi there"), .assistant("Hello, world")])
        #expect(stored.map(\.state) == [.complete, .complete])
        let run = try #require(try h.store.run(handle.runID))
        #expect(run.phase == .completed && run.turnsUsed == 1 && run.finishedAt != nil)
        let usage = try h.store.usage(threadID: "t1")
        #expect(usage.count == 1 && usage[0].usage.inputTokens == 100 && usage[0].usage.cachedInputTokens == 20 && usage[0].provider == "scripted")

        let kinds = try await h.events(of: handle.runID).map(\.kind)
        #expect(kinds.first == .phase(.queued))
        #expect(kinds.contains(.textDelta("Hello")) && kinds.contains(.textDelta(", world")))
        #expect(kinds.contains(.phase(.waitingForProvider)) && kinds.contains(.phase(.finalizing)))
        #expect(kinds.last == .finished(outcome))
        let phases = kinds.compactMap { if case .phase(let p) = $0 { return p } else { return nil } }
        #expect(phases == [.queued, .preparing, .waitingForProvider, .finalizing, .completed])
        #expect(try h.store.phaseHistory(runID: handle.runID).map(\.phase) == phases) // persisted, in order

        let rounds = h.diagnostics.events.filter { $0.operation == .modelRound }
        #expect(rounds.count == 1 && rounds[0].status == "ok" && rounds[0].providerRequestID == "resp-1" && rounds[0].usage?.outputTokens == 5)
        #expect(h.diagnostics.events.contains { $0.operation == .run && $0.status == "completed" })
    }

    @Test func submitPersistsBeforeAnythingAsync() throws {
        let h = try Harness()
        h.model.enqueue(ScriptedTurn([.stall]))
        let handle = try h.runner.submit(threadID: "t1", text: "first words")
        // No await since submit returned: the message and a run are already stored.
        #expect(try h.store.transcript(threadID: "t1").map(\.message) == [.user("first words")])
        let run = try #require(try h.store.run(handle.runID))
        #expect(run.threadID == "t1")
        h.runner.cancel(threadID: "t1")
    }

    @Test func oneActiveRunPerThreadEvenAcrossConnections() async throws {
        let dir = TempDirectory()
        let path = dir.file("ofj.sqlite")
        let h = try Harness(queue: try openDatabase(path))
        h.model.enqueue(ScriptedTurn([.stall]), .text("second answer"))
        let first = try h.runner.submit(threadID: "busy", text: "one")
        try await h.waitFor("waiting") { $0.kind == .phase(.waitingForProvider) }

        #expect { try h.runner.submit(threadID: "busy", text: "two") } throws: { ($0 as? AgentError)?.kind == .threadBusy }
        // Another process: its own connection and runner on the same file.
        let other = try Harness(queue: try DatabaseQueue(path: path))
        #expect { try other.runner.submit(threadID: "busy", text: "three") } throws: {
            ($0 as? AgentError)?.kind == .threadBusy && ($0 as? AgentError)?.line.contains("still answering") == true
        }
        #expect(try h.store.transcript(threadID: "busy").count == 1) // refused messages are not stored
        // Other threads are free.
        other.model.enqueue(.text("elsewhere"))
        #expect(try await other.ask("hello", thread: "free").1.phase == .completed)

        h.runner.cancel(threadID: "busy")
        #expect(await h.runner.outcome(of: first.runID)?.phase == .cancelled)
        #expect(try await h.ask("again", thread: "busy").1.phase == .completed)
    }

    @Test func invalidCallsBecomeErrorResultsTheModelSees() async throws {
        let h = try Harness()
        h.model.enqueue(.calls(("c1", "lookup", "{\"query\":"), ("c2", "lookup", #"{"query":7}"#), ("c3", "teleport", "{}"),
                               ("c4", "add_entry", #"{"item":"egg","grams":-2}"#), ("c5", "add_entry", #"{"item":"unknown-food","grams":2}"#)),
                        .text("Sorry, those failed."))
        let (handle, outcome) = try await h.ask("do things")
        #expect(outcome.phase == .completed)
        let second = try #require(h.model.requests.last)
        let results = second.results
        #expect(results.count == 5)
        #expect(results.values.allSatisfy { $0.isError })
        #expect(results["c1"]?.content.contains("not valid JSON") == true)
        #expect(results["c2"]?.content.contains("query: expected string, got integer") == true)
        #expect(results["c3"]?.content.contains("unknown tool 'teleport'") == true)
        #expect(results["c4"]?.content.contains("grams: must be at least 0") == true)
        #expect(results["c5"]?.content.contains("no food called unknown-food") == true)
        #expect(try h.entries() == 0)
        expectWellFormed(h.model.requests)
        let statuses = try h.store.toolRecords(runID: handle.runID).map(\.status)
        #expect(statuses == [.rejected, .rejected, .rejected, .rejected, .rejected])
    }

    @Test func continuationItemsReplayOnlyToTheirFamily() async throws {
        let clock = VirtualClock()
        let gemini = ScriptedChatModel(turns: [
            ScriptedTurn([.continuation(ContinuationItem(provider: "gemini", kind: "thought_signature", payload: "SIG-1")),
                          .toolCall(id: "c1", name: "lookup", arguments: #"{"query":"a"}"#)]),
            .text("done"),
        ], clock: clock, provider: "gemini", model: "g", continuationFamily: "gemini")
        let h = try Harness(model: gemini, clock: clock)
        _ = try await h.ask("q")
        let replayed = gemini.requests[1].messages[1].parts.first
        #expect(replayed == .continuation(ContinuationItem(provider: "gemini", kind: "thought_signature", payload: "SIG-1")))

        let other = ScriptedChatModel(turns: [.text("hi")], clock: clock, provider: "anthropic", model: "c", continuationFamily: "anthropic")
        let handle = try h.runner.submit(threadID: "t1", text: "again", model: other)
        _ = await h.runner.outcome(of: handle.runID)
        let sent = try #require(other.requests.first)
        #expect(!sent.messages.flatMap(\.parts).contains { if case .continuation = $0 { return true } else { return false } })
        #expect(sent.messages.count == 5) // user, assistant (call), tool, assistant, user: all else intact
        expectWellFormed(gemini.requests + other.requests)
    }

    @Test func eventsEncodeAsJSONLines() throws {
        let events: [AgentEvent.Kind] = [
            .phase(.awaitingApproval), .textDelta("a\"b\n"), .toolStarted(callID: "c", name: "lookup", activity: "looking"),
            .toolFinished(callID: "c", name: "lookup", status: .succeeded, summary: "found"),
            .approvalRequested(ApprovalRequest(threadID: "t", runID: "r", callID: "c", toolName: "add_entry", preview: "add 2 eggs")),
            .approvalDecided(callID: "c", name: "add_entry", decision: .alwaysAllow),
            .usage(turn: 1, usage: Usage(inputTokens: 3), provider: "p", model: "m", costUSD: nil),
            .retrying(operation: "model_turn", delaySeconds: 0.25),
            .error(AgentError(.timeout, "slow")),
            .finished(RunOutcome(phase: .failed, text: "x", error: AgentError(.timeout, "slow"))),
        ]
        let types = ["phase", "text_delta", "tool_started", "tool_finished", "approval_requested", "approval_decided", "usage", "retrying", "error", "finished"]
        for (kind, type) in zip(events, types) {
            let line = AgentEvent(threadID: "t", runID: "r", kind: kind).jsonLine
            #expect(!line.contains("\n"))
            let parsed = try JSONValue.parse(line)
            #expect(parsed["type"]?.stringValue == type)
            #expect(parsed["thread"] == "t" && parsed["run"] == "r")
        }
        let approval = try JSONValue.parse(AgentEvent(threadID: "t", runID: "r", kind: events[4]).jsonLine)
        #expect(approval["preview"] == "add 2 eggs")
        let finished = try JSONValue.parse(AgentEvent(threadID: "t", runID: "r", kind: events[9]).jsonLine)
        #expect(finished["class"] == "timeout" && finished["phase"] == "failed")
    }

    @Test func diagnosticsCarryNoContent() async throws {
        let secret = "SECRET-OATMEAL-42"
        let h = try Harness(gate: ScriptedApprovalGate([.allowOnce]))
        h.model.enqueue(ScriptedTurn([.text("Thinking about \(secret)"), .toolCall(id: "c1", name: "lookup", arguments: "{\"query\":\"\(secret)\"}")]),
                        .calls(("c2", "add_entry", "{\"item\":\"\(secret)\",\"grams\":5}")),
                        .failure(ChatError(.fatal, "bad request")))
        _ = try await h.ask("log \(secret) please")
        let diagnostics = h.diagnostics.events
        #expect(diagnostics.contains { $0.operation == .toolExecution && $0.toolName == "lookup" })
        #expect(diagnostics.contains { $0.operation == .approval && $0.status == "allow_once" })
        #expect(diagnostics.contains { $0.operation == .failure && $0.errorClass == "provider_rejected" })
        #expect(diagnostics.filter { $0.operation == .modelRound }.count == 3)
        for d in diagnostics {
            #expect(!String(describing: d).contains(secret))
        }
    }

    /// The volatile tail is asked for at every model turn and rides beside the request, never in
    /// the system prompt or the stored messages (which stay the same bytes for the next request).
    @Test func eachModelTurnCarriesTheContextNoteOfItsMoment() async throws {
        let clock = VirtualClock()
        let h = try Harness(clock: clock, contextNote: { "Now: \(Int(clock.now()))" })
        h.model.enqueue(.calls(("c1", "lookup", #"{"query":"oats"}"#)), .text("done"), .text("again"))
        _ = try await h.ask("log oats")
        clock.advance(by: 90)
        _ = try await h.ask("and now?")
        let requests = h.model.requests
        try #require(requests.count == 3)
        let start = Int(clock.now()) - 90
        #expect(requests.map(\.contextNote) == ["Now: \(start)", "Now: \(start)", "Now: \(start + 90)"])
        #expect(Set(requests.map(\.system)).count == 1)
        #expect(!requests.contains { r in r.system.contains("Now:") || r.messages.contains { $0.text.contains("Now:") } })
    }

    /// A notice from the adapter (sent again differently) is one line for the person; the answer goes on.
    @Test func anAdapterNoticeIsShownAndTheRunCompletes() async throws {
        struct NoticeModel: ChatModel {
            var provider: String { "scripted" }
            var model: String { "n" }
            var continuationFamily: String { "scripted" }
            func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
                AsyncThrowingStream { c in
                    for e in [ChatEvent.textDelta("answer"), .finish(.stop), .notice("sent again without web search")] { c.yield(e) }
                    c.finish()
                }
            }
        }
        let h = try Harness()
        let handle = try h.runner.submit(threadID: "t1", text: "hi", model: NoticeModel())
        let outcome = try #require(await h.runner.outcome(of: handle.runID))
        #expect(outcome.phase == .completed && outcome.text == "answer")
        try await h.waitFor { if case .error(let e) = $0.kind { return e.line == "sent again without web search" } else { return false } }
    }
}
