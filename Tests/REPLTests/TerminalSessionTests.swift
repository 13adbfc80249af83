// The real `ofj` REPL on a pseudo-terminal, as a person would drive it: Tab, the line editor, keys.
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
        #expect(await p.read(until: "[a]lways (this thread or a rule): ") != nil)
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

    /// Issue 17, REPL 7: Tab completes whole Food Bank names (several words, from a word inside
    /// the name too) and thread titles, not only ids.
    @Test func tabCompletesWholeFoodNamesAndThreadTitles() async throws {
        let backup = home.file("foods.json")
        func food(_ id: Int, _ name: String) -> String {
            """
            {"id": "11111111-1111-1111-1111-11111111111\(id)", "kind": "single", "name": "\(name)",
             "serving": {"quantity": 100, "unit": "g", "grams": 100}, "mappings": [], "nutrients": {"energy_kcal": 60},
             "ingredients": [], "recipe_servings": 1, "calculator_ingredients": [], "is_on_shelf": true,
             "is_manually_archived": false, "created_at": "2026-11-01T08:00:00.000Z", "updated_at": "2026-11-01T08:00:00.000Z"}
            """
        }
        try """
            {"schema_version": 1, "exported_at": "2026-11-29T10:00:00.000Z", "entries": [],
             "foods": [\(food(1, "Greek yogurt, plain")), \(food(2, "Greek salad")), \(food(3, "Oat milk barista"))]}
            """.write(toFile: backup, atomically: true, encoding: .utf8)
        let imported = try await OfjBinary.run(["backup", "import", backup], environment: environment)
        #expect(imported.status == 0, "\(imported.stderr)")

        let p = try await start()
        // What Tab made of each line is read back from the history, where the submitted lines go.
        p.send("/foods greek yo\t")
        _ = await p.read(timeout: 0.3)
        p.send("\r")
        #expect(await p.read(until: "Greek yogurt, plain") != nil)
        // A word inside a name completes to the whole name.
        p.send("/foods barist\t")
        _ = await p.read(timeout: 0.3)
        p.send("\r")
        #expect(await p.read(until: "Oat milk barista") != nil)
        // Two names share "Greek ": that much is completed, a second Tab lists both.
        p.send("/foods gre\t")
        _ = await p.read(timeout: 0.3)
        p.send("\t")
        let listing = stripANSI(await p.read(timeout: 0.5))
        #expect(listing.contains("Greek salad  Greek yogurt, plain"), "\(listing.debugDescription)")
        p.send("\u{15}")
        // A thread title completes after /open, and /open takes it.
        p.send("what did I eat today\r")
        #expect(await p.read(until: "tokens") != nil)
        p.send("/new\r")
        #expect(await p.read(until: "New thread.") != nil)
        p.send("/open what did\t")
        _ = await p.read(timeout: 0.3)
        p.send("\r")
        #expect(await p.read(until: "Opened “what did I eat today”.") != nil)
        p.send("/exit\r")
        #expect(await p.waitForExit() == 0)
        let history = try String(contentsOfFile: home.file("state/ofj/history"), encoding: .utf8)
            .replacingOccurrences(of: "\\040", with: " ")
        #expect(history.contains("/foods Greek yogurt, plain"), "\(history)")
        #expect(history.contains("/foods Oat milk barista"), "\(history)")
        #expect(history.contains("/open what did I eat today"), "\(history)")
    }

    /// `/export` and `/budget` complete their first argument from their entries' fixed words.
    @Test func tabCompletesBudgetsAndExportFormats() async throws {
        let p = try await start(["NO_COLOR": "1"])
        p.send("/export j\t")
        _ = await p.read(timeout: 0.3)
        p.send("\r")
        // Completed to "/export json": understood (an unfinished "j" would get the usage line).
        #expect(await p.read(until: "nothing to export") != nil)
        p.send("/budget m\t")
        _ = await p.read(timeout: 0.3)
        p.send("\r")
        #expect(await p.read(until: "send one first, then /budget") != nil)
        p.send("/exit\r")
        #expect(await p.waitForExit() == 0)
    }

    @Test func ctrlDAtThePromptEndsTheLine() async throws {
        let binary = try #require(OfjBinary.path)
        let p = try PTYProcess(executable: binary, arguments: [], environment: environment)
        #expect(await p.read(until: "/help for commands") != nil)
        // The line editor must be at its prompt before Ctrl-D (a busy machine can be slow to get there).
        _ = await p.read(until: "› ", timeout: 20)
        _ = await p.read(timeout: 0.3)
        p.send("\u{04}")
        let after = await p.read(until: "\n", timeout: 20)
        if after == nil { Issue.record("no line end after Ctrl-D: \(await p.read(timeout: 0.2).debugDescription)") }
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
