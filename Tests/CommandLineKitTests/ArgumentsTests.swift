import Testing
@testable import CommandLineKit

/// The command table's parser on a small table (ofj's own table is checked end to end in CLITests).
@Suite struct ArgumentsTests {
    let table: CommandTable = {
        let log = CommandSpec("log", summary: "log an entry",
                              arguments: [PositionalSpec("NAME", optional: true)],
                              options: [.value("--meal", "MEAL", .choice(["breakfast", "lunch"]), "the meal"),
                                        .value("--date", "DATE", .date, "the day"),
                                        .value("--nutrient", "ID=VALUE", .text, "a nutrient", repeatable: true),
                                        .value("--food", "NAME", .text, "a food", excludes: ["--ref"]),
                                        .value("--ref", "ID", .text, "a reference food"),
                                        .value("--portion", "TEXT", .text, "a portion", requires: ["--ref"]),
                                        .value("--limit", "N", .integer(1...5), "a limit"),
                                        .flag("--json", "print JSON"), .flag("--yes", "allow")],
                              action: .sync { _ in 0 })
        let backup = CommandSpec("backup", summary: "backups", subcommands: [
            CommandSpec("export", summary: "export one", options: [.value("--output", short: "-o", "FILE", .file, "where")], action: .sync { _ in 0 }),
        ])
        return CommandTable(root: CommandSpec("ofj", summary: "root", options: [.flag("--resume", "reopen")], subcommands: [log, backup],
                                              action: .sync { _ in 0 }))
    }()

    func run(_ args: [String]) throws -> CommandInvocation {
        guard case .run(_, let inv) = try table.parse(args) else { throw UsageError("expected a command, got help") }
        return inv
    }

    func usageError(_ args: [String]) -> String {
        do { _ = try table.parse(args) } catch { return "\(error)" }
        return "(no error)"
    }

    @Test func parsesMixedArguments() throws {
        let inv = try run(["log", "2 eggs", "--meal", "breakfast", "--json", "--date=2026-11-28", "--nutrient", "a=1", "--nutrient", "b=2"])
        #expect(inv.path == ["log"])
        #expect(inv.arguments.positionals == ["2 eggs"])
        #expect(inv.arguments.value("--meal") == "breakfast")
        #expect(inv.arguments.value("--date") == "2026-11-28")
        #expect(inv.arguments.values("--nutrient") == ["a=1", "b=2"])
        #expect(inv.arguments.has("--json"))
        #expect(try run(["log", "--", "--json"]).arguments.positionals == ["--json"])
        #expect(try run(["backup", "export", "-o", "f.json"]).arguments.value("--output") == "f.json")
    }

    @Test func unknownNamesSuggestTheClosest() {
        #expect(usageError(["log", "--jsno"]) == "unknown option --jsno for ofj log (did you mean --json?)")
        #expect(usageError(["lgo"]) == "unknown command 'lgo' (did you mean log?)")
        #expect(usageError(["backup", "exprot"]) == "unknown backup command 'exprot' (did you mean export?)")
        #expect(usageError(["log", "--meal", "brekfast"]).contains("(did you mean breakfast?)"))
    }

    @Test func repeatedSingleValueOptionsAreUsageErrors() {
        #expect(usageError(["log", "--meal", "lunch", "--meal", "breakfast"]) == "--meal is given twice; give it once")
        #expect(usageError(["log", "--json", "--json"]) == "--json is given twice; give it once")
    }

    @Test func exclusionsRequirementsAndValues() {
        #expect(usageError(["log", "--food", "x", "--ref", "1"]) == "give --food or --ref, not both")
        #expect(usageError(["log", "--portion", "2 large"]) == "--portion goes with --ref")
        #expect(usageError(["log", "--limit", "9"]) == "--limit takes a whole number from 1 to 5, not '9'")
        #expect(usageError(["log", "--meal"]) == "--meal needs a value (MEAL)")
        #expect(usageError(["log", "--json=1"]) == "--json takes no value")
        #expect(usageError(["log", "a", "b"]).hasPrefix("unexpected argument 'b'"))
        #expect(usageError(["backup"]) == "ofj backup needs a command: export")
    }

    @Test func modesTakeOnlyTheirOwnOptions() throws {
        let log = CommandSpec("log", summary: "log", arguments: [PositionalSpec("NAME", optional: true)],
                              options: [.value("--kcal", "N", .number, "kcal"), .value("--food", "X", .text, "food"),
                                        .value("--amount", "Q", .text, "amount"), .value("--ref", "ID", .text, "ref"),
                                        .value("--grams", "G", .number, "grams"), .flag("--json", "json")],
                              modes: [ModeSpec("manual entry", selector: nil, options: ["--kcal"], takesArguments: true, hint: "give NAME --kcal N"),
                                      ModeSpec("food", selector: "--food", options: ["--food", "--amount", "--grams"], hint: "give --amount or --grams"),
                                      ModeSpec("ref", selector: "--ref", options: ["--ref", "--grams"], hint: "give --grams")],
                              action: .sync { _ in 0 })
        let t = CommandTable(root: CommandSpec("ofj", summary: "root", subcommands: [log]))
        func error(_ args: [String]) -> String {
            do { _ = try t.parse(args) } catch { return "\(error)" }
            return "(no error)"
        }
        #expect(error(["log", "--food", "a", "--ref", "b"]) == "give --food or --ref, not both")
        #expect(error(["log", "--ref", "b", "--amount", "1"]) == "--amount does not apply to --ref: give --grams")
        #expect(error(["log", "X", "--grams", "1"]) == "--grams does not apply to a manual entry: give NAME --kcal N")
        #expect(error(["log", "--food", "a", "--kcal", "1"]) == "--kcal does not apply to --food: give --amount or --grams")
        #expect(error(["log", "--food", "a", "extra"]) == "unexpected 'extra': give --amount or --grams")
        #expect(error(["log", "--food", "a", "--grams", "5", "--json"]) == "(no error)")
        #expect(error(["log", "X", "--kcal", "5", "--json"]) == "(no error)")
    }

    @Test func aModeRunsItsOwnHandlerWithItsOwnAccess() throws {
        let sync = CommandSpec("sync", summary: "sync", options: [.flag("--local", "local"), .flag("--json", "json")],
                               modes: [ModeSpec("local", selector: "--local", options: [], takesArguments: true, hint: "local only",
                                                access: .read, action: .sync { _ in 7 })],
                               access: .write, action: .sync { _ in 0 })
        let t = CommandTable(root: CommandSpec("ofj", summary: "root", subcommands: [sync]))
        func outcome(_ args: [String]) throws -> (Int32, DataAccess) {
            guard case .run(let command, let inv) = try t.parse(args), case .sync(let run)? = command.action(for: inv.arguments) else {
                throw UsageError("no sync action")
            }
            return (try run(inv), inv.access)
        }
        #expect(try outcome(["sync", "--json"]) == (0, .write))
        #expect(try outcome(["sync", "--local", "--json"]) == (7, .read))
        // A command without modes keeps its own access.
        guard case .run(_, let inv) = try table.parse(["log", "x"]) else { Issue.record("no log"); return }
        #expect(inv.access == .none)
    }

    @Test func aHugeArgumentIsNotEchoedWhole() {
        let huge = "--" + String(repeating: "x", count: 100_000)
        let message = usageError(["log", huge])
        #expect(message.count < 120, "\(message.count)")
        #expect(message.contains("…"))
    }

    @Test func helpAnywhereBeforeDoubleDash() throws {
        for args in [["log", "--help"], ["log", "x", "-h", "--jsno"], ["backup", "export", "--help"], ["--help"]] {
            guard case .help(let text) = try table.parse(args) else { Issue.record("\(args): no help"); continue }
            #expect(text.hasPrefix("usage: ofj"))
        }
        guard case .help(let text) = try table.parse(["log", "-h"]) else { return }
        #expect(text.contains("--meal MEAL") && text.contains("-h, --help"))
        #expect(try run(["log", "--", "-h"]).arguments.positionals == ["-h"])
    }
}
