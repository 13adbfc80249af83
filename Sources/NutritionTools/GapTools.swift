// get_nutrient_gaps: the same analysis as `ofj gaps` for the assistant.
import Agent
import Base
import Foundation
import Journal
import Nutrition
import ReferenceFoods
import SQLiteKit

struct GetNutrientGaps: JournalReadTool {
    let journal: JournalStore
    let reference: ReferenceDatabase
    let name = NutritionToolName.getNutrientGaps.rawValue
    var group: ToolGroup { .trends }
    let description = """
        Nutrients whose average a day (over the logged days that report each) is below 80% of the FDA Daily Value over a period \
        (default the last 14 days), with how many days report each, and for each up to 3 Food Bank or USDA reference foods that \
        bring the most of it per 100 kcal (and the share of the gap 100 kcal closes). Lists nutrients no entry reports (unknown, \
        not zero). Use for "what am I low on", "which nutrients am I missing", "what should I eat for more iron".
        """
    var parameters: JSONValue {
        Schema.object(["from": Schema.string("First day (YYYY-MM-DD, today, yesterday). Defaults to 13 days before `to`.", maxLength: 20),
                       "to": Schema.string("Last day. Defaults to today.", maxLength: 20)])
    }
    func activity(arguments: JSONValue) -> String { "checking which nutrients fall short of their Daily Value" }
    /// The first use of the process reads the reference files (looked up by id, no search index).
    func prepare() async { try? reference.load() }

    func read(_ args: Args, _ db: Database) throws -> ToolOutput {
        let (from, to) = try range(args, journal: journal, defaultDays: 14)
        try? reference.load()
        let report = try checked(field: "from") { try journal.nutrientGaps(from: from, to: to, reference: reference, in: db) }
        let gaps: [JSONValue] = report.gaps.map { g in
            let foods: [JSONValue] = g.foods.map { f in
                ["source": .string(f.source), "id": .string(f.id), "name": .string(Text.clean(f.name)),
                 "amount_per_100_kcal": Shape.number(f.perHundredKcal), "gap_share_per_100_kcal": Shape.number(f.gapShare)]
            }
            return ["nutrient": .string(g.nutrient), "unit": .string(g.unit), "average_per_day": Shape.number(g.average),
                    "daily_value": Shape.number(g.dailyValue), "target": Shape.number(g.reference),
                    "target_origin": .string((g.targetOrigin ?? .fdaDefault).rawValue), "fraction_of_target": Shape.number(g.fraction),
                    "fraction_of_daily_value": Shape.number(g.dailyValue > 0 ? g.average / g.dailyValue : 0),
                    "reporting_days": .number(Double(g.reportingDays)), "foods": .array(foods)]
        }
        let json: JSONValue = ["from": .string(from.description), "to": .string(to.description),
                               "logged_days": .number(Double(report.loggedDays)), "threshold": Shape.number(report.threshold),
                               "targets": .string(report.personalTargets ? "personal (see target_origin per nutrient)" : "FDA Daily Values (defaults)"),
                               "gaps": .array(gaps), "not_reported": .array(report.notReported.map { .string($0) })]
        return output(json, "\(report.gaps.count) nutrients below 80% of \(report.personalTargets ? "their targets" : "the Daily Value")")
    }
}
