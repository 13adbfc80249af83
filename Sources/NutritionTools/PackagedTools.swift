// The assistant's packaged-food tools: lookup_barcode and search_packaged_foods (network reads,
// cached), log_packaged_food and save_packaged_food (writes, planned from the Food Bank or the
// cache inside the ledger transaction, so the card is exactly what is written).
import Agent
import Base
import Foundation
import Journal
import Nutrition
import PackagedFoods
import SQLiteKit

public enum PackagedTools {
    public static let readToolNames = NutritionToolName.packagedReads.map(\.rawValue)
    public static let writeToolNames = NutritionToolName.packagedWrites.map(\.rawValue)

    /// The system-prompt rule that goes with these tools (appended when they are offered).
    public static let promptRule = """
        - Packaged and branded products (a barcode, a brand not in the Food Bank; enable_tools packaged): lookup_barcode or \
        search_packaged_foods, then log_packaged_food (1 label serving unless told otherwise) or save_packaged_food. \
        Showing Open Food Facts data, credit "data © Open Food Facts contributors, ODbL" once.
        """

    /// The four tools over `journal` and `foods` (which must share the journal's database).
    public static func make(journal: JournalStore, foods: PackagedFoods) -> [any Tool] {
        make(journal: journal, foods: OnFirstUse(made: foods))
    }

    /// The same, with the client made on the first lookup or search that needs the network (a
    /// turn that never asks for a packaged food never builds it; issue 39).
    public static func make(journal: JournalStore, foods: OnFirstUse<PackagedFoods>) -> [any Tool] {
        [LookupBarcode(journal: journal, foods: foods), SearchPackagedFoods(foods: foods),
         LogPackagedFood(journal: journal), SavePackagedFood(journal: journal)]
    }

    /// What a product looks like to the model.
    static func shape(_ p: PackagedProduct, origin: AnswerOrigin, savedFoodID: UUID? = nil) -> JSONValue {
        var o: [String: JSONValue] = [
            "source": .string(p.source.rawValue), "name": .string(Text.clean(p.name, max: 200)),
            "has_nutrition_data": .bool(p.hasNutrition), "origin": .string(PackagedText.origin(origin, source: p.source)),
        ]
        if p.source == .foodDataCentral { o["fdc_id"] = .string(p.id) }
        if let b = p.barcode { o["barcode"] = .string(b) }
        if let b = p.brand { o["brand"] = .string(Text.clean(b, max: 100)) }
        if let t = p.dataType { o["data_type"] = .string(t) }
        if let s = p.serving { o["serving"] = .string(s.label) }
        if !p.per100.isEmpty { o["nutrients_per_100\(p.per100Unit)"] = Shape.nutrients(p.per100) }
        if !p.perServing.isEmpty, p.serving != nil { o["nutrients_per_serving"] = Shape.nutrients(p.perServing) }
        if !p.derived.isEmpty { o["derived"] = .array(p.derived.map { .string($0) }) }
        if !p.atMost.isEmpty { o["upper_bounds"] = .array(p.atMost.map { .string($0) }) }
        if let id = savedFoodID { o["saved_food_id"] = .string(id.uuidString) }
        if let a = p.source.attribution, savedFoodID == nil { o["attribution"] = .string(a) }
        return .object(o)
    }

    /// A product the write tools can use: the Food Bank's food for this barcode, else the cached
    /// lookup or search hit. Read inside the caller's transaction.
    struct Known {
        var product: PackagedProduct
        var origin: AnswerOrigin
        var savedFood: SavedFood?
        var dependency: (String, JSONValue)
    }

    static func known(_ args: Args, journal: JournalStore, db: Database, foodBankFirst: Bool) throws -> Known {
        let barcode = args.string("barcode")
        let fdcID = args.string("fdc_id")
        guard (barcode == nil) != (fdcID == nil) else {
            throw ToolArgumentError(field: "barcode", "give either barcode or fdc_id, as lookup_barcode or search_packaged_foods returned it")
        }
        let source: PackagedSource
        let id: String
        if let barcode {
            do { id = try Barcode(barcode).code } catch { throw ToolArgumentError(field: "barcode", "\(error)") }
            source = .openFoodFacts
            if foodBankFirst, let saved = try journal.food(barcode: id, in: db) {
                let p = PackagedProduct(source: .openFoodFacts, id: id, barcode: id, name: saved.name, brand: saved.brand,
                                        per100: NutrientAmounts(), perServing: saved.nutrients, serving: saved.serving,
                                        servingText: nil, packageQuantity: nil)
                return Known(product: p, origin: .foodBank, savedFood: saved, dependency: dependency(saved))
            }
        } else {
            source = .foodDataCentral
            id = String((fdcID ?? "").drop { $0 == "f" || $0 == "d" || $0 == "c" || $0 == ":" })
        }
        guard let cached = try PackagedStore.cachedProduct(source: source, id: id, in: db) else {
            throw ToolArgumentError(field: barcode == nil ? "fdc_id" : "barcode",
                                    "is not looked up yet; call \(barcode == nil ? "search_packaged_foods" : "lookup_barcode") first")
        }
        guard let product = cached.product else {
            throw ToolArgumentError(field: barcode == nil ? "fdc_id" : "barcode", "\(source.displayName) has no such product")
        }
        let dep = ("packaged:\(source.rawValue):\(id)", JSONValue.object([
            "name": .string("the \(source.displayName) record of \(Text.clean(product.name, max: 60))"),
            "version": .number(cached.fetchedAt.timeIntervalSince1970)]))
        return Known(product: product, origin: .cache(fetchedAt: cached.fetchedAt), savedFood: nil, dependency: dep)
    }

    static func sourceLine(_ k: Known) -> String {
        var ids: [String] = []
        if let b = k.product.barcode { ids.append("barcode \(b)") }
        if k.product.source == .foodDataCentral { ids.append("FDC \(k.product.id)") }
        let from: String
        switch k.origin {
        case .foodBank: from = "your Food Bank"
        case .cache(let at): from = PackagedText.origin(.cache(fetchedAt: at), source: k.product.source)
        default: from = k.product.source.displayName
        }
        return "Source: \(from)" + (ids.isEmpty ? "" : " · " + ids.joined(separator: " · "))
    }

    static func portion(_ args: Args, _ p: PackagedProduct) throws -> PackagedPortion {
        do {
            return try PackagedPortion.resolve(p, amount: args.string("amount"), grams: try args.positive("grams"),
                                               servings: try args.positive("servings"))
        } catch let e as PackagedPortion.Problem {
            throw ToolArgumentError(field: "amount", e.description)
        }
    }
}

struct LookupBarcode: Tool {
    let journal: JournalStore
    let foods: OnFirstUse<PackagedFoods>
    let name = NutritionToolName.lookupBarcode.rawValue
    var group: ToolGroup { .packaged }
    let description = """
        Looks up a packaged food by its barcode (EAN-8/13, UPC-A/E): the person's Food Bank first, then the local cache, then Open Food Facts. \
        Returns name, brand, serving, nutrients per 100 g and per serving. Then log it with log_packaged_food.
        """
    var parameters: JSONValue {
        Schema.object(["barcode": Schema.string("The digits of the barcode.", maxLength: 20),
                       "refresh": ["type": "boolean", "description": "Ask Open Food Facts again instead of the cache."]],
                      required: ["barcode"])
    }
    var effect: ToolEffect { .read }
    var timing: ToolTiming { .webSearch }
    func activity(arguments: JSONValue) -> String { "looking up barcode \(Text.clean(arguments["barcode"]?.stringValue ?? "", max: 20))" }

    /// Product text from Open Food Facts (fetched now or cached) is content from outside the
    /// person; a food from their own Food Bank is not.
    func untrustedReads(arguments: JSONValue, output: ToolOutput) -> [UntrustedRead] {
        guard !output.isError, let origin = (try? JSONValue.parse(output.content))?["product"]?["origin"]?.stringValue,
              origin != PackagedText.origin(.foodBank, source: .openFoodFacts) else { return [] }
        return [UntrustedRead(kind: .packagedFood, label: "for barcode \(arguments["barcode"]?.stringValue ?? "?") (\(origin))")]
    }

    func execute(arguments: JSONValue, context: ToolContext) async throws -> ToolOutput {
        let args = Args(arguments)
        let code: Barcode
        do { code = try Barcode(try args.requiredString("barcode")) } catch let e as Barcode.Problem {
            throw ToolArgumentError(field: "barcode", e.description)
        }
        let refresh = args.bool("refresh") ?? false
        if !refresh, let saved = try journal.food(barcode: code.code) {
            let p = PackagedProduct(source: .openFoodFacts, id: code.code, barcode: code.code, name: saved.name, brand: saved.brand,
                                    per100: NutrientAmounts(), perServing: saved.nutrients, serving: saved.serving, servingText: nil, packageQuantity: nil)
            return output(["product": PackagedTools.shape(p, origin: .foodBank, savedFoodID: saved.id)],
                          "found \(Text.clean(saved.name, max: 60)) in the Food Bank")
        }
        let result: PackagedFoods.Lookup
        do { result = try await foods.value.lookup(code, refresh: refresh) } catch let e as PackagedError { return .error(e.description) }
        guard let p = result.product else { return .error("no product with barcode \(code.code) in Open Food Facts; ask the person for the label's values") }
        return output(["product": PackagedTools.shape(p, origin: result.origin)], "found \(Text.clean(p.name, max: 60))")
    }
}

struct SearchPackagedFoods: Tool {
    let foods: OnFirstUse<PackagedFoods>
    let name = NutritionToolName.searchPackagedFoods.rawValue
    var group: ToolGroup { .packaged }
    let description = """
        Searches packaged and branded foods online by words: Open Food Facts (source off, default; barcodes) or USDA FoodData Central \
        (source fdc; Branded, Foundation, SR Legacy; fdc ids). Use for brand-name products not in the Food Bank; log with log_packaged_food.
        """
    var parameters: JSONValue {
        Schema.object(["query": Schema.string("Product words, e.g. \"nutella\", \"cheddar cheese\"."),
                       "source": ["type": "string", "enum": ["off", "fdc"], "description": "off (Open Food Facts, default) or fdc (FoodData Central)."],
                       "limit": Schema.limit(default: 5, max: 10)], required: ["query"])
    }
    var effect: ToolEffect { .read }
    var timing: ToolTiming { .webSearch }
    func activity(arguments: JSONValue) -> String { "searching packaged foods for '\(Text.clean(arguments["query"]?.stringValue ?? "", max: 60))'" }

    /// Products found online are content from outside the person.
    func untrustedReads(arguments: JSONValue, output: ToolOutput) -> [UntrustedRead] {
        guard !output.isError else { return [] }
        let source = PackagedSource(rawValue: arguments["source"]?.stringValue ?? "off") ?? .openFoodFacts
        return [UntrustedRead(kind: .packagedFood, label: "for \"\(arguments["query"]?.stringValue ?? "")\" (\(source.displayName))")]
    }

    func execute(arguments: JSONValue, context: ToolContext) async throws -> ToolOutput {
        let args = Args(arguments)
        guard let query = try args.text("query", max: 200, required: true) else { throw ToolArgumentError(field: "query", "is required") }
        guard let source = PackagedSource(rawValue: args.string("source") ?? "off") else { throw ToolArgumentError(field: "source", "is off or fdc") }
        let result: PackagedFoods.SearchResult
        do { result = try await foods.value.search(query, source: source, limit: args.limit(default: 5, max: 10)) } catch let e as PackagedError {
            return .error(e.description)
        }
        var o: [String: JSONValue] = ["products": .array(result.products.map { PackagedTools.shape($0, origin: result.origin) }),
                                      "count": .number(Double(result.products.count))]
        if let a = source.attribution { o["attribution"] = .string(a) }
        return output(.object(o), "found \(result.products.count) packaged foods")
    }
}

private let identify: [String: JSONValue] = [
    "barcode": Schema.string("The product's barcode, as lookup_barcode or search_packaged_foods returned it.", maxLength: 20),
    "fdc_id": Schema.string("Or the FoodData Central id from search_packaged_foods.", maxLength: 20),
]

struct LogPackagedFood: JournalWriteTool {
    let journal: JournalStore
    let name = NutritionToolName.logPackagedFood.rawValue
    var group: ToolGroup { .packaged }
    let description = """
        Logs a packaged food found with lookup_barcode or search_packaged_foods: a number of label servings (default 1), an amount \
        such as "1 bar" or "250 ml", or grams. Nutrients come from the product; a product without nutrition data cannot be logged. Needs approval.
        """
    var parameters: JSONValue {
        Schema.object(identify.merging([
            "servings": Schema.number("How many label servings (default 1)."),
            "amount": Schema.string("Or an amount as words: \"1 bar\", \"2 slices\", \"250 ml\", \"40 g\".", maxLength: 40),
            "grams": Schema.number("Or a weight in grams."), "date": Schema.date, "meal": Schema.meal,
        ]) { a, _ in a })
    }
    func activity(arguments: JSONValue) -> String { "preparing to log a packaged food" }

    func plan(_ args: Args, _ db: Database) throws -> WritePlan {
        let k = try PackagedTools.known(args, journal: journal, db: db, foodBankFirst: true)
        let portion = try PackagedTools.portion(args, k.product)
        let (day, meal) = try journal.target(args)
        let total = portion.total
        let draft = EntryDraft(day: day, meal: meal, name: String(Text.clean(k.product.name, max: JournalStore.Limits.name)),
                               brand: k.product.brand.map { Text.clean($0, max: JournalStore.Limits.brand) }, serving: portion.serving,
                               servings: portion.servings, nutrients: portion.nutrients, savedFoodID: k.savedFood?.id,
                               source: k.savedFood == nil ? .packaged : .foodBank,
                               derivedNutrients: k.product.derived(in: portion.nutrients)
                                   .union((k.savedFood?.derivedNutrients ?? []).filter { portion.nutrients.values[$0] != nil }))
        var lines = ["Log to the journal: \(Text.food(draft.name, brand: draft.brand)) — \(portion.label)",
                     PackagedTools.sourceLine(k), whenLine(day, meal), Text.nutrientLines(total)]
        if k.savedFood == nil, let a = k.product.source.attribution { lines.append(a) }
        // Like every other log tool's card: an entry over 5,000 kcal or 5 kg says so.
        let warning = entrySizeWarning(total, grams: portion.serving.grams.map { $0 * portion.servings })
        if !warning.isEmpty { lines.append(warning.trimmingCharacters(in: .newlines)) }
        let change: [String: JSONValue] = ["arguments": args.resolved(day: day, meal: meal), "nutrients": Shape.nutrients(total),
                                           "serving": Shape.serving(portion.serving), "servings": Shape.number(portion.servings)]
        return WritePlan(preview: lines.joined(separator: "\n"), change: change, preconditions: dependencies([k.dependency])) { db in
            loggedOutput(try checked(field: "barcode") { try journal.logEntry(draft, in: db) })
        }
    }
}

struct SavePackagedFood: JournalWriteTool {
    let journal: JournalStore
    let name = NutritionToolName.savePackagedFood.rawValue
    var group: ToolGroup { .packaged }
    let description = """
        Saves a packaged food found with lookup_barcode or search_packaged_foods to the Food Bank, with its brand, label serving \
        and barcode, so the next scan is answered from the Food Bank. Needs approval.
        """
    var parameters: JSONValue { Schema.object(identify) }
    func activity(arguments: JSONValue) -> String { "preparing to save a packaged food" }

    func plan(_ args: Args, _ db: Database) throws -> WritePlan {
        let k = try PackagedTools.known(args, journal: journal, db: db, foodBankFirst: false)
        if let b = k.product.barcode, let saved = try journal.food(barcode: b, in: db) {
            throw ToolArgumentError(field: "barcode", "is already in the Food Bank as \(Text.clean(saved.name, max: 60)) (food_id \(saved.id.uuidString))")
        }
        let portion: PackagedPortion
        do {
            portion = k.product.serving != nil && !k.product.perServing.isEmpty
                ? try PackagedPortion.resolve(k.product, servings: 1)
                : try PackagedPortion.resolve(k.product, amount: k.product.per100Unit == "ml" ? "100 ml" : "100 g")
        } catch let e as PackagedPortion.Problem { throw ToolArgumentError(field: "barcode", e.description) }
        var draft = FoodDraft(name: String(Text.clean(k.product.name, max: JournalStore.Limits.name)),
                              brand: k.product.brand.map { Text.clean($0, max: JournalStore.Limits.brand) },
                              serving: portion.serving, nutrients: portion.nutrients)
        draft.derivedNutrients = k.product.derived(in: portion.nutrients)
        var lines = ["Save to the Food Bank: \(Text.food(draft.name, brand: draft.brand)) — serving \(portion.serving.label)",
                     PackagedTools.sourceLine(k), Text.nutrientLines(portion.nutrients, label: "Per serving")]
        if let a = k.product.source.attribution { lines.append(a) }
        let change: [String: JSONValue] = ["arguments": args.resolved(), "nutrients": Shape.nutrients(portion.nutrients),
                                           "serving": Shape.serving(portion.serving)]
        let barcode = k.product.barcode
        return WritePlan(preview: lines.joined(separator: "\n"), change: change, preconditions: dependencies([k.dependency])) { db in
            let food = try checked(field: "barcode") {
                if let barcode, (try? Barcode(barcode)) != nil { return try journal.createFood(draft, barcode: barcode, in: db) }
                return try journal.createFood(draft, in: db)
            }
            return output(["saved": Shape.food(food, status: nil, full: false)], "saved \(Text.clean(food.name, max: 60)) to the Food Bank")
        }
    }
}
