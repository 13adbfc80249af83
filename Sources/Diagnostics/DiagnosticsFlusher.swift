// Background delivery of outbox events to the sink: batches, backoff with jitter, expiry sweeps, bounded shutdown.
import Foundation
import Hrana
import OutputSafety
import Synchronization

/// Delivers the outbox to the sink from its own Task. Callers never wait on it except through
/// `flush()` (for `ofj diag flush`) and `shutdown(timeout:)` (at exit, bounded).
public actor DiagnosticsFlusher {
    public struct Policy: Sendable, Hashable {
        /// Seconds between flushes while healthy.
        public var interval: Double
        /// First retry delay after a failure; doubles up to `maxBackoff`.
        public var initialBackoff: Double
        public var maxBackoff: Double
        /// Events per batch and payload bytes per batch (each HTTP request stays well under 1 MiB).
        public var batchEvents: Int
        public var batchBytes: Int
        /// Batches per flush before yielding to the next interval.
        public var maxBatchesPerFlush: Int
        /// Seconds between deletes of expired sink rows.
        public var expirySweepInterval: Double
        /// Seconds after which one flush starts no further request (a sink answering each request
        /// slowly but within the timeouts kept `ofj diag flush` busy for 60 s in the chaos run).
        public var flushBudget: Double = 15
        public init(interval: Double = 30, initialBackoff: Double = 2, maxBackoff: Double = 300,
                    batchEvents: Int = 100, batchBytes: Int = 128 << 10, maxBatchesPerFlush: Int = 10,
                    expirySweepInterval: Double = 3600) {
            self.interval = interval
            self.initialBackoff = initialBackoff
            self.maxBackoff = maxBackoff
            self.batchEvents = batchEvents
            self.batchBytes = batchBytes
            self.maxBatchesPerFlush = maxBatchesPerFlush
            self.expirySweepInterval = expirySweepInterval
        }
    }

    /// What one flush did.
    public struct Report: Sendable, Hashable {
        public var delivered: Int
        public var remaining: Int
        /// Redacted; nil on success.
        public var error: String?
        public var retryable: Bool
        /// Seconds the server asked us to wait (429 Retry-After).
        public var retryAfter: Double?
        public var succeeded: Bool { error == nil }
        public init(delivered: Int, remaining: Int, error: String?, retryable: Bool, retryAfter: Double? = nil) {
            self.delivered = delivered
            self.remaining = remaining
            self.error = error
            self.retryable = retryable
            self.retryAfter = retryAfter
        }
    }

    public nonisolated let outbox: DiagnosticsOutbox
    public nonisolated let sink: TursoSink
    public nonisolated let policy: Policy
    nonisolated let appVersion: String
    nonisolated let now: @Sendable () -> Double

    private var loop: Task<Void, Never>?
    private var current: Task<Report, Never>?
    private var migrated = false
    private var failures = 0
    private var wake: CheckedContinuation<Void, Never>?
    private var pendingWake = false

    public init(outbox: DiagnosticsOutbox, sink: TursoSink, appVersion: String, policy: Policy = Policy(),
                now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.outbox = outbox
        self.sink = sink
        self.appVersion = appVersion
        self.policy = policy
        self.now = now
    }

    // MARK: - Background loop

    /// Starts the background loop (idempotent).
    public func start() {
        guard loop == nil else { return }
        loop = Task { [weak self] in
            // Another process (or the last run) may have backed off from a failing sink.
            if let wait = await self?.storedWait(), wait > 0 { await self?.sleep(seconds: wait) }
            while !Task.isCancelled {
                guard let self else { return }
                let report = await self.flush()
                let delay = await self.nextDelay(after: report)
                await self.sleep(seconds: delay)
            }
        }
    }

    /// Asks the loop to flush soon (e.g. after a burst of events). Never blocks.
    public nonisolated func nudge() {
        Task { await self.wakeUp(force: false) }
    }

    /// A nudge does not cut a backoff short; the timer and cancellation do.
    private func wakeUp(force: Bool) {
        if !force && failures > 0 { return }
        if let wake {
            self.wake = nil
            wake.resume()
        } else {
            pendingWake = true
        }
    }

    /// Sleeps for `seconds` or until nudged or cancelled.
    private func sleep(seconds: Double) async {
        if pendingWake && failures == 0 { pendingWake = false; return }
        pendingWake = false
        let timer = Task { [weak self] in
            do { try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000)) } catch { return }
            await self?.wakeUp(force: true)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled { continuation.resume() } else { wake = continuation }
            }
        } onCancel: {
            Task { await self.wakeUp(force: true) }
        }
        timer.cancel()
    }

    /// Exponential backoff with full jitter after failures; the normal interval otherwise. The
    /// failure count and the time of the next attempt are stored in the outbox, shared by every
    /// process (see `shutdown`).
    func nextDelay(after report: Report) -> Double {
        if report.succeeded {
            failures = 0 // the flush's recordSuccess already cleared the stored backoff
            return report.remaining > 0 ? 0.05 : policy.interval
        }
        failures = max(failures, (try? outbox.backoff().failures) ?? 0) + 1
        let delay: Double
        if !report.retryable {
            delay = policy.maxBackoff
        } else {
            let exponent = min(failures - 1, 20)
            let ceiling = min(policy.maxBackoff, policy.initialBackoff * pow(2, Double(exponent)))
            let jittered = ceiling / 2 + Double.random(in: 0...(ceiling / 2))
            if let after = report.retryAfter, after.isFinite, after > 0 {
                delay = min(policy.maxBackoff, max(after, jittered))
            } else {
                delay = jittered
            }
        }
        try? outbox.setBackoff(failures: failures, retryAt: now() + delay)
        return delay
    }

    /// Seconds until the stored next attempt (0 when due or none is stored).
    func storedWait() -> Double {
        guard let retryAt = (try? outbox.backoff())?.retryAt else { return 0 }
        return min(policy.maxBackoff, max(0, retryAt - now()))
    }

    // MARK: - Flushing

    /// Delivers pending events now. Concurrent calls run one after another, never in parallel.
    @discardableResult
    public func flush() async -> Report {
        // Chain onto the previous flush instead of polling `current`: awaiting an already
        // finished task does not suspend, so a polling loop could spin on the actor.
        let previous = current
        let task = Task {
            _ = await previous?.value
            return await self.performFlush()
        }
        current = task
        // Cancelling the caller (shutdown's deadline) cancels the delivery and its HTTP request.
        let report = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        if current == task { current = nil }
        return report
    }

    private func performFlush() async -> Report {
        var delivered = 0
        do {
            try outbox.prune()
            if !migrated {
                try await sink.migrate()
                migrated = true
            }
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .milliseconds(Int64(policy.flushBudget * 1000)))
            try await reportDrops(until: deadline)
            for _ in 0..<policy.maxBatchesPerFlush {
                try Task.checkCancellation()
                if clock.now >= deadline { break }
                let batch = try outbox.pending(limit: policy.batchEvents, maxBytes: policy.batchBytes, markAttempted: true)
                if batch.isEmpty { break }
                try await sink.insert(batch)
                try outbox.acknowledge(batch.map(\.id))
                delivered += batch.count
            }
            let time = now()
            if let last = try outbox.lastExpirySweep(), time - last < policy.expirySweepInterval {
            } else {
                try await sink.deleteExpired(now: time)
                try outbox.recordExpirySweep(at: time)
            }
            try outbox.recordSuccess()
            return Report(delivered: delivered, remaining: (try? outbox.status().pending) ?? 0, error: nil, retryable: false)
        } catch {
            let message = Self.describe(error)
            let retryable = (error as? HranaError)?.isRetryable ?? true
            // Cancelled by shutdown's deadline: shutdown records the timeout itself ("cancelled"
            // would tell the user nothing about the sink).
            if Task.isCancelled {
                return Report(delivered: delivered, remaining: (try? outbox.status().pending) ?? 0,
                              error: "delivery was interrupted", retryable: true)
            }
            do { try outbox.recordFailure(message) } catch {
                // The status row could not be written; the report still carries the error.
            }
            // A statement error may mean the table changed under us: check the schema again next time.
            if case .statement? = error as? HranaError { migrated = false }
            var retryAfter: Double?
            if case .rateLimited(let after)? = error as? HranaError { retryAfter = after }
            return Report(delivered: delivered, remaining: (try? outbox.status().pending) ?? 0,
                          error: Redactor.redact(message), retryable: retryable, retryAfter: retryAfter)
        }
    }

    /// Sends one event saying how many events the outbox dropped since the last report.
    /// The report is stored before it is sent and resent unchanged until acknowledged, so a lost
    /// acknowledgement cannot count the same drops twice on the sink.
    private func reportDrops(until deadline: ContinuousClock.Instant) async throws {
        // Sent events the bounds removed before an acknowledgement: count each as delivered or
        // dropped by what the sink holds, so that a lost acknowledgement is not reported as a drop.
        // Only ids removed a while ago: a request the client gave up on may still commit.
        for _ in 0..<10 {
            if ContinuousClock().now >= deadline { break }
            let ids = try outbox.unconfirmed(limit: 100, removedBefore: now() - DiagnosticsOutbox.unconfirmedSettle)
            if ids.isEmpty { break }
            let found = try await sink.existingIDs(ids)
            try outbox.resolveUnconfirmed(ids, found: found)
        }
        guard let report = try outbox.pendingDropReport(makeID: { UUID().uuidString.lowercased() }) else { return }
        let event = DiagnosticEvent.outboxDrops(report.count, id: report.id, occurredAt: report.occurredAt, appVersion: appVersion)
        try await sink.insert([event])
        try outbox.completeDropReport(report.id)
    }

    static func describe(_ error: Error) -> String {
        if let e = error as? HranaError { return e.describe(.diagnostics) }
        if error is CancellationError { return "delivery was interrupted" }
        return "diagnostics delivery failed (\(String(describing: type(of: error))))"
    }

    // MARK: - Shutdown

    /// Stops the loop and flushes for at most `timeout` seconds. Returns the final report, or nil
    /// when the time ran out (the events stay in the outbox for the next start).
    ///
    /// While the sink is backing off (a stored retry time in the future, set by any process), no
    /// attempt is made: a sink that stalls would otherwise cost every `ofj ask` the whole timeout.
    @discardableResult
    public func shutdown(timeout: Double = 2) async -> Report? {
        loop?.cancel()
        loop = nil
        if let wake { self.wake = nil; wake.resume() }
        if storedWait() > 0 {
            let status = try? outbox.status()
            return Report(delivered: 0, remaining: status?.pending ?? 0, error: status?.lastError ?? "waiting to retry", retryable: true)
        }
        let flushTask = Task { await self.flush() }
        // Race the flush against the deadline without awaiting the loser, so a transport that
        // ignores cancellation still cannot hold the exit longer than `timeout`.
        let settled = OnceFlag()
        let result: Report? = await withCheckedContinuation { (continuation: CheckedContinuation<Report?, Never>) in
            // Detached: neither side needs the actor, so a busy actor cannot delay the deadline.
            Task.detached {
                let report = await flushTask.value
                if settled.claim() { continuation.resume(returning: report) }
            }
            Task.detached {
                try? await Task.sleep(nanoseconds: UInt64(max(0, timeout) * 1_000_000_000))
                if settled.claim() { continuation.resume(returning: nil) }
            }
        }
        if let result {
            _ = nextDelay(after: result)
        } else {
            flushTask.cancel()
            // The sink did not answer in time: back off like any failure, so that the next
            // process does not wait for it again.
            _ = nextDelay(after: Report(delivered: 0, remaining: 0, error: "timed out", retryable: true))
            try? outbox.recordFailure("the diagnostics database did not answer in time; delivery will retry later")
        }
        return result
    }
}

/// True for the first caller of `claim()` only.
final class OnceFlag: Sendable {
    private let claimed = Mutex(false)
    func claim() -> Bool {
        claimed.withLock { done in
            defer { done = true }
            return !done
        }
    }
}
