// `ofj expenditure` (adaptive expenditure from intake and the weight trend), `ofj checkin` (a new
// calorie goal from it, on set_goals' approval card) and `ofj day mark` (a day's log complete or
// incomplete, which the estimate reads).
import Agent
import Base
import CommandLineKit
import Foundation
import Journal
import Nutrition
import NutritionTools
import OutputSafety
import ReferenceFoods
import Views

extension OfjCommands {
    static func expenditure(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("expenditure", summary: "your daily energy expenditure, estimated from logged intake and the weight trend",
                    details: """
                        Energy balance over the last 8 weeks up to DATE: the mean intake of the counted days minus
                        7,700 kcal per kg of the weight trend's change a day (the trend: least-squares slope of the
                        daily mean weights, each corrected for the logged intake above or below the mean before it). 7,700 kcal/kg (about 3,500 kcal/lb) is the energy in a kilogram of body
                        fat tissue; over weeks most of a change in weight is fat tissue, while over days water and
                        glycogen move the scale with little energy, which is why the estimate needs weeks.
                        Days with no entries are left out, never read as zero; so are days marked incomplete
                        (ofj day mark incomplete DATE), days whose entries report no energy, and today until it is
                        marked complete. A day marked complete with nothing logged counts as a day of no intake. A gap of 14 days or more with
                        nothing counted: only the stretch after it is used, and the output says so.
                        Needs 14 counted days and weigh-ins on 8 days covering at least 14 days.
                        """,
                    options: [.value("--date", "DATE", .date, "the day to estimate for (default today)"), .json],
                    access: .read,
                    action: journal(ctx) { c, inv in try c.expenditure(inv.arguments) })
    }

    static func checkin(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("checkin", summary: "propose a new calorie goal from your expenditure and weight goal, on an approval card",
                    details: """
                        Needs a weight goal (ofj profile set goal=lose|maintain|gain rate=0.5kg/week) and an expenditure
                        estimate (ofj expenditure). The target is expenditure + the weekly rate × 7,700 kcal/kg ÷ 7,
                        rounded to 10 kcal, and never below a floor: 1,200 kcal a day for women, 1,500 for men (or
                        when sex is not set), the intakes below which a diet needs medical supervision. The card is
                        set_goals' card; nothing changes unless you approve it (--yes for scripts).
                        """,
                    options: [.value("--date", "DATE", .date, "check in as of this day (default today)"), .yes, .json],
                    access: .write,
                    action: ops(ctx) { o, inv in try o.checkin(inv.arguments) })
    }

    static func dayMark(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("mark", summary: "mark a day's log complete or incomplete (clear removes the mark); ofj expenditure leaves incomplete days out",
                    arguments: [PositionalSpec("STATE", .choice(["complete", "incomplete", "clear"])), PositionalSpec("DATE", .date, optional: true)],
                    options: [.json],
                    access: .write,
                    action: journal(ctx) { c, inv in try c.dayMark(inv.arguments) })
    }
}

extension JournalOps {
    // MARK: - checkin

    func checkin(_ p: ParsedArguments) throws {
        let day = try commands.parseDay(p.value("--date"))
        let (estimate, profile, goals) = try journal.queue.read { db in
            (try journal.expenditure(on: day, in: db), try journal.profile(in: db), try journal.goals(in: db))
        }
        let current = goals["energy_kcal"]
        let proposal: CheckInProposal
        do { proposal = try CheckIn.propose(estimate: estimate, profile: profile, currentGoalKcal: current) } catch let e as CheckInUnavailable {
            throw CLIError(e.description)
        }
        // Offered: the REPL's weekly offer waits another week, whatever the answer.
        try journal.setLastCheckIn(journal.today())
        let json = p.has("--json")
        func result(_ applied: Bool) {
            guard json else { return }
            out(TerminalText.escapingJSON(JSONValue.object([
                "date": .string(day.description), "expenditure_kcal": .number(proposal.expenditureKcal.rounded()),
                "rate_kg_per_week": .number(proposal.kgPerWeek.rounded(places: 3)), "target_kcal": .number(proposal.targetKcal),
                "floor_kcal": proposal.floorApplied.map { .number($0) } ?? .null, "current_goal_kcal": current.map { .number($0) } ?? .null,
                "reasoning": .string(proposal.reasoning), "applied": .bool(applied),
            ]).serialized))
        }
        if !json { out(TerminalText.sanitize(proposal.reasoning, keepNewlines: false)) }
        if proposal.isNoChange {
            if !json { out("Your calorie goal of \(CheckIn.grouped(current ?? 0)) kcal already fits: nothing to change.") }
            result(false)
            return
        }
        let registry = ToolRegistry(NutritionToolbox.makeTools(journal: journal, reference: ReferenceDatabase.shared))
        guard let tool = registry.tool(named: NutritionToolName.setGoals.rawValue) as? any WriteTool else { throw CLIError("internal: no tool set_goals") }
        let context = ToolContext(threadID: "cli", runID: "cli", callID: UUID().uuidString,
                                  now: WallTime(secondsSince1970: journal.now().timeIntervalSince1970))
        let asking: ((String) -> Bool?)? = p.has("--yes") ? nil : { [ask] in ask($0) }
        let applied = try Self.confirmAndApply(tool, arguments: .object(["goals": .object(["energy_kcal": .number(proposal.targetKcal)])]),
                                               context: context, journal: journal, ask: asking,
                                               question: "Set this goal? [y/N] ", command: "ofj checkin", json: json, out: out)
        if applied == nil, !json {
            out("Not changed: your calorie goal stays " + (current.map { "\(CheckIn.grouped($0)) kcal" } ?? "unset") + "; ofj checkin proposes it again.")
        }
        result(applied.map { !$0.isError } ?? false)
    }
}

extension JournalCommands {
    // MARK: - expenditure

    func expenditure(_ p: ParsedArguments) throws {
        let date = try parseDay(p.value("--date"))
        let e = try journal.expenditure(on: date)
        if p.has("--json") {
            out(TerminalText.escapingJSON(ExpenditureView.json(e).serialized))
            return
        }
        out(ExpenditureView.text(e, profile: try journal.profile()))
    }

    // MARK: - day mark

    func dayMark(_ p: ParsedArguments) throws {
        let state = p.positionals[0]
        let day = try parseDay(p.positionals.count > 1 ? p.positionals[1] : nil)
        let mark = DayMark(rawValue: state)
        do { try journal.setDayMark(mark, on: day) } catch let e as JournalError { throw CLIError("\(e)", status: 2) }
        if p.has("--json") {
            out(JSONValue.object(["date": .string(day.description), "mark": mark.map { .string($0.rawValue) } ?? .null]).serialized)
            return
        }
        let entries = try journal.dayView(day).totals.entryCount
        switch mark {
        case .complete?:
            out("Marked \(day) complete" + (entries == 0 ? ": nothing is logged, so ofj expenditure counts it as a day of no intake." : "."))
        case .incomplete?:
            out("Marked \(day) incomplete: ofj expenditure leaves it out.")
        case nil:
            out("Removed the mark of \(day)" + (entries > 0 ? ": it counts as logged again." : "."))
        }
    }
}
