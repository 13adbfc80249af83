// Test fixtures: one in-memory database with agent and journal tables, a virtual clock at a fixed
// local time, a seeded Food Bank and journal, and helpers that call tools the way the runner does.
import Base
import Foundation
import Testing
import Agent
import Journal
import Nutrition
import ReferenceFoods
import SQLiteKit
@testable import NutritionTools

/// 2026-11-29 (a Sunday) 08:30 UTC: breakfast time.
let fixtureEpoch: Double = 1_795_941_000
let utc = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current

/// Every catalog nutrient with a distinct value (4 decimals at most) plus one id the catalog does not know.
func fullNutrients(_ scale: Double = 1) -> NutrientAmounts {
    var values: [String: Double] = [:]
    for (i, n) in NutrientCatalog.all.enumerated() { values[n.id] = ((Double(i + 1) * 1.25 + 0.0625) * scale * 10_000).rounded() / 10_000 }
    values["hesperidin_mg"] = 12.5 * scale
    return (try? NutrientAmounts(values)) ?? NutrientAmounts()
}

func json(_ n: NutrientAmounts) -> JSONValue {
    var o: [String: JSONValue] = [:]
    for (k, v) in n { o[k] = .number(v) }
    return .object(o)
}

func amounts(_ value: JSONValue?) -> [String: Double] {
    var out: [String: Double] = [:]
    for (k, v) in value?.objectValue ?? [:] { out[k] = v.doubleValue }
    return out
}

func nutrients(_ pairs: [String: Double]) -> NutrientAmounts { (try? NutrientAmounts(pairs)) ?? NutrientAmounts() }

/// Ids of the seeded foods and entries.
struct Seed {
    var oatmeal: UUID
    var oatMilk: UUID
    var yogurt: UUID
    var bowl: UUID
    var coffee: UUID
    var toast: UUID
    var tofu: UUID
    var bananaYesterday: UUID
}

/// A database with agent and journal tables, a journal at the fixture's clock, and the tools.
final class Fixture: Sendable {
    let queue: DatabaseQueue
    let clock: VirtualClock
    let journal: JournalStore
    let registry: ToolRegistry
    let seed: Seed

    init(seeded: Bool = true, customMeals: [CustomMeal] = []) throws {
        queue = try DatabaseQueue(path: ":memory:")
        var migrator = Migrator()
        ConversationStore.registerMigrations(into: &migrator)
        JournalStore.registerMigrations(into: &migrator)
        try queue.migrate(migrator)
        let clock = VirtualClock(epoch: fixtureEpoch)
        self.clock = clock
        journal = JournalStore(queue: queue, timeZone: utc, now: { Date(timeIntervalSince1970: clock.now()) }).with(customMeals: customMeals)
        registry = NutritionToolbox.makeRegistry(journal: journal, reference: .shared)
        seed = seeded ? try Fixture.seed(journal) : Seed(oatmeal: UUID(), oatMilk: UUID(), yogurt: UUID(), bowl: UUID(), coffee: UUID(), toast: UUID(), tofu: UUID(), bananaYesterday: UUID())
    }

    static func seed(_ j: JournalStore) throws -> Seed {
        let today = j.today()
        let yesterday = try today.adding(days: -1)
        let oatmeal = try j.createFood(FoodDraft(name: "Oatmeal", brand: "Quaker", serving: ServingSize(quantity: 40, unit: .mass(.g)),
                                                 nutrients: fullNutrients(), isOnShelf: true))
        let oatMilk = try j.createFood(FoodDraft(name: "Oat milk", brand: "Oatly", serving: ServingSize(quantity: 1, unit: .volume(.cup), milliliters: 240),
                                                 nutrients: nutrients(["energy_kcal": 120, "protein_g": 3, "carbohydrate_g": 16, "fat_g": 5, "calcium_mg": 350])))
        let yogurt = try j.createFood(FoodDraft(name: "Greek yogurt", brand: "Fage", serving: ServingSize(quantity: 170, unit: .mass(.g)),
                                                nutrients: nutrients(["energy_kcal": 100, "protein_g": 18, "carbohydrate_g": 6, "fat_g": 0, "sugars_g": 5]),
                                                isOnShelf: true))
        let bowl = try j.createFood(FoodDraft(kind: .calculator, name: "Burrito bowl", brand: "Chipotle", calculatorIngredients: [
            CalculatorIngredient(name: "Rice", portions: [CalculatorPortion(name: "white", nutrients: nutrients(["energy_kcal": 210, "carbohydrate_g": 40])),
                                                          CalculatorPortion(name: "brown", nutrients: nutrients(["energy_kcal": 210, "fiber_g": 2]))]),
            CalculatorIngredient(name: "Protein", portions: [CalculatorPortion(name: "chicken", nutrients: nutrients(["energy_kcal": 180, "protein_g": 32, "sodium_mg": 310]))]),
        ]))
        let toast = try j.logEntry(EntryDraft(day: yesterday, meal: .breakfast, name: "Toast", serving: ServingSize(quantity: 2, unit: .count("slice")),
                                              nutrients: nutrients(["energy_kcal": 160, "protein_g": 6, "sodium_mg": 300, "sugars_g": 3])))
        let banana = try j.logEntry(EntryDraft(day: yesterday, meal: .snack, name: "Banana", serving: ServingSize(quantity: 1, unit: .count("piece")),
                                               nutrients: nutrients(["energy_kcal": 105, "protein_g": 1.3, "sugars_g": 14.4])))
        let tofu = try j.logEntry(EntryDraft(day: today, meal: .breakfast, name: "Scrambled tofu", serving: ServingSize(quantity: 150, unit: .mass(.g)),
                                             nutrients: nutrients(["energy_kcal": 220, "protein_g": 18, "sodium_mg": 400])))
        let coffee = try j.logEntry(EntryDraft(day: today, meal: .lunch, name: "Coffee, brewed", serving: ServingSize(quantity: 1, unit: .volume(.cup)),
                                               nutrients: nutrients(["energy_kcal": 2, "caffeine_mg": 95])))
        return Seed(oatmeal: oatmeal.id, oatMilk: oatMilk.id, yogurt: yogurt.id, bowl: bowl.id, coffee: coffee.id, toast: toast.id, tofu: tofu.id, bananaYesterday: banana.id)
    }

    let context = ToolContext(threadID: "t", runID: "r", callID: "c", now: WallTime(secondsSince1970: fixtureEpoch))

    func resolve(_ name: String, _ args: JSONValue) throws -> ToolRegistry.Resolved {
        switch registry.resolve(ToolCall(id: "c", name: name, arguments: args.serialized)) {
        case .success(let r): return r
        case .failure(let e): throw ToolArgumentError(e.message)
        }
    }

    /// Runs a read tool and parses its JSON result.
    func read(_ name: String, _ args: JSONValue = [:]) async throws -> JSONValue {
        let r = try resolve(name, args)
        #expect(r.tool.effect == .read)
        let out = try await r.tool.execute(arguments: r.arguments, context: context)
        #expect(!out.isError)
        #expect(out.content.utf8.count <= registry.resultLimit)
        return try JSONValue.parse(out.content)
    }

    func writeTool(_ name: String) throws -> any WriteTool {
        guard let t = registry.tool(named: name) as? any WriteTool else { throw ToolArgumentError("\(name) is not a write tool") }
        return t
    }

    /// The preview a write would show.
    func preview(_ name: String, _ args: JSONValue) throws -> String {
        let r = try resolve(name, args)
        let tool = try writeTool(name)
        return try queue.read { try tool.preview(arguments: r.arguments, context: context, database: $0) }.card
    }

    /// Previews then applies a write inside one transaction (as the ledger does); returns the parsed result.
    @discardableResult
    func write(_ name: String, _ args: JSONValue) throws -> JSONValue {
        let r = try resolve(name, args)
        let tool = try writeTool(name)
        let planned = try queue.read { try tool.preview(arguments: r.arguments, context: context, database: $0) }
        let out = try queue.write { try tool.apply(planned, context: context, database: $0) }
        #expect(!out.isError)
        return try JSONValue.parse(out.content)
    }

    /// The error message a bad call gets (schema rejection, preview or apply), or nil when it succeeded.
    func rejection(_ name: String, _ args: JSONValue) async -> String? {
        let r: ToolRegistry.Resolved
        do { r = try resolve(name, args) } catch { return "\(error)" }
        if r.tool.effect == .read {
            do { _ = try await r.tool.execute(arguments: r.arguments, context: context); return nil } catch { return "\(error)" }
        }
        guard let tool = r.tool as? any WriteTool else { return "not a write tool" }
        let planned: PlannedChange
        do {
            planned = try queue.read { try tool.preview(arguments: r.arguments, context: context, database: $0) }
        } catch {
            return "\(error)"
        }
        do {
            _ = try queue.write { try tool.apply(planned, context: context, database: $0) }
            return nil
        } catch { return "\(error)" }
    }

    /// Everything a write can touch, to prove a rejected call wrote nothing.
    func snapshot() throws -> String {
        try queue.read { db in
            var parts: [String] = []
            for table in ["journal_entries", "journal_entry_nutrients", "journal_saved_foods", "journal_settings"] {
                let rows = try db.rows("SELECT * FROM \(table) ORDER BY 1")
                parts.append("\(table):" + rows.map { r in r.values.map { "\($0)" }.joined(separator: "|") }.joined(separator: ";"))
            }
            return parts.joined(separator: "\n")
        }
    }

    func entryCount() throws -> Int { try queue.read { try $0.scalar("SELECT COUNT(*) FROM journal_entries").int ?? -1 } }
}
