// Guards that every provider recording in ../shared/fixtures/providers is decoded by some test here.
import Foundation
import Testing
import TestSupport

@Suite struct FixtureCoverageTests {
    /// Fixtures the adapter tests decode (the .yaml files are the same cassettes as .cassette.json).
    static let covered: Set<String> = [
        "anthropic/fantasy__claude-sonnet-4__multi_tool_streaming.cassette.json",
        "anthropic/fantasy__claude-sonnet-4__thinking-streaming.cassette.json",
        "anthropic/vercel__anthropic-tool-no-args.chunks.txt",
        "gemini/fantasy__gemini-2.5-flash__thinking-streaming.cassette.json",
        "gemini/fantasy__gemini-3-pro-preview__multi_tool_streaming.cassette.json",
        "gemini/vercel__google-text.chunks.txt",
        "gemini/vercel__google-tool-call-gemini3.chunks.txt",
        "gemini/vercel__issue-10781.1.chunks.txt",
        "gemini/vercel__vertex-google-stream-no-args-tool-call.chunks.txt",
        "openai-chat/fantasy__llama-cpp-gpt-oss__tool_streaming.cassette.json",
        "openai-chat/fantasy__openai-gpt-4o__multi_tool_streaming.cassette.json",
        "openai-chat/fantasy__openrouter-anthropic__tool_streaming.cassette.json",
        "openai-chat/fantasy__openrouter-gemini__multi_tool_streaming.cassette.json",
        "openai-chat/fantasy__openrouter-kimi__multi_tool_streaming.cassette.json",
        "openai-chat/vercel__anthropic-fallback-tool-call.sse",
        "openai-chat/vercel__azure-model-router.1.chunks.txt",
        "openai-responses/fantasy__azure-gpt-5-mini__thinking-streaming.cassette.json",
        "openai-responses/fantasy__openai-gpt-5__multi_tool_streaming.cassette.json",
        "openai-responses/vercel__openai-error.1.chunks.txt",
        "openai-responses/vercel__openai-reasoning-encrypted-content.1.chunks.txt",
        // Decoded by ServerToolStreamTests (provider-native web search and fetch, image and PDF input).
        "anthropic/fantasy__TestAnthropicWebSearch__stream.cassette.json",
        "anthropic/fantasy__TestImageUploadAgentStreaming__anthropic-claude-sonnet-4-stream.cassette.json",
        "anthropic/vercel__anthropic-web-fetch-tool-20260209.1.chunks.txt",
        "anthropic/vercel__anthropic-web-fetch-tool.1.chunks.txt",
        "anthropic/vercel__anthropic-web-search-tool.1.chunks.txt",
        "gemini/fantasy__TestImageUploadAgentStreaming__gemini-2.5-pro-stream.cassette.json",
        "gemini/firebase__googleai__streaming-success-url-context.txt",
        "openai-chat/fantasy__TestImageUploadAgentStreaming__openai-gpt-5-stream.cassette.json",
        "openai-chat/langchaingo__perplexity__TestTool_Integration.httprr",
        "openai-chat/vercel__perplexity-citations.chunks.txt",
        "openai-responses/fantasy__TestOpenAIWebSearch__stream.cassette.json",
        "openai-responses/vercel__openai-pdf-input-file.1.chunks.txt",
        "openai-responses/vercel__openai-web-search-tool.1.chunks.txt",
    ]

    /// Non-streaming bodies: ofj streams every request, so no adapter receives these. They record
    /// the shapes of search results, fetched documents and image-by-URL requests for the web
    /// research and attachment work (issues 19 and 20), whose tests will decode them.
    static let notStreamed: Set<String> = [
        "anthropic/vercel__anthropic-web-fetch-tool-20260209.1.json",
        "anthropic/vercel__anthropic-web-fetch-tool.1.json",
        "anthropic/vercel__anthropic-web-fetch-tool.2.json",
        "anthropic/vercel__anthropic-web-fetch-tool.error.json",
        "anthropic/vercel__anthropic-web-search-tool.1.json",
        "gemini/firebase__googleai__unary-success-google-search-grounding.json",
        "gemini/firebase__googleai__unary-success-url-context-mixed-validity.json",
        "openai-chat/langchaingo__openai__TestMultiContentImage.httprr",
        "openai-chat/vercel__perplexity-citations.json",
        "openai-responses/vercel__openai-pdf-input-file.1.json",
        "openai-responses/vercel__openai-web-search-tool.1.json",
    ]

    @Test func everyRecordingIsCovered() throws {
        let dir = try #require(ProviderFixtures.directory())
        var found = Set<String>()
        for family in try FileManager.default.contentsOfDirectory(atPath: dir.path) {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir.appendingPathComponent(family).path, isDirectory: &isDir), isDir.boolValue else { continue }
            for file in try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent(family).path)
            where !file.hasSuffix(".yaml") && !file.hasSuffix(".md") && !file.hasSuffix(".py") {
                found.insert("\(family)/\(file)")
            }
        }
        let known = Self.covered.union(Self.notStreamed)
        #expect(found == known, "new or missing recordings: \(found.symmetricDifference(known).sorted())")
        #expect(Self.covered.isDisjoint(with: Self.notStreamed))
        // Each cassette mirrors a .yaml original.
        for name in found where name.hasSuffix(".cassette.json") {
            let yaml = name.replacingOccurrences(of: ".cassette.json", with: ".yaml")
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(yaml).path), "\(yaml)")
        }
    }

    /// Tool-loop cassettes hold the call turn and the answer turn; single-answer ones (image input,
    /// OpenAI web search) one.
    @Test func everyCassetteHasItsTurns() throws {
        for name in Self.covered where name.hasSuffix(".cassette.json") {
            let turns = try ProviderFixtures.cassette(name)
            let single = name.contains("ImageUpload") || name.contains("OpenAIWebSearch")
            #expect(turns.count == (single ? 1 : 2), "\(name)")
            #expect(turns.allSatisfy { !$0.requestBody.isEmpty && !$0.responseBody.isEmpty }, "\(name)")
        }
    }
}
