// Shared helpers for Journal tests: a settable clock and a fresh in-memory store.
import Base
import Foundation
import Nutrition
import SQLiteKit
@testable import Journal

/// A clock tests move by hand.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    init(_ iso: String) { current = JournalJSON.parseISO(iso) ?? Date(timeIntervalSince1970: 0) }
    func now() -> Date { lock.lock(); defer { lock.unlock() }; return current }
    func advance(days: Double = 0, seconds: Double = 0) { lock.lock(); current += days * 86_400 + seconds; lock.unlock() }
    func set(_ iso: String) { lock.lock(); current = JournalJSON.parseISO(iso) ?? current; lock.unlock() }
}

/// UTC-5 without daylight saving, so tests do not depend on the tz database.
let testZone = TimeZone(secondsFromGMT: -5 * 3600) ?? .gmt

func makeStore(_ clock: ManualClock = ManualClock("2024-05-01T13:00:00Z")) throws -> (JournalStore, ManualClock) {
    let queue = try DatabaseQueue.inMemory()
    let store = try JournalStore.openStandalone(queue: queue, timeZone: testZone, now: { clock.now() })
    return (store, clock)
}

func day(_ s: String) -> CalendarDay { (try? CalendarDay(parsing: s)) ?? JournalStore.epochDay }

func nutrients(_ d: [String: Double]) -> NutrientAmounts { (try? NutrientAmounts(d)) ?? NutrientAmounts() }

func count(_ store: JournalStore, _ table: String) throws -> Int {
    try store.queue.read { try $0.scalar("SELECT count(*) FROM \(table)").int ?? -1 }
}

/// Runs `body` and returns the JournalError it throws (nil if none or another type).
func journalError(_ body: () throws -> Void) -> JournalError? {
    do { try body(); return nil } catch let e as JournalError { return e } catch { return nil }
}
