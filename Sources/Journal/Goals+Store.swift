// Goals: stored as one settings row; FDA Daily Values until the user sets their own.
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

    /// Replaces all goals.
    @discardableResult
    public func setGoals(_ goals: Goals, in db: Database) throws -> Goals {
        for (id, v) in goals.values {
            guard NutrientAmounts.isPlausibleID(id) else { throw JournalError.invalid(field: "goal id", reason: "must be a snake_case id") }
            try check(positive: v, field: "goal \(id)", max: Limits.nutrientAmount)
        }
        let json = String(decoding: try JournalJSON.compactEncoder.encode(goals), as: UTF8.self)
        try db.transaction { db in
            try recording(.goals, "goals", in: db) {
                try db.execute("INSERT INTO journal_settings (key, value) VALUES ('goals', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [json])
            }
        }
        return goals
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
        try db.transaction { db in try recording(.goals, "goals", in: db) { try db.execute("DELETE FROM journal_settings WHERE key = 'goals'") } }
        return .fdaDefaults
    }

    @discardableResult
    public func resetGoals() throws -> Goals { try queue.write { try resetGoals(in: $0) } }
}
