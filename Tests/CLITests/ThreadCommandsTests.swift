// `ofj threads`, `ofj search` and `ofj meals` as a person and a script use them: golden exports
// (Markdown and JSON) of a thread with tool activity and approvals, no secrets in them, private
// files never overwritten without --force, delete asking first, and the meal schedule deciding
// the default meal of a new entry.
import Foundation
import SQLiteKit
import Testing
import TestSupport

@Suite struct ThreadCommandsTests {
    let home = TempDirectory(prefix: "ofj-threads")
    var env: [String: String] {
        ["OFJ_HOME": home.file("data"), "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "OFJ_PROVIDER": "offline",
         "TZ": "UTC", "NO_COLOR": "1"]
    }
    static let threadID = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"
    static let golden = OfjBinary.repositoryRoot + "/Tests/Golden/cli/"

    func expectGolden(_ text: String, _ name: String) throws {
        let path = Self.golden + name
        if ProcessInfo.processInfo.environment["OFJ_UPDATE_GOLDEN"] == "1" { try Data(text.utf8).write(to: URL(fileURLWithPath: path)) }
        let expected = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        #expect(text == expected, "\(name) differs from its golden file; run with OFJ_UPDATE_GOLDEN=1 and review the diff")
    }

    /// A thread as the agent stores it (fixed ids and times): a question with a URL holding
    /// credentials, a tool call approved once, its result and summary, provider continuation
    /// data, and the answer. Written in SQL, then indexed by the fts-2 migration on the next start.
    func seed() async throws {
        _ = try await OfjBinary.run(["threads"], environment: env)  // creates and migrates the database
        let db = try Database(path: home.file("data/ofj.sqlite"))
        let t = Self.threadID, t0 = 1_796_000_000.0
        try db.execute(batch: """
            INSERT INTO agent_threads (id, title, provider, model, created_at, updated_at)
                VALUES ('\(t)', 'Oatmeal and the recipe page', 'openai', 'gpt-4o-mini', \(t0), \(t0 + 60));
            INSERT INTO agent_runs (id, thread_id, phase, provider, model, created_at, phase_changed_at, finished_at)
                VALUES ('run-1', '\(t)', 'completed', 'openai', 'gpt-4o-mini', \(t0), \(t0 + 60), \(t0 + 60));
            INSERT INTO agent_messages (id, thread_id, seq, run_id, role, turn, state, created_at) VALUES
                (1, '\(t)', 1, 'run-1', 'user', NULL, 'complete', \(t0)),
                (2, '\(t)', 2, 'run-1', 'assistant', 1, 'complete', \(t0 + 5)),
                (3, '\(t)', 3, 'run-1', 'tool', 1, 'complete', \(t0 + 30)),
                (4, '\(t)', 4, 'run-1', 'assistant', 2, 'complete', \(t0 + 60));
            INSERT INTO agent_message_parts (message_id, ordinal, kind, body, call_id, name, is_error, provider, subkind) VALUES
                (1, 0, 'text', 'Log the oatmeal from https://cook:hunter2@recipes.example/oats?api_key=SECRET123&serving=1 for breakfast', NULL, NULL, 0, NULL, NULL),
                (2, 0, 'continuation', 'CONTINUATION-PAYLOAD-NOT-FOR-EXPORT', NULL, NULL, 0, 'openai', 'reasoning'),
                (2, 1, 'tool_call', '{"name":"Oatmeal","meal":"breakfast","nutrients":{"energy_kcal":166}}', 'call_1', 'log_food', 0, NULL, NULL),
                (3, 0, 'tool_result', '{"logged":{"name":"Oatmeal","energy_kcal":166}}', 'call_1', 'log_food', 0, NULL, NULL),
                (4, 0, 'text', 'Logged **Oatmeal**, 166 kcal, to breakfast.', NULL, NULL, 0, NULL, NULL);
            INSERT INTO agent_tool_calls (run_id, turn, call_id, thread_id, ordinal, tool_name, effect, arguments, status, result, is_error, summary, started_at, finished_at)
                VALUES ('run-1', 1, 'call_1', '\(t)', 0, 'log_food', 'write', '{}', 'succeeded', '{}', 0,
                        'logged Oatmeal to breakfast on 2026-11-29', \(t0 + 6), \(t0 + 30));
            INSERT INTO agent_approvals (run_id, turn, call_id, tool_name, decision, source, waited_seconds, decided_at)
                VALUES ('run-1', 1, 'call_1', 'log_food', 'allow_once', 'person', 20, \(t0 + 29));
            DROP TABLE agent_messages_fts; DROP TABLE agent_tools_fts; DROP TABLE agent_titles_fts;
            DELETE FROM schema_migrations WHERE identifier = 'fts-2-threads';
            """)
    }

    @Test func exportsAreGoldenAndHoldNoSecrets() async throws {
        try await seed()
        let md = try await OfjBinary.run(["threads", "export", "0f1e2d", "--format", "md"], environment: env)
        #expect(md.status == 0, "\(md.stderr)")
        try expectGolden(md.stdout, "thread-export.md")
        let json = try await OfjBinary.run(["threads", "export", "0f1e2d", "--format", "json"], environment: env)
        #expect(json.status == 0, "\(json.stderr)")
        try expectGolden(json.stdout, "thread-export.json")
        let show = try await OfjBinary.run(["threads", "show", Self.threadID], environment: env)
        #expect(show.stdout == md.stdout)
        for out in [md.stdout, json.stdout] {
            for secret in ["hunter2", "SECRET123", "CONTINUATION-PAYLOAD"] { #expect(!out.contains(secret), "\(secret) leaked") }
        }
        #expect(md.stdout.contains("> tool log_food (succeeded): logged Oatmeal to breakfast on 2026-11-29"))
        #expect(md.stdout.contains("> approval: allowed once by you"))
        #expect(md.stdout.contains("Not medical advice"))
        #expect(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) is [String: Any])
    }

    @Test func anExportFileIsPrivateAndNeverOverwrittenWithoutForce() async throws {
        try await seed()
        let path = home.file("thread.md")
        let first = try await OfjBinary.run(["threads", "export", Self.threadID, "-o", path], environment: env)
        #expect(first.status == 0, "\(first.stderr)")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: path))
        let again = try await OfjBinary.run(["threads", "export", Self.threadID, "--format", "json", "-o", path], environment: env)
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists") && again.stderr.contains("--force"), "\(again.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "mine")
        let forced = try await OfjBinary.run(["threads", "export", Self.threadID, "--format", "json", "-o", path, "--force"], environment: env)
        #expect(forced.status == 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("\"format\": \"ofj-thread\""))
    }

    @Test func searchFindsTheThreadAndTheJournalAndDeleteAsksFirst() async throws {
        try await seed()
        _ = try await OfjBinary.run(["log", "Oatmeal, cooked", "--kcal", "166", "--date", "2026-11-28", "--meal", "breakfast"], environment: env)
        let search = try await OfjBinary.run(["search", "oatm"], environment: env)
        #expect(search.status == 0, "\(search.stderr)")
        try expectGolden(search.stdout, "search-oatmeal.txt")
        #expect(!search.stdout.contains("hunter2"))  // credentials in URLs are hidden in results too
        let syntax = try await OfjBinary.run(["search", "oat* OR \"(:"], environment: env)
        #expect(syntax.status == 0, "\(syntax.stderr)") // searched as the words oat, or: nothing has "or…"
        let nothing = try await OfjBinary.run(["search", "\"*()"], environment: env)
        #expect(nothing.status == 2 && nothing.stderr.split(separator: "\n").count == 1, "\(nothing.stderr)")
        let journalOnly = try await OfjBinary.run(["search", "oatmeal", "--journal", "--json"], environment: env)
        #expect(journalOnly.stdout.contains("\"type\": \"entry\"") && !journalOnly.stdout.contains("\"type\": \"message\""))

        let refused = try await OfjBinary.run(["threads", "delete", "0f1e"], environment: env)  // stdin is not a terminal
        #expect(refused.status == 2 && refused.stderr.contains("--yes"), "\(refused.stderr)")
        let deleted = try await OfjBinary.run(["threads", "delete", "0f1e", "--yes"], environment: env)
        #expect(deleted.status == 0, "\(deleted.stderr)")
        let after = try await OfjBinary.run(["search", "oatm", "--threads"], environment: env)
        #expect(after.stdout.hasPrefix("Nothing matches"))
        // A pasted page as the query (thousands of words, FTS syntax among them) is searched and
        // named by its start only.
        let pasted = String(repeating: "oats (OR \"near\" * ", count: 5_000)
        let long = try await OfjBinary.run(["search", pasted], environment: env)
        #expect(long.status == 0 && long.stdout.count < 200, "\(long.stdout.prefix(300))")
        let list = try await OfjBinary.run(["threads", "list", "--json"], environment: env)
        #expect(list.stdout.contains("\"threads\": []"))
    }

    @Test func theMealScheduleDecidesTheDefaultMeal() async throws {
        try FileManager.default.createDirectory(atPath: home.file("config/ofj"), withIntermediateDirectories: true)
        try Data(#"{"provider": "offline", "policy": "patient"}"#.utf8).write(to: URL(fileURLWithPath: home.file("config/ofj/config.json")))
        // One "now" for the whole test: a minute boundary crossed between setting a time and
        // reading it back must not change what is expected.
        let start = Int(Date().timeIntervalSince1970) / 60
        func hhmm(_ minutesFromNow: Int) -> String {
            let m = ((start + minutesFromNow) % 1440 + 1440) % 1440
            return String(format: "%02d:%02d", m / 60, m % 60)
        }
        // Now falls in dinner (it started an hour ago; breakfast starts in an hour).
        let set = try await OfjBinary.run(["meals", "set", "dinner=\(hhmm(-60))", "breakfast=\(hhmm(60))", "lunch=\(hhmm(120))"], environment: env)
        #expect(set.status == 0, "\(set.stderr)")
        let config = try String(contentsOfFile: home.file("config/ofj/config.json"), encoding: .utf8)
        #expect(config.contains("\"policy\": \"patient\"") && config.contains("\"meals\""))  // other settings kept
        let dinner = try await OfjBinary.run(["log", "Soup", "--kcal", "100", "--json"], environment: env)
        #expect(dinner.stdout.contains("\"meal\" : \"dinner\"") || dinner.stdout.contains("\"meal\":\"dinner\""), "\(dinner.stdout)")
        // Now falls in lunch.
        _ = try await OfjBinary.run(["meals", "set", "breakfast=\(hhmm(-120))", "lunch=\(hhmm(-60))", "dinner=\(hhmm(60))"], environment: env)
        let lunch = try await OfjBinary.run(["log", "Salad", "--kcal", "100", "--json"], environment: env)
        #expect(lunch.stdout.contains("\"meal\" : \"lunch\"") || lunch.stdout.contains("\"meal\":\"lunch\""), "\(lunch.stdout)")
        let shown = try await OfjBinary.run(["meals", "--json"], environment: env)
        #expect(shown.stdout.contains("\"lunch\": \"\(hhmm(-60))\""), "\(shown.stdout)")

        for bad in [["lunch=25:00"], ["brunch=10:00"], ["lunch"], ["breakfast=12:00", "lunch=12:00"]] {
            let r = try await OfjBinary.run(["meals", "set"] + bad, environment: env)
            #expect(r.status == 2 && r.stderr.split(separator: "\n").count == 1, "\(bad): \(r.stderr)")
        }
        try Data(#"{"meals": {"lunch": "noon"}}"#.utf8).write(to: URL(fileURLWithPath: home.file("config/ofj/config.json")))
        let broken = try await OfjBinary.run(["meals"], environment: env)
        #expect(broken.status == 1 && broken.stderr.contains("meals reset"), "\(broken.stderr)")
        let doctor = try await OfjBinary.run(["doctor"], environment: env)
        #expect(doctor.status == 1 && doctor.stdout.contains("\"meals\""), "\(doctor.stdout)")
        let reset = try await OfjBinary.run(["meals", "reset"], environment: env)
        #expect(reset.status == 0 && reset.stdout.contains("breakfast 02:00–12:00"), "\(reset.stdout)")
    }

    @Test func replExportWritesAPrivateFileOnceAndTheNoteShowsOncePerSession() async throws {
        try await seed()
        let path = home.file("from-repl.md")
        let r = try await OfjBinary.run(["--thread", "0f1e2d"], input: "/export md \(path)\n/export md \(path)\n/help\n/exit\n", environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Wrote \(path) (md,"), "\(r.stdout)")
        #expect(r.stdout.contains("already exists; choose another name"), "\(r.stdout)")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("# Oatmeal and the recipe page"))
        // Once in the banner, once more for /help.
        #expect(r.stdout.components(separatedBy: "Not medical advice").count - 1 == 2, "\(r.stdout)")
    }

    @Test func deleteAsksOnATerminal() async throws {
        try await seed()
        let binary = try #require(OfjBinary.path, "build ofj first (swift build)")
        var p = try PTYProcess(executable: binary, arguments: ["threads", "delete", "0f1e"], environment: env.merging(["TERM": "xterm"]) { $1 })
        #expect(await p.read(until: "[y/N]") != nil)
        p.send("n\r")
        #expect(await p.read(until: "Kept.") != nil)
        #expect(await p.waitForExit() == 0)
        p = try PTYProcess(executable: binary, arguments: ["threads", "delete", "0f1e"], environment: env.merging(["TERM": "xterm"]) { $1 })
        #expect(await p.read(until: "cannot be undone") != nil)
        p.send("y\r")
        #expect(await p.read(until: "Deleted thread 0f1e2d3c") != nil)
        #expect(await p.waitForExit() == 0)
        let list = try await OfjBinary.run(["threads", "--json"], environment: env)
        #expect(list.stdout.contains("\"threads\": []"), "\(list.stdout)")
    }
}
