// Journal speed probe on a generated 10-year journal. Not built by default: to run it, add
// `.executableTarget(name: "JournalBench", dependencies: ["Journal", "Nutrition", "SQLiteKit"], path: "tools/journal-bench")`
// to Package.swift, then `swift build -c release --product JournalBench && .build/release/JournalBench /tmp/ofj-bench.sqlite`.
import Foundation
import Journal
import Nutrition
import SQLiteKit

func median(_ xs: [Double]) -> Double { let s = xs.sorted(); return s[s.count / 2] }
func cpu() -> Double { var ts = timespec(); clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); return Double(ts.tv_sec) * 1e3 + Double(ts.tv_nsec) / 1e6 }
func time(_ n: Int, _ body: () throws -> Void) rethrows -> String {
    var xs: [Double] = []
    var cs: [Double] = []
    for _ in 0..<n {
        let t = DispatchTime.now().uptimeNanoseconds
        let c = cpu()
        try body()
        cs.append(cpu() - c)
        xs.append(Double(DispatchTime.now().uptimeNanoseconds - t) / 1e6)
    }
    return String(format: "wall %.3f cpu %.3f", median(xs), median(cs))
}
let path = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "/tmp/ofj-bench.sqlite"
let fresh = !FileManager.default.fileExists(atPath: path)
let queue = try DatabaseQueue(path: path)
let last = try CalendarDay(parsing: "2026-11-29")
let store = try JournalStore.openStandalone(queue: queue, timeZone: .gmt, now: { Date(timeIntervalSince1970: 1_795_000_000) })
if fresh {
    let t = DispatchTime.now().uptimeNanoseconds
    let s = try queue.write { try JournalFixtures.generateYears(10, endingOn: last, store: store, in: $0) }
    print("generated \(s.entryCount) entries in \(Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9) s")
    try queue.read { try $0.execute("ANALYZE") }
}
print("day view:", try time(50) { _ = try store.dayView(try last.adding(days: -100)) }, "ms")
print("365-day totals:", try time(10) { _ = try store.rangeSummary(from: try last.adding(days: -364), to: last) }, "ms")
print("365-day totals (4 macros):", try time(10) { _ = try store.rangeSummary(from: try last.adding(days: -364), to: last, nutrients: NutrientCatalog.coreIDs) }, "ms")
print("food bank empty:", try time(50) { _ = try store.searchFoods() }, "ms")
print("food bank 'greek':", try time(50) { _ = try store.searchFoods("greek") }, "ms")
print("food bank 'yogurt fage' by last used:", try time(50) { _ = try store.searchFoods("yogurt fage", sort: .lastUsed) }, "ms")
print("entry search:", try time(20) { _ = try store.searchEntries("salmon", limit: 50) }, "ms")
print("breakdown 30d:", try time(20) { _ = try store.nutrientBreakdown("protein_g", from: try last.adding(days: -29), to: last) }, "ms")
print("brand buckets:", try time(20) { _ = try store.brandBuckets() }, "ms")
print("log entry:", try time(50) { _ = try store.logEntry(EntryDraft(day: last, meal: .snack, name: "x", nutrients: try NutrientAmounts(["energy_kcal": 1]))) }, "ms")

var all: [Entry] = []
print("load all entries:", try time(1) { all = try store.entries() }, "ms", all.count)
let sample = Array(all.prefix(2000))
print("encode 2000 entries:", try time(3) { _ = try JournalJSON.encoder.encode(sample) }, "ms")
print("encode 2000 entries plain encoder:", try time(3) { _ = try JSONEncoder().encode(sample) }, "ms")
print("encode 2000 nutrient maps:", try time(3) { _ = try JSONEncoder().encode(sample.map(\.nutrients)) }, "ms")
print("encode 2000 dicts:", try time(3) { _ = try JSONEncoder().encode(sample.map(\.nutrients.values)) }, "ms")
print("encode 2000 servings:", try time(3) { _ = try JSONEncoder().encode(sample.map(\.serving)) }, "ms")
print("encode 2000 days:", try time(3) { _ = try JSONEncoder().encode(sample.map(\.day)) }, "ms")
print("encode 2000 names:", try time(3) { _ = try JSONEncoder().encode(sample.map(\.name)) }, "ms")
let data = try store.exportBackup()
if CommandLine.arguments.count > 2 { print("import into fresh:", try time(1) {
    let q = try DatabaseQueue.inMemory()
    let s2 = try JournalStore.openStandalone(queue: q, now: { Date(timeIntervalSince1970: 1_795_000_000) })
    _ = try s2.importBackup(data)
}, "ms")
}
let sqlOnly = "SELECT day, nutrient, sum(total), count(*) FROM journal_entry_nutrients WHERE day >= ? AND day <= ? GROUP BY day, nutrient"
let f365 = try last.adding(days: -364).description
print("sql only, no values:", try time(10) { try queue.read { db in try db.forEachRow(sqlOnly, [f365, last.description]) { _ in } } }, "ms")
print("sql only, read values:", try time(10) { try queue.read { db in try db.forEachRow(sqlOnly, [f365, last.description]) { s in _ = s.value(at: 0); _ = s.value(at: 1); _ = s.value(at: 2) } } }, "ms")
