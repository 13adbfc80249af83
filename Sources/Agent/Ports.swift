// The other ports the runner depends on: approvals, clock, ids, diagnostics.
import Synchronization

/// An approval request shown to the person before a write.
public struct ApprovalRequest: Sendable, Hashable {
    public var threadID: String
    public var runID: String
    public var callID: String
    public var toolName: String
    /// Human-readable preview of exactly what will change.
    public var preview: String
    /// The call's arguments as JSON, as they would be applied (for editing them at the card).
    public var arguments: String
    /// This asking, unique in the process: an answer is for the card it was given to, never for a
    /// later card of the same call (after Ctrl-C and `/continue` the call is asked about again).
    public var askID: Int
    /// Content from outside the person read in the thread since their last message (its mark;
    /// the card names it). Empty when there is none.
    public var untrusted: [UntrustedRead]
    /// The grant or allow rule that would have approved this change without asking, had the mark
    /// not stood ("approval rule 2 (allow …)", "\"always for this thread\"").
    public var standingNotUsed: String?
    public init(threadID: String, runID: String, callID: String, toolName: String, preview: String, arguments: String = "{}",
                askID: Int? = nil, untrusted: [UntrustedRead] = [], standingNotUsed: String? = nil) {
        self.threadID = threadID
        self.untrusted = untrusted
        self.standingNotUsed = standingNotUsed
        self.arguments = arguments
        self.runID = runID
        self.callID = callID
        self.toolName = toolName
        self.preview = preview
        self.askID = askID ?? Self.nextAskID.add(1, ordering: .relaxed).newValue
    }

    private static let nextAskID = Atomic<Int>(0)
}

public enum ApprovalDecision: String, Sendable, Hashable {
    case allowOnce = "allow_once"
    case deny
    case alwaysAllow = "always_allow"
}

/// What the person answered at a card: a decision, or new arguments for the call (edited at
/// the card), which the runner re-validates and asks about again with a new card.
public enum ApprovalAnswer: Sendable, Hashable {
    case decision(ApprovalDecision)
    case edited(arguments: String)
}

/// Asks the person. Time spent here does not count against deadlines. Cancellation means deny.
public protocol ApprovalGate: Sendable {
    func decide(_ request: ApprovalRequest) async -> ApprovalDecision
    /// The answer to a card, which may be edited arguments. Default: `decide`'s decision.
    func answer(_ request: ApprovalRequest) async -> ApprovalAnswer
    /// Whether an "always allow" the person gave earlier in the thread (a thread grant) may approve
    /// a write without asking this gate. A non-interactive frontend (`ofj ask`) answers false, so
    /// that there only its own decision (`--yes`) ever allows a write.
    var honoursThreadGrants: Bool { get }
}

extension ApprovalGate {
    public var honoursThreadGrants: Bool { true }
    public func answer(_ request: ApprovalRequest) async -> ApprovalAnswer { .decision(await decide(request)) }
}

/// Time source: wall time for records, monotonic time and sleeping for deadlines.
public protocol AgentClock: Sendable {
    /// Seconds since 1970.
    func now() -> Double
    /// Monotonic seconds (any origin).
    func monotonic() -> Double
    /// Sleeps (cancellable).
    func sleep(seconds: Double) async throws
    /// Runs `action` once after `seconds` unless the returned timer is cancelled first. Deadlines use
    /// it, so a virtual clock can fire them exactly when its time passes. Default: a sleeping task.
    func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> ScheduledTimer
}

/// Source of ids (UUID strings in production, counters in tests).
public protocol IDSource: Sendable {
    func next() -> String
}

/// Where diagnostic events go. The Diagnostics module implements it; the agent only reports
/// structured, content-free facts through `AgentDiagnostic`.
public protocol DiagnosticsRecorder: Sendable {
    func record(_ event: AgentDiagnostic)
}

/// A content-free fact about what the agent did. Never carries prompts, answers, arguments,
/// results or journal values.
public struct AgentDiagnostic: Sendable, Hashable {
    public enum Operation: String, Sendable, Hashable {
        case modelRound = "model_round", toolExecution = "tool_execution", approval, compaction, retry, timeout, failure, run
    }
    public var operation: Operation
    public var status: String
    public var threadID: String?
    public var runID: String?
    public var turn: Int?
    public var callID: String?
    public var providerRequestID: String?
    public var provider: String?
    public var model: String?
    public var toolName: String?
    public var errorClass: String?
    public var errorCode: String?
    public var errorMessage: String?
    public var httpStatus: Int?
    public var startedAt: Double?
    public var firstEventMs: Double?
    public var totalMs: Double?
    public var usage: Usage?
    public var costUSD: Double?
    public var retryCount: Int?
    public var resultCount: Int?
    public var sizeBytes: Int?
    /// Search credits a web search used (Tavily reports them), never the query.
    public var credits: Double?
    /// Attachments of the run's message (issue 19 §6): how many, their total bytes, and their
    /// media types ("image/png,application/pdf"); never names or bytes.
    public var attachmentCount: Int?
    public var attachmentBytes: Int?
    public var attachmentTypes: String?
    public init(operation: Operation, status: String) {
        self.operation = operation
        self.status = status
    }
}

public struct NoDiagnostics: DiagnosticsRecorder {
    public init() {}
    public func record(_ event: AgentDiagnostic) {}
}
