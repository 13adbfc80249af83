// Deadlines (fast and patient policies) and the retry rules, on virtual time.
import Foundation
import Synchronization
import Testing
@testable import Agent

@Suite struct DeadlineTests {
    func retries(_ h: Harness) -> [Double] {
        h.events.compactMap { if case .retrying(_, let d) = $0.kind { return d } else { return nil } }
    }

    @Test func policiesMatchTheSpec() {
        let fast = DeadlinePolicy.fast
        #expect([fast.localRead, fast.webSearch, fast.urlFetch, fast.firstEvent, fast.streamIdle, fast.modelTurn, fast.run] == [1, 10, 15, 10, 8, 90, 180])
        let patient = DeadlinePolicy.patient
        #expect([patient.firstEvent, patient.streamIdle, patient.modelTurn, patient.run] == [120, 60, 600, 1800])
        #expect(fast.retryBackoff == 0.25)
    }

    @Test func firstEventDeadlineRetriesOnceThenFails() async throws {
        let h = try Harness()
        h.model.enqueue(ScriptedTurn([.delay(11), .text("too late")]), ScriptedTurn([.delay(11), .text("too late")]))
        let (_, outcome) = try await h.ask("hi")
        #expect(outcome.phase == .failed && outcome.error?.kind == .timeout)
        #expect(outcome.error?.line == "The model did not start answering within 10 s; check your connection or the provider's status, then try again.")
        #expect(h.model.requests.count == 2)
        #expect(retries(h) == [0.25])
        #expect(abs(h.clock.monotonic() - 20.25) < 0.001, "virtual time \(h.clock.monotonic())")
        #expect(h.diagnostics.events.filter { $0.operation == .timeout && $0.status == "first_event" }.count == 2)
        #expect(h.clock.pendingCount == 0) // every timer disarmed
        #expect(try h.store.transcript(threadID: "t1").count == 1) // nothing arrived, nothing stored
    }

    @Test func heartbeatsLongerThanTheFirstEventDeadlineKeepTheTurnAlive() async throws {
        // A local server reading a long prompt: `: ping` every 8 s for 40 s, past the 10 s
        // first-event deadline; then the answer. Without the heartbeats the turn fails at 10 s.
        let h = try Harness()
        let pings = Array(repeating: [ScriptedTurn.Step.alive, .delay(8)], count: 5).flatMap { $0 }
        h.model.enqueue(ScriptedTurn(pings + [.text("read it all")]))
        let (_, outcome) = try await h.ask("hi")
        #expect(outcome == RunOutcome(phase: .completed, text: "read it all"), "\(String(describing: outcome.error))")
        #expect(h.model.requests.count == 1)
        #expect(abs(h.clock.monotonic() - 40) < 0.001)
        // Heartbeats do not stretch it forever: a silence after the last one still trips it.
        let g = try Harness()
        g.model.enqueue(ScriptedTurn([.alive, .delay(8), .alive, .delay(11), .text("late")]), ScriptedTurn([.delay(11), .text("late")]))
        let (_, failed) = try await g.ask("hi")
        #expect(failed.phase == .failed && failed.error?.kind == .timeout)
        #expect(abs(g.clock.monotonic() - (18 + 0.25 + 10)) < 0.001, "virtual time \(g.clock.monotonic())")
    }

    @Test func aPatientFirstEventTimeoutIsNotRetriedAndNamesThePromptSize() async throws {
        let h = try Harness(policy: .patient)
        h.model.enqueue(ScriptedTurn([.delay(121), .text("too late")]))
        let (_, outcome) = try await h.ask("hi")
        #expect(outcome.phase == .failed && outcome.error?.kind == .timeout)
        let line = try #require(outcome.error?.line)
        #expect(line.hasPrefix("The model did not start answering within 2 min for a prompt of ~"), "\(line)")
        #expect(h.model.requests.count == 1)
    }

    @Test func firstEventTimeoutThenSuccess() async throws {
        let h = try Harness()
        h.model.enqueue(ScriptedTurn([.delay(10.5), .text("late")]), .text("on time"))
        let (_, outcome) = try await h.ask("hi")
        #expect(outcome == RunOutcome(phase: .completed, text: "on time"))
        #expect(h.model.requests.count == 2)
    }

    @Test func streamIdleDeadlineKeepsPartialTextAndDoesNotRetry() async throws {
        let h = try Harness()
        h.model.enqueue(ScriptedTurn([.text("Part one, "), .delay(7), .text("part two"), .delay(9), .text("never")]))
        let (_, outcome) = try await h.ask("hi")
        #expect(outcome.phase == .failed && outcome.error?.kind == .timeout)
        #expect(outcome.error?.line.contains("went silent for 8 s") == true)
        #expect(outcome.text == "Part one, part two")
        #expect(h.model.requests.count == 1)
        let stored = try h.store.transcript(threadID: "t1")
        #expect(stored.last?.message == .assistant("Part one, part two") && stored.last?.state == .partial)
        #expect(abs(h.clock.monotonic() - 15) < 0.001)
    }

    @Test func modelTurnDeadline() async throws {
        let h = try Harness()
        h.model.enqueue(ScriptedTurn(Array(repeating: [ScriptedTurn.Step.text("x"), .delay(7)], count: 20).flatMap { $0 }))
        let (_, outcome) = try await h.ask("hi")
        #expect(outcome.error?.kind == .timeout)
        #expect(outcome.error?.line.contains("One model turn took longer than 90 s") == true)
        #expect(abs(h.clock.monotonic() - 90) < 0.001)
        #expect(h.model.requests.count == 1)
    }

    @Test func runDeadlineCountsEveryTurn() async throws {
        let clock = VirtualClock()
        let model = ScriptedChatModel(clock: clock) { _, i in
            ScriptedTurn(Array(repeating: [ScriptedTurn.Step.text("."), .delay(7)], count: 7).flatMap { $0 }
                         + [.toolCall(id: "c\(i)", name: "lookup", arguments: #"{"query":"q"}"#)])
        }
        let h = try Harness(model: model, clock: clock)
        let (_, outcome) = try await h.ask("hi")
        #expect(outcome.error?.kind == .timeout)
        #expect(outcome.error?.line.contains("longer than 3 min in total") == true)
        #expect(model.requests.count == 4)
        #expect(abs(clock.monotonic() - 180) < 0.001)
    }

    @Test func approvalWaitDoesNotCount() async throws {
        let clock = VirtualClock()
        let gate = ScriptedApprovalGate([.allowOnce], clock: clock, thinkSeconds: 600)
        let h = try Harness(clock: clock, gate: gate)
        h.model.enqueue(ScriptedTurn([.delay(5), .toolCall(id: "w1", name: "add_entry", arguments: #"{"item":"egg","grams":1}"#)]),
                        ScriptedTurn([.delay(5), .text("Logged.")]))
        let (_, outcome) = try await h.ask("log")
        #expect(outcome.phase == .completed)
        #expect(clock.monotonic() >= 610)
        #expect(try h.entries() == 1)
    }

    @Test func patientPolicyWaitsLonger() async throws {
        for (policy, expected) in [(DeadlinePolicy.patient, RunPhase.completed), (.fast, .failed)] {
            let h = try Harness(policy: policy)
            h.model.enqueue(ScriptedTurn([.delay(100), .text("slow local model")]), ScriptedTurn([.delay(100), .text("again")]))
            #expect(try await h.ask("hi").1.phase == expected)
        }
    }

    @Test func localReadDeadlineRetriesOnceThenReportsToTheModel() async throws {
        let clock = VirtualClock()
        let h = try Harness(clock: clock, tools: [LookupTool(clock: clock, virtualSeconds: 2)])
        h.model.enqueue(.calls(("c1", "lookup", #"{"query":"slow"}"#)), .text("It timed out."))
        let (handle, outcome) = try await h.ask("hi")
        #expect(outcome.phase == .completed)
        let result = try #require(h.model.requests.last?.results["c1"])
        #expect(result.isError && result.content.contains("lookup did not answer within 1 s, twice"))
        #expect(try h.store.toolRecords(runID: handle.runID).first?.status == .failed)
        #expect(retries(h) == [0.25])
        #expect(h.diagnostics.events.filter { $0.operation == .timeout && $0.status == "tool_read" }.count == 2)
        #expect(abs(clock.monotonic() - 2.25) < 0.001)
    }

    @Test func aToolsSetUpRunsBeforeItsReadDeadline() async throws {
        // A first use that loads data for 3 s (virtual) still answers: only the read is bounded.
        let clock = VirtualClock()
        let tool = PreparingTool(clock: clock, setUpSeconds: 3)
        let h = try Harness(clock: clock, tools: [tool])
        h.model.enqueue(.calls(("c1", "prepared", "{}")), .calls(("c2", "prepared", "{}")), .text("done"))
        let (handle, outcome) = try await h.ask("hi")
        #expect(outcome.phase == .completed)
        #expect(h.model.requests.last?.results["c1"]?.content == #"{"prepared":true}"#)
        #expect(h.model.requests.last?.results["c2"]?.content == #"{"prepared":true}"#)
        #expect(try h.store.toolRecords(runID: handle.runID).map(\.status) == [.succeeded, .succeeded])
        #expect(retries(h).isEmpty)
        #expect(tool.setUps.withLock { $0 } == 1) // once, not on every call
        #expect(abs(clock.monotonic() - 3) < 0.001)
    }

    @Test func aFailedReadIsRetriedOnce() async throws {
        let counter = FailingCounter(1)
        let h = try Harness(tools: [FlakyTool(counter: counter)])
        h.model.enqueue(.calls(("c1", "flaky", "{}")), .text("ok"))
        _ = try await h.ask("hi")
        #expect(h.model.requests.last?.results["c1"]?.content == #"{"ok":true}"#)
        #expect(retries(h) == [0.25])
    }

    @Test func retryableErrorIsRetriedOnce() async throws {
        let h = try Harness()
        h.model.enqueue(.failure(ChatError(.retryable, "HTTP 503", httpStatus: 503)), .text("recovered"))
        let (_, outcome) = try await h.ask("hi")
        #expect(outcome == RunOutcome(phase: .completed, text: "recovered"))
        #expect(h.model.requests.count == 2)
        #expect(retries(h) == [0.25])
        #expect(h.diagnostics.events.contains { $0.operation == .retry && $0.errorClass == "provider_unavailable" })
    }

    @Test func retryableTwiceFails() async throws {
        let h = try Harness()
        h.model.enqueue(.failure(ChatError(.retryable, "HTTP 503")), .failure(ChatError(.retryable, "HTTP 503")), .text("never"))
        let (_, outcome) = try await h.ask("hi")
        #expect(outcome.error == AgentError(.providerUnavailable, "The provider failed (HTTP 503); try again in a moment."))
        #expect(h.model.requests.count == 2)
    }

    @Test(arguments: [
        (ChatError(.unknownOutcome, "connection reset"), AgentError.Kind.unknownOutcome),
        (ChatError(.fatal, "model not found", httpStatus: 404), .providerRejected),
        (ChatError(.configuration, "Check GEMINI_API_KEY: the provider said it is invalid."), .configuration),
        (ChatError(.contextOverflow, "too long"), .contextOverflow),
    ])
    func nonRetryableErrorsAreNotRetried(error: ChatError, kind: AgentError.Kind) async throws {
        let h = try Harness()
        h.model.enqueue(.failure(error), .text("never"))
        let (_, outcome) = try await h.ask("hi")
        #expect(outcome.phase == .failed && outcome.error?.kind == kind)
        #expect(h.model.requests.count == 1)
        #expect(retries(h).isEmpty)
        if kind == .configuration { #expect(outcome.error?.line == "Check GEMINI_API_KEY: the provider said it is invalid.") }
        #expect(h.events.contains { $0.kind == .error(outcome.error ?? AgentError(.internal, "")) })
    }

    @Test func aFailureAfterOutputStartedIsNeverRetried() async throws {
        let h = try Harness()
        h.model.enqueue(ScriptedTurn([.text("Half an ans"), .fail(ChatError(.retryable, "stream reset"))]), .text("never"))
        let (_, outcome) = try await h.ask("hi")
        #expect(outcome.error?.kind == .unknownOutcome)
        #expect(outcome.text == "Half an ans")
        #expect(h.model.requests.count == 1)
        #expect(try h.store.transcript(threadID: "t1").last?.state == .partial)
    }

    @Test func retryAfterIsHonouredWhenItFits() async throws {
        let h = try Harness()
        h.model.enqueue(.failure(ChatError(.rateLimited(retryAfter: 2), "429", httpStatus: 429)), .text("ok"))
        let (_, outcome) = try await h.ask("hi")
        #expect(outcome.phase == .completed)
        #expect(retries(h) == [2])
        #expect(abs(h.clock.monotonic() - 2) < 0.001)
    }

    @Test func retryAfterLongerThanTheDeadlineFailsAtOnce() async throws {
        let h = try Harness()
        h.model.enqueue(.failure(ChatError(.rateLimited(retryAfter: 500), "429")), .text("never"))
        let (_, outcome) = try await h.ask("hi")
        #expect(outcome.error == AgentError(.rateLimited, "The provider is limiting requests and asked to wait 500 s; wait a little and try again."))
        #expect(h.model.requests.count == 1)
        #expect(h.clock.monotonic() == 0)
    }

    @Test func rateLimitWithoutRetryAfterUsesTheBackoff() async throws {
        let h = try Harness()
        h.model.enqueue(.failure(ChatError(.rateLimited(retryAfter: nil), "429")), .text("ok"))
        #expect(try await h.ask("hi").1.phase == .completed)
        #expect(retries(h) == [0.25])
    }

    struct ShrinkingAssembler: RequestAssembler {
        let calls = Counter()
        func assemble(_ context: RequestContext) async throws -> ChatRequest { try await FullTranscriptAssembler().assemble(context) }
        func handleContextOverflow(_ context: RequestContext) async -> Bool { calls.increment(); return true }
    }

    @Test func contextOverflowGivesTheAssemblerOneChance() async throws {
        let assembler = ShrinkingAssembler()
        let h = try Harness(assembler: assembler)
        h.model.enqueue(.failure(ChatError(.contextOverflow, "too long")), .text("fits now"))
        #expect(try await h.ask("hi").1 == RunOutcome(phase: .completed, text: "fits now"))
        #expect(assembler.calls.count == 1)
    }
}
