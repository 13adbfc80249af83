// Context management: budgets, compaction into validated checkpoints, pruning, overflow retry, /context, /compact.
import Foundation
import Synchronization
import Testing
import SQLiteKit
@testable import Agent

/// How the scripted model answers summarising requests in a test.
enum SummaryBehaviour: Sendable {
    case good
    /// Cites an id that appears nowhere.
    case fabricatedID
    case fail
    case empty
    /// Never answers (until cancelled).
    case stall
    /// A good text that stopped at the output limit (finish reason length).
    case cutOff
    /// A run of chat-template markers, as a small local model with the wrong template writes.
    case markup
    /// The same sentence over and over.
    case repetitive
}

/// A model that answers ordinary requests with a long text and summarising requests per `behaviour`;
/// it can fail one ordinary request with a context overflow.
final class ContextModelScript: Sendable {
    struct State {
        var behaviour: SummaryBehaviour = .good
        var overflowOnRequest: Int? = nil
        var ordinary = 0
        var summaries = 0
        var inputRatio: Double? = nil
        /// Ordinary requests answered with one lookup call before answering in text.
        var callsLeft = 0
    }
    let state = Mutex(State())
    let answer: String

    init(answerLength: Int = 400) { answer = String(repeating: "answer words ", count: answerLength / 13 + 1) }

    static func isSummaryRequest(_ r: ChatRequest) -> Bool { r.system == CompactingAssembler.compactionPrompt }

    func respond(_ request: ChatRequest) -> ScriptedTurn {
        if Self.isSummaryRequest(request) {
            let behaviour = state.withLock { s -> SummaryBehaviour in s.summaries += 1; return s.behaviour }
            let usage = ScriptedTurn.Step.usage(Usage(inputTokens: 900, outputTokens: 60))
            switch behaviour {
            case .good:
                return ScriptedTurn([.text("The person is planning meals; earlier topics were discussed. Re-read goals and totals with tools."), usage])
            case .fabricatedID:
                return ScriptedTurn([.text("Entry 9f1c2d3e-0000-4000-8000-123456789abc was logged."), usage])
            case .fail:
                return .failure(ChatError(.retryable, "server error 503", httpStatus: 503))
            case .empty:
                return ScriptedTurn([.text("   "), usage])
            case .stall:
                return ScriptedTurn([.stall])
            case .cutOff:
                return ScriptedTurn([.text("The person is planning meals; earlier topics were discussed, and then the person asked about"),
                                     usage, .finish(.length)])
            case .markup:
                return ScriptedTurn([.text(String(repeating: "<|im_end|>user\n<|im_start|>assistant\n", count: 60) + "Summary: meals."), usage])
            case .repetitive:
                return ScriptedTurn([.text(String(repeating: "The person asked about meals and the assistant answered about meals. ", count: 40)), usage])
            }
        }
        let (n, overflow, ratio, call) = state.withLock { s -> (Int, Int?, Double?, Bool) in
            s.ordinary += 1
            let call = s.callsLeft > 0
            if call { s.callsLeft -= 1 }
            return (s.ordinary, s.overflowOnRequest, s.inputRatio, call)
        }
        if call { return .calls(("call-\(n)", "lookup", #"{"query":"oats"}"#)) }
        if n == overflow { return .failure(ChatError(.contextOverflow, "prompt is too long", httpStatus: 400)) }
        var steps: [ScriptedTurn.Step] = [.text(answer)]
        if let ratio { steps.append(.usage(Usage(inputTokens: Int(Double(TokenEstimator.tokens(request)) * ratio), outputTokens: 100))) }
        return ScriptedTurn(steps)
    }

    var summaries: Int { state.withLock { $0.summaries } }
}

/// A harness with a `CompactingAssembler` over a small model window (4,000 tokens).
struct ContextFixture {
    let harness: Harness
    let assembler: CompactingAssembler
    let script: ContextModelScript
    let diagnostics = RecordingDiagnostics()
    var model: ScriptedChatModel { harness.model }

    static let limits = ModelLimits(contextWindow: 4_000, maxOutputTokens: 500)

    init(window: Int = 4_000, keepRecent: Int = 2, idExists: (@Sendable (String) -> Bool)? = nil, maxSummary: Int = 2_000,
         rounds: Int = 4, tools: [any Tool] = [LookupTool(), AddEntryTool()], compactionTimeout: Double = 60,
         provider: String = "scripted", source: ModelLimits.Source = .catalog) throws {
        let queue = try openDatabase()
        let clock = VirtualClock()
        let script = ContextModelScript()
        let model = ScriptedChatModel(clock: clock, provider: provider) { request, _ in script.respond(request) }
        let store = ConversationStore(queue: queue)
        let settings = ContextSettings(defaultBudget: .modelMaximum,
                                       limits: { _, _ in ModelLimits(contextWindow: window, maxOutputTokens: 500, source: source) },
                                       idExists: idExists, keepRecentTurns: keepRecent, maxSummaryCharacters: maxSummary,
                                       summaryMaxOutputTokens: 300, maxCompactionRounds: rounds,
                                       compactionTimeout: compactionTimeout)
        let assembler = CompactingAssembler(store: store, settings: settings, clock: clock, diagnostics: diagnostics)
        self.harness = try Harness(queue: queue, model: model, clock: clock, tools: tools, maxTurns: 12, assembler: assembler)
        self.assembler = assembler
        self.script = script
    }

    var ordinaryRequests: [ChatRequest] { model.requests.filter { !ContextModelScript.isSummaryRequest($0) } }
    var summaryRequests: [ChatRequest] { model.requests.filter(ContextModelScript.isSummaryRequest) }

    func budget() -> ContextBudget { ContextBudget(choice: .modelMaximum, limits: Self.limits, requestedOutput: 4_000) }

    /// A user message of about `tokens` tokens, numbered so it can be found again.
    static func question(_ i: Int, tokens: Int = 100) -> String {
        "Question \(i): " + String(repeating: "tell me more about food ", count: tokens * 4 / 24)
    }

    @discardableResult
    func talk(_ turns: Range<Int>, thread: String = "t1") async throws -> [RunOutcome] {
        var outcomes: [RunOutcome] = []
        for i in turns {
            let (_, outcome) = try await harness.ask(Self.question(i), thread: thread)
            outcomes.append(outcome)
        }
        return outcomes
    }
}

@Suite struct ContextTests {
    @Test func budgetsAreTheChosenSizeCappedByTheWindowMinusHeadroom() {
        let big = ModelLimits(contextWindow: 1_048_576, maxOutputTokens: 65_536)
        let b50 = ContextBudget(choice: .k50, limits: big, requestedOutput: 4_000)
        #expect(b50.limit == 50_000)
        #expect(b50.usable == 50_000 - 4_000 - 5_000)
        #expect(b50.compactionThreshold == b50.usable * 8 / 10)
        #expect(ContextBudget(choice: .k200, limits: big, requestedOutput: 4_000).limit == 200_000)
        #expect(ContextBudget(choice: .modelMaximum, limits: big, requestedOutput: 4_000).limit == 1_048_576)
        // A small local model: the window wins over the chosen size, the output limit over the request's.
        let small = ContextBudget(choice: .k200, limits: ModelLimits(contextWindow: 8_192, maxOutputTokens: 1_000), requestedOutput: 4_000)
        #expect(small.limit == 8_192)
        #expect(small.outputHeadroom == 1_000)
        #expect(small.usable == 8_192 - 1_000 - 819)
    }

    @Test func estimatesCountEveryPartOfARequest() {
        #expect(TokenEstimator.tokens("") == 0)
        #expect(TokenEstimator.tokens("abcd") == 1)
        #expect(TokenEstimator.tokens("abcde") == 2)
        let plain = ChatRequest(system: "s", messages: [.user("hi")], tools: [])
        let withTool = ChatRequest(system: "s", messages: [.user("hi")],
                                   tools: [ToolSpec(name: "lookup", description: "Looks up foods by name.", parameters: ["type": "object"])])
        let withCall = ChatRequest(system: "s", messages: [.user("hi"), Message(role: .assistant, parts: [.toolCall(ToolCall(id: "c1", name: "lookup", arguments: #"{"query":"egg"}"#))]),
                                                          Message(role: .tool, parts: [.toolResult(ToolResult(callID: "c1", name: "lookup", content: String(repeating: "x", count: 400)))])],
                                   tools: [])
        #expect(TokenEstimator.tokens(withTool) > TokenEstimator.tokens(plain))
        #expect(TokenEstimator.tokens(withCall) >= TokenEstimator.tokens(plain) + 100)
    }

    @Test func uuidScannerFindsIDsAndIgnoresLongerHexRuns() {
        let text = "entry 9F1C2D3E-0000-4000-8000-123456789ABC and food 11111111-2222-3333-4444-555555555555, again 9f1c2d3e-0000-4000-8000-123456789abc; "
            + "not a1111111-2222-3333-4444-5555555555556 nor x-11111111-2222-3333-4444-555555555555-y"
        #expect(UUIDScanner.ids(in: text) == ["9f1c2d3e-0000-4000-8000-123456789abc", "11111111-2222-3333-4444-555555555555"])
        #expect(UUIDScanner.ids(in: "no ids here 1234-5678").isEmpty)
    }

    @Test func checkpointCitingAnIDThatDoesNotExistIsRejected() {
        let known = "logged entry 11111111-2222-3333-4444-555555555555"
        let ok = CheckpointValidator.validate("Entry 11111111-2222-3333-4444-555555555555 was logged.", replacedText: known, maxCharacters: 500, idExists: nil)
        #expect(ok == .success("Entry 11111111-2222-3333-4444-555555555555 was logged."))
        let fabricated = "Entry 99999999-2222-3333-4444-555555555555 was logged."
        #expect(CheckpointValidator.validate(fabricated, replacedText: known, maxCharacters: 500, idExists: nil)
                == .failure(.unknownIDs(["99999999-2222-3333-4444-555555555555"])))
        // The database may know an id the replaced messages do not mention.
        #expect(CheckpointValidator.validate(fabricated, replacedText: known, maxCharacters: 500,
                                             idExists: { $0 == "99999999-2222-3333-4444-555555555555" }) == .success(fabricated))
        #expect(CheckpointValidator.validate(fabricated, replacedText: known, maxCharacters: 500, idExists: { _ in false }) != .success(fabricated))
        #expect(CheckpointValidator.validate("  \n ", replacedText: known, maxCharacters: 500, idExists: nil) == .failure(.empty))
        let foods = ["eggs", "oats", "rice", "tea", "figs", "bread", "plums"], meals = ["lunch", "dinner", "snacks", "breakfast"]
        let long = (0..<40).map { "\(foods[$0 % 7]) \($0 * 7_919 % 1_000) g at \(meals[$0 % 4])" }.joined(separator: ", ")
        #expect(CheckpointValidator.validate(long, replacedText: String(repeating: known, count: 40), maxCharacters: 500, idExists: nil)
                == .failure(.tooLong(characters: long.count, limit: 500)))
    }

    @Test func theOfflineAssistantGetsOnlyTheLastExchangeAndNeverCompacts() async throws {
        let f = try ContextFixture(provider: "offline")
        let outcomes = try await f.talk(0..<30)
        #expect(outcomes.allSatisfy { $0.phase == .completed && $0.error == nil }, "\(outcomes.compactMap(\.error))")
        #expect(f.summaryRequests.isEmpty)
        #expect(try f.harness.store.checkpoints(threadID: "t1").isEmpty)
        // Older turns keep only their user messages; the last exchange is whole.
        let last = try #require(f.ordinaryRequests.last)
        #expect(last.messages.filter { $0.role == .user }.count == 30)
        #expect(last.messages.filter { $0.role == .assistant }.count == 1)
        #expect(last.messages.last?.text == ContextFixture.question(29))
    }

    @Test func longThreadCrossingEightyPercentIsCompactedAndOriginalsStayIntact() async throws {
        let f = try ContextFixture()
        let outcomes = try await f.talk(0..<30)
        #expect(outcomes.allSatisfy { $0.phase == .completed }, "\(outcomes.compactMap(\.error))")
        let budget = f.budget()
        // Every request stayed within the hard limit; compaction happened, more than once.
        for r in f.ordinaryRequests { #expect(TokenEstimator.tokens(r) <= budget.usable) }
        let checkpoints = try f.harness.store.checkpoints(threadID: "t1")
        #expect(checkpoints.count >= 2)
        #expect(checkpoints.allSatisfy { $0.kind == .summary })
        #expect(f.summaryRequests.count == checkpoints.count)
        // Originals are untouched: 30 questions and 30 answers, in order, with their text.
        let transcript = try f.harness.store.transcript(threadID: "t1")
        #expect(transcript.count == 60)
        for i in 0..<30 { #expect(transcript[2 * i].message.text == ContextFixture.question(i)) }
        #expect(transcript.filter { $0.message.role == .assistant }.allSatisfy { $0.message.text == f.script.answer })
        // The last request carries the checkpoint and only the turns after it.
        let last = try #require(f.ordinaryRequests.last)
        let latest = try #require(checkpoints.last)
        #expect(last.system.hasPrefix("You are a test assistant."))
        #expect(last.system.contains(latest.summary))
        #expect(last.messages.count == transcript.filter { $0.seq > latest.toSeq }.count - 1) // all but its own answer
        #expect(!last.messages.contains { $0.text == ContextFixture.question(0) })
        #expect(last.messages.last?.text == ContextFixture.question(29))
        // Recent closed turns are kept verbatim after a compaction.
        #expect(last.messages.count >= 3)
        // The compaction prompt tells the model to leave journal facts to tools.
        let prompt = try #require(f.summaryRequests.first?.system)
        #expect(prompt.contains("re-read with tools"))
        #expect(prompt.contains("goals"))
        // A summariser gets no tools of any kind (adapters leave the provider's search out for
        // `.summary`), and no context note; the answers' requests are `.answer`.
        #expect(f.summaryRequests.allSatisfy { $0.tools.isEmpty && $0.purpose == .summary && $0.contextNote.isEmpty })
        #expect(f.ordinaryRequests.allSatisfy { $0.purpose == .answer && !$0.tools.isEmpty })
        // Compaction rounds are accounted (turn 0) with the answers.
        let totals = try f.harness.store.usageTotals(threadID: "t1")
        #expect(totals.rounds == checkpoints.count)
        #expect(totals.usage.inputTokens == 900 * checkpoints.count)
        expectWellFormed(f.ordinaryRequests)
    }

    @Test func aSecondCompactionBuildsOnTheFirstCheckpoint() async throws {
        let f = try ContextFixture()
        try await f.talk(0..<30)
        let summaries = f.summaryRequests
        #expect(summaries.count >= 2)
        let first = try #require(try f.harness.store.checkpoints(threadID: "t1").first)
        let second = try #require(summaries.dropFirst().first?.messages.first?.text)
        #expect(second.contains(first.summary))
        // It summarises only what came after the first checkpoint.
        #expect(!second.contains("Question 0:"))
    }

    @Test func fabricatedIDInSummaryIsRejectedAndOldTurnsArePrunedWithANotice() async throws {
        let f = try ContextFixture()
        f.script.state.withLock { $0.behaviour = .fabricatedID }
        let outcomes = try await f.talk(0..<24)
        #expect(outcomes.allSatisfy { $0.phase == .completed }, "\(outcomes.compactMap(\.error))")
        let checkpoints = try f.harness.store.checkpoints(threadID: "t1")
        #expect(!checkpoints.isEmpty)
        #expect(checkpoints.allSatisfy { $0.kind == .pruned && !$0.summary.contains("9f1c2d3e") })
        #expect(f.script.summaries >= 1)
        for r in f.ordinaryRequests {
            #expect(TokenEstimator.tokens(r) <= f.budget().usable)
            #expect(!r.system.contains("9f1c2d3e"))
        }
        let notices = f.harness.events.compactMap { e -> AgentError? in if case .error(let x) = e.kind { return x } else { return nil } }
        #expect(notices.count == checkpoints.count)
        #expect(notices.allSatisfy { $0.kind == .contextOverflow && !$0.line.contains("\n") && $0.line.contains("left out") })
        #expect(f.diagnostics.events.contains { $0.operation == .compaction && $0.status == "rejected" })
        #expect(try f.harness.store.messageCount(threadID: "t1") == 48)
        let last = try #require(f.ordinaryRequests.last)
        #expect(last.system.contains("left out to fit"))
    }

    @Test func theDatabaseCanVouchForAnIDTheTurnsDoNotMention() async throws {
        let f = try ContextFixture(idExists: { $0 == "9f1c2d3e-0000-4000-8000-123456789abc" })
        f.script.state.withLock { $0.behaviour = .fabricatedID }
        try await f.talk(0..<16)
        let checkpoints = try f.harness.store.checkpoints(threadID: "t1")
        #expect(!checkpoints.isEmpty)
        #expect(checkpoints.allSatisfy { $0.kind == .summary })
    }

    @Test func compactionFailureThenPruningKeepsTheThreadUsable() async throws {
        let f = try ContextFixture()
        f.script.state.withLock { $0.behaviour = .fail }
        let outcomes = try await f.talk(0..<20)
        #expect(outcomes.allSatisfy { $0.phase == .completed }, "\(outcomes.compactMap(\.error))")
        let checkpoints = try f.harness.store.checkpoints(threadID: "t1")
        #expect(checkpoints.contains { $0.kind == .pruned })
        for r in f.ordinaryRequests { #expect(TokenEstimator.tokens(r) <= f.budget().usable) }
        // Later, the model summarises again: the summary replaces the pruned stretch too.
        f.script.state.withLock { $0.behaviour = .good }
        try await f.talk(20..<40)
        let latest = try #require(try f.harness.store.latestCheckpoint(threadID: "t1"))
        #expect(latest.kind == .summary)
        #expect(try f.harness.store.messageCount(threadID: "t1") == 80)
    }

    @Test func aStalledSummaryTimesOutAndTheAnswerStillComes() async throws {
        // Longer than the model turn's 90 s: the summary's wait must not count against the turn.
        let f = try ContextFixture(compactionTimeout: 100)
        f.script.state.withLock { $0.behaviour = .stall }
        var outcomes: [RunOutcome] = []
        for i in 0..<20 where try f.harness.store.checkpoints(threadID: "t1").isEmpty {
            let handle = try f.harness.runner.submit(threadID: "t1", text: ContextFixture.question(i))
            // Virtual time moves only when the test moves it: step it while a summary is pending.
            var outcome: RunOutcome?
            for _ in 0..<1_000 where outcome == nil {
                if f.script.summaries > 0 { f.harness.clock.advance(by: 5) }
                try await Task.sleep(for: .milliseconds(2))
                let e = f.harness.events.first { if case .finished = $0.kind { return $0.runID == handle.runID } else { return false } }
                if let e, case .finished(let o) = e.kind { outcome = o }
            }
            outcomes.append(try #require(outcome))
        }
        #expect(f.script.summaries == 1)
        #expect(outcomes.allSatisfy { $0.phase == .completed }, "\(outcomes.compactMap(\.error))")
        let checkpoints = try f.harness.store.checkpoints(threadID: "t1")
        #expect(checkpoints.count == 1)
        #expect(checkpoints.first?.kind == .pruned)
        #expect(f.diagnostics.events.contains { $0.operation == .compaction && $0.status == "pruned" })
    }

    @Test func emptySummaryIsRejected() async throws {
        let f = try ContextFixture()
        f.script.state.withLock { $0.behaviour = .empty }
        try await f.talk(0..<16)
        let checkpoints = try f.harness.store.checkpoints(threadID: "t1")
        #expect(!checkpoints.isEmpty)
        #expect(checkpoints.allSatisfy { $0.kind == .pruned })
    }

    @Test func contextOverflowErrorTriggersCompactionAndOneRetry() async throws {
        let f = try ContextFixture()
        try await f.talk(0..<6) // below 80%: nothing compacted yet
        #expect(try f.harness.store.checkpoints(threadID: "t1").isEmpty)
        f.script.state.withLock { $0.overflowOnRequest = $0.ordinary + 1 }
        let (_, outcome) = try await f.harness.ask(ContextFixture.question(6))
        #expect(outcome.phase == .completed, "\(String(describing: outcome.error))")
        #expect(outcome.text == f.script.answer)
        let checkpoints = try f.harness.store.checkpoints(threadID: "t1")
        #expect(checkpoints.count == 1)
        #expect(checkpoints.first?.kind == .summary)
        let requests = f.ordinaryRequests
        let failed = requests[requests.count - 2], retried = requests[requests.count - 1]
        #expect(retried.messages.count < failed.messages.count)
        #expect(retried.system.contains(checkpoints[0].summary))
        // The estimate is trusted less after the provider said it was too long.
        #expect(try f.harness.store.estimateRatio(threadID: "t1") > 1)
        #expect(try f.harness.store.messageCount(threadID: "t1") == 14)
    }

    @Test func overflowWithNothingToCompactFailsWithOneLine() async throws {
        let f = try ContextFixture()
        f.script.state.withLock { $0.overflowOnRequest = 1 }
        let (_, outcome) = try await f.harness.ask(ContextFixture.question(0))
        #expect(outcome.phase == .failed)
        #expect(outcome.error?.kind == .contextOverflow)
        // The thread is not stuck: the next message is answered.
        let (_, next) = try await f.harness.ask(ContextFixture.question(1))
        #expect(next.phase == .completed)
    }

    @Test func aThreadPastTheHardLimitIsCompactedInChunksBeforeTheFirstRequest() async throws {
        let f = try ContextFixture(rounds: 12)
        // 120 stored messages written without a context manager (about 3x the window).
        try f.harness.queue.write { db in
            try ConversationStore.ensureThread(db, id: "t1", now: 0)
            for i in 0..<60 {
                try ConversationStore.insertMessage(db, threadID: "t1", runID: nil, role: .user, turn: nil, state: .complete,
                                                    parts: [.text(ContextFixture.question(i))], now: 0)
                try ConversationStore.insertMessage(db, threadID: "t1", runID: nil, role: .assistant, turn: 1, state: .complete,
                                                    parts: [.text(f.script.answer)], now: 0)
            }
        }
        let (_, outcome) = try await f.harness.ask(ContextFixture.question(60))
        #expect(outcome.phase == .completed)
        let checkpoints = try f.harness.store.checkpoints(threadID: "t1")
        #expect(checkpoints.count >= 2) // chunked: each summary built on the last
        #expect(checkpoints.allSatisfy { $0.kind == .summary })
        let request = try #require(f.ordinaryRequests.last)
        #expect(TokenEstimator.tokens(request) <= f.budget().usable)
        #expect(try f.harness.store.messageCount(threadID: "t1") == 122)
        for s in f.summaryRequests { #expect(TokenEstimator.tokens(s) + 300 <= f.budget().usable) }
    }

    @Test func aBacklogLongerThanTheSummaryRoundsLeavesOutItsOldestPartAndSummarisesTheRest() async throws {
        // Regression (tools/big-thread.sh, 100,000 messages): the rounds summarised the oldest
        // turns, then gave up and left out everything after them, so the summary described the
        // start of the thread and the recent past was dropped.
        let f = try ContextFixture(rounds: 1)
        try f.harness.queue.write { db in
            try ConversationStore.ensureThread(db, id: "t1", now: 0)
            for i in 0..<60 {
                try ConversationStore.insertMessage(db, threadID: "t1", runID: nil, role: .user, turn: nil, state: .complete,
                                                    parts: [.text(ContextFixture.question(i))], now: 0)
                try ConversationStore.insertMessage(db, threadID: "t1", runID: nil, role: .assistant, turn: 1, state: .complete,
                                                    parts: [.text(f.script.answer)], now: 0)
            }
        }
        let (_, outcome) = try await f.harness.ask(ContextFixture.question(60))
        #expect(outcome.phase == .completed)
        let checkpoints = try f.harness.store.checkpoints(threadID: "t1")
        #expect(checkpoints.map(\.kind) == [.pruned, .summary])
        let (pruned, summary) = (checkpoints[0], checkpoints[1])
        #expect(pruned.fromSeq == 1 && pruned.summary.isEmpty)
        #expect(summary.fromSeq == pruned.toSeq + 1) // the summary covers the turns right before the kept ones
        #expect(f.summaryRequests.count == 1)
        let request = try #require(f.ordinaryRequests.last)
        #expect(TokenEstimator.tokens(request) <= f.budget().usable)
        // What was summarised is the most recent part of the backlog, not its start.
        let rendered = f.summaryRequests[0].messages.map(\.text).joined()
        #expect(!rendered.contains("Question 0:"))
    }

    @Test func manyLargeToolResultsInOneAnswerAreShortenedInTheRequestOnly() async throws {
        let f = try ContextFixture(tools: [LookupTool(resultSize: 3_000)])
        f.script.state.withLock { $0.callsLeft = 6 }
        let (_, outcome) = try await f.harness.ask(ContextFixture.question(0))
        #expect(outcome.phase == .completed, "\(String(describing: outcome.error))")
        let requests = f.ordinaryRequests
        #expect(requests.count == 7)
        for r in requests { #expect(TokenEstimator.tokens(r) <= f.budget().usable) }
        let last = try #require(requests.last)
        let results = last.messages.flatMap(\.toolResults)
        #expect(results.count == 6)
        #expect(results.first?.content.hasSuffix(CompactingAssembler.shortenedNote) == true)
        #expect(results.last?.content.count == 3_000) // the newest result is whole
        // Stored results stay whole.
        let stored = try f.harness.store.transcript(threadID: "t1").flatMap(\.message.toolResults)
        #expect(stored.count == 6)
        #expect(stored.allSatisfy { $0.content.count == 3_000 })
        expectWellFormed(requests)
    }

    @Test func estimatesAreCorrectedByTheProvidersCount() async throws {
        let f = try ContextFixture()
        f.script.state.withLock { $0.inputRatio = 2 }
        try await f.talk(0..<2)
        let ratio = try f.harness.store.estimateRatio(threadID: "t1")
        #expect(abs(ratio - 2) < 0.05)
        // With the estimate doubled, compaction starts after about half as many turns.
        try await f.talk(2..<8)
        #expect(!(try f.harness.store.checkpoints(threadID: "t1")).isEmpty)
    }

    @Test func manualCompactAndContextReport() async throws {
        let f = try ContextFixture(window: 200_000)
        try await f.talk(0..<6)
        let system = "You are a test assistant."
        let before = try f.assembler.report(threadID: "t1", model: f.model, systemPrompt: system, tools: [], maxOutputTokens: 4_000)
        #expect(before.contains("No checkpoints"))
        #expect(before.contains("12 message(s)"))
        #expect(before.contains("200,000"))
        let meter = try f.assembler.meter(threadID: "t1", model: f.model, systemPrompt: system, tools: [], maxOutputTokens: 4_000)
        #expect(meter.usable == ContextBudget(choice: .modelMaximum, limits: ModelLimits(contextWindow: 200_000, maxOutputTokens: 500),
                                              requestedOutput: 4_000).usable)
        #expect(meter.estimate > 12 * 100 && meter.estimate < meter.usable)
        let line = try await f.assembler.compact(threadID: "t1", focus: "keep the breakfast ideas", model: f.model, systemPrompt: system,
                                                 tools: [], maxOutputTokens: 4_000)
        #expect(line.hasPrefix("Compacted messages up to #8"))
        let focusRequest = try #require(f.summaryRequests.last?.messages.first?.text)
        #expect(focusRequest.contains("keep the breakfast ideas"))
        let after = try f.assembler.report(threadID: "t1", model: f.model, systemPrompt: system, tools: [], maxOutputTokens: 4_000)
        #expect(after.contains("checkpoint #1"))
        #expect(after.contains("4 message(s)"))
        #expect(after.split(separator: "\n").count >= 4)
        // The next answer carries the checkpoint.
        try await f.talk(6..<7)
        #expect(f.ordinaryRequests.last?.system.contains("Summary of the earlier messages") == true)
    }

    /// Attachments survive compaction: their rows stay, and the checkpoint names them.
    @Test func aCompactedAttachmentIsKeptAndNamedByTheCheckpoint() async throws {
        let f = try ContextFixture(window: 200_000)
        let first = try f.harness.runner.submit(threadID: "t1", text: ContextFixture.question(0), attachments: [ref(tinyPNG(), name: "label.png")])
        _ = await f.harness.runner.outcome(of: first.runID)
        try await f.talk(1..<6)
        _ = try await f.assembler.compact(threadID: "t1", focus: "", model: f.model, systemPrompt: "s", tools: [], maxOutputTokens: 4_000)
        try await f.talk(6..<7)
        let system = try #require(f.ordinaryRequests.last?.system)
        #expect(system.contains("Files attached in the summarised messages"))
        #expect(system.contains("- a1: PNG image \"label.png\""))
        #expect(try count(f.harness.queue, "SELECT COUNT(*) FROM attachments") == 1)
        #expect(f.ordinaryRequests.last?.messages.allSatisfy { $0.attachments.isEmpty } == true)
    }

    @Test func manualCompactFailureChangesNothing() async throws {
        let f = try ContextFixture(window: 200_000)
        try await f.talk(0..<5)
        f.script.state.withLock { $0.behaviour = .fabricatedID }
        await #expect(throws: AgentError.self) {
            try await f.assembler.compact(threadID: "t1", focus: "", model: f.model, systemPrompt: "s", tools: [], maxOutputTokens: 4_000)
        }
        #expect(try f.harness.store.checkpoints(threadID: "t1").isEmpty)
        let short = try ContextFixture(window: 200_000)
        try await short.talk(0..<2)
        let line = try await short.assembler.compact(threadID: "t1", focus: "", model: short.model, systemPrompt: "s", tools: [], maxOutputTokens: 4_000)
        #expect(line.hasPrefix("Nothing to compact yet"))
    }

    @Test func assemblyReadsOnlyMessagesAfterTheLatestCheckpoint() async throws {
        let f = try ContextFixture(window: 200_000)
        try await f.talk(0..<4)
        _ = try f.harness.queue.write { db in
            try ConversationStore.insertCheckpoint(db, threadID: "t1", kind: .summary, fromSeq: 1, toSeq: 6, summary: "earlier: meal plans",
                                                   provider: "scripted", model: "scripted-1", now: 0)
        }
        let plan = try f.assembler.makePlan(.init(threadID: "t1", systemPrompt: "s", tools: [], maxOutputTokens: 100, model: f.model, runID: nil))
        #expect(plan.messages.map(\.seq) == [7, 8])
        #expect(plan.checkpoint?.summary == "earlier: meal plans")
    }

    @Test func aTinyWindowFullOfToolSpecsDoesNotCompactEveryTurn() async throws {
        // 20 tool specs of ~110 tokens each take most of a 4,000-token window.
        let specs = (0..<20).map { i in
            LookupTool(name: "lookup_\(i)", description: String(repeating: "Looks up one kind of thing in the journal. ", count: 5))
        }
        let f = try ContextFixture(tools: specs)
        try await f.talk(0..<8)
        // Over 80% from the first turn, but the closed turns are too small to be worth a summary.
        #expect(f.script.summaries <= 3, "\(f.ordinaryRequests.map { TokenEstimator.tokens($0) })") // without the guard: one every turn from the second
        for r in f.ordinaryRequests { #expect(TokenEstimator.tokens(r) <= f.budget().usable) }
    }

    @Test func budgetChoicePerThread() throws {
        let f = try ContextFixture(window: 1_000_000)
        #expect(try f.harness.store.contextBudget(threadID: "t9") == nil)
        try f.harness.store.setContextBudget(.k50, threadID: "t9", now: 1)
        #expect(try f.harness.store.contextBudget(threadID: "t9") == .k50)
        let plan = try f.assembler.makePlan(.init(threadID: "t9", systemPrompt: "s", tools: [], maxOutputTokens: 100, model: f.model, runID: nil))
        #expect(plan.budget.limit == 50_000)
        let other = try f.assembler.makePlan(.init(threadID: "t8", systemPrompt: "s", tools: [], maxOutputTokens: 100, model: f.model, runID: nil))
        #expect(other.budget.limit == 1_000_000)
    }

    @Test func usageTotalsPerThreadAndPerDay() throws {
        let queue = try openDatabase()
        let store = ConversationStore(queue: queue)
        let day = 86_400.0 * 20_000
        try queue.write { db in
            for t in ["a", "b"] { try ConversationStore.ensureThread(db, id: t, now: day) }
            let rows: [(String, Double, Int, Int, Double?)] = [("a", day + 10, 100, 10, 0.5), ("a", day + 20, 200, 20, nil),
                                                               ("b", day + 30, 300, 30, 0.25), ("b", day - 10, 1_000, 1, 9)]
            for (t, at, input, output, cost) in rows {
                try db.execute("""
                    INSERT INTO agent_usage (thread_id, run_id, turn, provider, model, input_tokens, cached_input_tokens, output_tokens,
                        reasoning_tokens, cost_usd, created_at) VALUES (?, 'r', 1, 'p', 'm', ?, 5, ?, 1, ?, ?)
                    """, [t, input, output, cost, at])
            }
        }
        let a = try store.usageTotals(threadID: "a")
        #expect(a == UsageTotals(rounds: 2, usage: Usage(inputTokens: 300, cachedInputTokens: 10, outputTokens: 30, reasoningTokens: 2),
                                 costUSD: 0.5, roundsWithoutCost: 1))
        let today = try store.usageTotals(dayContaining: day + 3_600, secondsFromGMT: 0)
        #expect(today.rounds == 3)
        #expect(today.usage.inputTokens == 600)
        #expect(abs(today.costUSD - 0.75) < 1e-9)
        // Two hours east of UTC, the row 10 s before UTC midnight is on the same local day.
        #expect(try store.usageTotals(dayContaining: day + 3_600, secondsFromGMT: 7_200).rounds == 4)
    }
}
