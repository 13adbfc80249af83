import Foundation
import Testing
import TestSupport
import SQLiteKit

/// Two (or more) real ofj processes on one OFJ_HOME at once: the one-active-run-per-thread rule
/// holds across processes, writes are not lost, and nobody sees a raw SQLite error.
@Suite(.serialized) struct TwoProcessTests {
    let home = TempDirectory(prefix: "ofj-two")

    var offline: [String: String] {
        ["OFJ_HOME": home.file("data"), "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"),
         "XDG_STATE_HOME": home.file("state"), "OFJ_PROVIDER": "offline", "LANG": "C.UTF-8"]
    }

    func provider(_ server: LoopbackHTTPServer) throws -> [String: String] {
        // "patient": a held answer must not run into the 8 s idle deadline of hosted providers.
        try FileManager.default.createDirectory(atPath: home.file("config/ofj"), withIntermediateDirectories: true)
        try Data(#"{"policy": "patient"}"#.utf8).write(to: URL(fileURLWithPath: home.file("config/ofj/config.json")))
        var env = offline
        env["OFJ_PROVIDER"] = "openai"
        env["OFJ_MODEL"] = "test-model"
        env["OPENAI_BASE_URL"] = server.url("/v1")
        env["OPENAI_API_KEY"] = "sk-test-NOT-A-REAL-KEY-987654"
        env["TERM"] = "xterm"
        return env
    }

    static let firstEvent = #"data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"First answer"}}]}"# + "\n\n"
    static let rest = #"data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"# + "\n\n"
        + "data: [DONE]\n\n"

    /// A streamed answer that stops after its first text until the test calls `releaseHold()`.
    static func heldAnswer() -> LoopbackHTTPServer.Response {
        let body = Array((firstEvent + rest).utf8)
        return .init(status: 200, headers: [("Content-Type", "text/event-stream")], body: body, framing: .chunked,
                     holdAfterBodyBytes: firstEvent.utf8.count)
    }

    func database() throws -> Database { try Database(path: home.file("data/ofj.sqlite")) }

    func phases(_ thread: String) throws -> [String] {
        try database().rows("SELECT phase FROM agent_runs WHERE thread_id = ? ORDER BY created_at, rowid", [thread]).compactMap { $0[0].string }
    }

    /// A thread made by an offline `ask`; returns its id.
    func makeThread() async throws -> String {
        let r = try await OfjBinary.run(["ask", "what did I eat today"], environment: offline)
        #expect(r.status == 0, "\(r.stderr)")
        return try #require(try database().scalar("SELECT id FROM agent_threads ORDER BY created_at DESC LIMIT 1").string)
    }

    static let busyLine = "ofj: This thread is still answering; wait for it to finish, or stop it (Ctrl-C) and try again.\n"

    @Test func processesStartingTogetherOnANewDatabaseAllWork() async throws {
        // Regression: each process read "no migrations applied" before taking the write lock,
        // so the second one to get it failed with "table … already exists".
        for round in 0..<4 {
            var fresh = offline
            fresh["OFJ_HOME"] = home.file("fresh-\(round)")
            let env = fresh
            let results = try await withThrowingTaskGroup(of: OfjBinary.Result.self) { group in
                for _ in 0..<4 { group.addTask { try await OfjBinary.run(["day"], environment: env) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for r in results {
                #expect(r.status == 0 && r.stderr.isEmpty, "round \(round): \(r.stderr)")
            }
        }
    }

    @Test func askOnAThreadAnotherAskIsAnsweringIsRefused() async throws {
        let thread = try await makeThread()
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.enqueue(Self.heldAnswer())
        let env = try provider(server)
        let first = Task { try await OfjBinary.run(["ask", "--thread", thread, "first question"], environment: env) }
        #expect(await server.waitUntil(timeout: 30) { $0.requests.count == 1 })

        // Regression: the second process's start-up recovery suspended the first one's live run
        // (it looked crashed), so both answered on one thread.
        let second = try await OfjBinary.run(["ask", "--thread", thread, "second question"], environment: env)
        #expect(second.status == 1)
        #expect(second.stderr == Self.busyLine)
        // The REPL started meanwhile leaves the run alone and refuses the thread too.
        let repl = try await OfjBinary.run(["--thread", thread], input: "third question\n/exit\n", environment: env)
        #expect(repl.stdout.contains("still answering"), "\(repl.stdout)")
        // Other work on the same database goes on: a write from a third process.
        let log = try await OfjBinary.run(["log", "Apple", "--kcal", "52"], environment: env)
        #expect(log.status == 0 && log.stderr.isEmpty, "\(log.stderr)")

        server.releaseHold()
        let done = try await first.value
        #expect(done.status == 0, "\(done.stderr)")
        #expect(done.stdout.contains("First answer"))
        #expect(try phases(thread) == ["completed", "completed"])
        let texts = try database().rows("""
            SELECT p.body FROM agent_messages m JOIN agent_message_parts p ON p.message_id = m.id
            WHERE m.thread_id = ? AND m.role = 'user' ORDER BY m.seq
            """, [thread]).compactMap { $0[0].string }
        #expect(texts == ["what did I eat today", "first question"]) // refused messages are not stored
        #expect(server.requests.count == 1)
        #expect(try database().scalar("SELECT count(*) FROM journal_entries").int == 1)
    }

    @Test func askOnAThreadTheREPLIsAnsweringIsRefusedUntilItFinishes() async throws {
        // The REPL's run waits at an approval card (an active phase) while `ofj ask` targets it.
        let binary = try #require(OfjBinary.path)
        var env = offline
        env["TERM"] = "xterm"
        let repl = try PTYProcess(executable: binary, arguments: [], environment: env)
        #expect(await repl.read(until: "/help for commands") != nil)
        repl.send("log 2 eggs for breakfast\r")
        #expect(await repl.read(until: "[y]es") != nil)
        let thread = try #require(try database().scalar("SELECT id FROM agent_threads LIMIT 1").string)
        #expect(try phases(thread) == ["awaiting_approval"])

        let refused = try await OfjBinary.run(["ask", "--yes", "--thread", thread, "log 1 banana"], environment: offline)
        #expect(refused.status == 1)
        #expect(refused.stderr == Self.busyLine)
        #expect(try phases(thread) == ["awaiting_approval"]) // the REPL's run was left alone

        repl.send("y\r")
        #expect(await repl.read(until: "Logged") != nil)
        let after = try await OfjBinary.run(["ask", "--yes", "--thread", thread, "log 1 banana"], environment: offline)
        #expect(after.status == 0, "\(after.stderr)")
        #expect(try phases(thread) == ["completed", "completed"])
        #expect(try database().scalar("SELECT count(*) FROM journal_entries").int == 2)
        repl.send("/exit\r")
        #expect(await repl.waitForExit() == 0)
    }

    @Test func aRunLeftByAProcessThatDiedIsRecoveredByTheNextMessage() async throws {
        let thread = try await makeThread()
        // A run some ofj left active and then died (a pid that no longer exists).
        let db = try database()
        try db.execute("""
            INSERT INTO agent_runs (id, thread_id, phase, created_at, phase_changed_at, owner)
            VALUES ('dead-run', ?, 'waiting_for_provider', 1, 1, '2147483646:1')
            """, [thread])
        let r = try await OfjBinary.run(["ask", "--thread", thread, "what did I eat today"], environment: offline)
        #expect(r.status == 0, "\(r.stderr)")
        let phase = try db.scalar("SELECT phase FROM agent_runs WHERE id = 'dead-run'").string
        #expect(phase == "cancelled") // suspended at start-up, then superseded by the new message
    }

    @Test func concurrentWritesFromManyProcessesAreAllKept() async throws {
        let offline = self.offline
        _ = try await OfjBinary.run(["day"], environment: offline) // create the database once
        let results = try await withThrowingTaskGroup(of: OfjBinary.Result.self) { group in
            // Four at once overlap on two cores without starving the other suites' pseudo-terminal
            // tests; tools/two-process.sh shakes harder.
            for i in 0..<2 {
                group.addTask { try await OfjBinary.run(["log", "Food \(i)", "--kcal", "100"], environment: offline) }
                group.addTask { try await OfjBinary.run(["ask", "--yes", "log 2 eggs for breakfast"], environment: offline) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for r in results {
            #expect(r.status == 0, "\(r.stderr)")
            #expect(!r.stderr.contains("SQLite") && !r.stderr.contains("locked"), "\(r.stderr)")
        }
        #expect(try database().scalar("SELECT count(*) FROM journal_entries").int == 4)
        #expect(try database().scalar("SELECT count(*) FROM agent_ledger WHERE outcome = 'committed'").int == 2)
    }
}
