// Issue 25 §4 and §6: what one streamed answer may carry (text, tool calls, ids), and stops and
// deadlines that take effect while a stream arrives faster than it is handled.
import Base
import Foundation
import Synchronization
import Testing
import SQLiteKit
@testable import Agent

/// A model whose whole answer is already buffered in the stream when the consumer starts, like a
/// fast connection that delivered megabytes before the consumer caught up.
struct BufferedModel: ChatModel {
    var provider = "buffered"
    var model = "buffered"
    var continuationFamily = "buffered"
    let events: [ChatEvent]
    func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        AsyncThrowingStream { c in
            for e in events { c.yield(e) }
            c.finish()
        }
    }
}

/// A clock whose timers never fire (as when a busy stream leaves them no thread) and whose time
/// moves only when the model says.
final class StarvedClock: AgentClock {
    private let time = Mutex(0.0)
    func now() -> Double { 1_800_000_000 + monotonic() }
    func monotonic() -> Double { time.withLock { $0 } }
    func advance(_ seconds: Double) { time.withLock { $0 += seconds } }
    func sleep(seconds: Double) async throws {
        advance(seconds)
        try Task.checkCancellation()
    }
    func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> ScheduledTimer {
        ScheduledTimer {}
    }
}

/// Never pauses: a delta every second of model time, forever (capped so a broken build ends).
struct NeverIdleModel: ChatModel {
    var provider = "never-idle"
    var model = "never-idle"
    var continuationFamily = "never-idle"
    let clock: StarvedClock
    func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        let clock = self.clock
        let sent = Counter()
        return AsyncThrowingStream(unfolding: {
            sent.increment()
            let n = sent.count
            if n > 500 { return n == 501 ? .finish(.stop) : nil }
            clock.advance(1)
            return .textDelta("tick ")
        })
    }
}

/// Interrupts the run the first time a text delta is stored.
final class InterruptOnFirstDelta: FaultInjector {
    let runner = Mutex<AgentRunner?>(nil)
    func reached(_ point: FaultPoint, runID: String) throws {
        if point == .afterFirstTextDelta { runner.withLock { $0 }?.interrupt(threadID: "t1") }
    }
}

@Suite struct AnswerLimitsTests {
    struct Setup {
        let queue: DatabaseQueue
        let store: ConversationStore
        let runner: AgentRunner
        let lookups: Counter

        func ask(_ text: String) async throws -> RunOutcome {
            let handle = try runner.submit(threadID: "t1", text: text)
            return try #require(await runner.outcome(of: handle.runID))
        }
    }

    func setup(_ model: any ChatModel, limits: AnswerLimits = .standard, clock: any AgentClock = VirtualClock(),
               faults: (any FaultInjector)? = nil) throws -> Setup {
        let queue = try openDatabase()
        let store = ConversationStore(queue: queue)
        var configuration = AgentConfiguration(systemPrompt: "test", jitter: { 0.5 })
        configuration.limits = limits
        let counter = Counter()
        let runner = AgentRunner(store: store, model: model, tools: ToolRegistry([CountingLookup(counter: counter), AddEntryTool()]),
                                 approvals: ScriptedApprovalGate(fallback: .allowOnce), clock: clock, ids: CountingIDSource(prefix: "run-"),
                                 diagnostics: RecordingDiagnostics(), configuration: configuration, faults: faults)
        return Setup(queue: queue, store: store, runner: runner, lookups: counter)
    }

    struct CountingLookup: Tool {
        var name = "lookup"
        var description = "Looks something up."
        var parameters: JSONValue = ["type": "object", "properties": ["query": ["type": "string"]], "additionalProperties": false]
        var effect: ToolEffect { .read }
        let counter: Counter
        func activity(arguments: JSONValue) -> String { "looking up" }
        func execute(arguments: JSONValue, context: ToolContext) async throws -> ToolOutput {
            counter.increment()
            return ToolOutput(content: #"{"found":true}"#, summary: "found")
        }
    }

    func storedCalls(_ queue: DatabaseQueue) throws -> [(id: String, arguments: String)] {
        try queue.read { db in
            try db.rows("SELECT call_id, body FROM agent_message_parts WHERE kind = 'tool_call' ORDER BY message_id, ordinal")
                .map { ($0[0].string ?? "", $0[1].string ?? "") }
        }
    }

    func storedResults(_ queue: DatabaseQueue) throws -> [String: String] {
        var out: [String: String] = [:]
        for row in try queue.read({ try $0.rows("SELECT call_id, body FROM agent_message_parts WHERE kind = 'tool_result'") }) {
            out[row[0].string ?? ""] = row[1].string ?? ""
        }
        return out
    }

    @Test func theStandardCapsAreTheDocumentedOnes() {
        let l = AnswerLimits.standard
        #expect(l.maxTextBytes == 4 << 20 && l.maxArgumentBytes == 1 << 20 && l.maxTurnArgumentBytes == 4 << 20)
        #expect(l.maxCalls == 64 && l.stopAfterCalls == 256)
        #expect(AnswerLimits.size(4 << 20) == "4 MB" && AnswerLimits.size(1 << 20) == "1 MB")
    }

    // MARK: - Text

    @Test func textPastTheCapEndsTheTurnAndKeepsWhatArrived() async throws {
        let model = BufferedModel(events: Array(repeating: ChatEvent.textDelta("0123456789"), count: 30) + [.finish(.stop)])
        let s = try setup(model, limits: AnswerLimits(maxTextBytes: 95))
        let outcome = try await s.ask("talk")
        #expect(outcome.phase == .failed && outcome.error?.kind == .answerTooLong)
        #expect(outcome.error?.line == "The answer passed 95 bytes and was stopped; what arrived is saved. Ask for something shorter.")
        let stored = try s.store.transcript(threadID: "t1")
        #expect(stored.last?.message.text == String(repeating: "0123456789", count: 9) + "01234")
        #expect(stored.last?.state == .partial)
    }

    @Test func theTextCapNeverSplitsACharacter() async throws {
        // "é" is two bytes: a cap of 5 bytes keeps two of them, not two and a half.
        let model = BufferedModel(events: [.textDelta("éé"), .textDelta("éé"), .finish(.stop)])
        let s = try setup(model, limits: AnswerLimits(maxTextBytes: 5))
        let outcome = try await s.ask("talk")
        #expect(outcome.error?.kind == .answerTooLong)
        #expect(try s.store.transcript(threadID: "t1").last?.message.text == "éé")
        #expect(TurnRecorder.prefix("aé", bytes: 2) == "a" && TurnRecorder.prefix("aé", bytes: 3) == "aé")
    }

    @Test func storingALongAnswerWritesLinearlyManyBytes() async throws {
        // 2 MB in 8,192 deltas. Rewriting the growing part every 16 deltas wrote ~512 MB.
        let delta = String(repeating: "abcdefgh", count: 32)
        let model = BufferedModel(events: Array(repeating: ChatEvent.textDelta(delta), count: 8_192) + [.finish(.stop)])
        let s = try setup(model)
        let meter = TurnRecorder.WriteMeter()
        let outcome = try await TurnRecorder.$meter.withValue(meter) { try await s.ask("talk") }
        #expect(outcome.phase == .completed && outcome.text.utf8.count == 2 << 20)
        #expect(meter.total <= 10 * (2 << 20), "wrote \(meter.total) bytes for a 2 MB answer")
        #expect(try s.store.transcript(threadID: "t1").last?.message.text.utf8.count == 2 << 20)
    }

    // MARK: - Stops and deadlines under a fast stream

    @Test func anInterruptDoesNotDrainWhatTheStreamBuffered() async throws {
        let faults = InterruptOnFirstDelta()
        let model = BufferedModel(events: Array(repeating: ChatEvent.textDelta("x"), count: 50_000) + [.finish(.stop)])
        let s = try setup(model, faults: faults)
        faults.runner.withLock { $0 = s.runner }
        let outcome = try await s.ask("talk")
        #expect(outcome.phase == .suspended)
        // Before: every buffered delta was still recorded after the stop (50,000 characters).
        let text = try s.store.transcript(threadID: "t1").last?.message.text ?? ""
        #expect(text.count < 10, "recorded \(text.count) deltas after the interrupt")
    }

    @Test func aStreamThatNeverPausesEndsAtTheTurnDeadlineEvenIfNoTimerRuns() async throws {
        let clock = StarvedClock()
        let s = try setup(NeverIdleModel(clock: clock), clock: clock)
        let outcome = try await s.ask("talk")
        #expect(outcome.phase == .failed && outcome.error?.kind == .timeout)
        #expect(outcome.error?.line.contains("One model turn took longer than 90 s") == true)
        #expect(clock.monotonic() == 90)
        #expect(try s.store.transcript(threadID: "t1").last?.message.text == String(repeating: "tick ", count: 89))
    }

    // MARK: - Tool calls

    @Test func aCallOverTheArgumentCapIsRejectedAndItsArgumentsAreNotStored() async throws {
        let big = #"{"query":""# + String(repeating: "q", count: 200) + #""}"#
        let clock = VirtualClock()
        let model = ScriptedChatModel(clock: clock)
        model.enqueue(ScriptedTurn([.toolCall(id: "c1", name: "lookup", arguments: big), .toolCall(id: "c2", name: "lookup", arguments: #"{"query":"ok"}"#)]),
                      .text("done"))
        let s = try setup(model, limits: AnswerLimits(maxArgumentBytes: 100), clock: clock)
        let outcome = try await s.ask("look")
        #expect(outcome.phase == .completed)
        #expect(s.lookups.count == 1)
        let calls = try storedCalls(s.queue)
        #expect(calls.map(\.id) == ["c1", "c2"])
        #expect(!calls[0].arguments.contains("qqqq") && calls[0].arguments.contains("_ofj_rejected"))
        let results = try storedResults(s.queue)
        #expect(results["c1"]?.contains("its arguments were over 100 bytes") == true)
        #expect(results["c2"] == #"{"found":true}"#)
        // The next request carries the marker, never the big arguments, and pairs every call.
        let next = try #require(model.requests.last)
        expectWellFormed(model.requests)
        #expect(!next.messages.flatMap(\.toolCalls).contains { $0.arguments.contains("qqqq") })
        #expect(next.results["c1"]?.isError == true)
    }

    @Test func theTurnsArgumentTotalAndCallCountAreCapped() async throws {
        let args = #"{"query":"0123456789012345678901234567890123456789"}"# // 51 bytes
        let clock = VirtualClock()
        let model = ScriptedChatModel(clock: clock)
        model.enqueue(ScriptedTurn((1...5).map { ScriptedTurn.Step.toolCall(id: "c\($0)", name: "lookup", arguments: $0 == 4 ? "{}" : args) }),
                      .text("done"))
        let s = try setup(model, limits: AnswerLimits(maxArgumentBytes: 100, maxTurnArgumentBytes: 120, maxCalls: 4), clock: clock)
        let outcome = try await s.ask("look")
        #expect(outcome.phase == .completed)
        let results = try storedResults(s.queue)
        #expect(results["c1"] == #"{"found":true}"# && results["c2"] == #"{"found":true}"#)
        #expect(results["c3"]?.contains("together passed 120 bytes") == true) // 153 > 120
        #expect(results["c4"] == #"{"found":true}"#) // "{}" still fits
        #expect(results["c5"]?.contains("at most 4 tool calls") == true)
        #expect(s.lookups.count == 3)
        expectWellFormed(model.requests)
    }

    @Test func farTooManyCallsStopTheAnswer() async throws {
        let clock = VirtualClock()
        let model = ScriptedChatModel(clock: clock)
        model.enqueue(ScriptedTurn((1...10).map { ScriptedTurn.Step.toolCall(id: "c\($0)", name: "lookup", arguments: "{}") }))
        let s = try setup(model, limits: AnswerLimits(maxCalls: 2, stopAfterCalls: 5), clock: clock)
        let outcome = try await s.ask("look")
        #expect(outcome.phase == .failed && outcome.error?.kind == .answerTooLong)
        #expect(outcome.error?.line.contains("more than 5 tool calls") == true)
        #expect(try storedCalls(s.queue).count == 5)
        #expect(s.lookups.count == 0) // a failed answer runs none of its calls
    }

    @Test func aRepeatedCallIDIsRejectedUnderItsOwnID() async throws {
        let clock = VirtualClock()
        let model = ScriptedChatModel(clock: clock)
        model.enqueue(ScriptedTurn([.toolCall(id: "c1", name: "lookup", arguments: #"{"query":"a"}"#),
                                    .toolCall(id: "c1", name: "lookup", arguments: #"{"query":"b"}"#),
                                    .toolCall(id: "c1_dup2", name: "lookup", arguments: #"{"query":"c"}"#)]),
                      .text("done"))
        let s = try setup(model, clock: clock)
        let outcome = try await s.ask("look")
        #expect(outcome.phase == .completed)
        #expect(s.lookups.count == 1) // the first c1 only; before, it ran once and was reported twice
        let calls = try storedCalls(s.queue)
        // The repeat gets a fresh id; a later call whose id is now taken is renamed (and refused) too.
        #expect(calls.map(\.id) == ["c1", "c1_dup2", "c1_dup2_dup2"])
        let results = try storedResults(s.queue)
        #expect(results["c1"] == #"{"found":true}"#)
        #expect(results["c1_dup2"]?.contains("reused the id of an earlier call") == true)
        #expect(results["c1_dup2_dup2"]?.contains("reused the id") == true)
        let next = try #require(model.requests.last)
        expectWellFormed(model.requests)
        let assistantCalls = next.messages.flatMap(\.toolCalls).map(\.id)
        #expect(assistantCalls == ["c1", "c1_dup2", "c1_dup2_dup2"])
        #expect(next.messages.flatMap(\.toolResults).map(\.callID) == ["c1", "c1_dup2", "c1_dup2_dup2"])
    }

    @Test func aRejectedWriteIsNeitherAskedNorWritten() async throws {
        let clock = VirtualClock()
        let model = ScriptedChatModel(clock: clock)
        model.enqueue(ScriptedTurn([.toolCall(id: "w1", name: "add_entry", arguments: #"{"item":"oats","grams":40}"#),
                                    .toolCall(id: "w1", name: "add_entry", arguments: #"{"item":"oats","grams":40}"#)]),
                      .text("done"))
        let s = try setup(model, clock: clock)
        _ = try await s.ask("log")
        #expect(try count(s.queue, "SELECT COUNT(*) FROM test_entries") == 1)
        #expect(try count(s.queue, "SELECT COUNT(*) FROM agent_approvals") == 1)
        #expect(try storedResults(s.queue)["w1_dup2"]?.contains("reused the id") == true)
    }

    @Test func theRejectionMarkerIsRecognisedOnlyWhole() {
        let reason = "not run: too big"
        #expect(RejectedCall.reason(ToolCall(id: "a", name: "n", arguments: RejectedCall.arguments(reason))) == reason)
        #expect(RejectedCall.reason(ToolCall(id: "a", name: "n", arguments: #"{"_ofj_rejected":"x","query":"y"}"#)) == nil)
        #expect(RejectedCall.reason(ToolCall(id: "a", name: "n", arguments: #"{"query":"_ofj_rejected"}"#)) == nil)
    }
}
