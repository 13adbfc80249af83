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
