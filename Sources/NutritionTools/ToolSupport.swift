// Shared pieces of the nutrition tools: argument reading with field-named errors, JSON shapes
// of results, number formatting for previews, and name sanitising.
import Agent
import Base
import Foundation
import Journal
import Nutrition
import SQLiteKit

// MARK: - Arguments

/// Typed access to validated tool arguments. The registry has already checked the JSON Schema,
/// so this only checks what a schema cannot: finite positive numbers, ids, dates and meals.
struct Args {
    let raw: JSONValue

    init(_ raw: JSONValue) { self.raw = raw }

    func has(_ key: String) -> Bool { raw[key] != nil && raw[key] != .null }

    func string(_ key: String) -> String? { raw[key]?.stringValue }

    func requiredString(_ key: String) throws -> String {
        guard let s = string(key) else { throw ToolArgumentError(field: key, "is required") }
        return s
    }

    func bool(_ key: String) -> Bool? { raw[key]?.boolValue }

    /// A number that must be finite and greater than zero (quantities, grams, goals).
    func positive(_ key: String, max: Double = JournalStore.Limits.quantity) throws -> Double? {
        guard let value = raw[key], value != .null else { return nil }
        guard let n = value.doubleValue, n.isFinite else { throw ToolArgumentError(field: key, "must be a finite number") }
        guard n > 0 else { throw ToolArgumentError(field: key, "must be greater than 0, got \(JSONValue.format(n))") }
        guard n <= max else { throw ToolArgumentError(field: key, "must be at most \(JSONValue.format(max)), got \(JSONValue.format(n))") }
        return n
    }

    func limit(_ key: String = "limit", default d: Int, max m: Int) -> Int {
        guard let n = raw[key]?.intValue else { return d }
        return Swift.max(1, Swift.min(m, n))
    }

    func uuid(_ key: String) throws -> UUID? {
        guard let s = string(key) else { return nil }
        guard let id = UUID(uuidString: s.trimmingCharacters(in: .whitespaces)) else {
            throw ToolArgumentError(field: key, "\"\(Text.clean(s, max: 60))\" is not an id; pass an id exactly as a tool returned it")
        }
        return id
    }

    func requiredUUID(_ key: String) throws -> UUID {
        guard let id = try uuid(key) else { throw ToolArgumentError(field: key, "is required") }
        return id
    }

    /// A day: "YYYY-MM-DD", "today" or "yesterday" in the journal's time zone.
    func day(_ key: String, journal: JournalStore) throws -> CalendarDay? {
        guard let s = string(key) else { return nil }
        return try Args.parseDay(s, field: key, journal: journal)
    }

    static func parseDay(_ text: String, field: String, journal: JournalStore) throws -> CalendarDay {
        let s = text.trimmingCharacters(in: .whitespaces).lowercased()
        let today = journal.today()
        switch s {
        case "today": return today
        case "yesterday":
            guard let d = try? today.adding(days: -1) else { throw ToolArgumentError(field: field, "yesterday is out of range") }
            return d
        default:
            guard let d = try? CalendarDay(parsing: s) else {
                throw ToolArgumentError(field: field, "\"\(Text.clean(text, max: 40))\" is not a date: use YYYY-MM-DD, \"today\" or \"yesterday\"")
            }
            return d
        }
    }

    func meal(_ key: String = "meal") throws -> Meal? {
        guard let s = string(key) else { return nil }
        guard let m = try? Meal(parsing: s) else {
            throw ToolArgumentError(field: key, "\"\(Text.clean(s, max: 40))\" is not a meal: use breakfast, lunch, dinner or snack")
        }
        return m
    }

    /// Whether `id` reads as a misspelling of the catalog id `known`: one letter added, left out or
    /// changed, or two neighbours swapped ("protien_g"). Ids that differ only in digits are
    /// different nutrients (vitamin_b1_mg is not vitamin_b6_mg).
    static func isTypo(_ id: String, of known: String) -> Bool {
        let letters = { (s: String) in s.filter { !$0.isNumber } }
        guard letters(id) != letters(known) else { return false }
        if editDistance(known, id, limit: 2) <= 1 { return true }
        let a = Array(id), b = Array(known)
        guard a.count == b.count else { return false }
        let differ = a.indices.filter { a[$0] != b[$0] }
        return differ.count == 2 && differ[1] == differ[0] + 1 && a[differ[0]] == b[differ[1]] && a[differ[1]] == b[differ[0]]
    }

    /// Every catalog nutrient id, for errors that name the valid ones.
    static let catalogIDs = NutrientCatalog.all.map(\.id).joined(separator: ", ")

    /// A nutrient map {id or label: amount}; ids are canonicalised, amounts must be finite and >= 0.
    /// Ids outside the catalog are kept (snake_case, e.g. omega_3_g) unless they look like a typo of one.
    func nutrients(_ key: String) throws -> NutrientAmounts? {
        guard let object = raw[key]?.objectValue else { return nil }
        var values: [String: Double] = [:]
        for (name, value) in object {
            guard let v = value.doubleValue, v.isFinite, v >= 0, v <= JournalStore.Limits.nutrientAmount else {
                throw ToolArgumentError(field: "\(key).\(Text.clean(name, max: 40))",
                                        "must be a number from 0 to \(JSONValue.format(JournalStore.Limits.nutrientAmount))")
            }
            // Energy in kJ ("kJ", "energy_kj") is accepted and stored as kcal (1 kcal = 4.184 kJ).
            let id = NutrientAmounts.isKilojoules(name) ? "energy_kj" : NutrientCatalog.canonicalID(for: name) ?? name
            guard NutrientAmounts.isPlausibleID(id) else {
                throw ToolArgumentError(field: "\(key).\(Text.clean(name, max: 40))", "is not a nutrient id; use one of: \(Self.catalogIDs)")
            }
            // The schema no longer lists the ids one by one, so a near miss of a catalog id
            // ("protien_g") is refused with the id it resembles instead of stored as a new nutrient.
            if NutrientCatalog.nutrient(id) == nil, id != "energy_kj",
               let near = NutrientCatalog.all.first(where: { Self.isTypo(id, of: $0.id) }) {
                throw ToolArgumentError(field: "\(key).\(Text.clean(name, max: 40))",
                                        "is not a nutrient id; did you mean \(near.id)? The ids are: \(Self.catalogIDs)")
            }
            values[id] = v
        }
        do { return try NutrientAmounts(values) } catch {
            throw ToolArgumentError(field: key, "\(error)")
        }
    }

    /// Free text that is stored (names, brands): no control characters, bounded length.
    func text(_ key: String, max: Int, required: Bool) throws -> String? {
        guard let s = string(key) else {
            if required { throw ToolArgumentError(field: key, "is required") }
            return nil
        }
        do { return try Validate.text(s, field: key, maxLength: max, required: required) } catch let e as NutritionError {
            if case .invalidText(_, let reason) = e { throw ToolArgumentError(field: key, reason) }
            throw ToolArgumentError(field: key, e.description)
        }
    }
}

/// Turns journal and nutrition errors into errors the model can act on, naming the field.
/// Storage errors pass through unchanged: they are not the model's fault.
func checked<T>(field: String, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let e as JournalError {
        switch e {
        case .invalid(let f, let reason): throw ToolArgumentError(field: f, reason)
        case .notFound(let kind, let id): throw ToolArgumentError(field: field, "no \(kind) with id \(id); look it up first and pass its id exactly")
        case .nutrition(let n): throw argumentError(n, field: field)
        default: throw e
        }
    } catch let n as NutritionError {
        throw argumentError(n, field: field)
    } catch let d as InvalidDate {
        throw argumentError(.invalidDate(d.text), field: field)
    }
}

private func argumentError(_ n: NutritionError, field: String) -> ToolArgumentError {
    switch n {
    case .unknownUnit, .impossibleConversion: return ToolArgumentError(field: "unit", n.description)
    case .unknownMeal: return ToolArgumentError(field: "meal", n.description)
    case .invalidDate: return ToolArgumentError(field: "date", n.description)
    case .unknownIngredient, .unknownPortion, .duplicateIngredient, .emptyBuild: return ToolArgumentError(field: "selections", n.description)
    case .invalidQuantity(let f, _), .invalidText(let f, _): return ToolArgumentError(field: f, n.description)
    default: return ToolArgumentError(field: field, n.description)
    }
}

// MARK: - Text

enum Text {
    /// A name safe to show on a terminal: control and format characters (escape sequences,
    /// bidi overrides, newlines) removed, length bounded.
    static func clean(_ s: String, max: Int = 120) -> String {
        var scalars = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            switch u.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                if u == "\t" || u == "\n" || u == "\r" { scalars.append(" ") }
            default:
                scalars.append(u)
            }
        }
        let flat = String(scalars).split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        return flat.count <= max ? flat : String(flat.prefix(max - 1)) + "…"
    }

    /// "Greek yogurt (Fage)" or "Greek yogurt".
    static func food(_ name: String, brand: String?) -> String {
        let n = clean(name)
        guard let b = brand.map({ clean($0, max: 60) }), !b.isEmpty else { return n }
        return "\(n) (\(b))"
    }

    /// Numbers for people: up to 3 significant digits below 10, 1 decimal below 100, whole above.
    static func amount(_ v: Double) -> String {
        guard v.isFinite else { return "?" }
        let a = abs(v)
        let r: Double
        if a == 0 { return "0" }
        else if a < 0.01 { r = (v * 10_000).rounded() / 10_000 }
        else if a < 1 { r = (v * 1_000).rounded() / 1_000 }
        else if a < 10 { r = (v * 100).rounded() / 100 }
        else if a < 100 { r = (v * 10).rounded() / 10 }
        else { r = v.rounded() }
        return JSONValue.format(r)
    }

    /// "143 kcal", "12.6 g protein".
    static func nutrient(_ id: String, _ v: Double) -> String {
        if id == "energy_kcal" { return "\(amount(v)) kcal" }
        let unit = NutrientCatalog.nutrient(id)?.unit.rawValue ?? Units.suffix(of: id)
        return unit.isEmpty ? "\(nutrientName(id)) \(amount(v))" : "\(nutrientName(id)) \(amount(v)) \(unit)"
    }

    /// "vitamin C", "saturated fat"; an unknown id without its unit suffix ("lutein_zeaxanthin").
    static func nutrientName(_ id: String) -> String {
        if let n = NutrientCatalog.nutrient(id) { return n.displayName.prefix(1).lowercased() + n.displayName.dropFirst() }
        let suffix = Units.suffix(of: id)
        let base = suffix.isEmpty ? id : String(id.dropLast(suffix.count + 1))
        return clean(base, max: 64)
    }

    /// "18000 mg sodium ⚠ unusually high" when the amount is over the nutrient's plausibility bound.
    static func marked(_ id: String, _ v: Double) -> String {
        Plausibility.isImplausible(id, v) ? "\(nutrient(id, v)) ⚠ unusually high" : nutrient(id, v)
    }

    /// Every nutrient of a map in display order, core macros first.
    static func nutrients(_ n: NutrientAmounts) -> String {
        guard !n.isEmpty else { return "none reported" }
        return n.ids.compactMap { id in n[id].map { marked(id, $0) } }.joined(separator: ", ")
    }

    /// Nutrient lines for a preview: calories and macros on one line, everything else on the next.
    static func nutrientLines(_ n: NutrientAmounts, label: String = "Nutrients", indent: String = "") -> String {
        guard !n.isEmpty else { return "\(indent)\(label): none reported" }
        let core = n.ids.filter { NutrientCatalog.coreIDs.contains($0) }
        let rest = n.ids.filter { !NutrientCatalog.coreIDs.contains($0) }
        func list(_ ids: [String]) -> String { ids.compactMap { id in n[id].map { marked(id, $0) } }.joined(separator: ", ") }
        // A card must stay readable: label nutrients with a value come first, at most `shown` of
        // them; the rest (all of which are saved) are counted. An implausible amount is never
        // hidden in the count: it is always listed, first, and marked.
        let shown = 8
        let flagged = rest.filter { Plausibility.isImplausible($0, n[$0] ?? 0) }
        let labelled = rest.filter { NutrientCatalog.nutrient($0) != nil && (n[$0] ?? 0) > 0 && !flagged.contains($0) }
        let listed = flagged + labelled.prefix(max(0, shown - flagged.count))
        let more = rest.count - listed.count
        var lines: [String] = []
        if !core.isEmpty { lines.append("\(indent)\(label): \(list(core))") }
        if !listed.isEmpty || more > 0 {
            var text = list(listed)
            if more > 0 { text += (text.isEmpty ? "" : ", and ") + "\(more) more \(more == 1 ? "nutrient" : "nutrients")" }
            lines.append("\(indent)\(core.isEmpty ? label : "Also"): \(text)")
        }
        return lines.joined(separator: "\n")
    }

    /// "Saturday 2026-11-28".
    static func day(_ d: CalendarDay) -> String {
        let names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
        return "\(names[(d.isoWeekday - 1) % 7]) \(d)"
    }

    /// "2 × 1 large (50 g)" or "100 g".
    static func serving(_ serving: ServingSize, servings: Double) -> String {
        servings == 1 ? serving.label : "\(amount(servings)) × \(serving.label)"
    }
}

/// Amounts no single entry plausibly reaches (a typo, a wrong unit, a changed food): a card always
/// shows them, marked, so the person can catch them before approving.
enum Plausibility {
    /// Per entry (or per serving of a saved food), in the id's unit.
    static let bounds: [String: Double] = [
        "energy_kcal": 5_000, "protein_g": 300, "carbohydrate_g": 1_000, "fat_g": 400, "saturated_fat_g": 200,
        "trans_fat_g": 50, "sugars_g": 500, "added_sugars_g": 500, "fiber_g": 150, "alcohol_g": 200,
        "sodium_mg": 10_000, "potassium_mg": 10_000, "cholesterol_mg": 3_000, "caffeine_mg": 1_000, "calcium_mg": 5_000,
        "iron_mg": 100, "water_g": 5_000,
    ]

    /// The bound for `id`: the table, else 20 times its daily value, else by unit.
    static func bound(_ id: String) -> Double {
        if let b = bounds[id] { return b }
        if let dv = NutrientCatalog.nutrient(id)?.dailyValue, dv > 0 { return dv * 20 }
        switch Units.suffix(of: id) {
        case "kcal": return 5_000
        case "g": return 1_000
        case "IU": return 200_000
        default: return 10_000
        }
    }

    static func isImplausible(_ id: String, _ value: Double) -> Bool { value > bound(id) }
}

enum Units {
    /// The unit an unknown id names by its suffix (`lutein_mcg` -> mcg).
    static func suffix(of id: String) -> String {
        for u in ["kcal", "mcg", "mg", "g", "iu"] where id.hasSuffix("_\(u)") { return u == "iu" ? "IU" : u }
        return ""
    }
}

// MARK: - JSON shapes

enum Shape {
    /// Numbers in results: rounded to 4 decimals (enough for every micronutrient unit in use).
    static func number(_ v: Double) -> JSONValue { .number((v * 10_000).rounded() / 10_000) }

    static func nutrients(_ n: NutrientAmounts) -> JSONValue {
        var out: [String: JSONValue] = [:]
        for (id, v) in n { out[id] = number(v) }
        return .object(out)
    }

    static func nutrients(_ map: [String: Double]) -> JSONValue {
        .object(map.mapValues { number($0) })
    }

    /// Totals with "not reported" counts; `only` keeps just those nutrient ids.
    static func totals(_ t: NutrientTotals, only: Set<String>? = nil) -> JSONValue {
        let keep = { (id: String) in only?.contains(id) ?? true }
        var out: [String: JSONValue] = ["entry_count": .number(Double(t.entryCount)), "nutrients": nutrients(t.amounts.filter { keep($0.key) })]
        var missing: [String: JSONValue] = [:]
        for id in t.ids where t.notReportedCount(id) > 0 && keep(id) { missing[id] = .number(Double(t.notReportedCount(id))) }
        if !missing.isEmpty { out["not_reported_by"] = .object(missing) }
        return .object(out)
    }

    static func entry(_ e: Entry) -> JSONValue {
        var o: [String: JSONValue] = [
            "id": .string(e.id.uuidString),
            "date": .string(e.day.description),
            "meal": .string(e.meal.rawValue),
            "name": .string(Text.clean(e.name, max: 200)),
            "amount": .string(Text.serving(e.serving, servings: e.servings)),
            "servings": number(e.servings),
            "nutrients": nutrients(e.totalNutrients),
            "source": .string(e.source.rawValue),
        ]
        if let b = e.brand { o["brand"] = .string(Text.clean(b, max: 100)) }
        if let f = e.savedFoodID { o["saved_food_id"] = .string(f.uuidString) }
        if let d = e.derivedNutrients { o["derived"] = .array(d.map { .string($0) }) }
        if let l = e.mealLabel { o["meal_name"] = .string(Text.clean(l, max: 40)) }
        return .object(o)
    }

    static func serving(_ s: ServingSize) -> JSONValue {
        var o: [String: JSONValue] = ["quantity": number(s.quantity), "unit": .string(s.unit.symbol), "label": .string(s.label)]
        if let g = s.grams { o["grams"] = number(g) }
        if let m = s.milliliters { o["ml"] = number(m) }
        return .object(o)
    }

    /// A saved food; `full` adds measures, ingredients and calculator portions.
    static func food(_ f: SavedFood, status: FoodStatus?, full: Bool) -> JSONValue {
        var o: [String: JSONValue] = [
            "id": .string(f.id.uuidString),
            "name": .string(Text.clean(f.name, max: 200)),
            "kind": .string(f.kind.rawValue),
            "serving": serving(f.serving),
            "on_shelf": .bool(f.isOnShelf),
        ]
        if f.kind != .calculator { o["nutrients_per_serving"] = nutrients(f.nutrients) }
        if let b = f.brand { o["brand"] = .string(Text.clean(b, max: 100)) }
        if let status { o["status"] = .string(status.rawValue) }
        if f.isManuallyArchived { o["archived_by_hand"] = .bool(true) }
        if !f.mappings.isEmpty || full {
            o["units"] = .array(f.mappings.map { m in
                var mo: [String: JSONValue] = ["quantity": number(m.quantity), "unit": .string(m.unit.symbol)]
                if let g = m.grams { mo["grams"] = number(g) }
                if let ml = m.milliliters { mo["ml"] = number(ml) }
                return .object(mo)
            })
        }
        if full {
            if let used = f.lastUsedAt { o["last_used_at"] = .number((used.timeIntervalSince1970).rounded()) }
            if f.kind == .composite {
                o["recipe_servings"] = number(f.recipeServings)
                o["ingredients"] = .array(f.ingredients.map { i in
                    var io: [String: JSONValue] = ["name": .string(Text.clean(i.name)), "quantity": number(i.quantity),
                                                   "unit": .string(i.unit.symbol), "nutrients": nutrients(i.nutrients)]
                    if let b = i.brand { io["brand"] = .string(Text.clean(b, max: 100)) }
                    if let s = i.sourceFoodID { io["food_id"] = .string(s.uuidString) }
                    return .object(io)
                })
            }
            if f.kind == .calculator {
                o["calculator_ingredients"] = .array(f.calculatorIngredients.map { i in
                    .object(["name": .string(Text.clean(i.name)),
                             "portions": .array(i.portions.map { p in .object(["name": .string(Text.clean(p.name)), "nutrients": nutrients(p.nutrients)]) })])
                })
            }
        }
        return .object(o)
    }

    static func goals(_ g: Goals) -> JSONValue {
        var o: [String: JSONValue] = [:]
        for id in g.ids { if let v = g[id] { o[id] = number(v) } }
        return .object(o)
    }
}

extension JSONValue {
    /// This object with `extra` keys added (self unchanged when it is not an object).
    func merging(_ extra: [String: JSONValue]) -> JSONValue {
        guard case .object(var o) = self else { return self }
        for (k, v) in extra { o[k] = v }
        return .object(o)
    }
}

/// A successful result.
func output(_ json: JSONValue, _ summary: String) -> ToolOutput {
    ToolOutput(content: json.serialized, summary: summary)
}
