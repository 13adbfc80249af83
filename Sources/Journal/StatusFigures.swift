// What `ofj status` shows: a day's totals of the main nutrients, the goals and when the last
// entry was logged, in five indexed reads (no entry is decoded; goal_sources for a weekday target).
import Base
import Foundation
import Nutrition
import SQLiteKit

/// The figures of a status line.
public struct StatusFigures: Sendable, Equatable {
    /// The day's total per nutrient id, for the main nutrients that some entry reports.
    public var totals: [String: Double]
    /// How many entries the day has.
    public var entries: Int
    public var goals: Goals
    /// When the most recent entry of the day or an earlier one was logged (nil: none yet).
    public var lastEntryAt: Date?

    public init(totals: [String: Double] = [:], entries: Int = 0, goals: Goals = .fdaDefaults, lastEntryAt: Date? = nil) {
        self.totals = totals; self.entries = entries; self.goals = goals; self.lastEntryAt = lastEntryAt
    }

    /// The main nutrients a status line can show.
    public static let nutrients = ["energy_kcal", "protein_g", "carbohydrate_g", "fat_g"]
}

extension JournalStore {
    /// The status figures of `day`; the last entry is the latest logged at or before `now` for
    /// `day` or an earlier day (an entry planned for tomorrow does not end a fast).
    public func statusFigures(on day: CalendarDay, now: Date, in db: Database) throws -> StatusFigures {
        var figures = StatusFigures(goals: try goals(on: day, in: db))
        try db.forEachRow("SELECT nutrient, total FROM journal_day_totals WHERE day = ? AND nutrient IN ('energy_kcal', 'protein_g', 'carbohydrate_g', 'fat_g')",
                          [day.description]) { s in
            if let id = s.value(at: 0).string { figures.totals[id] = s.value(at: 1).double ?? 0 }
        }
        figures.entries = try db.scalar("SELECT count(*) FROM journal_entries WHERE day = ?", [day.description]).int ?? 0
        let last = try db.scalar("SELECT created_at FROM journal_entries WHERE day <= ? AND created_at <= ? ORDER BY created_at DESC LIMIT 1",
                                 [day.description, now.milliseconds])
        figures.lastEntryAt = last.int64.map { Date(milliseconds: $0) }
        return figures
    }
}
