// How much one streamed answer may carry: its text, each tool call's arguments, the turn's calls.
import Base

/// Caps on one model turn, so a runaway or hostile stream cannot exhaust memory, the database or
/// the next request. Text over `maxTextBytes` ends the turn (what arrived is kept); a tool call over
/// a call cap is rejected: the model gets an error result and its arguments are not stored.
public struct AnswerLimits: Sendable, Hashable {
    /// Text of one answer (one model turn), UTF-8 bytes.
    public var maxTextBytes: Int
    /// Arguments of one tool call, UTF-8 bytes.
    public var maxArgumentBytes: Int
    /// Arguments of all tool calls of one answer together, UTF-8 bytes.
    public var maxTurnArgumentBytes: Int
    /// Tool calls one answer may make; later calls are rejected.
    public var maxCalls: Int
    /// Past this many calls the answer is stopped (each rejected call still costs a stored result).
    public var stopAfterCalls: Int

    public init(maxTextBytes: Int = 4 << 20, maxArgumentBytes: Int = 1 << 20, maxTurnArgumentBytes: Int = 4 << 20,
                maxCalls: Int = 64, stopAfterCalls: Int = 256) {
        self.maxTextBytes = maxTextBytes
        self.maxArgumentBytes = maxArgumentBytes
        self.maxTurnArgumentBytes = maxTurnArgumentBytes
        self.maxCalls = maxCalls
        self.stopAfterCalls = stopAfterCalls
    }

    public static let standard = AnswerLimits()

    /// Adapters stop accumulating a call's streamed arguments past this many bytes: the call is
    /// rejected anyway, so holding more would only use memory.
    public static let adapterArgumentCeiling = AnswerLimits.standard.maxArgumentBytes + 1

    /// "4 MB", "1 MiB"-style size for the lines people read.
    static func size(_ bytes: Int) -> String {
        if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MB" }
        if bytes >= 1 << 10 && bytes % (1 << 10) == 0 { return "\(bytes >> 10) KB" }
        return "\(bytes) bytes"
    }
}

/// A tool call the agent refused before running it. The refusal travels in the stored arguments
/// (`{"_ofj_rejected": "why"}`), so a resumed run, a replay and every later request see the same
/// thing: valid JSON for every wire, never the oversized original, and never executed.
public enum RejectedCall {
    static let key = "_ofj_rejected"

    /// Arguments that mark a call as rejected for `reason`.
    public static func arguments(_ reason: String) -> String {
        JSONValue.object([key: .string(reason)]).serialized
    }

    /// The reason, when `call` carries the rejection marker.
    public static func reason(_ call: ToolCall) -> String? {
        guard call.arguments.utf8.count < 4096, call.arguments.contains(key),
              case .object(let fields)? = try? call.parsedArguments(), fields.count == 1,
              case .string(let reason)? = fields[key] else { return nil }
        return reason
    }
}
