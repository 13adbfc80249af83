// Attachment metadata syncs with `sync.threads` (never the bytes): the other machine lists the
// file and says it is on another machine; a deleted thread takes the metadata with it.
@testable import Agent
import Foundation
import Views
import SQLiteKit
import TestSupport
import Testing
@testable import Sync

extension Machine {
    /// A user message in `thread` carrying `attachments` (stored as `ofj ask --attach` does).
    @discardableResult
    func sayWithFiles(_ thread: String, _ text: String, _ attachments: [AttachmentRef], at: Double) throws -> Int64 {
        let queue = self.queue
        return try queue.write { db in
            try ConversationStore.ensureThread(db, id: thread, now: at)
            let id = try ConversationStore.insertMessage(db, threadID: thread, runID: nil, role: .user, turn: nil, state: .complete,
                                                         parts: [.text(text)], now: at)
            try ConversationStore.insertAttachments(db, messageID: id, attachments, queue: queue, now: at)
            return id
        }
    }
}

/// A 120 KB "PNG" (its signature, then filler) named `name`.
func pngAttachment(_ name: String, size: Int = 120_000) -> AttachmentRef {
    let bytes = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: size - 8)
    return AttachmentRef(name: name, format: .png, byteCount: bytes.count, sha256: SHA256Hasher.hex(bytes), source: MemoryAttachmentSource(bytes))
}

@Suite(.serialized) struct AttachmentSyncTests {
    func golden(_ name: String, _ text: String) throws {
        let path = OfjBinary.repositoryRoot + "/Tests/Golden/sync/" + name
        if ProcessInfo.processInfo.environment["OFJ_UPDATE_GOLDEN"] == "1" { try Data(text.utf8).write(to: URL(fileURLWithPath: path)) }
        let expected = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        #expect(text == expected, "\(name) differs from its golden file; run with OFJ_UPDATE_GOLDEN=1 and review the diff")
    }

    /// A sync between the message's commit and the file's (the file is stored in the
    /// background, AttachmentSaving.swift) pushes the link with its pending key: the other machine
    /// takes it as "not saved" (not malformed), and the stored file's hash follows with the next sync.
    @Test func aLinkPushedBeforeItsFileWasStoredArrivesAndIsCorrectedLater() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url), b = try Machine(url: server.url)
        let bytes = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 9, count: 5_000)
        let file = LoadedAttachment(name: "label.png", format: .png, bytes: bytes)
        try a.sayWithFiles("t1", "What is in this?", [file.ref], at: 100)
        try await a.sync()
        let first = try await b.sync()
        #expect(first.skipped == 0)
        let early = try #require(try b.threads.transcript(threadID: "t1").first?.message.attachments.first)
        #expect(early.absence == .notSaved && early.name == "label.png")
        // A stores the file (step 2), and the corrected link follows.
        try a.queue.write { try ConversationStore.resolvePending($0, key: file.key, sha256: SHA256Hasher.hex(bytes), format: .png, bytes: bytes, now: 101) }
        try await a.sync()
        let second = try await b.sync()
        #expect(second.skipped == 0)
        let late = try #require(try b.threads.transcript(threadID: "t1").first?.message.attachments.first)
        #expect(late.sha256 == SHA256Hasher.hex(bytes) && late.absence == .onAnotherMachine)
        #expect(try b.queue.read { try $0.scalar("SELECT group_concat(remote) FROM attachments").string } == "1")
    }

    @Test func aMessagesAttachmentArrivesAsMetadataThatSaysWhereTheFileIs() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url), b = try Machine(url: server.url)
        let file = pngAttachment("label.jpg")
        let message = try a.sayWithFiles("t1", "What is in this?", [file], at: 100)
        // The message changes after its attachment, so its newer version reaches the remote
        // later: B pulls the attachment link before its message (it waits, then is attached).
        try a.queue.write { try ConversationStore.updateTextPart($0, messageID: message, ordinal: 0, text: "What is in this label?") }
        try await a.sync()
        #expect(try remoteRows(server.dbPath, "SELECT count(*) FROM ofj_sync_rows WHERE kind = 'attachment'").first?[0].int == 1)
        #expect(try remoteRows(server.dbPath, "SELECT count(*) FROM ofj_sync_rows WHERE payload LIKE '%iVBOR%'").first?[0].int == 0)
        let pulled = try await b.sync()
        #expect(pulled.skipped == 0)
        #expect(try b.count("sync_attachments_waiting") == 0)

        let got = try #require(try b.threads.transcript(threadID: "t1").first?.message.attachments.first)
        #expect(got.name == "label.jpg" && got.format == .png && got.byteCount == 120_000 && got.sha256 == file.sha256 && got.isRemote)
        #expect(try a.threads.transcript(threadID: "t1").first?.message.attachments.first?.isRemote == false)
        // No bytes on B: an attachments row with remote = 1 and nothing in it; not counted as stored.
        #expect(try b.queue.read { try $0.scalar("SELECT COALESCE(length(bytes), 0) || '/' || remote FROM attachments").string } == "0/1")
        #expect(try b.threads.attachmentTotals().count == 0)

        // `ofj threads show` lists it with its type and size, and says where it is.
        let thread = try #require(try b.threads.thread("t1"))
        let shown = try ThreadExport.render(thread, format: .md, store: b.threads, timeZone: utc)
        #expect(shown.contains("📎 label.jpg (image/png, 120 KB) — on another machine"))
        let here = try ThreadExport.render(try #require(try a.threads.thread("t1")), format: .md, store: a.threads, timeZone: utc)
        #expect(here.contains("📎 label.jpg (image/png, 120 KB)\n"))
        let json = try ThreadExport.render(thread, format: .json, store: b.threads, timeZone: utc)
        #expect(json.contains("\"here\": false") && json.contains("\"name\": \"label.jpg\""))
        try golden("attachment-elsewhere.md", shown)
        try golden("attachment-elsewhere.json", json)

        // read_attachment on B answers that the file is on another machine; the bytes are never read.
        let tool = ReadAttachmentTool(store: b.threads)
        let context = ToolContext(threadID: "t1", runID: "r1", callID: "c1", now: WallTime(secondsSince1970: 200))
        let output = try await tool.execute(arguments: ["id": .string(got.id)], context: context)
        #expect(output.isError)
        #expect(output.summary.contains("on another machine"))
        #expect(output.summary.contains("\(got.id) (PNG image, 120 KB)") && !output.summary.contains("label.jpg"))
        #expect(throws: AgentError.self) { try got.source.read { _ in } }

        // A request from B carries a line for it, never the (missing) file.
        let messages = try b.threads.transcript(threadID: "t1").map(\.message)
        let sent = AttachmentWindow.apply(messages) { try? b.threads.attachment(id: $0, threadID: "t1") }
        #expect(sent.flatMap(\.attachments).isEmpty)
        let line = (sent.last?.parts ?? []).compactMap { if case .text(let t) = $0 { t } else { nil } }.joined()
        #expect(line.contains("\"label.jpg\", 120 KB; on another machine"))
        #expect(got.placeholderName.hasSuffix("— on another machine"))

        // The same file attached on B fills in the bytes there.
        try b.sayWithFiles("t1", "Again", [file], at: 300)
        #expect(try b.threads.transcript(threadID: "t1").flatMap(\.message.attachments).map(\.isRemote) == [false, false])
        #expect(try b.threads.attachmentTotals().count == 1)
        await server.shutdown()
    }

    @Test func aThreadDeletedOnOneMachineTakesItsAttachmentMetadataEverywhere() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url), b = try Machine(url: server.url)
        try a.sayWithFiles("t1", "Label", [pngAttachment("label.jpg")], at: 100)
        try a.sayWithFiles("t2", "Menu", [pngAttachment("menu.png", size: 2_000)], at: 101)
        try await a.sync()
        try await b.sync()
        #expect(try b.count("agent_message_attachments") == 2 && b.count("attachments") == 2)
        try a.threads.deleteThread("t1")
        try await a.sync()
        try await b.sync()
        #expect(try b.count("agent_message_attachments") == 1 && b.count("attachments") == 1)
        #expect(try b.queue.read { try $0.scalar("SELECT name FROM agent_message_attachments").string } == "menu.png")
        // B deletes the other thread: A loses the link and, with its last link, the bytes.
        try b.threads.deleteThread("t2")
        try await b.sync()
        try await a.sync()
        #expect(try a.count("agent_message_attachments") == 0 && a.count("attachments") == 0)
        #expect(try remoteRows(server.dbPath, "SELECT count(*) FROM ofj_sync_rows WHERE kind = 'attachment' AND deleted = 0").first?[0].int == 0)
        await server.shutdown()
    }

    @Test func attachmentsFromBeforeSyncAreSentByTheFirstSync() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url) { queue in
            try queue.write { db in
                try ConversationStore.ensureThread(db, id: "t1", now: 100)
                let id = try ConversationStore.insertMessage(db, threadID: "t1", runID: nil, role: .user, turn: nil, state: .complete,
                                                             parts: [.text("old label")], now: 100)
                try ConversationStore.insertAttachments(db, messageID: id, [pngAttachment("old.png", size: 500)], queue: queue, now: 100)
            }
        }
        let b = try Machine(url: server.url)
        #expect(try a.queue.read { try $0.scalar("SELECT count(*) FROM sync_pending WHERE kind = 'attachment'").int } == 1)
        try await a.sync()
        try await b.sync()
        let got = try b.threads.transcript(threadID: "t1").flatMap(\.message.attachments)
        #expect(got.map(\.listLine) == ["old.png (image/png, 500 bytes) — on another machine"])
        await server.shutdown()
    }

    @Test func malformedAttachmentRowsAreSkippedAndCounted() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url), b = try Machine(url: server.url)
        let message = try a.say("t1", .user, [.text("label")], at: 100)
        let messageSyncID = try #require(try a.queue.read { try $0.scalar("SELECT sync_id FROM agent_messages WHERE id = ?", [message]).string })
        try await a.sync()
        try await b.sync()
        let sha = String(repeating: "ab", count: 32)
        func row(_ id: String, type: String = "image/png", sha: String = sha, bytes: String = "10") -> String {
            #"{"sync_id":"\#(id)","ordinal":0,"name":"x.png","sha256":"\#(sha)","message":"\#(messageSyncID)","media_type":"\#(type)","byte_count":\#(bytes)}"#
        }
        let db = try Database(path: server.dbPath)
        for (i, payload) in [row("x1", type: "image/heic"), row("x2", sha: "not-a-hash"), row("x3", bytes: "0"), row("x4", bytes: "\"big\"")].enumerated() {
            try db.execute("INSERT INTO ofj_sync_rows (kind, id, pos, hlc, device, deleted, payload, pushed_at) VALUES ('attachment', ?, ?, 1, 'evil', 0, ?, '2026-11-30T00:00:00Z')",
                           ["x\(i + 1)", 100 + i, payload])
        }
        let report = try await b.sync()
        #expect(report.quarantined == 4)
        #expect(try b.count("agent_message_attachments") == 0 && b.count("attachments") == 0 && b.count("sync_attachments_waiting") == 0)
        await server.shutdown()
    }

    @Test func attachmentMetadataStaysLocalWhenThreadsAreOff() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url, threads: false), b = try Machine(url: server.url)
        try a.sayWithFiles("t1", "private label", [pngAttachment("label.jpg")], at: 100)
        #expect(try a.local.status(threads: false).pending == 0)
        try await a.sync()
        try await b.sync()
        #expect(try b.count("agent_message_attachments") == 0 && b.count("attachments") == 0)
        #expect(try remoteRows(server.dbPath, "SELECT count(*) FROM ofj_sync_rows WHERE kind = 'attachment'").first?[0].int == 0)
        #expect(try a.count("attachments") == 1)
        await server.shutdown()
    }
}
