// The provider-neutral transcript: what every adapter translates to and from its wire format.
import Base

/// Who said a message.
public enum Role: String, Sendable, Hashable, Codable {
    case user, assistant, tool
}

/// A tool call as the model made it. `arguments` is the exact JSON text received (adapters that
/// must echo it back, like Chat Completions, send it unchanged); "" means `{}`.
public struct ToolCall: Sendable, Hashable {
    public var id: String
    public var name: String
    public var arguments: String
    public init(id: String, name: String, arguments: String) {
        self.id = id
        self.name = name
        self.arguments = arguments
    }
    /// Parsed arguments; empty or whitespace-only text is `{}`.
    public func parsedArguments() throws -> JSONValue {
        if arguments.allSatisfy(\.isWhitespace) { return .object([:]) }
        return try JSONValue.parse(arguments)
    }
}

/// The result of one tool call, as sent back to the model.
public struct ToolResult: Sendable, Hashable {
    public var callID: String
    public var name: String
    /// JSON text (or plain text) the model sees.
    public var content: String
    public var isError: Bool
    public init(callID: String, name: String, content: String, isError: Bool = false) {
        self.callID = callID
        self.name = name
        self.content = content
        self.isError = isError
    }
}

/// Opaque provider data that must be replayed verbatim to the provider that produced it
/// (Gemini thought signatures, Responses reasoning items, Anthropic thinking blocks,
/// OpenRouter reasoning details). Its position among the assistant message's parts is kept.
public struct ContinuationItem: Sendable, Hashable {
    /// The adapter family that produced it ("gemini", "openai-chat", "openai-responses", "anthropic").
    public var provider: String
    /// Adapter-defined kind, e.g. "thought_signature", "reasoning", "thinking", "reasoning_details".
    public var kind: String
    /// Verbatim payload (usually JSON text); never parsed by the agent.
    public var payload: String
    /// Where it came from: the adapter family, the server's base URL and the model, as the
    /// adapter that received it stamped it. Adapters replay an item only to that same origin
    /// (another server, or another model, may reject it); "" for items recorded before origins
    /// were kept, which no adapter replays.
    public var origin: String
    public init(provider: String, kind: String, payload: String, origin: String = "") {
        self.provider = provider
        self.kind = kind
        self.payload = payload
        self.origin = origin
    }
}

/// One piece of a message, kept in the order it arrived.
public enum MessagePart: Sendable, Hashable {
    case text(String)
    case toolCall(ToolCall)
    case toolResult(ToolResult)
    case continuation(ContinuationItem)
}

/// A message in the shared transcript.
public struct Message: Sendable, Hashable {
    public var role: Role
    public var parts: [MessagePart]
    /// Images and PDFs a user message carries (after its text on every wire); empty otherwise.
    public var attachments: [AttachmentRef]
    public init(role: Role, parts: [MessagePart], attachments: [AttachmentRef] = []) {
        self.role = role
        self.parts = parts
        self.attachments = attachments
    }
    public static func user(_ text: String) -> Message { Message(role: .user, parts: [.text(text)]) }
    public static func assistant(_ text: String) -> Message { Message(role: .assistant, parts: [.text(text)]) }

    public var text: String {
        parts.compactMap { if case .text(let t) = $0 { return t } else { return nil } }.joined()
    }
    public var toolCalls: [ToolCall] {
        parts.compactMap { if case .toolCall(let c) = $0 { return c } else { return nil } }
    }
    public var toolResults: [ToolResult] {
        parts.compactMap { if case .toolResult(let r) = $0 { return r } else { return nil } }
    }
}
