import Foundation
import Testing
import TestSupport
import SQLiteKit
#if canImport(Glibc)
import Glibc
#endif

/// ofj's command table end to end: help, usage errors, completion and the README all come from
/// it; and the command-line defects of issue #17 (thread prefixes, read-only databases, stdin,
/// exit statuses, doctor, diag export --local).
@Suite struct CommandLineTests {
    let home = TempDirectory(prefix: "ofj-cmdline")
    var env: [String: String] {
        ["OFJ_HOME": home.file("data"), "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "OFJ_PROVIDER": "offline"]
    }

    static let golden = OfjBinary.repositoryRoot + "/Tests/Golden/cli/"

    /// Compares `text` with a golden file (OFJ_UPDATE_GOLDEN=1 rewrites it).
    func expectGolden(_ text: String, _ name: String) throws {
        let path = Self.golden + name
        if ProcessInfo.processInfo.environment["OFJ_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(atPath: Self.golden, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        }
        let expected = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == expected, "\(name) differs from its golden file; run with OFJ_UPDATE_GOLDEN=1 and review the diff")
    }

    static let commandPaths: [[String]] = [
        [], ["ask"], ["day"], ["trend"], ["month"], ["gaps"], ["report"], ["log"], ["foods"], ["ref"], ["goals"], ["goals", "set"], ["goals", "reset"], ["backup"],
        ["backup", "export"], ["backup", "import"], ["export"], ["export", "csv"], ["diag"], ["diag", "status"], ["diag", "flush"],
        ["diag", "export"], ["replay"], ["doctor"], ["completion"], ["help"],
        ["entry"], ["entry", "show"], ["entry", "edit"], ["entry", "move"], ["entry", "delete"], ["foods", "add"], ["foods", "edit"],
        ["foods", "archive"], ["foods", "unarchive"], ["foods", "shelf"], ["import"], ["import", "cronometer"], ["import", "myfitnesspal"],
        ["import", "csv"],
    ]

    // MARK: - help, usage errors, completion, README

    /// Issue #17 §5: `ofj doctor --help` ran the doctor; `ofj ask --help` and `ofj replay --help`
    /// were "unknown option".
    @Test func everyCommandAnswersHelpWithItsUsage() async throws {
        for path in Self.commandPaths {
            for flag in ["--help", "-h"] {
                let r = try await OfjBinary.run(path + [flag], environment: env)
                #expect(r.status == 0, "\(path) \(flag): \(r.stderr)")
                #expect(r.stderr.isEmpty, "\(path) \(flag): \(r.stderr)")
                #expect(r.stdout.hasPrefix("usage: " + (["ofj"] + path).joined(separator: " ")), "\(path) \(flag): \(r.stdout)")
                #expect(r.stdout.contains("-h, --help"))
            }
        }
        let doctor = try await OfjBinary.run(["doctor", "--help"], environment: env)
        #expect(!doctor.stdout.contains("offline: built in"))
        #expect(!FileManager.default.fileExists(atPath: home.file("data/ofj.sqlite")), "help opened the database")
        let help = try await OfjBinary.run(["help", "backup", "export"], environment: env)
        #expect(help.status == 0 && help.stdout.hasPrefix("usage: ofj backup export"))
    }

    @Test func helpOutputIsStable() async throws {
        for (args, name) in [([String](), "ofj.txt"), (["log"], "log.txt"), (["ask"], "ask.txt"), (["diag", "export"], "diag-export.txt"),
                             (["goals"], "goals.txt"), (["foods"], "foods.txt"), (["import", "csv"], "import-csv.txt")] {
            let r = try await OfjBinary.run(args + ["--help"], environment: env)
            try expectGolden(r.stdout, "help-" + name)
        }
    }

    @Test func completionScriptsAreStableAndBashCompletes() async throws {
        for shell in ["bash", "zsh", "fish"] {
            let r = try await OfjBinary.run(["completion", shell], environment: env)
            #expect(r.status == 0, "\(r.stderr)")
            try expectGolden(r.stdout, "completion." + shell)
        }
        let bad = try await OfjBinary.run(["completion", "tcsh"], environment: env)
        #expect(bad.status == 2 && bad.stderr.contains("SHELL takes bash, zsh, fish"), "\(bad.stderr)")

        // The bash script, sourced in a real bash: what a Tab would offer.
        let script = try await OfjBinary.run(["completion", "bash"], environment: env).stdout
        let file = home.file("ofj.bash")
        try Data(script.utf8).write(to: URL(fileURLWithPath: file))
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/bash")
            p.arguments = ["-c", "source \(file); COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _ofj; printf '%s\\n' \"${COMPREPLY[@]}\""]
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            let data = PipeReading.readToEnd(out.fileHandleForReading)
            p.waitUntilExit()
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        #expect(try complete(["ofj", "ba"]) .sorted() == ["backup", "barcode"])
        #expect(try complete(["ofj", "backup", ""]) == ["export", "import"])
        #expect(try complete(["ofj", "log", "--me"]) == ["--meal"])
        #expect(try complete(["ofj", "log", "--meal", "d"]) == ["dinner"])
        #expect(try complete(["ofj", "foods", "--sort", ""]) == ["name", "last_used", "brand"])
        #expect(try complete(["ofj", "diag", "export", "--l"]) == ["--local"])
        #expect(try complete(["ofj", "completion", "z"]) == ["zsh"])
    }

    /// README.md's command table is generated from the command table; they must agree.
    @Test func readmeCommandTableMatchesTheTable() async throws {
        let table = try await OfjBinary.run(["__readme-commands"], environment: env).stdout
        let readme = try String(contentsOfFile: OfjBinary.repositoryRoot + "/README.md", encoding: .utf8)
        let begin = try #require(readme.range(of: "<!-- commands:begin"))
        let afterBegin = try #require(readme[begin.upperBound...].range(of: "\n"))
        let end = try #require(readme.range(of: "<!-- commands:end -->"))
        let section = String(readme[afterBegin.upperBound..<end.lowerBound])
        #expect(section == table, "README.md's command table is out of date; replace it with the output of `ofj __readme-commands`:\n\(table)")
        // Hidden commands stay out of help, completion and the README.
        #expect(!table.contains("__readme"))
        let help = try await OfjBinary.run(["--help"], environment: env).stdout
        #expect(!help.contains("__readme"))
    }

    @Test func usageErrorsSuggestAndNameTheCommand() async throws {
        let cases: [([String], String)] = [
            (["lgo"], "ofj: unknown command 'lgo' (did you mean log?) (see ofj --help)\n"),
            (["day", "--jsno"], "ofj: unknown option --jsno for ofj day (did you mean --json?) (see ofj day --help)\n"),
            (["backup", "exprot"], "ofj: unknown backup command 'exprot' (did you mean export?) (see ofj backup --help)\n"),
            (["ask", "--thred", "x", "hi"], "ofj: unknown option --thred for ofj ask (did you mean --thread?) (see ofj ask --help)\n"),
            (["replay", "--updat", "f"], "ofj: unknown option --updat for ofj replay (did you mean --update?) (see ofj replay --help)\n"),
            (["log", "X", "--kcal", "1", "--meal", "lunch", "--meal", "dinner"], "ofj: --meal is given twice; give it once (see ofj log --help)\n"),
            (["ask", "--model", "a", "--model", "b", "hi"], "ofj: --model is given twice; give it once (see ofj ask --help)\n"),
            (["log", "--food", "oats", "--ref", "01123"], "ofj: give --food or --ref, not both (see ofj log --help)\n"),
            (["log", "X", "--kcal", "1", "--portion", "2 large"],
             "ofj: --portion does not apply to a manual entry: a manual entry takes NAME with --kcal/--kj, --protein, --carbs, --fat, --nutrient, --brand (see ofj log --help)\n"),
            (["log", "--ref", "01123", "--portion", "1 large", "--grams", "50"], "ofj: give --portion or --grams, not both (see ofj log --help)\n"),
            (["log", "--food", "oats", "--unit", "g"], "ofj: --unit goes with --amount (see ofj log --help)\n"),
            (["log", "--ref", "01123", "--kcal", "5"],
             "ofj: --kcal does not apply to --ref: with --ref give the amount as --portion TEXT (\"2 large\", \"1 cup\", \"8 fl oz\") or --grams G (see ofj log --help)\n"),
            (["foods", "--limit", "many"], "ofj: --limit takes a whole number from 1 to 10000, not 'many' (see ofj foods --help)\n"),
            (["diag"], "ofj: ofj diag needs a command: status, flush, export (see ofj diag --help)\n"),
        ]
        for (args, expected) in cases {
            let r = try await OfjBinary.run(args, environment: env)
            #expect(r.status == 2, "\(args)")
            #expect(r.stderr == expected, "\(args)")
            #expect(r.stdout.isEmpty, "\(args)")
        }
    }

    /// Issue #17 §8: a 100 KB argument was echoed back whole in the error line.
    @Test func aHugeArgumentIsNotEchoedBackWhole() async throws {
        let huge = String(repeating: "y", count: 100_000)
        for args in [[huge], ["day", "--" + huge], ["backup", "import", huge], ["ask", "--thread", huge, "hi"], ["day", huge]] {
            let r = try await OfjBinary.run(args, environment: env)
            #expect(r.status != 0)
            #expect(r.stderr.hasPrefix("ofj: ") && r.stderr.utf8.count < 500, "\(args.map { $0.prefix(10) }): \(r.stderr.utf8.count) bytes")
        }
    }

    // MARK: - issue #17 §3: thread id prefixes

    @Test func threadIDsTakeAnyUniquePrefix() async throws {
        let first = try await OfjBinary.run(["ask", "what did I eat today"], environment: env)
        #expect(first.status == 0, "\(first.stderr)")
        let db = try Database(path: home.file("data/ofj.sqlite"))
        let id = try #require(try db.scalar("SELECT id FROM agent_threads").string)
        let prefixed = try await OfjBinary.run(["ask", "--thread", String(id.prefix(8)), "what did I eat yesterday"], environment: env)
        #expect(prefixed.status == 0, "\(prefixed.stderr)")
        #expect(try db.scalar("SELECT count(*) FROM agent_threads").int == 1)
        #expect(try db.scalar("SELECT count(*) FROM agent_runs WHERE thread_id = ?", [id]).int == 2)

        // Two threads that share a prefix: the prefix is ambiguous and the matches are listed.
        for suffix in ["0000-4000-8000-000000000001", "1111-4000-8000-000000000002"] {
            try db.execute("INSERT INTO agent_threads (id, title, created_at, updated_at) VALUES (?, 'Planned', 1, 1)", ["abcd" + suffix])
        }
        let ambiguous = try await OfjBinary.run(["ask", "--thread", "abcd", "hi"], environment: env)
        #expect(ambiguous.status == 2)
        #expect(ambiguous.stderr.contains("2 threads start with abcd") && ambiguous.stderr.contains("abcd0000")
                && ambiguous.stderr.contains("abcd1111"), "\(ambiguous.stderr)")
        #expect(ambiguous.stdout.isEmpty)
        let unique = try await OfjBinary.run(["ask", "--thread", "abcd1", "what did I eat today"], environment: env)
        #expect(unique.status == 0, "\(unique.stderr)")
        #expect(try db.scalar("SELECT count(*) FROM agent_runs WHERE thread_id = ?", ["abcd1111-4000-8000-000000000002"]).int == 1)
        // The REPL's --thread takes a prefix too.
        let repl = try await OfjBinary.run(["--thread", "abcd0"], input: "/title Renamed\n", environment: env)
        #expect(repl.status == 0, "\(repl.stderr)")
        #expect(try db.scalar("SELECT title FROM agent_threads WHERE id = ?", ["abcd0000-4000-8000-000000000001"]).string == "Renamed")
        // /open and /delete list the matches of an ambiguous prefix too.
        let open = try await OfjBinary.run([], input: "/open abcd\n/delete abcd\n", environment: env)
        #expect(open.stdout.components(separatedBy: "2 threads start with abcd: ").count == 3, "\(open.stdout)")
        #expect(open.stdout.contains("abcd0000 “Renamed”") && open.stdout.contains("abcd1111"), "\(open.stdout)")
        let ambiguousREPL = try await OfjBinary.run(["--thread", "abcd"], environment: env)
        #expect(ambiguousREPL.status == 2 && ambiguousREPL.stderr.contains("2 threads start with abcd"), "\(ambiguousREPL.stderr)")
    }

    // MARK: - issue #17 §4: read-only databases

    /// Runs ofj as the unprivileged user "nobody" (root ignores file permissions, so a read-only
    /// file only means something to another user).
    func runAsNobody(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let binary = try #require(OfjBinary.path)
        let p = Process()
        if getuid() == 0 {
            p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            p.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", binary] + args
        } else {
            p.executableURL = URL(fileURLWithPath: binary)
            p.arguments = args
        }
        p.environment = env.merging(["PATH": "/usr/bin:/bin"]) { $1 }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let o = PipeReading.readToEnd(out.fileHandleForReading)
        let e = PipeReading.readToEnd(err.fileHandleForReading)
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    @Test func readOnlyCommandsWorkOnAReadOnlyDatabaseAndWritesSaySo() async throws {
        let logged = try await OfjBinary.run(["log", "Toast", "--kcal", "120"], environment: env)
        #expect(logged.status == 0, "\(logged.stderr)")
        // "Logged to dinner on 2026-12-01: Toast — 1 serving — 120 kcal (id 33e087f3)"
        let id = try #require(logged.stdout.components(separatedBy: "(id ").last?.prefix { $0.isHexDigit })
        // The file and its folder readable by everyone, writable by their owner only (not nobody);
        // the -wal and -shm are gone once the writer closed, so a read-only open cannot make them.
        for (path, mode) in [(home.path, 0o755), (home.file("data"), 0o755), (home.file("data/ofj.sqlite"), 0o644)] {
            #expect(chmod(path, mode_t(mode)) == 0)
        }
        if getuid() != 0 { #expect(chmod(home.file("data/ofj.sqlite"), 0o444) == 0) }
        #expect(!FileManager.default.fileExists(atPath: home.file("data/ofj.sqlite-wal")))

        let day = try runAsNobody(["day"])
        #expect(day.status == 0, "\(day.stderr)")
        #expect(day.stdout.contains("Toast"))
        // Every kind of command its spec declares `.read` (the spec alone says how the database is opened).
        for args in [["foods"], ["goals", "--json"], ["export", "csv"], ["backup", "export"], ["diag", "status"], ["diag", "export", "--local"],
                     ["trend"], ["month"], ["gaps"], ["report", "-o", "-"], ["ref", "egg"], ["entry", "show", String(id)], ["search", "toast"],
                     ["threads"], ["threads", "list"], ["sync", "status"], ["sync", "conflicts"]] {
            let r = try runAsNobody(args)
            #expect(r.status == 0, "\(args): \(r.stderr)")
        }
        for args in [["log", "Jam", "--kcal", "50"], ["goals", "set", "energy_kcal=2100"], ["ask", "hi"]] {
            let r = try runAsNobody(args)
            #expect(r.status == 1, "\(args)")
            #expect(r.stderr.hasPrefix("ofj: \(home.file("data/ofj.sqlite")) is read-only (no write permission on the file)")
                    && r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
        }
        let db = try Database(path: home.file("data/ofj.sqlite"))
        #expect(try db.scalar("SELECT count(*) FROM journal_entries").int == 1)
    }

    // MARK: - issue #17 §6: doctor checks config.json

    @Test func doctorReportsUnknownProvidersModelsAndMalformedFields() async throws {
        let config = home.file("config/ofj/config.json")
        try FileManager.default.createDirectory(atPath: home.file("config/ofj"), withIntermediateDirectories: true)
        func doctor(_ json: String) async throws -> OfjBinary.Result {
            try Data(json.utf8).write(to: URL(fileURLWithPath: config))
            return try await OfjBinary.run(["doctor"], environment: ["HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "OFJ_HOME": home.file("data")])
        }
        let good = try await doctor(#"{"provider": "gemini", "model": "gemini-2.5-flash", "policy": "fast"}"#)
        #expect(good.status == 0, "\(good.stdout)")
        let cases: [(String, String)] = [
            (#"{"provider": "gemeni"}"#, "unknown provider \"gemeni\""),
            (#"{"provider": "openai", "model": "gpt-9-ultra"}"#, "names a model openai does not have: \"gpt-9-ultra\""),
            (#"{"policy": "slow"}"#, "\"policy\" must be \"fast\" or \"patient\""),
            (#"{"provider": 3}"#, "\"provider\" must be a string"),
            (#"{"providers": {"openai": {"wire": "grpc"}}}"#, "\"providers.openai.wire\" must be \"chat\" or \"responses\""),
            (#"{"providers": {"openai": {"base_url": "localhost:8080"}}}"#, "must start with http:// or https://"),
            (#"{"providers": {"opneai": {}}}"#, "unknown provider \"opneai\""),
            (#"{"providers": {"openai": {"modle": "x"}}}"#, "\"providers.openai.modle\" is not a setting ofj knows"),
            (#"{"provider": "#, "not valid JSON"),
        ]
        for (json, problem) in cases {
            let r = try await doctor(json)
            #expect(r.status == 1, "\(json): \(r.stdout)")
            #expect(r.stdout.contains("-- \(config): ") && r.stdout.contains(problem), "\(json): \(r.stdout)")
        }
        // A model of another server (OpenAI-compatible base_url) is that server's business.
        let compatible = try await doctor(#"{"provider": "openai", "model": "qwen3", "providers": {"openai": {"base_url": "http://127.0.0.1:8080/v1"}}}"#)
        #expect(!compatible.stdout.contains("does not have"), "\(compatible.stdout)")
    }

    // MARK: - issue #17 §7: ofj ask reads stdin

    @Test func askReadsTheMessageFromStdin() async throws {
        _ = try await OfjBinary.run(["log", "Toast", "--kcal", "120"], environment: env)
        for args in [["ask"], ["ask", "-"]] {
            let r = try await OfjBinary.run(args, input: "what did I eat today\n", environment: env)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            #expect(r.stdout.contains("Toast"), "\(args): \(r.stdout)")
        }
        let json = try await OfjBinary.run(["ask", "--json"], input: "what did I eat today", environment: env)
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("{") } && json.stdout.contains("Toast"))
        let empty = try await OfjBinary.run(["ask"], input: "  \n", environment: env)
        #expect(empty.status == 2 && empty.stderr.contains("ofj ask needs TEXT"), "\(empty.stderr)")
    }

    // MARK: - issue #17 §8: exit statuses and stdout of ofj ask; Ctrl-D

    func providerEnvironment(_ server: LoopbackHTTPServer) -> [String: String] {
        env.merging(["OFJ_PROVIDER": "openai", "OPENAI_API_KEY": "sk-test-cmdline", "OPENAI_BASE_URL": server.url("/v1"),
                     "OFJ_MODEL": "gpt-5-mini"]) { $1 }
    }

    /// The label-scan guidance goes to a model that can see attachments, not to a text-only one
    /// (every request carries the system prompt).
    @Test func theAttachmentGuidanceGoesOnlyToModelsThatSeeAttachments() async throws {
        let marker = "Attachments (images and PDFs the person attached)"
        let server = try LoopbackHTTPServer()
        server.enqueue(.eventStream(ResearchAskTests.answer))
        server.enqueue(.eventStream(ResearchAskTests.answer))
        let vision = try await OfjBinary.run(["ask", "hi"], environment: providerEnvironment(server))
        #expect(vision.status == 0, "\(vision.stderr)")
        let local = try await OfjBinary.run(["ask", "hi"], environment: env.merging(["OFJ_PROVIDER": "ollama", "OLLAMA_HOST": server.url]) { $1 })
        #expect(local.status == 0, "\(local.stderr)")
        let bodies = server.requests.map(\.bodyText)
        #expect(bodies.count == 2)
        #expect(bodies.first?.contains(marker) == true)
        #expect(bodies.last?.contains(marker) == false)
    }

    @Test func aFailedAskPrintsNothingOnStdout() async throws {
        let server = try LoopbackHTTPServer()
        for _ in 0..<4 { server.enqueue(.json(#"{"error": {"message": "bad key", "type": "invalid_request_error"}}"#, status: 401)) }
        let r = try await OfjBinary.run(["ask", "hi"], environment: providerEnvironment(server))
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stdout == "", "\(r.stdout.debugDescription)")
        #expect(!r.stderr.isEmpty)
    }

    @Test func sigtermDuringAnAnswerExits143() async throws {
        let server = try LoopbackHTTPServer()
        // Several held answers: on a busy machine a stray request (another test's ofj retrying to a
        // port this server reuses) must not take the only one and leave ours a 500.
        for _ in 0..<4 { server.enqueue(.init(status: 200, body: [], delayBeforeHead: 30)) }
        let binary = try #require(OfjBinary.path)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["ask", "dinner ideas?"]
        p.environment = providerEnvironment(server).merging(["PATH": "/usr/bin:/bin"]) { $1 }
        let errFile = home.file("sigterm-stderr.txt")
        _ = FileManager.default.createFile(atPath: errFile, contents: nil)
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle(forWritingAtPath: errFile)
        p.standardInput = FileHandle.nullDevice
        try p.run()
        #expect(await server.waitUntil(timeout: 20) { $0.requests.count >= 1 || $0.openConnections >= 1 })
        try await Task.sleep(nanoseconds: 200_000_000)
        let wasRunning = p.isRunning
        let signalled = Date()
        p.terminate() // SIGTERM
        let deadline = Date().addingTimeInterval(20)
        while p.isRunning && Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        let took = Date().timeIntervalSince(signalled)
        #expect(!p.isRunning)
        #expect(p.terminationReason == .exit)
        let stderr = (try? String(contentsOfFile: errFile, encoding: .utf8)) ?? ""
        #expect(p.terminationStatus == 143, "running at the signal: \(wasRunning), exit \(took) s after it, requests \(server.requests.count); stderr: \(stderr.replacingOccurrences(of: "\n", with: " | "))")
    }

    // MARK: - issue #17 §9: diag export --local

    @Test func diagExportLocalExportsThePendingEventsWithoutASink() async throws {
        let asked = try await OfjBinary.run(["ask", "what did I eat today"], environment: env)
        #expect(asked.status == 0, "\(asked.stderr)")
        let db = try Database(path: home.file("data/ofj.sqlite"))
        let pending = try #require(try db.scalar("SELECT count(*) FROM diagnostics_outbox").int)
        #expect(pending > 0)
        let withoutSink = try await OfjBinary.run(["diag", "export"], environment: env)
        #expect(withoutSink.status == 1 && withoutSink.stderr.contains("not configured"))

        let r = try await OfjBinary.run(["diag", "export", "--local"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\r\n", omittingEmptySubsequences: true)
        #expect(lines.first?.hasPrefix("id,occurred_at,expires_at,run_id,thread_id,turn,") == true)
        #expect(lines.count == pending + 1)
        // Nothing was sent or removed: the events are still pending.
        #expect(try db.scalar("SELECT count(*) FROM diagnostics_outbox").int == pending)
        // The journal's words never reach the export.
        #expect(!r.stdout.contains("what did I eat"))

        let file = home.file("diag.csv")
        let toFile = try await OfjBinary.run(["diag", "export", "--local", "-o", file], environment: env)
        #expect(toFile.status == 0 && toFile.stdout == "exported \(pending) pending events to \(file)\n")
        let again = try await OfjBinary.run(["diag", "export", "--local", "-o", file], environment: env)
        #expect(again.status == 1 && again.stderr.contains("already exists"))
        let both = try await OfjBinary.run(["diag", "export", "--local", "--since", "2d"], environment: env)
        #expect(both.status == 2 && both.stderr.contains("give --since or --local, not both"))
    }
}
