// Help, README table and shell completion generated from a small table, without the ofj binary
// (ofj's own table is checked end to end, against golden files, in the command-line tests).
import Foundation
import Testing
@testable import CommandLineKit

@Suite struct HelpAndCompletionTests {
    let table: CommandTable = {
        let log = CommandSpec("log", summary: "log an entry | with a bar",
                              arguments: [PositionalSpec("NAME", optional: true)],
                              options: [.value("--meal", "MEAL", .choice(["breakfast", "lunch"]), "the meal"),
                                        .value("--limit", "N", .integer(1...5), "a limit", default: "3"),
                                        .value("--nutrient", "ID=VALUE", .text, "a nutrient", repeatable: true),
                                        .value("--output", short: "-o", "FILE", .file, "where"),
                                        .flag("--json", "print JSON")],
                              action: .sync { _ in 0 })
        let backup = CommandSpec("backup", summary: "backups", subcommands: [
            CommandSpec("export", summary: "export one", action: .sync { _ in 0 }),
            CommandSpec("import", summary: "import one", arguments: [PositionalSpec("FILE", .file)], action: .sync { _ in 0 }),
        ])
        let secret = CommandSpec("__secret", summary: "not shown", hidden: true, action: .sync { _ in 0 })
        let completion = CommandSpec("completion", summary: "a script", arguments: [PositionalSpec("SHELL", .choice(CommandTable.shells))],
                                     action: .sync { _ in 0 })
        return CommandTable(root: CommandSpec("tool", summary: "the tool", options: [.flag("--resume", "reopen")],
                                              subcommands: [log, backup, completion, secret], action: .sync { _ in 0 }),
                            program: "tool")
    }()

    func help(_ path: [String]) throws -> String {
        guard case .help(let text) = try table.parse(path + ["--help"]) else { throw UsageError("no help for \(path)") }
        return text
    }

    @Test func commandHelpShowsUsageOptionsDefaultsAndChoices() throws {
        let text = try help(["log"])
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "usage: tool log [NAME] [--meal MEAL] [--limit N] [--nutrient ID=VALUE]… [-o FILE] [--json]")
        // One column for the labels, as wide as the widest ("--nutrient ID=VALUE") and two spaces.
        #expect(lines.contains("  --limit N            a limit (default 3)"))
        #expect(lines.contains("  --nutrient ID=VALUE  a nutrient (repeatable)"))
        #expect(lines.contains("  --meal MEAL          the meal: breakfast, lunch"))
        #expect(lines.contains("  -o, --output FILE    where"))
        #expect(lines.last == "  -h, --help           show this help")
    }

    @Test func groupHelpListsVisibleSubcommandsAndTheRootSaysHowToGoOn() throws {
        let group = try help(["backup"])
        #expect(group.hasPrefix("usage: tool backup export\n       tool backup import FILE\n"))
        #expect(group.hasSuffix("Run `tool backup COMMAND --help` for a command's options."))
        let root = try help([])
        #expect(root.contains("usage: tool [--resume]\n       tool COMMAND [ARGUMENTS] [OPTIONS]"))
        #expect(root.contains("  backup export|import"))
        #expect(!root.contains("__secret"))
        #expect(root.hasSuffix("Run `tool COMMAND --help` for a command's arguments and options."))
    }

    @Test func readmeTableHasOneRowPerRunnableCommandWithPipesEscaped() {
        let rows = table.markdownTable().split(separator: "\n").map(String.init)
        #expect(rows.first == "| command | what it does |")
        #expect(rows.contains("| `tool log [NAME] [--meal MEAL] [--limit N] [--nutrient ID=VALUE]… [-o FILE] [--json]` | log an entry \\| with a bar |"))
        #expect(rows.contains("| `tool backup import FILE` | import one |"))
        // A group without an action is no row of its own; hidden commands never show.
        #expect(!rows.contains { $0.hasPrefix("| `tool backup` ") })
        #expect(!rows.contains { $0.contains("__secret") })
        #expect(rows.count == 2 + 5)
    }

    @Test func completionScriptsOfferSubcommandsOptionsAndChoices() throws {
        #expect(table.completionScript(shell: "tcsh") == nil)
        let bash = try #require(table.completionScript(shell: "bash"))
        #expect(bash.contains("complete -F _tool tool"))
        #expect(bash.contains("/log:--meal) COMPREPLY=($(compgen -W \"breakfast lunch\" -- \"$cur\")); return ;;"))
        #expect(bash.contains("/log:-o|/log:--output) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;"))
        #expect(bash.contains("/backup) options=\"-h --help\"; words=\"export import\" ;;"))
        #expect(bash.contains("/backup/import) options=\"-h --help\"; words=\"\"; files=1 ;;"))
        #expect(!bash.contains("__secret"))
        let zsh = try #require(table.completionScript(shell: "zsh"))
        #expect(zsh.hasPrefix("#compdef tool\n"))
        #expect(zsh.contains("(/log:--meal)) compadd -- breakfast lunch; return ;;"))
        let fish = try #require(table.completionScript(shell: "fish"))
        #expect(fish.contains("complete -c tool -n '__fish_seen_subcommand_from log' -l meal -x -a 'breakfast lunch' -d 'the meal'"))
        #expect(fish.contains("complete -c tool -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'"))
    }
}
