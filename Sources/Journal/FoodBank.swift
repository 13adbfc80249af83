// Food Bank writes and reads: saved foods, shelf and archive flags, brands, search.
import Base
import Foundation
import Nutrition
import SQLiteKit

/// The structured parts of a saved food stored as JSON; plain foods have none.
struct FoodBody: Codable {
    var mappings: [UnitMapping] = []
    var ingredients: [IngredientSnapshot] = []
    var recipeServings: Double = 1
    var calculatorIngredients: [CalculatorIngredient] = []
    /// Nutrient ids whose value was derived by USDA's rules (a food made from a reference food).
    var derived: [String]?
    /// A cooked batch's whole weight in grams (composites only).
    var cookedGrams: Double?

    init(mappings: [UnitMapping], ingredients: [IngredientSnapshot], recipeServings: Double, calculatorIngredients: [CalculatorIngredient]) {
        self.mappings = mappings; self.ingredients = ingredients; self.recipeServings = recipeServings
        self.calculatorIngredients = calculatorIngredients
    }

    var isEmpty: Bool { mappings.isEmpty && ingredients.isEmpty && recipeServings == 1 && calculatorIngredients.isEmpty && derived == nil && cookedGrams == nil }

    enum CodingKeys: String, CodingKey {
        case mappings, ingredients, recipeServings = "recipe_servings", calculatorIngredients = "calculator_ingredients", derived
        case cookedGrams = "cooked_grams"
    }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        mappings = try c.decodeIfPresent([UnitMapping].self, forKey: .mappings) ?? []
        ingredients = try c.decodeIfPresent([IngredientSnapshot].self, forKey: .ingredients) ?? []
        recipeServings = try c.decodeIfPresent(Double.self, forKey: .recipeServings) ?? 1
        calculatorIngredients = try c.decodeIfPresent([CalculatorIngredient].self, forKey: .calculatorIngredients) ?? []
        derived = try c.decodeIfPresent([String].self, forKey: .derived)
        cookedGrams = try c.decodeIfPresent(Double.self, forKey: .cookedGrams)
    }
}

/// Nutrient maps as "id=value;id=value" text: ids are snake_case (no '=' or ';') and Swift
/// prints doubles in their shortest exact form, so this round-trips and parses without JSON.
enum NutrientText {
    static func encode(_ n: NutrientAmounts) -> String {
        n.values.keys.sorted().compactMap { k in n[k].map { "\(k)=\($0)" } }.joined(separator: ";")
    }

    static func decode(_ s: String) -> [String: Double]? {
        var out: [String: Double] = [:]
        if s.isEmpty { return out }
        for pair in s.split(separator: ";") {
            guard let eq = pair.firstIndex(of: "="), let v = Double(pair[pair.index(after: eq)...]) else { return nil }
            out[String(pair[..<eq])] = v
        }
        return out
    }
}

extension JournalStore {
    // MARK: - Saved food writes

    /// Creates a saved food. A composite's nutrients are computed from its ingredients.
    @discardableResult
    public func createFood(_ draft: FoodDraft, id: UUID? = nil, in db: Database) throws -> SavedFood {
        let now = now()
        let food = try validatedFood(draft, id: id ?? UUID(), createdAt: now, updatedAt: now, lastUsedAt: nil, archived: false)
        guard try !foodExists(food.id, in: db) else {
            throw JournalError.invalid(field: "id", reason: "\(food.id.uuidString) is already used by another saved food")
        }
        try db.transaction { db in try recording(.food, food.id.uuidString, in: db) { try upsertFood(food, in: db) } }
        return food
    }

    @discardableResult
    public func createFood(_ draft: FoodDraft, id: UUID? = nil) throws -> SavedFood {
        try queue.write { try createFood(draft, id: id, in: $0) }
    }

    /// Replaces what a saved food is made of. Entries already logged keep their snapshot.
    @discardableResult
    public func editFood(_ id: UUID, _ draft: FoodDraft, in db: Database) throws -> SavedFood {
        guard let old = try food(id, in: db) else { throw JournalError.notFound(kind: "saved food", id: id.uuidString) }
        var draft = draft
        // A derived value stays marked while carried over unchanged; one set by hand is not derived.
        draft.derivedNutrients = draft.derivedNutrients.filter { id in
            guard let a = old.nutrients.values[id], let b = draft.nutrients.values[id] else { return false }
            return abs(a - b) <= 1e-6 * max(1, abs(a))
        }
        var food = try validatedFood(draft, id: id, createdAt: old.createdAt, updatedAt: max(now(), old.updatedAt),
                                     lastUsedAt: old.lastUsedAt, archived: old.isManuallyArchived)
        food.isOnShelf = draft.isOnShelf
        try db.transaction { db in try recording(.food, id.uuidString, in: db) { try upsertFood(food, in: db) } }
        return food
    }

    @discardableResult
    public func editFood(_ id: UUID, _ draft: FoodDraft) throws -> SavedFood { try queue.write { try editFood(id, draft, in: $0) } }

    /// Archives or unarchives a food by hand (a manual archive wins over the Shelf and recent use).
    @discardableResult
    public func setFoodArchived(_ id: UUID, _ archived: Bool, in db: Database) throws -> SavedFood {
        try setFlag("is_archived", archived, id: id, in: db)
    }

    @discardableResult
    public func setFoodArchived(_ id: UUID, _ archived: Bool) throws -> SavedFood {
        try queue.write { try setFoodArchived(id, archived, in: $0) }
    }

    /// Puts a food on the Shelf (available at home) or takes it off.
    @discardableResult
    public func setFoodOnShelf(_ id: UUID, _ onShelf: Bool, in db: Database) throws -> SavedFood {
        try setFlag("is_on_shelf", onShelf, id: id, in: db)
    }

    @discardableResult
    public func setFoodOnShelf(_ id: UUID, _ onShelf: Bool) throws -> SavedFood {
        try queue.write { try setFoodOnShelf(id, onShelf, in: $0) }
    }

    private func setFlag(_ column: String, _ value: Bool, id: UUID, in db: Database) throws -> SavedFood {
        guard try foodExists(id, in: db) else { throw JournalError.notFound(kind: "saved food", id: id.uuidString) }
        try db.transaction { db in
            try recording(.food, id.uuidString, in: db) {
                try db.execute("UPDATE journal_saved_foods SET \(column) = ?, updated_at = max(updated_at, ?) WHERE id = ?",
                               [value, now().milliseconds, id.uuidString])
            }
        }
        guard let food = try food(id, in: db) else { throw JournalError.notFound(kind: "saved food", id: id.uuidString) }
        return food
    }

    /// Snapshots `quantity` `unit` of a saved food as an ingredient for a composite.
    public func ingredient(from foodID: UUID, quantity: Double, unit: ServingUnit, in db: Database) throws -> IngredientSnapshot {
        try check(positive: quantity, field: "ingredient quantity", max: Limits.quantity)
        guard let food = try food(foodID, in: db) else { throw JournalError.notFound(kind: "saved food", id: foodID.uuidString) }
        guard food.kind != .calculator else {
            throw JournalError.invalid(field: "ingredient", reason: "cannot be a calculator food; log a build instead")
        }
        return try domain { try IngredientSnapshot.from(food, quantity: quantity, unit: unit) }
    }

    public func ingredient(from foodID: UUID, quantity: Double, unit: ServingUnit) throws -> IngredientSnapshot {
        try queue.read { try ingredient(from: foodID, quantity: quantity, unit: unit, in: $0) }
    }

    /// Renames a brand on every saved food that has it (matched case-insensitively); `to` nil
    /// or empty makes them unbranded. Entries already logged keep their brand. Returns the
    /// number of foods changed.
    @discardableResult
    public func renameBrand(_ from: String?, to: String?, in db: Database) throws -> Int {
        let fromKey = try brandKey(from.map { try checkText($0, field: "brand", max: Limits.brand, required: false) })
        let newBrand = try to.map { try checkText($0, field: "new brand", max: Limits.brand, required: false) }.flatMap { $0.isEmpty ? nil : $0 }
        let newKey = try brandKey(newBrand)
        return try db.transaction { db in
            let ids = try db.rows("SELECT id FROM journal_saved_foods WHERE brand_key = ?", [fromKey]).compactMap { $0[0].string }
            let before = try ids.map { try image(.food, $0, in: db) }
            try db.execute("UPDATE journal_saved_foods SET brand = ?, brand_key = ?, updated_at = max(updated_at, ?) WHERE brand_key = ?",
                           [newBrand, newKey, now().milliseconds, fromKey])
            let changed = db.changes
            for (id, image) in zip(ids, before) { try recordUndo(.food, id, before: image, in: db) }
            return changed
        }
    }

    @discardableResult
    public func renameBrand(_ from: String?, to: String?) throws -> Int { try queue.write { try renameBrand(from, to: to, in: $0) } }

    // MARK: - Saved food reads

    /// One saved food by id.
    public func food(_ id: UUID, in db: Database) throws -> SavedFood? {
        try db.row("SELECT \(JournalStore.foodColumns) FROM journal_saved_foods WHERE id = ?", [id.uuidString]).map(decodeFood)
    }

    public func food(_ id: UUID) throws -> SavedFood? { try queue.read { try food(id, in: $0) } }

    /// Food Bank search. An empty query lists active foods only; a non-empty query searches
    /// every food, archived ones included, requiring each word in the name or brand.
    /// `brand` filters to one brand (case-insensitive; "Unbranded" or "" for foods without one).
    public func searchFoods(_ query: String = "", brand: String? = nil, sort: FoodSort = .name, limit: Int = 50,
                            in db: Database) throws -> [FoodBankItem] {
        let q = try checkText(query, field: "search text", max: Limits.searchText, required: false)
        let now = now()
        var clauses: [String] = []
        var args: [DatabaseValueConvertible] = []
        let words = q.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).prefix(8)
        if words.isEmpty {
            clauses.append("is_archived = 0 AND (is_on_shelf = 1 OR coalesce(last_used_at, created_at) > ?)")
            args.append(ArchiveRule.cutoff(now: now).milliseconds)
        }
        for w in words {
            clauses.append("(name_key LIKE ? ESCAPE '\\' OR brand_key LIKE ? ESCAPE '\\')")
            let pattern = "%" + likeEscape(String(w)) + "%"
            args.append(pattern); args.append(pattern)
        }
        if let brand {
            let b = try checkText(brand, field: "brand", max: Limits.brand, required: false)
            clauses.append("brand_key = ?")
            args.append(b.lowercased() == BrandBucket.unbrandedName.lowercased() ? "" : try brandKey(b))
        }
        let order: String
        switch sort {
        case .name: order = "name_key, id"
        case .lastUsed: order = "last_used_at IS NULL, last_used_at DESC, name_key, id"
        case .brand: order = "brand_key = '', brand_key, name_key, id"
        }
        let whereSQL = clauses.isEmpty ? "1" : clauses.joined(separator: " AND ")
        let sql = "SELECT \(JournalStore.foodColumns) FROM journal_saved_foods WHERE \(whereSQL) ORDER BY \(order) LIMIT ?"
        args.append(max(0, min(limit, 10_000)))
        let decoder = JournalJSON.decoder
        return try db.rows(sql, args).map { row in
            let f = try decodeFood(row, decoder: decoder)
            return FoodBankItem(food: f, status: f.status(now: now))
        }
    }

    public func searchFoods(_ query: String = "", brand: String? = nil, sort: FoodSort = .name, limit: Int = 50) throws -> [FoodBankItem] {
        try queue.read { try searchFoods(query, brand: brand, sort: sort, limit: limit, in: $0) }
    }

    /// Brands with their food counts, A–Z, with "Unbranded" (brand nil) last.
    public func brandBuckets(in db: Database) throws -> [BrandBucket] {
        // The displayed spelling is the most common one among foods sharing a key.
        var buckets: [BrandBucket] = []
        var key: String?
        var total = 0, bestCount = 0
        var best: String?
        func flush() {
            guard let k = key else { return }
            buckets.append(BrandBucket(brand: k.isEmpty ? nil : (best ?? k), foodCount: total))
        }
        try db.forEachRow("""
            SELECT brand_key, brand, count(*) FROM journal_saved_foods
            GROUP BY brand_key, brand ORDER BY brand_key = '', brand_key, brand
            """) { s in
            let k = s.value(at: 0).string ?? ""
            let n = s.value(at: 2).int ?? 0
            if k != key { flush(); key = k; total = 0; bestCount = 0; best = nil }
            total += n
            if n > bestCount { bestCount = n; best = s.value(at: 1).string }
        }
        flush()
        return buckets
    }

    public func brandBuckets() throws -> [BrandBucket] { try queue.read { try brandBuckets(in: $0) } }

    /// Foods on the Shelf that are not manually archived, by name.
    public func shelfFoods(in db: Database) throws -> [SavedFood] {
        try db.rows("SELECT \(JournalStore.foodColumns) FROM journal_saved_foods WHERE is_on_shelf = 1 AND is_archived = 0 ORDER BY name_key, id")
            .map(decodeFood)
    }

    public func shelfFoods() throws -> [SavedFood] { try queue.read { try shelfFoods(in: $0) } }

    /// Ranks Shelf foods against what is left of `day`'s goals (today by default).
    public func recommendFromShelf(day: CalendarDay? = nil, limit: Int = 5, in db: Database) throws -> [ShelfRecommendation] {
        let view = try dayView(day ?? today(), in: db)
        return ShelfRecommender.recommend(foods: try shelfFoods(in: db), goals: try goals(on: view.day, in: db), consumed: view.totals, limit: limit)
    }

    public func recommendFromShelf(day: CalendarDay? = nil, limit: Int = 5) throws -> [ShelfRecommendation] {
        try queue.read { try recommendFromShelf(day: day, limit: limit, in: $0) }
    }

    // MARK: - Internals

    static let foodColumns = """
        id, kind, name, brand, body, is_on_shelf, is_archived, last_used_at, created_at, updated_at,
        serving_quantity, serving_unit, serving_grams, serving_ml, nutrients
        """

    func foodExists(_ id: UUID, in db: Database) throws -> Bool {
        try db.row("SELECT 1 FROM journal_saved_foods WHERE id = ?", [id.uuidString]) != nil
    }

    func touchFood(_ id: UUID, at date: Date, in db: Database) throws {
        try db.execute("UPDATE journal_saved_foods SET last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?",
                       [date.milliseconds, id.uuidString])
    }

    func brandKey(_ brand: String?) throws -> String { (brand ?? "").lowercased() }

    func likeEscape(_ s: String) -> String {
        var out = ""
        for c in s {
            if c == "%" || c == "_" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out
    }

    func validatedFood(_ d: FoodDraft, id: UUID, createdAt: Date, updatedAt: Date, lastUsedAt: Date?, archived: Bool) throws -> SavedFood {
        let name = try checkText(d.name, field: "name", max: Limits.name)
        let brand = try d.brand.map { try checkText($0, field: "brand", max: Limits.brand, required: false) }.flatMap { $0.isEmpty ? nil : $0 }
        try checkServing(d.serving)
        try checkNutrients(d.nutrients)
        for (i, m) in d.mappings.enumerated() {
            try domain { try m.validate(field: "mapping \(i + 1)") }
            if case .count(let n) = m.unit { _ = try checkText(n, field: "mapping \(i + 1) unit", max: 40) }
        }
        for (i, ing) in d.ingredients.enumerated() {
            try checkNutrients(ing.nutrients, field: "ingredient \(i + 1) nutrients")
            _ = try checkText(ing.name, field: "ingredient \(i + 1) name", max: Limits.name)
        }
        for (i, ing) in d.calculatorIngredients.enumerated() {
            for p in ing.portions { try checkNutrients(p.nutrients, field: "ingredient \(i + 1) portion nutrients") }
        }
        var serving = d.serving
        // A cooked batch's serving weighs its share of the batch, so grams of the dish convert.
        if d.kind == .composite, let cooked = d.cookedGrams, d.recipeServings > 0, !serving.unit.isMass, !serving.unit.isVolume {
            serving.grams = cooked / d.recipeServings
            serving.milliliters = nil
        }
        var food = SavedFood(id: id, kind: d.kind, name: name, brand: brand, serving: serving, mappings: d.mappings,
                             nutrients: d.kind == .calculator ? NutrientAmounts() : d.nutrients, ingredients: d.kind == .composite ? d.ingredients : [],
                             recipeServings: d.recipeServings,
                             calculatorIngredients: d.kind == .calculator ? d.calculatorIngredients : [], isOnShelf: d.isOnShelf,
                             isManuallyArchived: archived, lastUsedAt: lastUsedAt, createdAt: createdAt, updatedAt: updatedAt,
                             cookedGrams: d.cookedGrams)
        // Only a single food carries values as they were derived; a composite's are sums.
        food.derivedNutrients = d.kind == .single ? JournalStore.derivedList(d.derivedNutrients, food.nutrients) : nil
        try domain { try food.validate() }
        return food
    }

    /// Inserts or replaces a food row.
    func upsertFood(_ f: SavedFood, in db: Database) throws {
        var body = FoodBody(mappings: f.mappings, ingredients: f.ingredients, recipeServings: f.recipeServings,
                            calculatorIngredients: f.calculatorIngredients)
        body.derived = f.derivedNutrients
        body.cookedGrams = f.cookedGrams
        let json: String? = body.isEmpty ? nil : String(decoding: try JournalJSON.compactEncoder.encode(body), as: UTF8.self)
        try db.execute("""
            INSERT INTO journal_saved_foods (id, kind, name, name_key, brand, brand_key, body, is_on_shelf, is_archived,
                last_used_at, created_at, updated_at, serving_quantity, serving_unit, serving_grams, serving_ml, nutrients)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, name = excluded.name, name_key = excluded.name_key,
                brand = excluded.brand, brand_key = excluded.brand_key, body = excluded.body, is_on_shelf = excluded.is_on_shelf,
                is_archived = excluded.is_archived, last_used_at = excluded.last_used_at, created_at = excluded.created_at,
                updated_at = excluded.updated_at, serving_quantity = excluded.serving_quantity, serving_unit = excluded.serving_unit,
                serving_grams = excluded.serving_grams, serving_ml = excluded.serving_ml, nutrients = excluded.nutrients
            """, [f.id.uuidString, f.kind.rawValue, f.name, f.name.lowercased(), f.brand, try brandKey(f.brand), json,
                  f.isOnShelf, f.isManuallyArchived, f.lastUsedAt?.milliseconds, f.createdAt.milliseconds, f.updatedAt.milliseconds,
                  f.serving.quantity, f.serving.unit.symbol, f.serving.grams, f.serving.milliliters, NutrientText.encode(f.nutrients)])
    }

    func decodeFood(_ r: Row) throws -> SavedFood { try decodeFood(r, decoder: JournalJSON.decoder) }

    func decodeFood(_ r: Row, decoder: JSONDecoder) throws -> SavedFood {
        guard let idText = r[0].string, let id = UUID(uuidString: idText) else { throw JournalError.corruptRow("saved food id") }
        guard let kind = r[1].string.flatMap(SavedFoodKind.init(rawValue:)), let name = r[2].string,
              let quantity = r[10].double, let unit = r[11].string else {
            throw JournalError.corruptRow("saved food")
        }
        var body = FoodBody(mappings: [], ingredients: [], recipeServings: 1, calculatorIngredients: [])
        if let bodyText = r[4].string {
            do { body = try decoder.decode(FoodBody.self, from: Data(bodyText.utf8)) } catch {
                throw JournalError.corruptRow("saved food body")
            }
        }
        guard let values = r[14].string.flatMap(NutrientText.decode) else { throw JournalError.corruptRow("saved food nutrients") }
        let nutrients = NutrientAmounts(storedCanonical: values)
        let serving = ServingSize(quantity: quantity, unit: ServingUnit(storedSymbol: unit), grams: r[12].double, milliliters: r[13].double)
        var f = SavedFood(id: id, kind: kind, name: name, brand: r[3].string, serving: serving, mappings: body.mappings,
                          nutrients: nutrients, ingredients: body.ingredients, recipeServings: body.recipeServings,
                          calculatorIngredients: body.calculatorIngredients, isOnShelf: r[5].int == 1, isManuallyArchived: r[6].int == 1,
                          lastUsedAt: r[7].int64.map(Date.init(milliseconds:)), createdAt: Date(milliseconds: r[8].int64 ?? 0),
                          updatedAt: Date(milliseconds: r[9].int64 ?? 0))
        // Stored composite nutrients are authoritative (they were computed when saved).
        f.nutrients = nutrients
        f.derivedNutrients = body.derived
        f.cookedGrams = body.cookedGrams
        return f
    }
}
