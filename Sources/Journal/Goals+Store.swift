// Goals: one settings row, FDA Daily Values until the person sets their own or approves the
// profile's; a second row, goal_sources, says where each came from (and weekday calorie targets).
import Base
import Foundation
import Nutrition
import SQLiteKit

extension JournalStore {
    /// The daily goals (FDA Daily Values until set).
    public func goals(in db: Database) throws -> Goals {
        guard let text = try db.scalar("SELECT value FROM journal_settings WHERE key = 'goals'").string else { return .fdaDefaults }
        do { return try JournalJSON.decoder.decode(Goals.self, from: Data(text.utf8)) } catch {
            throw JournalError.corruptRow("goals setting")
        }
    }

    public func goals() throws -> Goals { try queue.read { try goals(in: $0) } }

    /// The settings row that says where each goal came from.
    public static let goalSourcesKey = "goal_sources"

    /// Where each goal came from, the DRI upper limits and weekday calorie targets (empty until
    /// the person sets or approves goals).
    public func goalSources(in db: Database) throws -> GoalSources {
        guard let text = try db.scalar("SELECT value FROM journal_settings WHERE key = ?", [Self.goalSourcesKey]).string else { return GoalSources() }
        do { return try JournalJSON.decoder.decode(GoalSources.self, from: Data(text.utf8)) } catch {
            throw JournalError.corruptRow("goal sources setting")
        }
    }

    public func goalSources() throws -> GoalSources { try queue.read { try goalSources(in: $0) } }

    /// The goals that apply on `day`: a weekday calorie target replaces energy_kcal.
    public func goals(on day: CalendarDay, in db: Database) throws -> Goals {
        try goalSources(in: db).goals(try goals(in: db), on: day)
    }

    /// Replaces all goals; goals that change become the person's own (their provenance says so).
    @discardableResult
    public func setGoals(_ goals: Goals, in db: Database) throws -> Goals {
        try db.transaction { db in
            let old = try self.goals(in: db)
            let sources = try goalSources(in: db).afterPersonChange(from: old, to: goals)
            try writeGoals(goals, sources: sources, in: db)
        }
        return goals
    }

    /// Replaces the goals and their provenance in one transaction (one undo step): what approving
    /// `ofj goals from-profile` writes.
    public func setGoals(_ goals: Goals, sources: GoalSources, in db: Database) throws {
        try db.transaction { db in try writeGoals(goals, sources: sources, in: db) }
    }

    public func setGoals(_ goals: Goals, sources: GoalSources) throws { try queue.write { try setGoals(goals, sources: sources, in: $0) } }

    private func writeGoals(_ goals: Goals, sources given: GoalSources, in db: Database) throws {
        let sources = given.normalized(for: goals)
        for (id, v) in goals.values {
            guard NutrientAmounts.isPlausibleID(id) else { throw JournalError.invalid(field: "goal id", reason: "must be a snake_case id") }
            try check(positive: v, field: "goal \(id)", max: Limits.nutrientAmount)
        }
        for v in sources.weekdayEnergy.values { try check(positive: v, field: "weekday energy goal", max: Limits.nutrientAmount) }
        let json = String(decoding: try JournalJSON.compactEncoder.encode(goals), as: UTF8.self)
        try recording(.goals, "goals", in: db) {
            try db.execute("INSERT INTO journal_settings (key, value) VALUES ('goals', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [json])
        }
        let stored = try db.row("SELECT 1 FROM journal_settings WHERE key = ?", [Self.goalSourcesKey]) != nil
        // Goals set by hand with no sources row need none: their origin is inferred (no extra synced row).
        if sources.isEmpty && !stored { return }
        try recording(.goals, Self.goalSourcesKey, in: db) {
            if sources.isEmpty {
                try db.execute("DELETE FROM journal_settings WHERE key = ?", [Self.goalSourcesKey])
            } else {
                let text = String(decoding: try JournalJSON.compactEncoder.encode(sources), as: UTF8.self)
                try db.execute("INSERT INTO journal_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                               [Self.goalSourcesKey, text])
            }
        }
    }

    @discardableResult
    public func setGoals(_ goals: Goals) throws -> Goals { try queue.write { try setGoals(goals, in: $0) } }

    /// Sets one goal (an id or a display name such as "Calories"); nil removes it.
    @discardableResult
    public func setGoal(_ nutrient: String, to value: Double?, in db: Database) throws -> Goals {
        if let value { try check(positive: value, field: "goal \(nutrient.prefix(40))", max: Limits.nutrientAmount) }
        let updated = try domain { try goals(in: db).setting(nutrient, to: value) }
        return try setGoals(updated, in: db)
    }

    @discardableResult
    public func setGoal(_ nutrient: String, to value: Double?) throws -> Goals {
        try queue.write { try setGoal(nutrient, to: value, in: $0) }
    }

    /// Back to the FDA Daily Values.
    @discardableResult
    public func resetGoals(in db: Database) throws -> Goals {
        try db.transaction { db in
            try recording(.goals, "goals", in: db) { try db.execute("DELETE FROM journal_settings WHERE key = 'goals'") }
            try recording(.goals, Self.goalSourcesKey, in: db) { try db.execute("DELETE FROM journal_settings WHERE key = ?", [Self.goalSourcesKey]) }
        }
        return .fdaDefaults
    }

    @discardableResult
    public func resetGoals() throws -> Goals { try queue.write { try resetGoals(in: $0) } }
}
