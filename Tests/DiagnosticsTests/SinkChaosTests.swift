// Regressions found by tools/sink-chaos.sh (RELIABILITY.md, "Sink chaos"): a sink that commits
// and then loses the answer, and what the user reads about a failing sink.
import Foundation
import HTTP
import Hrana
import Synchronization
import TestSupport
import Testing
@testable import Diagnostics

@Suite struct SinkChaosTests {
    func remote(_ fake: FakeTurso, _ sql: String) throws -> [[Int]] {
        try fake.rows(sql).map { row in row.values.map { $0.int ?? -1 } }
    }

    /// Found by the chaos run: each retry after a lost acknowledgement sent a new drop report
    /// (new id, growing count), so the sink counted the same drops two or three times.
    @Test func dropReportIsNotCountedTwiceWhenTheAcknowledgementIsLost() async throws {
        let fake = try FakeTurso()
        let outbox = try Fixtures.outbox(limits: .init(maxEvents: 5))
        let flusher = DiagnosticsFlusher(outbox: outbox, sink: try Fixtures.sink(fake), appVersion: "0.1.0")
        #expect(await flusher.flush().succeeded)  // the table exists; failures below hit the drop report
        for i in 1...12 { try outbox.enqueue(Fixtures.event(i)) }
        fake.mode = .commitThenFail(500)
        #expect(await flusher.flush().succeeded == false)
        // More drops while the acknowledgement of the first report is lost, then again.
        for i in 13...15 { try outbox.enqueue(Fixtures.event(i)) }
        #expect(await flusher.flush().succeeded == false)
        fake.mode = .commitThenFail(502)
        #expect(await flusher.flush().succeeded == false)
        fake.mode = .normal
        var report = await flusher.flush()
        for _ in 0..<3 where !report.succeeded || report.remaining > 0 { report = await flusher.flush() }
        #expect(report.succeeded)
        // One more flush: the drops counted after the first report get their own report.
        #expect(await flusher.flush().succeeded)
        let status = try outbox.status()
        #expect(status.dropped == 10)
        #expect(status.pending == 0)
        let reports = try remote(fake, "SELECT result_count FROM \(TursoSink.table) WHERE status = 'outbox_dropped' ORDER BY occurred_at")
        #expect(reports.map { $0[0] } == [7, 3])
        #expect(try outbox.unreportedDrops() == 0)
        // Every kept event arrived once (ids are the primary key; the count shows nothing extra).
        #expect(try remote(fake, "SELECT count(*) FROM \(TursoSink.table) WHERE status != 'outbox_dropped'")[0][0] == 5)
    }

    /// The pending report survives a restart (a new flusher on the same outbox resends it as is).
    @Test func pendingDropReportSurvivesARestart() async throws {
        let fake = try FakeTurso()
        let outbox = try Fixtures.outbox(limits: .init(maxEvents: 2))
        let first = DiagnosticsFlusher(outbox: outbox, sink: try Fixtures.sink(fake), appVersion: "0.1.0")
        #expect(await first.flush().succeeded)
        for i in 1...6 { try outbox.enqueue(Fixtures.event(i)) }
        fake.mode = .commitThenFail(503)
        #expect(await first.flush().succeeded == false)
        let firstID = try fake.rows("SELECT id FROM \(TursoSink.table) WHERE status = 'outbox_dropped'").first?[0].string
        fake.mode = .normal
        let second = DiagnosticsFlusher(outbox: outbox, sink: try Fixtures.sink(fake), appVersion: "0.1.0")
        #expect(await second.flush().succeeded)
        let rows = try fake.rows("SELECT id, result_count FROM \(TursoSink.table) WHERE status = 'outbox_dropped'")
        #expect(rows.count == 1)
        #expect(rows.first?[0].string == firstID)
        #expect(rows.first?[1].int == 4)
    }

    /// Events whose acknowledgement was lost are resent with the same ids: no duplicates.
    @Test func lostAcknowledgementsDoNotDuplicateEvents() async throws {
        let fake = try FakeTurso()
        let outbox = try Fixtures.outbox()
        let flusher = DiagnosticsFlusher(outbox: outbox, sink: try Fixtures.sink(fake), appVersion: "0.1.0",
                                         policy: .init(batchEvents: 10))
        #expect(await flusher.flush().succeeded)
        for i in 1...35 { try outbox.enqueue(Fixtures.event(i)) }
        fake.mode = .commitThenFail(500)
        for _ in 0..<3 { #expect(await flusher.flush().succeeded == false) }
        fake.mode = .normal
        #expect(await flusher.flush().succeeded)
        #expect(try outbox.status().pending == 0)
        #expect(try remote(fake, "SELECT count(*), count(DISTINCT id) FROM \(TursoSink.table)")[0] == [35, 35])
    }
}

/// A transport that always fails with one transport error.
struct FailingTransport: HTTPTransport {
    let error: HTTPError
    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse { throw error }
}

extension SinkChaosTests {
    /// Found by the chaos run: `diag status` showed libcurl's text through the redactor, e.g.
    /// "could not connect (Failed to connect to 127.0.0.1 … 43563 after 0 ms: … connect to server)".
    @Test(arguments: [
        (HTTPError.connectFailed("Failed to connect to 127.0.0.1 port 43563 after 0 ms: Couldn't connect to server"), "could not connect"),
        (HTTPError.connectFailed("Could not resolve host: diag.example.test"), "could not resolve the host"),
        (HTTPError.connectionReset("Recv failure: Connection reset by peer"), "the connection was lost"),
        (HTTPError.tls("OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to diag.example.test:443"), "TLS error"),
        (HTTPError.other("response larger than 10485760 bytes"), "the answer was too large"),
        (HTTPError.other("Failure when receiving data from the peer"), "the request failed"),
        (HTTPError.firstByteTimeout, "timed out waiting for the response"),
        (HTTPError.idleTimeout, "the response stalled"),
    ])
    func networkFailuresReadAsOneCleanLine(error: HTTPError, reason: String) async throws {
        let outbox = try Fixtures.outbox()
        let config = try TursoConfiguration(databaseURL: "libsql://diag.example.test", authToken: "tok")
        let flusher = DiagnosticsFlusher(outbox: outbox, sink: TursoSink(client: HranaClient(configuration: config, transport: FailingTransport(error: error))),
                                         appVersion: "0.1.0")
        try outbox.enqueue(Fixtures.event(1))
        let report = await flusher.flush()
        let expected = "could not reach the diagnostics database (\(reason)); delivery will retry later"
        #expect(report.error == expected)
        #expect(try outbox.status().lastError == expected)
        #expect(report.retryable)
    }

    /// A wrong number of results is described without redaction holes.
    @Test func wrongResultCountReadsCleanly() async throws {
        let fake = try FakeTurso()
        let outbox = try Fixtures.outbox()
        let flusher = DiagnosticsFlusher(outbox: outbox, sink: try Fixtures.sink(fake), appVersion: "0.1.0")
        try outbox.enqueue(Fixtures.event(1))
        fake.mode = .status(200, #"{"baton":null,"results":[{"type":"ok","response":{"type":"close"}}]}"#)
        let report = await flusher.flush()
        #expect(report.error == "the diagnostics database sent an unreadable answer (expected 5 results, received 1); delivery will retry later")
        #expect(try outbox.status().pending == 1)
    }
}

extension SinkChaosTests {
    func migratedSetup(maxEvents: Int, clock: TestClock = TestClock()) async throws -> (FakeTurso, DiagnosticsOutbox, DiagnosticsFlusher) {
        let fake = try FakeTurso()
        let outbox = try Fixtures.outbox(limits: .init(maxEvents: maxEvents), now: { clock.now })
        let flusher = DiagnosticsFlusher(outbox: outbox, sink: try Fixtures.sink(fake), appVersion: "0.1.0", now: { clock.now })
        #expect(await flusher.flush().succeeded)
        return (fake, outbox, flusher)
    }

    func dropReports(_ fake: FakeTurso) throws -> [Int] {
        try remote(fake, "SELECT result_count FROM \(TursoSink.table) WHERE status = 'outbox_dropped' ORDER BY occurred_at").map { $0[0] }
    }

    /// Found by the chaos run (produced 4,767, on the sink 1,134, counted dropped 3,637: four
    /// events both delivered and dropped): an event whose acknowledgement was lost and which the
    /// bound then removed was reported as dropped although the sink had it.
    @Test func aLostAcknowledgementFollowedByTheBoundIsNotADrop() async throws {
        let clock = TestClock()
        let (fake, outbox, flusher) = try await migratedSetup(maxEvents: 5, clock: clock)
        for i in 1...5 { try outbox.enqueue(Fixtures.event(i, at: clock.now)) }
        fake.mode = .commitThenFail(500)
        #expect(await flusher.flush().succeeded == false)
        for i in 6...10 { try outbox.enqueue(Fixtures.event(i, at: clock.now)) }
        var status = try outbox.status()
        #expect(status.pending == 5)
        #expect(status.dropped == 0)
        #expect(status.unconfirmed == 5)
        fake.mode = .normal
        clock.advance(DiagnosticsOutbox.unconfirmedSettle + 1)
        #expect(await flusher.flush().succeeded)
        status = try outbox.status()
        #expect(status.dropped == 0)
        #expect(status.unconfirmed == 0)
        #expect(status.delivered == 10)
        #expect(try dropReports(fake).isEmpty)
        #expect(try remote(fake, "SELECT count(*) FROM \(TursoSink.table)")[0][0] == 10)
    }

    /// Sent, never stored (the server failed before committing), then removed by the bound: a drop.
    @Test func aSentEventTheSinkNeverStoredIsADrop() async throws {
        let clock = TestClock()
        let (fake, outbox, flusher) = try await migratedSetup(maxEvents: 5, clock: clock)
        for i in 1...5 { try outbox.enqueue(Fixtures.event(i, at: clock.now)) }
        fake.mode = .status(503, "Service Unavailable")
        #expect(await flusher.flush().succeeded == false)
        for i in 6...12 { try outbox.enqueue(Fixtures.event(i, at: clock.now)) }
        #expect(try outbox.status().unconfirmed == 5)
        #expect(try outbox.status().dropped == 2)
        fake.mode = .normal
        clock.advance(DiagnosticsOutbox.unconfirmedSettle + 1)
        #expect(await flusher.flush().succeeded)
        let status = try outbox.status()
        #expect(status.dropped == 7)
        #expect(status.unconfirmed == 0)
        #expect(status.delivered == 5)
        #expect(try dropReports(fake) == [7])
    }

    /// Events removed by the bound while their batch is in flight count once, as delivered.
    @Test func eventsRemovedWhileInFlightCountAsDelivered() async throws {
        let (fake, outbox, flusher) = try await migratedSetup(maxEvents: 5, clock: TestClock(Date().timeIntervalSince1970))
        for i in 1...5 { try outbox.enqueue(Fixtures.event(i)) }
        let burst = Mutex(false)
        fake.beforeRequest = { body, _ in
            guard body.contains("INSERT INTO"), burst.withLock({ done in defer { done = true }; return !done }) else { return }
            for i in 6...10 { try? outbox.enqueue(Fixtures.event(i)) }
        }
        #expect(await flusher.flush().succeeded)
        #expect(await flusher.flush().succeeded)
        let status = try outbox.status()
        #expect(status.pending == 0)
        #expect(status.delivered == 10)
        #expect(status.dropped == 0)
        #expect(status.unconfirmed == 0)
        #expect(try remote(fake, "SELECT count(*) FROM \(TursoSink.table)")[0][0] == 10)
    }

    /// Unconfirmed ids are bounded too: beyond the outbox's event bound they count as dropped.
    @Test func unconfirmedIdsAreBounded() async throws {
        let clock = TestClock()
        let (fake, outbox, flusher) = try await migratedSetup(maxEvents: 3, clock: clock)
        fake.mode = .status(503, "Service Unavailable")
        // Every round sends (and fails) the 3 pending events, then the bound removes them.
        for round in 0..<5 {
            for i in 1...3 { try outbox.enqueue(Fixtures.event(round * 3 + i, at: clock.now)) }
            _ = await flusher.flush()
        }
        for i in 16...18 { try outbox.enqueue(Fixtures.event(i, at: clock.now)) }
        let status = try outbox.status()
        #expect(status.pending == 3)
        #expect(status.unconfirmed == 12, "at most 4 × maxEvents ids")
        #expect(status.dropped == 3)
    }

    /// Found by the second chaos run (2 events both on the sink and counted as dropped): the sink
    /// was asked about a removed event while a request the client had given up on was still on
    /// its way (a proxy forwarding it seconds later). Ids now settle for a minute first.
    @Test func aRemovedEventIsCheckedOnlyAfterItSettles() async throws {
        let clock = TestClock()
        let (fake, outbox, flusher) = try await migratedSetup(maxEvents: 2, clock: clock)
        for i in 1...2 { try outbox.enqueue(Fixtures.event(i, at: clock.now)) }
        fake.mode = .status(504, "Gateway Timeout")
        #expect(await flusher.flush().succeeded == false)
        for i in 3...4 { try outbox.enqueue(Fixtures.event(i, at: clock.now)) }
        fake.mode = .normal
        clock.advance(5)
        #expect(await flusher.flush().succeeded)
        #expect(try outbox.status().unconfirmed == 2, "not asked yet")
        // The gateway's request commits late.
        try await Fixtures.sink(fake).insert([Fixtures.event(1, at: clock.now), Fixtures.event(2, at: clock.now)])
        clock.advance(DiagnosticsOutbox.unconfirmedSettle)
        #expect(await flusher.flush().succeeded)
        let status = try outbox.status()
        #expect(status.unconfirmed == 0)
        #expect(status.dropped == 0)
        #expect(status.delivered == 4)
        #expect(try dropReports(fake).isEmpty)
    }

    /// Found by the second chaos run: with every request answered after 3 s (within the
    /// timeouts), `ofj diag flush` ran 20 requests in a row and took 59.5 s. A flush now starts no
    /// new request after its budget; the rest waits for the next one.
    @Test func aSlowSinkCannotStretchOneFlush() async throws {
        let fake = try FakeTurso()
        let outbox = try Fixtures.outbox()
        let flusher = DiagnosticsFlusher(outbox: outbox, sink: try Fixtures.sink(fake), appVersion: "0.1.0",
                                         policy: .init(batchEvents: 1, maxBatchesPerFlush: 20))
        #expect(await flusher.flush().succeeded)
        for i in 1...20 { try outbox.enqueue(Fixtures.event(i)) }
        fake.mode = .slow(0.3)
        let budgeted = DiagnosticsFlusher(outbox: outbox, sink: try Fixtures.sink(fake), appVersion: "0.1.0",
                                          policy: { var p = DiagnosticsFlusher.Policy(batchEvents: 1, maxBatchesPerFlush: 20); p.flushBudget = 0.5; return p }())
        let report = await budgeted.flush()
        #expect(report.succeeded)
        #expect(report.delivered < 20)
        #expect(report.remaining == 20 - report.delivered)
    }
}

extension SinkChaosTests {
    /// Found by the chaos run: with the sink stalled, every `ofj ask` waited the whole 2 s exit
    /// budget (median 2.1 s against 0.3 s with a good sink), because each process started with a
    /// fresh backoff. The backoff is now stored in the outbox and honoured by the next process.
    @Test func aStalledSinkCostsOneExitNotEveryExit() async throws {
        let clock = TestClock(Date().timeIntervalSince1970)
        let fake = try FakeTurso()
        let outbox = try Fixtures.outbox(now: { clock.now })
        func process() throws -> DiagnosticsFlusher {
            DiagnosticsFlusher(outbox: outbox, sink: try Fixtures.sink(fake), appVersion: "0.1.0", now: { clock.now })
        }
        try outbox.enqueue(Fixtures.event(1, at: clock.now))
        fake.mode = .slow(120)
        #expect(await (try process()).shutdown(timeout: 0.3) == nil)
        let sent = fake.sent.count
        #expect(sent > 0)
        let backoff = try outbox.backoff()
        #expect(backoff.failures == 1)
        #expect((backoff.retryAt ?? 0) > clock.now)
        #expect(try outbox.status().lastError?.contains("did not answer in time") == true)
        // The next processes exit without a request while the backoff lasts.
        for _ in 0..<3 {
            let report = await (try process()).shutdown(timeout: 30)
            #expect(report?.succeeded == false)
        }
        #expect(fake.sent.count == sent)
        // Once it is due, the next exit tries again; a success clears the backoff.
        fake.mode = .normal
        clock.advance(301)
        #expect(await (try process()).shutdown(timeout: 30)?.succeeded == true)
        #expect(try outbox.status().pending == 0)
        #expect(try outbox.backoff().failures == 0)
        #expect(try outbox.backoff().retryAt == nil)
    }

    /// Failures in a row grow the stored backoff across processes, and `diag flush` (an explicit
    /// flush) ignores it and clears it on success.
    @Test func storedBackoffGrowsAcrossProcessesAndAnExplicitFlushClearsIt() async throws {
        let clock = TestClock(Date().timeIntervalSince1970)
        let fake = try FakeTurso()
        let outbox = try Fixtures.outbox(now: { clock.now })
        let policy = DiagnosticsFlusher.Policy(initialBackoff: 2, maxBackoff: 300)
        try outbox.enqueue(Fixtures.event(1, at: clock.now))
        fake.mode = .status(503, "down")
        var waits: [Double] = []
        for _ in 0..<6 {
            let flusher = DiagnosticsFlusher(outbox: outbox, sink: try Fixtures.sink(fake), appVersion: "0.1.0", policy: policy, now: { clock.now })
            #expect(await flusher.shutdown(timeout: 30)?.succeeded == false)
            let retryAt = try #require(try outbox.backoff().retryAt)
            waits.append(retryAt - clock.now)
            clock.advance(retryAt - clock.now + 0.001)
        }
        let ceilings: [Double] = [2, 4, 8, 16, 32, 64]
        for (wait, ceiling) in zip(waits, ceilings) { #expect(wait >= ceiling / 2 && wait <= ceiling, "\(waits)") }
        #expect(try outbox.backoff().failures == 6)
        fake.mode = .normal
        let flusher = DiagnosticsFlusher(outbox: outbox, sink: try Fixtures.sink(fake), appVersion: "0.1.0", policy: policy, now: { clock.now })
        try outbox.setBackoff(failures: 6, retryAt: clock.now + 100)
        let output = await DiagnosticsCommands(outbox: outbox, flusher: flusher).run(["flush"])
        #expect(output.exitCode == 0)
        #expect(try outbox.status().pending == 0)
        #expect(try outbox.backoff().retryAt == nil)
    }
}

/// Answers 200 at once, then sends one space every 50 ms, forever (under any idle timeout).
struct DripTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        let body = AsyncThrowingStream<[UInt8], Error> { continuation in
            let task = Task {
                while !Task.isCancelled {
                    continuation.yield([UInt8(ascii: " ")])
                    try? await Task.sleep(nanoseconds: 50_000_000)
                }
                continuation.finish(throwing: CancellationError())
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return HTTPStreamingResponse(head: HTTPResponseHead(status: 200, headers: []), body: body)
    }
}

extension SinkChaosTests {
    /// Found by the chaos run: a sink dripping one byte every 4 s kept `ofj diag flush` waiting
    /// until the drip stopped (45 s in the run; forever for a server that never stops). Each
    /// request now has a total deadline.
    @Test(.timeLimit(.minutes(1))) func aDrippingSinkCannotHoldAFlushForever() async throws {
        let outbox = try Fixtures.outbox()
        let config = try TursoConfiguration(databaseURL: "libsql://diag.example.test", authToken: "tok")
        var client = HranaClient(configuration: config, transport: DripTransport())
        client.totalTimeout = 0.5
        let flusher = DiagnosticsFlusher(outbox: outbox, sink: TursoSink(client: client), appVersion: "0.1.0")
        try outbox.enqueue(Fixtures.event(1))
        let report = await flusher.flush()
        #expect(report.error == "could not reach the diagnostics database (the response did not finish in time); delivery will retry later")
        #expect(report.retryable)
        #expect(try outbox.status().pending == 1)
    }
}

extension SinkChaosTests {
    /// Found by the third chaos run (2 events on the sink and counted as dropped): a batch was
    /// read, then marked as sent in a second transaction; another process's insert could remove
    /// it as never sent in between. Reading and marking are now one transaction.
    @Test func aBatchIsMarkedSentWhenItIsRead() async throws {
        let clock = TestClock()
        let outbox = try Fixtures.outbox(limits: .init(maxEvents: 3), now: { clock.now })
        for i in 1...3 { try outbox.enqueue(Fixtures.event(i, at: clock.now)) }
        let batch = try outbox.pending(limit: 3, markAttempted: true)
        #expect(batch.count == 3)
        // Another process records three more before the batch is answered.
        for i in 4...6 { try outbox.enqueue(Fixtures.event(i, at: clock.now)) }
        let status = try outbox.status()
        #expect(status.dropped == 0, "sent events are not counted as dropped")
        #expect(status.unconfirmed == 3)
        try outbox.acknowledge(batch.map(\.id))
        #expect(try outbox.status().delivered == 3)
        #expect(try outbox.status().unconfirmed == 0)
    }
}
