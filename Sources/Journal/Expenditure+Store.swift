// Day marks (a day's log complete or incomplete: settings rows `day_mark:YYYY-MM-DD`, so they sync,
// back up and undo like the profile) and the intake and weigh-ins the expenditure estimate reads.
import Base
import Foundation
import Nutrition
import SQLiteKit

extension JournalStore {
    /// Settings keys of day marks start with this, then the day.
    static let dayMarkPrefix = "day_mark:"

    static func dayMarkKey(_ day: CalendarDay) -> String { dayMarkPrefix + day.description }

    /// The day a settings key marks (nil when the key is not a day mark).
    static func markedDay(_ key: String) -> CalendarDay? {
        guard key.hasPrefix(dayMarkPrefix) else { return nil }
        return try? CalendarDay(parsing: String(key.dropFirst(dayMarkPrefix.count)))
    }

    /// How the person marked `day` (nil when unmarked).
    public func dayMark(_ day: CalendarDay, in db: Database) throws -> DayMark? {
        guard let v = try db.scalar("SELECT value FROM journal_settings WHERE key = ?", [Self.dayMarkKey(day)]).string else { return nil }
        guard let mark = DayMark(rawValue: v) else { throw JournalError.corruptRow("day mark") }
        return mark
    }

    public func dayMark(_ day: CalendarDay) throws -> DayMark? { try queue.read { try dayMark(day, in: $0) } }

    /// Every day mark from `from` to `to` (inclusive; nil: open).
    public func dayMarks(from: CalendarDay? = nil, to: CalendarDay? = nil, in db: Database) throws -> [CalendarDay: DayMark] {
        var out: [CalendarDay: DayMark] = [:]
        // Keys sort as text, so a day range is a key range on the primary key.
        try db.forEachRow("SELECT key, value FROM journal_settings WHERE key >= ? AND key <= ?",
                          [from.map(Self.dayMarkKey) ?? Self.dayMarkPrefix, to.map(Self.dayMarkKey) ?? Self.dayMarkPrefix + "~"]) { s in
            guard let k = s.value(at: 0).string, let day = Self.markedDay(k), let v = s.value(at: 1).string, let m = DayMark(rawValue: v) else { return }
            out[day] = m
        }
        return out
    }

    /// Marks `day` complete or incomplete (nil removes the mark), recorded for undo.
    public func setDayMark(_ mark: DayMark?, on day: CalendarDay, in db: Database) throws {
        guard day <= today() else { throw JournalError.invalid(field: "date", reason: "\(day) is in the future; mark a day once it has been eaten") }
        try writeDayMark(mark, on: day, in: db)
    }

    /// Writes a day mark, recorded for undo (in its own transaction, or the caller's).
    func writeDayMark(_ mark: DayMark?, on day: CalendarDay, in db: Database) throws {
        let key = Self.dayMarkKey(day)
        try db.transaction { db in
            try recording(.profile, key, in: db) {
                if let mark {
                    try db.execute("INSERT INTO journal_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                                   [key, mark.rawValue])
                } else {
                    try db.execute("DELETE FROM journal_settings WHERE key = ?", [key])
                }
            }
        }
    }

    public func setDayMark(_ mark: DayMark?, on day: CalendarDay) throws { try queue.write { try setDayMark(mark, on: day, in: $0) } }

    /// Why a stored day mark (or the last check-in) breaks the rules (nil when it does not, or `key` is neither).
    func problemWithStoredDayMark(key: String, value: String) -> String? {
        if key == "checkin_last", (try? CalendarDay(parsing: value)) == nil { return "the last check-in is not YYYY-MM-DD" }
        guard key.hasPrefix(Self.dayMarkPrefix) else { return nil }
        guard Self.markedDay(key) != nil else { return "a day mark's key is not day_mark:YYYY-MM-DD" }
        guard DayMark(rawValue: value) != nil else { return "a day mark is not complete or incomplete" }
        return nil
    }

    // MARK: - Expenditure

    /// Each day's intake from `from` to `to` as the estimate reads it: a day with entries counts its
    /// energy unless it is marked incomplete or no entry reports energy; days without entries are
    /// absent (left out, never zero) unless the person marked them complete, which says they ate nothing.
    public func intakeDays(from: CalendarDay, to: CalendarDay, in db: Database) throws -> [CalendarDay: IntakeDay] {
        var out: [CalendarDay: IntakeDay] = [:]
        try db.forEachRow("SELECT day FROM journal_entries WHERE day >= ? AND day <= ? GROUP BY day", [from.description, to.description]) { s in
            if let d = s.value(at: 0).string.flatMap({ try? CalendarDay(parsing: $0) }) { out[d] = .noEnergy }
        }
        try db.forEachRow("SELECT day, total FROM journal_day_totals WHERE nutrient = 'energy_kcal' AND reported > 0 AND day >= ? AND day <= ?",
                          [from.description, to.description]) { s in
            if let d = s.value(at: 0).string.flatMap({ try? CalendarDay(parsing: $0) }), out[d] != nil, let kcal = s.value(at: 1).double {
                out[d] = .counted(kcal: kcal)
            }
        }
        for (d, mark) in try dayMarks(from: from, to: to, in: db) {
            switch mark {
            // Partly logged: left out, whatever it holds.
            case .incomplete: if out[d] != nil { out[d] = .markedIncomplete }
            // Marked complete with nothing logged: the person says they ate nothing (a fast).
            case .complete: if out[d] == nil { out[d] = .counted(kcal: 0) }
            }
        }
        return out
    }

    /// The expenditure estimate as of `date` (today by default) from the window before it.
    public func expenditure(on date: CalendarDay? = nil, in db: Database) throws -> ExpenditureEstimate {
        let date = date ?? today()
        let first = try domain { try date.adding(days: -(Expenditure.windowDays - 1)) }
        let readings = try weighIns(from: first, to: date, in: db).map { WeightReading(day: $0.day, kg: $0.kg) }
        var intake = try intakeDays(from: first, to: date, in: db)
        // Today is still being eaten and logged: it counts only once marked complete.
        if date == today(), intake[date] != nil, try dayMark(date, in: db) != .complete { intake[date] = .inProgress }
        return Expenditure.estimate(on: date, intake: intake, weights: readings)
    }

    public func expenditure(on date: CalendarDay? = nil) throws -> ExpenditureEstimate { try queue.read { try expenditure(on: date, in: $0) } }
}

extension JournalStore {
    // MARK: - Weekly check-in

    /// The REPL offers a goal check-in at most once in this many days.
    public static let checkInInterval = 7

    /// The day a check-in was last offered or done (settings row `checkin_last`; nil: never).
    public func lastCheckIn(in db: Database) throws -> CalendarDay? {
        try db.scalar("SELECT value FROM journal_settings WHERE key = 'checkin_last'").string.flatMap { try? CalendarDay(parsing: $0) }
    }

    /// Records that a check-in was offered or done on `day`. Not an undo step: it changes no figure
    /// the person sees, only when the next weekly offer comes.
    public func setLastCheckIn(_ day: CalendarDay, in db: Database) throws {
        try db.execute("INSERT INTO journal_settings (key, value) VALUES ('checkin_last', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                       [day.description])
    }

    public func setLastCheckIn(_ day: CalendarDay) throws { try queue.write { try setLastCheckIn(day, in: $0) } }

    /// Whether a weekly check-in is due on `day`: a weight goal, an expenditure estimate, and no
    /// check-in in the last `checkInInterval` days. Returns the estimate when it is.
    public func checkInDue(on day: CalendarDay? = nil, in db: Database) throws -> ExpenditureEstimate? {
        let day = day ?? today()
        guard try profile(in: db).goal != nil else { return nil }
        if let last = try lastCheckIn(in: db), last.days(to: day) < Self.checkInInterval, last <= day { return nil }
        let e = try expenditure(on: day, in: db)
        return e.expenditureKcal == nil ? nil : e
    }
}
