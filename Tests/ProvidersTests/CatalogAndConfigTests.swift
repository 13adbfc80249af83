// Model catalog, cost estimates, provider resolution (flags > env > config.json), credentials file and doctor.
import Foundation
import Testing
import Agent
import HTTP
import Providers
import TestSupport

@Suite struct ModelCatalogTests {
    @Test func knownModelsAndDatedSnapshots() {
        let gpt4o = ModelCatalog.info(model: "gpt-4o-2024-08-06", provider: "openai")
        #expect(gpt4o.isKnown)
        #expect(gpt4o.contextWindow == 128_000)
        #expect(gpt4o.inputPrice == 2.50)
        #expect(ModelCatalog.info(model: "gpt-4o-mini", provider: "openai").inputPrice == 0.15) // longest prefix wins
        #expect(ModelCatalog.info(model: "claude-sonnet-4-20250514", provider: "anthropic").outputPrice == 15)
        #expect(ModelCatalog.info(model: "models/gemini-2.5-flash", provider: "gemini").maxOutputTokens == 65_536)
        #expect(ModelCatalog.info(model: "google/gemini-2.5-flash", provider: "openrouter").isKnown)
        #expect(ModelCatalog.info(model: "gpt-5-mini", provider: "azure").isKnown)
        #expect(!ModelCatalog.info(model: "gpt-4o", provider: "gemini").isKnown)
        // ofj's own offline assistant is known (so /context never tells to configure its window).
        #expect(ModelCatalog.info(model: "offline", provider: "offline").isKnown)
    }

    @Test func unknownModelsGetConservativeDefaults() {
        let hosted = ModelCatalog.info(model: "brand-new-model", provider: "openai")
        #expect(!hosted.isKnown)
        #expect(hosted.contextWindow == 32_768)
        #expect(hosted.outputPrice > 0)
        let local = ModelCatalog.info(model: "qwen3:8b", provider: "ollama")
        #expect(local.inputPrice == 0 && local.outputPrice == 0)
        #expect(ModelCatalog.cost(usage: Usage(inputTokens: 1_000_000, outputTokens: 1_000_000), model: "qwen3:8b", provider: "ollama") == 0)
    }

    @Test func costSplitsCachedInputAndReasoningOutput() {
        // gpt-5: input 1.25, cached 0.125, output 10 (reasoning priced as output).
        let usage = Usage(inputTokens: 1_000_000, cachedInputTokens: 400_000, outputTokens: 200_000, reasoningTokens: 50_000)
        let cost = ModelCatalog.cost(usage: usage, model: "gpt-5", provider: "openai")
        let expected = 0.6 * 1.25 + 0.4 * 0.125 + 0.15 * 10 + 0.05 * 10
        #expect(abs(cost - expected) < 1e-9)
        #expect(ModelCatalog.cost(usage: .zero, model: "gpt-5", provider: "openai") == 0)
        // Inconsistent counts never go negative.
        #expect(ModelCatalog.cost(usage: Usage(inputTokens: 10, cachedInputTokens: 50, outputTokens: 1, reasoningTokens: 9), model: "gpt-5", provider: "openai") >= 0)
    }

    @Test func costEstimatorForTheRunnerDeclinesUnknownHostedModels() {
        let usage = Usage(inputTokens: 1000, outputTokens: 100)
        #expect(ModelCatalog.costEstimator("openai", "gpt-5", usage) != nil)
        #expect(ModelCatalog.costEstimator("openai", "mystery-model", usage) == nil)
        #expect(ModelCatalog.costEstimator("ollama", "qwen3", usage) == 0)
    }

    @Test func priceDateIsStatedAsAnEstimate() {
        #expect(ModelCatalog.pricesCheckedOn.contains("estimate"))
        #expect(ModelCatalog.known.allSatisfy { $0.contextWindow > $0.maxOutputTokens && $0.inputPrice >= $0.cachedInputPrice })
    }
}

@Suite struct ProviderConfigTests {
    let env = ["GEMINI_API_KEY": "AIzaSyTESTKEY0123456789012345678901234", "OPENAI_API_KEY": "sk-openai-test-key-123456"]

    @Test func nothingConfiguredMeansOffline() throws {
        let r = try ProviderResolver.resolve(environment: [:])
        #expect(r.provider == "offline")
        #expect(r.makeModel(transport: FakeHTTPTransport(replies: [])) == nil)
    }

    @Test func flagsOverrideEnvironmentOverrideConfigFile() throws {
        let file = ProviderFileConfig(provider: "openai", model: "gpt-4.1")
        #expect(try ProviderResolver.resolve(environment: env, file: file).provider == "openai")
        #expect(try ProviderResolver.resolve(environment: env, file: file).model == "gpt-4.1")
        var e = env
        e["OFJ_PROVIDER"] = "gemini"
        e["OFJ_MODEL"] = "gemini-2.5-pro"
        let fromEnv = try ProviderResolver.resolve(environment: e, file: file)
        #expect(fromEnv.provider == "gemini" && fromEnv.model == "gemini-2.5-pro")
        let fromFlags = try ProviderResolver.resolve(flags: ProviderFlags(provider: "openai", model: "gpt-5"), environment: e, file: file)
        #expect(fromFlags.provider == "openai" && fromFlags.model == "gpt-5")
        #expect(fromFlags.wire == .responses)
        #expect(fromFlags.apiKey == "sk-openai-test-key-123456")
        #expect(fromFlags.keyVariable == "OPENAI_API_KEY")
    }

    @Test func configModelAppliesOnlyToTheConfiguredProvider() throws {
        let file = ProviderFileConfig(provider: "openai", model: "gpt-4.1")
        let r = try ProviderResolver.resolve(flags: ProviderFlags(provider: "gemini"), environment: env, file: file)
        #expect(r.model == "gemini-2.5-flash")
    }

    @Test func missingKeyNamesTheVariable() {
        #expect(throws: ProviderConfigError.self) { try ProviderResolver.resolve(flags: ProviderFlags(provider: "anthropic"), environment: [:]) }
        do {
            _ = try ProviderResolver.resolve(flags: ProviderFlags(provider: "anthropic"), environment: [:])
        } catch {
            #expect(String(describing: error).contains("ANTHROPIC_API_KEY"))
        }
    }

    @Test func unknownProviderListsTheChoices() {
        do {
            _ = try ProviderResolver.resolve(flags: ProviderFlags(provider: "nope"), environment: [:])
            Issue.record("expected an error")
        } catch {
            #expect(String(describing: error).contains("gemini"))
        }
    }

    @Test func localServersArePatientAndHostedAreFast() throws {
        #expect(try ProviderResolver.resolve(flags: ProviderFlags(provider: "ollama"), environment: [:]).policy == .patient)
        #expect(try ProviderResolver.resolve(flags: ProviderFlags(provider: "llama.cpp"), environment: [:]).policy == .patient)
        #expect(try ProviderResolver.resolve(flags: ProviderFlags(provider: "vllm", model: "m"), environment: [:]).policy == .patient)
        #expect(try ProviderResolver.resolve(flags: ProviderFlags(provider: "lmstudio", model: "m"), environment: [:]).policy == .patient)
        #expect(try ProviderResolver.resolve(flags: ProviderFlags(provider: "gemini"), environment: env).policy == .fast)
        let chosen = ProviderFileConfig(policy: .patient)
        #expect(try ProviderResolver.resolve(flags: ProviderFlags(provider: "gemini"), environment: env, file: chosen).policy == .patient)
        // The transport trails the runner's deadlines, so the runner's (retried, clearer) expiry wins.
        #expect(DeadlinePolicy.patient.httpTimeouts.firstByte == 122 && DeadlinePolicy.patient.httpTimeouts.idle == 62)
        #expect(DeadlinePolicy.fast.httpTimeouts.firstByte == 12 && DeadlinePolicy.fast.httpTimeouts.idle == 10)
        #expect(try ProviderResolver.resolve(flags: ProviderFlags(provider: "ollama"), environment: [:]).adapterConfig.timeouts.idle == 62)
    }

    @Test func baseURLsFromTheEnvironment() throws {
        let ollama = try ProviderResolver.resolve(flags: ProviderFlags(provider: "ollama"), environment: ["OLLAMA_HOST": "0.0.0.0:11434"])
        #expect(ollama.baseURL == "http://127.0.0.1:11434/v1")
        #expect(ollama.apiKey == nil)
        var e = env
        e["OPENAI_BASE_URL"] = "http://localhost:8000/v1"
        let compatible = try ProviderResolver.resolve(flags: ProviderFlags(provider: "openai", model: "m"), environment: e)
        #expect(compatible.wire == .chatCompletions)
        #expect(compatible.baseURL == "http://localhost:8000/v1")
        e["GEMINI_BASE_URL"] = "http://127.0.0.1:9/v1beta"
        #expect(try ProviderResolver.resolve(flags: ProviderFlags(provider: "gemini"), environment: e).baseURL == "http://127.0.0.1:9/v1beta")
    }

    @Test func azureNeedsEndpointAndDeployment() throws {
        let e = ["AZURE_OPENAI_API_KEY": "azkey-1234567890", "AZURE_OPENAI_ENDPOINT": "https://res.openai.azure.com/"]
        #expect(throws: ProviderConfigError.self) { try ProviderResolver.resolve(flags: ProviderFlags(provider: "azure"), environment: e) }
        let r = try ProviderResolver.resolve(flags: ProviderFlags(provider: "azure", model: "my-deployment"), environment: e)
        #expect(r.wire == .azureResponses)
        let model = try #require(r.makeModel(transport: FakeHTTPTransport(replies: [])) as? ResponsesModel)
        #expect(model.url == "https://res.openai.azure.com/openai/v1/responses")
        #expect(model.continuationFamily == "azure-responses")
        #expect(throws: ProviderConfigError.self) {
            try ProviderResolver.resolve(flags: ProviderFlags(provider: "azure", model: "d"), environment: ["AZURE_OPENAI_API_KEY": "k"])
        }
    }

    @Test func openRouterGetsAttributionHeaders() throws {
        let r = try ProviderResolver.resolve(flags: ProviderFlags(provider: "openrouter"), environment: ["OPENROUTER_API_KEY": "sk-or-v1-abcdef"])
        #expect(r.extraHeaders.contains { $0.name == "HTTP-Referer" })
        #expect(r.extraHeaders.contains { $0.name == "X-Title" })
        #expect(r.makeModel(transport: FakeHTTPTransport(replies: [])) is ChatCompletionsModel)
        let file = ProviderFileConfig(providers: ["openrouter": .init(headers: [HTTPHeader("HTTP-Referer", "https://example.org")])])
        let custom = try ProviderResolver.resolve(flags: ProviderFlags(provider: "openrouter"), environment: ["OPENROUTER_API_KEY": "sk-or-v1-abcdef"], file: file)
        #expect(custom.extraHeaders.filter { $0.name == "HTTP-Referer" } == [HTTPHeader("HTTP-Referer", "https://example.org")])
        #expect(custom.extraHeaders.contains(HTTPHeader("X-Title", "ofj")))
    }

    @Test func everyWireBuildsItsAdapter() throws {
        let e = env.merging(["ANTHROPIC_API_KEY": "sk-ant-x-123456789"]) { a, _ in a }
        let t = FakeHTTPTransport(replies: [])
        #expect(try ProviderResolver.resolve(flags: ProviderFlags(provider: "gemini"), environment: e).makeModel(transport: t) is GeminiModel)
        #expect(try ProviderResolver.resolve(flags: ProviderFlags(provider: "openai"), environment: e).makeModel(transport: t) is ResponsesModel)
        #expect(try ProviderResolver.resolve(flags: ProviderFlags(provider: "anthropic"), environment: e).makeModel(transport: t) is AnthropicModel)
        #expect(try ProviderResolver.resolve(flags: ProviderFlags(provider: "ollama"), environment: e).makeModel(transport: t) is ChatCompletionsModel)
    }

    @Test func descriptionNeverShowsTheKey() throws {
        let r = try ProviderResolver.resolve(flags: ProviderFlags(provider: "gemini"), environment: env)
        #expect(!String(describing: r).contains("AIzaSy"))
    }

    @Test func configFileParsing() throws {
        let file = try ProviderFileConfig.parse(#"{"provider":"openrouter","model":"x/y","policy":"patient","journal":{"x":1},"providers":{"openai":{"base_url":"http://h:1/v1","wire":"chat","headers":{"X-A":"b"}}}}"#)
        #expect(file.provider == "openrouter")
        #expect(file.model == "x/y")
        #expect(file.policy == .patient)
        #expect(file.providers["openai"]?.baseURL == "http://h:1/v1")
        let r = try ProviderResolver.resolve(flags: ProviderFlags(provider: "openai", model: "m"), environment: env, file: file)
        #expect(r.wire == .chatCompletions)
        #expect(r.baseURL == "http://h:1/v1")
        #expect(r.extraHeaders == [HTTPHeader("X-A", "b")])
        #expect(throws: ProviderConfigError.self) { try ProviderFileConfig.parse("{not json") }
    }
}

@Suite struct CredentialsAndDoctorTests {
    @Test func credentialsFileIsReadOnlyWithMode600() throws {
        let dir = TempDirectory()
        let folder = dir.file("ofj")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = "\(folder)/credentials"
        try "# keys\nGEMINI_API_KEY=AIzaFromFile123\nexport OPENAI_API_KEY=\"sk-quoted-1\"\n\nBROKEN LINE\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(CredentialsFile.path(environment: ["XDG_CONFIG_HOME": dir.path]) == path)
        #expect(chmod(path, 0o644) == 0)
        do {
            _ = try CredentialsFile.load(path: path)
            Issue.record("a 0644 credentials file was read")
        } catch {
            let text = String(describing: error)
            #expect(text.contains("chmod 600"))
            #expect(!text.contains("AIzaFromFile123"))
        }
        #expect(chmod(path, 0o600) == 0)
        let creds = try CredentialsFile.load(path: path)
        #expect(creds == ["GEMINI_API_KEY": "AIzaFromFile123", "OPENAI_API_KEY": "sk-quoted-1"])
        #expect(try CredentialsFile.load(path: dir.file("missing")) == [:])
        // Environment wins over the file; the file fills in what the environment lacks.
        let r = try ProviderResolver.resolve(flags: ProviderFlags(provider: "gemini"), environment: ["GEMINI_API_KEY": "AIzaFromEnv999"], credentials: creds)
        #expect(r.apiKey == "AIzaFromEnv999")
        let r2 = try ProviderResolver.resolve(flags: ProviderFlags(provider: "gemini"), environment: [:], credentials: creds)
        #expect(r2.apiKey == "AIzaFromFile123")
    }

    @Test func doctorListsEveryProviderWithoutKeys() {
        let key = "AIzaSyDOCTORKEY01234567890123456789012"
        let lines = ProviderDoctor.report(environment: ["GEMINI_API_KEY": key, "OFJ_PROVIDER": "gemini"],
                                          credentials: ["ANTHROPIC_API_KEY": "sk-ant-fromfile-123"],
                                          credentialsError: "refusing to read /x/credentials: its mode is 644, it must be 600; run: chmod 600 /x/credentials")
        let text = ProviderDoctor.render(lines)
        #expect(!text.contains(key))
        #expect(!text.contains("sk-ant-fromfile-123"))
        #expect(text.contains("GEMINI_API_KEY set (\(key.count) chars)"))
        let byName = Dictionary(uniqueKeysWithValues: lines.map { ($0.provider, $0) })
        #expect(byName["gemini"]?.usable == true)
        #expect(byName["gemini"]?.selected == true)
        #expect(byName["anthropic"]?.usable == true)
        #expect(byName["anthropic"]?.detail.contains("credentials file") == true)
        #expect(byName["openai"]?.usable == false)
        #expect(byName["openai"]?.detail.contains("OPENAI_API_KEY") == true)
        #expect(byName["azure"]?.usable == false)
        #expect(byName["ollama"]?.usable == true)
        #expect(byName["offline"]?.usable == true)
        #expect(byName["credentials"]?.detail.contains("chmod 600") == true)
        #expect(Set(lines.map(\.provider)).isSuperset(of: ["gemini", "openai", "openrouter", "anthropic", "azure", "ollama", "llamacpp", "vllm", "lmstudio"]))
    }

    @Test func filesLoadFromTheConfigFolderAndReportProblems() throws {
        let dir = TempDirectory()
        let folder = dir.file("ofj")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try #"{"provider":"anthropic","model":"claude-haiku-4-5"}"#.write(toFile: "\(folder)/config.json", atomically: true, encoding: .utf8)
        try "ANTHROPIC_API_KEY=sk-ant-file-0123456789\n".write(toFile: "\(folder)/credentials", atomically: true, encoding: .utf8)
        #expect(chmod("\(folder)/credentials", 0o640) == 0)
        let env = ["XDG_CONFIG_HOME": dir.path]
        let refused = ProviderFiles.load(environment: env)
        #expect(refused.file?.provider == "anthropic")
        #expect(refused.credentials.isEmpty)
        #expect(refused.problems.count == 1)
        do {
            _ = try ProviderResolver.resolve(environment: env, file: refused.file, credentials: refused.credentials,
                                             credentialsProblem: refused.credentialsProblem)
            Issue.record("resolved without a key")
        } catch {
            #expect(String(describing: error).contains("chmod 600"))
        }
        #expect(chmod("\(folder)/credentials", 0o600) == 0)
        let ok = ProviderFiles.load(environment: env)
        #expect(ok.problems.isEmpty)
        let r = try ProviderResolver.resolve(environment: env, file: ok.file, credentials: ok.credentials)
        #expect(r.provider == "anthropic" && r.model == "claude-haiku-4-5" && r.apiKey == "sk-ant-file-0123456789")
        try "{broken".write(toFile: "\(folder)/config.json", atomically: true, encoding: .utf8)
        #expect(ProviderFiles.load(environment: env).problems.first?.contains("config.json") == true)
    }
}
