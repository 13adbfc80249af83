// The real ofj with research = tavily in config.json: `ofj ask` offers web_search, the search goes
// to the (loopback) Tavily endpoint, and the answer ends with the links it used. With research
// off the tool is not offered at all.
import Foundation
import Testing
import TestSupport

@Suite(.serialized) struct ResearchAskTests {
    let home = TempDirectory(prefix: "ofj-research-ask")

    static let searchCall = """
        data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"web_search","arguments":"{\\"objective\\":\\"calories of a chipotle bowl\\",\\"queries\\":[\\"chipotle bowl calories\\"]}"}}]}}]}

        data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

        data: [DONE]


        """
    static let answer = """
        data: {"id":"c2","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"About 520 kcal [1]."}}]}

        data: {"id":"c2","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}

        data: [DONE]


        """
    static let tavily = #"""
        {"query": "chipotle bowl calories", "results": [{"url": "https://www.chipotle.com/nutrition-calculator", "title": "Nutrition Calculator",
         "content": "Chicken 180 cal, white rice 210 cal, black beans 130 cal.", "score": 0.9}], "usage": {"credits": 1}}
        """#

    func environment(_ server: LoopbackHTTPServer, data: String) throws -> [String: String] {
        try FileManager.default.createDirectory(atPath: home.file("config/ofj"), withIntermediateDirectories: true)
        try #"{"research": "tavily"}"#.write(toFile: home.file("config/ofj/config.json"), atomically: true, encoding: .utf8)
        return ["OFJ_HOME": home.file(data), "XDG_STATE_HOME": home.file("state"), "XDG_CONFIG_HOME": home.file("config"),
                "HOME": home.path, "LANG": "C.UTF-8", "OFJ_PROVIDER": "openai", "OFJ_MODEL": "test-model",
                "OPENAI_BASE_URL": server.url("/v1"), "OPENAI_API_KEY": "sk-test-NOT-A-REAL-KEY-123456",
                "TAVILY_API_KEY": "tvly-NOT-A-REAL-KEY", "TAVILY_BASE_URL": server.url]
    }

    @Test func askSearchesWithTavilyAndListsTheLinks() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.eventStream(Self.searchCall))
        server.enqueue(.json(Self.tavily))
        server.enqueue(.eventStream(Self.answer))
        let r = try await OfjBinary.run(["ask", "how many calories in a chipotle bowl?"], environment: try environment(server, data: "data"))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "About 520 kcal [1].\nSources:\n  1. Nutrition Calculator — https://www.chipotle.com/nutrition-calculator\n", "\(r.stdout)")
        let requests = server.requests
        #expect(requests.map(\.path) == ["/v1/chat/completions", "/search", "/v1/chat/completions"])
        let tools = try JSONSerialization.jsonObject(with: Data(requests[0].bodyText.utf8)) as? [String: Any]
        let names = (tools?["tools"] as? [[String: Any]])?.compactMap { ($0["function"] as? [String: Any])?["name"] as? String } ?? []
        // The chosen search backend is offered from the first request; reading sources is in the
        // web group, which enable_tools (or a call to one of its tools) turns on.
        #expect(names.contains("web_search") && names.contains("enable_tools") && !names.contains("read_conversation_source"))
        #expect(requests[1].header("authorization") == "Bearer tvly-NOT-A-REAL-KEY")
        // The search result reached the model as untrusted evidence.
        #expect(requests[2].bodyText.contains("UNTRUSTED WEB CONTENT"))
    }

    @Test func researchOffOffersNoSearch() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.eventStream(Self.answer))
        var env = try environment(server, data: "data-off")
        env["OFJ_RESEARCH"] = "off"
        let r = try await OfjBinary.run(["ask", "how many calories in a chipotle bowl?"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "About 520 kcal [1].\n")
        #expect(!(server.requests.first?.bodyText.contains("\"web_search\"") ?? true))
    }

    /// Unset research on OpenRouter means its web plugin: no web_search tool, the plugin in the
    /// request, and the url_citation annotations become the links under the answer.
    @Test func openRouterUsesItsWebPluginByDefault() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.eventStream("""
            data: {"id":"g1","choices":[{"index":0,"delta":{"role":"assistant","content":"About 520 kcal."}}]}

            data: {"id":"g1","choices":[{"index":0,"delta":{"annotations":[{"type":"url_citation","url_citation":{"url":"https://www.chipotle.com/nutrition-calculator","title":"Nutrition Calculator","content":"Chicken 180 cal"}}]},"finish_reason":"stop"}]}

            data: [DONE]


            """))
        let env = ["OFJ_HOME": home.file("data-router"), "XDG_STATE_HOME": home.file("state"), "XDG_CONFIG_HOME": home.file("config-none"),
                   "HOME": home.path, "LANG": "C.UTF-8", "OFJ_PROVIDER": "openrouter", "OFJ_MODEL": "x/y",
                   "OPENROUTER_BASE_URL": server.url("/api/v1"), "OPENROUTER_API_KEY": "sk-or-NOT-A-REAL-KEY", "TAVILY_API_KEY": "tvly-NOT-A-REAL-KEY"]
        let r = try await OfjBinary.run(["ask", "how many calories in a chipotle bowl?"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "About 520 kcal.\nSources:\n  1. Nutrition Calculator — https://www.chipotle.com/nutrition-calculator\n", "\(r.stdout)")
        let body = try #require(server.requests.first?.bodyText)
        #expect(body.contains(#""plugins":[{"id":"web","max_results":5}]"#))
        #expect(!body.contains("\"web_search\""))
    }
}
