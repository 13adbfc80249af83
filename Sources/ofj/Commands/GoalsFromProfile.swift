// `ofj goals from-profile [--weekdays …] [--yes]` (issue 33 §2): the DRIs of the person's
// life-stage group, energy and protein from their profile and weight, on one approval card.
import Base
import CommandLineKit
import Foundation
import Journal
import Nutrition
import OutputSafety
import SQLiteKit
import Views

extension OfjCommands {
    static func goalsFromProfile(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("from-profile", summary: "personal targets from your profile (DRIs for your life-stage group, energy, protein per kg) on one card; asks first",
                    details: """
                        Every nutrient with a target gets its DRI (RDA, else AI) for your group from sex, birth date and
                        life_stage; ULs and the sodium CDRR come as limits. Energy is Mifflin–St Jeor × your activity factor
                        (needs a weigh-in) until an expenditure estimate replaces it; protein is the RDA in g per kg of
                        your weight trend (0.8 g/kg for adults). --weekdays sets calorie targets by day of the week, e.g.
                        mon-fri=2200,sat-sun=2500 (also weekdays=…, weekend=…). Nothing changes until you approve;
                        ofj undo puts the goals back in one step.
                        """,
                    options: [.value("--weekdays", "DAYS=KCAL,…", .text, "calorie targets by weekday, e.g. mon-fri=2200,sat-sun=2500"), .yes],
                    access: .write,
                    action: journal(ctx) { c, inv in try c.goalsFromProfile(inv.arguments, ask: JournalOps.terminalAsk) })
    }
}

extension JournalCommands {
    /// The person's own daily energy expenditure as of `day` (kcal), when ofj has an estimate:
    /// it replaces Mifflin–St Jeor on the card (`PersonalTargets.energy(…, expenditureKcal:)`).
    /// Only an estimate of medium or high confidence is used; a low one leaves the equation.
    func expenditureForTargets(on day: CalendarDay, in db: Database) throws -> Double? {
        let estimate = try journal.expenditure(on: day, in: db)
        guard let kcal = estimate.expenditureKcal, let confidence = estimate.confidence, confidence != .low else { return nil }
        return kcal
    }

    /// Plans the targets, shows the card, asks (unless --yes), then stores them in one transaction.
    func goalsFromProfile(_ p: ParsedArguments, ask: @Sendable (String) -> Bool?) throws {
        let today = journal.today()
        let table: DRITable
        do { table = try DRITable.bundled() } catch { throw CLIError("\(error); reinstall ofj") }
        var weekdays: [Int: Double] = [:]
        if let w = p.value("--weekdays") {
            do { weekdays = try GoalSources.parseWeekdays(w) } catch let e as NutritionError { throw CLIError(e.description, status: 2) }
        }
        func makePlan(in db: Database) throws -> (TargetPlan, Profile, String?) {
            let profile = try journal.profile(in: db)
            let last = try journal.weightTrend(to: today, in: db).last
            let plan: TargetPlan
            do {
                plan = try PersonalTargets.plan(profile: profile, today: today, weightKg: last?.trend,
                                                expenditureKcal: try expenditureForTargets(on: today, in: db),
                                                current: try journal.goals(in: db), currentSources: try journal.goalSources(in: db),
                                                weekdays: weekdays, table: table)
            } catch let e as ProfileError {
                throw CLIError(e.description, status: 2)
            }
            return (plan, profile, last.map { "weight trend on \($0.day)" })
        }
        let (plan, profile, weightNote) = try journal.queue.read { try makePlan(in: $0) }
        let card = TerminalText.sanitize(TargetCard.render(plan, profile: profile, weightNote: weightNote))
        guard plan.changes else { out(card); return }
        if p.has("--yes") {
            out(card)
        } else {
            switch ask(card + "\nApply these targets? [y/N] ") {
            case nil:
                out(card)
                throw CLIError("ofj goals from-profile changes your goals and there is no terminal to ask on; add --yes to apply them without asking")
            case false?:
                // Declined, as `ofj entry delete` answers n: exit 1, nothing written.
                throw CLIError("nothing was changed: your goals are as they were", status: 1)
            case true?:
                break
            }
        }
        try journal.queue.write { db in
            // What is applied is what the card showed: re-planned in the write, refused if anything moved.
            let (again, _, _) = try makePlan(in: db)
            guard again.goals == plan.goals, again.sources == plan.sources else {
                throw CLIError("nothing was changed: your goals, profile or weight changed while this ran; run the command again")
            }
            try journal.setGoals(plan.goals, sources: plan.sources, in: db)
        }
        let set = plan.rows.filter { !$0.kept }.count
        out("✓ \(set) goals set from your profile (\(plan.group.label)); ofj goals shows them, ofj undo puts the old ones back.")
    }
}
