// Provider-native web search (research = native): the tool each wire declares, what the recorded
// streams' server blocks, citations and grounding decode to, and what the next turn sends back.
// Recordings: ../shared/fixtures/providers (PROVENANCE.md). ServerToolStreamTests checks that the
// same recordings still give the answer's text; this suite checks the search itself.
import Base
import Foundation
import Testing
import Agent
import HTTP
import Providers
import TestSupport

@Suite struct NativeSearchTests {
    func native(_ c: AdapterConfig, _ on: Bool = true) -> AdapterConfig {
        var c = c
        c.nativeWebSearch = on
        return c
    }

    let lookup = ToolSpec(name: "search_foods", description: "d", parameters: ["type": "object", "properties": ["q": ["type": "string"]]])

    func webSources(_ turn: TurnResult) -> [WebSources] {
        turn.continuations.filter { $0.provider == WebSources.provider && $0.kind == WebSources.kind }
            .compactMap { (try? JSONValue.parse($0.payload)).flatMap(WebSources.init(json:)) }
    }

    // MARK: Request side

    @Test func anthropicDeclaresWebSearchAndFetchServerTools() throws {
        let request = ChatRequest(system: "s", messages: [.user("x")], tools: [lookup])
        let on = AnthropicModel(config: native(config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-sonnet-4-5")), transport: FakeHTTPTransport(replies: []))
        let body = on.requestBody(request)
        let tools = try #require(body["tools"]?.arrayValue)
        #expect(tools.map { $0["name"]?.stringValue } == ["search_foods", "web_search", "web_fetch"])
        #expect(tools[1] == ["type": "web_search_20250305", "name": "web_search", "max_uses": 5])
        // The last tool carries the cache breakpoint after the tools.
        #expect(tools[2] == ["type": "web_fetch_20250910", "name": "web_fetch", "max_uses": 5, "cache_control": ["type": "ephemeral"]])
        #expect(on.httpRequest(request).headers.contains { $0.name == "anthropic-beta" && $0.value == "web-fetch-2025-09-10" })

        let off = AnthropicModel(config: config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-sonnet-4-5"), transport: FakeHTTPTransport(replies: []))
        #expect(off.requestBody(request)["tools"]?.arrayValue?.count == 1)
        #expect(!off.httpRequest(request).headers.contains { $0.name == "anthropic-beta" })
        // Server tools alone (no function tools) still make a tools list.
        #expect(on.requestBody(ChatRequest(system: "", messages: [.user("x")], tools: []))["tools"]?.arrayValue?.count == 2)
    }

    @Test func responsesDeclaresWebSearchAndAsksForItsSources() {
        let request = ChatRequest(system: "s", messages: [.user("x")], tools: [lookup])
        let on = ResponsesModel(config: native(config("openai", base: "https://api.openai.com/v1", model: "gpt-5-mini")), transport: FakeHTTPTransport(replies: []))
        let body = on.requestBody(request)
        #expect(body["tools"]?.arrayValue?.last == ["type": "web_search"])
        #expect(body["include"] == ["reasoning.encrypted_content", "web_search_call.action.sources"])
        // The retry for models without reasoning drops only the reasoning include.
        #expect(on.requestBody(request, askForReasoning: false)["include"] == ["web_search_call.action.sources"])
        let off = ResponsesModel(config: config("openai", base: "https://api.openai.com/v1", model: "gpt-5-mini"), transport: FakeHTTPTransport(replies: []))
        #expect(off.requestBody(request)["tools"]?.arrayValue?.count == 1)
        #expect(off.requestBody(request)["include"] == ["reasoning.encrypted_content"])
    }

    @Test func geminiDeclaresGoogleSearchAndURLContext() throws {
        let request = ChatRequest(system: "s", messages: [.user("x")], tools: [lookup])
        let on = GeminiModel(config: native(config("gemini", base: "https://g.test/v1beta", model: "gemini-3-pro-preview")), transport: FakeHTTPTransport(replies: []))
        let tools = try #require(on.requestBody(request)["tools"]?.arrayValue)
        #expect(tools.count == 3)
        #expect(tools[0]["functionDeclarations"]?.arrayValue?.count == 1)
        #expect(tools[1] == JSONValue.object(["google_search": .object([:])]))
        #expect(tools[2] == JSONValue.object(["url_context": .object([:])]))
        let off = GeminiModel(config: config("gemini", base: "https://g.test/v1beta", model: "gemini-3-pro-preview"), transport: FakeHTTPTransport(replies: []))
        #expect(off.requestBody(request)["tools"]?.arrayValue?.count == 1)
    }

    @Test func openRouterGetsTheWebPluginAndOtherChatServersDoNot() throws {
        let request = ChatRequest(system: "s", messages: [.user("x")], tools: [lookup])
        let router = ChatCompletionsModel(config: native(config("openrouter", base: "https://openrouter.ai/api/v1", model: "x/y")), transport: FakeHTTPTransport(replies: []))
        #expect(router.requestBody(request)["plugins"] == [["id": "web", "max_results": 5]])
        let plain = ChatCompletionsModel(config: config("openrouter", base: "https://openrouter.ai/api/v1", model: "x/y"), transport: FakeHTTPTransport(replies: []))
        #expect(plain.requestBody(request)["plugins"] == nil)
        let other = ChatCompletionsModel(config: native(config("ollama", base: "http://127.0.0.1:11434/v1", model: "llama3.2")), transport: FakeHTTPTransport(replies: []))
        #expect(other.requestBody(request)["plugins"] == nil)
    }

    // MARK: Anthropic

    @Test func anthropicWebSearchStreamKeepsBlocksSourcesAndCitations() async throws {
        let cassette = try ProviderFixtures.cassette("anthropic/fantasy__TestAnthropicWebSearch__stream.cassette.json")
        let make = { (t: FakeHTTPTransport) -> any ChatModel in
            AnthropicModel(config: self.native(config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-sonnet-4-20250514")), transport: t)
        }
        let turn = await expectSplitInvariant(make, body: cassette[0].responseBody, request: ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.error == nil)
        #expect(turn.toolCalls.isEmpty)
        let blocks = turn.continuations.filter { $0.kind == "server_block" }
        #expect(blocks.count == 2)
        let web = try #require(webSources(turn).first)
        #expect(web.backend == "anthropic")
        #expect(web.searches.count == 1)
        #expect(web.searches[0].query == "Tokyo population 2026 current")
        #expect(web.searches[0].results.count == 10)
        #expect(web.searches[0].results[0].url == "https://worldpopulationreview.com/cities/japan/tokyo")
        #expect(web.searches[0].results[0].title == "Tokyo Population 2026")
        #expect(web.citations.first?.url == "https://worldpopulationreview.com/cities/japan/tokyo")
        #expect(web.citations.count >= 2)
        #expect(web.citations.allSatisfy { !$0.text.isEmpty }, "each citation keeps the cited text")

        // Turn 2: the server blocks go back exactly as the recorded second request sent them.
        let recorded = try json(cassette[1].requestBody)
        let recordedAssistant = try #require(recorded["messages"]?[1]?["content"]?.arrayValue)
        let t = transport("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
        let model = AnthropicModel(config: native(config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-sonnet-4-20250514")), transport: t)
        let request = ChatRequest(system: "", messages: [.user("What is the current population of Tokyo? Cite your source."), turn.assistantMessage,
                                                         .user("How does that compare to Osaka?")], tools: [])
        _ = await runTurn(model, request)
        let sent = try requestJSON(t)
        let assistant = try #require(sent["messages"]?[1]?["content"]?.arrayValue)
        #expect(assistant[0] == recordedAssistant[0], "server_tool_use without caller")
        #expect(assistant[1] == recordedAssistant[1], "web_search_tool_result verbatim, encrypted content included")
        // The text blocks ofj sends carry the same text (one block, without citations).
        let recordedText = recordedAssistant.dropFirst(2).compactMap { $0["text"]?.stringValue }.joined()
        #expect(assistant.dropFirst(2).compactMap { $0["text"]?.stringValue }.joined() == recordedText)
        #expect(!sent.serialized.contains("web_sources"), "the neutral sources item is never sent")

        // Another model of the same provider gets none of the server blocks (they are origin-bound).
        let t2 = transport("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
        let other = AnthropicModel(config: native(config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-opus-4-1")), transport: t2)
        _ = await runTurn(other, request)
        #expect(try requestJSON(t2)["messages"]?[1]?["content"]?.arrayValue?.contains { $0["type"]?.stringValue == "server_tool_use" } == false)
    }

    @Test func anthropicWebFetchKeepsThePageText() async throws {
        let body = try ProviderFixtures.chunksAsSSE("anthropic/vercel__anthropic-web-fetch-tool.1.chunks.txt", named: true)
        let turn = await expectSplitInvariant({ AnthropicModel(config: self.native(config("anthropic", base: "https://a.test/v1", model: "claude-sonnet-4-5")), transport: $0) },
                                              body: body, request: ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.error == nil)
        let blocks = turn.continuations.filter { $0.kind == "server_block" }.compactMap { try? JSONValue.parse($0.payload) }
        #expect(blocks.map { $0["type"]?.stringValue } == ["server_tool_use", "web_fetch_tool_result"])
        #expect(blocks[0]["input"]?["url"]?.stringValue?.hasPrefix("https://en.wikipedia.org/") == true)
        let web = try #require(webSources(turn).first)
        #expect(web.pages.count == 1)
        #expect(web.pages[0].url == blocks[0]["input"]?["url"]?.stringValue)
        #expect(web.pages[0].text.count > 1_000)
        #expect(web.pages[0].text == blocks[1]["content"]?["content"]?["source"]?["data"]?.stringValue)
    }

    /// A turn the API pauses (`pause_turn`: a long server-tool run) goes on within the same turn:
    /// the second request ends with what the first produced as the assistant message, usage is
    /// summed, one finish ends it. (Hand-made streams in the recorded events' shape: no recording
    /// of a paused turn exists.)
    @Test func anthropicPausedTurnIsContinuedWithinTheTurn() async throws {
        func sse(_ events: [String]) -> String { events.map { "data: \($0)\n\n" }.joined() }
        let first = sse([
            #"{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":100,"output_tokens":1}}}"#,
            #"{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{},"caller":{"type":"direct"}}}"#,
            #"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\":\"bowl calories\"}"}}"#,
            #"{"type":"content_block_stop","index":0}"#,
            #"{"type":"content_block_start","index":1,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","url":"https://a.example/bowl","title":"Bowl","encrypted_content":"E1","page_age":null}]}}"#,
            #"{"type":"content_block_stop","index":1}"#,
            #"{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}"#,
            #"{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"Searching more. "}}"#,
            #"{"type":"content_block_stop","index":2}"#,
            #"{"type":"message_delta","delta":{"stop_reason":"pause_turn"},"usage":{"output_tokens":10}}"#,
            #"{"type":"message_stop"}"#,
        ])
        let second = sse([
            #"{"type":"message_start","message":{"id":"msg_2","usage":{"input_tokens":150,"output_tokens":1}}}"#,
            #"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"About 520 kcal."}}"#,
            #"{"type":"content_block_stop","index":0}"#,
            #"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}"#,
            #"{"type":"message_stop"}"#,
        ])
        let t = FakeHTTPTransport(replies: [FakeHTTPTransport.Reply(body: Array(first.utf8), maxChunk: 29), FakeHTTPTransport.Reply(body: Array(second.utf8), maxChunk: 31)])
        let model = AnthropicModel(config: native(config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-sonnet-4-5")), transport: t)
        let turn = await runTurn(model, ChatRequest(system: "", messages: [.user("calories in a bowl?")], tools: []))
        #expect(turn.error == nil)
        #expect(turn.text == "Searching more. About 520 kcal.")
        #expect(turn.events.filter { if case .finish = $0 { return true } else { return false } } == [.finish(.stop)])
        #expect(turn.usage == Usage(inputTokens: 250, outputTokens: 15))
        #expect(turn.continuations.filter { $0.kind == "server_block" }.count == 2)
        #expect(webSources(turn).first?.searches.first?.query == "bowl calories")
        let sent = try requestJSON(t, 1)
        let messages = try #require(sent["messages"]?.arrayValue)
        #expect(messages.count == 2)
        #expect(messages[1]["role"] == "assistant")
        let blocks = try #require(messages[1]["content"]?.arrayValue)
        #expect(blocks.map { $0["type"]?.stringValue } == ["server_tool_use", "web_search_tool_result", "text"])
        #expect(blocks[0] == ["type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": ["query": "bowl calories"]])
        #expect(blocks[1]["content"]?[0]?["encrypted_content"] == "E1")
        #expect(blocks[2]["text"] == "Searching more.", "no trailing whitespace in the final assistant message")
    }

    /// A turn that keeps pausing is continued at most 3 times, then ends as it is.
    @Test func anthropicPausesAreContinuedAtMostThreeTimes() async throws {
        let paused = """
            data: {"type":"message_start","message":{"id":"m","usage":{"input_tokens":10,"output_tokens":1}}}

            data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":"."}}

            data: {"type":"content_block_stop","index":0}

            data: {"type":"message_delta","delta":{"stop_reason":"pause_turn"},"usage":{"output_tokens":1}}

            data: {"type":"message_stop"}


            """
        let t = FakeHTTPTransport(replies: Array(repeating: FakeHTTPTransport.Reply(body: Array(paused.utf8)), count: 5))
        let model = AnthropicModel(config: native(config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-sonnet-4-5")), transport: t)
        let turn = await runTurn(model, ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(t.requests.count == 4)
        #expect(turn.finish == .other)
        #expect(turn.usage == Usage(inputTokens: 40, outputTokens: 4))
    }

    // MARK: Responses

    @Test func responsesWebSearchCallIsKeptAndReplayedBeforeTheMessage() async throws {
        let cassette = try ProviderFixtures.cassette("openai-responses/fantasy__TestOpenAIWebSearch__stream.cassette.json")
        let make = { (t: FakeHTTPTransport) -> any ChatModel in
            ResponsesModel(config: self.native(config("openai", base: "https://api.openai.com/v1", model: "gpt-4.1")), transport: t)
        }
        let turn = await expectSplitInvariant(make, body: cassette[0].responseBody, request: ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.error == nil)
        let items = turn.continuations.filter { $0.kind == "server_item" }.compactMap { try? JSONValue.parse($0.payload) }
        #expect(items.count == 1)
        #expect(items[0]["id"]?.stringValue == "ws_0200025d411b0585016a3c13b4825c81a391999cec332e6f02")
        #expect(items[0]["action"]?["query"]?.stringValue == "current population of Tokyo 2024")
        let web = try #require(webSources(turn).first)
        #expect(web.backend == "openai")
        #expect(web.searches.map(\.query) == ["current population of Tokyo 2024"])
        #expect(web.citations.map(\.url) == ["https://www.toukei.metro.tokyo.lg.jp/index.htm?utm_source=openai"])
        #expect(web.citations[0].title == "東京都の統計")

        let t = transport("data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\"}}\n\n")
        let model = ResponsesModel(config: native(config("openai", base: "https://api.openai.com/v1", model: "gpt-4.1")), transport: t)
        _ = await runTurn(model, ChatRequest(system: "", messages: [.user("q"), turn.assistantMessage, .user("and Osaka?")], tools: []))
        let input = try #require(try requestJSON(t)["input"]?.arrayValue)
        #expect(input.count == 4)
        #expect(input[1] == items[0], "the web_search_call item goes back as received")
        #expect(input[2]["role"]?.stringValue == "assistant")
        #expect(!input.contains { $0.serialized.contains("web_sources") })
    }

    /// Each web_search_call in this recording follows a reasoning item without encrypted content,
    /// which cannot be kept: the calls are not kept for replay either (the API refuses a
    /// web_search_call without its reasoning item), while what they found still becomes sources.
    @Test func searchesWhoseReasoningWasNotKeptAreNotReplayed() async throws {
        let body = try ProviderFixtures.chunksAsSSE("openai-responses/vercel__openai-web-search-tool.1.chunks.txt", named: true)
        let make = { (t: FakeHTTPTransport) -> any ChatModel in
            ResponsesModel(config: self.native(config("openai", base: "https://api.openai.com/v1", model: "gpt-5-mini")), transport: t)
        }
        let turn = await expectSplitInvariant(make, body: body, request: ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.error == nil)
        #expect(!turn.continuations.contains { $0.kind == "reasoning" })
        #expect(!turn.continuations.contains { $0.kind == "server_item" })
        let web = try #require(webSources(turn).first)
        #expect(web.citations.count >= 5)
        #expect(web.searches.count == 6)
        #expect(web.searches.contains { !$0.query.isEmpty && !$0.results.isEmpty }, "a search action lists its sources")

        let t = transport("data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\"}}\n\n")
        let model = ResponsesModel(config: native(config("openai", base: "https://api.openai.com/v1", model: "gpt-5-mini")), transport: t)
        _ = await runTurn(model, ChatRequest(system: "", messages: [.user("q"), turn.assistantMessage, .user("more")], tools: []))
        let input = try #require(try requestJSON(t)["input"]?.arrayValue)
        #expect(!input.contains { $0["type"] == "web_search_call" || $0["type"] == "reasoning" })
        #expect(input.map { $0["role"]?.stringValue } == ["user", "assistant", "user"])
    }

    /// The same recording with encrypted reasoning: each search goes back right after its own
    /// reasoning item, in order, as received.
    @Test func searchesGoBackEachAfterItsReasoningItem() async throws {
        var lines: [String] = []
        for line in String(decoding: try ProviderFixtures.bytes("openai-responses/vercel__openai-web-search-tool.1.chunks.txt"), as: UTF8.self)
            .split(separator: "\n") {
            var event = try JSONValue.parse(String(line))
            if event["type"] == "response.output_item.done", event["item"]?["type"] == "reasoning", var item = event["item"]?.objectValue,
               let id = item["id"]?.stringValue {
                item["encrypted_content"] = .string("blob-" + id)
                var o = event.objectValue ?? [:]
                o["item"] = .object(item)
                event = .object(o)
            }
            lines.append("event: \(event["type"]?.stringValue ?? "")\ndata: \(event.serialized)\n\n")
        }
        let model = { (t: FakeHTTPTransport) in
            ResponsesModel(config: self.native(config("openai", base: "https://api.openai.com/v1", model: "gpt-5-mini")), transport: t)
        }
        let turn = await runTurn(model(transport(lines.joined())), ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.error == nil)
        #expect(turn.continuations.filter { $0.kind == "server_item" }.count == 6)
        let t = transport("data: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\"}}\n\n")
        _ = await runTurn(model(t), ChatRequest(system: "", messages: [.user("q"), turn.assistantMessage, .user("more")], tools: []))
        let input = try #require(try requestJSON(t)["input"]?.arrayValue)
        let types = input.map { $0["type"]?.stringValue ?? $0["role"]?.stringValue ?? "" }
        // The last reasoning item goes with the answer's message item (its id kept).
        let pairs: [String] = (0..<6).flatMap { _ in ["reasoning", "web_search_call"] }
        let expected: [String] = ["user"] + pairs + ["reasoning", "message", "user"]
        #expect(types == expected)
        for k in 0..<6 { #expect(input[1 + 2 * k]["encrypted_content"]?.stringValue?.hasPrefix("blob-rs_") == true) }
    }

    /// A kept reasoning item goes with the web_search_call that followed it (its "required
    /// following item"); a reasoning item with nothing after it is left out.
    @Test func responsesReasoningGoesWithTheSearchItFollowed() throws {
        let model = ResponsesModel(config: native(config("openai", base: "https://api.openai.com/v1", model: "gpt-5-mini")), transport: FakeHTTPTransport(replies: []))
        let origin = model.continuationOrigin
        func item(_ kind: String, _ payload: JSONValue) -> MessagePart {
            .continuation(ContinuationItem(provider: "openai-responses", kind: kind, payload: payload.serialized, origin: origin))
        }
        let reasoning: JSONValue = ["type": "reasoning", "id": "rs_1", "encrypted_content": "blob", "summary": []]
        let search: JSONValue = ["type": "web_search_call", "id": "ws_1", "status": "completed", "action": ["type": "search", "query": "q"]]
        let lone: JSONValue = ["type": "reasoning", "id": "rs_2", "encrypted_content": "blob2", "summary": []]
        let assistant = Message(role: .assistant, parts: [item("reasoning", reasoning), item("server_item", search), item("reasoning", lone), .text("answer")])
        let input = try #require(model.requestBody(ChatRequest(system: "", messages: [.user("q"), assistant, .user("more")], tools: []))["input"]?.arrayValue)
        #expect(Array(input[1...2]) == [reasoning, search])
        #expect(input[3] == ["role": "assistant", "content": "answer"])
        #expect(input.count == 5)
        // The retry without stored items (a 400 naming ws_ or rs_) leaves both out.
        let plain = try #require(model.requestBody(ChatRequest(system: "", messages: [.user("q"), assistant], tools: []), includeReasoning: false)["input"]?.arrayValue)
        #expect(plain.count == 2)
    }

    // MARK: Gemini

    @Test func geminiURLContextAndGroundingBecomeSources() async throws {
        let body = String(decoding: try ProviderFixtures.bytes("gemini/firebase__googleai__streaming-success-url-context.txt"), as: UTF8.self)
        let make = { (t: FakeHTTPTransport) -> any ChatModel in GeminiModel(config: config("gemini", base: "https://g.test/v1beta", model: "gemini-2.5-flash"), transport: t) }
        let turn = await expectSplitInvariant(make, body: body, request: ChatRequest(system: "", messages: [.user("x")], tools: []))
        let web = try #require(webSources(turn).first)
        #expect(web.backend == "gemini")
        #expect(web.pages.map(\.url) == ["https://google.com"])
        #expect(web.citations.map(\.url) == ["https://google.com"])
        #expect(web.citations[0].title == "Google")
    }

    /// A non-streaming body sent as one SSE event (Gemini streams the same object per chunk).
    func oneEvent(_ file: String) throws -> String {
        let value = try JSONValue.parse(bytes: try ProviderFixtures.bytes(file))
        return "data: \(value.serialized)\r\n\r\n"
    }

    @Test func geminiGoogleSearchGroundingListsQueriesChunksAndCitedChunks() async throws {
        let make = { (t: FakeHTTPTransport) -> any ChatModel in GeminiModel(config: config("gemini", base: "https://g.test/v1beta", model: "gemini-2.0-flash"), transport: t) }
        let turn = await runTurn(make(transport(try oneEvent("gemini/firebase__googleai__unary-success-google-search-grounding.json"))),
                                 ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.error == nil)
        let web = try #require(webSources(turn).first)
        #expect(web.searches.map(\.query) == ["current weather in London"])
        #expect(web.searches[0].results.count == 2)
        #expect(web.searches[0].results.first?.url.hasPrefix("https://vertexaisearch.cloud.google.com/grounding-api-redirect/") == true)
        #expect(web.citations.count == 2)
        // Nothing of the grounding goes back: the next request's model turn is its text only.
        let t = transport("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ok\"}]},\"finishReason\":\"STOP\"}]}\r\n\r\n")
        _ = await runTurn(GeminiModel(config: native(config("gemini", base: "https://g.test/v1beta", model: "gemini-2.0-flash")), transport: t),
                          ChatRequest(system: "", messages: [.user("q"), turn.assistantMessage, .user("more")], tools: []))
        let contents = try #require(try requestJSON(t)["contents"]?.arrayValue)
        #expect(contents[1]["parts"]?.arrayValue?.count == 1)
        #expect(!(try requestJSON(t)).serialized.contains("groundingChunks"))
    }

    @Test func geminiSupportsPointingPastTheChunksAreIgnored() async throws {
        let make = { (t: FakeHTTPTransport) -> any ChatModel in GeminiModel(config: config("gemini", base: "https://g.test/v1beta", model: "gemini-2.5-flash"), transport: t) }
        let turn = await runTurn(make(transport(try oneEvent("gemini/firebase__googleai__unary-success-url-context-mixed-validity.json"))),
                                 ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.error == nil)
        let web = try #require(webSources(turn).first)
        #expect(web.citations.map(\.url) == ["https://ai.google.dev"], "indexes 1 and 2 point past the single chunk")
        #expect(web.pages.map(\.url) == ["https://ai.google.dev"], "only the page retrieved successfully")
    }

    // MARK: Chat wire

    @Test func perplexityCitationsAndSearchResults() async throws {
        let vercel = try ProviderFixtures.chunksAsSSE("openai-chat/vercel__perplexity-citations.chunks.txt")
        let make = { (t: FakeHTTPTransport) -> any ChatModel in
            ChatCompletionsModel(config: config("openai", base: "https://api.perplexity.ai", model: "sonar"), transport: t, maxTokensField: "max_tokens")
        }
        let a = await expectSplitInvariant(make, body: vercel, request: ChatRequest(system: "", messages: [.user("x")], tools: []))
        let web = try #require(webSources(a).first)
        #expect(web.backend == "perplexity")
        #expect(web.citations.count == 7)
        #expect(web.citations[0].url == "https://populationstat.com/united-states/san-francisco")

        let trace = String(decoding: try ProviderFixtures.bytes("openai-chat/langchaingo__perplexity__TestTool_Integration.httprr"), as: UTF8.self)
        let start = try #require(trace.range(of: "\r\n\r\ndata:") ?? trace.range(of: "\n\ndata:"))
        let b = await runTurn(make(transport("data:" + trace[start.upperBound...])), ChatRequest(system: "", messages: [.user("x")], tools: []))
        let web2 = try #require(webSources(b).first)
        #expect(!web2.citations.isEmpty)
        #expect(web2.searches.first?.results.isEmpty == false)
        #expect(web2.citations.contains { !$0.title.isEmpty }, "titles come from search_results")
    }

    /// OpenRouter's web plugin answers with url_citation annotations on the delta. No recording
    /// exists (PROVENANCE.md); this body follows the shape in OpenRouter's documentation.
    @Test func openRouterAnnotationsBecomeCitations() async throws {
        let body = """
            data: {"id":"gen-1","choices":[{"index":0,"delta":{"role":"assistant","content":"A bowl has about 1,000 kcal."}}]}

            data: {"id":"gen-1","choices":[{"index":0,"delta":{"annotations":[{"type":"url_citation","url_citation":{"url":"https://example.com/n","title":"Nutrition","content":"1,000 kcal"}},{"type":"url_citation","url_citation":{"url":"https://example.com/n","title":"Nutrition"}}]},"finish_reason":"stop"}]}

            data: [DONE]


            """
        let turn = await expectSplitInvariant({ ChatCompletionsModel(config: self.native(config("openrouter", base: "https://openrouter.ai/api/v1", model: "x/y")), transport: $0) },
                                              body: body, request: ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.text == "A bowl has about 1,000 kcal.")
        let web = try #require(webSources(turn).first)
        #expect(web.citations == [WebSources.Link(url: "https://example.com/n", title: "Nutrition", text: "1,000 kcal")])
    }

    /// Evidence that the provider searched marks the turn even when no URL, query or citation came
    /// back (issue 31): OpenRouter's web plugin offered (its results enter the prompt) with an
    /// answer that is only a tool call; a web_search_call with no action; grounding with no chunks.
    @Test func aSearchThatReportsNoURLStillLeavesASearchedItem() async throws {
        let call = """
            data: {"id":"gen-1","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"search_foods","arguments":"{\\"q\\":\\"d\\"}"}}]},"finish_reason":"tool_calls"}]}

            data: [DONE]


            """
        let request = ChatRequest(system: "", messages: [.user("x")], tools: [lookup])
        let router = await runTurn(ChatCompletionsModel(config: native(config("openrouter", base: "https://openrouter.ai/api/v1", model: "x/y")), transport: transport(call)), request)
        #expect(router.error == nil)
        #expect(webSources(router).map(\.searched) == [true], "the plugin was offered: the turn carries its results")
        let plain = await runTurn(ChatCompletionsModel(config: config("openrouter", base: "https://openrouter.ai/api/v1", model: "x/y"), transport: transport(call)), request)
        #expect(webSources(plain).isEmpty, "no plugin, no search")

        let responses = """
            data: {"type":"response.output_item.done","item":{"type":"web_search_call","id":"ws_1","status":"completed"}}

            data: {"type":"response.output_item.done","item":{"type":"function_call","call_id":"c1","name":"search_foods","arguments":"{}"}}

            data: {"type":"response.completed","response":{"status":"completed"}}


            """
        let openai = await runTurn(ResponsesModel(config: native(config("openai", base: "https://api.openai.com/v1", model: "gpt-4.1")), transport: transport(responses)), request)
        #expect(openai.error == nil)
        #expect(webSources(openai).map(\.searched) == [true])

        let gemini = """
            data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"search_foods","args":{}}}]},"finishReason":"STOP","groundingMetadata":{"webSearchQueries":["donut kcal"]}}]}


            """
        let g = await runTurn(GeminiModel(config: native(config("gemini", base: "https://g.test/v1beta", model: "gemini-2.5-flash")), transport: transport(gemini)), request)
        #expect(g.error == nil)
        #expect(webSources(g).map(\.searched) == [true])
        // The flag survives the stored payload.
        let stored = try #require(webSources(g).first)
        #expect(WebSources(json: stored.json)?.searched == true && !stored.isEmpty)
    }

    // MARK: Setting

    @Test func researchChoiceDefaultsToNativeWhereTheProviderHasIt() {
        func choice(_ setting: String?, _ provider: String, _ wire: WireFormat, _ model: String, _ keys: [String: String] = [:]) -> ResearchChoice {
            ResearchChoice.resolve(setting: setting, provider: provider, wire: wire, model: model, settings: keys)
        }
        #expect(choice(nil, "anthropic", .anthropic, "claude-sonnet-4-5").mode == .native)
        #expect(choice(nil, "openai", .responses, "gpt-5-mini").mode == .native)
        #expect(choice(nil, "openrouter", .chatCompletions, "x/y").mode == .native)
        #expect(choice(nil, "gemini", .gemini, "gemini-3-pro-preview").mode == .native)
        #expect(choice(nil, "azure", .azureResponses, "dep").mode == .off)
        // No native search and no key: off, with a one-line hint.
        let ollama = choice(nil, "ollama", .chatCompletions, "llama3.2")
        #expect(ollama.mode == .off)
        #expect(ollama.hint?.contains("TAVILY_API_KEY") == true)
        #expect(ollama.hint?.contains("\n") == false)
        #expect(choice(nil, "gemini", .gemini, "gemini-2.5-flash").mode == .off, "Gemini 2.x refuses google_search beside function tools")
        // A key present is used where there is no native search.
        #expect(choice(nil, "ollama", .chatCompletions, "llama3.2", ["PARALLEL_API_KEY": "k"]).mode == .parallel)
        #expect(choice(nil, "ollama", .chatCompletions, "llama3.2", ["TAVILY_API_KEY": "k", "PARALLEL_API_KEY": "k"]).mode == .tavily)
        // Explicit settings.
        #expect(choice("tavily", "anthropic", .anthropic, "c", ["TAVILY_API_KEY": "k"]).mode == .tavily)
        #expect(choice("tavily", "anthropic", .anthropic, "c").mode == .off)
        #expect(choice("tavily", "anthropic", .anthropic, "c").hint?.contains("TAVILY_API_KEY is not set") == true)
        #expect(choice("off", "anthropic", .anthropic, "c", ["TAVILY_API_KEY": "k"]).mode == .off)
        #expect(choice("native", "ollama", .chatCompletions, "llama3.2").mode == .off)
        #expect(choice("Native", "anthropic", .anthropic, "c").mode == .native)
        #expect(choice("bing", "anthropic", .anthropic, "c").hint?.contains("unknown research setting") == true)
        #expect(choice("tavily", "anthropic", .anthropic, "c", ["TAVILY_API_KEY": "secret-value"]).doctorLine == "research: web_search via Tavily")
    }

    @Test func configFileResearchKeyIsReadAndChecked() throws {
        #expect(try ProviderFileConfig.parse(#"{"research":"tavily"}"#).research == "tavily")
        #expect(ProviderFileConfig.fieldProblems(try JSONValue.parse(#"{"research":"tavily"}"#)).isEmpty)
        let problems = ProviderFileConfig.fieldProblems(try JSONValue.parse(#"{"research":"google"}"#))
        #expect(problems == [#""research" must be "native", "tavily", "parallel" or "off", not "google""#])
        #expect(ProviderFileConfig.fieldProblems(try JSONValue.parse(#"{"research":3}"#)) == [#""research" must be a string"#])
    }

    @Test func resolvedProviderBuildsANativeModel() throws {
        let r = try ProviderResolver.resolve(flags: ProviderFlags(provider: "anthropic"), environment: ["ANTHROPIC_API_KEY": "k"])
        let model = try #require(r.makeModel(transport: FakeHTTPTransport(replies: []), nativeWebSearch: true) as? AnthropicModel)
        #expect(model.config.nativeWebSearch)
        #expect((r.makeModel(transport: FakeHTTPTransport(replies: [])) as? AnthropicModel)?.config.nativeWebSearch == false)
    }
}
