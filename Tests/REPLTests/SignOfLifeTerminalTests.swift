// Issue 17, REPL 1: a sign of life while the model has not answered yet, on a terminal only.
import Foundation
import Testing
import TestSupport

@Suite(.serialized) struct SignOfLifeTerminalTests {
    let home = TempDirectory(prefix: "ofj-life")

    func environment(_ server: LoopbackHTTPServer, _ extra: [String: String] = [:]) -> [String: String] {
        ["OFJ_HOME": home.file("data"), "XDG_STATE_HOME": home.file("state"), "XDG_CONFIG_HOME": home.file("config"),
         "HOME": home.path, "TERM": "xterm", "LANG": "C.UTF-8", "OFJ_PROVIDER": "openai", "OFJ_MODEL": "test-model",
         "OPENAI_BASE_URL": server.url("/v1"), "OPENAI_API_KEY": "sk-test-NOT-A-REAL-KEY-123456"].merging(extra) { $1 }
    }

    func slowAnswer(_ server: LoopbackHTTPServer) {
        server.enqueue(.init(status: 200, headers: [("Content-Type", "text/event-stream")], body: Array(ApprovalCardTerminalTests.done.utf8),
                             framing: .chunked, delayBeforeHead: 2.5))
    }

    @Test func aSpinnerWithSecondsShowsUntilTheFirstTokenThenGoes() async throws {
        let server = try LoopbackHTTPServer()
        slowAnswer(server)
        let binary = try #require(OfjBinary.path, "build ofj first (swift build)")
        let p = try PTYProcess(executable: binary, arguments: [], environment: environment(server))
        #expect(await p.read(until: "/help for commands") != nil)
        _ = await p.read(timeout: 0.3)
        p.send("hello\r")
        let waiting = await p.read(until: "waiting for the model · 1s · Ctrl-C to stop")
        #expect(waiting != nil)
        let rest = try #require(await p.read(until: "tokens"))
        // The spinner line is erased before the answer is written on it.
        let answer = try #require(rest.range(of: "OK."))
        let before = rest[..<answer.lowerBound]
        #expect(before.hasSuffix("\r\u{1B}[2K"), "\(before.suffix(40).debugDescription)")
        #expect(!rest[answer.lowerBound...].contains("Ctrl-C to stop"))
        p.send("/exit\r")
        #expect(await p.waitForExit() == 0)
    }

    @Test func noSpinnerInPlainMode() async throws {
        let server = try LoopbackHTTPServer()
        slowAnswer(server)
        let binary = try #require(OfjBinary.path, "build ofj first (swift build)")
        let p = try PTYProcess(executable: binary, arguments: [], environment: environment(server, ["NO_COLOR": "1"]))
        #expect(await p.read(until: "/help for commands") != nil)
        _ = await p.read(timeout: 0.3)
        p.send("hello\r")
        let screen = try #require(await p.read(until: "tokens"))
        #expect(!screen.contains("Ctrl-C to stop") && !screen.contains("\u{1B}[2K"), "\(screen.debugDescription)")
        p.send("/exit\r")
        #expect(await p.waitForExit() == 0)
    }

    @Test func noSpinnerWhenPiped() async throws {
        let server = try LoopbackHTTPServer()
        slowAnswer(server)
        let r = try await OfjBinary.run([], input: "hello\n", environment: environment(server))
        #expect(r.status == 0)
        #expect(r.stdout.contains("OK.") && !r.stdout.contains("Ctrl-C to stop"), "\(r.stdout)")
    }
}
