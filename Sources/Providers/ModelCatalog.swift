// Shipped table of known models: context window, output limit and estimated prices, plus the cost function.
import Agent

/// What ofj knows about one model. Prices are US dollars per million tokens.
public struct ModelInfo: Sendable, Hashable {
    public var provider: String
    public var model: String
    public var contextWindow: Int
    public var maxOutputTokens: Int
    public var inputPrice: Double
    public var cachedInputPrice: Double
    public var outputPrice: Double
    public var reasoningPrice: Double
    /// False for the conservative defaults used for models not in the table.
    public var isKnown: Bool

    public init(provider: String, model: String, contextWindow: Int, maxOutputTokens: Int, inputPrice: Double,
                cachedInputPrice: Double, outputPrice: Double, reasoningPrice: Double? = nil, isKnown: Bool = true) {
        self.provider = provider
        self.model = model
        self.contextWindow = contextWindow
        self.maxOutputTokens = maxOutputTokens
        self.inputPrice = inputPrice
        self.cachedInputPrice = cachedInputPrice
        self.outputPrice = outputPrice
        self.reasoningPrice = reasoningPrice ?? outputPrice
        self.isKnown = isKnown
    }
}

public enum ModelCatalog {
    /// When the prices were checked. Honestly: they come from the author's knowledge of the
    /// providers' public price pages around this date, not from a fresh check, so every cost
    /// shown is an estimate. Standard (non-batch, ≤200k-token prompt) tier.
    public static let pricesCheckedOn = "2025-06 (author's knowledge; estimate, not verified against live price pages)"

    /// Providers that run on the person's own machine: no price, patient deadlines.
    public static let localProviders: Set<String> = ["ollama", "llamacpp", "vllm", "lmstudio"]

    public static let known: [ModelInfo] = [
        // Google Gemini (Developer API)
        ModelInfo(provider: "gemini", model: "gemini-3-pro-preview", contextWindow: 1_048_576, maxOutputTokens: 65_536,
                  inputPrice: 2.00, cachedInputPrice: 0.20, outputPrice: 12.00),
        ModelInfo(provider: "gemini", model: "gemini-2.5-pro", contextWindow: 1_048_576, maxOutputTokens: 65_536,
                  inputPrice: 1.25, cachedInputPrice: 0.31, outputPrice: 10.00),
        ModelInfo(provider: "gemini", model: "gemini-2.5-flash", contextWindow: 1_048_576, maxOutputTokens: 65_536,
                  inputPrice: 0.30, cachedInputPrice: 0.075, outputPrice: 2.50),
        ModelInfo(provider: "gemini", model: "gemini-2.5-flash-lite", contextWindow: 1_048_576, maxOutputTokens: 65_536,
                  inputPrice: 0.10, cachedInputPrice: 0.025, outputPrice: 0.40),
        ModelInfo(provider: "gemini", model: "gemini-2.0-flash", contextWindow: 1_048_576, maxOutputTokens: 8_192,
                  inputPrice: 0.10, cachedInputPrice: 0.025, outputPrice: 0.40),
        // OpenAI
        ModelInfo(provider: "openai", model: "gpt-5", contextWindow: 400_000, maxOutputTokens: 128_000,
                  inputPrice: 1.25, cachedInputPrice: 0.125, outputPrice: 10.00),
        ModelInfo(provider: "openai", model: "gpt-5-mini", contextWindow: 400_000, maxOutputTokens: 128_000,
                  inputPrice: 0.25, cachedInputPrice: 0.025, outputPrice: 2.00),
        ModelInfo(provider: "openai", model: "gpt-5-nano", contextWindow: 400_000, maxOutputTokens: 128_000,
                  inputPrice: 0.05, cachedInputPrice: 0.005, outputPrice: 0.40),
        ModelInfo(provider: "openai", model: "gpt-4.1", contextWindow: 1_047_576, maxOutputTokens: 32_768,
                  inputPrice: 2.00, cachedInputPrice: 0.50, outputPrice: 8.00),
        ModelInfo(provider: "openai", model: "gpt-4.1-mini", contextWindow: 1_047_576, maxOutputTokens: 32_768,
                  inputPrice: 0.40, cachedInputPrice: 0.10, outputPrice: 1.60),
        ModelInfo(provider: "openai", model: "gpt-4.1-nano", contextWindow: 1_047_576, maxOutputTokens: 32_768,
                  inputPrice: 0.10, cachedInputPrice: 0.025, outputPrice: 0.40),
        ModelInfo(provider: "openai", model: "gpt-4o", contextWindow: 128_000, maxOutputTokens: 16_384,
                  inputPrice: 2.50, cachedInputPrice: 1.25, outputPrice: 10.00),
        ModelInfo(provider: "openai", model: "gpt-4o-mini", contextWindow: 128_000, maxOutputTokens: 16_384,
                  inputPrice: 0.15, cachedInputPrice: 0.075, outputPrice: 0.60),
        ModelInfo(provider: "openai", model: "o3", contextWindow: 200_000, maxOutputTokens: 100_000,
                  inputPrice: 2.00, cachedInputPrice: 0.50, outputPrice: 8.00),
        ModelInfo(provider: "openai", model: "o4-mini", contextWindow: 200_000, maxOutputTokens: 100_000,
                  inputPrice: 1.10, cachedInputPrice: 0.275, outputPrice: 4.40),
        // Anthropic (cached = cache read price)
        ModelInfo(provider: "anthropic", model: "claude-opus-4-1", contextWindow: 200_000, maxOutputTokens: 32_000,
                  inputPrice: 15.00, cachedInputPrice: 1.50, outputPrice: 75.00),
        ModelInfo(provider: "anthropic", model: "claude-opus-4", contextWindow: 200_000, maxOutputTokens: 32_000,
                  inputPrice: 15.00, cachedInputPrice: 1.50, outputPrice: 75.00),
        ModelInfo(provider: "anthropic", model: "claude-sonnet-4-5", contextWindow: 200_000, maxOutputTokens: 64_000,
                  inputPrice: 3.00, cachedInputPrice: 0.30, outputPrice: 15.00),
        ModelInfo(provider: "anthropic", model: "claude-sonnet-4", contextWindow: 200_000, maxOutputTokens: 64_000,
                  inputPrice: 3.00, cachedInputPrice: 0.30, outputPrice: 15.00),
        ModelInfo(provider: "anthropic", model: "claude-3-7-sonnet", contextWindow: 200_000, maxOutputTokens: 64_000,
                  inputPrice: 3.00, cachedInputPrice: 0.30, outputPrice: 15.00),
        ModelInfo(provider: "anthropic", model: "claude-haiku-4-5", contextWindow: 200_000, maxOutputTokens: 64_000,
                  inputPrice: 1.00, cachedInputPrice: 0.10, outputPrice: 5.00),
        ModelInfo(provider: "anthropic", model: "claude-3-5-haiku", contextWindow: 200_000, maxOutputTokens: 8_192,
                  inputPrice: 0.80, cachedInputPrice: 0.08, outputPrice: 4.00),
    ]

    /// Provider families whose table entries apply: Azure deploys OpenAI models, OpenRouter
    /// names them "vendor/model".
    static func families(for provider: String) -> [String] {
        switch provider {
        case "azure": return ["openai"]
        case "openrouter": return ["openai", "gemini", "anthropic"]
        default: return [provider]
        }
    }

    /// The entry for `model` at `provider`: exact name, else the longest known prefix (dated
    /// snapshots like "gpt-4o-2024-08-06" or "claude-sonnet-4-20250514"), else conservative defaults.
    public static func info(model: String, provider: String) -> ModelInfo {
        var name = model.lowercased()
        if name.hasPrefix("models/") { name.removeFirst(7) }
        if let slash = name.lastIndex(of: "/") { name = String(name[name.index(after: slash)...]) } // openrouter vendor/
        let families = families(for: provider)
        let candidates = known.filter { families.contains($0.provider) }
        if let exact = candidates.first(where: { $0.model == name }) { return with(exact, provider: provider, model: model) }
        let prefixed = candidates.filter { name.hasPrefix($0.model + "-") || name.hasPrefix($0.model + "@") }
        if let best = prefixed.max(by: { $0.model.count < $1.model.count }) { return with(best, provider: provider, model: model) }
        return defaults(model: model, provider: provider)
    }

    static func with(_ info: ModelInfo, provider: String, model: String) -> ModelInfo {
        var out = info
        out.provider = provider
        out.model = model
        return out
    }

    /// Unknown models: a small context (so compaction starts early rather than failing), a
    /// modest output limit, and prices on the high side for hosted models (local ones are free).
    public static func defaults(model: String, provider: String) -> ModelInfo {
        // The built-in offline assistant is ofj's own: its figures are known, not assumed, and
        // no context_window setting applies to it.
        if provider == "offline" {
            return ModelInfo(provider: provider, model: model, contextWindow: 32_768, maxOutputTokens: 4_096,
                             inputPrice: 0, cachedInputPrice: 0, outputPrice: 0)
        }
        if localProviders.contains(provider) {
            return ModelInfo(provider: provider, model: model, contextWindow: 8_192, maxOutputTokens: 4_096,
                             inputPrice: 0, cachedInputPrice: 0, outputPrice: 0, isKnown: false)
        }
        return ModelInfo(provider: provider, model: model, contextWindow: 32_768, maxOutputTokens: 4_096,
                         inputPrice: 3.00, cachedInputPrice: 3.00, outputPrice: 15.00, isKnown: false)
    }

    /// For `AgentConfiguration.costEstimator`: the estimate, or nil when the model is unknown
    /// (a guessed price would look more certain than it is).
    public static let costEstimator: @Sendable (String, String, Usage) -> Double? = { provider, model, usage in
        if provider == "offline" { return 0 } // the built-in assistant runs locally and costs nothing
        let info = info(model: model, provider: provider)
        guard info.isKnown || localProviders.contains(provider) else { return nil }
        return cost(usage: usage, model: model, provider: provider)
    }

    /// Estimated cost in US dollars. `usage.inputTokens` includes cached tokens and cache writes,
    /// and `usage.outputTokens` includes reasoning tokens (the port's convention).
    public static func cost(usage: Usage, model: String, provider: String) -> Double {
        let info = info(model: model, provider: provider)
        let cached = min(max(0, usage.cachedInputTokens), max(0, usage.inputTokens))
        let uncached = max(0, usage.inputTokens - cached)
        let reasoning = min(max(0, usage.reasoningTokens), max(0, usage.outputTokens))
        let visible = max(0, usage.outputTokens - reasoning)
        // Tokens written to a prompt cache (Anthropic, 5-minute cache) cost 1.25 times the input
        // price; they are part of the uncached input already.
        let written = min(max(0, usage.cacheWriteTokens), uncached)
        let total = Double(uncached) * info.inputPrice + Double(cached) * info.cachedInputPrice
            + Double(written) * info.inputPrice * 0.25
            + Double(visible) * info.outputPrice + Double(reasoning) * info.reasoningPrice
        return total / 1_000_000
    }
}
