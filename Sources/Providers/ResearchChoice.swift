// Which web search the assistant gets: the provider's own (native), Tavily, Parallel, or none.
import Foundation

/// The `research` setting (config.json `"research"`, or `OFJ_RESEARCH`, which wins).
public enum ResearchMode: String, Sendable, Hashable, CaseIterable {
    case native, tavily, parallel, off
}

/// The search a provider and model get, and why.
public struct ResearchChoice: Sendable, Hashable {
    /// What is used: `.native` (the adapter declares its own search), `.tavily`/`.parallel`
    /// (the web_search tool), or `.off`.
    public var mode: ResearchMode
    /// One line for a person when research is off, or not what was asked for; nil otherwise.
    public var hint: String?

    /// Whether the provider and model have a search ofj can declare next to its function tools:
    /// Anthropic (web search and web fetch server tools), OpenAI Responses (`web_search`),
    /// OpenRouter (the web plugin), and Gemini 3 models (`google_search` and URL context;
    /// Gemini 2.x refuses them beside function declarations). Azure and local servers have none.
    public static func hasNativeSearch(provider: String, wire: WireFormat, model: String) -> Bool {
        switch wire {
        case .anthropic: return true
        case .responses: return provider == "openai"
        case .chatCompletions: return provider == "openrouter"
        case .gemini: return model.lowercased().contains("gemini-3")
        case .azureResponses, .offline: return false
        }
    }

    /// `setting`: the configured value (nil or "" when unset). `settings`: the environment and
    /// the credentials file, for the search keys. Unset means native where the provider has it,
    /// else Tavily or Parallel when its key is present, else off.
    public static func resolve(setting: String?, provider: String, wire: WireFormat, model: String,
                               settings: [String: String]) -> ResearchChoice {
        func has(_ key: String) -> Bool { !(settings[key] ?? "").isEmpty }
        let native = hasNativeSearch(provider: provider, wire: wire, model: model)
        let keyHint = "set research to tavily (TAVILY_API_KEY) or parallel (PARALLEL_API_KEY) for web search"
        let trimmed = (setting ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        switch trimmed.isEmpty ? nil : ResearchMode(rawValue: trimmed) {
        case .off?:
            return ResearchChoice(mode: .off, hint: nil)
        case .native?:
            if native { return ResearchChoice(mode: .native, hint: nil) }
            if wire == .gemini { return ResearchChoice(mode: .off, hint: geminiHint(model) + "; \(keyHint)") }
            return ResearchChoice(mode: .off, hint: "\(provider == "offline" ? "the offline assistant" : "\(provider) \(model)") has no web search of its own; \(keyHint)")
        case .tavily?:
            return has("TAVILY_API_KEY") ? ResearchChoice(mode: .tavily, hint: nil)
                : ResearchChoice(mode: .off, hint: "research is tavily but TAVILY_API_KEY is not set; set it in the environment or the credentials file")
        case .parallel?:
            return has("PARALLEL_API_KEY") ? ResearchChoice(mode: .parallel, hint: nil)
                : ResearchChoice(mode: .off, hint: "research is parallel but PARALLEL_API_KEY is not set; set it in the environment or the credentials file")
        case nil where !trimmed.isEmpty:
            return ResearchChoice(mode: .off, hint: "unknown research setting \"\(trimmed.prefix(40))\"; use native, tavily, parallel or off")
        case nil:
            if native { return ResearchChoice(mode: .native, hint: nil) }
            if has("TAVILY_API_KEY") { return ResearchChoice(mode: .tavily, hint: nil) }
            if has("PARALLEL_API_KEY") { return ResearchChoice(mode: .parallel, hint: nil) }
            if provider == "offline" { return ResearchChoice(mode: .off, hint: nil) }
            if wire == .gemini { return ResearchChoice(mode: .off, hint: geminiHint(model) + "; \(keyHint)") }
            return ResearchChoice(mode: .off, hint: "\(provider) \(model) has no web search of its own; \(keyHint)")
        }
    }

    /// Why a Gemini model before 3 gets no Google Search: Google refuses it beside function tools.
    static func geminiHint(_ model: String) -> String {
        "\(model) cannot use Google Search beside ofj's tools (only Gemini 3 models can), so it answers without web search"
    }

    /// `ofj doctor`'s line.
    public var doctorLine: String {
        let what: String
        switch mode {
        case .native: what = "the provider's own web search"
        case .tavily: what = "web_search via Tavily"
        case .parallel: what = "web_search via Parallel"
        case .off: what = "off"
        }
        return "research: \(what)" + (hint.map { " (\($0))" } ?? "")
    }
}

extension ResolvedProvider {
    /// The research choice for this provider and model under `setting`.
    public func research(setting: String?, settings: [String: String]) -> ResearchChoice {
        ResearchChoice.resolve(setting: setting, provider: provider, wire: wire, model: model, settings: settings)
    }
}
