// Issue 35 §4: `ofj status`'s line, from a fixed journal and clock, pinned by a golden file; and
// formats with unknown fields or lone braces refused in one line naming the known fields.
import Base
import Foundation
import Testing
import Journal
import Nutrition
import SQLiteKit
import TestSupport
import Views

@Suite struct StatusLineTests {
    static let golden = OfjBinary.repositoryRoot + "/Tests/Golden/cli/status.txt"
    /// 2026-11-29 12:00 UTC.
    static let noon = Date(timeIntervalSince1970: 1_795_953_600)

    /// Two entries today (the last logged at noon), one yesterday, one planned for tomorrow.
    static func journal(goals: Goals? = nil) throws -> (JournalStore, DatabaseQueue) {
        let queue = try DatabaseQueue.inMemory()
        let clock = Clock(noon.addingTimeInterval(-4 * 3600))
        let store = try JournalStore.openStandalone(queue: queue, timeZone: TimeZone(secondsFromGMT: 0) ?? .gmt, now: { clock.now })
        func log(_ day: String, _ n: [String: Double]) throws {
            try store.logEntry(EntryDraft(day: try CalendarDay(parsing: day), meal: .lunch, name: "Meal", nutrients: try NutrientAmounts(n)))
        }
        try log("2026-11-28", ["energy_kcal": 2_400, "protein_g": 90])
        try log("2026-11-29", ["energy_kcal": 640.4, "protein_g": 31.6, "carbohydrate_g": 70, "fat_g": 21])
        clock.now = noon
        try log("2026-11-29", ["energy_kcal": 812, "protein_g": 40.2])
        clock.now = noon.addingTimeInterval(3600)
        try log("2026-11-30", ["energy_kcal": 500])
        if let goals { try store.setGoals(goals) }
        return (store, queue)
    }

    final class Clock: @unchecked Sendable {
        var now: Date
        init(_ now: Date) { self.now = now }
    }

    func line(_ format: String, _ store: JournalStore, _ queue: DatabaseQueue, at now: Date) throws -> String {
        let figures = try queue.read { try store.statusFigures(on: try CalendarDay(parsing: "2026-11-29"), now: now, in: $0) }
        return StatusLine.render(try StatusLine.parse(format), figures: figures, now: now)
    }

    @Test func linesForAFixedJournalMatchTheirGoldenFile() throws {
        let (store, queue) = try Self.journal()
        let (own, ownQueue) = try Self.journal(goals: try Goals(["protein_g": 120]))
        var text = ""
        let all = "{kcal} {kcal_goal} {kcal_left} {protein_g} {protein_goal} {carbs_g} {fat_g} {entries} {fast} {fast_min}"
        for (label, minutes) in [("noon + 3h05m", 185), ("noon + 42m", 42), ("noon + 2d 4h", 52 * 60)] {
            let now = Self.noon.addingTimeInterval(Double(minutes) * 60)
            text += "\(label)\n  default: \(try line(StatusLine.defaultFormat, store, queue, at: now))\n  all: \(try line(all, store, queue, at: now))\n"
        }
        text += "own goals, no energy goal\n  \(try line("{kcal}/{kcal_goal} · {protein_g}/{protein_goal} g · {kcal_left} left {{literal}}", own, ownQueue, at: Self.noon))\n"
        text += "busy journal\n  \(StatusLine.render(try StatusLine.parse(StatusLine.defaultFormat), figures: nil, now: Self.noon))\n"
        text += "empty journal\n  \(StatusLine.render(try StatusLine.parse(all), figures: StatusFigures(), now: Self.noon))\n"
        if ProcessInfo.processInfo.environment["OFJ_UPDATE_GOLDEN"] == "1" { try Data(text.utf8).write(to: URL(fileURLWithPath: Self.golden)) }
        let expected = try String(contentsOfFile: Self.golden, encoding: .utf8)
        #expect(text == expected, "status.txt differs from its golden file; run with OFJ_UPDATE_GOLDEN=1 and review the diff")
    }

    @Test func theLastEntryIsTheLatestLoggedUpToNowForTodayOrEarlier() throws {
        let (store, queue) = try Self.journal()
        // Before noon's entry was logged, the fast counts from the 08:00 one.
        #expect(try line("{fast_min}", store, queue, at: Self.noon.addingTimeInterval(-60)) == "239")
        // The entry planned for tomorrow (logged at 13:00) does not end the fast.
        #expect(try line("{fast}", store, queue, at: Self.noon.addingTimeInterval(2 * 3600)) == "fast 2h00m")
    }

    @Test(arguments: ["{nope}", "{kcal", "kcal}", "{kcal}{", "{}", "{{kcal}"])
    func aFormatThatCannotBeUsedIsOneLineNamingTheKnownFields(format: String) throws {
        if format == "{{kcal}" {
            // "{{" is a literal brace, so the "}" after it is alone.
            #expect(throws: StatusLine.FormatError.self) { try StatusLine.parse(format) }
            return
        }
        do {
            _ = try StatusLine.parse(format)
            Issue.record("\(format) was accepted")
        } catch let e as StatusLine.FormatError {
            #expect(!e.description.contains("\n"))
            #expect(e.description.contains("{kcal}, {kcal_goal}") && e.description.contains("{fast_min}"))
        }
    }
}
