// `ofj gaps` as the user sees it, pinned by a golden file (issue #22 §3).
import Base
import Foundation
import Testing
import Journal
import Nutrition
import ReferenceFoods
import SQLiteKit
import Views

@Suite struct GapsViewTests {
    @Test func gapsTextIsPinned() throws {
        let queue = try DatabaseQueue.inMemory()
        let store = try JournalStore.openStandalone(queue: queue, timeZone: TimeZone(secondsFromGMT: 0) ?? .gmt,
                                                    now: { Date(timeIntervalSince1970: 1_795_953_600) })
        // Iron on 2 of 3 logged days (6 mg a day), vitamin C on 1 (45 mg), fiber on all 3 (25 g: above 80%).
        for (day, n) in [("2026-11-25", ["energy_kcal": 1_900.0, "iron_mg": 9, "fiber_g": 25, "vitamin_c_mg": 45]),
                         ("2026-11-27", ["energy_kcal": 2_100, "iron_mg": 3, "fiber_g": 25]),
                         ("2026-11-29", ["energy_kcal": 1_700, "fiber_g": 25])] {
            try store.logEntry(EntryDraft(day: try CalendarDay(parsing: day), meal: .lunch, name: "Meals", nutrients: try NutrientAmounts(n)))
        }
        _ = try store.createFood(FoodDraft(name: "Fortified flakes", serving: ServingSize(quantity: 30, unit: .mass(.g)),
                                           nutrients: try NutrientAmounts(["energy_kcal": 110, "iron_mg": 16])))
        try ReferenceDatabase.shared.load()
        let report = try store.nutrientGaps(from: try CalendarDay(parsing: "2026-11-16"), to: store.today(), reference: .shared)
        let text = JournalViews.gaps(report)
        try ChartTests().expectGolden(text, "gaps.txt")
        #expect(text.contains("Iron: 6 mg a day, 33% of 18 mg (reported on 2 of 3 logged days)"))
        #expect(text.contains("Vitamin C: 45 mg a day, 50% of 90 mg (reported on 1 of 3 logged days)"))
        #expect(!text.contains("Fiber:"))
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= 80 })
    }
}
