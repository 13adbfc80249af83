// The nutrition tools as each wire declares them: every field stays visible to the model.
import Foundation
import Testing
import Agent
import Providers
import TestSupport
@testable import NutritionTools

@Suite struct ToolDeclarationTests {
    @Test func geminiSeesTheFullSchemaOfEveryToolAndNoSchemaForToolsWithoutArguments() throws {
        let specs = try Fixture().registry.specs
        let config = AdapterConfig(provider: "gemini", baseURL: "https://generativelanguage.googleapis.com/v1beta", apiKey: "k",
                                   model: "gemini-2.5-flash")
        let model = GeminiModel(config: config, transport: FakeHTTPTransport(replies: []))
        let body = model.requestBody(ChatRequest(system: "", messages: [.user("x")], tools: specs))
        let declarations = try #require(body["tools"]?[0]?["functionDeclarations"]?.arrayValue)
        #expect(declarations.count == specs.count)
        var withoutArguments: [String] = []
        for (spec, declaration) in zip(specs, declarations) {
            #expect(declaration["name"] == .string(spec.name))
            #expect(declaration["parameters"] == nil)
            if spec.parameters["properties"]?.objectValue?.isEmpty == true {
                #expect(declaration["parametersJsonSchema"] == nil, "\(spec.name)")
                withoutArguments.append(spec.name)
            } else {
                #expect(declaration["parametersJsonSchema"] == spec.parameters, "\(spec.name)")
            }
        }
        #expect(!withoutArguments.isEmpty)
        // save_food's calculator portions: `nutrients` is a map (id -> amount), declared as such.
        let save = try #require(declarations.first { $0["name"] == "save_food" })
        let portion = save["parametersJsonSchema"]?["properties"]?["calculator_ingredients"]?["items"]?["properties"]?["portions"]?["items"]
        #expect(portion?["properties"]?["nutrients"]?["additionalProperties"] == ["type": "number"])
        #expect(save["parametersJsonSchema"]?["properties"]?["nutrients"]?["additionalProperties"] == ["type": "number"])
    }
}
