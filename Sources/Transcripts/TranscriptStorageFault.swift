// `fault: disk-full|lock|none` in a transcript: approved writes fail as SQLite fails them, so a
// replay can show what the person sees and that /continue writes the change once afterwards.
import Agent
import SQLiteKit
import Synchronization

/// Implemented in Swift (no SQL from the transcript): the write transaction throws the error
/// SQLite gives for a full disk (SQLITE_FULL) or for a lock held past the busy timeout
/// (SQLITE_BUSY) just before COMMIT, so the change and its ledger row are rolled back. Other
/// writes (messages, phases) are not affected.
final class TranscriptStorageFault: FaultInjector {
    static let kinds: Set<String> = ["disk-full", "lock", "none"]
    private let kind = Mutex<String?>(nil)

    func set(_ value: String) { kind.withLock { $0 = value == "none" ? nil : value } }

    func reached(_ point: FaultPoint, runID: String) throws {
        guard point == .insideWriteTransaction else { return }
        switch kind.withLock({ $0 }) {
        case "disk-full": throw DatabaseError(code: 13, message: "database or disk is full")
        case "lock": throw DatabaseError(code: 5, message: "database is locked")
        default: return
        }
    }
}
