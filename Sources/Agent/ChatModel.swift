// The ChatModel port: one streamed model turn for a provider-neutral request.
import Base

/// What the model may call.
public struct ToolSpec: Sendable, Hashable {
    public var name: String
    public var description: String
    /// JSON Schema of the arguments object.
    public var parameters: JSONValue
    public init(name: String, description: String, parameters: JSONValue) {
        self.name = name
        self.description = description
        self.parameters = parameters
    }
}

/// What a request is for.
public enum RequestPurpose: Sendable, Hashable {
    /// A model turn of a run: the tools, and the provider's own tools (web search) when configured.
    case answer
    /// A compaction summary: no tools of any kind (a summariser must not run billed searches),
    /// no context note and no cache markers.
    case summary
}

/// One model turn's request.
///
/// Layout for prompt caching (docs/PROVIDERS.md, "Stable prefix and cache"): `tools`, `system`
/// and `messages` are the stable prefix, the same bytes from one request of a thread to the
/// next; everything that changes per request (the date and time, later standing notes) is in
/// `contextNote`, which every adapter sends after the stable prefix, at the end of the last user
/// turn.
public struct ChatRequest: Sendable {
    public var system: String
    public var messages: [Message]
    public var tools: [ToolSpec]
    public var maxOutputTokens: Int
    /// The volatile tail ("" for none): ofj's note about the moment of this request.
    public var contextNote: String
    public var purpose: RequestPurpose
    public init(system: String, messages: [Message], tools: [ToolSpec], maxOutputTokens: Int = 4_000, contextNote: String = "",
                purpose: RequestPurpose = .answer) {
        self.system = system
        self.messages = messages
        self.tools = tools
        self.maxOutputTokens = maxOutputTokens
        self.contextNote = contextNote
        self.purpose = purpose
    }
}

/// Token usage for one model round, as the provider reported it.
public struct Usage: Sendable, Hashable {
    public var inputTokens: Int
    public var cachedInputTokens: Int
    public var outputTokens: Int
    public var reasoningTokens: Int
    /// Input tokens written to the provider's prompt cache (Anthropic `cache_creation_input_tokens`,
    /// billed above the input price); part of `inputTokens`. Priced, not stored.
    public var cacheWriteTokens: Int
    public init(inputTokens: Int = 0, cachedInputTokens: Int = 0, outputTokens: Int = 0, reasoningTokens: Int = 0, cacheWriteTokens: Int = 0) {
        self.inputTokens = inputTokens
        self.cachedInputTokens = cachedInputTokens
        self.outputTokens = outputTokens
        self.reasoningTokens = reasoningTokens
        self.cacheWriteTokens = cacheWriteTokens
    }
    public static let zero = Usage()
    public static func + (a: Usage, b: Usage) -> Usage {
        Usage(inputTokens: a.inputTokens + b.inputTokens, cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
              outputTokens: a.outputTokens + b.outputTokens, reasoningTokens: a.reasoningTokens + b.reasoningTokens,
              cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens)
    }
}

public enum FinishReason: String, Sendable, Hashable {
    case stop, toolCalls = "tool_calls", length, contentFilter = "content_filter", other
}

/// Events of one streamed model turn, in arrival order.
public enum ChatEvent: Sendable, Hashable {
    case textDelta(String)
    /// A complete tool call (adapters assemble fragments before emitting).
    case toolCall(ToolCall)
    case continuation(ContinuationItem)
    case usage(Usage)
    /// The provider's own identifier of this response, for diagnostics.
    case responseID(String)
    /// One line for the person about how the request was sent (e.g. that it was sent again
    /// without the provider's web search after the provider refused the combination).
    case notice(String)
    /// A sign of life that carries nothing (an SSE comment, a local server's prompt-progress
    /// event): keeps the first-event and idle deadlines from firing while a server reads a long
    /// prompt. Emitted by adapters of local servers only; never stored.
    case alive
    case finish(FinishReason)
}

/// Failures of a model turn, classified so the runner can decide what to do.
public struct ChatError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// Safe to retry (5xx, reset) because nothing was streamed yet.
        case retryable
        /// 429 and friends; `retryAfter` in seconds when the provider said.
        case rateLimited(retryAfter: Double?)
        /// The request was too long for the model.
        case contextOverflow
        /// Will not succeed on retry (400, schema errors, 404 model).
        case fatal
        /// Bad key or permissions (401/403): the message names what to check.
        case configuration
        /// The connection failed after output started: the outcome is unknown, never retried.
        case unknownOutcome
        /// A deadline passed.
        case timeout
    }
    public var kind: Kind
    /// One line for the user. Must never contain keys or journal content.
    public var message: String
    public var httpStatus: Int?
    public var code: String?
    public init(_ kind: Kind, _ message: String, httpStatus: Int? = nil, code: String? = nil) {
        self.kind = kind
        self.message = message
        self.httpStatus = httpStatus
        self.code = code
    }
    public var description: String { message }

    /// `code` of a context overflow that a local server signalled only by an empty 200 stream.
    public static let emptyStreamCode = "empty_stream"
}

/// A model behind any provider. Implementations must stop promptly when the consuming task is
/// cancelled, and throw `ChatError` for every failure.
public protocol ChatModel: Sendable {
    /// Provider name as configured ("gemini", "openai", "offline", "scripted", ...).
    var provider: String { get }
    /// Model name as sent to the provider.
    var model: String { get }
    /// Family for continuation items this model understands ("gemini", "openai-chat", ...);
    /// items from other families are not replayed to it.
    var continuationFamily: String { get }
    func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error>
}
