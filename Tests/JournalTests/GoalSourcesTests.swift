// Issue 33 §2: the goals' provenance (goal_sources) is stored with the goals, written with them in
// one undo step, kept true by hand changes, and the day's goals use the weekday calorie target.
import Base
import Foundation
import Nutrition
import SQLiteKit
import Testing
@testable import Journal

@Suite struct GoalSourcesTests {
    func profilePlan(_ store: JournalStore, weekdays: [Int: Double] = [:]) throws -> TargetPlan {
        let p = Profile(sex: .female, birth: day("1989-02-01"), heightCm: 168, activity: .moderate)
        return try PersonalTargets.plan(profile: p, today: store.today(), weightKg: 68, current: try store.goals(),
                                        currentSources: try store.goalSources(), weekdays: weekdays, table: try DRITable.bundled())
    }

    @Test func approvedTargetsAndTheirSourcesAreOneUndoStep() throws {
        let (store, _) = try makeStore()
        let plan = try profilePlan(store, weekdays: [6: 2500, 7: 2500])
        try store.setGoals(plan.goals, sources: plan.sources)
        #expect(try store.goals() == plan.goals)
        #expect(try store.goalSources() == plan.sources)
        #expect(try store.goalSources().origin(of: "iron_mg", in: store.goals()) == .profile)
        let undo = try store.undoPlan(last: 1)
        #expect(undo.steps.count == 1 && undo.steps[0].changes.count == 2)
        try store.undo(last: 1, expected: undo.steps.map(\.id))
        #expect(try store.goals() == .fdaDefaults)
        #expect(try store.goalSources().isEmpty)
        #expect(try store.queue.read { try $0.scalar("SELECT count(*) FROM journal_settings WHERE key IN ('goals', 'goal_sources')").int } == 0)
    }

    @Test func aGoalSetByHandIsMarkedAsTheirsAndTheRestKeepTheirSource() throws {
        let (store, _) = try makeStore()
        let plan = try profilePlan(store)
        try store.setGoals(plan.goals, sources: plan.sources)
        try store.setGoal("protein_g", to: 120)
        let s = try store.goalSources()
        #expect(s.origin(of: "protein_g", in: try store.goals()) == .person)
        #expect(s.origin(of: "iron_mg", in: try store.goals()) == .profile)
        #expect(s.upperLimits["iron_mg"]?.value == 45)
        try store.resetGoals()
        #expect(try store.goalSources().isEmpty)
    }

    @Test func theDayUsesItsWeekdaysCalorieTargetAndSaysWhereGoalsComeFrom() throws {
        let (store, _) = try makeStore()
        #expect(try store.dayView(day("2024-05-04")).goals.first { $0.id == "energy_kcal" }?.origin == .fdaDefault)
        let plan = try profilePlan(store, weekdays: [6: 2500])
        try store.setGoals(plan.goals, sources: plan.sources)
        let saturday = try store.dayView(day("2024-05-04"))
        let friday = try store.dayView(day("2024-05-03"))
        #expect(saturday.goals.first { $0.id == "energy_kcal" }?.goal == 2500)
        #expect(friday.goals.first { $0.id == "energy_kcal" }?.goal == plan.goals["energy_kcal"])
        #expect(friday.goals.first { $0.id == "protein_g" }?.origin == .profile)
        #expect(friday.goals.first { $0.id == "saturated_fat_g" }?.origin == .fdaDefault)
    }

    @Test func aBackupKeepsWhereTheGoalsCameFrom() throws {
        let (store, _) = try makeStore()
        let plan = try profilePlan(store, weekdays: [7: 2600])
        try store.setGoals(plan.goals, sources: plan.sources)
        let data = try store.exportBackup()
        let (other, _) = try makeStore()
        _ = try other.importBackup(data)
        #expect(try other.goals() == plan.goals)
        #expect(try other.goalSources() == plan.sources)
        #expect(try other.goalSources().origin(of: "iron_mg", in: try other.goals()) == .profile)
        // Importing it again changes nothing.
        #expect(try other.importBackup(data).changedNothing)
    }

    @Test func goalsSetByHandAloneWriteNoSourcesRow() throws {
        let (store, _) = try makeStore()
        try store.setGoal("protein_g", to: 140)
        #expect(try store.queue.read { try $0.scalar("SELECT count(*) FROM journal_settings WHERE key = 'goal_sources'").int } == 0)
        #expect(try store.goalSources().origin(of: "protein_g", in: try store.goals()) == .person)
        // Set back to the Daily Value by hand, it is still theirs: that takes an explicit origin.
        try store.setGoal("protein_g", to: 50)
        #expect(try store.goalSources().origin(of: "protein_g", in: try store.goals()) == .person)
    }

    @Test func aStoredGoalSourcesRowIsCheckedLikeEveryOtherSetting() throws {
        let (store, _) = try makeStore()
        try store.queue.write { try $0.execute("INSERT INTO journal_settings (key, value) VALUES ('goal_sources', '{\"weekday_energy\":{\"funday\":1}}')") }
        #expect(try store.queue.read { try store.problemWithStoredSetting(key: "goal_sources", in: $0) } != nil)
        try store.queue.write { try $0.execute("UPDATE journal_settings SET value = '{\"sources\":{}}' WHERE key = 'goal_sources'") }
        #expect(try store.queue.read { try store.problemWithStoredSetting(key: "goal_sources", in: $0) } == nil)
    }
}
