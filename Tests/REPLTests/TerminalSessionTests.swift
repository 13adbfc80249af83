import Foundation
import Testing
import TestSupport

/// Drives the real `ofj` on a pseudo-terminal, as a person would.
@Suite(.serialized) struct TerminalSessionTests {
    let home = TempDirectory(prefix: "ofj-pty")

    var environment: [String: String] {
        ["OFJ_HOME": home.file("data"), "XDG_STATE_HOME": home.file("state"), "XDG_CONFIG_HOME": home.file("config"),
         "HOME": home.path, "TERM": "xterm", "LANG": "C.UTF-8", "OFJ_PROVIDER": "offline"]
    }

    func start(_ extra: [String: String] = [:], arguments: [String] = []) async throws -> PTYProcess {
        let binary = try #require(OfjBinary.path, "build ofj first (swift build)")
        let p = try PTYProcess(executable: binary, arguments: arguments, environment: environment.merging(extra) { $1 })
        #expect(await p.read(until: "/help for commands") != nil)
        _ = await p.read(timeout: 0.2) // let the editor take the terminal
        return p
    }

    @Test func tabCompletesSlashCommandsAndListsCandidates() async throws {
        let p = try await start()
        p.send("/thr\t")
        _ = await p.read(timeout: 0.3)
        p.send("\r")
        #expect(await p.read(until: "No threads yet.") != nil)
        p.send("/co\t")
        let listing = try #require(await p.read(until: "compact"))
        #expect(listing.contains("/continue") && listing.contains("/context"))
        p.send("\u{15}/exit\r") // Ctrl-U clears the line
        #expect(await p.waitForExit() == 0)
    }

    @Test func historyPersistsAcrossSessionsButNotLinesStartingWithSpace() async throws {
        var p = try await start()
        p.send("/goals\r")
        #expect(await p.read(until: "Daily goals") != nil)
        p.send(" /day\r")
        #expect(await p.read(until: "Nothing logged") != nil)
        p.send("/exit\r")
        #expect(await p.waitForExit() == 0)
        let history = try String(contentsOfFile: home.file("state/ofj/history"), encoding: .utf8)
        #expect(history.contains("/goals"))
        #expect(!history.contains("/day"))
        p = try await start()
        p.send("\u{10}\u{10}") // Ctrl-P twice (like Up): past "/exit" to "/goals"
        _ = await p.read(timeout: 0.3)
        p.send("\r")
        #expect(await p.read(until: "Daily goals") != nil)
        p.send("/exit\r")
        #expect(await p.waitForExit() == 0)
    }

    @Test func ctrlCTwiceAtAnEmptyPromptExits() async throws {
        let p = try await start()
        p.send("\u{03}")
        #expect(await p.read(until: "Ctrl-C again or Ctrl-D to exit") != nil)
        p.send("\u{03}")
        #expect(await p.waitForExit() == 0)
    }

    @Test func ctrlCWithTextOnlyClearsTheLine() async throws {
        let p = try await start()
        p.send("half typed\u{03}")
        _ = await p.read(timeout: 0.3)
        p.send("\u{03}")
        #expect(await p.read(until: "Ctrl-C again or Ctrl-D to exit") != nil)
        p.send("\u{04}") // Ctrl-D exits too
        #expect(await p.waitForExit() == 0)
    }

    @Test func colourOnTerminalUnlessNoColor() async throws {
        var p = try await start()
        p.send("/hlep\r")
        #expect(await p.read(until: "Did you mean /help?") != nil)
        p.send("/open zzz\r")
        let coloured = try #require(await p.read(until: "no thread with id"))
        #expect(coloured.contains("\u{1B}[31m✗"))
        p.send("/exit\r")
        _ = await p.waitForExit()
        p = try await start(["NO_COLOR": "1"])
        p.send("/open zzz\r")
        let plain = try #require(await p.read(until: "no thread with id"))
        #expect(!plain.contains("\u{1B}[31m"))
        p.send("/exit\r")
        #expect(await p.waitForExit() == 0)
    }

    /// Issue 17, REPL 4: `--resume` shows where you were before the prompt: the last exchanges,
    /// tool activity one line each.
    @Test func resumeShowsTheLastExchangesBeforeThePrompt() async throws {
        var p = try await start()
        p.send("log 2 eggs for breakfast\r")
        #expect(await p.read(until: "[a]lways for this tool in this thread: ") != nil)
        p.send("y")
        #expect(await p.read(until: "tokens") != nil)
        _ = await p.read(timeout: 0.3)
        p.send("/exit\r")
        #expect(await p.waitForExit() == 0)

        p = try PTYProcess(executable: try #require(OfjBinary.path), arguments: ["--resume"], environment: environment)
        let screen = try #require(await p.read(until: "› ")).replacingOccurrences(of: "\r", with: "")
        let shown = stripANSI(screen)
        #expect(shown.contains("── earlier in this thread ──\n› log 2 eggs for breakfast\n"), "\(shown)")
        #expect(shown.contains("  · log_reference_food: logged Egg, whole, raw, fresh to breakfast"), "\(shown)")
        #expect(shown.contains("Logged Egg, whole, raw, fresh"), "\(shown)")
        p.send("/exit\r")
        #expect(await p.waitForExit() == 0)
    }
}

/// The REPL with pipes: no prompt echo, no escape codes.
@Suite struct PipedSessionTests {
    @Test func pipedOutputHasNoEscapeCodes() async throws {
        let home = TempDirectory(prefix: "ofj-pipe")
        let r = try await OfjBinary.run([], input: "/help\n/hlep\n/open zzz\n", environment: ["OFJ_HOME": home.path, "HOME": home.path, "OFJ_PROVIDER": "offline"])
        #expect(r.status == 0)
        #expect(!r.stdout.contains("\u{1B}"))
        #expect(r.stdout.contains("/threads [query]"))
        #expect(r.stdout.contains("Unknown command /hlep. Did you mean /help?"))
        #expect(r.stdout.contains("✗ no thread with id zzz"))
    }
}
