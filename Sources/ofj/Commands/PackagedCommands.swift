// `ofj barcode`, `ofj packaged`, `ofj log --barcode`, `ofj foods add --barcode`: packaged foods
// from Open Food Facts / FoodData Central, answered from the Food Bank and the cache first. The
// last two are modes of `log` and `foods add`, declared here beside their handlers.
import Base
import CommandLineKit
import Foundation
import HTTP
import Journal
import Nutrition
import OutputSafety
import PackagedFoods
import REPL
import Views

extension OfjCommands {
    static func barcode(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("barcode", summary: "look up a packaged food by barcode (EAN-8, EAN-13, UPC-A, UPC-E): your Food Bank, the local cache, then Open Food Facts",
                    arguments: [PositionalSpec("CODE")],
                    options: [.json, .flag("--refresh", "ask Open Food Facts again instead of answering from the cache")],
                    // Answers are cached in the database.
                    access: .write,
                    action: packaged(ctx) { c, p in try await c.barcode(p) })
    }

    static func packaged(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("packaged", summary: "search packaged and branded foods: Open Food Facts (default) or USDA FoodData Central (--source fdc; FDC_API_KEY, DEMO_KEY by default)",
                    arguments: [PositionalSpec("QUERY", variadic: true)],
                    options: [.value("--source", "SOURCE", .choice(["off", "fdc"]), "where to search", default: "off"),
                              .value("--limit", "N", .integer(1...50), "at most N products", default: "10"),
                              .json, .flag("--refresh", "search again instead of answering from the cache")],
                    access: .write,
                    action: packaged(ctx) { c, p in try await c.packaged(p) })
    }

    /// `ofj log --barcode CODE`: a mode of `ofj log` (JournalCommands.swift) with its own handler.
    static func logBarcode(_ ctx: CLIContext) -> ModeSpec {
        ModeSpec("packaged food", selector: "--barcode", options: ["--barcode", "--amount", "--grams", "--refresh"],
                 hint: "with --barcode give the amount as --amount \"1 bar\", --grams G or --servings N",
                 access: .write, action: packaged(ctx) { c, p in try await c.logBarcode(p) })
    }

    /// `ofj foods add --barcode CODE`: a mode of `ofj foods add` (JournalOpsCommands.swift).
    static func foodsAddBarcode(_ ctx: CLIContext) -> ModeSpec {
        ModeSpec("packaged food", selector: "--barcode", options: ["--barcode", "--refresh"],
                 hint: "with --barcode give only the CODE (and --refresh, --json)",
                 access: .write, action: packaged(ctx) { c, p in try await c.addBarcode(p) })
    }

    /// A packaged-food command: the journal, the cache and the clients over one database, opened as
    /// the spec declares. Packaged-food errors are one line (2 for a barcode that cannot be one).
    static func packaged(_ ctx: CLIContext, _ body: @escaping @Sendable (PackagedCommands, ParsedArguments) async throws -> Void) -> CommandAction {
        .async { inv in
            do {
                let queue = try openDatabase(ctx, inv)
                let journal = JournalStore(queue: queue, timeZone: .current, mealSchedule: MealConfig.load(configPath: ctx.paths.configPath).schedule)
                let foods = PackagedFoods(transport: CurlTransport(), config: PackagedConfig.fromEnvironment(ctx.environment, version: ctx.version),
                                          store: PackagedStore(queue: queue))
                try await body(PackagedCommands(journal: journal, foods: foods, out: { writeOut($0) }), inv.arguments)
                return 0
            } catch let e as PackagedError {
                writeErr(e.description)
                if case .invalidBarcode = e { return 2 }
                return 1
            } catch let e as PackagedPortion.Problem {
                writeErr(e.description)
                return 2
            }
        }
    }
}

struct PackagedCommands {
    let journal: JournalStore
    let foods: PackagedFoods
    let out: (String) -> Void

    // MARK: - Shared

    struct Found {
        var product: PackagedProduct
        var origin: AnswerOrigin
        var savedFood: SavedFood?
    }

    static func barcode(_ text: String) throws -> Barcode {
        do { return try Barcode(text) } catch { throw PackagedError.invalidBarcode(error) }
    }

    /// The product for a barcode: the Food Bank, then the cache, then Open Food Facts.
    func find(_ code: Barcode, refresh: Bool) async throws -> Found {
        if !refresh, let saved = try journal.food(barcode: code.code) {
            return Found(product: PackagedCommands.product(saved, barcode: code.code), origin: .foodBank, savedFood: saved)
        }
        let result = try await foods.lookup(code, refresh: refresh)
        guard let product = result.product else {
            throw CLIError("no product with barcode \(code.code) in Open Food Facts; log it by hand or add it at openfoodfacts.org")
        }
        return Found(product: product, origin: result.origin, savedFood: nil)
    }

    /// A saved food shown like a product (per serving only).
    static func product(_ f: SavedFood, barcode: String) -> PackagedProduct {
        PackagedProduct(source: .openFoodFacts, id: barcode, barcode: barcode, name: f.name, brand: f.brand,
                        per100: NutrientAmounts(), perServing: f.nutrients, serving: f.serving, servingText: nil, packageQuantity: nil)
    }

    func attribution(_ found: Found) {
        if case .foodBank = found.origin { return }
        for line in PackagedText.attribution([found.product.source]) { out(line) }
    }

    func json<T: Encodable>(_ value: T) throws {
        out(TerminalText.escapingJSON(String(decoding: try JournalJSON.encoder.encode(value), as: UTF8.self)))
    }

    struct ProductJSON: Encodable {
        var product: PackagedProduct
        var origin: String
        var fetchedAt: Date?
        var savedFoodID: UUID?
        var attribution: String?
        enum CodingKeys: String, CodingKey {
            case product, origin, fetchedAt = "fetched_at", savedFoodID = "saved_food_id", attribution
        }
        init(_ f: Found) {
            product = f.product
            savedFoodID = f.savedFood?.id
            switch f.origin {
            case .network: origin = "network"
            case .cache(let at): origin = "cache"; fetchedAt = at
            case .foodBank: origin = "food_bank"
            }
            if case .foodBank = f.origin {} else { attribution = f.product.source.attribution }
        }
    }

    // MARK: - ofj barcode

    func barcode(_ p: ParsedArguments) async throws {
        let found = try await find(try Self.barcode(p.positionals[0]), refresh: p.has("--refresh"))
        if p.has("--json") { return try json(ProductJSON(found)) }
        out(TerminalText.sanitize(PackagedText.card(found.product, origin: found.origin)))
        attribution(found)
    }

    // MARK: - ofj packaged

    func packaged(_ p: ParsedArguments) async throws {
        let query = p.positionals.joined(separator: " ").trimmingCharacters(in: .whitespaces)
        guard !query.isEmpty, query.count <= 200 else {
            throw CLIError("give what to search for\n" + OfjCommands.usage("packaged"), status: 2)
        }
        guard let source = PackagedSource(rawValue: p.value("--source") ?? "off") else {
            throw CLIError("--source takes off or fdc", status: 2)
        }
        let limit = p.value("--limit").flatMap { Int($0) } ?? 10 // 1 to 50, checked by the table
        let result = try await foods.search(query, source: source, limit: limit, refresh: p.has("--refresh"))
        if let stale = result.staleBecause { writeErr(stale) }
        if p.has("--json") {
            struct SearchJSON: Encodable { var products: [PackagedProduct]; var attribution: String? }
            return try json(SearchJSON(products: result.products, attribution: source.attribution))
        }
        if result.products.isEmpty {
            out("no \(source.displayName) products match \"\(TerminalText.sanitize(query))\"")
            return
        }
        if case .cache(let at) = result.origin { out("(\(PackagedText.origin(.cache(fetchedAt: at), source: source)))") }
        for product in result.products { out(TerminalText.sanitize(PackagedText.resultLine(product))) }
        for line in PackagedText.attribution([source]) { out(line) }
    }

    // MARK: - ofj log --barcode

    func logBarcode(_ p: ParsedArguments) async throws {
        // The mode is selected by --barcode and takes no NAME (the table has checked both).
        let code = p.value("--barcode") ?? ""
        let found = try await find(try Self.barcode(code), refresh: p.has("--refresh"))
        let legacy = JournalCommands(journal: journal, reference: nil, out: out)
        let day = try p.value("--date").map { try legacy.parseDay($0) }
        let meal = try p.value("--meal").map { text -> Meal in
            do { return try Meal(parsing: text) } catch { throw CLIError("invalid meal '\(text.prefix(40))': use breakfast, lunch, dinner or snack", status: 2) }
        }
        let grams = try p.value("--grams").map { try legacy.positiveNumber($0, field: "--grams") }
        let servings = try p.value("--servings").map { try legacy.positiveNumber($0, field: "--servings") }
        let portion = try PackagedPortion.resolve(found.product, amount: p.value("--amount"), grams: grams, servings: servings)
        let entry = try journal.logEntry(PackagedCommands.draft(found, portion: portion, day: day, meal: meal))
        if p.has("--json") { return try json(entry) }
        out("Logged to \(entry.meal.rawValue) on \(entry.day): " + TerminalText.sanitize(JournalViews.entryLine(entry)) + " (id \(JournalStore.shortID(entry.id)))")
        attribution(found)
    }

    /// The journal entry for a portion of a found product.
    static func draft(_ found: Found, portion: PackagedPortion, day: CalendarDay?, meal: Meal?) -> EntryDraft {
        EntryDraft(day: day, meal: meal, name: String(found.product.name.prefix(JournalStore.Limits.name)), brand: found.product.brand,
                   serving: portion.serving, servings: portion.servings, nutrients: portion.nutrients,
                   savedFoodID: found.savedFood?.id, source: found.savedFood == nil ? .packaged : .foodBank,
                   derivedNutrients: found.product.derived(in: portion.nutrients)
                       .union((found.savedFood?.derivedNutrients ?? []).filter { portion.nutrients.values[$0] != nil }))
    }

    // MARK: - ofj foods add --barcode

    func addBarcode(_ p: ParsedArguments) async throws {
        let code = try Self.barcode(p.value("--barcode") ?? "")
        if let saved = try journal.food(barcode: code.code) {
            throw CLIError("barcode \(code.code) is already in the Food Bank as \"\(JournalViews.safeName(saved.name))\"")
        }
        let found = try await find(code, refresh: p.has("--refresh"))
        let food = try journal.createFood(try PackagedCommands.foodDraft(found.product), barcode: code.code)
        if p.has("--json") { return try json(food) }
        out("Saved to the Food Bank: " + TerminalText.sanitize("\(food.name)\(food.brand.map { " (\($0))" } ?? "") — \(food.serving.label) (id \(JournalStore.shortID(food.id)))"))
        attribution(found)
    }

    /// A Food Bank draft for a product: its label serving when it has one, else 100 g (or mL).
    static func foodDraft(_ p: PackagedProduct) throws -> FoodDraft {
        let portion: PackagedPortion
        if p.serving != nil, !p.perServing.isEmpty {
            portion = try PackagedPortion.resolve(p, servings: 1)
        } else {
            portion = try PackagedPortion.resolve(p, amount: p.per100Unit == "ml" ? "100 ml" : "100 g")
        }
        var draft = FoodDraft(name: String(p.name.prefix(JournalStore.Limits.name)), brand: p.brand, serving: portion.serving, nutrients: portion.nutrients)
        draft.derivedNutrients = p.derived(in: portion.nutrients)
        return draft
    }
}

// MARK: - The REPL's scanned barcodes

extension PackagedCommands {
    /// What a barcode typed alone at the REPL prompt shows: the product card and an offer to log
    /// one label serving now (today, the meal of the clock).
    static func scanner(journal: JournalStore, foods: PackagedFoods) -> @Sendable (String) async -> BarcodeScanOffer {
        { text in
            let commands = PackagedCommands(journal: journal, foods: foods, out: { _ in })
            do {
                let found = try await commands.find(try barcode(text), refresh: false)
                let attribution: [String]
                if case .foodBank = found.origin { attribution = [] } else { attribution = PackagedText.attribution([found.product.source]) }
                let portion: PackagedPortion
                do { portion = try PackagedPortion.resolve(found.product, servings: 1) } catch let e as PackagedPortion.Problem {
                    let card = [PackagedText.card(found.product, origin: found.origin), "Not logged: \(e.description)"] + attribution
                    return .card(card.joined(separator: "\n"), logPrompt: "", log: nil)
                }
                let card = [PackagedText.card(found.product, origin: found.origin)] + attribution
                // The day and meal the prompt names are the ones written, however long it stays open.
                let day = journal.today(), meal = journal.defaultMeal()
                let draft = draft(found, portion: portion, day: day, meal: meal)
                return .card(card.joined(separator: "\n"), logPrompt: "Log \(portion.label) to \(meal.rawValue) today?") {
                    let entry = try journal.logEntry(draft)
                    return "logged \(JournalViews.entryLine(entry)) to \(entry.meal.rawValue) on \(entry.day)"
                }
            } catch {
                return .failed("\(error)")
            }
        }
    }
}
