// Outage: with the sink down across many turns the outbox stays bounded, drops are counted,
// recording stays fast while the flusher keeps failing in the background, and delivery resumes.
import Agent
import Foundation
import SQLiteKit
import TestSupport
import Testing
@testable import Diagnostics

@Suite struct OutageTests {
    @Test func sinkDownAcrossManyTurns() async throws {
        let dir = TempDirectory()
        let queue = try DatabaseQueue(path: dir.file("ofj.sqlite"))
        try DiagnosticsOutbox.migrate(queue)
        let clock = TestClock(Date().timeIntervalSince1970)
        let outbox = DiagnosticsOutbox(queue: queue, now: { clock.now })
        let fake = try FakeTurso(token: "tok")
        fake.mode = .down("Connection refused")
        let flusher = DiagnosticsFlusher(outbox: outbox, sink: try Fixtures.sink(fake, token: "tok"), appVersion: "0.1.0",
                                         policy: .init(interval: 0.01, initialBackoff: 0.01, maxBackoff: 0.05), now: { clock.now })
        let recorder = OutboxRecorder(outbox: outbox, appVersion: "0.1.0", now: { clock.now }, onRecord: { flusher.nudge() })
        await flusher.start()

        // 300 turns of 5 events each (model round, tools, retry, failure) while the sink is down.
        let continuous = ContinuousClock()
        var durations: [Duration] = []
        for turn in 0..<300 {
            for op in [AgentDiagnostic.Operation.modelRound, .toolExecution, .toolExecution, .retry, .failure] {
                var d = Fixtures.diagnostic(op, status: op == .failure ? "error" : "ok")
                d.turn = turn
                d.errorMessage = op == .failure ? "could not connect to the server: connection refused" : nil
                durations.append(continuous.measure { recorder.record(d) })
            }
            clock.advance(1)
            // A real turn awaits the provider; yielding here lets the flusher run as it would.
            await Task.yield()
        }
        // On a loaded machine the background flusher may lag: wait for its first attempts.
        let deadline = Date().addingTimeInterval(15)
        while try fake.sent.isEmpty || outbox.status().lastError == nil, Date() < deadline {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        let status = try outbox.status()
        #expect(status.pending == 500)
        #expect(status.pendingBytes <= 2 << 20)
        #expect(status.dropped == 1000)
        #expect(status.lastError?.contains("could not reach") == true)
        #expect(recorder.failedRecords.count == 0)
        #expect(fake.sent.count > 0, "the flusher kept trying in the background")

        let sorted = durations.sorted()
        let median = sorted[sorted.count / 2]
        let p99 = sorted[sorted.count * 99 / 100]
        // Generous bounds for a debug build on a shared 2-core machine: recording is a small
        // SQLite insert, it never waits for the network.
        #expect(median < .milliseconds(50), "median record \(median)")
        #expect(p99 < .milliseconds(1000), "p99 record \(p99)")

        // The sink comes back: the 500 kept events and one drop report arrive, once.
        fake.mode = .normal
        var report = await flusher.flush()
        for _ in 0..<10 where report.remaining > 0 { report = await flusher.flush() }
        #expect(report.succeeded)
        #expect(try outbox.status().pending == 0)
        let remote = try fake.rows("SELECT count(*) FROM \(TursoSink.table)")[0][0].int
        #expect(remote == 501)
        let drops = try fake.rows("SELECT result_count FROM \(TursoSink.table) WHERE status = 'outbox_dropped'")
        #expect(drops.map { $0[0].int } == [1000])
        _ = await flusher.shutdown(timeout: 2)
    }

    @Test func ageBoundHoldsWhileNothingNewIsRecorded() async throws {
        let clock = TestClock()
        let outbox = try Fixtures.outbox(now: { clock.now })
        let fake = try FakeTurso()
        fake.mode = .status(503, "down")
        let flusher = DiagnosticsFlusher(outbox: outbox, sink: try Fixtures.sink(fake), appVersion: "0.1.0", now: { clock.now })
        for i in 1...20 { try outbox.enqueue(Fixtures.event(i, at: clock.now)) }
        clock.advance(49 * 3600)
        _ = await flusher.flush()
        let status = try outbox.status()
        #expect(status.pending == 0)
        #expect(status.dropped == 20)
    }
}
