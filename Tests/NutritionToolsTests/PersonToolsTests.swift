// log_weight and get_weight_trend (issue 33 §3), and get_standing_notes for MCP: the schema refuses
// bad calls, the card shows the reading, the trend and a warning far from it, apply writes exactly
// one weigh-in, and the trend read carries the rate and the expenditure's needs.
import Base
import Foundation
import Testing
import Agent
import Journal
import Nutrition
@testable import NutritionTools

@Suite struct PersonToolsTests {
    let f: Fixture
    let registry: ToolRegistry

    init() throws {
        f = try Fixture(seeded: false)
        registry = ToolRegistry(PersonTools.make(journal: f.journal) + [PersonTools.standingNotes(journal: f.journal)])
    }

    func resolve(_ name: String, _ args: JSONValue) throws -> ToolRegistry.Resolved {
        switch registry.resolve(ToolCall(id: "c", name: name, arguments: args.serialized)) {
        case .success(let r): return r
        case .failure(let e): throw ToolArgumentError(e.message)
        }
    }

    func plan(_ args: JSONValue) throws -> (any WriteTool, PlannedChange) {
        let r = try resolve("log_weight", args)
        let tool = try #require(r.tool as? any WriteTool)
        return (tool, try f.queue.read { try tool.preview(arguments: r.arguments, context: f.context, database: $0) })
    }

    @Test func logWeightShowsTheReadingAndWritesOneWeighIn() throws {
        for i in 0..<10 { try f.journal.logWeight(kg: 81 - 0.1 * Double(i), day: try f.journal.today().adding(days: i - 10), source: "cli") }
        let (tool, planned) = try plan(["weight": 177, "unit": "lb", "date": "today"])
        #expect(planned.card.hasPrefix("Log a weigh-in: 80.3 kg on Sunday 2026-11-29 (177 lb)"))
        #expect(planned.card.contains("Trend: "))
        #expect(!planned.card.contains("⚠"))
        let out = try f.queue.write { try tool.apply(planned, context: f.context, database: $0) }
        #expect(!out.isError)
        let logged = try f.journal.weighIns().filter { $0.source == "assistant" }
        #expect(logged.count == 1 && abs(logged[0].kg - 80.286) < 0.001 && logged[0].day == f.journal.today())
        // Far from the trend: the card says so (the person decides).
        #expect(try plan(["weight": 100]).1.card.contains("⚠ 24% from the trend: check the number and the unit"))
    }

    @Test func badWeightsAreRefusedBeforeAnyCard() throws {
        #expect(throws: (any Error).self) { try resolve("log_weight", ["unit": "kg"]) }
        #expect(throws: (any Error).self) { try resolve("log_weight", ["weight": 80, "unit": "stone"]) }
        #expect(throws: ToolArgumentError.self) { try plan(["weight": 900]) }
        #expect(throws: ToolArgumentError.self) { try plan(["weight": -3]) }
        #expect(throws: ToolArgumentError.self) { try plan(["weight": 80, "date": "someday"]) }
        #expect(try f.journal.weighIns().isEmpty)
    }

    @Test func theTrendReadCarriesTheRateAndWhatTheEstimateNeeds() async throws {
        for i in 0..<20 { try f.journal.logWeight(kg: 81 - 0.1 * Double(i), day: try f.journal.today().adding(days: i - 19), source: "cli") }
        let r = try resolve("get_weight_trend", ["days": 7])
        let out = try JSONValue.parse(try await r.tool.execute(arguments: r.arguments, context: f.context).content)
        #expect(out["days"]?.arrayValue?.count == 7)
        #expect(abs((out["weekly_rate_kg"]?.doubleValue ?? 0) + 0.7) < 0.001)
        #expect(out["expenditure"]?["expenditure_kcal"] == .null)
        #expect(out["expenditure"]?["needs"]?["logged_days"] == 14)
        try f.journal.setNotes("no peanuts")
        let n = try resolve("get_standing_notes", [:])
        let notes = try JSONValue.parse(try await n.tool.execute(arguments: n.arguments, context: f.context).content)
        #expect(notes["notes"] == "no peanuts")
    }
}
