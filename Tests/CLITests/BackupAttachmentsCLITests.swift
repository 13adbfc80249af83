// `ofj backup export --with-attachments` and `ofj backup import` through the binary (issue 19 §4):
// attachments are left out unless asked for; with the flag every stored file travels with its
// names and dates; import checks them first and restores them deduplicated by SHA-256.
import Agent
import Foundation
import SQLiteKit
import Testing
import TestSupport

@Suite struct BackupAttachmentsCLITests {
    let home = TempDirectory(prefix: "ofj-backup-att")

    func env(_ name: String) -> [String: String] {
        ["OFJ_HOME": home.file(name), "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "OFJ_PROVIDER": "offline", "TZ": "UTC"]
    }

    @discardableResult
    func ofj(_ args: [String], in name: String, status: Int32 = 0) async throws -> OfjBinary.Result {
        let r = try await OfjBinary.run(args, environment: env(name))
        #expect(r.status == status, "\(args): \(r.status) \(r.stderr)")
        return r
    }

    static func png() -> [UInt8] {
        var b: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        func chunk(_ type: String, _ data: [UInt8]) {
            let n = UInt32(data.count)
            b += [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + Array(type.utf8) + data + [0, 0, 0, 0]
        }
        chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0])
        chunk("IDAT", [0x78, 0x9C, 0x63, 0, 0, 0, 2, 0, 1])
        b += [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
        return b
    }
    static let pdf = Array("%PDF-1.4\n1 0 obj << >> endobj\n%%EOF\n".utf8)

    func ref(_ bytes: [UInt8], _ name: String, _ format: AttachmentFormat) -> AttachmentRef {
        AttachmentRef(name: name, format: format, byteCount: bytes.count, sha256: SHA256Hasher.hex(bytes), source: MemoryAttachmentSource(bytes))
    }

    /// Two threads in `name`'s database: the label photo attached twice (one stored row), a PDF once.
    func seedAttachments(in name: String) async throws {
        try await ofj(["backup", "export", "-o", home.file("\(name)-first.json")], in: name) // creates the database
        let queue = try DatabaseQueue(path: home.file(name) + "/ofj.sqlite")
        let model = ScriptedChatModel(clock: SystemClock())
        model.enqueue(.text("a label"), .text("again"))
        let runner = AgentRunner(store: ConversationStore(queue: queue), model: model, tools: ToolRegistry([]),
                                 approvals: ScriptedApprovalGate(fallback: .deny), configuration: AgentConfiguration(systemPrompt: "s"))
        let a = try runner.submit(threadID: "t1", text: "log this", attachments: [ref(Self.png(), "label.png", .png), ref(Self.pdf, "menu.pdf", .pdf)])
        _ = await runner.outcome(of: a.runID)
        let b = try runner.submit(threadID: "t2", text: "and this", attachments: [ref(Self.png(), "label copy.png", .png)])
        _ = await runner.outcome(of: b.runID)
    }

    func attachmentRows(in name: String) throws -> [String: [UInt8]] {
        let queue = try DatabaseQueue(path: home.file(name) + "/ofj.sqlite")
        var out: [String: [UInt8]] = [:]
        try queue.read { db in
            for c in try ConversationStore.attachmentCopies(db) { out[c.sha256] = c.bytes }
        }
        return out
    }

    @Test func withTheFlagAttachmentsTravelAndAreRestoredOncePerHash() async throws {
        try await seedAttachments(in: "a")
        // Without the flag the backup is the journal only, as before.
        try await ofj(["backup", "export", "-o", home.file("plain.json")], in: "a")
        let plain = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: home.file("plain.json")))) as? [String: Any])
        #expect(plain["attachments"] == nil)
        #expect(plain["schema_version"] as? Int == 1)

        try await ofj(["backup", "export", "--with-attachments", "-o", home.file("full.json")], in: "a")
        let full = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: home.file("full.json")))) as? [String: Any])
        #expect(full["schema_version"] as? Int == 1, "an older ofj still reads it: the new key is skipped")
        let list = try #require(full["attachments"] as? [[String: Any]])
        #expect(list.count == 2)
        let photo = try #require(list.first { $0["media_type"] as? String == "image/png" })
        #expect(photo["sha256"] as? String == SHA256Hasher.hex(Self.png()))
        #expect(photo["byte_count"] as? Int == Self.png().count)
        #expect(photo["data"] as? String == Data(Self.png()).base64EncodedString())
        let uses = try #require(photo["attached"] as? [[String: Any]])
        #expect(uses.compactMap { $0["name"] as? String } == ["label.png", "label copy.png"])
        #expect(uses.allSatisfy { ($0["attached_at"] as? String)?.hasPrefix("20") == true })

        // Restored into another journal, once per hash; a second import finds them all.
        let first = try await ofj(["backup", "import", home.file("full.json")], in: "b")
        #expect(first.stdout.contains("Attachments: 2 restored, 0 already here"))
        let second = try await ofj(["backup", "import", home.file("full.json")], in: "b")
        #expect(second.stdout.contains("Attachments: 0 restored, 2 already here"))
        let rows = try attachmentRows(in: "b")
        #expect(rows == [SHA256Hasher.hex(Self.png()): Self.png(), SHA256Hasher.hex(Self.pdf): Self.pdf])
        // A backup without the key imports as before and says nothing about attachments.
        let old = try await ofj(["backup", "import", home.file("plain.json")], in: "c")
        #expect(!old.stdout.contains("Attachments"))
    }

    @Test func aTamperedAttachmentStopsTheImportBeforeAnythingIsWritten() async throws {
        try await seedAttachments(in: "a")
        try await ofj(["backup", "export", "--with-attachments", "-o", home.file("full.json")], in: "a")
        var text = try String(contentsOfFile: home.file("full.json"), encoding: .utf8)
        let good = Data(Self.pdf).base64EncodedString()
        let bad = Data(Array("%PDF-1.4\n1 0 obj << >> endobj\n%%EOX\n".utf8)).base64EncodedString()
        #expect(text.contains(good))
        text = text.replacingOccurrences(of: good, with: bad)
        try Data(text.utf8).write(to: URL(fileURLWithPath: home.file("tampered.json")))
        try await ofj(["backup", "export", "-o", home.file("empty.json")], in: "d")
        let r = try await OfjBinary.run(["backup", "import", home.file("tampered.json")], environment: env("d"))
        #expect(r.status != 0)
        #expect(r.stderr.contains("backup attachment ") && r.stderr.contains("does not match its sha256; nothing was imported"), "\(r.stderr)")
        #expect(!r.stderr.contains("menu.pdf") && !r.stderr.contains("label"))
        #expect(try attachmentRows(in: "d").isEmpty)

        let salvage = try await OfjBinary.run(["backup", "export", "--salvage", "--with-attachments"], environment: env("d"))
        #expect(salvage.status == 2 && salvage.stderr.contains("leave out --with-attachments"))
    }
}
