// Issue 35 §4 through the binary: `ofj status` reads today's figures, creates no journal, takes
// Claude Code's JSON on stdin, refuses an unknown field in one line, and answers "?" at once
// when another connection holds the journal's lock.
import Foundation
import Testing
import TestSupport

@Suite struct StatusCLITests {
    let home = TempDirectory(prefix: "ofj-status")
    var env: [String: String] {
        ["OFJ_HOME": home.file("data"), "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "OFJ_PROVIDER": "offline", "TZ": "UTC"]
    }

    @discardableResult
    func ofj(_ args: [String], input: String = "", status: Int32 = 0) async throws -> OfjBinary.Result {
        let r = try await OfjBinary.run(args, input: input, environment: env)
        #expect(r.status == status, "\(args): \(r.status) \(r.stderr)")
        return r
    }

    @Test func todaysFiguresWithoutCreatingAJournalAndWithClaudeCodesJSONOnStdin() async throws {
        let empty = try await ofj(["status"])
        #expect(empty.stdout == "0/2000 kcal · 0 g P · fast –\n")
        #expect(!FileManager.default.fileExists(atPath: home.file("data") + "/ofj.sqlite"))
        try await ofj(["log", "Toast", "--kcal", "250", "--protein", "8.4"])
        try await ofj(["log", "Eggs", "--kcal", "155", "--protein", "13", "--carbs", "1", "--date", "yesterday"])
        let json = #"{"hook_event_name":"Status","session_id":"abc","model":{"id":"claude","display_name":"Opus"},"workspace":{"current_dir":"/tmp"}}"#
        let line = try await ofj(["status", "--format", "{kcal}/{kcal_goal} · {protein_g} g · {carbs_g} · {entries} · {fast}"], input: json)
        #expect(line.stdout.hasPrefix("250/2000 · 8 g · 0 · 1 · fast ") && line.stdout.hasSuffix("m\n"), "\(line.stdout)")
        #expect(try await ofj(["status"], input: "not json at all").stdout.hasPrefix("250/2000 kcal · 8 g P · fast "))
    }

    @Test func anUnknownFieldIsOneLineListingTheKnownOnes() async throws {
        let r = try await ofj(["status", "--format", "{kcal} {calories}"], status: 2)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.hasPrefix("ofj: unknown field {calories} in --format; known fields: {kcal}, {kcal_goal}"))
        #expect(r.stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test func aLockedJournalAnswersWithQuestionMarksInsteadOfWaiting() async throws {
        try await ofj(["log", "Toast", "--kcal", "250"])
        // Another process holding an exclusive lock (the file switched to a rollback journal, where
        // such a lock keeps every reader out; Python's sqlite3).
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let script = "import sqlite3,sys\nc=sqlite3.connect(sys.argv[1],isolation_level=None)\nc.execute('PRAGMA journal_mode=DELETE')\n"
            + "c.execute('BEGIN EXCLUSIVE')\nc.execute(\"INSERT INTO journal_settings (key, value) VALUES ('status-test', '1')\")\n"
            + "print('locked',flush=True)\nsys.stdin.read()\n"
        holder.arguments = ["python3", "-c", script, home.file("data") + "/ofj.sqlite"]
        let input = Pipe(), output = Pipe()
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        let first = output.fileHandleForReading.availableData
        #expect(String(decoding: first, as: UTF8.self).hasPrefix("locked"))
        let r = try await ofj(["status"])
        #expect(r.stdout == "?/? kcal · ? g P · ?\n", "\(r.stdout) \(r.stderr)")
        try input.fileHandleForWriting.close()
        holder.waitUntilExit()
        // Once the lock is gone, the figures are back.
        #expect(try await ofj(["status"]).stdout.hasPrefix("250/2000 kcal"))
    }
}
