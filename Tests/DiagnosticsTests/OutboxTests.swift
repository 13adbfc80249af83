// The outbox keeps events across restarts, within 500 events / 2 MiB / 48 h, and counts drops.
import Foundation
import SQLiteKit
import TestSupport
import Testing
@testable import Diagnostics

@Suite struct OutboxTests {
    @Test func enqueuePendingAcknowledge() throws {
        let clock = TestClock()
        let outbox = try Fixtures.outbox(now: { clock.now })
        for i in 1...5 { try outbox.enqueue(Fixtures.event(i, at: clock.now)) }
        let pending = try outbox.pending(limit: 3)
        #expect(pending.map(\.id) == (1...3).map { Fixtures.event($0).id })
        try outbox.acknowledge(pending.map(\.id))
        let status = try outbox.status()
        #expect(status.pending == 2)
        #expect(status.delivered == 3)
        #expect(status.lastSuccessAt == clock.now)
        // Re-enqueueing the same id is a no-op.
        try outbox.enqueue(Fixtures.event(4, at: clock.now))
        #expect(try outbox.status().pending == 2)
    }

    @Test func pendingRespectsTheBatchByteBudget() throws {
        let outbox = try Fixtures.outbox()
        // Fixed times and one-digit ids: every event has the same size, so the budget is exact.
        for i in 1...9 { try outbox.enqueue(Fixtures.event(i, at: 1_800_000_000)) }
        let one = Fixtures.event(1, at: 1_800_000_000).json.utf8.count
        #expect(try outbox.pending(limit: 100, maxBytes: one * 3).count == 3)
        // A single event larger than the budget still goes alone, so the queue cannot stall.
        #expect(try outbox.pending(limit: 100, maxBytes: 1).count == 1)
    }

    @Test func recorderStoresRedactedEventsAndNotifies() throws {
        let outbox = try Fixtures.outbox()
        let nudges = Counter()
        let recorder = OutboxRecorder(outbox: outbox, appVersion: "0.1.0", onRecord: { _ = nudges.nextID() })
        var d = Fixtures.diagnostic(.failure, status: "error")
        d.errorMessage = "timeout after sending 250 g of Porridge to https://x.example"
        recorder.record(d)
        recorder.record(Fixtures.diagnostic())
        let stored = try outbox.pending(limit: 10)
        #expect(stored.count == 2)
        #expect(stored[0].errorMessage == "timeout after sending [amount] of … to [url]")
        #expect(nudges.nextID().hasSuffix("3"), "two nudges before this call")
    }

    @Test func boundedByCountOldestFirst() throws {
        let clock = TestClock()
        let outbox = try Fixtures.outbox(limits: .init(maxEvents: 10), now: { clock.now })
        for i in 1...25 { try outbox.enqueue(Fixtures.event(i, at: clock.now)) }
        let status = try outbox.status()
        #expect(status.pending == 10)
        #expect(status.dropped == 15)
        #expect(try outbox.pending(limit: 100).map(\.id) == (16...25).map { Fixtures.event($0).id })
        #expect(try outbox.unreportedDrops() == 15)
        try outbox.markDropsReported(15)
        #expect(try outbox.unreportedDrops() == 0)
        #expect(try outbox.status().dropped == 15)
    }

    @Test func boundedByBytes() throws {
        let clock = TestClock()
        let one = Fixtures.event(1).json.utf8.count
        let outbox = try Fixtures.outbox(limits: .init(maxEvents: 500, maxBytes: one * 4 + one / 2), now: { clock.now })
        for i in 1...10 { try outbox.enqueue(Fixtures.event(i, at: clock.now)) }
        let status = try outbox.status()
        #expect(status.pending == 4)
        #expect(status.pendingBytes <= one * 4 + one / 2)
        #expect(status.dropped == 6)
    }

    @Test func boundedByAge() throws {
        let clock = TestClock()
        let outbox = try Fixtures.outbox(now: { clock.now })
        try outbox.enqueue(Fixtures.event(1, at: clock.now))
        clock.advance(47 * 3600)
        try outbox.enqueue(Fixtures.event(2, at: clock.now))
        #expect(try outbox.prune() == 0)
        clock.advance(2 * 3600)
        #expect(try outbox.prune() == 1)
        #expect(try outbox.pending(limit: 10).map(\.id) == [Fixtures.event(2).id])
        #expect(try outbox.status().dropped == 1)
    }

    @Test func survivesRestart() throws {
        let dir = TempDirectory()
        let path = dir.file("ofj.sqlite")
        do {
            let queue = try DatabaseQueue(path: path)
            try DiagnosticsOutbox.migrate(queue)
            let outbox = DiagnosticsOutbox(queue: queue, limits: .init(maxEvents: 3))
            for i in 1...5 { try outbox.enqueue(Fixtures.event(i)) }
            try outbox.recordFailure("could not connect to https://x.example token=abc")
        }
        let queue = try DatabaseQueue(path: path)
        try DiagnosticsOutbox.migrate(queue)
        let outbox = DiagnosticsOutbox(queue: queue)
        let status = try outbox.status()
        #expect(status.pending == 3)
        #expect(status.dropped == 2)
        let lastError = try #require(status.lastError)
        #expect(!lastError.contains("x.example") && !lastError.contains("abc"))
        #expect(try outbox.pending(limit: 10).count == 3)
    }

    @Test func migrationsRegisterWithTheMainMigrator() throws {
        var migrator = Migrator()
        migrator.register("journal-1") { try $0.execute(batch: "CREATE TABLE journal (id TEXT)") }
        DiagnosticsOutbox.registerMigrations(into: &migrator)
        #expect(migrator.migrations.map(\.identifier).filter { $0.hasPrefix("diagnostics-") } == ["diagnostics-1-outbox", "diagnostics-2-drop-report"])
        #expect(migrator.migrations.allSatisfy { $0.identifier == "journal-1" || $0.identifier.hasPrefix("diagnostics-") })
        let queue = try DatabaseQueue.inMemory()
        try queue.migrate(migrator)
        try queue.migrate(migrator)
        #expect(try DiagnosticsOutbox(queue: queue).status().pending == 0)
    }

    @Test func corruptRowsAreDroppedNotStuck() throws {
        let outbox = try Fixtures.outbox()
        try outbox.enqueue(Fixtures.event(1))
        try outbox.queue.write { try $0.execute("INSERT INTO diagnostics_outbox (id, occurred_at, payload, size) VALUES ('bad', 1e12, 'not json', 8)") }
        try outbox.enqueue(Fixtures.event(2))
        #expect(try outbox.pending(limit: 10).map(\.id) == [Fixtures.event(1).id, Fixtures.event(2).id])
        #expect(try outbox.status().dropped == 1)
    }

    @Test func recorderNeverThrows() throws {
        let queue = try DatabaseQueue.inMemory()
        // No migrations: every insert fails, and the recorder swallows and counts it.
        let recorder = OutboxRecorder(outbox: DiagnosticsOutbox(queue: queue), appVersion: "0.1.0")
        recorder.record(Fixtures.diagnostic())
        recorder.record(Fixtures.diagnostic())
        #expect(recorder.failedRecords.count == 2)
        #expect(recorder.failedRecords.lastError?.contains("no such table") == true)
    }
}
