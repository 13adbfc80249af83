// A provider's own search, stored in a turn as a WebSources item, becomes durable sources
// (`/sources`, read_conversation_source, write cards) and the numbered links under the answer.
@testable import Agent
import Base
import HTTP
@testable import Research
import SQLiteKit
import Testing
import TestSupport

@Suite("Native search sources", .timeLimit(.minutes(1)))
struct NativeSourcesTests {
    let directory = TempDirectory()

    func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: directory.file("native.sqlite"))
        var migrator = Migrator()
        ConversationStore.registerMigrations(into: &migrator)
        SourceStore.registerMigrations(into: &migrator)
        try queue.migrate(migrator)
        _ = try ConversationStore(queue: queue).createThread(id: "t", now: 1)
        _ = try ConversationStore(queue: queue).createThread(id: "u", now: 1)
        return queue
    }

    /// What Anthropic's search of the recorded stream gives, in short.
    let anthropic = WebSources(
        backend: "anthropic",
        searches: [WebSources.Search(query: "chipotle bowl calories", results: [
            WebSources.Link(url: "https://www.chipotle.com/nutrition", title: "Nutrition Calculator", text: "page age: 2 days ago"),
            WebSources.Link(url: "https://example.org/bowl", title: "Bowl facts"),
        ])],
        pages: [WebSources.Link(url: "https://www.chipotle.com/nutrition", title: "Nutrition Calculator", text: "Chicken 180 kcal per 4 oz")],
        citations: [WebSources.Link(url: "https://www.chipotle.com/nutrition", title: "Nutrition Calculator", text: "Chicken 180 kcal")])

    func storeTurn(_ queue: DatabaseQueue, thread: String = "t", run: String, _ parts: [MessagePart]) throws {
        try queue.write { db in
            try ConversationStore.insertMessage(db, threadID: thread, runID: run, role: .user, turn: nil, state: .complete, parts: [.text("q")], now: 100)
            try ConversationStore.insertMessage(db, threadID: thread, runID: run, role: .assistant, turn: 1, state: .complete, parts: parts, now: 101)
        }
    }

    @Test func nativeSearchBecomesSourcesOnceAndIsListedUnderTheAnswer() throws {
        let queue = try database()
        let sources = SourceStore(queue: queue)
        try storeTurn(queue, run: "r1", [.text("About 180 kcal for the chicken."), .continuation(anthropic.item),
                                          .continuation(ContinuationItem(provider: "anthropic", kind: "server_block", payload: "{}"))])
        let footer = try sources.footer(threadID: "t", runID: "r1")
        #expect(footer == """
            Sources:
              1. Nutrition Calculator — https://www.chipotle.com/nutrition
            """)
        let kept = try sources.sources(threadID: "t")
        #expect(kept.map(\.kind) == ["search", "page"])
        #expect(kept[0].url == "search:anthropic:chipotle bowl calories")
        #expect(kept[0].text == "[1] Nutrition Calculator\nhttps://www.chipotle.com/nutrition\npage age: 2 days ago\n\n[2] Bowl facts\nhttps://example.org/bowl")
        #expect(kept[1].text == "Chicken 180 kcal per 4 oz")
        #expect(kept[1].fetchedAt == 101, "kept at the time of the turn")
        // Harvesting again (another /sources, another footer) adds nothing.
        _ = try sources.report(threadID: "t")
        _ = try sources.footer(threadID: "t", runID: "r1")
        #expect(try sources.sources(threadID: "t").count == 2)
        // Another thread sees none of it.
        #expect(try sources.footer(threadID: "u", runID: "r1") == nil)
        #expect(try sources.sources(threadID: "u").isEmpty)
    }

    @Test func withoutCitationsOrPagesTheFirstSearchResultsAreListed() throws {
        let queue = try database()
        let sources = SourceStore(queue: queue)
        // A web_search (Tavily) result set read in run r2, as WebSearchTool keeps it.
        let text = SourceStore.numbered([("Bowl (2026-01-02)", "https://a.example/bowl", "snippet [9] not a url"), ("Burrito (big)", "https://b.example/", ""),
                                         ("", "https://c.example/", "")])
        try sources.record(threadID: "t", runID: "r2", kind: "search", url: "search:tavily:bowl", title: "bowl", text: text, fetchedAt: 5)
        #expect(try sources.footer(threadID: "t", runID: "r2") == """
            Sources:
              1. Bowl — https://a.example/bowl
              2. Burrito (big) — https://b.example/
              3. https://c.example/
            """)
        // A page read in the same run is listed instead of the search results.
        try sources.record(threadID: "t", runID: "r2", kind: "page", url: "https://a.example/bowl", title: "Bowl", text: "x", fetchedAt: 6)
        #expect(try sources.footer(threadID: "t", runID: "r2") == "Sources:\n  1. Bowl — https://a.example/bowl")
        // A run that read nothing has no footer.
        #expect(try sources.footer(threadID: "t", runID: "r3") == nil)
    }

    @Test func usageCountsTheProvidersSearchesWithoutAPrice() throws {
        let queue = try database()
        let sources = SourceStore(queue: queue)
        try storeTurn(queue, run: "r1", [.continuation(anthropic.item)])
        let cited = WebSources(backend: "perplexity", citations: [WebSources.Link(url: "https://p.example/1")])
        try storeTurn(queue, thread: "u", run: "r2", [.continuation(cited.item)])
        #expect(try sources.usageLines(threadID: "t", now: 101, secondsFromGMT: 0) == [
            "Web search, this thread: Anthropic 1 search (billed by the provider)",
            "Web search, today: Anthropic 1 search (billed by the provider) · Perplexity 1 search (billed by the provider)",
        ])
        // Harvesting the sources does not count them again.
        _ = try sources.report(threadID: "t")
        #expect(try sources.nativeSearches(threadID: "t").map(\.searches) == [1])
        #expect(try sources.usageLines(threadID: "t", now: 101 + 86_400, secondsFromGMT: 0) == [
            "Web search, this thread: Anthropic 1 search (billed by the provider)",
        ])
    }

    @Test func perplexityCitationsAloneAreKeptAsOneSet() throws {
        let cited = WebSources(backend: "perplexity", citations: [WebSources.Link(url: "https://p.example/1"), WebSources.Link(url: "https://p.example/2")])
        let rows = SourceStore.rows(cited)
        #expect(rows.count == 1)
        #expect(rows[0].kind == "search")
        #expect(rows[0].url == "search:perplexity:cited 2 pages")
        #expect(SourceStore.resultURLs(rows[0].text) == ["https://p.example/1", "https://p.example/2"])
        // A page the provider read without giving its text says so.
        let page = SourceStore.rows(WebSources(backend: "gemini", pages: [WebSources.Link(url: "https://g.example/")]))
        #expect(page.first?.text == "(gemini read this page; its text was not returned to ofj)")
    }

    @Test func readConversationSourceListsAndReadsNativeSources() async throws {
        let queue = try database()
        let sources = SourceStore(queue: queue)
        try storeTurn(queue, run: "r1", [.continuation(anthropic.item)])
        let tool = ReadConversationSourceTool(sources: sources)
        let context = ToolContext(threadID: "t", runID: "r9", callID: "c", now: WallTime(secondsSince1970: 200))
        let listed = try JSONValue.parse(try await tool.execute(arguments: .object([:]), context: context).content)
        let rows = try #require(listed["sources"]?.arrayValue)
        #expect(rows.map { $0["kind"]?.stringValue } == ["search", "page"])
        let pageID = try #require(rows[1]["source_id"]?.intValue)
        let page = try JSONValue.parse(try await tool.execute(arguments: ["source_id": .number(Double(pageID))], context: context).content)
        #expect(page["text"]?.stringValue?.contains("Chicken 180 kcal per 4 oz") == true)
        #expect(page["text"]?.stringValue?.hasPrefix("<<<UNTRUSTED WEB CONTENT") == true)
    }

    @Test func aWriteCardNamesTheProvidersSearch() throws {
        let queue = try database()
        try storeTurn(queue, run: "r1", [.continuation(anthropic.item)])
        let context = ToolContext(threadID: "t", runID: "r1", callID: "c", now: WallTime(secondsSince1970: 200))
        let card = try queue.write { db -> String in
            try SourceCitingWriteTool(PlainWrite(), sources: SourceStore(queue: queue)).preview(arguments: .object([:]), context: context, database: db).card
        }
        #expect(card.hasPrefix("Log 1 bowl"))
        #expect(card.contains("Based on web sources"))
        #expect(card.contains("Nutrition Calculator — https://www.chipotle.com/nutrition"))
        #expect(card.contains("web search results"))
        // Applying hands the inner tool its own card back (it checks the card is still what it would write).
        let output = try queue.write { db -> ToolOutput in
            let tool = SourceCitingWriteTool(PlainWrite(), sources: SourceStore(queue: queue))
            let planned = try tool.preview(arguments: .object([:]), context: context, database: db)
            return try tool.apply(planned, context: context, database: db)
        }
        #expect(output.summary == "logged")
    }
}

/// A write tool whose card is fixed.
struct PlainWrite: WriteTool {
    let name = "log_food"
    let description = "d"
    var parameters: JSONValue { ["type": "object"] }
    func activity(arguments: JSONValue) -> String { "logging" }
    func preview(arguments: JSONValue, context: ToolContext, database: Database) throws -> PlannedChange {
        PlannedChange(card: "Log 1 bowl", change: .object([:]))
    }
    func apply(_ change: PlannedChange, context: ToolContext, database: Database) throws -> ToolOutput {
        guard change.card == "Log 1 bowl" else { throw ChangeConflict("what it would write is no longer what the card showed") }
        return ToolOutput(content: "{}", summary: "logged")
    }
}
