// Approved writes the database could not take (disk full, locked past the busy timeout): the run
// is suspended with the decision kept, and /continue applies the change without asking again.
import SQLiteKit
import Synchronization

/// The approved change could not be stored because of the disk or a lock, not because of the
/// change itself. Nothing was written; the run ends `suspended` so `/continue` can try again.
struct WriteNotSaved: Error {
    var line: AgentError
}

/// What a runner remembers about approved writes that did not reach the database. The decision
/// is also stored in `agent_approvals` when the database allowed it (and a resumed run applies
/// a stored approval anyway); this copy covers the case where it did not (the lock or the full
/// disk refused the approval row too), and the runs whose `suspended` phase could not be stored
/// (they are still "active" in the file but nobody runs them).
final class DeferredWrites: Sendable {
    /// A decision not yet applied, with the change it was for; `stored` when `agent_approvals` has it.
    struct Kept: Sendable {
        var decision: ApprovalDecision
        var change: PlannedChange
        var waited: Double
        var stored: Bool
        /// Who decided (`person`, `thread_grant`), for the approval row when it is stored later.
        var source = "person"
    }
    private struct State {
        var decisions: [CallKey: Kept] = [:]
        /// Runs suspended for a storage failure whose new phase the database refused.
        var stranded: Set<String> = []
    }
    private let state = Mutex(State())

    func keep(_ key: CallKey, decision: ApprovalDecision, change: PlannedChange, waited: Double, stored: Bool, source: String = "person") {
        state.withLock { $0.decisions[key] = Kept(decision: decision, change: change, waited: waited, stored: stored, source: source) }
    }

    func kept(_ key: CallKey) -> Kept? {
        state.withLock { $0.decisions[key] }
    }

    /// The write committed (or was answered from the ledger): nothing left to keep.
    func done(_ key: CallKey) { state.withLock { _ = $0.decisions.removeValue(forKey: key) } }

    func strand(_ runID: String) { state.withLock { _ = $0.stranded.insert(runID) } }
    func isStranded(_ runID: String) -> Bool { state.withLock { $0.stranded.contains(runID) } }
    func unstrand(_ runID: String) { state.withLock { _ = $0.stranded.remove(runID) } }

    /// The one line the person sees when an approved change could not be stored, or nil when the
    /// failure is about the change itself (a constraint, a bug) rather than the disk or a lock.
    static func line(for error: any Error) -> AgentError? {
        guard let e = error as? DatabaseError else { return nil }
        let what: String
        switch e.code {
        case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
            what = "the database is locked by another ofj; nothing was written. Close it or wait, then type /continue to try again."
        case 13: // SQLITE_FULL
            what = "the disk is full; nothing was written. Free some space, then type /continue to try again."
        case 8: // SQLITE_READONLY
            what = "the database file is read-only; nothing was written. Make it writable, then type /continue to try again."
        case 10, 14, 15: // SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_PROTOCOL
            what = "the disk refused the write (I/O error); nothing was written. Check the disk, then type /continue to try again."
        case 7: // SQLITE_NOMEM
            what = "ofj ran out of memory; nothing was written. Type /continue to try again."
        case 11, 26: // SQLITE_CORRUPT, SQLITE_NOTADB
            what = "the database file is damaged; nothing was written. Save what can be read with `ofj backup export --salvage -o rescue.json`, move the file aside, then `ofj backup import rescue.json`."
        default:
            return nil
        }
        return AgentError(.storage, "Couldn't write: " + what)
    }
}
