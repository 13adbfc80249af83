// Fault injection points, so tests and transcript replay can "crash" the process at a known place.
import Synchronization

/// Places in a run where a fault can be injected.
public enum FaultPoint: String, Sendable, Hashable, CaseIterable {
    /// The run task started; nothing done yet.
    case runStarted = "run_started"
    /// The request is built; the provider has not been called.
    case beforeModelRequest = "before_model_request"
    /// The first text delta of a turn has been stored.
    case afterFirstTextDelta = "after_first_text_delta"
    /// The model turn closed and its message is stored; no tool ran yet.
    case afterModelTurn = "after_model_turn"
    /// A read tool's result is stored.
    case afterReadResult = "after_read_result"
    /// The approval is about to be asked.
    case beforeApproval = "before_approval"
    /// The approval decision is stored; the write has not started.
    case afterApproval = "after_approval"
    /// Inside the write transaction, after the tool applied its change and the ledger row was
    /// written, before COMMIT (a crash here rolls both back).
    case insideWriteTransaction = "inside_write_transaction"
    /// The write transaction committed.
    case afterWriteCommit = "after_write_commit"
    /// The run is about to be marked completed.
    case beforeFinalize = "before_finalize"
    /// On the background thread that stores a message's attached files, before it hashes them;
    /// the message and its placeholders are committed (AttachmentSaving.swift). Only runs whose
    /// message carries a file just read reach it.
    case attachmentSave = "attachment_save"
}

/// Thrown by a `FaultInjector` to simulate a crash: the run stops at once and writes nothing
/// more, leaving the database as a killed process would.
public struct SimulatedCrash: Error, Sendable, Hashable {
    public var point: FaultPoint
    public init(point: FaultPoint) { self.point = point }
}

/// Decides whether reaching a point fails. Production runners have none.
public protocol FaultInjector: Sendable {
    func reached(_ point: FaultPoint, runID: String) throws
}

/// Crashes the first time (or the first `count` times) a given point is reached.
public final class CrashAt: FaultInjector {
    private let point: FaultPoint
    private let remaining: Mutex<Int>
    public init(_ point: FaultPoint, count: Int = 1) {
        self.point = point
        self.remaining = Mutex(count)
    }
    public func reached(_ point: FaultPoint, runID: String) throws {
        guard point == self.point else { return }
        let fire = remaining.withLock { n -> Bool in
            guard n > 0 else { return false }
            n -= 1
            return true
        }
        if fire { throw SimulatedCrash(point: point) }
    }
}
