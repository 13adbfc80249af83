// Connects the runner's approval requests to the REPL: the runner waits in `decide`, the REPL
// shows the card when the request reaches it in the event stream and answers with `resolve`.
import Agent
import Synchronization

public final class ApprovalBroker: ApprovalGate {
    private struct State {
        var waiting: [Int: CheckedContinuation<ApprovalAnswer, Never>] = [:]
        /// Answers that arrived before the runner started waiting for them.
        var early: [Int: ApprovalAnswer] = [:]
        /// Askings that ended (answered or stopped): a late answer to one of them is dropped.
        var closed: Set<Int> = []
    }
    private let state = Mutex(State())

    public init() {}

    /// Waits for the answer to this asking (`request.askID`). An answer is only ever taken by the
    /// asking it was given for: after Ctrl-C and `/continue` the same call is asked about again
    /// under a new id, and a stale answer (e.g. the denial the stop produced) cannot answer it.
    public func answer(_ request: ApprovalRequest) async -> ApprovalAnswer {
        let key = request.askID
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<ApprovalAnswer, Never>) in
                let ready: ApprovalAnswer? = state.withLock { s in
                    if let d = s.early.removeValue(forKey: key) {
                        s.closed.insert(key)
                        return d
                    }
                    if s.closed.contains(key) { return .decision(.deny) }
                    s.waiting[key] = c
                    return nil
                }
                if let ready { c.resume(returning: ready) }
            }
        } onCancel: {
            // A stopped run (Ctrl-C) records nothing for what it was waiting for: the runner checks
            // cancellation after this returns. The deny only releases the wait.
            self.resolve(request, .deny)
        }
    }

    /// The decision alone (edited arguments count as no decision: nothing is allowed by them).
    public func decide(_ request: ApprovalRequest) async -> ApprovalDecision {
        if case .decision(let d) = await answer(request) { return d }
        return .deny
    }

    /// Answers the card `request` was shown for. An answer for an asking that already ended is dropped.
    public func resolve(_ request: ApprovalRequest, _ decision: ApprovalDecision) {
        resolve(request, answer: .decision(decision))
    }

    /// Answers the card with edited arguments: the runner checks them and shows a new card.
    public func resolve(_ request: ApprovalRequest, editedArguments: String) {
        resolve(request, answer: .edited(arguments: editedArguments))
    }

    private func resolve(_ request: ApprovalRequest, answer decision: ApprovalAnswer) {
        let key = request.askID
        let c: CheckedContinuation<ApprovalAnswer, Never>? = state.withLock { s in
            guard !s.closed.contains(key) else { return nil }
            if let c = s.waiting.removeValue(forKey: key) {
                s.closed.insert(key)
                return c
            }
            // The first answer wins; the runner takes it when it starts waiting.
            if s.early[key] == nil { s.early[key] = decision }
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
