// JournalStore speed probe on a generated 10-year journal; run through tools/bench-journal.sh.
import Base
import Foundation
import Journal
import Nutrition
import SQLiteKit

/// CPU time of this thread in ms (wall time also counts other processes on a busy machine).
func cpuMilliseconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) * 1e3 + Double(ts.tv_nsec) / 1e6
}

/// Median wall and CPU milliseconds of `runs` runs.
func measure(_ label: String, runs: Int, _ body: () throws -> Void) rethrows {
    var walls: [Double] = [], cpus: [Double] = []
    for _ in 0..<runs {
        let w = DispatchTime.now().uptimeNanoseconds, c = cpuMilliseconds()
        try body()
        cpus.append(cpuMilliseconds() - c)
        walls.append(Double(DispatchTime.now().uptimeNanoseconds - w) / 1e6)
    }
    let median = { (xs: [Double]) in xs.sorted()[xs.count / 2] }
    print(label.padding(toLength: 34, withPad: " ", startingAt: 0) + String(format: "median wall %8.3f ms   cpu %8.3f ms", median(walls), median(cpus)))
}

let path = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "/tmp/ofj-journal-bench.sqlite"
let fresh = !FileManager.default.fileExists(atPath: path)
let queue = try DatabaseQueue(path: path)
let last = try CalendarDay(parsing: "2026-11-29")
// A fixed clock two days after the last generated day, so the 14-day archive rule is stable.
let store = try JournalStore.openStandalone(queue: queue, timeZone: .gmt, now: { Date(timeIntervalSince1970: 1_796_083_200) })
if fresh {
    let start = DispatchTime.now().uptimeNanoseconds
    let summary = try JournalFixtures.generateYears(10, endingOn: last, foods: 3_000, seed: 42, store: store)
    try queue.unrestricted { try $0.execute("ANALYZE") }
    print("generated \(summary.entryCount) entries and \(summary.foodIDs.count) foods in "
          + String(format: "%.1f s", Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9))
}
let yearStart = try last.adding(days: -364)
try measure("day view", runs: 50) { _ = try store.dayView(try last.adding(days: -100)) }
try measure("365-day per-day totals", runs: 20) { _ = try store.rangeSummary(from: yearStart, to: last) }
try measure("365-day totals, 4 macros", runs: 20) { _ = try store.rangeSummary(from: yearStart, to: last, nutrients: NutrientCatalog.coreIDs) }
try measure("food bank, empty query", runs: 50) { _ = try store.searchFoods() }
try measure("food bank, \"greek\"", runs: 50) { _ = try store.searchFoods("greek") }
try measure("food bank, 2 words by last used", runs: 50) { _ = try store.searchFoods("yogurt fage", sort: .lastUsed) }
try measure("entry search \"salmon\"", runs: 20) { _ = try store.searchEntries("salmon") }
try measure("protein breakdown, 30 days", runs: 20) { _ = try store.nutrientBreakdown("protein_g", from: try last.adding(days: -29), to: last) }
try measure("brand buckets", runs: 20) { _ = try store.brandBuckets() }
try measure("log an entry", runs: 50) {
    _ = try store.logEntry(EntryDraft(day: last, meal: .snack, name: "bench", nutrients: try NutrientAmounts(["energy_kcal": 1])))
}
var backup = Data()
try measure("backup export (all)", runs: 1) { backup = try store.exportBackup() }
try measure("backup import into empty", runs: 1) {
    let other = try JournalStore.openStandalone(queue: try DatabaseQueue.inMemory(), timeZone: .gmt)
    _ = try other.importBackup(backup)
}
