// Line framing and JSON-RPC classification for the MCP stdio transport.
import Base
import MCP
import XCTest

final class FramingTests: XCTestCase {
    private func lines(_ frames: [Frame]) -> [String] {
        frames.compactMap { if case .line(let b) = $0 { return String(decoding: b, as: UTF8.self) } else { return nil } }
    }

    func testSplitsLinesAcrossChunksAndDropsCRAndBlankLines() {
        var f = LineFramer()
        var frames = f.feed(Array("{\"a\":1}\r\n\n  \n{\"b\"".utf8))
        frames += f.feed(Array(":2}\n{\"c\":3}".utf8))
        XCTAssertEqual(lines(frames), ["{\"a\":1}", "{\"b\":2}"])
        XCTAssertEqual(f.finish(), .line(Array("{\"c\":3}".utf8)), "an unterminated last line is still read at EOF")
        XCTAssertNil(f.finish())
    }

    func testByteByByteFeedingGivesTheSameFrames() {
        let input = Array("one\ntwo\r\n\nthree\n".utf8)
        var whole = LineFramer()
        var single = LineFramer()
        let expected = whole.feed(input)
        var got: [Frame] = []
        for b in input { got += single.feed([b]) }
        XCTAssertEqual(got, expected)
        XCTAssertEqual(lines(got), ["one", "two", "three"])
    }

    func testAnOversizedLineIsSkippedWithItsEdgesAndTheNextLineIsIntact() {
        var f = LineFramer(limit: 100)
        let big = Array("{\"jsonrpc\":\"2.0\",\"id\":7,\"x\":\"".utf8) + Array(repeating: UInt8(ascii: "a"), count: 5000) + Array("\"}".utf8)
        var frames: [Frame] = []
        for chunk in stride(from: 0, to: big.count, by: 333) { frames += f.feed(big[chunk..<min(big.count, chunk + 333)]) }
        frames += f.feed(Array("\n{\"ok\":1}\n".utf8))
        XCTAssertEqual(frames.count, 2)
        guard case .oversized(let size, let head, let tail) = frames[0] else { return XCTFail("expected an oversized frame") }
        XCTAssertEqual(size, big.count)
        XCTAssertLessThanOrEqual(head.count, LineFramer.keptEdge)
        XCTAssertEqual(Array(head.prefix(10)), Array(big.prefix(10)))
        XCTAssertEqual(Array(tail.suffix(10)), Array(big.suffix(10)))
        XCTAssertEqual(RPC.idOfOversized(head: head, tail: tail), .number(7))
        XCTAssertEqual(lines([frames[1]]), ["{\"ok\":1}"])
    }

    /// Found by `tools/fuzz.sh mcp`: an oversized line read in small pieces kept only the bytes up to
    /// the limit as its head, fed whole it kept 1 KiB, so the id found in it depended on the reads.
    func testAnOversizedLineHasTheSameEdgesHoweverItIsRead() {
        let line = Array(#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"q":""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: 200)
            + Array(#""}}"#.utf8) + [13, 10] + Array(#"{"jsonrpc":"2.0","id":10,"method":"ping"}"#.utf8)
        var whole = LineFramer(limit: 64)
        var expected = whole.feed(line)
        if let last = whole.finish() { expected.append(last) }
        for chunk in 1...16 {
            var f = LineFramer(limit: 64)
            var got: [Frame] = []
            for i in stride(from: 0, to: line.count, by: chunk) { got += f.feed(line[i..<min(line.count, i + chunk)]) }
            if let last = f.finish() { got.append(last) }
            XCTAssertEqual(got, expected, "chunks of \(chunk)")
        }
    }

    func testALineExactlyAtTheLimitIsRead() {
        var f = LineFramer(limit: 8)
        XCTAssertEqual(lines(f.feed(Array("12345678\n123456789\n".utf8))), ["12345678"])
    }

    func testIdOfOversizedOnlyTrustsTopLevelPositions() {
        func id(_ head: String, _ tail: String) -> JSONValue? { RPC.idOfOversized(head: Array(head.utf8), tail: Array(tail.utf8)) }
        XCTAssertEqual(id("{\"id\":\"abc\",\"method\":", "…"), .string("abc"))
        XCTAssertEqual(id("{\"method\":\"tools/call\",\"params\":{", "aaaa\"}},\"jsonrpc\":\"2.0\",\"id\":42}"), .number(42))
        XCTAssertNil(id("{\"method\":\"x\",\"params\":{", "aaa\",\"id\":5}}"), "an id closed by two braces is nested in params")
        XCTAssertNil(id("{\"method\":\"x\"", "aaaa"))
    }

    func testClassifiesMessages() throws {
        func parse(_ s: String) throws -> IncomingMessage { try IncomingMessage.parse(Array(s.utf8)) }
        XCTAssertEqual(try parse(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), .request(id: 1, method: "ping", params: nil))
        XCTAssertEqual(try parse(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), .notification(method: "notifications/initialized", params: nil))
        XCTAssertEqual(try parse(#"{"jsonrpc":"2.0","id":"ofj-1","result":{"action":"accept"}}"#),
                       .response(id: "ofj-1", result: ["action": "accept"], error: nil))
        guard case .invalid(nil, _) = try parse(#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#) else { return XCTFail("a batch is invalid") }
        guard case .invalid(.number(2), _) = try parse(#"{"id":2,"method":"ping"}"#) else { return XCTFail("jsonrpc is required") }
        guard case .invalid = try parse(#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#) else { return XCTFail("a null id is invalid") }
        guard case .invalid = try parse(#"{"jsonrpc":"2.0","id":3,"method":"ping","params":[1]}"#) else { return XCTFail("params must be an object") }
        XCTAssertThrowsError(try parse(#"{"jsonrpc":"2.0""#))
    }
}
