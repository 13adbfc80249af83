// Request normalisation: one result per call, orphans dropped, continuations only to their family.
import Testing
@testable import Agent

@Suite struct NormalizerTests {
    let call1 = ToolCall(id: "c1", name: "lookup", arguments: "{}")
    let call2 = ToolCall(id: "c2", name: "lookup", arguments: "{}")

    @Test func missingResultsBecomeInterruptedAndOrphansAreDropped() {
        let messages: [Message] = [
            .user("hi"),
            Message(role: .tool, parts: [.toolResult(ToolResult(callID: "ghost", name: "lookup", content: "{}"))]),
            Message(role: .assistant, parts: [.text("checking"), .toolCall(call1), .toolCall(call2)]),
            Message(role: .tool, parts: [.toolResult(ToolResult(callID: "c2", name: "lookup", content: "two")),
                                         .toolResult(ToolResult(callID: "zz", name: "lookup", content: "orphan"))]),
            Message(role: .tool, parts: [.toolResult(ToolResult(callID: "c2", name: "lookup", content: "duplicate"))]),
            .user("next"),
        ]
        #expect(!RequestNormalizer.violations(messages).isEmpty)
        let out = RequestNormalizer.normalize(messages, continuationFamily: "x")
        #expect(RequestNormalizer.violations(out).isEmpty)
        #expect(out.count == 4)
        let results = out[2].toolResults
        #expect(results.map(\.callID) == ["c1", "c2"]) // call order
        #expect(results[0].isError && results[0].content == RequestNormalizer.interruptedResult)
        #expect(results[1].content == "two")
    }

    @Test func continuationItemsGoOnlyToTheirFamily() {
        let item = ContinuationItem(provider: "gemini", kind: "thought_signature", payload: "sig")
        let messages: [Message] = [.user("hi"), Message(role: .assistant, parts: [.continuation(item), .text("a")]),
                                   Message(role: .assistant, parts: [.continuation(item)])]
        let same = RequestNormalizer.normalize(messages, continuationFamily: "gemini")
        #expect(same.count == 3 && same[1].parts.first == .continuation(item))
        let other = RequestNormalizer.normalize(messages, continuationFamily: "anthropic")
        #expect(other.count == 2) // the message holding only a foreign item is dropped
        #expect(other[1].parts == [.text("a")])
    }

    @Test func duplicateCallIDsInOneMessageKeepTheFirst() {
        let messages: [Message] = [Message(role: .assistant, parts: [.toolCall(call1), .toolCall(call1)])]
        let out = RequestNormalizer.normalize(messages, continuationFamily: "x")
        #expect(out[0].toolCalls.count == 1)
        #expect(out[1].toolResults.count == 1)
        #expect(RequestNormalizer.violations(out).isEmpty)
    }
}

@Suite struct NormalizerPropertyTests {
    /// A small deterministic generator (SplitMix64), so failures reproduce.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test(arguments: 0..<200)
    func normalisedTranscriptsAreAlwaysWellFormed(seed: Int) {
        var rng = SplitMix(state: UInt64(seed))
        var messages: [Message] = []
        var ids: [String] = []
        for _ in 0..<Int.random(in: 1...12, using: &rng) {
            switch Int.random(in: 0..<4, using: &rng) {
            case 0:
                messages.append(.user("u"))
            case 1:
                var parts: [MessagePart] = []
                for _ in 0..<Int.random(in: 0...3, using: &rng) {
                    let id = "c\(Int.random(in: 0..<6, using: &rng))"
                    ids.append(id)
                    parts.append(Bool.random(using: &rng) ? .toolCall(ToolCall(id: id, name: "t", arguments: "{}")) : .text("a"))
                }
                if Bool.random(using: &rng) {
                    parts.append(.continuation(ContinuationItem(provider: Bool.random(using: &rng) ? "x" : "y", kind: "k", payload: "p")))
                }
                messages.append(Message(role: .assistant, parts: parts))
            default:
                let id = ids.randomElement(using: &rng) ?? "orphan"
                messages.append(Message(role: .tool, parts: [.toolResult(ToolResult(callID: Bool.random(using: &rng) ? id : "zz", name: "t", content: "r"))]))
            }
        }
        let out = RequestNormalizer.normalize(messages, continuationFamily: "x")
        #expect(RequestNormalizer.violations(out).isEmpty, "seed \(seed): \(out)")
        // Nothing the model said is lost: every distinct call of every assistant message survives.
        let callsIn = messages.filter { $0.role == .assistant }.map { Set($0.toolCalls.map(\.id)) }.filter { !$0.isEmpty }
        let callsOut = out.filter { $0.role == .assistant }.map { Set($0.toolCalls.map(\.id)) }.filter { !$0.isEmpty }
        #expect(callsIn == callsOut, "seed \(seed)")
        #expect(!out.flatMap(\.parts).contains { if case .continuation(let c) = $0 { return c.provider != "x" } else { return false } })
        // Normalising twice changes nothing.
        #expect(RequestNormalizer.normalize(out, continuationFamily: "x") == out)
    }
}
