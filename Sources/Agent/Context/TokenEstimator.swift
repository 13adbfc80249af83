// A fast local token estimate for request parts, and the budget a thread's requests must fit in.

/// Estimates tokens without a tokenizer: about four UTF-8 bytes per token for text, plus a small
/// fixed cost per message and per part (role markers, call framing). Deliberately simple and
/// cheap; each thread corrects it with the ratio the provider's reported input tokens imply.
public enum TokenEstimator {
    /// Bytes per token for prose and JSON (a common average across tokenizers).
    public static let bytesPerToken = 4
    static let perMessage = 4
    static let perPart = 3

    public static func tokens(_ text: String) -> Int {
        let bytes = text.utf8.count
        return bytes == 0 ? 0 : (bytes + bytesPerToken - 1) / bytesPerToken
    }

    public static func tokens(_ part: MessagePart) -> Int {
        switch part {
        case .text(let t): return perPart + tokens(t)
        case .toolCall(let c): return perPart + tokens(c.id) + tokens(c.name) + tokens(c.arguments)
        case .toolResult(let r): return perPart + tokens(r.callID) + tokens(r.name) + tokens(r.content)
        // Web sources a provider's search found are kept for the Research module, never sent.
        case .continuation(let c) where c.provider == WebSources.provider: return 0
        // Continuation payloads (signatures, encrypted reasoning) are sent, so they count.
        case .continuation(let c): return perPart + tokens(c.payload)
        }
    }

    public static func tokens(_ message: Message) -> Int {
        var n = perMessage
        for part in message.parts { n += tokens(part) }
        return n
    }

    public static func tokens(_ messages: [Message]) -> Int {
        var n = 0
        for m in messages { n += tokens(m) }
        return n
    }

    /// What each tool spec costs beyond its name, description and schema: the wire's framing
    /// (`{"type":"function","function":{"name":…,"description":…,"parameters":…,"strict":false}}`,
    /// ~88 bytes of JSON keys and punctuation, which tokenize densely). Calibrated on a real
    /// tokenizer's counts of ofj's own specs (`Tests/NutritionToolsTests/ToolTokenCounts.json`,
    /// measured with tools/prompt_size.py): tokens ≈ 22 + bytes / 4 per spec, within 10% of the
    /// whole set whatever its size (the framing was the 11% the plain bytes/4 missed).
    static let perToolSpec = 22

    /// Tool specs are sent as JSON schemas with every request.
    public static func tokens(_ tools: [ToolSpec]) -> Int {
        var n = 0
        for t in tools {
            let bytes = t.name.utf8.count + t.description.utf8.count + t.parameters.serialized.utf8.count
            n += perToolSpec + (bytes + bytesPerToken - 1) / bytesPerToken
        }
        return n
    }

    public static func tokens(_ request: ChatRequest) -> Int {
        tokens(request.system) + tokens(request.tools) + tokens(request.messages) + tokens(request.contextNote)
    }
}

/// How large a thread's context may grow: a fixed 50k or 200k, or the model's whole window.
public enum ContextBudgetChoice: String, Sendable, Hashable, CaseIterable {
    case k50 = "50k"
    case k200 = "200k"
    case modelMaximum = "max"

    public var tokens: Int? {
        switch self {
        case .k50: return 50_000
        case .k200: return 200_000
        case .modelMaximum: return nil
        }
    }
}

/// What a model allows (from the model catalog, which the Agent module does not import).
public struct ModelLimits: Sendable, Hashable {
    /// Where the window figure came from, for `/context` and `ofj doctor`.
    public enum Source: Sendable, Hashable {
        /// `context_window` in config.json.
        case config
        /// Read from the running server; `detail` names the field ("/props n_ctx").
        case server(String)
        /// ofj's model catalog.
        case catalog
        /// Nothing known: ofj's assumption for this kind of model.
        case assumed

        /// "from config.json", "read from the server (/props n_ctx)", …
        public var phrase: String {
            switch self {
            case .config: return "from config.json context_window"
            case .server(let detail): return "read from the server (\(detail))"
            case .catalog: return "from ofj's model catalog"
            case .assumed: return "assumed (not known for this model; set context_window in config.json)"
            }
        }

        /// Whether the figure is the server's real limit (config or server), so a request over it
        /// is refused before it is sent.
        public var isAuthoritative: Bool {
            switch self {
            case .config, .server: return true
            case .catalog, .assumed: return false
            }
        }
    }
    public var contextWindow: Int
    public var maxOutputTokens: Int
    public var source: Source
    public init(contextWindow: Int, maxOutputTokens: Int, source: Source = .catalog) {
        self.contextWindow = contextWindow
        self.maxOutputTokens = maxOutputTokens
        self.source = source
    }
}

/// The tokens a request's input may use: the chosen size (never above the model's window) minus
/// headroom for the answer and for the tool results a turn may add before the next request.
public struct ContextBudget: Sendable, Hashable {
    /// The chosen size, capped by the model's window.
    public var limit: Int
    public var outputHeadroom: Int
    public var toolHeadroom: Int

    public init(choice: ContextBudgetChoice, limits: ModelLimits, requestedOutput: Int) {
        let window = max(1_024, limits.contextWindow)
        limit = min(choice.tokens ?? window, window)
        outputHeadroom = min(max(0, requestedOutput), max(0, limits.maxOutputTokens), limit / 4)
        toolHeadroom = min(8_000, limit / 10)
    }

    /// Hard limit for a request's input (estimated, corrected tokens).
    public var usable: Int { max(256, limit - outputHeadroom - toolHeadroom) }
    /// Compaction starts when the next request would pass this.
    public var compactionThreshold: Int { usable * 8 / 10 }
}
