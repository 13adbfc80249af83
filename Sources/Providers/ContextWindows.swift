// The real context window of each model: config.json's `context_window`, else read from a local
// server at first use (llama.cpp /props, Ollama /api/show, vLLM /v1/models, LM Studio
// /api/v0/models) and cached for the process, else the model catalog, else an assumption.
import Agent
import Base
import HTTP
import Synchronization

public final class ContextWindows: Sendable {
    let transport: any HTTPTransport
    let file: ProviderFileConfig?
    /// Base URL of each provider a model was built for (the server to ask).
    let endpoints = Mutex<[String: String]>([:])
    /// "provider model" → what the server said (nil: asked, it did not say).
    let found = Mutex<[String: ServerWindow?]>([:])

    /// A window a server reported, and the field it came from.
    public struct ServerWindow: Sendable, Hashable {
        public var tokens: Int
        public var field: String
        public init(tokens: Int, field: String) {
            self.tokens = tokens
            self.field = field
        }
    }

    public init(transport: any HTTPTransport, file: ProviderFileConfig?) {
        self.transport = transport
        self.file = file
    }

    /// Remembers where `resolved`'s server is, so its window can be read at first use.
    public func register(_ resolved: ResolvedProvider) {
        endpoints.withLock { $0[resolved.provider] = resolved.baseURL }
    }

    static func key(_ provider: String, _ model: String) -> String { provider + " " + model }

    /// config.json's `providers.<name>.context_window` for this model: a number for every model
    /// of the provider, or an object of model → number.
    public func configured(provider: String, model: String) -> Int? {
        guard let entry = file?.providers[provider] else { return nil }
        return entry.contextWindows[model] ?? entry.contextWindow
    }

    /// The limits for (provider, model), with where the window came from.
    public func limits(provider: String, model: String) -> ModelLimits {
        let info = ModelCatalog.info(model: model, provider: provider)
        if let n = configured(provider: provider, model: model) {
            return ModelLimits(contextWindow: n, maxOutputTokens: info.maxOutputTokens, source: .config)
        }
        if let server = found.withLock({ $0[Self.key(provider, model)] }) ?? nil {
            return ModelLimits(contextWindow: server.tokens, maxOutputTokens: info.maxOutputTokens, source: .server(server.field))
        }
        return ModelLimits(contextWindow: info.contextWindow, maxOutputTokens: info.maxOutputTokens, source: info.isKnown ? .catalog : .assumed)
    }

    /// Reads a local server's window once per process (nothing for hosted providers, or when
    /// config.json gives it). A server that does not say leaves the assumption in place.
    public func discover(provider: String, model: String) async {
        guard ModelCatalog.localProviders.contains(provider), configured(provider: provider, model: model) == nil,
              let base = endpoints.withLock({ $0[provider] }) else { return }
        let key = Self.key(provider, model)
        guard found.withLock({ $0[key] }) == nil else { return }
        let window = await Self.read(provider: provider, model: model, baseURL: base, transport: transport)
        found.withLock { $0[key] = .some(window) }
    }

    /// The server's root (the base URL without its `/v1`).
    static func root(_ baseURL: String) -> String {
        var s = baseURL
        while s.hasSuffix("/") { s.removeLast() }
        if s.hasSuffix("/v1") { s.removeLast(3) }
        return s
    }

    /// Asks the server in the ways its kind answers; the first figure found wins.
    static func read(provider: String, model: String, baseURL: String, transport: any HTTPTransport) async -> ServerWindow? {
        let root = root(baseURL)
        let probes: [(String, String, [UInt8], (JSONValue) -> ServerWindow?)]
        let show = Array(JSONValue.object(["model": .string(model)]).serialized.utf8)
        switch provider {
        case "ollama": probes = [("POST", root + "/api/show", show, { ollamaWindow($0) })]
        case "lmstudio": probes = [("GET", root + "/api/v0/models", [], { lmStudioWindow($0, model: model) }),
                                   ("GET", root + "/v1/models", [], { modelsWindow($0, model: model) })]
        case "vllm": probes = [("GET", root + "/v1/models", [], { modelsWindow($0, model: model) })]
        default: probes = [("GET", root + "/props", [], { propsWindow($0) }), ("GET", root + "/v1/models", [], { modelsWindow($0, model: model) })]
        }
        for (method, url, body, parse) in probes {
            if let json = await fetchJSON(method: method, url: url, body: body, transport: transport), let w = parse(json) { return w }
        }
        return nil
    }

    /// A small JSON GET/POST with short timeouts; nil on any failure.
    static func fetchJSON(method: String, url: String, body: [UInt8], transport: any HTTPTransport) async -> JSONValue? {
        var request = HTTPRequest(method: method, url: url, headers: body.isEmpty ? [] : [HTTPHeader("Content-Type", "application/json")], body: body,
                                  timeouts: HTTPTimeouts(connect: 2, firstByte: 5, idle: 5))
        request.decodeContent = true
        guard let response = try? await transport.send(request), response.head.status == 200,
              let bytes = try? await response.collect(limit: 4 << 20) else { return nil }
        return try? JSONValue.parse(String(decoding: bytes, as: UTF8.self))
    }

    static func positive(_ v: JSONValue?) -> Int? {
        guard let d = v?.doubleValue, d >= 1, d < 100_000_000 else { return nil }
        return Int(d)
    }

    /// llama.cpp `GET /props`: `default_generation_settings.n_ctx` (older servers: top-level `n_ctx`).
    public static func propsWindow(_ json: JSONValue) -> ServerWindow? {
        if let n = positive(json["default_generation_settings"]?["n_ctx"]) { return ServerWindow(tokens: n, field: "/props n_ctx") }
        if let n = positive(json["n_ctx"]) { return ServerWindow(tokens: n, field: "/props n_ctx") }
        return nil
    }

    /// Ollama `POST /api/show`: `num_ctx` in `parameters` when the model sets it; otherwise Ollama
    /// runs the model with its default context (4,096), whatever `<arch>.context_length` allows.
    public static func ollamaWindow(_ json: JSONValue) -> ServerWindow? {
        if let parameters = json["parameters"]?.stringValue {
            for line in parameters.split(separator: "\n") {
                let words = line.split(separator: " ", omittingEmptySubsequences: true)
                if words.count >= 2, words[0] == "num_ctx", let n = Int(words[1]), n > 0 { return ServerWindow(tokens: n, field: "/api/show num_ctx") }
            }
        }
        guard let info = json["model_info"]?.objectValue else { return nil }
        let arch = info["general.architecture"]?.stringValue
        let trained = arch.flatMap { positive(info["\($0).context_length"]) }
            ?? info.first { $0.key.hasSuffix(".context_length") }.flatMap { positive($0.value) }
        guard let trained else { return nil }
        return ServerWindow(tokens: min(trained, ollamaDefaultContext),
                            field: "/api/show: no num_ctx, Ollama's default \(ollamaDefaultContext); the model allows \(CompactingAssemblerNumber.format(trained))")
    }

    /// The context Ollama gives a model whose parameters set no `num_ctx`.
    public static let ollamaDefaultContext = 4_096

    /// vLLM `GET /v1/models`: `max_model_len` of the model (llama-cpp-python and others: `meta.n_ctx`).
    public static func modelsWindow(_ json: JSONValue, model: String) -> ServerWindow? {
        guard let data = json["data"]?.arrayValue, !data.isEmpty else { return nil }
        guard let entry = data.first(where: { $0["id"]?.stringValue == model }) ?? (data.count == 1 ? data.first : nil) else { return nil }
        if let n = positive(entry["max_model_len"]) { return ServerWindow(tokens: n, field: "/v1/models max_model_len") }
        if let n = positive(entry["meta"]?["n_ctx"]) { return ServerWindow(tokens: n, field: "/v1/models meta.n_ctx") }
        return nil
    }

    /// LM Studio `GET /api/v0/models`: `loaded_context_length` (the loaded model), else `max_context_length`.
    public static func lmStudioWindow(_ json: JSONValue, model: String) -> ServerWindow? {
        guard let data = json["data"]?.arrayValue else { return nil }
        guard let entry = data.first(where: { $0["id"]?.stringValue == model }) ?? (data.count == 1 ? data.first : nil) else { return nil }
        if let n = positive(entry["loaded_context_length"]) { return ServerWindow(tokens: n, field: "/api/v0/models loaded_context_length") }
        if let n = positive(entry["max_context_length"]) { return ServerWindow(tokens: n, field: "/api/v0/models max_context_length") }
        return nil
    }

    /// What llama.cpp's `/props` says about tools: `chat_template_caps.supports_tools` (or
    /// `supports_tool_calls`), or a top-level `supports_tools`; nil when it does not say.
    public static func propsToolSupport(_ json: JSONValue) -> Bool? {
        for holder in [json["chat_template_caps"], json] {
            for field in ["supports_tools", "supports_tool_calls"] {
                if let b = holder?[field]?.boolValue { return b }
            }
        }
        return nil
    }

    /// `ofj doctor`'s lines for a local server: its context window and, for llama.cpp, whether its
    /// chat template takes tools. Asks the server (short timeouts); nothing for hosted providers.
    public func doctorLines(_ resolved: ResolvedProvider, model: String) async -> [String] {
        register(resolved)
        let provider = resolved.provider
        var lines: [String] = []
        if ModelCatalog.localProviders.contains(provider) { await discover(provider: provider, model: model) }
        let limits = limits(provider: provider, model: model)
        lines.append("context window: \(CompactingAssemblerNumber.format(limits.contextWindow)) tokens for \(model), \(limits.source.phrase)")
        if provider == "llamacpp",
           let props = await Self.fetchJSON(method: "GET", url: Self.root(resolved.baseURL) + "/props", body: [], transport: transport) {
            switch Self.propsToolSupport(props) {
            case true?: lines.append("tools: the server's chat template supports tools (/props)")
            case false?: lines.append("-- tools: the server's chat template does not support tools (/props): the model will not see ofj's tools; "
                                      + "start llama-server with --jinja and a template with tools (--chat-template-file)")
            case nil: lines.append("tools: /props does not say whether the chat template supports tools; start llama-server with --jinja")
            }
        }
        return lines
    }

    /// How to give a model `tokens` of context on this provider's server.
    public static func advice(provider: String, tokens: Int) -> String {
        switch provider {
        case "llamacpp":
            return "restart the server with a larger context: llama-server -c \(tokens) (llama-cpp-python: --n_ctx \(tokens))"
        case "ollama":
            return "give the model a larger num_ctx: OLLAMA_CONTEXT_LENGTH=\(tokens) ollama serve, or PARAMETER num_ctx \(tokens) in its Modelfile"
        case "vllm":
            return "restart vLLM with --max-model-len \(tokens)"
        case "lmstudio":
            return "load the model in LM Studio with a context length of \(tokens) (lms load … --context-length \(tokens))"
        default:
            return "use a model with a context of at least \(tokens) tokens, or set providers.\(provider).context_window in config.json if the figure is wrong"
        }
    }
}

/// Thousands separators for lines people read.
enum CompactingAssemblerNumber {
    static func format(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out
    }
}
