import Base
import Foundation
import Testing
import TestSupport
import SQLiteKit

/// The journal CLI as scripts use it: clear one-line errors, conventional exit codes, nothing
/// written or overwritten on bad input.
@Suite struct ScriptedUseTests {
    let home = TempDirectory(prefix: "ofj-cli")
    var env: [String: String] { ["OFJ_HOME": home.file("data"), "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "OFJ_PROVIDER": "offline"] }

    @Test func anotherProgramsSQLiteFileIsLeftAlone() async throws {
        try FileManager.default.createDirectory(atPath: home.file("data"), withIntermediateDirectories: true)
        let db = try Database(path: home.file("data/ofj.sqlite"))
        try db.execute("CREATE TABLE theirs (x)")
        let r = try await OfjBinary.run(["day"], environment: env)
        #expect(r.status == 1)
        #expect(r.stderr.contains("another program, not an ofj database"))
        let tables = try db.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0[0].string }
        #expect(tables == ["theirs"])
    }

    /// Issue 31 §7: a file whose list of tables is damaged is said to be damaged, with what to do
    /// (it used to say "check the folder exists and is writable").
    @Test func aDamagedSchemaSaysSoAndWhatToDo() async throws {
        _ = try await OfjBinary.run(["day"], environment: env)
        let db = try Database(path: home.file("data/ofj.sqlite"))
        try db.execute("PRAGMA writable_schema = ON")
        try db.execute("UPDATE sqlite_master SET sql = 'CREATE TABLE garbage((' WHERE name = 'journal_entries'")
        for args in [["day"], ["log", "X", "--kcal", "1"]] {
            let r = try await OfjBinary.run(args, environment: env)
            #expect(r.status == 1, "\(args)")
            #expect(r.stderr.contains("the file is damaged where SQLite keeps its list of tables"), "\(args): \(r.stderr)")
            #expect(r.stderr.contains("move it aside and keep it") && !r.stderr.contains("writable"), "\(args): \(r.stderr)")
        }
    }

    @Test func badInputIsAUsageErrorAndWritesNothing() async throws {
        for args in [["log", "", "--kcal", "10"], ["log", "X", "--kcal", "1e12"], ["log", "X", "--kcal", "-1"],
                     ["log", "X", "--kcal", "10", "--nutrient", "sodum_mg=5"], ["goals", "set", "foo=3"],
                     ["day", "2026-02-30"], ["log", "--ref", "01123", "--portion", "3 wheels"]] {
            let r = try await OfjBinary.run(args, environment: env)
            #expect(r.status == 2, "\(args): \(r.stderr)")
            #expect(r.stderr.hasPrefix("ofj: ") && r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
        }
        let day = try await OfjBinary.run(["day"], environment: env)
        #expect(day.stdout.contains("Nothing logged"))
    }

    @Test func csvCellsCannotRunAsFormulas() async throws {
        _ = try await OfjBinary.run(["log", "=HYPERLINK(\"http://x\")", "--kcal", "1"], environment: env)
        let r = try await OfjBinary.run(["export", "csv"], environment: env)
        #expect(r.stdout.contains("\"'=HYPERLINK(\"\"http://x\"\")\""))
    }

    @Test func askFailsWhenAWriteWasRefused() async throws {
        let refused = try await OfjBinary.run(["ask", "log 2 eggs for breakfast"], environment: env)
        #expect(refused.status == 1)
        let unknownThread = try await OfjBinary.run(["ask", "hi", "--thread", "nope"], environment: env)
        #expect(unknownThread.status == 2)
    }

    /// The card's "a" then "s" saves a rule in config.json; `ofj ask` honours it without --yes
    /// (a standing decision of the person), shows it as a ✓ line, and `ofj undo` takes the write back.
    @Test func aSavedRuleAllowsAskWithoutYesAndUndoTakesItBack() async throws {
        let repl = try await OfjBinary.run([], input: "log 2 eggs for breakfast\na\ns\n", environment: env)
        #expect(repl.stdout.contains("saved rule 1: allow log_reference_food for every call"), "\(repl.stdout)\n\(repl.stderr)")
        let config = try String(contentsOfFile: home.file("config/ofj/config.json"), encoding: .utf8)
        #expect(config.contains(#"{"decision":"allow","tool":"log_reference_food"}"#), "\(config)")
        let ask = try await OfjBinary.run(["ask", "log 2 eggs for breakfast"], environment: env)
        #expect(ask.status == 0, "\(ask.stderr)")
        #expect(ask.stdout.contains("  ✓ allowed by rule 1: allow log_reference_food for every call\n  ✓ logged"), "\(ask.stdout)")
        let db = try Database(path: home.file("data/ofj.sqlite"))
        func entries() throws -> Int { try db.scalar("SELECT count(*) FROM journal_entries").int ?? -1 }
        #expect(try entries() == 2)
        #expect(try db.scalar("SELECT rule FROM agent_approvals WHERE source = 'rule'").string == "rule 1 (allow log_reference_food for every call)")
        // Without a terminal and without --yes, undo refuses and changes nothing.
        let refused = try await OfjBinary.run(["undo"], environment: env)
        #expect(refused.status == 2 && refused.stderr.contains("add --yes to undo without asking"), "\(refused.stderr)")
        #expect(try entries() == 2)
        let undo = try await OfjBinary.run(["undo", "--yes"], environment: env)
        #expect(undo.status == 0 && undo.stdout.contains("did: logged Egg, whole, raw, fresh"), "\(undo.stdout)")
        #expect(try entries() == 1)
        // A rule naming an unknown tool: doctor says so and exits 1; nothing is allowed by the file.
        try #"{"approvals":{"rules":[{"tool":"log_reference_fod","decision":"allow"}]}}"#.write(toFile: home.file("config/ofj/config.json"), atomically: true, encoding: .utf8)
        let doctor = try await OfjBinary.run(["doctor"], environment: env)
        #expect(doctor.status == 1 && doctor.stdout.contains("unknown tool \"log_reference_fod\" (did you mean log_reference_food?)"), "\(doctor.stdout)")
        let broken = try await OfjBinary.run(["ask", "log 2 eggs for breakfast"], environment: env)
        #expect(broken.status == 1 && broken.stderr.contains("approval rules not used"), "\(broken.stderr)")
        #expect(try entries() == 1)
        let repl2 = try await OfjBinary.run([], input: "/exit\n", environment: env)
        #expect(repl2.stderr.contains("ofj: approval rules not used: config.json approvals rule 1: unknown tool \"log_reference_fod\""), "\(repl2.stderr)")
    }

    /// Issue 31 §6: an allow rule that constrains only a name loads, and `ofj doctor` warns that it
    /// allows any amount of anything so named, in any case.
    @Test func doctorWarnsAboutAnAllowRuleThatConstrainsOnlyAName() async throws {
        try FileManager.default.createDirectory(atPath: home.file("config/ofj"), withIntermediateDirectories: true)
        try #"{"approvals":{"rules":[{"tool":"log_food","when":{"name":"Water"},"decision":"allow"}]}}"#
            .write(toFile: home.file("config/ofj/config.json"), atomically: true, encoding: .utf8)
        let doctor = try await OfjBinary.run(["doctor"], environment: env)
        #expect(doctor.stdout.contains("-- warning: config.json approvals rule 1 (allow log_food when name = Water) constrains only a name: "
            + "any amount of anything with name = Water (in any case) is written without a card"), "\(doctor.stdout)")
        #expect(!doctor.stdout.contains("no approval rule applies"), "\(doctor.stdout)")
    }

    /// /permissions lists, adds (refusing a rule that does not validate, file unchanged) and removes rules.
    @Test func permissionsListsAddsAndRemovesRules() async throws {
        let input = "/permissions\n/permissions add deny set_goals\n/permissions add ask log_food energy_kcal gt 800\n/permissions add allow log_fod\n/permissions\n/permissions remove 1\n/permissions\n"
        let r = try await OfjBinary.run([], input: input, environment: env)
        #expect(r.stdout.contains("No approval rules: every change is asked about."), "\(r.stdout)")
        #expect(r.stdout.contains("✓ Rule 1: deny set_goals for every call"))
        #expect(r.stdout.contains("✓ Rule 2: ask log_food when energy_kcal > 800"))
        #expect(r.stdout.contains("! not added: config.json approvals rule 3: unknown tool \"log_fod\" (did you mean log_food?)"))
        #expect(r.stdout.contains("  1. deny set_goals for every call\n  2. ask log_food when energy_kcal > 800\n"))
        #expect(r.stdout.contains("✓ Removed rule 1: deny set_goals for every call"))
        #expect(r.stdout.contains("  1. ask log_food when energy_kcal > 800\n/permissions remove N removes one."))
        let config = try JSONValue.parse(try String(contentsOfFile: home.file("config/ofj/config.json"), encoding: .utf8))
        #expect(config["approvals"]?["rules"]?.arrayValue?.count == 1)
    }

    /// An "always" given in the REPL is a grant for that thread; `ofj ask` in the same thread
    /// still writes only with --yes (issue #25 §3: it used to write with approval source thread_grant).
    @Test func askIgnoresAThreadGrantWithoutYes() async throws {
        // "a", then "t": always, for this thread (the other choice saves a rule in config.json).
        let repl = try await OfjBinary.run([], input: "log 2 eggs for breakfast\na\nt\n", environment: env)
        #expect(repl.stdout.contains("✓ logged"), "\(repl.stdout)\n\(repl.stderr)")
        let db = try Database(path: home.file("data/ofj.sqlite"))
        let threadID = try #require(try db.scalar("SELECT thread_id FROM agent_tool_grants").string)
        func entries() throws -> Int { try db.scalar("SELECT count(*) FROM journal_entries").int ?? -1 }
        #expect(try entries() == 1)

        let ask = try await OfjBinary.run(["ask", "--thread", threadID, "log 2 eggs for breakfast"], environment: env)
        #expect(ask.status == 1)
        #expect(ask.stderr.contains("refused log_reference_food (writes need --yes in ofj ask)"), "\(ask.stderr)")
        #expect(try entries() == 1)
        #expect(try db.scalar("SELECT count(*) FROM agent_approvals WHERE source = 'thread_grant'").int == 0)
        // The model was told the write was refused, as without a grant.
        #expect(try db.scalar("SELECT count(*) FROM agent_ledger WHERE decision = 'deny'").int == 1)

        let yes = try await OfjBinary.run(["ask", "--thread", threadID, "log 2 eggs for breakfast", "--yes"], environment: env)
        #expect(yes.status == 0, "\(yes.stderr)")
        #expect(try entries() == 2)
    }

    @Test func aDataFolderThatIsAFileIsNamed() async throws {
        let file = home.file("plain-file")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        let r = try await OfjBinary.run(["day"], environment: ["OFJ_HOME": file, "HOME": home.path])
        #expect(r.status == 1)
        #expect(r.stderr == "ofj: the data folder \(file) is a file; set OFJ_HOME to a folder\n")
    }
}
