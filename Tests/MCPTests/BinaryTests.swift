// `ofj mcp` as a process: stdin framing across real reads, stdout carries protocol lines only.
import Base
import Foundation
import TestSupport
import XCTest

final class BinaryTests: XCTestCase {
    func testTheServerAnswersEveryRequestAndExitsCleanlyAtEOF() async throws {
        _ = try XCTUnwrap(OfjBinary.path, "build ofj first (swift build --build-tests)")
        let home = TempDirectory(prefix: "ofj-mcp")
        let big = #"{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"search_journal","arguments":{"text":""#
            + String(repeating: "a", count: 5 * 1024 * 1024) + #""}}}"#
        let input = [
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}"#,
            #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            big,
            "{oops",
            #"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
            #"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"log_food","arguments":{"name":"Soup","nutrients":{"energy_kcal":1}}}}"#,
            // The standing notes are a resource (none set yet).
            #"{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"ofj://notes"}}"#,
            // A 2026-07-28 request on the same connection, served by its own envelope.
            #"{"jsonrpc":"2.0","id":6,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            // The last request has no newline: EOF ends it, and it is still answered.
            #"{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"ofj://goals"}}"#,
        ].joined(separator: "\n")
        let result = try await OfjBinary.run(["mcp"], input: input, environment: ["OFJ_HOME": home.path, "TZ": "UTC"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let messages = try result.stdout.split(separator: "\n").map { try JSONValue.parse(String($0)) }
        func answer(_ id: JSONValue) -> JSONValue? { messages.first { $0["id"] == id } }
        XCTAssertEqual(answer(1)?["result"]?["protocolVersion"], "2025-06-18")
        // The assistant's 30 tools, get_standing_notes, and copy_journal_meal, add_day_note, get_eating_times.
        XCTAssertEqual(answer(2)?["result"]?["tools"]?.arrayValue?.count, 34)
        let notes = try JSONValue.parse(answer(7)?["result"]?["contents"]?[0]?["text"]?.stringValue ?? "")
        XCTAssertEqual(notes["notes"], .null)
        XCTAssertEqual(answer("big")?["error"]?["code"], -32600)
        XCTAssertTrue(messages.contains { $0["error"]?["code"] == -32700 })
        XCTAssertEqual(answer(3)?["result"], [:])
        XCTAssertEqual(answer(4)?["result"]?["isError"], true, "writes are off without --allow-writes")
        XCTAssertNotNil(answer(5)?["result"]?["contents"])
        XCTAssertEqual(answer(6)?["result"]?["supportedVersions"]?[0], "2026-07-28")
        XCTAssertEqual(answer(6)?["result"]?["_meta"]?["io.modelcontextprotocol/serverInfo"]?["name"], "ofj")
        XCTAssertEqual(messages.count, 9, "one answer per request, nothing else on stdout")
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "one start-up line on stderr: \(result.stderr)")
    }
}
