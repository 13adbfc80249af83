import Foundation
import Testing
import TestSupport
import SQLiteKit

/// What reaches the terminal and the disk, through the real ofj: text from outside (names in the
/// database, provider errors, streamed model text) arrives without escape sequences, controls or
/// bidi overrides; doctor hides credentials in URLs; files with journal data are 0600.
@Suite(.serialized) struct OutputSafetyEndToEndTests {
    let home = TempDirectory(prefix: "ofj-safety")
    var env: [String: String] {
        ["OFJ_HOME": home.file("data"), "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"),
         "XDG_STATE_HOME": home.file("state"), "OFJ_PROVIDER": "offline", "LANG": "C.UTF-8"]
    }

    /// Scalars that must never reach a terminal from outside: C0 except newline and tab, DEL, C1, bidi overrides/isolates.
    static func unsafeScalars(_ text: String) -> [String] {
        text.unicodeScalars.filter { s in
            (s.value < 0x20 && s != "\n" && s != "\t") || (0x7F...0x9F).contains(s.value)
                || (0x202A...0x202E).contains(s.value) || (0x2066...0x2069).contains(s.value)
        }.map { "U+" + String($0.value, radix: 16) }
    }

    // MARK: - Names from the database

    // A name written by another program, an older ofj or a future sync (the CLI itself refuses
    // control characters) carries an OSC 52 clipboard write, a screen clear, a bidi override and
    // an 8-bit CSI: `ofj day` shows the text only.
    @Test func hostileNamesShowSanitisedInDay() async throws {
        let log = try await OfjBinary.run(["log", "Oatmeal", "--kcal", "150", "--brand", "Acme", "--date", "2026-11-30", "--meal", "breakfast"],
                                          environment: env)
        #expect(log.status == 0, "\(log.stderr)")
        let db = try Database(path: home.file("data/ofj.sqlite"))
        let name = "Oat\u{1B}]52;c;ZXZpbA==\u{07}meal\u{1B}[2J\u{1B}[H\u{202E} bowl"
        try db.execute("UPDATE journal_entries SET name = ?, brand = ?, serving_unit = ?",
                       [name, "Ac\u{9B}31mme", "bo\u{1B}[5mwl"])
        let id = try #require(try db.scalar("SELECT id FROM journal_entries").string)
        let short = String(id.lowercased().prefix(8))
        let day = try await OfjBinary.run(["day", "2026-11-30"], environment: env)
        #expect(day.status == 0)
        #expect(day.stdout == """
            Mon 2026-11-30
              Breakfast
                \(short)  Oatmeal bowl (Acme) — 1 bowl — 150 kcal
              Total: 150 kcal · protein not reported · carbohydrate not reported · fat not reported
              Goals (FDA defaults): calories 150 kcal/2,000 kcal · protein –/50 g · carbohydrate –/275 g · fat –/78 g

            """)
        // --json keeps the exact value (a program reading it gets what is stored), escaped so that
        // printing it is harmless too.
        let json = try await OfjBinary.run(["day", "2026-11-30", "--json"], environment: env)
        #expect(Self.unsafeScalars(json.stdout).isEmpty)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let meals = try #require(object["meals"] as? [[String: Any]])
        let names = meals.flatMap { ($0["entries"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String } }
        #expect(names == [name])
        // The CSV export on stdout carries no sequence either (and keeps its CRLF line ends).
        let csv = try await OfjBinary.run(["export", "csv"], environment: env)
        #expect(Self.unsafeScalars(csv.stdout.replacingOccurrences(of: "\r\n", with: "\n")).isEmpty)
        #expect(csv.stdout.contains(",Oatmeal bowl,Acme,1,bowl,"))
    }

    // MARK: - Provider text

    func providerEnvironment(_ server: LoopbackHTTPServer) -> [String: String] {
        env.merging(["OFJ_PROVIDER": "openai", "OFJ_MODEL": "test-model", "OPENAI_BASE_URL": server.url("/v1"),
                     "OPENAI_API_KEY": "sk-test-NOT-A-REAL-KEY-123456"]) { $1 }
    }

    @Test func aProviderErrorBodyWithEscapesReachesStderrClean() async throws {
        let server = try LoopbackHTTPServer()
        let body = #"{"error":{"message":"bad request\u001b]52;c;ZXZpbA==\u0007\u001b[2J\u001b]0;pwned\u001b\\ \u202eyou\u009b31m here\nsecond line","type":"invalid_request_error"}}"#
        server.enqueue(.json(body, status: 400))
        let r = try await OfjBinary.run(["ask", "hello"], environment: providerEnvironment(server))
        #expect(r.status == 1)
        #expect(Self.unsafeScalars(r.stderr.replacingOccurrences(of: "\n", with: " ")).isEmpty, "\(r.stderr.debugDescription)")
        #expect(r.stderr.hasSuffix("\n") && r.stderr.split(separator: "\n").count == 1, "\(r.stderr.debugDescription)")
        #expect(r.stderr.contains("bad request you here second line"), "\(r.stderr.debugDescription)")
        #expect(Self.unsafeScalars(r.stdout).isEmpty)
    }

    /// An answer whose escape sequences are split across deltas (and across network chunks).
    static let hostileStream = """
        data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Hello \\u001b]52;c;ZX"}}]}

        data: {"choices":[{"index":0,"delta":{"content":"ZpbA==\\u0007world\\u001b["}}]}

        data: {"choices":[{"index":0,"delta":{"content":"2J \\u001b"}}]}

        data: {"choices":[{"index":0,"delta":{"content":"[31mred\\u009b0m \\u202eeggs\\u001b]8;;http://x\\u001b"}}]}

        data: {"choices":[{"index":0,"delta":{"content":"\\\\link\\u001b]8;;\\u001b\\\\ done."}}]}

        data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}

        data: [DONE]


        """

    @Test func streamedEscapeSequencesNeverReachAskOutput() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.eventStream(Self.hostileStream, maxChunk: 7))
        let r = try await OfjBinary.run(["ask", "hello"], environment: providerEnvironment(server))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "Hello world red eggslink done.\n", "\(r.stdout.debugDescription)")

        // --json keeps the exact text for programs, escaped so that printing it is harmless.
        server.enqueue(.eventStream(Self.hostileStream, maxChunk: 7))
        var e = providerEnvironment(server)
        e["OFJ_HOME"] = home.file("data-json")
        let json = try await OfjBinary.run(["ask", "--json", "hello"], environment: e)
        #expect(json.status == 0, "\(json.stderr)")
        #expect(Self.unsafeScalars(json.stdout).isEmpty, "\(json.stdout.debugDescription)")
        var text = ""
        for line in json.stdout.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if object["type"] as? String == "text_delta" { text += object["text"] as? String ?? "" }
        }
        #expect(text.hasPrefix("Hello \u{1B}]52;c;ZXZpbA==\u{07}world\u{1B}[2J"), "\(text.debugDescription)")
        #expect(text.contains("\u{202E}eggs"))
    }

    @Test func streamedEscapeSequencesNeverReachTheREPL() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.eventStream(Self.hostileStream, maxChunk: 5))
        let r = try await OfjBinary.run([], input: "hello\n/exit\n", environment: providerEnvironment(server))
        #expect(r.status == 0, "\(r.stderr)")
        // Not a terminal, so ofj adds no colour: any escape would have come from the model.
        #expect(Self.unsafeScalars(r.stdout).isEmpty, "\(r.stdout.debugDescription)")
        #expect(r.stdout.contains("Hello world red eggslink done."), "\(r.stdout.debugDescription)")
    }

    // MARK: - doctor

    @Test func doctorHidesCredentialsInURLs() async throws {
        var e = env
        e["OPENAI_BASE_URL"] = "https://alice:hunter2@api.example.com/v1?key=SECRETKEY1&api-version=1"
        e["OPENAI_API_KEY"] = "sk-test-NOT-A-REAL-KEY-123456"
        e["OLLAMA_BASE_URL"] = "http://bob:pw0rd@127.0.0.1:11434/v1?token=TOKEN2"
        e["AZURE_OPENAI_BASE_URL"] = "https://x.openai.azure.com/openai/v1?api_key=AZKEY3&sig=SIG4"
        e["TURSO_DATABASE_URL"] = "libsql://carol:pass5@db.turso.io?authToken=TURSO6"
        let r = try await OfjBinary.run(["doctor"], environment: e)
        #expect(r.status == 0, "\(r.stderr)")
        for secret in ["hunter2", "alice", "SECRETKEY1", "pw0rd", "bob:", "TOKEN2", "AZKEY3", "SIG4", "pass5", "TURSO6", "NOT-A-REAL-KEY"] {
            #expect(!r.stdout.contains(secret) && !r.stderr.contains(secret), "\(secret) in \(r.stdout)")
        }
        #expect(r.stdout.contains("https://***@api.example.com/v1?key=***&api-version=1"), "\(r.stdout)")
        #expect(r.stdout.contains("diagnostics: delivered to libsql://***@db.turso.io?authToken=***"), "\(r.stdout)")
    }

    @Test func doctorWarnsWhenTheDataFolderIsReadableByOthers() async throws {
        _ = try await OfjBinary.run(["day"], environment: env)
        let quiet = try await OfjBinary.run(["doctor"], environment: env)
        #expect(!quiet.stdout.contains("warning:"), "\(quiet.stdout)")
        #expect(chmod(home.file("data"), 0o755) == 0)
        let r = try await OfjBinary.run(["doctor"], environment: env)
        #expect(r.status == 0) // a warning, not a failure
        #expect(r.stdout.contains("warning: the data folder \(home.file("data")) can be read by other users (mode 755); to fix: chmod 700"),
                "\(r.stdout)")
    }

    /// Doctor on a machine that has no journal yet reads nothing into being: no empty database
    /// file (which would be created with the umask's mode, not 0600), and no warning about one.
    @Test func doctorBeforeTheFirstUseCreatesNoDatabaseFile() async throws {
        var e = env
        e["OFJ_HOME"] = home.file("fresh-home")
        try FileManager.default.createDirectory(atPath: home.file("fresh-home"), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let r = try await OfjBinary.run(["doctor"], environment: e, umask: "022")
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("database: none yet"), "\(r.stdout)")
        #expect(!r.stdout.contains("warning:"), "\(r.stdout)")
        #expect(!FileManager.default.fileExists(atPath: home.file("fresh-home") + "/ofj.sqlite"))
    }

    // MARK: - File modes

    static func mode(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return String(st.st_mode & 0o777, radix: 8)
    }

    @Test(arguments: ["000", "022"]) func filesWithJournalDataAreOwnerOnlyWhateverTheUmask(umask: String) async throws {
        var e = env
        e["OFJ_HOME"] = home.file("data-\(umask)")
        e["XDG_STATE_HOME"] = home.file("state-\(umask)")
        let log = try await OfjBinary.run(["log", "Apple", "--kcal", "52"], environment: e, umask: umask)
        #expect(log.status == 0, "\(log.stderr)")
        #expect(Self.mode(home.file("data-\(umask)")) == "700")
        #expect(Self.mode(home.file("data-\(umask)/ofj.sqlite")) == "600")
        let files = ["backup-\(umask).json": ["backup", "export", "-o"], "entries-\(umask).csv": ["export", "csv", "-o"]]
        for (file, command) in files {
            let r = try await OfjBinary.run(command + [home.file(file)], environment: e, umask: umask)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(Self.mode(home.file(file)) == "600", "\(file)")
        }
        let recorded = try await OfjBinary.run(["ask", "what did I eat today", "--record", home.file("rec-\(umask).ofjt")],
                                               environment: e, umask: umask)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(Self.mode(home.file("rec-\(umask).ofjt")) == "600")

        // While the REPL runs, the database's -wal and -shm files exist: 0600 too; so is the history.
        let binary = try #require(OfjBinary.path)
        var pty = e
        pty["TERM"] = "xterm"
        let p = try PTYProcess(executable: "/bin/sh", arguments: ["-c", "umask \(umask) && exec \"$0\"", binary], environment: pty)
        #expect(await p.read(until: "/help for commands") != nil)
        _ = await p.read(timeout: 0.2)
        p.send("/goals\r")
        #expect(await p.read(until: "Daily goals") != nil)
        for suffix in ["-wal", "-shm"] {
            #expect(Self.mode(home.file("data-\(umask)/ofj.sqlite\(suffix)")) == "600", "\(suffix)")
        }
        #expect(Self.mode(home.file("state-\(umask)/ofj/history")) == "600")
        #expect(Self.mode(home.file("state-\(umask)/ofj")) == "700")
        p.send("/exit\r")
        #expect(await p.waitForExit() == 0)
    }
}
