// Durable sources: fetched pages kept per thread, versioned by content hash, and read again with
// read_conversation_source as untrusted evidence.
import Agent
import Base
import HTTP
@testable import Research
import SQLiteKit
import Testing
import TestSupport

@Suite("Research sources", .timeLimit(.minutes(1)))
struct SourceStoreTests {
    let directory = TempDirectory()

    func store() throws -> SourceStore {
        let queue = try DatabaseQueue(path: directory.file("sources.sqlite"))
        try SourceStore.migrate(queue)
        return SourceStore(queue: queue)
    }

    func context(_ thread: String = "thread-a") -> ToolContext {
        ToolContext(threadID: thread, runID: "r", callID: "c", now: WallTime(secondsSince1970: 1_795_000_000))
    }

    @Test func sha256MatchesTheStandardVectors() {
        #expect(SHA256Hasher.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256Hasher.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256Hasher.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func sourcesAreVersionedByContent() throws {
        let sources = try store()
        let first = try sources.record(threadID: "t", kind: "page", url: "https://a.example/", title: "A", text: "one", fetchedAt: 10)
        let same = try sources.record(threadID: "t", kind: "page", url: "https://a.example/", title: "A", text: "one", fetchedAt: 20)
        let changed = try sources.record(threadID: "t", kind: "page", url: "https://a.example/", title: "A", text: "two", fetchedAt: 30)
        let other = try sources.record(threadID: "u", kind: "page", url: "https://a.example/", title: "A", text: "one", fetchedAt: 40)
        #expect(same.id == first.id && same.version == 1)
        #expect(changed.id != first.id && changed.version == 2)
        #expect(other.version == 1)
        #expect(try sources.sources(threadID: "t").map(\.text) == ["one", "two"])
        #expect(try sources.source(id: first.id, threadID: "u") == nil)  // not another thread's
        #expect(try sources.source(id: first.id, threadID: "t")?.contentHash == SHA256Hasher.hex(Array("one".utf8)))
        let report = try sources.report(threadID: "t")
        #expect(report.contains("[\(first.id)] A — https://a.example/  (1970-01-01 00:00 UTC, 3 characters)"))
        #expect(report.contains("version 2"))
        #expect(try sources.report(threadID: "nobody") == "No web sources in this thread yet.")
        #expect(SourceStore.utcLabel(1_795_000_000) == "2026-11-18 11:06 UTC")
    }

    @Test func aFetchedPageIsKeptAndCanBeReadAgainInParts() async throws {
        let sources = try store()
        let server = try LoopbackHTTPServer()
        let long = (0..<3_000).map { "word\($0)" }.joined(separator: " ")
        server.enqueue(.text("<title>Menu</title><p>\(long)</p>", contentType: "text/html"))
        let fetcher = URLFetcher(transport: CurlTransport(), resolver: FakeResolver([:]), policy: LoopbackPagesPolicy(ports: [server.port]))
        let fetch = FetchURLTool(fetcher: fetcher, sources: sources)
        let output = try await fetch.execute(arguments: ["url": .string(server.url("/menu"))], context: context())
        let json = try JSONValue.parse(output.content)
        let id = try #require(json["source_id"]?.intValue)
        #expect(json["more"]?.stringValue?.contains("read_conversation_source") == true)
        #expect((json["text"]?.stringValue?.count ?? 0) < 10_200)

        let read = ReadConversationSourceTool(sources: sources)
        let part = try JSONValue.parse(try await read.execute(arguments: ["source_id": .number(Double(id)), "offset": 10_000], context: context()).content)
        let text = try #require(part["text"]?.stringValue)
        #expect(text.hasPrefix("<<<UNTRUSTED WEB CONTENT from 127.0.0.1>>>\n"))
        #expect(text.hasSuffix("\n<<<END UNTRUSTED WEB CONTENT>>>"))
        #expect(part["title"]?.stringValue == "Menu")
        #expect(part["next_offset"]?.intValue == 20_000)
        #expect(part["characters"]?.intValue == long.count)
        // Another thread cannot read it.
        await #expect(throws: ToolArgumentError.self) {
            try await read.execute(arguments: ["source_id": .number(Double(id))], context: context("thread-b"))
        }
    }
}

@Suite("Write cards name web sources", .timeLimit(.minutes(1)))
struct SourceCitingWriteToolTests {
    struct FakeWrite: WriteTool {
        let name = "log_food"
        let description = "logs"
        var parameters: JSONValue { ["type": "object"] }
        func activity(arguments: JSONValue) -> String { "preparing to log" }
        func preview(arguments: JSONValue, context: ToolContext, database: Database) throws -> PlannedChange {
            PlannedChange(card: "Log Burrito bowl — 665 kcal", change: ["kcal": 665])
        }
        func apply(_ change: PlannedChange, context: ToolContext, database: Database) throws -> ToolOutput {
            ToolOutput(content: "{}", summary: "logged")
        }
    }

    @Test func aWriteAfterReadingAPageNamesItOnTheCard() throws {
        let directory = TempDirectory()
        let queue = try DatabaseQueue(path: directory.file("s.sqlite"))
        try SourceStore.migrate(queue)
        let sources = SourceStore(queue: queue)
        let page = try sources.record(threadID: "t", runID: "run-1", kind: "page", url: "https://www.chipotle.com/nutrition",
                                      title: "Nutrition", text: "665 kcal", fetchedAt: 0)
        let tool = SourceCitingWriteTool(FakeWrite(), sources: sources)
        #expect(tool.name == "log_food" && tool.effect == .write)
        // Inside the queue's transaction, as the agent calls preview: the tool must not take the queue again.
        func card(run: String) throws -> String {
            let context = ToolContext(threadID: "t", runID: run, callID: "c", now: WallTime(secondsSince1970: 0))
            return try queue.write { try tool.preview(arguments: [:], context: context, database: $0).card }
        }
        #expect(try card(run: "run-1") == """
            Log Burrito bowl — 665 kcal
            Based on web source [\(page.id)] Nutrition — https://www.chipotle.com/nutrition — untrusted; check the numbers.
            """)
        // A later run that read nothing does not cite it.
        #expect(try card(run: "run-2") == "Log Burrito bowl — 665 kcal")
    }

    /// Like the journal's write tools: apply refuses a card that is not its own plan.
    struct StrictWrite: WriteTool {
        let name = "log_food"
        let description = "logs"
        var parameters: JSONValue { ["type": "object"] }
        func activity(arguments: JSONValue) -> String { "preparing to log" }
        func preview(arguments: JSONValue, context: ToolContext, database: Database) throws -> PlannedChange {
            PlannedChange(card: "Log Burrito bowl — 665 kcal", change: ["kcal": 665])
        }
        func apply(_ change: PlannedChange, context: ToolContext, database: Database) throws -> ToolOutput {
            guard change == (try preview(arguments: [:], context: context, database: database)) else { throw ChangeConflict("card differs") }
            return ToolOutput(content: "{}", summary: "logged")
        }
    }

    @Test func theCitedCardIsAppliedAsTheInnerToolPlannedIt() throws {
        let directory = TempDirectory()
        let queue = try DatabaseQueue(path: directory.file("s.sqlite"))
        try SourceStore.migrate(queue)
        let sources = SourceStore(queue: queue)
        _ = try sources.record(threadID: "t", runID: "run-1", kind: "page", url: "https://example.com/n", title: "N", text: "665 kcal", fetchedAt: 0)
        let tool = SourceCitingWriteTool(StrictWrite(), sources: sources)
        let context = ToolContext(threadID: "t", runID: "run-1", callID: "c", now: WallTime(secondsSince1970: 0))
        let output = try queue.write { db in
            try tool.apply(try tool.preview(arguments: [:], context: context, database: db), context: context, database: db)
        }
        #expect(output.summary == "logged")
    }
}
