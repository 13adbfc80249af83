// What `ofj doctor` reports about config.json (issue #17 §6): unknown providers and models and
// malformed fields, which loading tolerates.
import Base
import Testing
import Providers

@Suite struct ConfigProblemsTests {
    func problems(_ text: String) throws -> [String] {
        ProviderFileConfig.fieldProblems(try JSONValue.parse(text))
    }

    @Test func aGoodFileHasNoProblems() throws {
        #expect(try problems(#"{"provider": "gemini", "model": "gemini-2.5-flash", "policy": "patient", "theme": "dark","#
                             + #" "providers": {"openai": {"base_url": "http://localhost:8080/v1", "wire": "chat", "model": "qwen3", "headers": {"X": "y"}}}}"#)
                == [])
        #expect(try problems(#"{"provider": "claude", "model": "claude-sonnet-4-5"}"#) == []) // an alias
        #expect(try problems(#"{"provider": "ollama", "model": "anything:7b"}"#) == []) // local servers serve any model
    }

    @Test func eachProblemIsOneLine() throws {
        #expect(try problems(#"{"provider": "gemeni"}"#).first?.contains("unknown provider \"gemeni\"") == true)
        #expect(try problems(#"{"provider": "anthropic", "model": "claude-9"}"#).first?.contains("a model anthropic does not have") == true)
        #expect(try problems(#"{"policy": 1, "providers": []}"#)
                == ["\"policy\" must be a string", "\"providers\" must be an object of provider settings"])
        #expect(try problems(#"{"providers": {"openai": {"headers": {"X": 1}, "wire": "grpc"}}}"#).count == 2)
        #expect(try problems("[1]") == ["the file must hold a JSON object, e.g. {\"provider\": \"gemini\"}"])
    }
}
