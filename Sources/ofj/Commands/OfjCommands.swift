// ofj's command line assembled: the order of the commands, the options several share, the meta
// commands (completion, help, README table) and how a handler opens the database. Each command's
// spec sits beside its handler in this folder. Parsing, `--help`, "did you mean", shell completion
// and README.md's command table all come from the table (README.md is checked against
// `ofj __readme-commands` by the tests).
import CommandLineKit
import Foundation
import Journal
import Providers
import ReferenceFoods
import REPL
import Settings
import SQLiteKit

/// What the handlers need from the process: where data lives, the environment, the version.
struct CLIContext: Sendable {
    let paths: AppPaths
    let environment: [String: String]
    let version: String
}

enum OfjCommands {
    static let mealNames = ["breakfast", "lunch", "dinner", "snack"]
    static let providerNames = ["offline"] + ProviderSpec.all.map(\.name)

    static func table(_ ctx: CLIContext) -> CommandTable {
        var root = assistant(ctx)
        // The order of help, completion and README.md's table.
        root.subcommands = [
            ask(ctx), day(ctx), status(ctx), trend(ctx), month(ctx), gaps(ctx), report(ctx), log(ctx), copy(ctx), recent(ctx), water(ctx), note(ctx), fasting(ctx), entry(ctx), foods(ctx), ref(ctx),
            barcode(ctx), packaged(ctx), goals(ctx), profile(ctx), weight(ctx), expenditure(ctx), checkin(ctx), undo(ctx), backup(ctx), importDiary(ctx), export(ctx), search(ctx), threads(ctx),
            meals(ctx), diag(ctx), sync(ctx), replay(ctx), mcp(ctx), doctor(ctx), completion(ctx), help(ctx), readmeCommands(ctx), complete(ctx),
        ]
        return CommandTable(root: root, unknownCommandHint: "to ask one question: ofj ask \"…\"")
    }

    /// A command's usage lines, from the command table, for usage errors that show them.
    static func usage(_ path: String...) -> String {
        let table = table(CLIContext(paths: AppPaths(environment: [:]), environment: [:], version: version))
        guard let command = table.command(at: path) else { return "" }
        return "usage: " + table.synopses(command, path: path).joined(separator: "\n       ")
    }

    // MARK: - completion, help, README

    static func completion(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("completion", summary: "print a shell completion script",
                    details: "  bash: ofj completion bash > ~/.local/share/bash-completion/completions/ofj\n  zsh:  ofj completion zsh > ~/.zfunc/_ofj\n  fish: ofj completion fish > ~/.config/fish/completions/ofj.fish",
                    arguments: [PositionalSpec("SHELL", .choice(CommandTable.shells))],
                    action: .sync { inv in
                        writeOut(table(ctx).completionScript(shell: inv.arguments.positionals[0]) ?? "", newline: false)
                        return 0
                    })
    }

    static func help(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("help", summary: "show the help of a command",
                    arguments: [PositionalSpec("COMMAND", optional: true, variadic: true)],
                    action: .sync { inv in
                        let t = table(ctx)
                        let path = inv.arguments.positionals
                        guard let c = t.command(at: path) else {
                            _ = try t.parse(path + ["--help"]) // the parser's "unknown command" error
                            return 2
                        }
                        writeOut(t.help(for: c, path: path))
                        return 0
                    })
    }

    static func readmeCommands(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("__readme-commands", summary: "README.md's command table", hidden: true,
                    action: .sync { _ in writeOut(table(ctx).markdownTable(), newline: false); return 0 })
    }

    // MARK: - the database, as the spec declares

    /// The database, opened as the command's spec (or the selected mode) declares: read-only for
    /// `.read`. A command declaring `.none` never opens it.
    static func openDatabase(_ ctx: CLIContext, _ inv: CommandInvocation) throws -> DatabaseQueue {
        guard inv.access != .none else {
            throw CLIError("\(inv.commandLine) declares no database access and cannot open the database (a bug in ofj; please report it)")
        }
        try ctx.paths.ensureDataDirectory()
        // A salvage reads a file that may be damaged: no check, no migration, no writes.
        if inv.arguments.given("--salvage") { return try OfjDatabase.openForSalvage(path: ctx.paths.databasePath) }
        return try OfjDatabase.open(path: ctx.paths.databasePath, access: inv.access)
    }

    static func openJournal(_ ctx: CLIContext, _ inv: CommandInvocation) throws -> JournalStore {
        JournalStore(queue: try openDatabase(ctx, inv), timeZone: .current, mealSchedule: MealConfig.load(configPath: ctx.paths.configPath).schedule)
            .with(customMeals: MealConfig.customMeals(configPath: ctx.paths.configPath))
    }

    /// A journal command: opens the journal and runs `body`.
    static func journal(_ ctx: CLIContext, reference: Bool = false,
                        _ body: @escaping @Sendable (JournalCommands, CommandInvocation) throws -> Void) -> CommandAction {
        .sync { inv in
            // Only `ref` and `log --ref` read the bundled reference foods; other commands do not
            // even locate the resource bundle (it shows in their start-up time).
            let needsReference = reference || inv.arguments.given("--ref")
            let referenceFoods = needsReference ? ReferenceDatabase.shared : nil
            if let referenceFoods {
                do { try referenceFoods.load() } catch { throw CLIError("the bundled reference foods could not be read (\(error)); reinstall ofj") }
            }
            try body(JournalCommands(journal: try openJournal(ctx, inv), reference: referenceFoods, out: { writeOut($0) }), inv)
            return 0
        }
    }
}

/// Options several commands take, declared once so they read the same everywhere.
extension OptionSpec {
    static let json = OptionSpec.flag("--json", "print JSON")
    static let output = OptionSpec.value("--output", short: "-o", "FILE", .file, "write to FILE instead of stdout")
    static let force = OptionSpec.flag("--force", "replace an existing file")
    static let yes = OptionSpec.flag("--yes", "do it without asking (scripts; needed when there is no terminal)")
    static let thread = OptionSpec.value("--thread", "ID", .text, "continue the thread with this id (any unique prefix)")
    static let provider = OptionSpec.value("--provider", "NAME", .suggestions(OfjCommands.providerNames), "the AI provider for this run")
    static let model = OptionSpec.value("--model", "NAME", .text, "the model (Azure: the deployment name)")
    static let record = OptionSpec.value("--record", "FILE", .file,
                                         "save the session as a transcript for a bug report (contains your journal and attached files, never keys)")
}
