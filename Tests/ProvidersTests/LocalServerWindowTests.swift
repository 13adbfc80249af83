// The real context window: config.json's context_window, else read from a local server at first
// use (loopback fakes answering like llama.cpp, Ollama, vLLM and LM Studio), cached, with its source.
import Base
import Foundation
import Testing
import Agent
import HTTP
import Providers
import TestSupport

@Suite(.timeLimit(.minutes(1)))
struct LocalServerWindowTests {
    func resolved(_ provider: String, _ server: LoopbackHTTPServer, model: String, file: ProviderFileConfig? = nil) throws -> ResolvedProvider {
        let config = try file ?? ProviderFileConfig.parse(#"{"providers":{"\#(provider)":{"base_url":"\#(server.url("/v1"))"}}}"#)
        return try ProviderResolver.resolve(flags: ProviderFlags(provider: provider, model: model), environment: [:], file: config)
    }

    func windows(_ r: ResolvedProvider, file: ProviderFileConfig? = nil) -> ContextWindows {
        let w = ContextWindows(transport: CurlTransport(), file: file)
        w.register(r)
        return w
    }

    @Test func llamaServerPropsGiveTheWindowOnceAndItIsCached() async throws {
        let server = try LoopbackHTTPServer()
        server.route("/props", .json(LocalServerBodies.llamaProps(nCtx: 16_384)))
        let r = try resolved("llamacpp", server, model: "default")
        let w = windows(r)
        // Before the server is asked: ofj's assumption, and it says so.
        #expect(w.limits(provider: "llamacpp", model: "default").source == .assumed)
        await w.discover(provider: "llamacpp", model: "default")
        await w.discover(provider: "llamacpp", model: "default")
        let limits = w.limits(provider: "llamacpp", model: "default")
        #expect(limits.contextWindow == 16_384)
        #expect(limits.source == .server("/props n_ctx"))
        #expect(limits.source.phrase == "read from the server (/props n_ctx)")
        #expect(server.infoRequests.map(\.path) == ["/props"]) // asked once
    }

    @Test func ollamaShowGivesNumCtxOrItsDefault() async throws {
        let server = try LoopbackHTTPServer()
        server.route("/api/show", .json(LocalServerBodies.ollamaShow(numCtx: 8_192)))
        let r = try resolved("ollama", server, model: "llama3.2")
        let w = windows(r)
        await w.discover(provider: "ollama", model: "llama3.2")
        #expect(w.limits(provider: "ollama", model: "llama3.2") .contextWindow == 8_192)
        #expect(w.limits(provider: "ollama", model: "llama3.2").source == .server("/api/show num_ctx"))
        let request = try #require(server.infoRequests.first)
        #expect(request.method == "POST" && request.path == "/api/show")
        #expect(try JSONValue.parse(request.bodyText)["model"] == "llama3.2")
        // No num_ctx: Ollama runs the model with its default, not the trained length.
        server.route("/api/show", .json(LocalServerBodies.ollamaShow(numCtx: nil, trained: 131_072)))
        await w.discover(provider: "ollama", model: "other")
        let other = w.limits(provider: "ollama", model: "other")
        #expect(other.contextWindow == ContextWindows.ollamaDefaultContext)
        guard case .server(let field) = other.source else { Issue.record("\(other.source)"); return }
        #expect(field.contains("131,072"))
    }

    @Test func vllmAndLMStudioModelListsGiveTheWindow() async throws {
        let server = try LoopbackHTTPServer()
        server.route("/v1/models", .json(LocalServerBodies.vllmModels(model: "Qwen/Qwen2.5-7B-Instruct", maxModelLen: 32_768)))
        let v = windows(try resolved("vllm", server, model: "Qwen/Qwen2.5-7B-Instruct"))
        await v.discover(provider: "vllm", model: "Qwen/Qwen2.5-7B-Instruct")
        #expect(v.limits(provider: "vllm", model: "Qwen/Qwen2.5-7B-Instruct").contextWindow == 32_768)
        #expect(server.infoRequests.last?.path == "/v1/models")

        let studio = try LoopbackHTTPServer()
        studio.route("/api/v0/models", .json(LocalServerBodies.lmStudioModels(model: "qwen2.5-7b-instruct", loaded: 8_192, max: 32_768)))
        let l = windows(try resolved("lmstudio", studio, model: "qwen2.5-7b-instruct"))
        await l.discover(provider: "lmstudio", model: "qwen2.5-7b-instruct")
        #expect(l.limits(provider: "lmstudio", model: "qwen2.5-7b-instruct").contextWindow == 8_192)
        #expect(l.limits(provider: "lmstudio", model: "qwen2.5-7b-instruct").source == .server("/api/v0/models loaded_context_length"))
        #expect(studio.infoRequests.last?.path == "/api/v0/models")
    }

    @Test func aServerThatDoesNotSayLeavesTheAssumption() async throws {
        let server = try LoopbackHTTPServer()
        // llama-cpp-python: no /props (404), and a model list without sizes.
        server.route("/v1/models", .json(#"{"object":"list","data":[{"id":"default","object":"model","owned_by":"me","permissions":[]}]}"#))
        let w = windows(try resolved("llamacpp", server, model: "default"))
        await w.discover(provider: "llamacpp", model: "default")
        let limits = w.limits(provider: "llamacpp", model: "default")
        #expect(limits.source == .assumed && limits.contextWindow == 8_192)
        #expect(limits.source.phrase.contains("context_window"))
        #expect(server.infoRequests.map(\.path) == ["/props", "/v1/models"])
    }

    @Test func configContextWindowWinsAndTheServerIsNotAsked() async throws {
        let server = try LoopbackHTTPServer()
        let file = try ProviderFileConfig.parse("""
            {"providers":{"llamacpp":{"base_url":"\(server.url("/v1"))","context_window":{"default":12288}},
                          "ollama":{"context_window":6144}}}
            """)
        let w = windows(try resolved("llamacpp", server, model: "default", file: file), file: file)
        await w.discover(provider: "llamacpp", model: "default")
        #expect(w.limits(provider: "llamacpp", model: "default") == ModelLimits(contextWindow: 12_288, maxOutputTokens: 4_096, source: .config))
        #expect(w.limits(provider: "ollama", model: "anything").contextWindow == 6_144)
        #expect(server.infoRequests.isEmpty && server.requests.isEmpty)
        // A hosted model keeps its catalog figure.
        #expect(w.limits(provider: "gemini", model: "gemini-2.5-flash").source == .catalog)
        // A bad value is a config problem doctor reports.
        let problems = ProviderFileConfig.fieldProblems(try JSONValue.parse(#"{"providers":{"llamacpp":{"context_window":"big"}}}"#))
        #expect(problems.contains { $0.contains("context_window") })
        #expect(ProviderFileConfig.fieldProblems(try JSONValue.parse(#"{"providers":{"llamacpp":{"context_window":16384}}}"#)).isEmpty)
    }

    @Test func adviceNamesTheServerFlag() {
        #expect(ContextWindows.advice(provider: "llamacpp", tokens: 16_384).contains("llama-server -c 16384"))
        #expect(ContextWindows.advice(provider: "llamacpp", tokens: 16_384).contains("--n_ctx 16384"))
        #expect(ContextWindows.advice(provider: "ollama", tokens: 16_384).contains("num_ctx 16384"))
        #expect(ContextWindows.advice(provider: "vllm", tokens: 16_384).contains("--max-model-len 16384"))
    }

    @Test func doctorReadsPropsForToolSupport() async throws {
        let server = try LoopbackHTTPServer()
        server.route("/props", .json(LocalServerBodies.llamaProps(nCtx: 4_096, supportsTools: false)))
        let r = try resolved("llamacpp", server, model: "default")
        let lines = await ContextWindows(transport: CurlTransport(), file: nil).doctorLines(r, model: "default")
        #expect(lines.first == "context window: 4,096 tokens for default, read from the server (/props n_ctx)")
        #expect(lines.contains { $0.hasPrefix("-- tools: the server's chat template does not support tools") && $0.contains("--jinja") })
        #expect(ContextWindows.propsToolSupport(try JSONValue.parse(LocalServerBodies.llamaProps(supportsTools: true))) == true)
        #expect(ContextWindows.propsToolSupport(try JSONValue.parse(#"{"n_ctx":2048}"#)) == nil)
    }
}
