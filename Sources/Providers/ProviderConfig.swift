// Chooses provider and model (flags > environment > config.json), finds keys, builds adapters, and reports for `ofj doctor`.
import Base
import Foundation
import HTTP
import Settings
import Agent

extension DeadlinePolicy {
    /// Transport timeouts for this policy: a backstop 2 s behind the first-event and stream-idle
    /// deadlines, which the runner enforces itself (with the turn and run deadlines). Equal
    /// limits raced, and when the transport won the person saw a different line for the same
    /// stall, and a first-event stall was not retried.
    public var httpTimeouts: HTTPTimeouts {
        HTTPTimeouts(connect: 10, firstByte: firstEvent + Self.transportMargin, idle: streamIdle + Self.transportMargin)
    }

    /// How far the transport's timeouts trail the runner's deadlines, in seconds.
    public static let transportMargin = 2.0

    /// "fast" or "patient" (config.json spelling).
    public static func named(_ name: String) -> DeadlinePolicy? {
        switch name.lowercased() {
        case "fast": return .fast
        case "patient": return .patient
        default: return nil
        }
    }
}

/// Which wire adapter a provider uses.
public enum WireFormat: String, Sendable, Hashable {
    case gemini, chatCompletions = "chat", responses, azureResponses = "azure-responses", anthropic, offline
}

/// The command-line flags that affect the provider.
public struct ProviderFlags: Sendable {
    public var provider: String?
    public var model: String?
    public init(provider: String? = nil, model: String? = nil) {
        self.provider = provider
        self.model = model
    }
}

/// The provider-related part of `config.json`:
/// `{"provider":"gemini","model":"…","policy":"fast|patient",
///   "providers":{"openai":{"base_url":"…","model":"…","wire":"chat|responses","headers":{"X":"y"},
///                          "context_window":16384 | {"model":16384}}}}`.
public struct ProviderFileConfig: Sendable {
    public struct Entry: Sendable {
        public var baseURL: String?
        public var model: String?
        public var wire: String?
        public var headers: [HTTPHeader]
        public var policy: DeadlinePolicy?
        /// `context_window`: a number (every model of this provider) …
        public var contextWindow: Int?
        /// … or an object of model name → number.
        public var contextWindows: [String: Int] = [:]
        public init(baseURL: String? = nil, model: String? = nil, wire: String? = nil, headers: [HTTPHeader] = [], policy: DeadlinePolicy? = nil) {
            self.baseURL = baseURL
            self.model = model
            self.wire = wire
            self.headers = headers
            self.policy = policy
        }
    }
    public var provider: String?
    public var model: String?
    public var policy: DeadlinePolicy?
    public var providers: [String: Entry]
    /// `"research"`: native, tavily, parallel or off (ResearchChoice); nil when unset.
    public var research: String?

    public init(provider: String? = nil, model: String? = nil, policy: DeadlinePolicy? = nil, providers: [String: Entry] = [:]) {
        self.provider = provider
        self.model = model
        self.policy = policy
        self.providers = providers
    }

    /// Reads the provider fields of config.json; unknown fields are left to other modules.
    public static func parse(_ text: String) throws -> ProviderFileConfig {
        let json: JSONValue
        do { json = try JSONValue.parse(text) } catch {
            throw ProviderConfigError("config.json is not valid JSON (\(error)); fix or remove it")
        }
        var out = ProviderFileConfig()
        out.provider = json["provider"]?.stringValue
        out.model = json["model"]?.stringValue
        out.policy = json["policy"]?.stringValue.flatMap(DeadlinePolicy.named)
        out.research = json["research"]?.stringValue
        for (name, v) in json["providers"]?.objectValue ?? [:] {
            var e = Entry()
            e.baseURL = v["base_url"]?.stringValue
            e.model = v["model"]?.stringValue
            e.wire = v["wire"]?.stringValue
            e.policy = v["policy"]?.stringValue.flatMap(DeadlinePolicy.named)
            if let n = v["context_window"]?.intValue, n > 0 { e.contextWindow = n }
            for (m, w) in v["context_window"]?.objectValue ?? [:] {
                if let n = w.intValue, n > 0 { e.contextWindows[m] = n }
            }
            for (h, hv) in (v["headers"]?.objectValue ?? [:]).sorted(by: { $0.key < $1.key }) {
                if let s = hv.stringValue { e.headers.append(HTTPHeader(h, s)) }
            }
            out.providers[name] = e
        }
        return out
    }
}

/// A configuration problem, worded for the person.
public struct ProviderConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The credentials file `$XDG_CONFIG_HOME/ofj/credentials`: KEY=VALUE lines, mode 0600 only.
public enum CredentialsFile {
    /// `$XDG_CONFIG_HOME/ofj/credentials`, or `~/.config/ofj/credentials`: AppPaths' rules (a
    /// relative XDG_CONFIG_HOME is ignored). Never nil; optional for its callers.
    public static func path(environment: [String: String]) -> String? {
        AppPaths(environment: environment).credentialsPath
    }

    /// Reads the file. A missing file is an empty set; a file readable by group or others is
    /// refused (the keys may already have leaked, so say how to fix it).
    public static func load(path: String) throws -> [String: String] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [:] }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw ProviderConfigError("refusing to read \(path): its mode is \(String(mode, radix: 8)), it must be 600; run: chmod 600 \(path)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ProviderConfigError("could not read \(path); check its owner and permissions")
        }
        return parse(String(decoding: data, as: UTF8.self))
    }

    /// KEY=VALUE per line; blank lines and `#` comments skipped; optional `export `, optional quotes.
    public static func parse(_ text: String) -> [String: String] {
        var out: [String: String] = [:]
        for raw in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            var line = raw.trimmingSet(" \t")
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("export ") { line = String(line.dropFirst(7)).trimmingSpaces }
            guard let eq = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<eq]).trimmingSpaces
            var value = String(line[line.index(after: eq)...]).trimmingSpaces
            if value.count >= 2, let f = value.first, f == "\"" || f == "'", value.last == f {
                value = String(value.dropFirst().dropLast())
            }
            if !key.isEmpty { out[key] = value }
        }
        return out
    }
}

/// Static facts about each provider ofj can talk to.
public struct ProviderSpec: Sendable {
    public var name: String
    public var wire: WireFormat
    public var defaultBaseURL: String
    /// Variable that overrides the base URL, if any.
    public var baseURLVariable: String?
    /// Variable holding the key; nil for keyless local servers.
    public var keyVariable: String?
    public var defaultModel: String?
    public var policy: DeadlinePolicy

    public static let all: [ProviderSpec] = [
        ProviderSpec(name: "gemini", wire: .gemini, defaultBaseURL: "https://generativelanguage.googleapis.com/v1beta",
                     baseURLVariable: "GEMINI_BASE_URL", keyVariable: "GEMINI_API_KEY", defaultModel: "gemini-2.5-flash", policy: .fast),
        ProviderSpec(name: "openai", wire: .responses, defaultBaseURL: "https://api.openai.com/v1",
                     baseURLVariable: "OPENAI_BASE_URL", keyVariable: "OPENAI_API_KEY", defaultModel: "gpt-5-mini", policy: .fast),
        ProviderSpec(name: "openrouter", wire: .chatCompletions, defaultBaseURL: "https://openrouter.ai/api/v1",
                     baseURLVariable: "OPENROUTER_BASE_URL", keyVariable: "OPENROUTER_API_KEY", defaultModel: "google/gemini-2.5-flash", policy: .fast),
        ProviderSpec(name: "anthropic", wire: .anthropic, defaultBaseURL: "https://api.anthropic.com/v1",
                     baseURLVariable: "ANTHROPIC_BASE_URL", keyVariable: "ANTHROPIC_API_KEY", defaultModel: "claude-sonnet-4-5", policy: .fast),
        ProviderSpec(name: "azure", wire: .azureResponses, defaultBaseURL: "",
                     baseURLVariable: "AZURE_OPENAI_ENDPOINT", keyVariable: "AZURE_OPENAI_API_KEY", defaultModel: nil, policy: .fast),
        ProviderSpec(name: "ollama", wire: .chatCompletions, defaultBaseURL: "http://localhost:11434/v1",
                     baseURLVariable: "OLLAMA_HOST", keyVariable: nil, defaultModel: "llama3.2", policy: .patient),
        ProviderSpec(name: "llamacpp", wire: .chatCompletions, defaultBaseURL: "http://localhost:8080/v1",
                     baseURLVariable: nil, keyVariable: nil, defaultModel: "default", policy: .patient),
        ProviderSpec(name: "vllm", wire: .chatCompletions, defaultBaseURL: "http://localhost:8000/v1",
                     baseURLVariable: nil, keyVariable: nil, defaultModel: nil, policy: .patient),
        ProviderSpec(name: "lmstudio", wire: .chatCompletions, defaultBaseURL: "http://localhost:1234/v1",
                     baseURLVariable: nil, keyVariable: nil, defaultModel: nil, policy: .patient),
    ]

    /// Accepted spellings of provider names.
    static let aliases: [String: String] = ["google": "gemini", "llama.cpp": "llamacpp", "llama-cpp": "llamacpp",
                                            "lm-studio": "lmstudio", "azure-openai": "azure", "claude": "anthropic"]

    public static func named(_ name: String) -> ProviderSpec? {
        let lower = name.lowercased()
        let canonical = aliases[lower] ?? lower
        return all.first { $0.name == canonical }
    }
}

/// A fully resolved provider choice. `description` never shows the key.
public struct ResolvedProvider: Sendable, CustomStringConvertible {
    public var provider: String
    public var model: String
    public var wire: WireFormat
    public var baseURL: String
    public var apiKey: String?
    /// Variable the key came from (or should come from), for error messages.
    public var keyVariable: String
    public var policy: DeadlinePolicy
    public var extraHeaders: [HTTPHeader]

    public var description: String { "\(provider) \(model) via \(wire.rawValue) at \(baseURL) (\(policy.name))" }

    public var adapterConfig: AdapterConfig {
        AdapterConfig(provider: provider, baseURL: baseURL, apiKey: apiKey, model: model, extraHeaders: extraHeaders,
                      timeouts: policy.httpTimeouts, keyVariable: keyVariable)
    }

    /// Builds the adapter. Returns nil for "offline" (the offline assistant is built elsewhere).
    /// `nativeWebSearch`: declare the provider's own web search (research `native`).
    public func makeModel(transport: any HTTPTransport, nativeWebSearch: Bool = false) -> (any ChatModel)? {
        var config = adapterConfig
        config.nativeWebSearch = nativeWebSearch
        switch wire {
        case .gemini: return GeminiModel(config: config, transport: transport)
        case .chatCompletions: return ChatCompletionsModel(config: config, transport: transport)
        case .responses: return ResponsesModel(config: config, flavor: .openAI, transport: transport)
        case .azureResponses: return ResponsesModel(config: config, flavor: .azure, transport: transport)
        case .anthropic: return AnthropicModel(config: config, transport: transport)
        case .offline: return nil
        }
    }
}

public enum ProviderResolver {
    /// OpenRouter asks apps to identify themselves with these headers. The project has no public
    /// site yet, so the referer uses the reserved `.invalid` domain; config.json
    /// `providers.openrouter.headers` overrides either header.
    public static let openRouterHeaders = [HTTPHeader("HTTP-Referer", "https://ofj.invalid"), HTTPHeader("X-Title", "ofj")]

    /// Resolves provider and model: flags > environment > config.json; keys from the
    /// environment, then the credentials file. No provider anywhere means "offline".
    /// `credentialsProblem` is the message from a refused credentials file: when the key is
    /// missing it is the more useful thing to say.
    public static func resolve(flags: ProviderFlags = ProviderFlags(), environment: [String: String],
                               file: ProviderFileConfig? = nil, credentials: [String: String] = [:],
                               credentialsProblem: String? = nil) throws -> ResolvedProvider {
        let env = environment.filter { !$0.value.isEmpty }
        let chosen = flags.provider ?? env["OFJ_PROVIDER"] ?? file?.provider ?? "offline"
        if chosen.lowercased() == "offline" {
            return ResolvedProvider(provider: "offline", model: "offline", wire: .offline, baseURL: "", apiKey: nil,
                                    keyVariable: "", policy: file?.policy ?? .fast, extraHeaders: [])
        }
        guard let spec = ProviderSpec.named(chosen) else {
            let names = (["offline"] + ProviderSpec.all.map(\.name)).joined(separator: ", ")
            throw ProviderConfigError("unknown provider \"\(chosen)\"; choose one of: \(names)")
        }
        let entry = file?.providers[spec.name]
        // The top-level config model applies only to the provider the config file chose.
        let fileModel = entry?.model ?? (file?.provider.flatMap(ProviderSpec.named)?.name == spec.name ? file?.model : nil)
        // Checked in the order a person fixes them: key, endpoint, model.
        var key: String?
        if let variable = spec.keyVariable {
            key = env[variable] ?? credentials[variable].flatMap { $0.isEmpty ? nil : $0 }
            if key == nil, let credentialsProblem { throw ProviderConfigError(credentialsProblem) }
            if key == nil {
                throw ProviderConfigError("\(spec.name) needs a key; set \(variable) in the environment or in the credentials file")
            }
        }
        var wire = spec.wire
        var baseURL = spec.defaultBaseURL
        if let variable = spec.baseURLVariable, let value = env[variable] {
            baseURL = spec.name == "ollama" ? ollamaBase(value) : value
            // OPENAI_BASE_URL points at "any OpenAI-compatible server": those speak Chat Completions.
            if spec.name == "openai" && !value.hasPrefix("https://api.openai.com") { wire = .chatCompletions }
        }
        if let configured = entry?.baseURL { baseURL = spec.name == "ollama" ? ollamaBase(configured) : configured }
        if let w = entry?.wire {
            switch w {
            case "chat": wire = .chatCompletions
            case "responses": wire = spec.name == "azure" ? .azureResponses : .responses
            default: throw ProviderConfigError("config.json: unknown wire \"\(w)\" for \(spec.name); use \"chat\" or \"responses\"")
            }
        }
        if spec.name == "azure" && baseURL.isEmpty {
            throw ProviderConfigError("azure needs its endpoint; set AZURE_OPENAI_ENDPOINT (https://<resource>.openai.azure.com)")
        }
        if spec.name == "azure", let r = baseURL.range(of: "/openai") { baseURL = String(baseURL[..<r.lowerBound]) }
        guard let model = flags.model ?? env["OFJ_MODEL"] ?? fileModel ?? spec.defaultModel else {
            let what = spec.name == "azure" ? "your deployment name" : "the model name"
            throw ProviderConfigError("no model chosen for \(spec.name); set OFJ_MODEL or pass --model with \(what)")
        }
        var headers = entry?.headers ?? []
        if spec.name == "openrouter" {
            for h in openRouterHeaders where !headers.contains(where: { $0.name.lowercased() == h.name.lowercased() }) { headers.append(h) }
        }
        let policy = entry?.policy ?? file?.policy ?? spec.policy
        return ResolvedProvider(provider: spec.name, model: model, wire: wire, baseURL: baseURL, apiKey: key,
                                keyVariable: spec.keyVariable ?? "", policy: policy, extraHeaders: headers)
    }

    /// OLLAMA_HOST is "host:port" or a URL; the OpenAI-compatible API lives under /v1.
    static func ollamaBase(_ host: String) -> String {
        var h = host
        if !h.hasPrefix("http://") && !h.hasPrefix("https://") { h = "http://" + h }
        while h.hasSuffix("/") { h.removeLast() }
        if h.hasPrefix("http://0.0.0.0") { h = "http://127.0.0.1" + h.dropFirst("http://0.0.0.0".count) }
        return h.hasSuffix("/v1") ? h : h + "/v1"
    }
}

/// `ofj doctor`: which providers are usable, and why not. Never prints a key.
public enum ProviderDoctor {
    public struct Line: Sendable, Hashable {
        public var provider: String
        public var usable: Bool
        public var detail: String
        public var selected: Bool
    }

    /// One line per provider plus the current selection. `credentialsError` is the message from
    /// a refused credentials file, if any.
    public static func report(flags: ProviderFlags = ProviderFlags(), environment: [String: String], file: ProviderFileConfig? = nil,
                              credentials: [String: String] = [:], credentialsError: String? = nil) -> [Line] {
        let env = environment.filter { !$0.value.isEmpty }
        let selected = (try? ProviderResolver.resolve(flags: flags, environment: environment, file: file, credentials: credentials))?.provider
        var lines: [Line] = []
        lines.append(Line(provider: "offline", usable: true, detail: "built in, no network", selected: selected == "offline"))
        for spec in ProviderSpec.all {
            var notes: [String] = []
            if let variable = spec.keyVariable {
                if let v = env[variable] {
                    notes.append("\(variable) set (\(v.count) chars)")
                } else if let v = credentials[variable], !v.isEmpty {
                    notes.append("\(variable) set in the credentials file (\(v.count) chars)")
                }
            } else {
                notes.append("no key needed")
            }
            var probe = flags
            probe.provider = spec.name
            let usable: Bool
            do {
                let r = try ProviderResolver.resolve(flags: probe, environment: environment, file: file, credentials: credentials)
                usable = true
                notes.append("model \(r.model) at \(r.baseURL), \(r.policy.name) deadlines")
                if ModelCatalog.localProviders.contains(spec.name) { notes.append("server not contacted") }
            } catch {
                usable = false
                notes.append(String(describing: error))
            }
            lines.append(Line(provider: spec.name, usable: usable, detail: notes.joined(separator: "; "), selected: selected == spec.name))
        }
        if let credentialsError {
            lines.append(Line(provider: "credentials", usable: false, detail: credentialsError, selected: false))
        }
        return lines
    }

    /// The report as text lines for the terminal.
    public static func render(_ lines: [Line]) -> String {
        lines.map { l in
            let mark = l.usable ? "ok " : "-- "
            return "\(mark)\(l.provider)\(l.selected ? " (selected)" : ""): \(l.detail)"
        }.joined(separator: "\n")
    }
}

/// Reads the provider settings from disk: `$XDG_CONFIG_HOME/ofj/config.json` (or
/// `~/.config/ofj/config.json`) and the credentials file. Problems are collected, not thrown, so
/// `ofj doctor` can show them all and a broken file never hides the environment's keys.
public enum ProviderFiles {
    public struct Loaded: Sendable {
        public var file: ProviderFileConfig?
        public var credentials: [String: String]
        /// The credentials file's refusal message, if it was refused.
        public var credentialsProblem: String?
        /// Every problem, one line each (config.json and credentials).
        public var problems: [String]
    }

    /// config.json where AppPaths puts it, the same file every other section is read from. Never
    /// nil; optional for its callers.
    public static func configPath(environment: [String: String]) -> String? {
        AppPaths(environment: environment).configPath
    }

    public static func load(environment: [String: String]) -> Loaded {
        var loaded = Loaded(file: nil, credentials: [:], credentialsProblem: nil, problems: [])
        if let path = configPath(environment: environment), let text = ConfigFile(path: path).text() {
            do {
                loaded.file = try ProviderFileConfig.parse(text)
            } catch {
                loaded.problems.append("\(path): \(error)")
            }
        }
        if let path = CredentialsFile.path(environment: environment) {
            do {
                loaded.credentials = try CredentialsFile.load(path: path)
            } catch {
                loaded.credentialsProblem = String(describing: error)
                loaded.problems.append(String(describing: error))
            }
        }
        return loaded
    }
}

extension ProviderFiles {
    /// What loading config.json tolerates but a person should fix: a provider or model ofj does
    /// not know, or a field of the wrong type or value (for `ofj doctor`, which exits 1 on any).
    public static func configProblems(environment: [String: String]) -> [String] {
        guard let path = configPath(environment: environment), let json = try? ConfigFile(path: path).document() else {
            return [] // missing, or unreadable: `load` reports it
        }
        return ProviderFileConfig.fieldProblems(json).map { "\(path): \($0)" }
    }
}

extension ProviderFileConfig {
    static let providerNames = ["offline"] + ProviderSpec.all.map(\.name)
    /// Providers whose catalog lists every model ofj can name with confidence (others serve any).
    static let catalogedProviders: Set<String> = ["gemini", "openai", "anthropic"]

    /// Problems in config.json's provider fields, one line each.
    public static func fieldProblems(_ json: JSONValue) -> [String] {
        guard let root = json.objectValue else { return ["the file must hold a JSON object, e.g. {\"provider\": \"gemini\"}"] }
        var problems: [String] = []
        func string(_ value: JSONValue?, _ field: String) -> String? {
            guard let value else { return nil }
            guard let s = value.stringValue else { problems.append("\"\(field)\" must be a string"); return nil }
            return s
        }
        func checkProvider(_ name: String, field: String) -> String? {
            if name.lowercased() == "offline" { return "offline" }
            guard let spec = ProviderSpec.named(name) else {
                problems.append("\"\(field)\" names an unknown provider \"\(name.prefix(40))\"; choose one of: \(providerNames.joined(separator: ", "))")
                return nil
            }
            return spec.name
        }
        // A provider pointed at another server (an OpenAI-compatible one) may serve any model.
        let elsewhere = Set((root["providers"]?.objectValue ?? [:]).filter { $0.value["base_url"] != nil }.compactMap { ProviderSpec.named($0.key)?.name })
        func checkModel(_ model: String, provider: String?, field: String) {
            guard let provider, catalogedProviders.contains(provider), !elsewhere.contains(provider), !ModelCatalog.info(model: model, provider: provider).isKnown else { return }
            let known = ModelCatalog.known.filter { ModelCatalog.families(for: provider).contains($0.provider) }.map(\.model)
            problems.append("\"\(field)\" names a model \(provider) does not have: \"\(model.prefix(60))\" (known: \(known.prefix(6).joined(separator: ", ")))")
        }
        func checkPolicy(_ value: JSONValue?, field: String) {
            if let p = string(value, field), DeadlinePolicy.named(p) == nil {
                problems.append("\"\(field)\" must be \"fast\" or \"patient\", not \"\(p.prefix(40))\"")
            }
        }
        let provider = string(root["provider"], "provider").flatMap { checkProvider($0, field: "provider") }
        if let model = string(root["model"], "model") { checkModel(model, provider: provider, field: "model") }
        checkPolicy(root["policy"], field: "policy")
        if let r = string(root["research"], "research"), ResearchMode(rawValue: r.lowercased()) == nil {
            problems.append("\"research\" must be \"native\", \"tavily\", \"parallel\" or \"off\", not \"\(r.prefix(40))\"")
        }
        if let providers = root["providers"] {
            guard let entries = providers.objectValue else { return problems + ["\"providers\" must be an object of provider settings"] }
            for (name, value) in entries.sorted(by: { $0.key < $1.key }) {
                guard let canonical = checkProvider(name, field: "providers.\(name.prefix(40))") else { continue }
                guard let entry = value.objectValue else { problems.append("\"providers.\(name)\" must be an object"); continue }
                for key in entry.keys.sorted() where !["base_url", "model", "wire", "headers", "policy", "context_window"].contains(key) {
                    problems.append("\"providers.\(name).\(key.prefix(40))\" is not a setting ofj knows (base_url, model, wire, headers, policy, context_window)")
                }
                if let window = entry["context_window"] {
                    let values = window.objectValue.map { Array($0.values) } ?? [window]
                    if !values.allSatisfy({ ($0.intValue ?? 0) >= 1_024 }) {
                        problems.append("\"providers.\(name).context_window\" must be a number of tokens (at least 1024), or an object of model name → number")
                    }
                }
                if let url = string(entry["base_url"], "providers.\(name).base_url"), !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
                    problems.append("\"providers.\(name).base_url\" must start with http:// or https://")
                }
                if let model = string(entry["model"], "providers.\(name).model") { checkModel(model, provider: canonical, field: "providers.\(name).model") }
                if let wire = string(entry["wire"], "providers.\(name).wire"), !["chat", "responses"].contains(wire) {
                    problems.append("\"providers.\(name).wire\" must be \"chat\" or \"responses\", not \"\(wire.prefix(40))\"")
                }
                checkPolicy(entry["policy"], field: "providers.\(name).policy")
                if let headers = entry["headers"] {
                    if let h = headers.objectValue {
                        for (k, v) in h where v.stringValue == nil { problems.append("\"providers.\(name).headers.\(k.prefix(40))\" must be a string") }
                    } else {
                        problems.append("\"providers.\(name).headers\" must be an object of strings")
                    }
                }
            }
        }
        return problems
    }
}
