// Attachments: sniffing, bad files, streaming base64 and SHA-256, storage by hash, what a
// request carries (current message whole, earlier ones as placeholders, read_attachment).
import Foundation
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
        #expect(loaded.sha256 == SHA256Hasher.hex(png))
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
