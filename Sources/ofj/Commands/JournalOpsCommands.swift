// `ofj entry show|edit|move|delete`, `ofj foods add|edit|archive|unarchive|shelf` and `ofj import`
// (issue 23 §3): every journal operation without a model. Each change is the assistant's own write tool
// (update_journal_entry, save_food, …) run here: the same validation, the same card, the same
// journal store functions, so nothing the CLI writes bypasses what the tools check. Changes that
// alter or remove what is there ask first on a terminal; scripts pass --yes.
import Agent
import Base
import CommandLineKit
import Foundation
import Journal
import Nutrition
import NutritionTools
import OutputSafety
import PackagedFoods
import ReferenceFoods
import REPL
import Views
#if canImport(Glibc)
import Glibc
#endif

extension OfjCommands {
    static func entry(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("entry", summary: "one journal entry by id (any unique prefix; `ofj day` shows them)",
                    subcommands: [
                        CommandSpec("show", summary: "show an entry with its nutrients",
                                    arguments: [PositionalSpec("ID")], options: [.json], access: .read,
                                    action: ops(ctx) { o, inv in try o.entryShow(inv.arguments) }),
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
                                              .value("--meal", "MEAL", .suggestions(mealNames), "move it to this meal"),
                                              .yes, .json],
                                    access: .write,
                                    action: ops(ctx) { o, inv in try o.entryEdit(inv.arguments) }),
                        CommandSpec("move", summary: "move an entry to another day and/or meal; asks first on a terminal",
                                    arguments: [PositionalSpec("ID")],
                                    options: [.value("--date", "DATE", .date, "the day (today, yesterday, -N, YYYY-MM-DD)"),
                                              .value("--meal", "MEAL", .suggestions(mealNames), "breakfast, lunch, dinner or snack"), .yes, .json],
                                    access: .write,
                                    action: ops(ctx) { o, inv in try o.entryMove(inv.arguments) }),
                        CommandSpec("delete", summary: "delete an entry; asks first on a terminal",
                                    arguments: [PositionalSpec("ID")], options: [.yes, .json], access: .write,
                                    action: ops(ctx) { o, inv in try o.entryDelete(inv.arguments) }),
                    ])
    }

    /// `ofj foods add|edit|archive|unarchive|shelf` (`ofj foods` itself searches: JournalCommands.swift).
    static func foodBankCommands(_ ctx: CLIContext) -> [CommandSpec] {
        [
            CommandSpec("add", summary: "save a food: manual nutrients per serving, a serving size and brand, or a composite of Food Bank and reference foods (--ingredient, --cooked-weight); --barcode saves a packaged product",
                        synopsis: ["NAME --kcal N|--kj N [--protein G] [--carbs G] [--fat G] [--nutrient ID=VALUE]… [--serving \"QTY UNIT\"] [--grams G] [--brand TEXT] [--shelf] [--json]",
                                   "NAME --ingredient FOOD=AMOUNT|ref:ID=AMOUNT… [--cooked-weight 1.2kg] [--recipe-servings N] [--brand TEXT] [--shelf] [--json]",
                                   "--barcode CODE [--refresh] [--json]"],
                        arguments: [PositionalSpec("NAME", optional: true)],
                        options: foodOptions + [.value("--barcode", "CODE", .text, "save a packaged product by barcode (Open Food Facts)"),
                                                .flag("--refresh", "with --barcode: ask Open Food Facts again instead of the cache"), .json],
                        modes: [
                            ModeSpec("manual food", selector: nil, options: foodOptions.map(\.name), takesArguments: true,
                                     hint: "a food takes NAME with --kcal/--kj, --protein, --carbs, --fat, --nutrient, --serving, --ingredient"),
                            // Asks the Food Bank, the cache, then Open Food Facts (PackagedCommands.swift).
                            foodsAddBarcode(ctx),
                        ],
                        access: .write,
                        action: ops(ctx) { o, inv in try o.foodsAdd(inv.arguments) }),
            CommandSpec("edit", summary: "change a food (what is given changes; nutrients per serving); entries already logged keep theirs; asks first on a terminal",
                        arguments: [PositionalSpec("ID")],
                        options: [.value("--name", "TEXT", .text, "the new name")] + foodOptions + [.yes, .json],
                        access: .write,
                        action: ops(ctx) { o, inv in try o.foodsEdit(inv.arguments) }),
            CommandSpec("archive", summary: "archive a food by hand (hidden from the active list, still searchable); asks first on a terminal",
                        arguments: [PositionalSpec("ID")], options: [.yes, .json], access: .write,
                        action: ops(ctx) { o, inv in try o.foodsArchive(inv.arguments, archived: true) }),
            CommandSpec("unarchive", summary: "bring an archived food back; asks first on a terminal",
                        arguments: [PositionalSpec("ID")], options: [.yes, .json], access: .write,
                        action: ops(ctx) { o, inv in try o.foodsArchive(inv.arguments, archived: false) }),
            CommandSpec("shelf", summary: "list the Shelf (foods at home), or put a food on it (--off takes it off); asks first on a terminal",
                        arguments: [PositionalSpec("ID", optional: true)],
                        options: [.flag("--off", "take the food off the Shelf"), .yes, .json], access: .write,
                        action: ops(ctx) { o, inv in try o.foodsShelf(inv.arguments) }),
        ]
    }

    static func importDiary(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("import", summary: "import a diary from another app; importing a file twice adds nothing",
                    details: """
                        Supported: Cronometer's "Servings" export (Food & Recipe Entries) and MyFitnessPal's "Nutrition
                        Summary" export (one entry per meal); any other CSV with --map. Separators , ; or tab, decimal
                        commas, a UTF-8 BOM, CRLF and dates as YYYY-MM-DD, MM/DD/YYYY (--day-first: DD/MM/YYYY) or
                        DD.MM.YYYY are read. Each row is imported once (a stable hash of the row is kept).
                        Weigh-ins come from Cronometer's biometrics export and MyFitnessPal's progress export.
                        `ofj import FILE` tells the four exports apart by their header.
                        """,
                    arguments: [PositionalSpec("FILE", .file, optional: true)], options: importOptions,
                    subcommands: [
                        CommandSpec("cronometer", summary: "import Cronometer's servings export (Food & Recipe Entries CSV)",
                                    arguments: [PositionalSpec("FILE", .file)], options: importOptions, access: .write,
                                    action: ops(ctx) { o, inv in try o.importFile("cronometer", inv.arguments) }),
                        CommandSpec("myfitnesspal", summary: "import MyFitnessPal's Nutrition Summary export (one entry per meal)",
                                    arguments: [PositionalSpec("FILE", .file)], options: importOptions, access: .write,
                                    action: ops(ctx) { o, inv in try o.importFile("myfitnesspal", inv.arguments) }),
                        CommandSpec("csv", summary: "import any CSV: --map FIELD=COLUMN,… (FIELD: date, meal, name, amount, time, brand or a nutrient id such as energy_kcal, protein_g)",
                                    arguments: [PositionalSpec("FILE", .file)],
                                    options: [.value("--map", "FIELD=COLUMN,…", .text, "which column holds what, e.g. date=Date,name=Food,energy_kcal=Calories")] + importOptions,
                                    access: .write,
                                    action: ops(ctx) { o, inv in try o.importFile("csv", inv.arguments) }),
                    ],
                    access: .write,
                    action: ops(ctx) { o, inv in try o.importFile("detect", inv.arguments) })
    }

    /// What a food is made of, for `foods add` and `foods edit`.
    static let foodOptions: [OptionSpec] = [
        .value("--brand", "TEXT", .text, "the brand"),
        .value("--serving", "\"QTY UNIT\"", .text, "the serving the nutrients are for, e.g. \"1 cup\", \"30 g\" (default 1 serving)"),
        .value("--grams", "G", .number, "what one serving weighs"),
        .value("--kcal", "N", .number, "energy per serving in kcal", excludes: ["--kj"]),
        .value("--kj", "N", .number, "energy per serving in kJ (stored as kcal)"),
        .value("--protein", "G", .number, "protein per serving"),
        .value("--carbs", "G", .number, "carbohydrate per serving"),
        .value("--fat", "G", .number, "fat per serving"),
        .value("--nutrient", "ID=VALUE", .text, "another nutrient per serving, e.g. sodium_mg=120", repeatable: true),
        .value("--ingredient", "FOOD=AMOUNT", .text, "a Food Bank food (name, id or barcode:CODE) or a reference food (ref:ID) in a composite, e.g. \"oats=40 g\", \"ref:01077=200 g\"", repeatable: true),
        .value("--recipe-servings", "N", .number, "how many servings the composite makes (1 serving = 1/N of the batch)"),
        .value("--cooked-weight", "WEIGHT", .text, "what the whole cooked batch weighs, e.g. 1.2kg: then log it by grams of the cooked dish"),
        .flag("--shelf", "put it on the Shelf"),
    ]

    static let importOptions: [OptionSpec] = [
        .flag("--dry-run", "show what would be added and skipped, write nothing"),
        .flag("--day-first", "read dates like 03/04/2026 as day/month"),
        .json,
    ]

    /// A journal operation (issue 23): entry and food changes through the tools, imports.
    static func ops(_ ctx: CLIContext, _ body: @escaping @Sendable (JournalOps, CommandInvocation) throws -> Void) -> CommandAction {
        .sync { inv in
            try body(JournalOps(journal: try openJournal(ctx, inv), out: { writeOut($0) }, ask: JournalOps.terminalAsk), inv)
            return 0
        }
    }
}

struct JournalOps {
    let journal: JournalStore
    let out: (String) -> Void
    /// Answers a confirmation question; nil when there is no terminal to ask on.
    let ask: (@Sendable (String) -> Bool?)

    static let terminalAsk: @Sendable (String) -> Bool? = { question in
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        Console.err(question)
        guard let line = readLine(strippingNewline: true) else { return false }
        return ["y", "yes"].contains(line.trimmingCharacters(in: .whitespaces).lowercased())
    }

    var commands: JournalCommands { JournalCommands(journal: journal, reference: nil, out: out) }

    func json<T: Encodable>(_ value: T) throws { try commands.json(value) }

    // MARK: - Running a write tool

    /// Plans `tool` with `arguments`, shows its card, asks when `destructive` (unless --yes),
    /// then applies exactly the planned change in one transaction. Returns the tool's output.
    func run(_ toolName: String, _ arguments: [String: JSONValue], destructive: Bool, p: ParsedArguments, command: String) throws -> JSONValue {
        let registry = ToolRegistry(NutritionToolbox.makeTools(journal: journal, reference: ReferenceDatabase.shared))
        guard let tool = registry.tool(named: toolName) as? any WriteTool else { throw CLIError("internal: no tool \(toolName)") }
        let context = ToolContext(threadID: "cli", runID: "cli", callID: UUID().uuidString,
                                  now: WallTime(secondsSince1970: journal.now().timeIntervalSince1970))
        let applied: ToolOutput?
        var asking: ((String) -> Bool?)?
        if destructive && !p.has("--yes") { asking = { [ask] in ask($0) } }
        do {
            applied = try Self.confirmAndApply(tool, arguments: .object(arguments), context: context, journal: journal,
                                               ask: asking, question: "Go ahead? [y/N] ",
                                               command: command, json: p.has("--json"), out: out)
        } catch let e as ToolArgumentError {
            throw CLIError(Self.explain(e), status: 2)
        }
        guard let output = applied else { throw CLIError("nothing was changed", status: 1) }
        guard !output.isError else { throw CLIError(output.summary) }
        return (try? JSONValue.parse(output.content)) ?? .null
    }

    /// The one way a command changes the journal through a write tool: plan the change, show its
    /// card (asking `question` first when `ask` is given; nil from it means no terminal: the card
    /// is shown and nothing is written), then apply
    /// exactly the planned change once. Returns nil when the person declined; argument errors are
    /// thrown as `ToolArgumentError` for the caller to word.
    static func confirmAndApply(_ tool: any WriteTool, arguments: JSONValue, context: ToolContext, journal: JournalStore,
                                ask: ((String) -> Bool?)?, question: String, command: String, json: Bool,
                                out: (String) -> Void) throws -> ToolOutput? {
        let planned = try journal.queue.read { try tool.preview(arguments: arguments, context: context, database: $0) }
        let card = TerminalText.sanitize(planned.card)
        if let ask {
            switch ask(card + "\n" + question) {
            case nil:
                // No terminal: show what would have been asked about, and write nothing.
                if !json { out(card) }
                throw CLIError("\(command) changes your journal and there is no terminal to ask on; add --yes to do it without asking")
            case false?:
                return nil
            case true?:
                break
            }
        } else if !json {
            out(card)
        }
        let output: ToolOutput
        do {
            output = try journal.queue.write { try tool.apply(planned, context: context, database: $0) }
        } catch let e as ChangeConflict {
            throw CLIError("nothing was changed: \(e.message) while this ran; run the command again")
        }
        if !json && !output.isError { out("✓ " + TerminalText.sanitize(output.summary, keepNewlines: false)) }
        return output
    }

    /// A tool's argument error in command-line words: "food_id" is the ID, "servings" --servings.
    static func explain(_ e: ToolArgumentError) -> String {
        let names = ["entry_id": "ID", "food_id": "ID", "servings": "--servings", "date": "--date", "meal": "--meal", "name": "NAME",
                     "brand": "--brand", "nutrients": "the nutrients", "serving_unit": "--serving", "serving_quantity": "--serving",
                     "ingredients": "--ingredient", "recipe_servings": "--recipe-servings",
                     "cooked_grams": "--cooked-weight"]
        guard let field = e.field else { return e.message }
        let root = String(field.prefix { $0 != "[" && $0 != "." })
        // "nutrients.energy_kcal" names the nutrient; "ingredients[1].unit" the ingredient.
        let rest = field.dropFirst(root.count)
        if root == "nutrients", rest.hasPrefix(".") { return "\(rest.dropFirst()): \(e.message)" }
        if root == "ingredients", rest.hasPrefix("["), let n = Int(rest.dropFirst().prefix { $0.isNumber }) {
            return "--ingredient \(n + 1): \(e.message)"
        }
        return "\(names[root] ?? field): \(e.message)"
    }

    // MARK: - Ids

    func entry(_ key: String) throws -> Entry {
        switch try journal.entry(idPrefix: key) {
        case .one(let e): return e
        case .none:
            throw CLIError("no entry has an id starting with '\(JournalViews.safeName(String(key.prefix(40))))'; `ofj day` shows the ids")
        case .several(let list, let total):
            let shown = list.map { "\($0.id.uuidString.lowercased()) \(JournalViews.safeName(String($0.name.prefix(30)))) (\($0.day))" }
            throw CLIError("'\(JournalViews.safeName(String(key.prefix(40))))' matches \(total) entries: \(shown.joined(separator: ", "))\(total > list.count ? ", …" : ""); type more of the id")
        }
    }

    /// A food by id prefix, or by name as `ofj log --food` finds it.
    func food(_ key: String) throws -> SavedFood {
        switch try journal.food(idPrefix: key) {
        case .one(let f): return f
        case .several(let list, let total):
            let shown = list.map { "\($0.id.uuidString.lowercased()) \(JournalViews.safeName(String($0.name.prefix(30))))" }
            throw CLIError("'\(JournalViews.safeName(String(key.prefix(40))))' matches \(total) foods: \(shown.joined(separator: ", "))\(total > list.count ? ", …" : ""); type more of the id")
        case .none:
            return try commands.findFood(key)
        }
    }

    // MARK: - entry

    func entryShow(_ p: ParsedArguments) throws {
        let e = try entry(p.positionals[0])
        if p.has("--json") { try json(e); return }
        out(TerminalText.sanitize(JournalViews.entryDetail(e)))
    }

    func entryEdit(_ p: ParsedArguments) throws {
        let e = try entry(p.positionals[0])
        var args: [String: JSONValue] = ["entry_id": .string(e.id.uuidString)]
        if let n = p.value("--name") { args["name"] = .string(n) }
        if let b = p.value("--brand") { args["brand"] = .string(b) }
        var servings = e.servings
        if let s = p.value("--servings") {
            servings = try commands.positiveNumber(s, field: "--servings")
            args["servings"] = .number(servings)
        }
        if let a = p.value("--amount") {
            guard p.value("--servings") == nil else { throw CLIError("give --amount or --servings, not both", status: 2) }
            servings = try servingsOf(a, entry: e)
            args["servings"] = .number(servings)
        }
        if let changed = try nutrientOptions(p, base: e.nutrients.scaled(by: servings)) { args["nutrients"] = changed }
        if let d = p.value("--date") { args["date"] = .string(try commands.parseDay(d).description) }
        if let m = p.value("--meal") { args["meal"] = .string(try meal(m).rawValue) }
        guard args.count > 1 else {
            throw UsageError("give what to change: --name, --brand, --servings, --amount, --kcal, --protein, --carbs, --fat, --nutrient, --date or --meal", command: "ofj entry edit")
        }
        let result = try run("update_journal_entry", args, destructive: true, p: p, command: "ofj entry edit")
        if p.has("--json") { try json(try journal.entry(e.id) ?? e) }
        _ = result
    }

    /// Servings for "150 g", "2 cups" or "2" of an entry: through the Food Bank food it was logged
    /// from when there is one (its measures), else the entry's own serving.
    func servingsOf(_ text: String, entry e: Entry) throws -> Double {
        let typed = try commands.amountText(text, field: "--amount")
        if typed.unitText.isEmpty { return typed.quantity }
        let measures = try e.savedFoodID.flatMap { try journal.food($0) }?.measures ?? FoodMeasures(serving: e.serving)
        do {
            let unit = try ServingUnit.parse(typed.unitText, extraCounts: measures.countNames)
            return try measures.servings(typed.quantity, unit)
        } catch {
            throw CLIError("'\(JournalViews.safeName(String(typed.unitText.prefix(30))))' does not convert to this entry's serving (\(JournalViews.safeName(e.serving.label))); give --servings N or an amount in \(e.serving.unit.symbol)", status: 2)
        }
    }

    /// --kcal/--kj/--protein/--carbs/--fat/--nutrient merged over `base` (the entry's or food's
    /// amounts); nil when none is given.
    func nutrientOptions(_ p: ParsedArguments, base: NutrientAmounts) throws -> JSONValue? {
        var raw: [String: Double] = [:]
        for (flag, id) in [("--kcal", "energy_kcal"), ("--protein", "protein_g"), ("--carbs", "carbohydrate_g"), ("--fat", "fat_g")] {
            if let v = p.value(flag) { raw[id] = try commands.nonNegativeNumber(v, field: flag) }
        }
        if let kj = p.value("--kj") {
            raw["energy_kcal"] = try commands.nonNegativeNumber(kj, field: "--kj") / NutrientAmounts.kilojoulesPerKcal
        }
        for pair in p.values("--nutrient") {
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2 else { throw CLIError("--nutrient takes ID=VALUE, e.g. sodium_mg=120", status: 2) }
            let isKJ = NutrientAmounts.isKilojoules(kv[0])
            if !isKJ { try commands.requireKnownNutrient(kv[0]) }
            let id = isKJ ? "energy_kcal" : NutrientCatalog.canonicalID(for: kv[0]) ?? kv[0]
            let v = try commands.nonNegativeNumber(kv[1], field: "--nutrient \(kv[0])")
            raw[id] = isKJ ? v / NutrientAmounts.kilojoulesPerKcal : v
        }
        guard !raw.isEmpty else { return nil }
        var merged = base.values
        for (k, v) in raw { merged[k] = v.rounded(places: 6) }
        return .object(merged.mapValues { .number($0) })
    }

    func meal(_ text: String) throws -> Meal {
        do { return try Meal(parsing: text) } catch { throw CLIError("invalid meal '\(text.prefix(40))': use breakfast, lunch, dinner or snack", status: 2) }
    }

    func entryMove(_ p: ParsedArguments) throws {
        let e = try entry(p.positionals[0])
        var args: [String: JSONValue] = ["entry_id": .string(e.id.uuidString)]
        if let d = p.value("--date") { args["date"] = .string(try commands.parseDay(d).description) }
        if let m = p.value("--meal") { args["meal"] = .string(try meal(m).rawValue) }
        guard args.count > 1 else { throw UsageError("give --date DATE, --meal MEAL or both", command: "ofj entry move") }
        _ = try run("move_journal_entry", args, destructive: true, p: p, command: "ofj entry move")
        if p.has("--json") { try json(try journal.entry(e.id) ?? e) }
    }

    func entryDelete(_ p: ParsedArguments) throws {
        let e: Entry
        do { e = try entry(p.positionals[0]) } catch {
            // A stored row the usual lookup cannot read (a non-UUID id, a day that is no day):
            // it is addressed by its exact id (or a unique prefix) and removed as it is.
            guard try deleteStoredRow(p) else { throw error }
            return
        }
        _ = try run("delete_journal_entry", ["entry_id": .string(e.id.uuidString)], destructive: true, p: p, command: "ofj entry delete")
        if p.has("--json") { try json(["deleted": e]) }
    }

    /// `ofj entry delete` for a row that breaks the journal's rules (`ofj doctor` names them):
    /// false when `key` names no such row, so the usual "no entry" error stands.
    func deleteStoredRow(_ p: ParsedArguments) throws -> Bool {
        let key = p.positionals[0]
        let (ids, problem) = try journal.queue.read { db -> ([String], String?) in
            let ids = try journal.storedEntryIDs(matching: key, in: db)
            return (ids, ids.count == 1 ? try journal.problemWithStoredEntry(id: ids[0], in: db) : nil)
        }
        guard ids.count == 1, let problem else { return false }
        let shown = JournalViews.safeName(String(ids[0].prefix(60)))
        if !p.has("--yes") {
            switch ask("Delete the stored entry row '\(shown)'? It cannot be read (\(problem)), so it is removed as it is and cannot be undone.\nGo ahead? [y/N] ") {
            case nil: throw CLIError("ofj entry delete changes your journal and there is no terminal to ask on; add --yes to do it without asking")
            case false?: throw CLIError("nothing was changed", status: 1)
            case true?: break
            }
        }
        guard try journal.queue.write({ try journal.deleteStoredEntryRow(id: ids[0], in: $0) }) else {
            throw CLIError("the row '\(shown)' is no longer there; nothing was changed")
        }
        if p.has("--json") { try json(["deleted_row": ids[0]]) } else { out("✓ deleted the stored entry row '\(shown)'") }
        return true
    }

    // MARK: - foods

    /// save_food's arguments from the add/edit options (name, brand, serving, nutrients, ingredients).
    func foodArguments(_ p: ParsedArguments, existing: SavedFood?) throws -> [String: JSONValue] {
        var args: [String: JSONValue] = [:]
        if let existing { args["food_id"] = .string(existing.id.uuidString) }
        if let n = p.value("--name") ?? (existing == nil ? p.positionals.first : nil) { args["name"] = .string(n) }
        if let b = p.value("--brand") { args["brand"] = .string(b) }
        if let s = p.value("--serving") {
            let typed = try commands.amountText(s, field: "--serving")
            if let meant = ServingUnit.measureTypo(typed.unitText) {
                throw CLIError("--serving: '\(JournalViews.safeName(String(typed.unitText.prefix(20))))' is not a unit ofj knows (did you mean \(meant)?); use g, oz, mL, cup, tbsp or a count word like \"bar\"", status: 2)
            }
            args["serving_quantity"] = .number(typed.quantity)
            args["serving_unit"] = .string(typed.unitText.isEmpty ? "serving" : typed.unitText)
        }
        if let g = p.value("--grams") { args["serving_grams"] = .number(try commands.positiveNumber(g, field: "--grams")) }
        if let changed = try nutrientOptions(p, base: existing?.nutrients ?? NutrientAmounts()) { args["nutrients"] = changed }
        let ingredients = p.values("--ingredient")
        if !ingredients.isEmpty {
            args["ingredients"] = .array(try ingredients.map(ingredient))
        }
        if let r = p.value("--recipe-servings") { args["recipe_servings"] = .number(try commands.positiveNumber(r, field: "--recipe-servings")) }
        if let w = p.value("--cooked-weight") {
            guard !ingredients.isEmpty || existing?.kind == .composite else {
                throw CLIError("--cooked-weight is for a cooked dish made of --ingredient foods (a composite)", status: 2)
            }
            args["cooked_grams"] = .number(try cookedGrams(w))
        }
        if p.has("--shelf") { args["on_shelf"] = .bool(true) }
        return args
    }

    /// "1.2kg", "1200 g", "42 oz" (a bare number is grams): the whole cooked batch in grams.
    func cookedGrams(_ text: String) throws -> Double {
        let usage = "--cooked-weight is what the whole cooked batch weighs, between 1 g and 100 kg, e.g. --cooked-weight 1.2kg or \"1200 g\"; nothing was changed"
        guard let typed = try? AmountText.read(text) else { throw CLIError(usage, status: 2) }
        let grams: Double
        switch typed.measure {
        case .mass(let u)? where typed.descriptor.isEmpty: grams = typed.quantity * u.grams
        case nil where typed.unitText.isEmpty: grams = typed.quantity
        default:
            throw CLIError(usage, status: 2)
        }
        guard grams.isFinite, grams >= 1, grams <= SavedFood.maxCookedGrams else { throw CLIError(usage, status: 2) }
        return grams
    }

    /// "FOOD=QTY [UNIT]": a Food Bank food (name or id) and how much of it; without a unit, servings.
    /// "ref:ID=AMOUNT": a USDA reference food and a weight or portion ("200 g", "1 cup", "2 large").
    func ingredient(_ text: String) throws -> JSONValue {
        guard let eq = text.lastIndex(of: "=") else {
            throw CLIError("--ingredient takes FOOD=AMOUNT or ref:ID=AMOUNT, e.g. --ingredient \"oats=40 g\" or --ingredient \"ref:01077=200 g\"", status: 2)
        }
        let key = String(text[..<eq]).trimmingCharacters(in: .whitespaces)
        let amount = String(text[text.index(after: eq)...])
        if key.lowercased().hasPrefix("ref:") {
            let refID = String(key.dropFirst(4)).trimmingCharacters(in: .whitespaces)
            let shown = JournalViews.safeName(String(refID.prefix(20)))
            guard ReferenceDatabase.shared.food(id: refID) != nil else {
                throw CLIError("--ingredient ref:\(shown): no reference food has that id; find ids with `ofj ref QUERY`; nothing was changed", status: 2)
            }
            let typed = try commands.amountText(amount, field: "--ingredient ref:\(shown)")
            guard !typed.unitText.isEmpty else {
                throw CLIError("--ingredient ref:\(shown): give the amount with a unit or portion, e.g. \"ref:\(shown)=200 g\" or \"ref:\(shown)=1 cup\"", status: 2)
            }
            return .object(["ref_id": .string(refID), "amount": .string(amount.trimmingCharacters(in: .whitespaces))])
        }
        let food: SavedFood
        if key.lowercased().hasPrefix("barcode:") {
            // A packaged product saved to the Food Bank (`ofj foods add --barcode CODE`), by its code.
            let code = String(key.dropFirst(8)).trimmingCharacters(in: .whitespaces)
            let shown = JournalViews.safeName(String(code.prefix(20)))
            guard let barcode = try? Barcode(code) else {
                throw CLIError("--ingredient barcode:\(shown): not a barcode (8, 12 or 13 digits with a valid check digit); nothing was changed", status: 2)
            }
            guard let saved = try journal.food(barcode: barcode.code) else {
                throw CLIError("--ingredient barcode:\(shown): no Food Bank food has that barcode; save it first with `ofj foods add --barcode \(shown)`; nothing was changed", status: 2)
            }
            food = saved
        } else {
            food = try self.food(key)
        }
        let typed = try commands.amountText(amount, field: "--ingredient \(JournalViews.safeName(String(key.prefix(30))))")
        let quantity = typed.unitText.isEmpty ? typed.quantity * food.serving.quantity : typed.quantity
        let unit = typed.unitText.isEmpty ? food.serving.unit.symbol : typed.unitText
        // An amount the food cannot be measured in is named here, in the food's own terms.
        if food.kind != .calculator, !typed.unitText.isEmpty,
           (try? food.measures.servings(quantity, ServingUnit.parse(unit, extraCounts: food.measures.countNames))) == nil {
            throw CLIError("--ingredient \(JournalViews.safeName(String(key.prefix(30)))): \(JournalViews.safeName(String(amount.prefix(30)).trimmingCharacters(in: .whitespaces))) does not convert to \(JournalViews.safeName(food.name)) (serving \(JournalViews.safeName(food.serving.label))); give it in \(food.serving.unit.symbol) or servings (a bare number); nothing was changed", status: 2)
        }
        return .object(["food_id": .string(food.id.uuidString), "quantity": .number(quantity), "unit": .string(unit)])
    }

    func foodsAdd(_ p: ParsedArguments) throws {
        guard p.positionals.count == 1 else {
            throw UsageError("give the food's NAME (quote it), or --barcode CODE", command: "ofj foods add")
        }
        let args = try foodArguments(p, existing: nil)
        let result = try run("save_food", args, destructive: false, p: p, command: "ofj foods add")
        try showFood(result["saved"]?["id"]?.stringValue, p)
    }

    func foodsEdit(_ p: ParsedArguments) throws {
        let food = try food(p.positionals[0])
        let args = try foodArguments(p, existing: food)
        guard args.count > 1 else {
            throw UsageError("give what to change: --name, --brand, --serving, --grams, --kcal, --protein, --carbs, --fat, --nutrient, --ingredient, --recipe-servings, --cooked-weight or --shelf", command: "ofj foods edit")
        }
        _ = try run("save_food", args, destructive: true, p: p, command: "ofj foods edit")
        try showFood(food.id.uuidString, p)
    }

    func foodsArchive(_ p: ParsedArguments, archived: Bool) throws {
        let food = try food(p.positionals[0])
        _ = try run("set_food_archived", ["food_id": .string(food.id.uuidString), "archived": .bool(archived)], destructive: true, p: p,
                    command: archived ? "ofj foods archive" : "ofj foods unarchive")
        try showFood(food.id.uuidString, p)
    }

    func foodsShelf(_ p: ParsedArguments) throws {
        guard let key = p.positionals.first else {
            let foods = try journal.shelfFoods()
            if p.has("--json") { try json(foods); return }
            out(foods.isEmpty ? "Nothing is on your Shelf; put a food there with `ofj foods shelf ID`."
                : TerminalText.sanitize("Shelf\n" + JournalViews.foods(foods.map { FoodBankItem(listing: $0, status: .active) }, query: "", ids: true)))
            return
        }
        let food = try food(key)
        let on = !p.has("--off")
        _ = try run("set_food_on_shelf", ["food_id": .string(food.id.uuidString), "on_shelf": .bool(on)], destructive: true, p: p,
                    command: "ofj foods shelf")
        try showFood(food.id.uuidString, p)
    }

    func showFood(_ id: String?, _ p: ParsedArguments) throws {
        guard p.has("--json") else {
            if let id { out("  id \(id.lowercased())") }
            return
        }
        guard let id, let uuid = UUID(uuidString: id), let food = try journal.food(uuid) else { throw CLIError("the food was saved but could not be read back") }
        try json(food)
    }
}

// MARK: - import

extension JournalOps {
    /// `ofj import cronometer|myfitnesspal|csv FILE`.
    func importFile(_ formatName: String, _ p: ParsedArguments) throws {
        let format: ImportFormat
        switch formatName {
        case "cronometer": format = .cronometer
        case "myfitnesspal": format = .myFitnessPal
        case "detect":
            guard let path = p.positionals.first else {
                throw UsageError("ofj import needs a FILE (or cronometer|myfitnesspal|csv FILE)", command: "ofj import")
            }
            do { format = try JournalStore.detectImportFormat(path) } catch let e as ImportFileError { throw CLIError(e.description) }
        default:
            guard let text = p.value("--map") else {
                throw UsageError("ofj import csv needs --map FIELD=COLUMN,… (e.g. --map date=Date,name=Food,energy_kcal=Calories)", command: "ofj import csv")
            }
            format = .csv(try Self.parseMap(text))
        }
        let options = ImportOptions(format: format, dryRun: p.has("--dry-run"), dayFirst: p.has("--day-first"))
        let report: ImportReport
        do { report = try journal.importFile(p.positionals[0], options: options) } catch let e as ImportFileError {
            throw CLIError(e.description)
        } catch let e as JournalError {
            throw e
        } catch {
            // A write failed part way (disk full, locked): the batches before it are committed.
            throw CLIError("the import stopped: \(OfjDatabase.explain("\(error)")); the rows written before it are kept, and running the same command again adds only the rest")
        }
        if p.has("--json") { try json(report); return }
        out(TerminalText.sanitize(ImportViews.report(report)))
    }

    /// "date=Date,name=Food Name,energy_kcal=Energy (kcal)": FIELD=COLUMN pairs split at commas
    /// outside double quotes (a column whose name holds a comma is quoted).
    static func parseMap(_ text: String) throws -> [String: String] {
        var pairs: [String] = []
        var current = ""
        var quoted = false
        for c in text {
            if c == "\"" { quoted.toggle(); continue }
            if c == "," && !quoted { pairs.append(current); current = ""; continue }
            current.append(c)
        }
        pairs.append(current)
        var map: [String: String] = [:]
        for pair in pairs where !pair.trimmingCharacters(in: .whitespaces).isEmpty {
            guard let eq = pair.firstIndex(of: "=") else {
                throw UsageError("--map takes FIELD=COLUMN pairs separated by commas, not '\(UsageError.quote(pair))'", command: "ofj import csv")
            }
            let field = pair[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
            let column = pair[pair.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            guard !field.isEmpty, !column.isEmpty else {
                throw UsageError("--map: '\(UsageError.quote(pair))' needs a FIELD and a COLUMN", command: "ofj import csv")
            }
            guard map[field] == nil else { throw UsageError("--map names \(field) twice; give it once", command: "ofj import csv") }
            map[field] = column
        }
        guard !map.isEmpty else { throw UsageError("--map is empty", command: "ofj import csv") }
        return map
    }
}
