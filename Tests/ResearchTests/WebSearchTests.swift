// web_search against loopback fakes of Tavily (recorded responses) and Parallel (documented shape).
import Agent
import Base
import Foundation
import HTTP
@testable import Research
import Testing
import TestSupport

@Suite("web_search", .timeLimit(.minutes(1)))
struct WebSearchTests {
    let context = ToolContext(threadID: "t", runID: "r", callID: "c", now: WallTime(secondsSince1970: 0))

    @Test func tavilyQueriesRunTogetherAndMerge() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.json(WebSearchFixtures.tavilyBasicSearch))
        server.enqueue(.json(WebSearchFixtures.tavilySearchWithIncludeDomains))
        let client = WebSearchClient(configuration: SearchConfiguration(backend: .tavily, apiKey: "tvly-secret", baseURL: server.url + "/"))
        let response = try await client.search(objective: "what is it", queries: ["What is Pydantic AI?", "transformer architectures"])
        #expect(response.backend == .tavily)
        #expect(response.results.count >= 6)
        #expect(response.results.contains { $0.url == "https://medium.com/ai-agent-insider/pydantic-ai-agent-framework-02b138e8db71" })
        #expect(server.requests.count == 2)
        let request = try #require(server.requests.first)
        #expect(request.path == "/search")
        #expect(request.header("authorization") == "Bearer tvly-secret")
        let body = try JSONValue.parse(request.bodyText)
        #expect(body["search_depth"]?.stringValue == "basic")
        #expect(["What is Pydantic AI?", "transformer architectures"].contains(body["query"]?.stringValue ?? ""))
    }

    @Test func parallelSendsOneRequestWithEveryQuery() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.json(#"""
            {"search_id": "search_1", "results": [{"url": "https://www.chipotle.com/nutrition", "title": "Nutrition", "publish_date": "2026-01-02",
             "excerpts": ["Burrito bowl 665 kcal", "Chicken 180 kcal"]}, {"url": "https://www.chipotle.com/nutrition", "excerpts": []}],
             "usage": [{"name": "sku_search", "count": 1}]}
            """#))
        let client = WebSearchClient(configuration: SearchConfiguration(backend: .parallel, apiKey: "par-secret", baseURL: server.url))
        let tool = WebSearchTool(client: client)
        let output = try await tool.execute(arguments: ["objective": "calories in a chipotle bowl", "queries": ["chipotle bowl calories"]], context: context)
        let json = try JSONValue.parse(output.content)
        #expect(json["result_count"]?.intValue == 1)
        let text = try #require(json["text"]?.stringValue)
        #expect(text.hasPrefix("<<<UNTRUSTED WEB CONTENT from parallel search>>>"))
        #expect(text.contains("[1] Nutrition (2026-01-02)\nhttps://www.chipotle.com/nutrition\nBurrito bowl 665 kcal … Chicken 180 kcal"))
        let request = try #require(server.requests.first)
        #expect(request.path == "/v1/search")
        #expect(request.header("x-api-key") == "par-secret")
        let body = try JSONValue.parse(request.bodyText)
        #expect(body["search_queries"] == ["chipotle bowl calories"])
        #expect(body["objective"]?.stringValue == "calories in a chipotle bowl")
    }

    @Test func errorsAreOneLineWithoutTheKey() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.json(#"{"detail": {"error": "Unauthorized: missing or invalid API key."}}"#, status: 401))
        let client = WebSearchClient(configuration: SearchConfiguration(backend: .tavily, apiKey: "tvly-secret", baseURL: server.url))
        let output = try await WebSearchTool(client: client).execute(arguments: ["objective": "x"], context: context)
        #expect(output.isError)
        #expect(output.summary == "web search failed: Tavily refused the API key (HTTP 401); check TAVILY_API_KEY")
        await #expect(throws: ToolArgumentError.self) {
            try await WebSearchTool(client: client).execute(arguments: ["objective": "x", "queries": ["a", "b", "c", "d", "e", "f"]], context: context)
        }
    }

    final class Capture: DiagnosticsRecorder, @unchecked Sendable {
        let lock = NSLock()
        var events: [AgentDiagnostic] = []
        func record(_ event: AgentDiagnostic) { lock.lock(); events.append(event); lock.unlock() }
    }

    @Test func diagnosticsCarryBackendLatencyAndCountOnly() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.json(WebSearchFixtures.tavilyBasicSearch))
        server.enqueue(.json("{}", status: 500))
        let capture = Capture()
        let relay = DiagnosticsRelay()
        relay.connect(capture)
        let tool = WebSearchTool(client: WebSearchClient(configuration: SearchConfiguration(backend: .tavily, apiKey: "tvly-secret", baseURL: server.url)),
                                 diagnostics: relay)
        _ = try await tool.execute(arguments: ["objective": "secret objective", "queries": ["secret query"]], context: context)
        _ = try await tool.execute(arguments: ["objective": "secret objective"], context: context)
        #expect(capture.events.map(\.status) == ["web_search_ok", "web_search_failed"])
        let ok = try #require(capture.events.first)
        #expect(ok.provider == "tavily" && ok.toolName == "web_search" && ok.resultCount == 5 && (ok.totalMs ?? -1) >= 0)
        let dump = String(describing: capture.events)
        #expect(!dump.contains("secret") && !dump.contains("medium.com") && !dump.contains("Pydantic"))
    }

    @Test func configurationFollowsTheResearchSetting() {
        let keys = ["TAVILY_API_KEY": "t", "PARALLEL_API_KEY": "p", "PARALLEL_BASE_URL": "http://127.0.0.1:9/"]
        #expect(SearchConfiguration.from(research: nil, settings: keys)?.backend == .tavily)
        #expect(SearchConfiguration.from(research: "parallel", settings: keys)?.baseURL == "http://127.0.0.1:9")
        #expect(SearchConfiguration.from(research: "off", settings: keys) == nil)
        #expect(SearchConfiguration.from(research: "tavily", settings: [:]) == nil)
        #expect(SearchConfiguration.from(research: nil, settings: ["PARALLEL_API_KEY": "p"])?.backend == .parallel)
    }
}
