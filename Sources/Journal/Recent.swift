// Recent and frequent foods (issue 34 §2): what a person logs at this time of day, ranked, for
// `ofj recent`, Tab completion and the offline assistant's choices.
import Base
import Foundation
import Nutrition
import SQLiteKit

/// A food logged often at this time of day (or for one meal) in the recent window.
public struct RecentFood: Sendable, Hashable {
    public var name: String
    public var brand: String?
    /// The Food Bank food it was logged from, when it was.
    public var savedFoodID: UUID?
    public var source: EntrySource
    /// Entries of it in the window that match the time of day (or meal).
    public var count: Int
    /// Its newest such entry (the amount to log it again with).
    public var last: Entry
}

extension JournalStore {
    /// The window `recentFoods` looks back over, in days (today included).
    public static let recentWindowDays = 28
    /// How far from the time of day an entry may be to count for it, in minutes either side.
    public static let recentTimeSpan = 90

    /// Foods of the last `recentWindowDays` days ranked for `meal`, or (no meal) for the local
    /// time of `at`: an entry counts when it was eaten within `recentTimeSpan` minutes of that
    /// time of day (any day in the window; the clock wraps at midnight). Foods are one saved food,
    /// or one name and source when not from the Food Bank; quick adds and water are left out.
    /// Ranked by count, then by the newest entry, then by name.
    public func recentFoods(meal: Meal? = nil, at date: Date? = nil, limit: Int = 10, in db: Database) throws -> [RecentFood] {
        let when = date ?? now()
        let today = day(of: when)
        let from = (try? today.adding(days: -(Self.recentWindowDays - 1))) ?? today
        let entries = try loadEntries(where: "day >= ? AND day <= ?", [from.description, today.description],
                                      order: "day, seq", days: (from.description, today.description), in: db)
        let target = minuteOfDay(when)
        var groups: [String: RecentFood] = [:]
        for e in entries {
            if (e.source == .manual || e.source == .assistant) && (e.name == Self.quickAddName || e.name == Self.waterName) { continue }
            if let meal {
                guard e.meal == meal else { continue }
            } else {
                let d = abs(minuteOfDay(eatenTime(e)) - target)
                guard min(d, 1440 - d) <= Self.recentTimeSpan else { continue }
            }
            let key = e.savedFoodID.map { "food:" + $0.uuidString } ?? "\(e.source.rawValue):\(e.name.lowercased())"
            if var g = groups[key] {
                g.count += 1
                if (e.day, eatenTime(e)) >= (g.last.day, eatenTime(g.last)) { g.last = e; g.name = e.name; g.brand = e.brand }
                groups[key] = g
            } else {
                groups[key] = RecentFood(name: e.name, brand: e.brand, savedFoodID: e.savedFoodID, source: e.source, count: 1, last: e)
            }
        }
        let ranked = groups.values.sorted { a, b in
            if a.count != b.count { return a.count > b.count }
            if a.last.day != b.last.day { return a.last.day > b.last.day }
            if eatenTime(a.last) != eatenTime(b.last) { return eatenTime(a.last) > eatenTime(b.last) }
            return a.name.lowercased() < b.name.lowercased()
        }
        return Array(ranked.prefix(max(0, limit)))
    }

    public func recentFoods(meal: Meal? = nil, at date: Date? = nil, limit: Int = 10) throws -> [RecentFood] {
        try queue.read { try recentFoods(meal: meal, at: date, limit: limit, in: $0) }
    }

    /// When an entry was eaten: the time given with it, else when it was logged.
    public func eatenTime(_ e: Entry) -> Date { e.eatenAt ?? e.createdAt }

    /// Minutes since local midnight of `date` in the store's time zone (0–1439).
    public func minuteOfDay(_ date: Date) -> Int {
        let local = date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))
        let seconds = local - (local / 86_400).rounded(.down) * 86_400
        return min(1439, max(0, Int(seconds / 60)))
    }

    /// The moment `minute` (since local midnight) of `day` in the store's time zone.
    public func date(on day: CalendarDay, minute: Int) -> Date {
        let wall = Date(timeIntervalSince1970: Double(day.dayNumber) * 86_400 + Double(minute * 60))
        let first = wall.addingTimeInterval(-Double(timeZone.secondsFromGMT(for: wall)))
        return wall.addingTimeInterval(-Double(timeZone.secondsFromGMT(for: first)))
    }

    /// The name of an entry logged with calories only and no food (`ofj log --kcal 450`).
    public static let quickAddName = "Quick add"
    /// The name of a water entry (`ofj water 500ml`).
    public static let waterName = "Water"
}
