// Tests that cached per-day totals always equal sums over entries, and that fixtures are deterministic.
import Base
import Testing
import Foundation
import Nutrition
import SQLiteKit
@testable import Journal

@Suite struct ConsistencyTests {
    /// Sums recomputed from entries, independent of the cache.
    func expected(_ store: JournalStore, _ from: CalendarDay, _ to: CalendarDay) throws -> [String: NutrientTotals] {
        var out: [String: NutrientTotals] = [:]
        for e in try store.entries(from: from, to: to) { out[e.day.description, default: NutrientTotals()].add(e.totalNutrients) }
        return out
    }

    func check(_ store: JournalStore, _ from: CalendarDay, _ to: CalendarDay) throws {
        let want = try expected(store, from, to)
        let got = try store.rangeSummary(from: from, to: to)
        for d in got.days {
            let w = want[d.day.description] ?? NutrientTotals()
            #expect(d.entryCount == w.entryCount, "\(d.day)")
            #expect(Set(d.totals.amounts.keys) == Set(w.amounts.keys), "\(d.day)")
            for (k, v) in w.amounts { #expect(abs((d.totals[k] ?? -1) - v) < 1e-6, "\(d.day) \(k)") }
            #expect(d.totals.reportedCounts == w.reportedCounts, "\(d.day)")
        }
    }

    @Test func cachedDayTotalsFollowEveryKindOfWrite() throws {
        let (store, _) = try makeStore()
        var rng = SplitMix64(seed: 7)
        let days = (0..<5).map { day("2024-05-0\($0 + 1)") }
        var ids: [UUID] = []
        let food = try store.createFood(FoodDraft(name: "Bread", nutrients: nutrients(["energy_kcal": 80, "fiber_g": 2])))
        for step in 0..<120 {
            switch rng.next(upTo: 6) {
            case 0, 1:
                let n = JournalFixtures.randomNutrients(&rng)
                ids.append(try store.logEntry(EntryDraft(day: days[rng.next(upTo: 5)], meal: .lunch, name: "e\(step)",
                                                         servings: Double(1 + rng.next(upTo: 3)) / 2, nutrients: n)).id)
            case 2:
                ids.append(try store.logFood(food.id, amount: .servings(1.5), day: days[rng.next(upTo: 5)]).id)
            case 3 where !ids.isEmpty:
                try store.updateEntry(ids[rng.next(upTo: ids.count)], EntryUpdate(servings: Double(1 + rng.next(upTo: 4))))
            case 4 where !ids.isEmpty:
                try store.moveEntry(ids[rng.next(upTo: ids.count)], toDay: days[rng.next(upTo: 5)])
            case 5 where !ids.isEmpty:
                let i = rng.next(upTo: ids.count)
                try store.deleteEntry(ids.remove(at: i))
            default:
                break
            }
        }
        try check(store, days[0], days[4])
        // A backup imported elsewhere gives the same totals.
        let (other, _) = try makeStore()
        try other.importBackup(try store.exportBackup())
        try check(other, days[0], days[4])
        #expect(try other.rangeSummary(from: days[0], to: days[4]).totals == store.rangeSummary(from: days[0], to: days[4]).totals)
    }

    @Test func fixturesAreDeterministicAndConsistent() throws {
        func generate(seed: UInt64) throws -> (JournalStore, JournalFixtures.Summary) {
            let (store, _) = try makeStore()
            let summary = try store.queue.write { db in
                try JournalFixtures.generateYears(1, endingOn: day("2024-04-30"), foods: 60, seed: seed, store: store, in: db)
            }
            return (store, summary)
        }
        let (a, sa) = try generate(seed: 1)
        let (b, sb) = try generate(seed: 1)
        let (_, sc) = try generate(seed: 2)
        #expect(sa == sb)
        #expect(sa.foodIDs != sc.foodIDs)
        #expect(sa.firstDay == day("2023-05-02") && sa.lastDay == day("2024-04-30"))
        #expect(sa.entryCount > 365 * 8 && sa.entryCount < 365 * 15)
        #expect(try a.entries().count == sa.entryCount)
        #expect(try a.entries() == b.entries())
        #expect(try a.searchFoods("", limit: 1000) == b.searchFoods("", limit: 1000))
        try check(a, sa.firstDay, sa.lastDay)
    }
}
