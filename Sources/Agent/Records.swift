// Value types for what the conversation store keeps: threads, stored messages, runs, tool records.

/// A run's persisted phase. `completed`, `failed` and `cancelled` are final; `suspended` waits for
/// the person to continue; the rest are active (at most one active run per thread).
public enum RunPhase: String, Sendable, Hashable, CaseIterable {
    case queued, preparing
    case waitingForProvider = "waiting_for_provider"
    case executingTools = "executing_tools"
    case awaitingApproval = "awaiting_approval"
    case finalizing, completed, failed, cancelled, suspended

    public var isFinal: Bool { self == .completed || self == .failed || self == .cancelled }
    public var isActive: Bool { !isFinal && self != .suspended }
}

/// Whether a stored message is whole. `streaming` is being written; `partial` was cut off
/// (cancelled, interrupted, failed) and keeps whatever text arrived.
public enum MessageState: String, Sendable, Hashable {
    case complete, streaming, partial
}

public struct ThreadSummary: Sendable, Hashable {
    public var id: String
    public var title: String
    public var provider: String?
    public var model: String?
    public var createdAt: Double
    public var updatedAt: Double
}

/// The threads an id prefix names: exactly one, none, or several (the most recent first, at most 11).
public enum ThreadMatch: Sendable, Hashable {
    case found(ThreadSummary)
    case none
    case ambiguous([ThreadSummary])

    /// "3 threads start with ab: ab12cd34 “Breakfast”, ab98…; type more of the id" (for an error line).
    public static func ambiguityMessage(_ key: String, _ matches: [ThreadSummary]) -> String {
        let shown = matches.prefix(5).map { "\($0.id.prefix(8)) “\($0.title.prefix(30))”" }.joined(separator: ", ")
        let count = matches.count > 10 ? "more than 10" : "\(matches.count)"
        return "\(count) threads start with \(key.prefix(40)): \(shown)\(matches.count > 5 ? ", …" : ""); type more of the id"
    }
}

/// A message as stored, with its place in the thread.
public struct StoredMessage: Sendable, Hashable {
    public var id: Int64
    public var seq: Int
    public var runID: String?
    /// The run's model turn that produced it (assistant and tool messages).
    public var turn: Int?
    public var state: MessageState
    public var createdAt: Double
    public var message: Message
    /// Written on another machine and pulled by sync (not typed here).
    public var pulled: Bool = false

    /// The message as a request sends it: a user message from another machine starts with
    /// `ConversationStore.pulledNote`, so the model never takes it for the person's words here.
    public var forModel: Message {
        guard pulled, message.role == .user else { return message }
        var m = message
        m.parts.insert(.text(ConversationStore.pulledNote), at: 0)
        return m
    }
}

public struct RunRecord: Sendable, Hashable {
    public var id: String
    public var threadID: String
    public var phase: RunPhase
    public var provider: String?
    public var model: String?
    public var turnsUsed: Int
    public var errorClass: String?
    public var errorLine: String?
    public var createdAt: Double
    public var phaseChangedAt: Double
    public var finishedAt: Double?
}

public enum ToolCallStatus: String, Sendable, Hashable {
    case running, succeeded, failed, rejected, denied, cancelled, interrupted
}

/// One tool call as executed (for display and audit).
public struct ToolRecord: Sendable, Hashable {
    public var runID: String
    public var turn: Int
    public var callID: String
    public var ordinal: Int
    public var toolName: String
    public var arguments: String
    public var status: ToolCallStatus
    public var result: String?
    public var isError: Bool
    public var summary: String?
    public var startedAt: Double
    public var finishedAt: Double?
}

/// Idempotency ledger row: the recorded outcome of one write call.
public struct LedgerEntry: Sendable, Hashable {
    public enum Outcome: String, Sendable, Hashable { case committed, denied, failed }
    public var runID: String
    public var turn: Int
    public var callID: String
    public var toolName: String
    public var outcome: Outcome
    public var decision: String?
    public var output: ToolOutput
    public var recordedAt: Double
    /// The exact change that was approved and written (nil for rows from before `agent-5`, and
    /// for calls rejected before a change was planned).
    public var change: PlannedChange? = nil
}

/// Usage of one model round as stored.
public struct UsageRecord: Sendable, Hashable {
    public var threadID: String
    public var runID: String
    public var turn: Int
    public var provider: String
    public var model: String
    public var usage: Usage
    public var costUSD: Double?
    public var createdAt: Double
}

/// Where a tool call sits: the ledger key plus its position in the model turn.
public struct CallKey: Sendable, Hashable {
    public var runID: String
    public var turn: Int
    public var callID: String
    public init(runID: String, turn: Int, callID: String) {
        self.runID = runID
        self.turn = turn
        self.callID = callID
    }
}
