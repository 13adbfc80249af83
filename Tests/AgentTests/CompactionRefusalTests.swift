// Compaction that cannot erase a thread: a summary cut off by its length limit, mostly markup, or
// repeating itself is refused, the originals stay in the request, and every compaction (or its
// refusal) is announced in one line.
import Testing
import SQLiteKit
@testable import Agent

@Suite struct CompactionRefusalTests {
    @Test func theValidatorRefusesSummariesThatAreNotSummaries() {
        let replaced = (0..<80).map { "Question \($0): what did I eat at lunch on day \($0 * 37 % 100)?" }.joined(separator: "\n")
        func check(_ s: String, cutOff: Bool = false) -> Result<String, CheckpointRejection> {
            CheckpointValidator.validate(s, replacedText: replaced, maxCharacters: 12_000, idExists: nil, cutOff: cutOff)
        }
        let good = "The person tracks lunches and asked about several days; re-read what was logged with tools."
        #expect(check(good) == .success(good))
        #expect(check(good, cutOff: true) == .failure(.cutOff))
        let markup = String(repeating: "<|im_end|>user\n", count: 200)
        #expect(check(markup) == .failure(.markup))
        #expect(check("Summary: <start_of_turn>model <end_of_turn> <|eot_id|><|start_header_id|>assistant<|end_header_id|>") == .failure(.markup))
        #expect(check(String(repeating: "The person asked about lunch again. ", count: 30)) == .failure(.repetitive))
        #expect(check(String(repeating: "lunchlunch", count: 50)) == .failure(.repetitive))
        #expect(check("Lunch.") == .failure(.tooShort(characters: 6)))
        // A short summary of a short stretch is fine.
        #expect(CheckpointValidator.validate("Asked about lunch.", replacedText: "What did I eat at lunch?", maxCharacters: 12_000, idExists: nil)
                == .success("Asked about lunch."))
        let rambling = (0..<300).map { "point \($0 * 7_919 % 10_000) on \(["eggs", "oats", "rice", "tea", "figs"][$0 % 5])" }.joined(separator: "; ")
        #expect(check(rambling) == .failure(.longerThanOriginal(characters: rambling.count, original: replaced.count)))
        // One marker in real prose is not "mostly markup".
        let prose = "The person pasted a chat log containing <|im_end|> once while asking about lunches on several days."
        #expect(check(prose) == .success(prose))
    }

    /// Talks until the first summarising request, then two more turns; returns the outcomes.
    func talkPastTheFirstSummary(_ f: ContextFixture) async throws -> Int {
        var i = 0
        while f.script.summaries == 0 && i < 30 {
            let (_, outcome) = try await f.harness.ask(ContextFixture.question(i))
            #expect(outcome.phase == .completed, "\(String(describing: outcome.error))")
            i += 1
        }
        return i
    }

    func compactionLines(_ f: ContextFixture) -> [String] {
        f.harness.events.compactMap { if case .compaction(let line) = $0.kind { return line } else { return nil } }
    }

    @Test(arguments: [SummaryBehaviour.cutOff, .markup, .repetitive])
    func aRefusedSummaryIsNotStoredAndTheOriginalsStayInUse(_ behaviour: SummaryBehaviour) async throws {
        let f = try ContextFixture()
        f.script.state.withLock { $0.behaviour = behaviour }
        let turns = try await talkPastTheFirstSummary(f)
        #expect(f.script.summaries == 1)
        // Nothing replaced the history: no checkpoint, and the request after the refusal still
        // carries the very first question.
        #expect(try f.harness.store.checkpoints(threadID: "t1").isEmpty)
        let after = try #require(f.ordinaryRequests.last)
        #expect(after.messages.first?.text == ContextFixture.question(0))
        #expect(after.messages.filter { $0.role == .user }.count == turns)
        #expect(!after.system.contains("Earlier in this conversation"))
        // One line said so, naming why; no error line.
        let lines = compactionLines(f)
        #expect(lines.count == 1)
        let reason = switch behaviour {
        case .cutOff: "cut off"
        case .markup: "markup"
        default: "repeated itself"
        }
        #expect(lines.first.map { $0.hasPrefix("Compaction skipped: ") && $0.contains(reason) && !$0.contains("\n") } == true, "\(lines)")
        #expect(!f.harness.events.contains { if case .error = $0.kind { return true } else { return false } })
        #expect(f.diagnostics.events.contains { $0.operation == .compaction && $0.status == "rejected" })
        // The next message (still within the budget) does not ask for another summary.
        let (_, outcome) = try await f.harness.ask(ContextFixture.question(turns))
        #expect(outcome.phase == .completed)
        if TokenEstimator.tokens(try #require(f.ordinaryRequests.last)) <= f.budget().usable {
            #expect(f.script.summaries == 1)
        }
        // The JSON event for `ofj ask --json`.
        let event = try #require(f.harness.events.first { if case .compaction = $0.kind { return true } else { return false } })
        #expect(event.json["type"] == "compaction")
        #expect(event.json["line"] == .string(lines[0]))
    }

    @Test func aRefusedSummaryNeverErasesTheThreadEvenWhenItKeepsGrowing() async throws {
        let f = try ContextFixture()
        f.script.state.withLock { $0.behaviour = .markup }
        let outcomes = try await f.talk(0..<24)
        #expect(outcomes.allSatisfy { $0.phase == .completed }, "\(outcomes.compactMap(\.error))")
        // No markup ever reached a request; when the request could no longer be sent whole, the
        // oldest turns were left out (and said so), never replaced by the refused text.
        #expect(!f.ordinaryRequests.contains { $0.system.contains("<|im_end|>") })
        #expect(try f.harness.store.checkpoints(threadID: "t1").allSatisfy { $0.kind == .pruned && $0.summary.isEmpty })
        for r in f.ordinaryRequests { #expect(TokenEstimator.tokens(r) <= f.budget().usable) }
        #expect(try f.harness.store.messageCount(threadID: "t1") == 48)
    }

    @Test func anAcceptedCompactionIsAnnouncedInOneLine() async throws {
        let f = try ContextFixture()
        _ = try await talkPastTheFirstSummary(f)
        // One compaction (here in two chunks, each building on the last): one line.
        let checkpoints = try f.harness.store.checkpoints(threadID: "t1")
        let latest = try #require(checkpoints.last)
        #expect(checkpoints.allSatisfy { $0.kind == .summary })
        let lines = compactionLines(f)
        #expect(lines.count == 1)
        #expect(lines.first.map { $0.hasPrefix("Compacted the older messages (up to #\(latest.toSeq))") && !$0.contains("\n") } == true,
                "\(lines)")
    }

    @Test func aFixedPartOverTheBudgetNeverCompactsTheThread() async throws {
        // 30 tool specs of ~110 tokens: the system prompt and tools alone are over the 80% mark
        // of a 4,000-token window. Summarising the messages cannot make that fit.
        let specs = (0..<30).map { i in
            LookupTool(name: "lookup_\(i)", description: String(repeating: "Looks up one kind of thing in the journal. ", count: 7))
        }
        let f = try ContextFixture(tools: specs)
        let outcomes = try await f.talk(0..<5)
        #expect(outcomes.allSatisfy { $0.phase == .completed }, "\(outcomes.compactMap(\.error))")
        let fixed = TokenEstimator.tokens(ToolRegistry(specs).specs)
        #expect(fixed > f.budget().compactionThreshold)
        #expect(f.script.summaries == 0)
        #expect(try f.harness.store.checkpoints(threadID: "t1").isEmpty)
        #expect(f.ordinaryRequests.last?.messages.first?.text == ContextFixture.question(0))
    }
}
