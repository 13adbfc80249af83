// ofj's command line: every command, its arguments, options and help, next to its handler.
// Parsing, `--help`, "did you mean", shell completion and README.md's command table all come
// from this table (README.md is checked against `ofj __readme-commands` by the tests).
import Foundation
import Journal
import Providers
import ReferenceFoods
import REPL

/// What the handlers need from the process: where data lives, the environment, the version.
struct CLIContext: Sendable {
    let paths: AppPaths
    let environment: [String: String]
    let version: String
}

enum OfjCommands {
    static let meals = ["breakfast", "lunch", "dinner", "snack"]
    static let providers = ["offline"] + ProviderSpec.all.map(\.name)

    static func table(_ ctx: CLIContext) -> CommandTable {
        let launcher = Launcher(environment: ctx.environment, paths: ctx.paths, version: ctx.version)
        let thread = OptionSpec.value("--thread", "ID", .text, "continue the thread with this id (any unique prefix)")
        let provider = OptionSpec.value("--provider", "NAME", .suggestions(providers), "the AI provider for this run")
        let model = OptionSpec.value("--model", "NAME", .text, "the model (Azure: the deployment name)")
        let record = OptionSpec.value("--record", "FILE", .file, "save the session as a transcript for a bug report (contains your journal, never keys)")
        let json = OptionSpec.flag("--json", "print JSON")
        let output = OptionSpec.value("--output", short: "-o", "FILE", .file, "write to FILE instead of stdout")
        let force = OptionSpec.flag("--force", "replace an existing file")

        var root = CommandSpec("ofj", summary: "start the assistant (REPL); --resume reopens the last thread; --record FILE saves the session as a transcript for a bug report (contains your journal, never keys)",
                               details: """
                                   ofj \(ctx.version) — OpenFoodJournal for the terminal.
                                   Data lives in $OFJ_HOME or ~/.local/share/ofj. NO_COLOR turns colour off.
                                   Exit status: 0 success, 1 failure, 2 usage error, 130 interrupted, 143 terminated.
                                   """,
                               options: [
                                   .flag("--resume", "reopen the last thread", excludes: ["--thread"]),
                                   thread, provider, model, record,
                                   .flag("--version", short: "-V", "print the version"),
                               ],
                               access: .write,
                               action: .async { inv in try await launcher.repl(inv.arguments) })
        root.subcommands = [
            CommandSpec("ask", summary: "one turn without the REPL; writes are refused unless --yes (an \"always\" given in the REPL does not count), and each write made is shown as a ✓ line (also when the answer fails afterwards); --json prints the event stream as JSON lines; TEXT from stdin when piped or `-`",
                        details: """
                            Asks one question and prints the answer. Each write made is shown as it happens.
                            Without TEXT (stdin not a terminal) or with `-`, the message is read from stdin:
                              echo "what did I eat today" | ofj ask
                            --attach sends an image or PDF with the message (the type is read from the file):
                              ofj ask "save this to my food bank" --attach label.jpg
                            Exit status 1 when a write was refused.
                            """,
                        arguments: [PositionalSpec("TEXT", optional: true, variadic: true)],
                        options: [.flag("--yes", "allow the assistant's writes"), .flag("--json", "print the run's events as JSON lines"),
                                  .value("--attach", "FILE", .file, "attach an image (JPEG, PNG, WebP, GIF) or a PDF; up to 4 images and 1 PDF", repeatable: true),
                                  thread, provider, model, record],
                        access: .write,
                        action: .async { inv in try await launcher.ask(inv.arguments) }),
            CommandSpec("day", summary: "a day by meal with totals against goals (DATE: today, yesterday, -N, YYYY-MM-DD)",
                        details: "Shows a day of the journal by meal, with totals against your goals.\nDATE is today (default), yesterday, -N (N days ago) or YYYY-MM-DD.",
                        arguments: [PositionalSpec("DATE", .date, optional: true)],
                        options: [json],
                        access: .read,
                        action: journal(ctx, .read) { c, inv in try c.day(inv.arguments) }),
            CommandSpec("log", summary: "log an entry: manual nutrients, a Food Bank food (--food), a USDA reference food (--ref) or a packaged food by barcode (--barcode)",
                        synopsis: ["NAME --kcal N|--kj N [--protein G] [--carbs G] [--fat G] [--nutrient ID=VALUE]… [options]",
                                   "--food NAME_OR_ID [--amount \"QTY [UNIT]\" | --grams G] [options]",
                                   "--ref REF_ID [--portion TEXT | --grams G] [options]",
                                   "--barcode CODE [--amount \"1 bar\" | --grams G] [--refresh] [options]"],
                        details: "Common options: --date, --meal, --servings, --force, --json.",
                        arguments: [PositionalSpec("NAME", optional: true)],
                        options: [
                            .value("--kcal", "N", .number, "energy in kcal (manual entry)", excludes: ["--kj"]),
                            .value("--kj", "N", .number, "energy in kilojoules, stored as kcal (manual entry)"),
                            .value("--protein", "G", .number, "protein in grams (manual entry)"),
                            .value("--carbs", "G", .number, "carbohydrate in grams (manual entry)"),
                            .value("--fat", "G", .number, "fat in grams (manual entry)"),
                            .value("--nutrient", "ID=VALUE", .text, "another nutrient, e.g. sodium_mg=120 (manual entry)", repeatable: true),
                            .value("--brand", "TEXT", .text, "the brand (manual entry)"),
                            .value("--food", "NAME_OR_ID", .text, "log a Food Bank food"),
                            .value("--amount", "\"QTY [UNIT]\"", .text, "how much of the Food Bank food (servings without a unit)", excludes: ["--grams"]),
                            .value("--unit", "UNIT", .text, "the unit of --amount", requires: ["--amount"]),
                            .value("--ref", "REF_ID", .text, "log a USDA reference food (ids from ofj ref)"),
                            .value("--portion", "TEXT", .text, "a portion of the reference food, e.g. \"2 large\", \"1 cup\"", excludes: ["--grams"]),
                            .value("--barcode", "CODE", .text, "log a packaged food by its barcode (Food Bank, cache, then Open Food Facts)"),
                            .flag("--refresh", "with --barcode: ask Open Food Facts again instead of the cache"),
                            .value("--grams", "G", .number, "grams of the food (--ref without --portion: 100)"),
                            .value("--servings", "N", .number, "how many servings (multiplies the amount)", default: "1"),
                            .value("--date", "DATE", .date, "the day (today, yesterday, -N, YYYY-MM-DD)", default: "today"),
                            .value("--meal", "MEAL", .suggestions(meals), "breakfast, lunch, dinner or snack"),
                            .flag("--force", "log an entry over 5,000 kcal or 5 kg"),
                            json,
                        ],
                        modes: [
                            ModeSpec("manual entry", selector: nil, options: ["--brand", "--kcal", "--kj", "--protein", "--carbs", "--fat", "--nutrient"],
                                     takesArguments: true,
                                     hint: "a manual entry takes NAME with --kcal/--kj, --protein, --carbs, --fat, --nutrient, --brand"),
                            ModeSpec("food", selector: "--food", options: ["--food", "--amount", "--unit", "--grams"],
                                     hint: "with --food give the amount as --amount QTY [UNIT], --grams G or --servings N"),
                            ModeSpec("reference food", selector: "--ref", options: ["--ref", "--portion", "--grams"],
                                     hint: "with --ref give the amount as --portion TEXT (\"2 large\", \"1 cup\", \"8 fl oz\") or --grams G"),
                            // Runs before the table (PackagedCommands.handles, it needs the network); declared
                            // here so help, completion and the README show it.
                            ModeSpec("packaged food", selector: "--barcode", options: ["--barcode", "--amount", "--grams", "--refresh"],
                                     hint: "with --barcode give the amount as --amount \"1 bar\", --grams G or --servings N"),
                        ],
                        access: .write,
                        action: journal(ctx, .write) { c, inv in try c.log(inv.arguments) }),
            CommandSpec("foods", summary: "search the Food Bank (active foods when QUERY is empty, archived ones too otherwise)",
                        arguments: [PositionalSpec("QUERY", optional: true, variadic: true)],
                        options: [.value("--brand", "BRAND", .text, "only this brand"),
                                  .value("--sort", "ORDER", .choice(FoodSort.allCases.map(\.rawValue)), "the order", default: "name"),
                                  .value("--limit", "N", .integer(1...10_000), "at most N foods", default: "100"),
                                  json],
                        access: .read,
                        action: journal(ctx, .read) { c, inv in try c.foods(inv.arguments) }),
            CommandSpec("ref", summary: "search the bundled USDA SR28 reference foods (per 100 g, with household portions)",
                        arguments: [PositionalSpec("QUERY", variadic: true)],
                        options: [.value("--limit", "N", .integer(1...500), "at most N foods", default: "10"), json],
                        access: .read,
                        action: journal(ctx, .read, reference: true) { c, inv in try c.ref(inv.arguments) }),
            CommandSpec("barcode", summary: "look up a packaged food by barcode (EAN-8, EAN-13, UPC-A, UPC-E): your Food Bank, the local cache, then Open Food Facts",
                        arguments: [PositionalSpec("CODE")],
                        options: [json, .flag("--refresh", "ask Open Food Facts again instead of answering from the cache")],
                        action: .async { inv in
                            await PackagedCommands.main(PackagedCommands.words("barcode", inv.arguments), environment: ctx.environment, paths: ctx.paths, version: ctx.version)
                        }),
            CommandSpec("packaged", summary: "search packaged and branded foods: Open Food Facts (default) or USDA FoodData Central (--source fdc; FDC_API_KEY, DEMO_KEY by default)",
                        arguments: [PositionalSpec("QUERY", variadic: true)],
                        options: [.value("--source", "SOURCE", .choice(["off", "fdc"]), "where to search", default: "off"),
                                  .value("--limit", "N", .integer(1...50), "at most N products", default: "10"),
                                  json, .flag("--refresh", "search again instead of answering from the cache")],
                        action: .async { inv in
                            await PackagedCommands.main(PackagedCommands.words("packaged", inv.arguments), environment: ctx.environment, paths: ctx.paths, version: ctx.version)
                        }),
            CommandSpec("goals", summary: "show the daily goals",
                        options: [json],
                        subcommands: [
                            CommandSpec("set", summary: "set daily goals, e.g. energy_kcal=2200 protein_g=140 (VALUE none removes a goal)",
                                        arguments: [PositionalSpec("NUTRIENT=VALUE", variadic: true)],
                                        access: .write,
                                        action: journal(ctx, .write) { c, inv in try c.goals("set", inv.arguments) }),
                            CommandSpec("reset", summary: "remove every goal", access: .write,
                                        action: journal(ctx, .write) { c, inv in try c.goals("reset", inv.arguments) }),
                        ],
                        access: .read,
                        action: journal(ctx, .read) { c, inv in try c.goals(nil, inv.arguments) }),
            CommandSpec("backup", summary: "a versioned JSON backup of goals, Food Bank and journal (no secrets)",
                        details: "Import upserts by id: importing the same file twice changes nothing.",
                        subcommands: [
                            CommandSpec("export", summary: "write a JSON backup (stdout unless -o); --salvage saves what a damaged database still holds",
                                        options: [output, force,
                                                  .flag("--salvage", "read a damaged database row by row, save every row that can still be read, say how many could not")],
                                        access: .read,
                                        action: journal(ctx, .read) { c, inv in try c.backup("export", inv.arguments) }),
                            CommandSpec("import", summary: "import a backup; importing twice changes nothing",
                                        arguments: [PositionalSpec("FILE", .file)], access: .write,
                                        action: journal(ctx, .write) { c, inv in try c.backup("import", inv.arguments) }),
                        ]),
            CommandSpec("export", summary: "journal entries for spreadsheets",
                        subcommands: [
                            CommandSpec("csv", summary: "journal entries as CSV for spreadsheets",
                                        options: [output, .value("--from", "DATE", .date, "first day"), .value("--to", "DATE", .date, "last day"), force],
                                        access: .read,
                                        action: journal(ctx, .read) { c, inv in try c.export(inv.arguments) }),
                        ]),
            CommandSpec("diag", summary: "diagnostics delivery",
                        subcommands: [
                            CommandSpec("status", summary: "what is pending, delivered and dropped", access: .read,
                                        action: .async { _ in try await launcher.diag(.status) }),
                            CommandSpec("flush", summary: "deliver pending events now", access: .write,
                                        action: .async { _ in try await launcher.diag(.flush) }),
                            CommandSpec("export", summary: "the sink's events as CSV (--local: the outbox's pending events, no sink needed)",
                                        options: [.value("--since", "DURATION", .duration, "how far back (e.g. 14d, 48h, 30m)", default: "14d",
                                                         excludes: ["--local"]),
                                                  .flag("--local", "export the outbox's pending events instead of the sink's"),
                                                  output, force],
                                        access: .write,
                                        action: .async { inv in try await launcher.diag(.export(inv.arguments)) }),
                        ]),
            CommandSpec("replay", summary: "replay transcripts (see docs/TRANSCRIPTS.md)",
                        arguments: [PositionalSpec("FILE", .file, variadic: true)],
                        options: [.flag("--update", "rewrite each file with what the replay shows"), .flag("--quiet", "print only failures and the total")],
                        action: .async { inv in await ReplayCommand(version: ctx.version).run(inv.arguments) }),
            CommandSpec("mcp", summary: "serve the journal's tools and resources to an MCP client (Claude Code, Codex, Claude Desktop, …) over stdin/stdout; reads always, changes only with --allow-writes, each shown for approval",
                        options: [.flag("--allow-writes", "let the client propose changes (each previewed and approved, written exactly once)")],
                        action: .async { inv in
                            try await MCPCommand.run(inv.arguments.has("--allow-writes") ? ["--allow-writes"] : [], paths: ctx.paths, version: ctx.version)
                        }),
            CommandSpec("doctor", summary: "which providers are usable, and why not (never prints a key, nor credentials inside URLs); warns when the data folder is readable by other users; checks the database file (quick_check); exit 1 when config.json has a problem or the database is damaged",
                        action: .sync { _ in try launcher.doctor() }),
            CommandSpec("completion", summary: "print a shell completion script",
                        details: "  bash: ofj completion bash > ~/.local/share/bash-completion/completions/ofj\n  zsh:  ofj completion zsh > ~/.zfunc/_ofj\n  fish: ofj completion fish > ~/.config/fish/completions/ofj.fish",
                        arguments: [PositionalSpec("SHELL", .choice(CommandTable.shells))],
                        action: .sync { inv in
                            writeOut(table(ctx).completionScript(shell: inv.arguments.positionals[0]) ?? "", newline: false)
                            return 0
                        }),
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
                        }),
            CommandSpec("__readme-commands", summary: "README.md's command table", hidden: true,
                        action: .sync { _ in writeOut(table(ctx).markdownTable(), newline: false); return 0 }),
        ]
        return CommandTable(root: root, unknownCommandHint: "to ask one question: ofj ask \"…\"")
    }

    /// A journal command: opens the database (read-only for `.read`) and runs `body`.
    static func journal(_ ctx: CLIContext, _ access: DataAccess, reference: Bool = false,
                        _ body: @escaping @Sendable (JournalCommands, CommandInvocation) throws -> Void) -> CommandAction {
        .sync { inv in
            // Only `ref` and `log --ref` read the bundled reference foods; other commands do not
            // even locate the resource bundle (it shows in their start-up time).
            let needsReference = reference || inv.arguments.given("--ref")
            let referenceFoods = needsReference ? ReferenceDatabase.shared : nil
            if let referenceFoods {
                do { try referenceFoods.load() } catch { throw CLIError("the bundled reference foods could not be read (\(error)); reinstall ofj") }
            }
            let salvage = inv.arguments.given("--salvage")
            let commands = JournalCommands(journal: try openJournal(ctx, access: access, salvage: salvage), reference: referenceFoods,
                                           out: { writeOut($0) })
            try body(commands, inv)
            return 0
        }
    }

    static func openJournal(_ ctx: CLIContext, access: DataAccess, salvage: Bool = false) throws -> JournalStore {
        try ctx.paths.ensureDataDirectory()
        // A salvage reads a file that may be damaged: no check, no migration, no writes.
        let queue = try salvage ? OfjDatabase.openForSalvage(path: ctx.paths.databasePath)
            : OfjDatabase.open(path: ctx.paths.databasePath, access: access)
        return JournalStore(queue: queue, timeZone: .current)
    }
}
