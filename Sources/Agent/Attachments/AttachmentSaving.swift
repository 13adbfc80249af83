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
// before it ends, so a finished run's attachments are stored. A save the database refuses (disk
// full, locked too long) does not fail the answer, which has arrived: the run says so, and the
// bytes are kept and saved again with the next message and when the session ends. A placeholder
// left by an ofj that stopped in between reads as "not saved; attach it again".
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

    /// A file to hash and store under its placeholder's key.
    struct File: Sendable {
        var key: String
        var format: AttachmentFormat
        var bytes: [UInt8]
        var queue: DatabaseQueue
        var now: Double
        /// Known once hashed (a retry does not hash again).
        var sha256: String? = nil
    }
    /// Files whose save the database refused: saved again with the next message on the same
    /// database and when the session ends (`AttachmentSaving.waitForAll`).
    static let refused = Mutex<[File]>([])

    /// Saves `files` in order; the refused ones are kept for another try unless `keepRefused` is
    /// false (the last try: their bytes are let go). Returns the first error.
    static func save(_ files: [File], keepRefused: Bool = true) -> AgentError? {
        var failure: AgentError?
        for var f in files {
            do {
                // A database that refuses all writes (found damaged) is not tried again.
                if let refusal = f.queue.writesRefused { throw refusal }
                let sha = f.sha256 ?? SHA256Hasher.hex(f.bytes)
                f.sha256 = sha
                try f.queue.write { db in
                    try ConversationStore.resolvePending(db, key: f.key, sha256: sha, format: f.format, bytes: f.bytes, now: f.now)
                }
                entries.withLock { $0[f.key] = .stored(sha256: sha) }
            } catch {
                if keepRefused && f.queue.writesRefused == nil {
                    refused.withLock { $0.append(f) }
                } else {
                    entries.withLock { $0[f.key] = nil }
                }
                failure = failure ?? AgentError.storage(error)
            }
        }
        return failure
    }
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

    /// Waits for every save started in this process, then tries once more those the database
    /// refused (an ending session: the bytes of a file not saved yet live only in memory).
    /// Returns the line to show when some file still could not be saved (it is then lost: its
    /// message says "not saved"); nil when everything is stored.
    @discardableResult
    public static func waitForAll() async -> String? {
        for saving in unfinished.withLock({ $0 }) { _ = await saving.wait() }
        let again = PendingAttachments.refused.withLock { r in defer { r = [] }; return r }
        guard let failure = PendingAttachments.save(again, keepRefused: false) else { return nil }
        let n = again.count
        return "\(n == 1 ? "An attached file" : "\(n) attached files") could not be saved before ofj ended: \(failure.line) "
            + "Attach \(n == 1 ? "it" : "them") again to keep \(n == 1 ? "it" : "them") with the conversation."
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

    /// Whether `key` is a well-formed pending key ("pending-" and 56 lower-case hex digits), as a
    /// link synced from a machine that had not stored its file yet may carry.
    public static func isPendingKey(_ key: String) -> Bool {
        key.utf8.count == 64 && key.hasPrefix(pendingPrefix)
            && key.utf8.dropFirst(pendingPrefix.utf8.count).allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

extension ConversationStore {
    /// Step 1 (inside the message's transaction): the placeholder row of a pending attachment.
    static func insertPlaceholder(_ db: Database, _ a: AttachmentRef, now: Double) throws {
        try db.execute("""
            INSERT OR IGNORE INTO attachments (sha256, media_type, byte_count, data, created_at, remote) VALUES (?, ?, ?, X'', ?, 2)
            """, [a.sha256, a.format.mediaType, a.byteCount, now])
        // This process saves it; the row goes with the placeholder (ON DELETE CASCADE).
        try db.execute("INSERT OR IGNORE INTO attachment_saving (key, owner) VALUES (?, ?)", [a.sha256, RunOwner.current])
    }

    /// Step 2, started after the message's transaction committed: keeps the pending attachments'
    /// bytes readable from memory and hashes and stores them on another thread. `reached` runs
    /// there first (fault injection: a crash there leaves the placeholders, as a killed ofj would).
    static func savePending(_ attachments: [AttachmentRef], queue: DatabaseQueue, now: Double,
                            reached: (@Sendable () throws -> Void)? = nil) -> AttachmentSaving? {
        var files: [PendingAttachments.File] = []
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
            files.append(.init(key: a.sha256, format: a.format, bytes: bytes, queue: queue, now: now))
        }
        // Registered before the refused files are taken, so that `waitForAll` cannot miss them.
        let saving = AttachmentSaving()
        // Files an earlier save on this database could not store go again, after this message's.
        let again = PendingAttachments.refused.withLock { r in
            let mine = r.filter { $0.queue === queue }
            r.removeAll { $0.queue === queue }
            return mine
        }
        guard !files.isEmpty || !again.isEmpty else {
            saving.finish(nil)
            return nil
        }
        PendingAttachments.entries.withLock { e in for f in files { e[f.key] = .bytes(f.bytes) } }
        DispatchQueue.global(qos: .userInitiated).async { [files] in
            do {
                try reached?()
            } catch {
                // A simulated crash: the bytes are gone with the "process", as they would be.
                PendingAttachments.entries.withLock { e in for f in files + again { e[f.key] = nil } }
                return saving.finish(error)
            }
            let failure = PendingAttachments.save(files)
            _ = PendingAttachments.save(again) // reported when they first failed
            saving.finish(failure)
        }
        // Only earlier files: this message's run need not wait (the session's end does).
        return files.isEmpty ? nil : saving
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
