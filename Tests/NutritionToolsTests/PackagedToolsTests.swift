// The packaged-food tools: lookup over a fake Open Food Facts, then log and save through the same
// preview + apply the ledger uses; the card shows source, name, brand, barcode, portion, nutrients.
import Base
import Foundation
import Testing
import Agent
import HTTP
import Journal
import Nutrition
import PackagedFoods
import SQLiteKit
import TestSupport
@testable import NutritionTools

/// A bar whose OFF record has per-serving values and a named portion.
let barJSON = #"""
{"code":"3017620422003","status":1,"product":{"product_name":"Hazelnut bar","brands":"Nutty,Other","serving_size":"1 bar (40 g)",
 "product_quantity":"160","nutriments":{"energy-kcal_100g":500,"proteins_100g":8,"carbohydrates_100g":55,"fat_100g":28,"salt_100g":0.25,
 "energy-kcal_serving":200,"proteins_serving":3.2,"carbohydrates_serving":22,"fat_serving":11.2,"salt_serving":0.1}}}
"""#

final class PackagedFixture: Sendable {
    let queue: DatabaseQueue
    let journal: JournalStore
    let registry: ToolRegistry
    let transport: FakeHTTPTransport
    let context = ToolContext(threadID: "t", runID: "r", callID: "c", now: WallTime(secondsSince1970: fixtureEpoch))

    init(replies: [FakeHTTPTransport.Reply]) throws {
        queue = try DatabaseQueue(path: ":memory:")
        var m = Migrator()
        ConversationStore.registerMigrations(into: &m)
        JournalStore.registerMigrations(into: &m)
        PackagedStore.registerMigrations(into: &m)
        try queue.migrate(m)
        let now: @Sendable () -> Date = { Date(timeIntervalSince1970: fixtureEpoch) }
        journal = JournalStore(queue: queue, timeZone: utc, now: now)
        transport = FakeHTTPTransport(replies: replies)
        let foods = PackagedFoods(transport: transport, config: PackagedConfig(offBaseURL: "http://off.test"),
                                  store: PackagedStore(queue: queue, now: now), sleep: { _ in })
        registry = NutritionToolbox.makeRegistry(journal: journal, reference: .shared,
                                                 extraTools: PersonTools.make(journal: journal) + PackagedTools.make(journal: journal, foods: foods))
    }

    func resolve(_ name: String, _ args: JSONValue) throws -> ToolRegistry.Resolved {
        switch registry.resolve(ToolCall(id: "c", name: name, arguments: args.serialized)) {
        case .success(let r): return r
        case .failure(let e): throw ToolArgumentError(e.message)
        }
    }

    func read(_ name: String, _ args: JSONValue) async throws -> ToolOutput {
        let r = try resolve(name, args)
        return try await r.tool.execute(arguments: r.arguments, context: context)
    }

    func preview(_ name: String, _ args: JSONValue) throws -> PlannedChange {
        let r = try resolve(name, args)
        let tool = try #require(registry.tool(named: name) as? any WriteTool)
        return try queue.read { try tool.preview(arguments: r.arguments, context: context, database: $0) }
    }

    func apply(_ name: String, _ planned: PlannedChange) throws -> JSONValue {
        let tool = try #require(registry.tool(named: name) as? any WriteTool)
        return try JSONValue.parse(try queue.write { try tool.apply(planned, context: context, database: $0) }.content)
    }
}

@Suite struct PackagedToolsTests {
    static let json = [HTTPHeader("Content-Type", "application/json")]

    @Test func lookupThenLogOneServingWithTheCardItShowed() async throws {
        let f = try PackagedFixture(replies: [.init(headers: Self.json, text: barJSON)])
        let out = try await f.read("lookup_barcode", ["barcode": "3017620422003"])
        #expect(!out.isError)
        let product = try JSONValue.parse(out.content)["product"]
        #expect(product?["name"] == "Hazelnut bar")
        #expect(product?["brand"] == "Nutty")
        #expect(product?["serving"] == "1 bar (40 g)")
        #expect(product?["attribution"] == "data © Open Food Facts contributors, ODbL")
        #expect(f.transport.requests.first?.headers.contains { $0.name == "User-Agent" && $0.value.hasPrefix("ofj/") } == true)

        let planned = try f.preview("log_packaged_food", ["barcode": "3017620422003", "meal": "snack"])
        #expect(planned.card.hasPrefix("Log to the journal: Hazelnut bar (Nutty) — 1 bar (40 g)\n"))
        #expect(planned.card.contains("Source: Open Food Facts, from cache, fetched 2026-"))
        #expect(planned.card.contains("barcode 3017620422003"))
        #expect(planned.card.contains("200 kcal"))
        #expect(planned.card.hasSuffix("data © Open Food Facts contributors, ODbL"))
        let r = try f.apply("log_packaged_food", planned)
        let id = try #require(r["logged"]?["id"]?.stringValue.flatMap(UUID.init(uuidString:)))
        let e = try #require(try f.journal.entry(id))
        #expect(e.source == .packaged)
        #expect(e.nutrients["energy_kcal"] == 200)
        #expect(e.nutrients["sodium_mg"] == 40)
        #expect(e.derivedNutrients == ["sodium_mg"]) // computed from salt, marked like the reference's derived values
        #expect(e.serving == ServingSize(quantity: 1, unit: .count("bar"), grams: 40))
        #expect(e.meal == .snack)
        #expect(f.transport.requests.count == 1)
    }

    @Test func logByAmountAndGrams() async throws {
        let f = try PackagedFixture(replies: [.init(headers: Self.json, text: barJSON)])
        _ = try await f.read("lookup_barcode", ["barcode": "3017620422003"])
        let two = try f.preview("log_packaged_food", ["barcode": "3017620422003", "amount": "2 bars"])
        #expect(two.card.contains("2 × 1 bar (40 g)") && two.card.contains("400 kcal"))
        let grams = try f.preview("log_packaged_food", ["barcode": "3017620422003", "grams": 30])
        #expect(grams.card.contains("30 g") && grams.card.contains("150 kcal"))
        #expect(throws: ToolArgumentError.self) { try f.preview("log_packaged_food", ["barcode": "3017620422003", "amount": "1 cup"]) }
    }

    @Test func aProductNotLookedUpIsRefusedWithWhatToDo() throws {
        let f = try PackagedFixture(replies: [])
        do {
            _ = try f.preview("log_packaged_food", ["barcode": "3017620422003"])
            Issue.record("expected a refusal")
        } catch let e as ToolArgumentError {
            #expect(e.description.contains("lookup_barcode"))
        }
        #expect(throws: ToolArgumentError.self) { try f.preview("log_packaged_food", ["barcode": "3017620422004"]) }
    }

    @Test func saveThenTheNextLookupIsTheFoodBank() async throws {
        let f = try PackagedFixture(replies: [.init(headers: Self.json, text: barJSON)])
        _ = try await f.read("lookup_barcode", ["barcode": "3017620422003"])
        let planned = try f.preview("save_packaged_food", ["barcode": "3017620422003"])
        #expect(planned.card.hasPrefix("Save to the Food Bank: Hazelnut bar (Nutty) — serving 1 bar (40 g)"))
        _ = try f.apply("save_packaged_food", planned)
        let saved = try #require(try f.journal.food(barcode: "3017620422003"))
        #expect(saved.nutrients["energy_kcal"] == 200)
        #expect(saved.derivedNutrients == ["sodium_mg"])
        let again = try JSONValue.parse(try await f.read("lookup_barcode", ["barcode": "3017620422003"]).content)
        #expect(again["product"]?["origin"] == "your Food Bank")
        #expect(again["product"]?["attribution"] == nil)
        #expect(throws: ToolArgumentError.self) { try f.preview("save_packaged_food", ["barcode": "3017620422003"]) }
        let log = try f.preview("log_packaged_food", ["barcode": "3017620422003"])
        #expect(log.card.contains("Source: your Food Bank"))
    }

    @Test func aRefreshedRecordAfterTheCardIsAConflict() async throws {
        let f = try PackagedFixture(replies: [.init(headers: Self.json, text: barJSON)])
        _ = try await f.read("lookup_barcode", ["barcode": "3017620422003"])
        let planned = try f.preview("log_packaged_food", ["barcode": "3017620422003"])
        try f.queue.write { try $0.execute("UPDATE packaged_products SET fetched_at = fetched_at + 1000") }
        #expect(throws: ChangeConflict.self) { try f.apply("log_packaged_food", planned) }
        #expect(try f.queue.read { try $0.scalar("SELECT count(*) FROM journal_entries").int } == 0)
    }

    @Test func noNutritionDataIsNeverLogged() async throws {
        let f = try PackagedFixture(replies: [.init(headers: Self.json, text: #"{"status":1,"product":{"product_name":"Mystery"}}"#)])
        _ = try await f.read("lookup_barcode", ["barcode": "3017620422003"])
        do {
            _ = try f.preview("log_packaged_food", ["barcode": "3017620422003"])
            Issue.record("expected a refusal")
        } catch let e as ToolArgumentError {
            #expect(e.description.contains("no nutrition data"))
        }
    }

    @Test func searchCachesEachHitForLogging() async throws {
        let body = try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../PackagedFoodsTests/Fixtures/off-search-coca.json"))
        let f = try PackagedFixture(replies: [.init(headers: Self.json, body: Array(body))])
        let out = try JSONValue.parse(try await f.read("search_packaged_foods", ["query": "coca", "limit": 3]).content)
        #expect(out["count"] == 3)
        let planned = try f.preview("log_packaged_food", ["barcode": "5449000267436"])
        #expect(planned.card.contains("250 mL") && planned.card.contains("108 kcal"))
    }
}
