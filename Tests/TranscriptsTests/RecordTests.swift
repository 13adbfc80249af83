import Foundation
import Testing
import TestSupport

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
}
