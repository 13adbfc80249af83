// Attachments: sniffing, bad files, streaming base64 and SHA-256, storage by hash, what a
// request carries (current message whole, earlier ones as placeholders, read_attachment).
import Foundation
import Synchronization
import Testing
import SQLiteKit
import TestSupport
@testable import Agent

/// A minimal complete PNG (1x1) with `extra` bytes in a tEXt chunk (metadata).
func tinyPNG(comment: String = "") -> [UInt8] {
    var b: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    func chunk(_ type: String, _ data: [UInt8]) {
        let n = UInt32(data.count)
        b += [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + Array(type.utf8) + data + [0, 0, 0, 0]
    }
    chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0])
    if !comment.isEmpty { chunk("tEXt", Array("Comment\0\(comment)".utf8)) }
    chunk("IDAT", [0x78, 0x9C, 0x63, 0, 0, 0, 2, 0, 1])
    b += [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
    return b
}

func ref(_ bytes: [UInt8], name: String = "label.png") -> AttachmentRef {
    AttachmentRef(name: name, format: AttachmentFormat.sniff(bytes) ?? .png, byteCount: bytes.count, sha256: SHA256Hasher.hex(bytes),
                  source: MemoryAttachmentSource(bytes))
}

@Suite struct AttachmentFormatTests {
    @Test func sniffsFromBytesNotNames() {
        #expect(AttachmentFormat.sniff([0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
        #expect(AttachmentFormat.sniff(tinyPNG()) == .png)
        #expect(AttachmentFormat.sniff(Array("GIF89a....".utf8)) == .gif)
        #expect(AttachmentFormat.sniff(Array("RIFF\u{4}\0\0\0WEBPVP8 ".utf8)) == .webp)
        #expect(AttachmentFormat.sniff(Array("%PDF-1.7\n".utf8)) == .pdf)
        #expect(AttachmentFormat.sniff(Array("\0\0\0\u{18}ftypheic\0\0\0\0".utf8)) == nil)
        #expect(AttachmentFormat.describeRefused(Array("\0\0\0\u{18}ftypheic\0\0\0\0".utf8)) == "a HEIC/HEIF photo")
    }

    @Test func base64MatchesFoundationWhateverTheChunking() {
        var g = SystemRandomNumberGenerator()
        for length in [0, 1, 2, 3, 4, 5, 100, 1_000, 65_537] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &g) }
            for piece in [1, 2, 3, 5, 64, 1 << 20] {
                var out: [UInt8] = []
                var enc = Base64Appender()
                var i = 0
                bytes.withUnsafeBytes { raw in
                    while i < raw.count { let n = min(piece, raw.count - i); enc.append(UnsafeRawBufferPointer(rebasing: raw[i..<i + n]), to: &out); i += n }
                }
                enc.finish(&out)
                #expect(String(decoding: out, as: UTF8.self) == Data(bytes).base64EncodedString(), "length \(length) piece \(piece)")
            }
        }
    }

    @Test func sha256KnownVectorsAndChunking() {
        #expect(SHA256Hasher.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256Hasher.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let long = Array(String(repeating: "abcdefghijklmnopqrstuvwxyz", count: 100).utf8)
        var h = SHA256Hasher()
        for start in stride(from: 0, to: long.count, by: 61) { h.update(Array(long[start..<min(start + 61, long.count)])) }
        #expect(h.finalize() == SHA256Hasher.hex(long))
    }
}

@Suite struct AttachmentFileTests {
    func write(_ dir: TempDirectory, _ name: String, _ bytes: [UInt8]) -> String {
        let path = dir.path + "/" + name
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    func refusal(_ path: String) -> String? {
        do { _ = try AttachmentFile.load(path: path); return nil } catch { return error.line }
    }

    @Test func readsACompleteImage() throws {
        let dir = TempDirectory()
        let png = tinyPNG()
        let loaded = try AttachmentFile.load(path: write(dir, "label.png", png))
        #expect(loaded.format == .png)
        #expect(loaded.bytes == png)
        #expect(loaded.name == "label.png")
        // Not hashed yet: a fresh random key until the message is saved (AttachmentSaving.swift).
        #expect(loaded.ref.isPending)
        #expect(loaded.key != (try AttachmentFile.load(path: dir.path + "/label.png")).key)
    }

    @Test func badFilesAreRefusedWithALineThatNeverNamesThem() throws {
        let dir = TempDirectory()
        let secretName = "PRIVATE-NAME"
        var cases: [(String, String)] = []
        cases.append((write(dir, "\(secretName)-empty.png", []), "empty"))
        cases.append((write(dir, "\(secretName)-cut.png", Array(tinyPNG().dropLast(5))), "cut short"))
        cases.append((write(dir, "\(secretName).heic", Array("\0\0\0\u{18}ftypheic\0\0\0\0rest".utf8)), "HEIC"))
        cases.append((dir.path, "folder"))
        let link = dir.path + "/\(secretName)-zero.jpg"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/zero")
        cases.append((link, "not a regular file"))
        cases.append((dir.path + "/\(secretName)-missing.png", "No such file"))
        for (path, expected) in cases {
            let line = try #require(refusal(path), "\(expected) was accepted")
            #expect(line.contains(expected), "\(line)")
            #expect(!line.contains(secretName))
            #expect(!line.contains("\n"))
        }
        #expect(refusal(cases[2].0)?.contains(AttachmentFormat.acceptedLine) == true)
    }

    @Test func aHundredMegabyteFileIsRefusedBeforeReading() throws {
        let dir = TempDirectory()
        let path = dir.path + "/big.jpg"
        _ = FileManager.default.createFile(atPath: path, contents: Data([0xFF, 0xD8, 0xFF]))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 100_000_000) // sparse: nothing to read
        try handle.close()
        let line = try #require(refusal(path))
        #expect(line.contains("100.0 MB") && line.contains("up to 50.0 MB"))
    }

    @Test func aPDFNamedJPEGIsAttachedAsAPDF() throws {
        let dir = TempDirectory()
        let pdf = Array("%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n".utf8)
        #expect(try AttachmentFile.load(path: write(dir, "photo.jpg", pdf)).format == .pdf)
        #expect(refusal(write(dir, "cut.pdf", Array(pdf.prefix(20))))?.contains("cut short") == true)
    }

    @Test func aFileThatChangesWhileBeingReadIsRefused() throws {
        let dir = TempDirectory()
        for change in ["append", "rewrite"] {
            let path = write(dir, "changing.png", tinyPNG())
            var line: String?
            do {
                _ = try AttachmentFile.load(path: path, maxBytes: AttachmentFile.maxBytes) {
                    // Another program writes the file between the read and the check.
                    let h = FileHandle(forWritingAtPath: path)!
                    if change == "append" { h.seekToEndOfFile() } else { usleep(20_000) }
                    h.write(Data(tinyPNG(comment: "x").prefix(change == "append" ? 10 : 8)))
                    h.closeFile()
                }
            } catch { line = error.line }
            #expect(line?.contains("changed while it was being read") == true, "\(change): \(line ?? "accepted")")
        }
    }
}

@Suite struct AttachmentStorageTests {
    /// A file stored before `attach-2-bytes-last` (bytes in `data`, before `created_at` and
    /// `remote`) is moved to the `bytes` column and reads the same.
    @Test func filesStoredInTheEarlierLayoutMoveToTheLastColumn() throws {
        var all = Migrator()
        ConversationStore.registerMigrations(into: &all)
        var before = Migrator()
        for m in all.migrations where m.identifier != "attach-2-bytes-last" { before.register(m.identifier, m.migrate) }
        let queue = try DatabaseQueue.inMemory()
        try queue.migrate(before)
        let png = tinyPNG(comment: "old layout")
        let sha = SHA256Hasher.hex(png)
        try queue.write { db in
            try db.execute("INSERT INTO attachments (sha256, media_type, byte_count, data, created_at) VALUES (?, 'image/png', ?, ?, 0)",
                           [sha, png.count, DatabaseValue.blob(png)])
            try db.execute("INSERT INTO attachments (sha256, media_type, byte_count, data, created_at, remote) VALUES ('r', 'image/png', 9, X'', 0, 1)")
        }
        try queue.migrate(all)
        #expect(try count(queue, "SELECT COUNT(*) FROM attachments WHERE length(data) > 0") == 0)
        #expect(try count(queue, "SELECT COUNT(*) FROM attachments WHERE sha256 = 'r' AND bytes IS NULL AND remote = 1") == 1)
        var read: [UInt8] = []
        try StoredAttachmentSource(queue: queue, sha256: sha).read { read += $0 }
        #expect(read == png)
    }

    @Test func sameBytesStoredOnceAndDeletedWithTheLastThread() async throws {
        let h = try Harness()
        h.model.enqueue(.text("seen"), .text("seen again"))
        let png = tinyPNG(comment: "first")
        let a = try h.runner.submit(threadID: "t1", text: "log this", attachments: [ref(png)])
        _ = await h.runner.outcome(of: a.runID)
        let b = try h.runner.submit(threadID: "t2", text: "and this", attachments: [ref(png, name: "copy.png")])
        _ = await h.runner.outcome(of: b.runID)
        #expect(try count(h.queue, "SELECT COUNT(*) FROM attachments") == 1)
        #expect(try count(h.queue, "SELECT COUNT(*) FROM agent_message_attachments") == 2)
        let stored = try h.store.attachments(threadID: "t2")
        #expect(stored.map(\.name) == ["copy.png"])
        var read: [UInt8] = []
        try stored[0].source.read { read += $0 }
        #expect(read == png)
        try h.store.deleteThread("t1")
        #expect(try count(h.queue, "SELECT COUNT(*) FROM attachments") == 1)
        try h.store.deleteThread("t2")
        #expect(try count(h.queue, "SELECT COUNT(*) FROM attachments") == 0)
        #expect(try count(h.queue, "SELECT COUNT(*) FROM agent_message_attachments") == 0)
    }

    @Test func currentMessageCarriesItsAttachmentsAndEarlierOnesBecomeAPlaceholder() async throws {
        let h = try Harness()
        h.model.enqueue(.text("a label"), .text("noted"))
        let png = tinyPNG()
        let first = try h.runner.submit(threadID: "t1", text: "what is this?", attachments: [ref(png)])
        _ = await h.runner.outcome(of: first.runID)
        _ = try await h.ask("thanks")
        let requests = h.model.requests
        try #require(requests.count == 2)
        let sent = try #require(requests[0].messages.last)
        #expect(sent.attachments.count == 1)
        #expect(sent.text.hasPrefix("what is this?\n\n[attachment a1: PNG image \"label.png\""))
        let earlier = try #require(requests[1].messages.first)
        #expect(earlier.attachments.isEmpty)
        #expect(earlier.text.contains("not shown again: call read_attachment with id \"a1\""))
        #expect(requests[1].messages.last?.attachments.isEmpty == true)
    }

    @Test func readAttachmentShowsAnEarlierAttachmentAgain() async throws {
        let queue = try openDatabase()
        let h = try Harness(queue: queue, tools: [ReadAttachmentTool(store: ConversationStore(queue: queue))])
        h.model.enqueue(.text("a label"), .calls(("c1", "read_attachment", #"{"id":"a1"}"#)), .text("250 kcal"))
        let first = try h.runner.submit(threadID: "t1", text: "what is this?", attachments: [ref(tinyPNG())])
        _ = await h.runner.outcome(of: first.runID)
        _ = try await h.ask("how many calories again?")
        let last = try #require(h.model.requests.last)
        let shown = try #require(last.messages.last)
        #expect(shown.role == .user)
        #expect(shown.attachments.map(\.id) == ["a1"])
        #expect(last.messages[last.messages.count - 2].role == .tool)
        expectWellFormed([last])
        // Another thread's attachment is not found.
        let other = try await ReadAttachmentTool(store: h.store).execute(arguments: ["id": "a1"],
                                                                         context: ToolContext(threadID: "t9", runID: "r", callID: "c", now: WallTime(secondsSince1970: 0)))
        #expect(other.isError)
    }

    /// A model that cannot see the file is told so, and the file is not put in its next request
    /// (the provider would refuse the whole request).
    @Test func readAttachmentRefusesWhatTheModelCannotSee() async throws {
        let queue = try openDatabase()
        let tool = ReadAttachmentTool(store: ConversationStore(queue: queue), refusal: { _, _ in "this model cannot see images" })
        let h = try Harness(queue: queue, tools: [tool])
        h.model.enqueue(.text("a label"), .calls(("c1", "read_attachment", #"{"id":"a1"}"#)), .text("I cannot look again"))
        let first = try h.runner.submit(threadID: "t1", text: "what is this?", attachments: [ref(tinyPNG())])
        _ = await h.runner.outcome(of: first.runID)
        _ = try await h.ask("how many calories again?")
        let last = try #require(h.model.requests.last)
        #expect(last.messages.allSatisfy { $0.attachments.isEmpty })
        #expect(last.messages.last?.role == .tool)
        #expect("\(String(describing: last.messages.last))".contains("not shown: this model cannot see images"), "\(String(describing: last.messages.last))")
    }
}

/// A file just read is sent from memory while it is hashed and stored in the background
/// (AttachmentSaving.swift); the run ends only once it is stored under its SHA-256. Serialized:
/// `AttachmentSaving.waitForAll` is process-wide.
@Suite(.serialized) struct AttachmentSavingTests {
    func loaded(_ bytes: [UInt8], name: String = "label.png") throws -> LoadedAttachment {
        try LoadedAttachment.checked(name: name, bytes: bytes)
    }

    /// Step 1 alone, as `submit` does it: a message of thread "t1" carrying `file` (a placeholder).
    func saveMessage(with file: LoadedAttachment, in queue: DatabaseQueue) throws {
        try queue.write { db in
            try ConversationStore.ensureThread(db, id: "t1", now: 0)
            let message = try ConversationStore.insertMessage(db, threadID: "t1", runID: nil, role: .user, turn: nil, state: .complete,
                                                              parts: [.text("log this")], now: 0)
            try ConversationStore.insertAttachments(db, messageID: message, [file.ref], queue: queue, now: 0)
        }
    }

    @Test func aFileJustReadIsSentAndStoredUnderItsHashByTheTimeTheRunEnds() async throws {
        let h = try Harness()
        h.model.enqueue(.text("seen"), .text("seen again"))
        let png = tinyPNG(comment: "pending")
        let first = try loaded(png)
        #expect(first.ref.isPending)
        let a = try h.runner.submit(threadID: "t1", text: "log this", attachments: [first.ref])
        #expect(await h.runner.outcome(of: a.runID)?.phase == .completed)
        // The request carried the file (that it was written from memory, before the file was
        // stored: theRequestGoesOutBeforeTheFileIsStoredAndTheRunEndsAfter).
        var sent: [UInt8] = []
        try #require(h.model.requests.first?.messages.last?.attachments.first).source.read { sent += $0 }
        #expect(sent == png)
        // Stored once, under the real hash; no placeholder left.
        let sha = SHA256Hasher.hex(png)
        #expect(try count(h.queue, "SELECT COUNT(*) FROM attachments") == 1)
        #expect(try count(h.queue, "SELECT COUNT(*) FROM attachments WHERE sha256 = ? AND remote = 0 AND length(bytes) = ?", [sha, png.count]) == 1)
        #expect(try count(h.queue, "SELECT COUNT(*) FROM agent_message_attachments WHERE sha256 = ?", [sha]) == 1)
        // The same bytes read again and attached in another thread: still one row.
        let b = try h.runner.submit(threadID: "t2", text: "and this", attachments: [try loaded(png, name: "copy.png").ref])
        _ = await h.runner.outcome(of: b.runID)
        #expect(try count(h.queue, "SELECT COUNT(*) FROM attachments") == 1)
        #expect(try count(h.queue, "SELECT COUNT(*) FROM agent_message_attachments WHERE sha256 = ?", [sha]) == 2)
        var read: [UInt8] = []
        try h.store.attachments(threadID: "t2")[0].source.read { read += $0 }
        #expect(read == png)
        // A reference taken while the file was pending still reads (forwarded to the hash).
        var forwarded: [UInt8] = []
        try StoredAttachmentSource(queue: h.queue, sha256: first.key).read { forwarded += $0 }
        #expect(forwarded == png)
    }

    /// Holds the background save at `.attachmentSave` until the model has received the request
    /// (so the request provably did not wait for the save), then a little longer (so a run that
    /// did not wait for the save would end first).
    final class HoldSaveUntilRequest: FaultInjector {
        let requestSeen = DispatchSemaphore(value: 0)
        let sawRequestFirst = Mutex<Bool?>(nil)
        func reached(_ point: FaultPoint, runID: String) throws {
            guard point == .attachmentSave else { return }
            let seen = requestSeen.wait(timeout: .now() + 30) == .success
            sawRequestFirst.withLock { $0 = seen }
            usleep(200_000)
        }
    }

    @Test func theRequestGoesOutBeforeTheFileIsStoredAndTheRunEndsAfter() async throws {
        let hold = HoldSaveUntilRequest()
        let clock = VirtualClock()
        let model = ScriptedChatModel(clock: clock) { request, _ in
            hold.requestSeen.signal()
            return .text("seen")
        }
        let h = try Harness(model: model, clock: clock, faults: hold)
        let png = tinyPNG(comment: "held")
        let a = try h.runner.submit(threadID: "t1", text: "log this", attachments: [try loaded(png).ref])
        #expect(await h.runner.outcome(of: a.runID)?.phase == .completed)
        #expect(hold.sawRequestFirst.withLock { $0 } == true)
        var sent: [UInt8] = []
        try #require(model.requests.first?.messages.last?.attachments.first).source.read { sent += $0 }
        #expect(sent == png)
        #expect(try count(h.queue, "SELECT COUNT(*) FROM attachments WHERE sha256 = ? AND remote = 0", [SHA256Hasher.hex(png)]) == 1)
        #expect(try count(h.queue, "SELECT COUNT(*) FROM attachments WHERE remote = 2") == 0)
    }

    /// A crash while the file is being stored (after the message committed) leaves the message
    /// with a placeholder: a new process lists the file, says it was not saved, and the same file
    /// attached again is stored normally.
    @Test func aCrashWhileStoringLeavesAPlaceholderThatSaysAttachItAgain() async throws {
        let dir = TempDirectory()
        let path = dir.file("ofj.sqlite")
        let png = tinyPNG(comment: "crash")
        do {
            let first = try Harness(queue: try openDatabase(path), faults: CrashAt(.attachmentSave))
            first.model.enqueue(.text("seen"))
            let a = try first.runner.submit(threadID: "t1", text: "log this", attachments: [try loaded(png).ref])
            let outcome = try #require(await first.runner.outcome(of: a.runID))
            #expect(outcome.phase.isActive, "a crashed run writes nothing more: \(outcome.phase)")
        }
        let second = try Harness(queue: try openDatabase(path), ids: CountingIDSource(prefix: "b-"))
        _ = try second.runner.recoverInterruptedRuns()
        let listed = try second.store.attachments(threadID: "t1")
        #expect(listed.map(\.name) == ["label.png"])
        #expect(listed[0].absence == .notSaved)
        #expect(listed[0].listLine == "label.png (image/png, \(png.count) bytes) — not saved (ofj stopped while saving it)")
        var line = ""
        do { try listed[0].source.read { _ in } } catch { line = "\(error)" }
        #expect(line.contains("was not saved"), "\(line)")
        // The model is told it cannot be shown (not offered read_attachment), and the tool says so too.
        let shown = try await ReadAttachmentTool(store: second.store).execute(arguments: ["id": .string(listed[0].id)],
                                                                              context: ToolContext(threadID: "t1", runID: "r", callID: "c", now: WallTime(secondsSince1970: 0)))
        #expect(shown.isError && shown.content.contains("not saved"), "\(shown.content)")
        second.model.enqueue(.text("seen now"))
        let again = try second.runner.submit(threadID: "t1", text: "here it is again", attachments: [try loaded(png).ref])
        #expect(await second.runner.outcome(of: again.runID)?.phase == .completed)
        let earlier = try #require(second.model.requests.last?.messages.first)
        #expect(earlier.attachments.isEmpty)
        #expect(earlier.text.contains("not saved (ofj stopped while saving it): it cannot be shown here"), "\(earlier.text)")
        #expect(try count(second.queue, "SELECT COUNT(*) FROM attachments WHERE sha256 = ? AND remote = 0", [SHA256Hasher.hex(png)]) == 1)
        // The earlier message keeps its placeholder (its file was never stored); deleting the
        // thread takes both.
        try second.store.deleteThread("t1")
        #expect(try count(second.queue, "SELECT COUNT(*) FROM attachments") == 0)
    }

    @Test func whilePendingTheBytesComeFromMemoryAndAPlaceholderLeftByAStopReadsAsNotSaved() async throws {
        let queue = try openDatabase()
        let store = ConversationStore(queue: queue)
        let png = tinyPNG(comment: "kept in memory")
        let file = try loaded(png)
        try saveMessage(with: file, in: queue)
        // Only the placeholder is in the database: no bytes.
        #expect(try count(queue, "SELECT COUNT(*) FROM attachments WHERE remote = 2 AND bytes IS NULL") == 1)
        let listed = try store.attachments(threadID: "t1")
        #expect(listed.map(\.name) == ["label.png"])
        #expect(listed.first?.byteCount == png.count)
        // As after an ofj that stopped before saving it: one line, never the name.
        var line = ""
        do { try listed[0].source.read { _ in } } catch { line = "\(error)" }
        #expect(line.contains("was not saved") && line.contains("attach the file again"), "\(line)")
        #expect(!line.contains("label.png"))
        // Not in backups and not counted as stored.
        #expect(try queue.read { try ConversationStore.attachmentCopies($0) }.isEmpty)
        #expect(try store.attachmentTotals().count == 0)
        #expect(listed[0].absence == .notSaved)
        // Once saving starts, the bytes are read from memory until they are stored (the save is
        // held here, so only the placeholder is in the database while they are read).
        let release = DispatchSemaphore(value: 0)
        let hold: @Sendable () throws -> Void = { release.wait() }
        let started = ConversationStore.savePending([file.ref], queue: queue, now: 0, reached: hold)
        var released = false
        defer { if !released { release.signal() } }
        let saving = try #require(started)
        #expect(try store.attachments(threadID: "t1").first?.absence == nil)
        var read: [UInt8] = []
        try listed[0].source.read { read += $0 }
        #expect(read == png)
        #expect(try count(queue, "SELECT COUNT(*) FROM attachments WHERE remote = 2 AND bytes IS NULL") == 1)
        release.signal()
        released = true
        #expect(await saving.wait() == nil)
        #expect(try count(queue, "SELECT COUNT(*) FROM attachments WHERE remote = 2") == 0)
    }

    /// A placeholder another live ofj is saving is "still being saved"; one whose ofj is gone,
    /// or this process's without its bytes (a simulated restart), is "not saved".
    @Test func aFileAnotherOfjIsSavingSaysSo() throws {
        let queue = try openDatabase()
        let store = ConversationStore(queue: queue)
        let file = try loaded(tinyPNG(comment: "elsewhere"))
        try saveMessage(with: file, in: queue)
        #expect(try count(queue, "SELECT COUNT(*) FROM attachment_saving WHERE key = ? AND owner = ?", [file.key, RunOwner.current]) == 1)
        #expect(try store.attachments(threadID: "t1").first?.absence == .notSaved) // this process, bytes not held
        let other = try #require(RunOwner.identity(pid: getppid()))
        try queue.write { try $0.execute("UPDATE attachment_saving SET owner = ?", [other]) }
        let listed = try store.attachments(threadID: "t1")
        #expect(listed.first?.absence == .beingSaved)
        #expect(listed.first?.listLine.hasSuffix("— still being saved by the ofj that sent it") == true)
        try queue.write { try $0.execute("UPDATE attachment_saving SET owner = '999999999:1'") }
        #expect(try store.attachments(threadID: "t1").first?.absence == .notSaved)
        // Deleting the thread takes the placeholder and who saves it.
        try store.deleteThread("t1")
        #expect(try count(queue, "SELECT COUNT(*) FROM attachment_saving") == 0)
    }

    @Test func aThreadDeletedBeforeItsFileIsStoredLeavesNothingBehind() throws {
        let queue = try openDatabase()
        let store = ConversationStore(queue: queue)
        let png = tinyPNG(comment: "deleted")
        let file = try loaded(png)
        try saveMessage(with: file, in: queue)
        try store.deleteThread("t1")
        try queue.write { db in
            try ConversationStore.resolvePending(db, key: file.key, sha256: SHA256Hasher.hex(png), format: .png, bytes: png, now: 0)
        }
        #expect(try count(queue, "SELECT COUNT(*) FROM attachments") == 0)
    }

    @Test func waitingReturnsWhenTheSaveEndsAndAfterwards() async throws {
        let queue = try openDatabase()
        let png = tinyPNG(comment: "waited")
        let file = try loaded(png)
        try saveMessage(with: file, in: queue)
        let saving = try #require(ConversationStore.savePending([file.ref, file.ref], queue: queue, now: 0))
        #expect(await saving.wait() == nil)
        #expect(await saving.wait() == nil)
        #expect(try count(queue, "SELECT COUNT(*) FROM attachments WHERE sha256 = ? AND remote = 0", [SHA256Hasher.hex(png)]) == 1)
        #expect(try count(queue, "SELECT COUNT(*) FROM attachments WHERE remote = 2") == 0)
        // Nothing pending: nothing to wait for.
        #expect(ConversationStore.savePending([ref(png)], queue: queue, now: 0) == nil)
    }

    /// Refuses storing bytes only (placeholders have remote = 2), not the run's own writes: as a
    /// full disk refuses a 10 MB file but not a small row.
    func refuseBytes(_ queue: DatabaseQueue) throws {
        try queue.write { try $0.execute("CREATE TRIGGER refuse_bytes BEFORE INSERT ON attachments WHEN NEW.remote = 0 BEGIN SELECT RAISE(ABORT, 'no space'); END") }
    }

    /// The database refuses to store the file: the answer, which has arrived, is kept and the run
    /// says the file was not saved; the bytes stay readable, and the next message's save stores
    /// it once the database takes it again.
    @Test func aSaveTheDatabaseRefusesKeepsTheAnswerAndTheNextMessageStoresIt() async throws {
        let h = try Harness()
        try refuseBytes(h.queue)
        h.model.enqueue(.text("a label"), .text("and a plate"))
        let png = tinyPNG(comment: "refused")
        let file = try loaded(png)
        let a = try h.runner.submit(threadID: "t1", text: "log this", attachments: [file.ref])
        let outcome = try #require(await h.runner.outcome(of: a.runID))
        #expect(outcome.phase == .completed && outcome.text == "a label", "\(outcome)")
        let errors = try await h.events(of: a.runID).compactMap { e -> String? in if case .error(let x) = e.kind { return x.line }; return nil }
        #expect(errors.count == 1 && errors[0].contains("sent but not saved") && errors[0].contains("tries again"), "\(errors)")
        #expect(try count(h.queue, "SELECT COUNT(*) FROM attachments WHERE remote = 2") == 1)
        var read: [UInt8] = []
        try StoredAttachmentSource(queue: h.queue, sha256: file.key).read { read += $0 }
        #expect(read == png)
        // The database takes files again: the next message's save stores both (its run waits).
        try h.queue.write { try $0.execute("DROP TRIGGER refuse_bytes") }
        let plate = tinyPNG(comment: "plate")
        let b = try h.runner.submit(threadID: "t1", text: "and this", attachments: [try loaded(plate).ref])
        #expect(await h.runner.outcome(of: b.runID)?.phase == .completed)
        for bytes in [png, plate] {
            #expect(try count(h.queue, "SELECT COUNT(*) FROM attachments WHERE sha256 = ? AND remote = 0", [SHA256Hasher.hex(bytes)]) == 1)
        }
        #expect(try count(h.queue, "SELECT COUNT(*) FROM attachments WHERE remote = 2") == 0)
        #expect(await AttachmentSaving.waitForAll() == nil)
    }

    /// Still refused when the session ends: the last try fails, the line says so (never the
    /// file's name), and the file reads as not saved.
    @Test func aFileStillRefusedAtTheEndIsReported() async throws {
        let h = try Harness()
        try refuseBytes(h.queue)
        h.model.enqueue(.text("a label"))
        let file = try loaded(tinyPNG(comment: "lost"), name: "SECRET-NAME.png")
        let a = try h.runner.submit(threadID: "t1", text: "log this", attachments: [file.ref])
        #expect(await h.runner.outcome(of: a.runID)?.phase == .completed)
        let line = try #require(await AttachmentSaving.waitForAll())
        #expect(line.hasPrefix("An attached file could not be saved before ofj ended:") && line.contains("Attach it again"), "\(line)")
        #expect(!line.contains("SECRET-NAME"))
        #expect(try h.store.attachments(threadID: "t1").first?.absence == .notSaved)
        #expect(await AttachmentSaving.waitForAll() == nil) // nothing left to try
    }
}

@Suite struct AttachmentSplicerTests {
    @Test func splicesEveryMarkerWithTheBase64OfItsAttachment() throws {
        let a = tinyPNG(comment: "one"), b = Array((0..<1_000).map { UInt8($0 % 251) })
        let ra = ref(a), rb = ref(b, name: "b.bin")
        let json = Array("{\"x\":\"\(AttachmentSplicer.marker(ra))\",\"y\":\"data:;base64,\(AttachmentSplicer.marker(rb))\",\"z\":\"\(AttachmentSplicer.marker(ra))\"}".utf8)
        let out = try AttachmentSplicer.splice(json, [ra, rb])
        let expected = "{\"x\":\"\(Data(a).base64EncodedString())\",\"y\":\"data:;base64,\(Data(b).base64EncodedString())\",\"z\":\"\(Data(a).base64EncodedString())\"}"
        #expect(String(decoding: out, as: UTF8.self) == expected)
        #expect(AttachmentSplicer.splicedCount(json, [ra, rb]) == out.count)
    }
}
