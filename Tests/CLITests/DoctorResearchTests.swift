// `ofj doctor` says which web search the selected provider gets (config.json "research",
// OFJ_RESEARCH), with a one-line hint when it is off, and never a search key.
import Foundation
import Testing
import TestSupport

@Suite struct DoctorResearchTests {
    let home = TempDirectory(prefix: "ofj-research-doctor")

    var env: [String: String] {
        ["OFJ_HOME": home.file("data"), "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"),
         "XDG_STATE_HOME": home.file("state"), "LANG": "C.UTF-8"]
    }

    func doctor(_ extra: [String: String], config: String? = nil) async throws -> String {
        if let config {
            try FileManager.default.createDirectory(atPath: home.file("config/ofj"), withIntermediateDirectories: true)
            try config.write(toFile: home.file("config/ofj/config.json"), atomically: true, encoding: .utf8)
        }
        let r = try await OfjBinary.run(["doctor"], environment: env.merging(extra) { _, b in b })
        #expect(!r.stdout.contains("tvly-SECRET") && !r.stdout.contains("sk-ant-SECRET"), "\(r.stdout)")
        return r.stdout.split(separator: "\n").first { $0.hasPrefix("research:") }.map(String.init) ?? "(no research line)\n\(r.stdout)"
    }

    @Test func nativeWhereTheProviderHasIt() async throws {
        #expect(try await doctor(["OFJ_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": "sk-ant-SECRET"]) == "research: the provider's own web search")
    }

    @Test func configFileChoosesTavilyAndTheEnvironmentWins() async throws {
        let line = try await doctor(["OFJ_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": "sk-ant-SECRET", "TAVILY_API_KEY": "tvly-SECRET"],
                                    config: #"{"research": "tavily"}"#)
        #expect(line == "research: web_search via Tavily")
        let off = try await doctor(["OFJ_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": "sk-ant-SECRET", "OFJ_RESEARCH": "off"],
                                   config: #"{"research": "tavily"}"#)
        #expect(off == "research: off")
    }

    @Test func offWithAHintWhereThereIsNoSearch() async throws {
        let line = try await doctor(["OFJ_PROVIDER": "ollama"])
        #expect(line == "research: off (ollama llama3.2 has no web search of its own; set research to tavily (TAVILY_API_KEY) or parallel (PARALLEL_API_KEY) for web search)")
    }
}
