// /week says what each average is over when some logged days do not report a nutrient.
import Base
import Foundation
import Testing
import Journal
import Nutrition
import SQLiteKit
import Views

@Suite struct RangeAverageViewTests {
    @Test func weekNamesTheDaysThatReportEachAverage() throws {
        let queue = try DatabaseQueue.inMemory()
        let store = try JournalStore.openStandalone(queue: queue, timeZone: TimeZone(secondsFromGMT: 0) ?? .gmt, now: { Date(timeIntervalSince1970: 1_714_600_000) })
        func day(_ s: String) throws -> CalendarDay { try CalendarDay(parsing: s) }
        for (d, protein) in [("2024-05-01", 60.0), ("2024-05-02", 50), ("2024-05-03", 52.6)] {
            try store.logEntry(EntryDraft(day: try day(d), meal: .lunch, name: "Meal",
                                          nutrients: try NutrientAmounts(["energy_kcal": 2000, "protein_g": protein, "carbohydrate_g": 250, "fat_g": 70])))
        }
        try store.logEntry(EntryDraft(day: try day("2024-05-04"), meal: .lunch, name: "Label", nutrients: try NutrientAmounts(["energy_kcal": 1000])))
        let text = JournalViews.range(try store.rangeSummary(from: try day("2024-05-01"), to: try day("2024-05-07")))
        #expect(text.contains("Daily average over 4 logged days: 1,750 kcal · protein 54.2 g*"))
        #expect(text.contains("protein: 54.2 g a day over the 3 of 4 logged days that report it"))
        #expect(text.contains("carbohydrate: 250 g a day over the 3 of 4 logged days that report it"))
    }
}
