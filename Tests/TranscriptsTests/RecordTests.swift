import Foundation
import Testing
import TestSupport
import Transcripts

/// `ofj --record` saves a session that replays offline and carries no key.
@Suite struct RecordTests {
    @Test func recordedSessionReplaysAndHoldsNoKey() async throws {
        let home = TempDirectory(prefix: "ofj-record")
        let file = home.file("session.ofjt")
        let env = ["OFJ_HOME": home.file("data"), "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"),
                   "OFJ_PROVIDER": "offline", "GEMINI_API_KEY": "AIzaSyPLANTED-SECRET-KEY-0123456789"]
        let r = try await OfjBinary.run(["--record", file], input: "log 2 eggs for breakfast\ny\nwhat did I eat today\n", environment: env)
        #expect(r.status == 0)
        #expect(r.stderr.contains("it will contain your journal"))
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("> log 2 eggs for breakfast"))
        #expect(text.contains("model: call offline-1-3 log_reference_food"))
        #expect(text.contains("approve: y"))
        #expect(!text.contains("PLANTED-SECRET"))
        let replay = try await OfjBinary.run(["replay", file], environment: ["HOME": home.path])
        #expect(replay.status == 0, "\(replay.stdout)")
        // Recording again to the same file is refused rather than overwriting it.
        let again = try await OfjBinary.run(["--record", file], input: "", environment: env)
        #expect(again.status == 2)
    }

    /// Files read for /attach are seeded before the first step: once for a name whose reads all
    /// gave the same bytes, one seed per read (in order) for a name whose file changed between reads.
    @Test func attachedFilesAreSeededOncePerVersion() throws {
        let home = TempDirectory(prefix: "ofj-record")
        let path = home.file("s.ofjt")
        let recorder = SessionRecorder(path: path, model: "m", startedAt: Date(timeIntervalSince1970: 0), timeZone: TimeZone(identifier: "UTC")!,
                                       backupJSON: "{}")
        recorder.input("/attach a.jpg")
        recorder.attachment(name: "a.jpg", bytes: [1, 2, 3])
        recorder.attachment(name: "a.jpg", bytes: [1, 2, 3])
        recorder.attachment(name: "b.jpg", bytes: [4])
        recorder.attachment(name: "b.jpg", bytes: [4])
        recorder.attachment(name: "b.jpg", bytes: [5, 6])
        try recorder.write()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.filter { $0 == "@seed attachment a.jpg" }.count == 1)
        #expect(lines.filter { $0 == "@seed attachment b.jpg" }.count == 3)
        let b64 = lines.enumerated().filter { $0.element == "@seed attachment b.jpg" }.map { lines[$0.offset + 1] }
        #expect(b64 == ["  BA==", "  BA==", "  BQY="])
        let firstStep = try #require(lines.firstIndex(of: "> /attach a.jpg"))
        #expect(lines.lastIndex { $0.hasPrefix("@seed attachment") }! < firstStep)
    }
}
