// The 2026-12-01 recordings (provider-native web search and fetch, image and PDF input) decoded by
// today's adapters: a stream that carries server-tool blocks, citations or grounding metadata must
// still give the answer's text, with no error and no tool call ofj would try to run.
import Foundation
import Testing
import Agent
import Providers
import TestSupport

@Suite struct ServerToolStreamTests {
    enum Wire { case anthropic, responses, chat, gemini }

    func model(_ wire: Wire, _ t: FakeHTTPTransport) -> any ChatModel {
        switch wire {
        case .anthropic: AnthropicModel(config: config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-sonnet-4-20250514"), transport: t)
        case .responses: ResponsesModel(config: config("openai", base: "https://o.test/v1", model: "gpt-5"), transport: t)
        case .chat: ChatCompletionsModel(config: config("openai", base: "https://o.test/v1", model: "gpt-4o"), transport: t, maxTokensField: "max_tokens")
        case .gemini: GeminiModel(config: config("gemini", base: "https://g.test/v1beta", model: "gemini-2.5-flash"), transport: t)
        }
    }

    /// A recording's response body as SSE: cassettes and raw SSE as recorded, chunk files re-framed.
    func body(_ name: String, interaction: Int, wire: Wire) throws -> String {
        if name.hasSuffix(".cassette.json") { return try ProviderFixtures.cassette(name)[interaction].responseBody }
        if name.hasSuffix(".chunks.txt") { return try ProviderFixtures.chunksAsSSE(name, named: wire == .anthropic || wire == .responses) }
        return String(decoding: try ProviderFixtures.bytes(name), as: UTF8.self)
    }

    struct Case: Sendable, CustomStringConvertible {
        var file: String
        var interaction = 0
        var prefix: String
        var suffix: String
        /// The answer's length in Unicode scalars, counted from the recording by a separate script.
        var scalars: Int
        var description: String { "\(file)#\(interaction)" }
    }

    static let cases: [(Wire, Case)] = [
        (.anthropic, Case(file: "anthropic/fantasy__TestAnthropicWebSearch__stream.cassette.json", interaction: 0,
                          prefix: "Based on the search results, the current population of Tokyo", suffix: "ia Demographics of Tokyo page.", scalars: 1122)),
        (.anthropic, Case(file: "anthropic/fantasy__TestAnthropicWebSearch__stream.cassette.json", interaction: 1,
                          prefix: "Comparing Tokyo and Osaka's current populations shows a sign", suffix: "apanese government statistics.", scalars: 1411)),
        (.anthropic, Case(file: "anthropic/fantasy__TestImageUploadAgentStreaming__anthropic-claude-sonnet-4-stream.cassette.json",
                          prefix: "This image shows a simple, cute cartoon-style ghost characte", suffix: "ng a dreamy, pastel aesthetic.", scalars: 445)),
        (.anthropic, Case(file: "anthropic/vercel__anthropic-web-search-tool.1.chunks.txt",
                          prefix: "Based on my search results, here are the key tech news developments fr", suffix: "ir first international retail expansion.", scalars: 2402)),
        (.anthropic, Case(file: "anthropic/vercel__anthropic-web-fetch-tool.1.chunks.txt",
                          prefix: "I'll fetch the content from that Wikipedia page to tell you what it's ", suffix: "as later submerged by rising sea levels.", scalars: 1664)),
        (.anthropic, Case(file: "anthropic/vercel__anthropic-web-fetch-tool-20260209.1.chunks.txt",
                          prefix: "The page at **example.com** is a simple placeholder page explaining th", suffix: "t require prior permission to reference.", scalars: 194)),
        (.responses, Case(file: "openai-responses/fantasy__TestOpenAIWebSearch__stream.cassette.json",
                          prefix: "Here is the most recent and reliable official estimate for t", suffix: "rovide that breakdown as well.", scalars: 631)),
        (.responses, Case(file: "openai-responses/vercel__openai-web-search-tool.1.chunks.txt",
                          prefix: "I checked today’s tech headlines (today = December 5, 2025) and opened", suffix: "age pages and pull out more details now?", scalars: 3645)),
        (.responses, Case(file: "openai-responses/vercel__openai-pdf-input-file.1.chunks.txt", prefix: "Dummy PDF file", suffix: "Dummy PDF file", scalars: 14)),
        (.chat, Case(file: "openai-chat/fantasy__TestImageUploadAgentStreaming__openai-gpt-5-stream.cassette.json",
                     prefix: "A cute cartoon star with a face and pink cheeks, leaving a r", suffix: "rple background with sparkles.", scalars: 110)),
        (.gemini, Case(file: "gemini/fantasy__TestImageUploadAgentStreaming__gemini-2.5-pro-stream.cassette.json",
                       prefix: "Of course! Here are a few ways to describe the image, from b", suffix: "s, and a long shadow or trail.", scalars: 840)),
        (.gemini, Case(file: "gemini/firebase__googleai__streaming-success-url-context.txt",
                       prefix: "\nThe Google homepage primarily serves as a search engine int", suffix: "", scalars: 361)),
    ]

    @Test(arguments: cases.indices)
    func answerTextSurvivesServerToolBlocks(index: Int) async throws {
        let (wire, c) = Self.cases[index]
        let text = try body(c.file, interaction: c.interaction, wire: wire)
        let turn = await expectSplitInvariant({ model(wire, $0) }, body: text,
                                              request: ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(turn.error == nil, "\(c)")
        #expect(turn.toolCalls.isEmpty, "\(c): a server tool is not a call for ofj to run")
        #expect(turn.text.hasPrefix(c.prefix), "\(c)")
        #expect(turn.text.hasSuffix(c.suffix), "\(c)")
        #expect(turn.text.unicodeScalars.count == c.scalars, "\(c)")
    }

    /// Perplexity on the Chat wire: every chunk repeats `citations` and the last one is
    /// `chat.completion.done` (vercel), or chunks say `chat.completion` and no `[DONE]` comes (langchaingo).
    @Test func perplexityStreamsDecode() async throws {
        let vercel = try ProviderFixtures.chunksAsSSE("openai-chat/vercel__perplexity-citations.chunks.txt")
        let a = await expectSplitInvariant({ model(.chat, $0) }, body: vercel, request: ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(a.error == nil)
        #expect(a.text.hasPrefix("The current population of **"))

        // The httprr trace holds the raw HTTP response after the request; its body is the SSE.
        let trace = String(decoding: try ProviderFixtures.bytes("openai-chat/langchaingo__perplexity__TestTool_Integration.httprr"), as: UTF8.self)
        let start = try #require(trace.range(of: "\r\n\r\ndata:") ?? trace.range(of: "\n\ndata:"))
        let sse = String(trace[start.upperBound...].dropFirst(0))
        let b = await expectSplitInvariant({ model(.chat, $0) }, body: "data:" + sse, request: ChatRequest(system: "", messages: [.user("x")], tools: []))
        #expect(b.error == nil)
        #expect(b.text.contains("Russia"))
    }
}
