// Tests for the SSE parser: every grammar rule, and split-invariance over every or many chunkings.
import Foundation
import Testing
import HTTP
import TestSupport

private func parseAll(_ text: String) -> [SSEEvent] {
    parseChunks([Array(text.utf8)])
}

private func parseChunks(_ chunks: [[UInt8]]) -> [SSEEvent] {
    var p = SSEParser()
    var out: [SSEEvent] = []
    for c in chunks { out += p.feed(c) }
    out += p.finish()
    return out
}

@Suite struct SSEParserGrammarTests {
    @Test func lfFramedEventsWithNamesAndIDs() {
        let events = parseAll("event: add\nid: 7\ndata: {\"a\":1}\n\ndata: second\n\n")
        #expect(events == [SSEEvent(event: "add", data: "{\"a\":1}", id: "7"), SSEEvent(event: "message", data: "second", id: "7")])
    }

    @Test func crlfAndBareCRLineEnds() {
        #expect(parseAll("data: a\r\n\r\ndata: b\r\n\r\n").map(\.data) == ["a", "b"])
        #expect(parseAll("data: a\r\rdata: b\r\r").map(\.data) == ["a", "b"])
        #expect(parseAll("data: a\r\ndata: b\n\r\n").map(\.data) == ["a\nb"])
    }

    @Test func crAtChunkEndFollowedByLFIsOneLineEnd() {
        // If the split CRLF counted twice, the empty "line" between would dispatch "a" alone.
        let events = parseChunks([Array("data: a\r".utf8), Array("\ndata: b\r".utf8), Array("\n\r".utf8), Array("\n".utf8)])
        #expect(events.map(\.data) == ["a\nb"])
    }

    @Test func emptyChunksAnywhereChangeNothing() {
        let events = parseChunks([Array("data: a\r".utf8), [], Array("\ndata: b\r".utf8), [], [], Array("\n\r".utf8), [], Array("\n".utf8), []])
        #expect(events.map(\.data) == ["a\nb"])
        #expect(parseChunks([[], [0xEF], [], [0xBB, 0xBF], Array("data: x\n\n".utf8)]).map(\.data) == ["x"])
    }

    @Test func crAtChunkEndFollowedByOtherText() {
        let events = parseChunks([Array("data: a\r".utf8), Array("data: b\r\r".utf8)])
        #expect(events.map(\.data) == ["a\nb"])
    }

    @Test func commentsAreSkippedAnywhere() {
        let text = ": OPENROUTER PROCESSING\n\n:\ndata: x\n: inside\ndata: y\n\n: trailing\n"
        var p = SSEParser()
        let events = p.feed(Array(text.utf8)) + p.finish()
        #expect(events.map(\.data) == ["x\ny"])
        #expect(!p.sawNonSSEText)
    }

    @Test func multiLineDataAndValueSpacing() {
        #expect(parseAll("data:first\ndata:  second\ndata\ndata:\n\n").map(\.data) == ["first\n second\n\n"])
        #expect(parseAll("data: {\"type\":\"message_stop\"   }\n\n").map(\.data) == ["{\"type\":\"message_stop\"   }"])
    }

    @Test func colonInsideValueIsKept() {
        #expect(parseAll("data: a: b: c\n\n").map(\.data) == ["a: b: c"])
    }

    @Test func eventWithoutDataIsNotDispatchedAndNameResets() {
        let events = parseAll("event: ping\n\ndata: x\n\n")
        #expect(events == [SSEEvent(event: "message", data: "x")])
    }

    @Test func emptyDataLineDispatchesEmptyString() {
        #expect(parseAll("data:\n\n").map(\.data) == [""])
        #expect(parseAll("data\n\n").map(\.data) == [""])
    }

    @Test func idIsStickyAndIgnoredWhenItHoldsNUL() {
        let events = parseAll("id: 1\ndata: a\n\ndata: b\n\nid: x\u{0}y\ndata: c\n\nid\ndata: d\n\n")
        #expect(events.map(\.id) == ["1", "1", "1", ""])
    }

    @Test func retryIsIgnoredWithoutCountingAsForeignText() {
        var p = SSEParser()
        let events = p.feed(Array("retry: 3000\ndata: a\n\n".utf8)) + p.finish()
        #expect(events.map(\.data) == ["a"])
        #expect(!p.sawNonSSEText)
    }

    @Test func unknownFieldsAreIgnoredButReported() {
        var p = SSEParser()
        let events = p.feed(Array("foo: bar\ndata: a\n\n".utf8)) + p.finish()
        #expect(events.map(\.data) == ["a"])
        #expect(p.sawNonSSEText)
        #expect(p.nonSSEText == "foo: bar\n")
    }

    @Test func bareJSONErrorIsCapturedAsNonSSEText() throws {
        let body = "data: {\"candidates\":[]}\r\n\r\n{\n  \"error\": {\n    \"code\": 500,\n    \"message\": \"Internal error\"\n  }\n}\n"
        var p = SSEParser()
        let events = p.feed(Array(body.utf8)) + p.finish()
        #expect(events.map(\.data) == ["{\"candidates\":[]}"])
        #expect(p.sawNonSSEText)
        #expect(p.nonSSEText.contains("\"message\": \"Internal error\""))
        #expect(p.nonSSEText.hasPrefix("{\n"))
    }

    @Test func byteOrderMarkAtStartIsSkippedEvenWhenSplit() {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let body = bom + Array("data: a\n\n".utf8)
        #expect(parseChunks([body]).map(\.data) == ["a"])
        #expect(parseChunks([[0xEF], [0xBB], [0xBF] + Array("data: a\n\n".utf8)]).map(\.data) == ["a"])
        #expect(parseChunks([[0xEF, 0xBB], Array([0xBF] + Array("data: a\n\n".utf8))]).map(\.data) == ["a"])
    }

    @Test func bomLaterInTheStreamIsData() {
        let events = parseChunks([Array("data: a\n\ndata: ".utf8) + [0xEF, 0xBB, 0xBF] + Array("b\n\n".utf8)])
        #expect(events.map(\.data) == ["a", "\u{FEFF}b"])
    }

    @Test func shortStreamsThatStartLikeABOM() {
        #expect(parseChunks([[0xEF], Array("\n".utf8)]).isEmpty)
        #expect(parseChunks([Array("da".utf8), Array("ta: x\n\n".utf8)]).map(\.data) == ["x"])
        #expect(parseChunks([Array("d".utf8)]).isEmpty)
    }

    @Test func finishDispatchesAnUnterminatedEvent() {
        #expect(parseAll("data: a\n\ndata: last").map(\.data) == ["a", "last"])
        #expect(parseAll("data: a\n\ndata: last\n").map(\.data) == ["a", "last"])
        #expect(parseAll("data: a\r").map(\.data) == ["a"])
    }

    @Test func noRelianceOnDoneSentinel() {
        // [DONE] is just data to the parser; streams without it still yield every event.
        #expect(parseAll("data: {}\n\ndata: [DONE]\n\n").map(\.data) == ["{}", "[DONE]"])
        #expect(parseAll("data: {}\n\n").map(\.data) == ["{}"])
    }

    @Test func utf8SplitInsideAMultiByteCharacter() {
        let bytes = Array("data: Füße 🍓\n\n".utf8)
        for cut in 1..<bytes.count {
            #expect(parseChunks([Array(bytes[..<cut]), Array(bytes[cut...])]).map(\.data) == ["Füße 🍓"])
        }
    }

    @Test func feedAcceptsNonContiguousCollections() {
        var p = SSEParser()
        let events = p.feed(Array("data: a\n\n".utf8).reversed().reversed()) + p.finish()
        #expect(events.map(\.data) == ["a"])
    }
}

@Suite struct SSEParserSplitInvarianceTests {
    static let mixed = "\u{FEFF}: hello\r\nevent: one\r\nid: 1\r\ndata: {\"a\": 1}\r\n\r\ndata: line1\rdata: line2\r\r"
        + "event: two\ndata: x\ndata:\n\nretry: 10\nfoo: bar\ndata: end\n\n"

    @Test func everyTwoWaySplitYieldsTheSameEvents() {
        let bytes = Array(Self.mixed.utf8)
        let expected = parseChunks([bytes])
        #expect(expected.count == 4)
        for cut in 0...bytes.count {
            #expect(parseChunks([Array(bytes[..<cut]), Array(bytes[cut...])]) == expected, "split at \(cut)")
        }
    }

    @Test func everyThreeWaySplitYieldsTheSameEvents() {
        let bytes = Array("data: a\r\n\r\nevent: e\rdata: b\r\r: c\ndata: d\n\n".utf8)
        let expected = parseChunks([bytes])
        #expect(expected.map(\.data) == ["a", "b", "d"])
        for i in 0...bytes.count {
            for j in i...bytes.count {
                let got = parseChunks([Array(bytes[..<i]), Array(bytes[i..<j]), Array(bytes[j...])])
                #expect(got == expected, "split at \(i), \(j)")
            }
        }
    }

    @Test func byteAtATimeYieldsTheSameEvents() {
        let bytes = Array(Self.mixed.utf8)
        #expect(parseChunks(bytes.map { [$0] }) == parseChunks([bytes]))
    }

    @Test(arguments: ["gemini/fantasy__gemini-3-pro-preview__multi_tool_streaming.cassette.json",
                      "openai-chat/fantasy__openrouter-kimi__multi_tool_streaming.cassette.json",
                      "openai-responses/fantasy__azure-gpt-5-mini__thinking-streaming.cassette.json",
                      "anthropic/fantasy__claude-sonnet-4__thinking-streaming.cassette.json"])
    func randomSplitsOfRecordedStreams(file: String) throws {
        let body = try recordedBody(file)
        let expected = parseChunks([body])
        #expect(expected.count > 2)
        for seed in 1...60 as ClosedRange<UInt64> {
            var g = SeededGenerator(seed: seed)
            var chunks = randomChunks(body, maxChunk: Int(seed % 7 == 0 ? 3 : seed * 11), generator: &g)
            if seed % 2 == 1 {
                // Transports may deliver empty reads; sprinkle some in.
                chunks = chunks.enumerated().flatMap { i, c in i % 3 == 0 ? [[], c] : [c] }
            }
            #expect(parseChunks(chunks) == expected, "seed \(seed)")
        }
        // Every payload of these recordings is one JSON document (or the chat [DONE] sentinel).
        for e in expected where e.data != "[DONE]" { #expect(e.data.hasPrefix("{")) }
    }

    private func recordedBody(_ file: String) throws -> [UInt8] {
        let interactions = try ProviderFixtures.cassette(file)
        return Array(try #require(interactions.first).responseBody.utf8)
    }
}

@Suite struct SSEParserLargeStreamTests {
    /// A large stream in random chunks parses completely. Speed is measured by the benchmark
    /// (tools/bench/sse-throughput, BENCHMARKS.md), not by a timed assertion here.
    @Test func largeStreamInRandomChunks() {
        let payload = "{\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"some streamed words of text\"}]}}]}"
        var stream: [UInt8] = []
        for _ in 0..<20_000 { stream += Array("data: \(payload)\r\n\r\n".utf8) }
        var g = SeededGenerator(seed: 9)
        let chunks = randomChunks(stream, maxChunk: 16_384, generator: &g)
        var count = 0
        var p = SSEParser()
        for c in chunks { count += p.feed(c).count }
        count += p.finish().count
        #expect(count == 20_000)
    }
}

/// The lending API the stream decoders use: the same events as `feed(_:) -> [SSEEvent]`, with the
/// data as raw bytes and no copy per event.
@Suite struct SSEParserLendingTests {
    private struct Stop: Error {}

    private static func lent(_ chunks: [[UInt8]]) -> [(event: String, data: [UInt8], id: String?)] {
        var p = SSEParser()
        var out: [(event: String, data: [UInt8], id: String?)] = []
        for c in chunks { p.feed(c) { out.append(($0.event, Array($0.data), $0.id)) } }
        p.finish { out.append(($0.event, Array($0.data), $0.id)) }
        return out
    }

    @Test func lendsEveryEventWhateverTheChunking() {
        let stream = Array("id: 4\nevent: content_block_delta\ndata: {\"a\":1}\r\n\r\n: ping\n\ndata: x\ndata: y\n\nevent: e\ndata: last".utf8)
        let expected: [(event: String, data: String, id: String?)] = [
            ("content_block_delta", "{\"a\":1}", "4"), ("message", "x\ny", "4"), ("e", "last", "4"),
        ]
        var rng = SeededGenerator(seed: 0x1E4D)
        for _ in 0..<200 {
            let lent = Self.lent(randomChunks(stream, maxChunk: 7, generator: &rng))
            #expect(lent.map(\.event) == expected.map(\.event))
            #expect(lent.map { String(decoding: $0.data, as: UTF8.self) } == expected.map(\.data))
            #expect(lent.map(\.id) == expected.map(\.id))
        }
    }

    @Test func dataIsLentAsRawBytesAndOwnedCopiesRepairThem() {
        let raw: [UInt8] = Array("data: a".utf8) + [0xFF, 0xC3] + Array("b\n\n".utf8)
        #expect(Self.lent([raw]).map(\.data) == [Array("a".utf8) + [0xFF, 0xC3] + Array("b".utf8)])
        #expect(parseChunks([raw]).map(\.data) == ["a\u{FFFD}\u{FFFD}b"])
    }

    @Test func aThrowingHandlerStopsAtThatEvent() {
        var p = SSEParser()
        var seen: [String] = []
        #expect(throws: Stop.self) {
            try p.feed(Array("data: 1\n\ndata: 2\n\ndata: 3\n\n".utf8)) { event in
                seen.append(String(decoding: event.data, as: UTF8.self))
                if seen.count == 2 { throw Stop() }
            }
        }
        #expect(seen == ["1", "2"])
    }
}

/// A server that never ends a line, or never ends an event, must not fill the memory.
@Suite struct SSEParserSizeCapTests {
    static let cap = SSEParser.maxEventBytes

    @Test func aLineLongerThanTheCapStopsTheStream() {
        var p = SSEParser()
        var events: [SSEEvent] = []
        events += p.feed(Array("data: first\n\ndata: ".utf8))
        let megabyte = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        for _ in 0..<(Self.cap >> 20) { events += p.feed(megabyte) }
        #expect(p.sawOversizedEvent) // "data: " and 32 MB of the same line: one line over the cap
        events += p.feed(Array("\n\ndata: after\n\n".utf8)) + p.finish()
        #expect(events.map(\.data) == ["first"]) // nothing after the oversized line is parsed
    }

    @Test func manyDataLinesAddingUpPastTheCapStopTheStream() {
        var p = SSEParser()
        let line = Array(("data: " + String(repeating: "y", count: (1 << 20) - 1) + "\n").utf8)
        var events: [SSEEvent] = []
        for _ in 0...(Self.cap >> 20) { events += p.feed(line) }
        events += p.feed(Array("\n".utf8)) + p.finish()
        #expect(p.sawOversizedEvent)
        #expect(events.isEmpty)
    }

    @Test func anEventJustUnderTheCapIsDelivered() {
        var p = SSEParser()
        let size = Self.cap - 6 // with "data: ", a line of exactly the cap
        var count = 0
        p.feed(Array("data: ".utf8)) { _ in }
        var left = size
        while left > 0 {
            let n = min(left, 1 << 20)
            p.feed([UInt8](repeating: UInt8(ascii: "z"), count: n)) { _ in }
            left -= n
        }
        p.feed(Array("\n\n".utf8)) { count += 1; #expect($0.data.count == size) }
        #expect(count == 1)
        #expect(!p.sawOversizedEvent)
    }
}
