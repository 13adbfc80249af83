// Issue 34 §8: `ofj day` with pinned nutrients (water among them), the water line and day notes,
// pinned by a golden file.
import Base
import Foundation
import Testing
import Journal
import Nutrition
import SQLiteKit
import TestSupport
import Views

@Suite struct DiaryViewTests {
    static let golden = OfjBinary.repositoryRoot + "/Tests/Golden/cli/day-pinned.txt"

    final class Clock: @unchecked Sendable { var now = Date(timeIntervalSince1970: 1_795_953_600) }

    @Test func pinnedNutrientsChooseTheTotalsAndGoalsAWaterGoalAndNotesShow() throws {
        let clock = Clock()
        let store = try JournalStore.openStandalone(queue: try DatabaseQueue.inMemory(), timeZone: TimeZone(secondsFromGMT: 0) ?? .gmt,
                                                    now: { clock.now })
        let today = store.today()
        try store.logEntry(EntryDraft(day: today, meal: .breakfast, name: "Oatmeal",
                                      nutrients: try NutrientAmounts(["energy_kcal": 300, "protein_g": 10.5, "fiber_g": 8, "water_g": 200])))
        try store.logEntry(EntryDraft(day: today, meal: .lunch, name: "Salad", nutrients: try NutrientAmounts(["energy_kcal": 250, "protein_g": 6])))
        try store.queue.write { db in
            _ = try store.logWater(milliliters: 500, day: today, meal: .breakfast, in: db)
            _ = try store.logWater(milliliters: 750, day: today, meal: .lunch, in: db)
        }
        try store.setGoals(try Goals(["energy_kcal": 2_000, "protein_g": 120, "water_g": 2_000]))
        try store.addNote("Felt bloated after lunch\nSlept well", day: today)
        let notes = try store.notes(on: today)
        let water = try store.queue.read { try store.waterLogged(on: today, in: $0) }
        let view = try store.dayView(today)
        var text = "--- default (water goal set, not pinned)\n"
        text += JournalViews.day(view, today: today, notes: notes, water: water) + "\n"
        text += "--- pinned energy_kcal, protein_g, water_g, fiber_g\n"
        text += JournalViews.day(view, today: today, pinned: ["energy_kcal", "protein_g", "water_g", "fiber_g"], notes: notes, water: water) + "\n"
        if ProcessInfo.processInfo.environment["OFJ_UPDATE_GOLDEN"] == "1" { try Data(text.utf8).write(to: URL(fileURLWithPath: Self.golden)) }
        let expected = try String(contentsOfFile: Self.golden, encoding: .utf8)
        #expect(text == expected, "day-pinned.txt differs from its golden file; run with OFJ_UPDATE_GOLDEN=1 and review the diff")
        // Pinned water is on the totals and goals lines, and not repeated on a line of its own.
        #expect(text.contains("water 1,450 g"))
    }
}
