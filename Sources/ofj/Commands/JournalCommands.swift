// `ofj day|log|foods|ref|goals|backup|export`: the journal without the assistant, for scripts;
// each command's spec, then the handlers.
import Agent
import Base
import CommandLineKit
import Foundation
import Journal
import Nutrition
import OutputSafety
import ReferenceFoods
import REPL
import Views

extension OfjCommands {
    static func day(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("day", summary: "a day by meal with totals against goals (DATE: today, yesterday, -N, YYYY-MM-DD)",
                    details: "Shows a day of the journal by meal, with totals against your goals.\nDATE is today (default), yesterday, -N (N days ago) or YYYY-MM-DD.",
                    arguments: [PositionalSpec("DATE", .date, optional: true)],
                    options: [.value("--pin", "IDS", .text, "the nutrients to show, e.g. energy_kcal,protein_g,water_g (default: config.json \"pinned\")"), .json],
                    subcommands: [dayMark(ctx)],
                    access: .read,
                    action: journal(ctx) { c, inv in
                        try c.day(inv.arguments, pinned: PinnedNutrients.chosen(inv.arguments, configPath: ctx.paths.configPath))
                    })
    }

    static func log(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("log", summary: "log an entry: manual nutrients, a Food Bank food (--food), a USDA reference food (--ref) or a packaged food by barcode (--barcode)",
                    synopsis: ["WORDS… [--yes] [options]",
                               "[NAME] --kcal N|--kj N [--protein G] [--carbs G] [--fat G] [--nutrient ID=VALUE]… [options]",
                               "--food NAME_OR_ID [--amount \"QTY [UNIT]\" | --grams G] [options]",
                               "--ref REF_ID [--portion TEXT | --grams G] [options]",
                               "--barcode CODE [--amount \"1 bar\" | --grams G] [--refresh] [options]"],
                    details: """
                        Common options: --date, --meal, --servings, --force, --json.
                        WORDS ("2 eggs and toast for breakfast") are read as the offline assistant reads them: each
                        food's card is shown and asked about on a terminal (--yes logs without asking).
                        Energy without a NAME logs a "Quick add" entry. A food logged with no amount gets the amount
                        it was logged with last time (said so); --serving logs its own serving instead.
                        """,
                    arguments: [PositionalSpec("NAME", optional: true, variadic: true)],
                    options: [
                        .value("--kcal", "N", .number, "energy in kcal (manual entry)", excludes: ["--kj"]),
                        .value("--kj", "N", .number, "energy in kilojoules, stored as kcal (manual entry)"),
                        .value("--protein", "G", .number, "protein in grams (manual entry)"),
                        .value("--carbs", "G", .number, "carbohydrate in grams (manual entry)"),
                        .value("--fat", "G", .number, "fat in grams (manual entry)"),
                        .value("--nutrient", "ID=VALUE", .text, "another nutrient, e.g. sodium_mg=120 (manual entry; with --food: this entry's value for the whole amount)", repeatable: true),
                        .value("--brand", "TEXT", .text, "the brand (manual entry)"),
                        .value("--food", "NAME_OR_ID", .dynamic("foods"), "log a Food Bank food (Tab offers the foods you log at this time of day first)"),
                        .value("--amount", "\"QTY [UNIT]\"", .text, "how much of the Food Bank food (servings without a unit)", excludes: ["--grams"]),
                        .value("--unit", "UNIT", .text, "the unit of --amount", requires: ["--amount"]),
                        .value("--ref", "REF_ID", .text, "log a USDA reference food (ids from ofj ref)"),
                        .value("--portion", "TEXT", .text, "a portion of the reference food, e.g. \"2 large\", \"1 cup\"", excludes: ["--grams"]),
                        .value("--barcode", "CODE", .text, "log a packaged food by its barcode (Food Bank, cache, then Open Food Facts)"),
                        .flag("--refresh", "with --barcode: ask Open Food Facts again instead of the cache"),
                        .value("--grams", "G", .number, "grams of the food (--ref without --portion: the amount last logged, else 100)"),
                        .value("--servings", "N", .number, "how many servings (multiplies the amount)", default: "1"),
                        .flag("--serving", "with --food or --ref and no amount: the food's own serving, not the amount last logged"),
                        .value("--date", "DATE", .date, "the day (today, yesterday, -N, YYYY-MM-DD)", default: "today"),
                        .value("--meal", "MEAL", .suggestions(mealNames), "breakfast, lunch, dinner or snack"),
                        .value("--at", "HH:MM", .text, "when it was eaten (24-hour; default: now); without --meal the meal schedule picks the meal"),
                        .flag("--force", "log an entry over 5,000 kcal or 5 kg"),
                        .flag("--yes", "with plain words: log what the cards show without asking (scripts; needed when there is no terminal)"),
                        .json,
                    ],
                    modes: [
                        ModeSpec("manual entry", selector: nil, options: ["--brand", "--kcal", "--kj", "--protein", "--carbs", "--fat", "--nutrient", "--yes"],
                                 takesArguments: true,
                                 hint: "a manual entry takes NAME with --kcal/--kj, --protein, --carbs, --fat, --nutrient, --brand"),
                        ModeSpec("food", selector: "--food", options: ["--food", "--amount", "--unit", "--grams", "--serving", "--nutrient"],
                                 hint: "with --food give the amount as --amount QTY [UNIT], --grams G or --servings N"),
                        ModeSpec("reference food", selector: "--ref", options: ["--ref", "--portion", "--grams", "--serving"],
                                 hint: "with --ref give the amount as --portion TEXT (\"2 large\", \"1 cup\", \"8 fl oz\") or --grams G"),
                        // Asks the Food Bank, the cache, then Open Food Facts (PackagedCommands.swift).
                        logBarcode(ctx),
                    ],
                    access: .write,
                    action: journal(ctx) { c, inv in try c.log(inv.arguments) })
    }

    static func foods(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("foods", summary: "search the Food Bank (active foods when QUERY is empty, archived ones too otherwise)",
                    details: "Ids are shown first; commands below take any unique prefix of one (or the food's exact name).",
                    arguments: [PositionalSpec("QUERY", optional: true, variadic: true)],
                    options: [.value("--brand", "BRAND", .text, "only this brand"),
                              .value("--sort", "ORDER", .choice(FoodSort.allCases.map(\.rawValue)), "the order", default: "name"),
                              .value("--limit", "N", .integer(1...10_000), "at most N foods", default: "100"),
                              .json],
                    subcommands: foodBankCommands(ctx),
                    access: .read,
                    action: journal(ctx) { c, inv in try c.foods(inv.arguments) })
    }

    static func ref(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("ref", summary: "search the bundled USDA SR28 reference foods (per 100 g, with household portions)",
                    arguments: [PositionalSpec("QUERY", variadic: true)],
                    options: [.value("--limit", "N", .integer(1...500), "at most N foods", default: "10"), .json],
                    access: .read,
                    action: journal(ctx, reference: true) { c, inv in try c.ref(inv.arguments) })
    }

    static func goals(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("goals", summary: "show the daily goals, each marked FDA (default), DRI (from your profile) or you (set by you)",
                    options: [.json],
                    subcommands: [
                        CommandSpec("set", summary: "set daily goals, e.g. energy_kcal=2200 protein_g=140 (VALUE none removes a goal)",
                                    arguments: [PositionalSpec("NUTRIENT=VALUE", variadic: true)],
                                    access: .write,
                                    action: journal(ctx) { c, inv in try c.goals("set", inv.arguments) }),
                        CommandSpec("reset", summary: "remove every goal", access: .write,
                                    action: journal(ctx) { c, inv in try c.goals("reset", inv.arguments) }),
                        goalsFromProfile(ctx),
                    ],
                    access: .read,
                    action: journal(ctx) { c, inv in try c.goals(nil, inv.arguments) })
    }

    static func backup(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("backup", summary: "a versioned JSON backup of goals, Food Bank and journal (no secrets)",
                    details: "Import upserts by id: importing the same file twice changes nothing.",
                    subcommands: [
                        CommandSpec("export", summary: "write a JSON backup (stdout unless -o); --salvage saves what a damaged database still holds",
                                    options: [.output, .force,
                                              .flag("--salvage", "read a damaged database row by row, save every row that can still be read, say how many could not"),
                                              .flag("--with-attachments", "also save attached images and PDFs (bytes, names, dates); left out otherwise")],
                                    access: .read,
                                    action: journal(ctx) { c, inv in try c.backup("export", inv.arguments) }),
                        CommandSpec("import", summary: "import a backup; importing twice changes nothing",
                                    arguments: [PositionalSpec("FILE", .file)], access: .write,
                                    action: journal(ctx) { c, inv in try c.backup("import", inv.arguments) }),
                    ])
    }

    static func export(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("export", summary: "journal entries (and day notes) for spreadsheets",
                    subcommands: [
                        CommandSpec("csv", summary: "journal entries as CSV for spreadsheets",
                                    options: [.output, .value("--from", "DATE", .date, "first day"), .value("--to", "DATE", .date, "last day"), .force],
                                    access: .read,
                                    action: journal(ctx) { c, inv in try c.export(inv.arguments) }),
                        CommandSpec("notes", summary: "day notes as CSV (id, day, time, text) for spreadsheets",
                                    options: [.output, .value("--from", "DATE", .date, "first day"), .value("--to", "DATE", .date, "last day"), .force],
                                    access: .read,
                                    action: journal(ctx) { c, inv in try c.export(inv.arguments, notes: true) }),
                    ])
    }
}

struct JournalCommands {
    let journal: JournalStore
    /// The reference foods, for `ref` and `log --ref` only.
    let reference: ReferenceDatabase?
    let out: (String) -> Void

    /// The name of an entry logged with energy and no name (`ofj log --kcal 450`).
    static let quickAddName = "Quick add"

    static var dayHelp: String { OfjCommands.usage("day") }
    static var logHelp: String { OfjCommands.usage("log") }
    static var goalsHelp: String { OfjCommands.usage("goals") }
    static var backupHelp: String { OfjCommands.usage("backup") }

    func parseDay(_ text: String?) throws -> CalendarDay {
        let today = journal.today()
        guard let text, !text.isEmpty else { return today }
        switch text.lowercased() {
        case "today": return today
        case "yesterday": return try today.adding(days: -1)
        default:
            if let n = Int(text), n <= 0 {
                guard n >= -36_500 else { throw CLIError("'\(text)' is more than 100 years ago; give a date as YYYY-MM-DD", status: 2) }
                return try today.adding(days: n)
            }
            do { return try CalendarDay(parsing: text) } catch {
                throw CLIError("invalid date '\(text.prefix(40))': use YYYY-MM-DD, today, yesterday or -N", status: 2)
            }
        }
    }

    func json<T: Encodable>(_ value: T) throws {
        out(TerminalText.escapingJSON(String(decoding: try JournalJSON.encoder.encode(value), as: UTF8.self)))
    }

    // MARK: - day

    func day(_ p: ParsedArguments, pinned: [String]? = nil) throws {
        guard p.positionals.count <= 1 else { throw CLIError("day takes one DATE at most\n" + Self.dayHelp, status: 2) }
        let day = try parseDay(p.positionals.first)
        let (view, notes, water) = try journal.queue.read { db in
            (try journal.dayView(day, in: db), try journal.notes(on: day, in: db), try journal.waterLogged(on: day, in: db))
        }
        if p.has("--json") {
            // Notes and water ride along (absent when there are none), the day's own shape unchanged.
            var shown = view
            shown.notes = notes.isEmpty ? nil : notes
            shown.waterML = water > 0 ? (water * 10).rounded() / 10 : nil
            try json(shown)
        } else {
            out(TerminalText.sanitize(JournalViews.day(view, today: journal.today(), ids: true, pinned: pinned, notes: notes, water: water)))
        }
    }

    // MARK: - log

    func log(_ p: ParsedArguments) throws {
        // Which options go with which mode (manual, --food, --ref) is declared in the command table.
        let servings = try positiveNumber(p.value("--servings") ?? "1", field: "--servings")
        let dayValue = try p.value("--date").map { try parseDay($0) }
        let (meal, mealLabel) = try p.value("--meal").map(mealOrCustom) ?? (nil, nil)
        let eatenAt = try p.value("--at").map { try parseEatenAt($0, day: dayValue) }
        let entry: Entry
        // Without an amount a food is logged as it was last time (issue 34 §1), said so.
        var sameAsLast: String?
        let noAmount = p.value("--servings") == nil && !p.has("--serving")
        if let foodKey = p.value("--food") {
            if p.value("--amount") != nil && p.value("--grams") != nil { throw CLIError("give --amount or --grams, not both", status: 2) }
            if p.value("--unit") != nil && p.value("--amount") == nil { throw CLIError("--unit goes with --amount QTY", status: 2) }
            let food = try findFood(foodKey)
            var amount = FoodAmount.servings(servings)
            if let g = p.value("--grams") {
                amount = .quantity(try positiveNumber(g, field: "--grams") * servings, .mass(.g))
            } else if let a = p.value("--amount") {
                let typed = a + (p.value("--unit").map { " " + $0 } ?? "")
                let parsed = try amountText(typed, field: "--amount")
                if parsed.unitText.isEmpty {
                    amount = .servings(parsed.quantity * servings)
                } else {
                    let unit: ServingUnit
                    do { unit = try ServingUnit.parse(parsed.unitText, extraCounts: food.measures.countNames) } catch {
                        throw CLIError("'\(JournalViews.safeName(String(parsed.unitText.prefix(30))))' is not a unit of \(JournalViews.safeName(food.name)): use g, oz, mL, cup, tbsp, or \(food.serving.unit.symbol)", status: 2)
                    }
                    amount = .quantity(parsed.quantity * servings, unit)
                }
            } else if noAmount, let last = try journal.lastAmount(of: food) {
                amount = last.amount
                sameAsLast = last.note + " (--serving for one serving)"
            }
            try requireOrdinarySize(food: food, amount: amount, force: p.has("--force"))
            // --nutrient overrides the food's value in this entry only (issue 34 §8).
            var overrides: [String: Double] = [:]
            for (id, v) in try nutrientPairs(p.values("--nutrient")) {
                overrides[id == "energy_kj" ? "energy_kcal" : id] = id == "energy_kj" ? v / 4.184 : v
            }
            entry = try journal.logFood(food.id, amount: amount, day: dayValue, meal: meal, eatenAt: eatenAt, overrides: overrides, mealLabel: mealLabel)
        } else if let refID = p.value("--ref") {
            guard let reference, let food = reference.food(id: refID) else {
                throw CLIError("no reference food with id '\(JournalViews.safeName(String(refID.prefix(20))))'; find ids with `ofj ref QUERY`")
            }
            if p.value("--portion") != nil && p.value("--grams") != nil { throw CLIError("give --portion or --grams, not both", status: 2) }
            let grams = try p.value("--grams").map { try positiveNumber($0, field: "--grams") }
            let portion = p.value("--portion")
            var amount = try JournalStore.referenceAmount(food, portion: portion, grams: grams ?? (portion == nil ? 100 : nil))
            var servings = servings
            if grams == nil, portion == nil, noAmount,
               let e = try journal.queue.read({ try journal.lastReferenceEntry(named: food.description, in: $0) }),
               let last = JournalStore.lastReferenceAmount(from: e) {
                (amount, servings) = (last.amount, last.servings)
                sameAsLast = "same as last time: \(last.label) (--serving for 100 g)"
            }
            try requireOrdinarySize(kcal: food.per100g("energy_kcal").map { $0 * amount.grams / 100 * servings },
                                    grams: amount.grams * servings, force: p.has("--force"))
            entry = try journal.logReferenceFood(food, amount: amount, servings: servings, day: dayValue, meal: meal, eatenAt: eatenAt, mealLabel: mealLabel)
            if sameAsLast == nil, let note = amount.note { sameAsLast = note }
        } else {
            // Words with no nutrients are read by the offline assistant (issue 34 §3).
            let manual = ["--kcal", "--kj", "--protein", "--carbs", "--fat", "--brand"].contains { p.value($0) != nil } || !p.values("--nutrient").isEmpty
            if !p.positionals.isEmpty && !manual {
                if p.value("--servings") != nil { throw CLIError("with plain words give the amount in the words (\"2 eggs\"), not --servings", status: 2) }
                if mealLabel != nil { throw CLIError("a meal of your own goes with --food, --ref or a manual entry (--kcal), not with plain words", status: 2) }
                if p.value("--at") != nil { throw CLIError("--at goes with --food, --ref or a manual entry (--kcal), not with plain words", status: 2) }
                try PlainWordsLog(journal: journal, out: out, ask: JournalOps.terminalAsk)
                    .run(p.positionals.joined(separator: " "), yes: p.has("--yes"), json: p.has("--json"), meal: meal?.rawValue, date: dayValue?.description)
                return
            }
            if p.has("--yes") { throw CLIError("--yes goes with plain words (ofj log \"2 eggs\" --yes)", status: 2) }
            // Energy with no name is a quick add (issue 34 §4), named as such.
            let quickAdd = p.positionals.isEmpty && (p.value("--kcal") != nil || p.value("--kj") != nil)
            guard quickAdd || p.positionals.count == 1, let name = p.positionals.first ?? (quickAdd ? Self.quickAddName : nil) else {
                throw CLIError("give the food's NAME (quote it), or --food / --ref\n" + Self.logHelp, status: 2)
            }
            var raw: [String: Double] = [:]
            for (flag, id) in [("--kcal", "energy_kcal"), ("--protein", "protein_g"), ("--carbs", "carbohydrate_g"), ("--fat", "fat_g")] {
                if let v = p.value(flag) { raw[id] = try nonNegativeNumber(v, field: flag) }
            }
            if let kj = p.value("--kj") {
                if raw["energy_kcal"] != nil { throw CLIError("give --kcal or --kj, not both", status: 2) }
                raw["energy_kj"] = try nonNegativeNumber(kj, field: "--kj")
            }
            for (id, v) in try nutrientPairs(p.values("--nutrient")) {
                guard raw[id] == nil else { throw CLIError("--nutrient \(id) is given twice; give it once", status: 2) }
                raw[id] = v
            }
            if raw["energy_kj"] != nil && raw["energy_kcal"] != nil { throw CLIError("give energy in kcal or in kJ, not both", status: 2) }
            guard raw["energy_kcal"] != nil || raw["energy_kj"] != nil else {
                throw CLIError("a manual entry needs --kcal or --kj (and ideally --protein, --carbs, --fat)", status: 2)
            }
            let nutrients = try NutrientAmounts(raw)
            try requireOrdinarySize(kcal: nutrients["energy_kcal"].map { $0 * servings }, grams: nil, force: p.has("--force"))
            let draft = EntryDraft(day: dayValue, meal: meal, name: name, brand: p.value("--brand"),
                                   servings: servings, nutrients: nutrients, source: .manual, eatenAt: eatenAt, mealLabel: mealLabel)
            entry = try journal.logEntry(draft)
        }
        if p.has("--json") { try json(entry) } else {
            out("Logged to \(TerminalText.sanitize(entry.mealName, keepNewlines: false)) on \(entry.day): " + TerminalText.sanitize(JournalViews.entryLine(entry)) + " (id \(JournalStore.shortID(entry.id)))"
                + (sameAsLast.map { "; " + TerminalText.sanitize($0) } ?? ""))
        }
    }

    /// `--nutrient ID=VALUE…` as canonical ids (kilojoules as `energy_kj`), each once.
    func nutrientPairs(_ pairs: [String]) throws -> [(String, Double)] {
        var out: [(String, Double)] = []
        for pair in pairs {
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2 else { throw CLIError("--nutrient takes ID=VALUE, e.g. sodium_mg=120", status: 2) }
            if NutrientAmounts.isKilojoules(kv[0]) == false { try requireKnownNutrient(kv[0]) }
            let id = NutrientAmounts.isKilojoules(kv[0]) ? "energy_kj" : NutrientCatalog.canonicalID(for: kv[0]) ?? kv[0]
            guard !out.contains(where: { $0.0 == id }) else {
                throw CLIError("--nutrient \(JournalViews.safeName(String(kv[0].prefix(40)))) is given twice; give it once", status: 2)
            }
            out.append((id, try nonNegativeNumber(kv[1], field: "--nutrient \(kv[0])")))
        }
        return out
    }

    /// `--at HH:MM` on `day` (today when nil) as a moment in the journal's time zone.
    func parseEatenAt(_ text: String, day: CalendarDay?) throws -> Date {
        guard let t = try? TimeOfDay(parsing: text.trimmingCharacters(in: .whitespaces)) else {
            throw CLIError("invalid time '\(JournalViews.safeName(String(text.prefix(20))))': use HH:MM on a 24-hour clock, e.g. 08:15 or 19:30", status: 2)
        }
        return journal.date(on: day ?? journal.today(), minute: t.minutes)
    }

    /// An entry over 5,000 kcal or 5 kg is most likely a typo: it needs --force.
    func requireOrdinarySize(kcal: Double?, grams: Double?, force: Bool) throws {
        guard !force, let excess = EntrySize.excess(kcal: kcal, grams: grams) else { return }
        throw CLIError("this entry would be \(excess), more than one entry usually is; check the amount, or add --force to log it anyway", status: 2)
    }

    func requireOrdinarySize(food: SavedFood, amount: FoodAmount, force: Bool) throws {
        guard !force else { return }
        switch amount {
        case .servings(let n):
            try requireOrdinarySize(kcal: food.nutrients["energy_kcal"].map { $0 * n }, grams: food.serving.grams.map { $0 * n }, force: false)
        case .quantity(let q, let unit):
            // An amount that does not convert is refused by the journal with its own line.
            guard let s = try? food.measures.servings(q, unit) else { return }
            try requireOrdinarySize(kcal: food.nutrients["energy_kcal"].map { $0 * s }, grams: food.measures.grams(q, unit), force: false)
        }
    }

    /// A nutrient a person types must be one ofj knows (a typo would otherwise be stored quietly);
    /// display names such as "Sodium" are accepted too.
    func requireKnownNutrient(_ id: String) throws {
        guard NutrientCatalog.nutrient(id) != nil || NutrientCatalog.canonicalID(for: id) != nil else {
            let close = NutrientCatalog.all.map(\.id).min { editDistance($0, id) < editDistance($1, id) } ?? "energy_kcal"
            throw CLIError("unknown nutrient '\(JournalViews.safeName(String(id.prefix(40))))' (did you mean \(close)?); ids look like energy_kcal, protein_g, sodium_mg", status: 2)
        }
    }

    /// A number option by the one decimal rule (`TypedNumber`: "1,5" = 1.5, "1,000" = 1000;
    /// "1.5,5" and "1/0" are refused with what to type).
    func typedNumber(_ text: String, field: String, rule: String) throws -> Double {
        let t = text.trimmingCharacters(in: .whitespaces)
        switch TypedNumber.read(t) {
        case .success(let v)?: return v
        case .failure(let problem)?:
            throw CLIError("\(field): \(JournalViews.safeName(problem.description)); \(problem.hint)", status: 2)
        case nil:
            throw CLIError("\(field) must be \(rule), not '\(JournalViews.safeName(String(t.prefix(20))))'", status: 2)
        }
    }

    func positiveNumber(_ text: String, field: String) throws -> Double {
        let v = try typedNumber(text, field: field, rule: "a number above zero")
        guard v.isFinite, v > 0 else { throw CLIError("\(field) must be a number above zero, not '\(JournalViews.safeName(String(text.prefix(20))))'", status: 2) }
        return v
    }

    func nonNegativeNumber(_ text: String, field: String) throws -> Double {
        let v = try typedNumber(text, field: field, rule: "a number, zero or more")
        guard v.isFinite, v >= 0 else { throw CLIError("\(field) must be a number, zero or more, not '\(JournalViews.safeName(String(text.prefix(20))))'", status: 2) }
        return v
    }

    /// An amount option ("1,5 cups", "150 g", "2") by the one amount parser; a refused number
    /// or a zero quantity is one line saying what was read and what to type.
    func amountText(_ text: String, field: String) throws -> AmountText {
        do { return try AmountText.read(text) } catch {
            throw CLIError("\(field): \(JournalViews.safeName(String(describing: error))); nothing was changed", status: 2)
        }
    }

    func findFood(_ key: String) throws -> SavedFood {
        if let id = UUID(uuidString: key), let f = try journal.food(id) { return f }
        let matches = try journal.searchFoods(key, limit: 5)
        if let exact = matches.first(where: { $0.food.name.lowercased() == key.lowercased() }) { return exact.food }
        guard let first = matches.first else { throw CLIError("no Food Bank food matches '\(key.prefix(40))'; see `ofj foods`") }
        guard matches.count == 1 else {
            throw CLIError("'\(key.prefix(40))' matches several foods (\(matches.prefix(3).map { JournalViews.safeName($0.food.name) }.joined(separator: ", "))…); use the exact name or its id")
        }
        return first.food
    }

    // MARK: - foods, ref, goals

    func foods(_ p: ParsedArguments) throws {
        let query = p.positionals.joined(separator: " ")
        var sort = FoodSort.name
        if let s = p.value("--sort") {
            guard let v = FoodSort(rawValue: s) else { throw CLIError("--sort takes \(FoodSort.allCases.map(\.rawValue).joined(separator: ", "))", status: 2) }
            sort = v
        }
        let items = try journal.searchFoods(query, brand: p.value("--brand"), sort: sort, limit: Int(p.value("--limit") ?? "") ?? 100)
        if p.has("--json") { try json(items) } else { out(TerminalText.sanitize(JournalViews.foods(items, query: query, ids: true))) }
    }

    func ref(_ p: ParsedArguments) throws {
        let query = p.positionals.joined(separator: " ")
        guard !query.trimmingCharacters(in: .whitespaces).isEmpty else { throw UsageError("give words to search for", command: "ofj ref") }
        guard let limit = Int(p.value("--limit") ?? "10"), limit > 0, limit <= 500 else { throw CLIError("--limit takes 1 to 500", status: 2) }
        let foods = reference?.search(query, limit: limit) ?? []
        if p.has("--json") {
            let items: [JSONValue] = foods.map { f in
                .object(["id": .string(f.id), "description": .string(f.description), "group": .string(f.group),
                         "per_100g": .object(f.nutrientsPer100g.mapValues { .number($0) }),
                         // Values USDA left empty, derived by its own rules, with the rule; never mixed into per_100g.
                         "derived_per_100g": .object(f.derivedPer100g.mapValues { .number($0) }),
                         "portions": .array(f.portions.map { .object(["label": .string($0.label), "grams": .number($0.gramWeight)]) })])
            }
            out(TerminalText.escapingJSON(JSONValue.array(items).serialized))
        } else {
            out(JournalViews.referenceFoods(foods, query: query))
        }
    }

    func goals(_ sub: String?, _ p: ParsedArguments) throws {
        let args = (sub.map { [$0] } ?? []) + p.positionals
        if args.first == "set" {
            var goals = try journal.goals()
            guard args.count > 1 else { throw CLIError(Self.goalsHelp, status: 2) }
            for pair in args.dropFirst() {
                let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard kv.count == 2 else { throw UsageError("'\(UsageError.quote(pair))' is not NUTRIENT=VALUE (e.g. energy_kcal=2200)", command: "ofj goals set") }
                try requireKnownNutrient(kv[0])
                let value: Double?
                if kv[1] == "none" { value = nil } else { value = try positiveNumber(kv[1], field: kv[0]) }
                goals = try goals.setting(kv[0], to: value)
            }
            try journal.setGoals(goals)
            out(TerminalText.sanitize(JournalViews.goals(try journal.goals(), sources: try journal.goalSources())))
            return
        }
        if args.first == "reset" {
            out(TerminalText.sanitize(JournalViews.goals(try journal.resetGoals(), sources: GoalSources())))
            return
        }
        guard p.positionals.isEmpty else { throw CLIError("unknown goals command '\(p.positionals[0].prefix(20))'\n" + Self.goalsHelp, status: 2) }
        if p.has("--json") { try json(try journal.goals()) } else {
            let (goals, sources) = try journal.queue.read { (try journal.goals(in: $0), try journal.goalSources(in: $0)) }
            out(TerminalText.sanitize(JournalViews.goals(goals, sources: sources)))
        }
    }

    // MARK: - backup, export

    func backup(_ sub: String, _ p: ParsedArguments) throws {
        switch sub {
        case "export" where p.has("--salvage") && p.has("--with-attachments"):
            throw CLIError("--salvage saves the journal only; leave out --with-attachments (or export attachments once the database is repaired)", status: 2)
        case "export" where p.has("--salvage"):
            let (doc, report) = try journal.queue.read { journal.salvageBackup(in: $0) }
            let data = try JournalJSON.encoder.encode(doc)
            let path = p.value("-o") ?? p.value("--output")
            try write(path == nil || path == "-" ? Data(TerminalText.escapingJSON(String(decoding: data, as: UTF8.self)).utf8) : data,
                      to: path, force: p.has("--force"))
            Console.err(Self.describe(report) + "\n")
        case "export":
            let data = p.has("--with-attachments") ? try exportWithAttachments() : try journal.exportBackup()
            let path = p.value("-o") ?? p.value("--output")
            // On stdout the JSON is escaped for the terminal without changing what it decodes to.
            try write(path == nil || path == "-" ? Data(TerminalText.escapingJSON(String(decoding: data, as: UTF8.self)).utf8) : data,
                      to: path, force: p.has("--force"))
        case "import":
            guard let path = p.positionals.first else { throw CLIError("backup import needs a FILE", status: 2) }
            guard let data = FileManager.default.contents(atPath: path) else { throw CLIError("cannot read \(path)") }
            // Attachments are checked before anything is written; journal and attachments go in one transaction.
            let copies = try Self.attachmentCopies(inBackup: data)
            let (r, restored) = try journal.queue.write { db in
                (try journal.importBackup(data, in: db),
                 try ConversationStore.restoreAttachments(db, copies, now: journal.now().timeIntervalSince1970))
            }
            if r.changedNothing {
                out("Nothing to change: everything in the backup is already here.")
            } else {
                out("Imported: \(r.entriesInserted) new and \(r.entriesUpdated) updated entries, \(r.foodsInserted) new and \(r.foodsUpdated) updated foods\(r.goalsChanged ? ", goals updated" : "").")
            }
            if !copies.isEmpty {
                out("Attachments: \(restored.restored) restored, \(restored.present) already here (kept by SHA-256; not linked to a conversation).")
            }
            if r.unknownIngredientLinks > 0 {
                out("Note: \(r.unknownIngredientLinks) composite ingredient(s) name a source food that is not in this journal; they were imported as snapshots.")
            }
        default:
            throw CLIError("unknown backup command '\(sub.prefix(20))'\n" + Self.backupHelp, status: 2)
        }
    }

    /// The backup with every stored attachment (`--with-attachments`).
    func exportWithAttachments() throws -> Data {
        try journal.queue.read { db in
            var doc = try journal.backup(in: db)
            doc.attachments = try ConversationStore.attachmentCopies(db).map { c in
                BackupAttachment(sha256: c.sha256, mediaType: c.format.mediaType, byteCount: c.bytes.count,
                                 data: Data(c.bytes).base64EncodedString(),
                                 attached: c.uses.map { BackupAttachment.Use(name: $0.name, attachedAt: Date(timeIntervalSince1970: $0.attachedAt)) })
            }
            return try JournalJSON.encoder.encode(doc)
        }
    }

    /// The attachments a backup file carries, each checked (type, size, hash, a complete file);
    /// none when the key is absent. A bad one stops the import before anything is written.
    static func attachmentCopies(inBackup data: Data) throws -> [AttachmentCopy] {
        struct Attachments: Decodable { let attachments: [BackupAttachment]? }
        // A file that is not a backup at all is reported by the journal import.
        guard let list = (try? JournalJSON.decoder.decode(Attachments.self, from: data))?.attachments else { return [] }
        return try list.enumerated().map { i, a in
            guard let bytes = Data(base64Encoded: a.data) else {
                throw CLIError("backup attachment \(i + 1): its data is not base64; nothing was imported. Export the backup again.")
            }
            do {
                return try AttachmentCopy.checked(sha256: a.sha256, mediaType: a.mediaType, byteCount: a.byteCount, bytes: Array(bytes),
                                                  uses: a.attached.map { AttachmentCopy.Use(name: $0.name, attachedAt: $0.attachedAt.timeIntervalSince1970) })
            } catch {
                throw CLIError("backup attachment \(i + 1): \(error); nothing was imported. Export the backup again.")
            }
        }
    }

    func export(_ p: ParsedArguments, notes: Bool = false) throws {
        let from = try p.value("--from").map { try parseDay($0) }
        let to = try p.value("--to").map { try parseDay($0) }
        if let from, let to, from > to { throw CLIError("--from \(from) is after --to \(to)", status: 2) }
        let csv = notes ? try journal.exportNotesCSV(from: from, to: to) : try journal.exportCSV(from: from, to: to)
        try write(Data(csv.utf8), to: p.value("-o") ?? p.value("--output"), force: p.has("--force"))
    }

    /// Writes to a file atomically (never over an existing one without --force), or to stdout.
    /// One line about a salvage: what was saved, what could not be read, what to do next.
    static func describe(_ r: SalvageReport) -> String {
        var saved = "Salvaged \(r.entriesSaved) entr\(r.entriesSaved == 1 ? "y" : "ies") and \(r.foodsSaved) food\(r.foodsSaved == 1 ? "" : "s")"
        if r.goalsSaved { saved += " and the goals" }
        var skipped: [String] = []
        if r.entriesSkipped > 0 { skipped.append("\(r.entriesSkipped) entr\(r.entriesSkipped == 1 ? "y" : "ies")") }
        if r.foodsSkipped > 0 { skipped.append("\(r.foodsSkipped) food\(r.foodsSkipped == 1 ? "" : "s")") }
        if r.goalsSkipped { skipped.append("the goals") }
        let lost = skipped.isEmpty ? "; nothing was unreadable" : "; could not read \(skipped.joined(separator: ", "))"
        let unlinked = r.entriesUnlinked == 0 ? "" : " (\(r.entriesUnlinked) of the entries were logged from a food that could not be read; they keep their nutrients)"
        return saved + lost + unlinked + ". Move the damaged file aside, then import the salvage with `ofj backup import FILE`."
    }

    func write(_ data: Data, to path: String?, force: Bool) throws {
        guard let path, path != "-" else {
            out(String(decoding: data, as: UTF8.self))
            return
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw CLIError("\(path) is a folder; give a file name", status: 2) }
            if !force { throw CLIError("\(path) already exists; choose another name or add --force to replace it") }
        }
        do {
            // Owner-only (0600) whatever the umask: backups and exports hold the journal.
            try PrivateFile.write(Array(data), to: path, overwrite: force)
        } catch {
            throw CLIError("cannot write \(path): check the folder exists and is writable")
        }
        out("Wrote \(path).")
    }
}

