// ofj's command line: every command, its arguments, options and help, next to its handler.
// Parsing, `--help`, "did you mean", shell completion and README.md's command table all come
// from this table (README.md is checked against `ofj __readme-commands` by the tests).
import Base
import Foundation
import Journal
import Nutrition
import OutputSafety
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
        let record = OptionSpec.value("--record", "FILE", .file, "save the session as a transcript for a bug report (contains your journal and attached files, never keys)")
        let json = OptionSpec.flag("--json", "print JSON")
        let output = OptionSpec.value("--output", short: "-o", "FILE", .file, "write to FILE instead of stdout")
        let force = OptionSpec.flag("--force", "replace an existing file")
        let yes = OptionSpec.flag("--yes", "do it without asking (scripts; needed when there is no terminal)")
        let foodOptions: [OptionSpec] = [
            .value("--brand", "TEXT", .text, "the brand"),
            .value("--serving", "\"QTY UNIT\"", .text, "the serving the nutrients are for, e.g. \"1 cup\", \"30 g\" (default 1 serving)"),
            .value("--grams", "G", .number, "what one serving weighs"),
            .value("--kcal", "N", .number, "energy per serving in kcal", excludes: ["--kj"]),
            .value("--kj", "N", .number, "energy per serving in kJ (stored as kcal)"),
            .value("--protein", "G", .number, "protein per serving"),
            .value("--carbs", "G", .number, "carbohydrate per serving"),
            .value("--fat", "G", .number, "fat per serving"),
            .value("--nutrient", "ID=VALUE", .text, "another nutrient per serving, e.g. sodium_mg=120", repeatable: true),
            .value("--ingredient", "FOOD=AMOUNT", .text, "a Food Bank food (name or id) in a composite, e.g. \"oats=40 g\"", repeatable: true),
            .value("--recipe-servings", "N", .number, "how many servings the composite makes"),
            .flag("--shelf", "put it on the Shelf"),
        ]
        let importOptions: [OptionSpec] = [
            .flag("--dry-run", "show what would be added and skipped, write nothing"),
            .flag("--day-first", "read dates like 03/04/2026 as day/month"),
            json,
        ]

        var root = CommandSpec("ofj", summary: "start the assistant (REPL); --resume reopens the last thread; --record FILE saves the session as a transcript for a bug report (contains your journal and attached files, never keys)",
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
            CommandSpec("ask", summary: "one turn without the REPL; writes are refused unless --yes or an allow rule in config.json (an \"always\" for a thread given in the REPL does not count; a deny rule refuses even with --yes), and each write made is shown as a ✓ line (also when the answer fails afterwards); --json prints the event stream as JSON lines; TEXT from stdin when piped or `-`",
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
            CommandSpec("trend", summary: "bars of a nutrient per day, week or month against its goal (default: calories over 14 days); days without entries stay blank",
                        details: """
                            One bar per day (--days), ISO week (--weeks) or month (--months) ending today, with its value and
                            % of the goal; the goal is a │ (| in ASCII). Week and month bars are averages a day over the days
                            that report the nutrient. NUTRIENT: energy_kcal (default), protein, sodium_mg, "vitamin d", …
                            Colour only on a terminal without NO_COLOR; ASCII when the locale is not UTF-8.
                            """,
                        arguments: [PositionalSpec("NUTRIENT", .suggestions(NutrientCatalog.all.map(\.id)), optional: true, variadic: true)],
                        options: [.value("--days", "N", .integer(1...3_660), "one bar per day for the last N days", default: "14",
                                         excludes: ["--weeks", "--months"]),
                                  .value("--weeks", "N", .integer(1...520), "one bar per week for the last N weeks", excludes: ["--months"]),
                                  .value("--months", "N", .integer(1...120), "one bar per month for the last N months"),
                                  json],
                        access: .read,
                        action: journal(ctx, .read) { c, inv in try c.trend(inv.arguments, environment: ctx.environment) }),
            CommandSpec("month", summary: "a calendar of a month: each day's calories as % of the goal, with a glyph (default: this month)",
                        arguments: [PositionalSpec("YYYY-MM", optional: true)],
                        access: .read,
                        action: journal(ctx, .read) { c, inv in try c.month(inv.arguments, environment: ctx.environment) }),
            CommandSpec("gaps", summary: "nutrients averaging below 80% of their Daily Value, with foods that bring the most per 100 kcal",
                        options: [.value("--days", "N", .integer(1...366), "the last N days", default: "14"), json],
                        access: .read,
                        action: journal(ctx, .read, reference: true) { c, inv in try c.gaps(inv.arguments) }),
            CommandSpec("report", summary: "a self-contained HTML report to share: energy and macros against goals, nutrients below their Daily Value (default: the last 30 days)",
                        details: "One HTML file with inline CSS and SVG charts: no scripts, nothing fetched. Not medical advice.",
                        options: [.value("--from", "DATE", .date, "first day (default: 29 days before --to)"),
                                  .value("--to", "DATE", .date, "last day", default: "today"),
                                  .value("--output", short: "-o", "FILE", .file, "the HTML file to write (- for stdout)"), force],
                        access: .read,
                        action: journal(ctx, .read) { c, inv in try c.report(inv.arguments) }),
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
            CommandSpec("entry", summary: "one journal entry by id (any unique prefix; `ofj day` shows them)",
                        subcommands: [
                            CommandSpec("show", summary: "show an entry with its nutrients",
                                        arguments: [PositionalSpec("ID")], options: [json], access: .read,
                                        action: ops(ctx, .read) { o, inv in try o.entryShow(inv.arguments) }),
                            CommandSpec("edit", summary: "change an entry's name, brand, amount, nutrients (for the whole entry), date or meal; asks first on a terminal",
                                        arguments: [PositionalSpec("ID")],
                                        options: [.value("--name", "TEXT", .text, "the new name"),
                                                  .value("--brand", "TEXT", .text, "the new brand (\"\" removes it)"),
                                                  .value("--servings", "N", .number, "how many servings", excludes: ["--amount"]),
                                                  .value("--amount", "\"QTY [UNIT]\"", .text, "how much, converted through the food's measures (e.g. \"150 g\")"),
                                                  .value("--kcal", "N", .number, "energy of the whole entry in kcal", excludes: ["--kj"]),
                                                  .value("--kj", "N", .number, "energy of the whole entry in kJ (stored as kcal)"),
                                                  .value("--protein", "G", .number, "protein of the whole entry"),
                                                  .value("--carbs", "G", .number, "carbohydrate of the whole entry"),
                                                  .value("--fat", "G", .number, "fat of the whole entry"),
                                                  .value("--nutrient", "ID=VALUE", .text, "another nutrient of the whole entry, e.g. sodium_mg=120", repeatable: true),
                                                  .value("--date", "DATE", .date, "move it to this day"),
                                                  .value("--meal", "MEAL", .suggestions(meals), "move it to this meal"),
                                                  yes, json],
                                        access: .write,
                                        action: ops(ctx, .write) { o, inv in try o.entryEdit(inv.arguments) }),
                            CommandSpec("move", summary: "move an entry to another day and/or meal; asks first on a terminal",
                                        arguments: [PositionalSpec("ID")],
                                        options: [.value("--date", "DATE", .date, "the day (today, yesterday, -N, YYYY-MM-DD)"),
                                                  .value("--meal", "MEAL", .suggestions(meals), "breakfast, lunch, dinner or snack"), yes, json],
                                        access: .write,
                                        action: ops(ctx, .write) { o, inv in try o.entryMove(inv.arguments) }),
                            CommandSpec("delete", summary: "delete an entry; asks first on a terminal",
                                        arguments: [PositionalSpec("ID")], options: [yes, json], access: .write,
                                        action: ops(ctx, .write) { o, inv in try o.entryDelete(inv.arguments) }),
                        ]),
            CommandSpec("foods", summary: "search the Food Bank (active foods when QUERY is empty, archived ones too otherwise)",
                        details: "Ids are shown first; commands below take any unique prefix of one (or the food's exact name).",
                        arguments: [PositionalSpec("QUERY", optional: true, variadic: true)],
                        options: [.value("--brand", "BRAND", .text, "only this brand"),
                                  .value("--sort", "ORDER", .choice(FoodSort.allCases.map(\.rawValue)), "the order", default: "name"),
                                  .value("--limit", "N", .integer(1...10_000), "at most N foods", default: "100"),
                                  json],
                        subcommands: [
                            CommandSpec("add", summary: "save a food: manual nutrients per serving, a serving size and brand, or a composite of Food Bank foods (--ingredient); --barcode saves a packaged product",
                                        synopsis: ["NAME --kcal N|--kj N [--protein G] [--carbs G] [--fat G] [--nutrient ID=VALUE]… [--serving \"QTY UNIT\"] [--grams G] [--brand TEXT] [--shelf] [--json]",
                                                   "NAME --ingredient FOOD=AMOUNT… [--recipe-servings N] [--brand TEXT] [--shelf] [--json]",
                                                   "--barcode CODE [--json]"],
                                        arguments: [PositionalSpec("NAME", optional: true)],
                                        options: foodOptions + [.value("--barcode", "CODE", .text, "save a packaged product by barcode (Open Food Facts)"), json],
                                        modes: [
                                            ModeSpec("manual food", selector: nil, options: foodOptions.map(\.name), takesArguments: true,
                                                     hint: "a food takes NAME with --kcal/--kj, --protein, --carbs, --fat, --nutrient, --serving, --ingredient"),
                                            // Runs before the table (PackagedCommands.handles, it needs the network).
                                            ModeSpec("packaged food", selector: "--barcode", options: ["--barcode"],
                                                     hint: "with --barcode give only the CODE (and --json)"),
                                        ],
                                        access: .write,
                                        action: ops(ctx, .write) { o, inv in try o.foodsAdd(inv.arguments) }),
                            CommandSpec("edit", summary: "change a food (what is given changes; nutrients per serving); entries already logged keep theirs; asks first on a terminal",
                                        arguments: [PositionalSpec("ID")],
                                        options: [.value("--name", "TEXT", .text, "the new name")] + foodOptions + [yes, json],
                                        access: .write,
                                        action: ops(ctx, .write) { o, inv in try o.foodsEdit(inv.arguments) }),
                            CommandSpec("archive", summary: "archive a food by hand (hidden from the active list, still searchable); asks first on a terminal",
                                        arguments: [PositionalSpec("ID")], options: [yes, json], access: .write,
                                        action: ops(ctx, .write) { o, inv in try o.foodsArchive(inv.arguments, archived: true) }),
                            CommandSpec("unarchive", summary: "bring an archived food back; asks first on a terminal",
                                        arguments: [PositionalSpec("ID")], options: [yes, json], access: .write,
                                        action: ops(ctx, .write) { o, inv in try o.foodsArchive(inv.arguments, archived: false) }),
                            CommandSpec("shelf", summary: "list the Shelf (foods at home), or put a food on it (--off takes it off); asks first on a terminal",
                                        arguments: [PositionalSpec("ID", optional: true)],
                                        options: [.flag("--off", "take the food off the Shelf"), yes, json], access: .write,
                                        action: ops(ctx, .write) { o, inv in try o.foodsShelf(inv.arguments) }),
                        ],
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
            CommandSpec("undo", summary: "undo the last change to the journal (or the last N), after showing what it did and what undoing restores; asks y/n on a terminal (--yes for scripts); undo again redoes it",
                        details: "Every change to the journal, Food Bank and goals is recorded with what it replaced, whoever made it (the assistant, ofj mcp, a command).\nUndo refuses, changing nothing, when what the change wrote was changed since.",
                        arguments: [PositionalSpec("N", .integer(1...1000), optional: true)],
                        options: [.flag("--yes", "undo without asking (for scripts)")],
                        access: .write,
                        action: .sync { inv in
                            let journal = try openJournal(ctx, access: .write)
                            let count = inv.arguments.positionals.first.flatMap { Int($0) } ?? 1
                            return try UndoCommand.run(journal: journal, count: count, yes: inv.arguments.has("--yes"), ask: UndoCommand.terminalAsk,
                                                       killInside: ctx.environment["OFJ_FAULT"] == "inside_undo_transaction", out: { writeOut($0) })
                        }),
            CommandSpec("backup", summary: "a versioned JSON backup of goals, Food Bank and journal (no secrets)",
                        details: "Import upserts by id: importing the same file twice changes nothing.",
                        subcommands: [
                            CommandSpec("export", summary: "write a JSON backup (stdout unless -o); --salvage saves what a damaged database still holds",
                                        options: [output, force,
                                                  .flag("--salvage", "read a damaged database row by row, save every row that can still be read, say how many could not"),
                                                  .flag("--with-attachments", "also save attached images and PDFs (bytes, names, dates); left out otherwise")],
                                        access: .read,
                                        action: journal(ctx, .read) { c, inv in try c.backup("export", inv.arguments) }),
                            CommandSpec("import", summary: "import a backup; importing twice changes nothing",
                                        arguments: [PositionalSpec("FILE", .file)], access: .write,
                                        action: journal(ctx, .write) { c, inv in try c.backup("import", inv.arguments) }),
                        ]),
            CommandSpec("import", summary: "import a diary from another app; importing a file twice adds nothing",
                        details: """
                            Supported: Cronometer's "Servings" export (Food & Recipe Entries) and MyFitnessPal's "Nutrition
                            Summary" export (one entry per meal); any other CSV with --map. Separators , ; or tab, decimal
                            commas, a UTF-8 BOM, CRLF and dates as YYYY-MM-DD, MM/DD/YYYY (--day-first: DD/MM/YYYY) or
                            DD.MM.YYYY are read. Each row is imported once (a stable hash of the row is kept).
                            """,
                        subcommands: [
                            CommandSpec("cronometer", summary: "import Cronometer's servings export (Food & Recipe Entries CSV)",
                                        arguments: [PositionalSpec("FILE", .file)], options: importOptions, access: .write,
                                        action: ops(ctx, .write) { o, inv in try o.importFile("cronometer", inv.arguments) }),
                            CommandSpec("myfitnesspal", summary: "import MyFitnessPal's Nutrition Summary export (one entry per meal)",
                                        arguments: [PositionalSpec("FILE", .file)], options: importOptions, access: .write,
                                        action: ops(ctx, .write) { o, inv in try o.importFile("myfitnesspal", inv.arguments) }),
                            CommandSpec("csv", summary: "import any CSV: --map FIELD=COLUMN,… (FIELD: date, meal, name, amount, time, brand or a nutrient id such as energy_kcal, protein_g)",
                                        arguments: [PositionalSpec("FILE", .file)],
                                        options: [.value("--map", "FIELD=COLUMN,…", .text, "which column holds what, e.g. date=Date,name=Food,energy_kcal=Calories")] + importOptions,
                                        access: .write,
                                        action: ops(ctx, .write) { o, inv in try o.importFile("csv", inv.arguments) }),
                        ]),
            CommandSpec("export", summary: "journal entries for spreadsheets",
                        subcommands: [
                            CommandSpec("csv", summary: "journal entries as CSV for spreadsheets",
                                        options: [output, .value("--from", "DATE", .date, "first day"), .value("--to", "DATE", .date, "last day"), force],
                                        access: .read,
                                        action: journal(ctx, .read) { c, inv in try c.export(inv.arguments) }),
                        ]),
            CommandSpec("search", summary: "full-text search of threads (messages, titles, tool activity) and journal entries, newest first; each word matches the start of a word",
                        details: "Thread results show the thread, the date and the words around the match; journal results the day, meal and entry.\nIn the REPL: /search TEXT, then /open N opens the thread of result N.",
                        arguments: [PositionalSpec("TEXT", variadic: true)],
                        options: [.flag("--threads", "only threads", excludes: ["--journal"]), .flag("--journal", "only journal entries"),
                                  .value("--limit", "N", .integer(1...500), "at most N results of each kind", default: "20"), json],
                        access: .read,
                        action: threads(ctx, .read) { c, inv in try c.search(inv.arguments) }),
            CommandSpec("threads", summary: "list the assistant's threads, newest first",
                        options: [.value("--limit", "N", .integer(1...10_000), "at most N threads", default: "50"), json],
                        subcommands: [
                            CommandSpec("list", summary: "list the assistant's threads, newest first",
                                        options: [.value("--limit", "N", .integer(1...10_000), "at most N threads", default: "50"), json],
                                        access: .read,
                                        action: threads(ctx, .read) { c, inv in try c.list(inv.arguments) }),
                            CommandSpec("show", summary: "a thread as Markdown (--json: as JSON), with tool activity and approvals",
                                        arguments: [PositionalSpec("ID")], options: [json], access: .read,
                                        action: threads(ctx, .read) { c, inv in try c.show(inv.arguments) }),
                            CommandSpec("delete", summary: "delete a thread with its messages; asks on a terminal (--yes does not ask)",
                                        arguments: [PositionalSpec("ID")], options: [.flag("--yes", "delete without asking")], access: .write,
                                        action: threads(ctx, .write) { c, inv in try c.delete(inv.arguments, confirm: ThreadCommands.askOnTerminal) }),
                            CommandSpec("export", summary: "write a thread as Markdown or JSON (stdout unless -o; the file is private, 0600); never keys",
                                        arguments: [PositionalSpec("ID")],
                                        options: [.value("--format", "md|json", .choice(["md", "json"]), "the format", default: "md"), output, force],
                                        access: .read,
                                        action: threads(ctx, .read) { c, inv in try c.export(inv.arguments) }),
                        ],
                        access: .read,
                        action: threads(ctx, .read) { c, inv in try c.list(inv.arguments) }),
            CommandSpec("meals", summary: "show the meal schedule: when breakfast, lunch and dinner start (the default meal of a new entry)",
                        options: [json],
                        subcommands: [
                            CommandSpec("set", summary: "set meal start times in config.json, e.g. breakfast=06:30 lunch=12:00 dinner=18:30",
                                        arguments: [PositionalSpec("MEAL=HH:MM", variadic: true)],
                                        action: .sync { inv in
                                            let s = try MealConfig.set(inv.arguments.positionals, configPath: ctx.paths.configPath)
                                            writeOut(MealConfig.describe(s, configured: true))
                                            return 0
                                        }),
                            CommandSpec("reset", summary: "back to the default schedule (breakfast 02:00, lunch 12:00, dinner 18:00)",
                                        action: .sync { _ in
                                            try MealConfig.reset(configPath: ctx.paths.configPath)
                                            writeOut(MealConfig.describe(.standard, configured: false))
                                            return 0
                                        }),
                        ],
                        action: .sync { inv in
                            let loaded = MealConfig.load(configPath: ctx.paths.configPath)
                            if let problem = loaded.problem { throw CLIError(problem) }
                            if inv.arguments.has("--json") {
                                writeOut(TerminalText.escapingJSON(PrettyJSON.format(MealConfig.json(loaded.schedule))).trimmingCharacters(in: .newlines))
                            } else {
                                writeOut(MealConfig.describe(loaded.schedule, configured: loaded.configured))
                            }
                            return 0
                        }),
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
            CommandSpec("sync", summary: "sync the journal with a Turso (libSQL) database: push local changes, then pull the other machines' (OFJ_SYNC_URL, OFJ_SYNC_TOKEN)",
                        subcommands: [
                            CommandSpec("status", summary: "last success, pending local changes, remote position, conflicts resolved", access: .read,
                                        action: .sync { _ in try SyncCommand.status(paths: ctx.paths, environment: ctx.environment) }),
                            CommandSpec("conflicts", summary: "local edits a newer edit from another machine replaced", access: .read,
                                        action: .sync { _ in try SyncCommand.conflicts(paths: ctx.paths) }),
                        ],
                        access: .write,
                        action: .async { _ in try await SyncCommand.run(paths: ctx.paths, environment: ctx.environment, version: ctx.version) }),
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

    /// A threads or search command: opens the database (read-only for `.read`) and runs `body`.
    static func threads(_ ctx: CLIContext, _ access: DataAccess,
                        _ body: @escaping @Sendable (ThreadCommands, CommandInvocation) throws -> Void) -> CommandAction {
        .sync { inv in
            try body(ThreadCommands(journal: try openJournal(ctx, access: access)), inv)
            return 0
        }
    }

    /// A journal operation (issue 23): entry and food changes through the tools, imports.
    static func ops(_ ctx: CLIContext, _ access: DataAccess,
                    _ body: @escaping @Sendable (JournalOps, CommandInvocation) throws -> Void) -> CommandAction {
        .sync { inv in
            let ops = JournalOps(journal: try openJournal(ctx, access: access), out: { writeOut($0) }, ask: JournalOps.terminalAsk)
            try body(ops, inv)
            return 0
        }
    }

    static func openJournal(_ ctx: CLIContext, access: DataAccess, salvage: Bool = false) throws -> JournalStore {
        try ctx.paths.ensureDataDirectory()
        // A salvage reads a file that may be damaged: no check, no migration, no writes.
        let queue = try salvage ? OfjDatabase.openForSalvage(path: ctx.paths.databasePath)
            : OfjDatabase.open(path: ctx.paths.databasePath, access: access)
        return JournalStore(queue: queue, timeZone: .current, mealSchedule: MealConfig.load(configPath: ctx.paths.configPath).schedule)
    }
}
