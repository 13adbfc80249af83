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
    ]

    @Test func everyRecordingIsCovered() throws {
        let dir = try #require(ProviderFixtures.directory())
        var found = Set<String>()
        for family in try FileManager.default.contentsOfDirectory(atPath: dir.path) {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir.appendingPathComponent(family).path, isDirectory: &isDir), isDir.boolValue else { continue }
            for file in try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent(family).path) where !file.hasSuffix(".yaml") {
                found.insert("\(family)/\(file)")
            }
        }
        #expect(found == Self.covered, "new or missing recordings: \(found.symmetricDifference(Self.covered).sorted())")
        // Each cassette mirrors a .yaml original.
        for name in found where name.hasSuffix(".cassette.json") {
            let yaml = name.replacingOccurrences(of: ".cassette.json", with: ".yaml")
            #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(yaml).path), "\(yaml)")
        }
    }

    @Test func everyCassetteHasTwoTurns() throws {
        for name in Self.covered where name.hasSuffix(".cassette.json") {
            let turns = try ProviderFixtures.cassette(name)
            #expect(turns.count == 2, "\(name)")
            #expect(turns.allSatisfy { !$0.requestBody.isEmpty && !$0.responseBody.isEmpty }, "\(name)")
        }
    }
}
