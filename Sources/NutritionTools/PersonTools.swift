// The assistant's body-weight tools (issue 33 §3): log_weight (a write, on a card that says how
// far the reading is from the trend) and get_weight_trend (weigh-ins, the smoothed trend, the weekly
// rate and the expenditure estimate).
import Agent
import Base
import Foundation
import Journal
import Nutrition
import SQLiteKit

public enum PersonTools {
    public static let readToolNames = NutritionToolName.personReads.map(\.rawValue)
    public static let writeToolNames = NutritionToolName.personWrites.map(\.rawValue)

    /// get_weight_trend and log_weight over `journal`.
    public static func make(journal: JournalStore) -> [any Tool] { [GetWeightTrend(journal: journal), LogWeight(journal: journal)] }

    /// get_standing_notes, for MCP clients: a model talking to ofj itself gets the notes with every
    /// request, but an MCP client's model sees only tools and resources.
    public static func standingNotes(journal: JournalStore) -> any Tool { GetStandingNotes(journal: journal) }
}

struct GetStandingNotes: JournalReadTool {
    let journal: JournalStore
    let name = NutritionToolName.getStandingNotes.rawValue
    let description = "The person's standing notes: what they want the assistant always to know (allergies, diet, usual portions)."
    var parameters: JSONValue { Schema.object([:]) }
    func activity(arguments: JSONValue) -> String { "reading your standing notes" }

    func read(_ args: Args, _ db: Database) throws -> ToolOutput {
        let notes = try journal.notes(in: db)
        return output(["notes": notes.map { .string($0) } ?? .null, "characters": .number(Double(notes?.count ?? 0))],
                      notes == nil ? "no standing notes" : "read the standing notes")
    }
}

struct GetWeightTrend: JournalReadTool {
    var group: ToolGroup { .person }
    let journal: JournalStore
    let name = NutritionToolName.getWeightTrend.rawValue
    let description = """
        The person's weigh-ins with the smoothed trend (kg), the weekly rate of change, and the energy expenditure estimated from \
        intake and the trend (null until there is enough data; `needs` says what is missing).
        """
    var parameters: JSONValue { Schema.object(["days": ["type": "integer", "minimum": 1, "maximum": 366, "description": "How many days back (default 30)."]]) }
    func activity(arguments: JSONValue) -> String { "reading your weight trend" }

    func read(_ args: Args, _ db: Database) throws -> ToolOutput {
        let days = args.limit("days", default: 30, max: 366)
        let today = journal.today()
        let first = (try? today.adding(days: -(days - 1))) ?? today
        let points = try journal.weightTrend(to: today, in: db)
        let shown = points.filter { $0.day >= first }.suffix(60)
        let rate = WeightTrend.slopePerDay(points, endingOn: today).map { $0 * 7 }
        let e = try journal.expenditure(on: today, in: db)
        var expenditure: [String: JSONValue] = [
            "expenditure_kcal": e.expenditureKcal.map { .number($0.rounded()) } ?? .null,
            "uncertainty_kcal": e.uncertaintyKcal.map { .number($0.rounded()) } ?? .null,
            "confidence": e.confidence.map { .string($0.rawValue) } ?? .null,
            "window_days": .number(Double(e.windowDays)), "intake_days": .number(Double(e.intakeDays)), "weigh_ins": .number(Double(e.weighIns)),
        ]
        if e.expenditureKcal == nil {
            expenditure["needs"] = .object(["logged_days": .number(Double(e.needsIntakeDays)), "weigh_ins": .number(Double(e.needsWeighIns))])
        }
        let result: JSONValue = .object([
            "unit": "kg",
            "days": .array(shown.map { .object(["day": .string($0.day.description), "mean_kg": Shape.number($0.mean), "trend_kg": Shape.number($0.trend),
                                                "weigh_ins": .number(Double($0.weighIns))]) }),
            "latest_trend_kg": points.last.map { Shape.number($0.trend) } ?? .null,
            "weekly_rate_kg": rate.map { Shape.number($0) } ?? .null,
            "expenditure": .object(expenditure),
            "profile_units": .string(try journal.profile(in: db).unitSystem.rawValue),
        ])
        return output(result, shown.isEmpty ? "no weigh-ins in the last \(days) days" : "read \(shown.count) days of weigh-ins")
    }
}

struct LogWeight: JournalWriteTool {
    var group: ToolGroup { .person }
    let journal: JournalStore
    let name = NutritionToolName.logWeight.rawValue
    let description = "Logs a weigh-in (several a day are fine). `weight` in `unit` (kg or lb, default kg). Needs approval."
    var parameters: JSONValue {
        Schema.object(["weight": Schema.number("The reading on the scale."),
                       "unit": ["type": "string", "enum": ["kg", "lb"], "description": "kg (default) or lb."],
                       "date": Schema.date],
                      required: ["weight"])
    }
    func activity(arguments: JSONValue) -> String { "preparing to log a weigh-in" }

    func plan(_ args: Args, _ db: Database) throws -> WritePlan {
        let value = try args.positive("weight", max: 1_500) ?? 0
        let unit = WeightUnit(rawValue: args.string("unit") ?? "kg") ?? .kg
        let kg = unit.kilograms(value)
        guard JournalStore.weightRange.contains(kg) else {
            throw ToolArgumentError(field: "weight", "must be between 2 and 650 kg, got \(JSONValue.format(kg.rounded(places: 1))) kg")
        }
        let day = try args.day("date", journal: journal) ?? journal.today()
        let profile = try journal.profile(in: db)
        var preview = "Log a weigh-in: \(profile.weightText(kg)) on \(Text.day(day))"
        if unit != (profile.unitSystem == .imperial ? .lb : .kg) { preview += " (\(JSONValue.format(value)) \(unit.rawValue))" }
        if let trend = try journal.weightTrend(to: day, in: db).last?.trend {
            let off = (kg - trend) / trend
            preview += "\nTrend: \(profile.weightText(trend))"
            if abs(off) > 0.2 { preview += "\n⚠ \(Int((abs(off) * 100).rounded()))% from the trend: check the number and the unit" }
        }
        var resolved = args.raw.objectValue ?? [:]
        resolved["unit"] = .string(unit.rawValue)
        resolved["date"] = .string(day.description)
        let change: [String: JSONValue] = ["arguments": .object(resolved), "kg": .number(kg.rounded(places: 3))]
        return WritePlan(preview: preview, change: change) { db in
            let w = try checked(field: "weight") { try journal.logWeight(kg: kg, day: day, source: "assistant", in: db) }
            return output(["weigh_in_id": .string(w.id.uuidString), "kg": Shape.number(w.kg), "date": .string(w.day.description)],
                          "logged a weigh-in of \(profile.weightText(w.kg)) on \(w.day)")
        }
    }
}
