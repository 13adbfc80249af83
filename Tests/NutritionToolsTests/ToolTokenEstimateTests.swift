// ofj's token estimate of tool specs against a real tokenizer's counts, and the fixed part's size.
import Foundation
import Testing
import Agent
import Base
@testable import NutritionTools

@Suite struct ToolTokenEstimateTests {
    /// ToolTokenCounts.json: every spec as ofj sent it to a llama.cpp server with its token count by
    /// that server's /tokenize (Gemma 3's tokenizer), written by `tools/prompt_size.py --specs`
    /// (its "about" says when and with what). Sets: "default" (a new thread's request) and
    /// "all_groups" (the same thread after enabling every group), "before" (a new thread before tool
    /// groups: 31 tools, every nutrient named in four schemas; another shape of JSON).
    static func counts() throws -> JSONValue {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("ToolTokenCounts.json")
        return try JSONValue.parse(String(decoding: try Data(contentsOf: url), as: UTF8.self))
    }

    static func specs(_ set: JSONValue) throws -> [(spec: ToolSpec, tokens: Int)] {
        try #require(set["specs"]?.arrayValue).map { row in
            let function = try #require(row["spec"]?["function"])
            let spec = ToolSpec(name: try #require(function["name"]?.stringValue), description: try #require(function["description"]?.stringValue),
                                parameters: try #require(function["parameters"]))
            return (spec, try #require(row["tokens"]?.intValue))
        }
    }

    @Test(arguments: ["default", "all_groups", "before"])
    func theEstimateOfToolSpecsIsWithinTenPercentOfTheRealCount(set name: String) throws {
        let set = try #require(try Self.counts()[name])
        let rows = try Self.specs(set)
        #expect(rows.count > 5)
        let real = try #require(set["tools_tokens"]?.intValue)
        let estimate = TokenEstimator.tokens(rows.map(\.spec))
        let error = Double(estimate - real) / Double(real)
        #expect(abs(error) <= 0.10, "\(name): estimated \(estimate), real \(real) (\(Int((error * 100).rounded()))%)")
        // Each spec on its own stays close too (small specs are mostly framing).
        for row in rows {
            let one = TokenEstimator.tokens([row.spec])
            #expect(abs(Double(one - row.tokens)) <= max(8, Double(row.tokens) * 0.2), "\(row.spec.name): estimated \(one), real \(row.tokens)")
        }
    }

    @Test func theMeasuredFixedPartOfANewThreadIsUnderThreeThousandTokens() throws {
        let set = try #require(try Self.counts()["default"])
        let system = try #require(set["system_tokens"]?.intValue)
        let tools = try #require(set["tools_tokens"]?.intValue)
        #expect(system + tools <= 3_000, "system \(system) + tools \(tools)")
        // Every group on is what enabling costs; it is not what a new thread sends.
        let all = try #require(try Self.counts()["all_groups"]?["tools_tokens"]?.intValue)
        #expect(all > tools * 2)
    }

    /// The live toolbox, so growth is caught before it is measured again: the everyday tools and
    /// the system prompt stay under ~2,800 estimated tokens (the estimate is within 10% of the real
    /// count, so the real fixed part stays under 3,000).
    @Test func theEverydayToolsAndSystemPromptStayUnderTheBudget() throws {
        let f = try Fixture(seeded: false)
        let specs = f.registry.specs(groups: [])
        #expect(specs.map(\.name).contains(EnableToolsTool.toolName))
        #expect(!specs.map(\.name).contains(NutritionToolName.saveFood.rawValue))
        // The prompt of a real model with packaged foods and attachments (Toolbox.systemPrompt), and
        // read_attachment (~90 tokens) beside the nutrition tools.
        let system = NutritionToolbox.systemPrompt + "\n" + PackagedTools.promptRule + "\n" + LabelScan.prompt
        let estimate = TokenEstimator.tokens(system) + TokenEstimator.tokens(specs) + 90
        #expect(estimate <= 2_800, "estimated \(estimate) tokens")
    }
}
