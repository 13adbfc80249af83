// What web searches cost (/usage) and what their diagnostics rows hold: backend, latency, result
// count and credits, never the objective, queries, URLs or snippets.
import Agent
import Diagnostics
import Foundation
import HTTP
@testable import Research
import SQLiteKit
import Testing
import TestSupport

@Suite("Search usage and diagnostics", .timeLimit(.minutes(1)))
struct SearchUsageTests {
    let directory = TempDirectory()

    func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: directory.file("usage.sqlite"))
        var migrator = Migrator()
        SourceStore.registerMigrations(into: &migrator)
        DiagnosticsOutbox.registerMigrations(into: &migrator)
        try queue.migrate(migrator)
        return queue
    }

    static let planted = #"""
        {"query": "PLANTED-QUERY-7731", "results": [
          {"url": "https://planted.example/PLANTED-PATH-4419?token=PLANTED-TOKEN", "title": "PLANTED-TITLE",
           "content": "PLANTED-SNIPPET 665 kcal", "score": 0.9}],
         "usage": {"credits": 2}}
        """#

    @Test func diagnosticsRowsCarryCreditsButNoQueryURLOrText() async throws {
        let queue = try database()
        let server = try LoopbackHTTPServer()
        server.enqueue(.json(Self.planted))
        let outbox = DiagnosticsOutbox(queue: queue)
        let relay = DiagnosticsRelay()
        relay.connect(OutboxRecorder(outbox: outbox, appVersion: "9.9.9", allowedToolNames: ["web_search"]))
        let sources = SourceStore(queue: queue)
        let tool = WebSearchTool(client: WebSearchClient(configuration: SearchConfiguration(backend: .tavily, apiKey: "tvly-PLANTED-KEY", baseURL: server.url)),
                                 sources: sources, diagnostics: relay)
        let context = ToolContext(threadID: "t", runID: "r", callID: "c", now: WallTime(secondsSince1970: 1_795_000_000))
        let output = try await tool.execute(arguments: ["objective": "PLANTED-OBJECTIVE-5120", "queries": ["PLANTED-QUERY-7731"]], context: context)
        #expect(output.content.contains("PLANTED-SNIPPET"), "the model sees the result")
        let events = try outbox.allPending()
        #expect(events.count == 1)
        let event = try #require(events.first)
        #expect(event.provider == "tavily")
        #expect(event.toolName == "web_search")
        #expect(event.resultCount == 1)
        #expect(event.credits == 2)
        #expect((event.totalMs ?? -1) >= 0)
        // Every stored byte of the outbox, as the sink and exports would see it.
        let rows = try queue.read { db in try db.rows("SELECT * FROM diagnostics_outbox") }
        let dump = rows.map { row in row.values.map { "\($0)" }.joined(separator: "|") }.joined(separator: "\n")
                   + "\n" + event.columns.map { "\($0.value)" }.joined(separator: "|")
        #expect(dump.contains("credits") || event.columns.contains { $0.name == "credits" && $0.value == .real(2) })
        for secret in ["PLANTED-QUERY", "PLANTED-OBJECTIVE", "planted.example", "PLANTED-PATH", "PLANTED-TOKEN", "PLANTED-TITLE", "PLANTED-SNIPPET", "PLANTED-KEY"] {
            #expect(!dump.contains(secret), "diagnostics hold \(secret)")
        }
    }

    @Test func usageShowsTavilyCreditsAndADatedParallelEstimate() async throws {
        let queue = try database()
        let sources = SourceStore(queue: queue)
        let day = 1_795_000_000.0 // 2026-11-18 (UTC)
        try sources.recordSearchUsage(threadID: "t", runID: "r", backend: .tavily, at: day, requests: 2, credits: 2)
        try sources.recordSearchUsage(threadID: "t", runID: "r", backend: .tavily, at: day + 60, requests: 1, credits: 1)
        try sources.recordSearchUsage(threadID: "t", runID: "r", backend: .parallel, at: day + 120, requests: 1, credits: nil)
        try sources.recordSearchUsage(threadID: "u", runID: "q", backend: .parallel, at: day + 180, requests: 1, credits: nil)
        try sources.recordSearchUsage(threadID: "u", runID: "q", backend: .tavily, at: day - 86_400, requests: 1, credits: 1) // yesterday
        #expect(try sources.usageLines(threadID: "t", now: day + 200, secondsFromGMT: 0) == [
            "Web search, this thread: Parallel 1 search, 1 request ≈ $0.005 · Tavily 2 searches, 3 credits",
            "Web search, today: Parallel 2 searches, 2 requests ≈ $0.010 · Tavily 2 searches, 3 credits",
            "Parallel is estimated at $0.005 per request (its price on 2026-12-01; not a live check).",
        ])
        #expect(try sources.usageLines(threadID: "none", now: day + 200, secondsFromGMT: 0).count == 2, "today only, and the estimate note")
        #expect(try sources.usageLines(threadID: "none", now: day + 10 * 86_400, secondsFromGMT: 0).isEmpty)
    }

    @Test func aSearchIsCountedOncePerRequestItMade() async throws {
        let queue = try database()
        let server = try LoopbackHTTPServer()
        server.enqueue(.json(Self.planted))
        server.enqueue(.json(Self.planted))
        let sources = SourceStore(queue: queue)
        let tool = WebSearchTool(client: WebSearchClient(configuration: SearchConfiguration(backend: .tavily, apiKey: "k", baseURL: server.url)), sources: sources)
        let context = ToolContext(threadID: "t", runID: "r", callID: "c", now: WallTime(secondsSince1970: 1_795_000_000))
        _ = try await tool.execute(arguments: ["objective": "a", "queries": ["one", "two"]], context: context)
        let totals = try sources.searchUsage(threadID: "t")
        #expect(totals == [SearchUsageTotal(backend: "tavily", searches: 1, requests: 2, credits: 4, estimatedUSD: nil)])
    }
}
