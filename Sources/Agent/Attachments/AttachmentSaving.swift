// Saving a file the person attaches without making the request wait for it.
//
// Hashing 10 MB (SHA-256, pure Swift) and committing it to SQLite take over 100 ms together; the
// request needs neither: its body is written from the bytes. So a message is saved in two steps:
//   1. The message's own transaction stores a placeholder row under a random key ("pending-…",
//      `remote = 2`, no bytes) and links the message to it.
//   2. In the background, the bytes are hashed and a second transaction stores them once under
//      their SHA-256 (or finds them already there), points the links there and drops the
//      placeholder.
// Until step 2 ends, the bytes are read from memory (`PendingAttachments`); afterwards a key that
// an earlier request assembly still holds is forwarded to the hash. The run waits for step 2
// before it ends, so a finished run's attachments are stored. A placeholder left by an ofj that
// stopped in between reads as "not saved; attach it again".
import Dispatch
import SQLiteKit
import Synchronization

/// Bytes of attachments being saved, by pending key; a saved key forwards to its SHA-256.
enum PendingAttachments {
    enum Entry: Sendable {
        case bytes([UInt8])
        case stored(sha256: String)
    }
    static let entries = Mutex<[String: Entry]>([:])

    static func entry(_ key: String) -> Entry? { entries.withLock { $0[key] } }
}

/// The background save of one message's attachments. `wait()` returns nil once they are stored,
/// or the error that stopped it: an `AgentError` (the bytes then stay readable from memory for
/// this process) or a `SimulatedCrash` from a fault injected at `.attachmentSave`.
public final class AttachmentSaving: Sendable {
    private struct State {
        var finished = false
        var error: (any Error)?
        var waiters: [CheckedContinuation<(any Error)?, Never>] = []
    }
    private let state = Mutex(State())
    /// Saves not finished yet, in this process.
    private static let unfinished = Mutex<[AttachmentSaving]>([])

    init() { Self.unfinished.withLock { $0.append(self) } }

    /// Waits for every save started in this process (an ending session: the bytes of a file
    /// still being saved live only in memory).
    public static func waitForAll() async {
        for saving in unfinished.withLock({ $0 }) { _ = await saving.wait() }
    }

    public func wait() async -> (any Error)? {
        await withCheckedContinuation { (c: CheckedContinuation<(any Error)?, Never>) in
            let done: (any Error)?? = state.withLock { s in
                if s.finished { return .some(s.error) }
                s.waiters.append(c)
                return .none
            }
            if let done { c.resume(returning: done) }
        }
    }

    fileprivate func finish(_ error: (any Error)?) {
        Self.unfinished.withLock { $0.removeAll { $0 === self } }
        let waiters = state.withLock { s in
            s.finished = true
            s.error = error
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w.resume(returning: error) }
    }
}

extension AttachmentRef {
    static let pendingPrefix = "pending-"

    /// A fresh key for a file read but not yet hashed: 64 characters, as long as a SHA-256 in
    /// hex, so it fits wherever a hash does (the request body's markers, AttachmentSplicer).
    static func newPendingKey() -> String {
        var g = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var out = Array(pendingPrefix.utf8)
        for _ in 0..<(64 - pendingPrefix.utf8.count) / 2 {
            let b = g.next() as UInt8
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// True for a file not yet hashed: `sha256` holds a pending key.
    public var isPending: Bool { sha256.hasPrefix(Self.pendingPrefix) }
}

extension ConversationStore {
    /// Step 1 (inside the message's transaction): the placeholder row of a pending attachment.
    static func insertPlaceholder(_ db: Database, _ a: AttachmentRef, now: Double) throws {
        try db.execute("""
            INSERT OR IGNORE INTO attachments (sha256, media_type, byte_count, data, created_at, remote) VALUES (?, ?, ?, X'', ?, 2)
            """, [a.sha256, a.format.mediaType, a.byteCount, now])
    }

    /// Step 2, started after the message's transaction committed: keeps the pending attachments'
    /// bytes readable from memory and hashes and stores them on another thread. `reached` runs
    /// there first (fault injection: a crash there leaves the placeholders, as a killed ofj would).
    static func savePending(_ attachments: [AttachmentRef], queue: DatabaseQueue, now: Double,
                            reached: (@Sendable () throws -> Void)? = nil) -> AttachmentSaving? {
        var files: [(key: String, format: AttachmentFormat, bytes: [UInt8])] = []
        for a in attachments where a.isPending && !files.contains(where: { $0.key == a.sha256 }) {
            let bytes: [UInt8]
            if let memory = a.source as? MemoryAttachmentSource {
                bytes = memory.bytes
            } else {
                var collected: [UInt8] = []
                collected.reserveCapacity(a.byteCount)
                // A source that cannot be read leaves the placeholder: it reads as "not saved".
                guard (try? a.source.read { collected.append(contentsOf: $0) }) != nil else { continue }
                bytes = collected
            }
            files.append((a.sha256, a.format, bytes))
        }
        guard !files.isEmpty else { return nil }
        PendingAttachments.entries.withLock { e in for f in files { e[f.key] = .bytes(f.bytes) } }
        let saving = AttachmentSaving()
        DispatchQueue.global(qos: .userInitiated).async { [files] in
            do {
                try reached?()
            } catch {
                // A simulated crash: the bytes are gone with the "process", as they would be.
                PendingAttachments.entries.withLock { e in for f in files { e[f.key] = nil } }
                return saving.finish(error)
            }
            var failure: AgentError?
            for f in files {
                let sha = SHA256Hasher.hex(f.bytes)
                do {
                    try queue.write { db in try resolvePending(db, key: f.key, sha256: sha, format: f.format, bytes: f.bytes, now: now) }
                    PendingAttachments.entries.withLock { $0[f.key] = .stored(sha256: sha) }
                } catch {
                    failure = failure ?? AgentError.storage(error)
                }
            }
            saving.finish(failure)
        }
        return saving
    }

    /// Stores `bytes` under their hash unless they are here, moves the placeholder's links there
    /// and drops the placeholder. A placeholder no message links any more (its thread was deleted
    /// meanwhile) is dropped without storing anything.
    static func resolvePending(_ db: Database, key: String, sha256: String, format: AttachmentFormat, bytes: [UInt8], now: Double) throws {
        if try db.row("SELECT 1 FROM agent_message_attachments WHERE sha256 = ?", [key]) != nil {
            try storeBytes(db, sha256: sha256, format: format, bytes: bytes, now: now)
            try db.execute("UPDATE agent_message_attachments SET sha256 = ? WHERE sha256 = ?", [sha256, key])
        }
        try db.execute("DELETE FROM attachments WHERE sha256 = ?", [key])
    }
}
