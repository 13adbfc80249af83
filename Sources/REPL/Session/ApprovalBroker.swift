// Connects the runner's approval requests to the REPL: the runner waits in `decide`, the REPL
// shows the card when the request reaches it in the event stream and answers with `resolve`.
import Agent
import Synchronization

public final class ApprovalBroker: ApprovalGate {
    private struct State {
        var waiting: [String: CheckedContinuation<ApprovalDecision, Never>] = [:]
        var early: [String: ApprovalDecision] = [:]
    }
    private let state = Mutex(State())

    public init() {}

    public func decide(_ request: ApprovalRequest) async -> ApprovalDecision {
        let key = request.runID + "/" + request.callID
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<ApprovalDecision, Never>) in
                let ready: ApprovalDecision? = state.withLock { s in
                    if let d = s.early.removeValue(forKey: key) { return d }
                    s.waiting[key] = c
                    return nil
                }
                if let ready { c.resume(returning: ready) }
            }
        } onCancel: {
            // A cancelled run (Ctrl-C) denies whatever it was waiting for.
            self.resolve(runID: request.runID, callID: request.callID, .deny)
        }
    }

    public func resolve(runID: String, callID: String, _ decision: ApprovalDecision) {
        let key = runID + "/" + callID
        let c: CheckedContinuation<ApprovalDecision, Never>? = state.withLock { s in
            if let c = s.waiting.removeValue(forKey: key) { return c }
            s.early[key] = decision
            return nil
        }
        c?.resume(returning: decision)
    }
}

/// For `ofj ask`: every write is allowed (`--yes`) or refused, without asking.
public struct FixedApprovals: ApprovalGate {
    public let decision: ApprovalDecision
    public init(_ decision: ApprovalDecision) { self.decision = decision }
    public func decide(_ request: ApprovalRequest) async -> ApprovalDecision { decision }
    /// An "always" given in the REPL never answers for `ofj ask`: there only `--yes` allows a write.
    public var honoursThreadGrants: Bool { false }
}
