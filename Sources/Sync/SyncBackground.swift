// Background sync: at start, soon after each committed local change, and every few minutes;
// its own Task, backoff with jitter, at most a bounded wait at exit. Never blocks the prompt.
import Foundation
import Synchronization

public actor SyncBackground {
    public struct Policy: Sendable, Hashable {
        /// How often pending local changes are looked for (a committed write syncs within this).
        public var pollInterval: Double = 2
        /// How often the remote is pulled when nothing changed here.
        public var pullInterval: Double = 120
        public var initialBackoff: Double = 2
        public var maxBackoff: Double = 300
        public init() {}
    }

    public nonisolated let engine: SyncEngine
    public nonisolated let policy: Policy
    private var loop: Task<Void, Never>?
    private var failures = 0
    private var nextAttempt: Date = .distantPast
    private var lastRun: Date = .distantPast
    public private(set) var lastReport: SyncReport?

    public init(engine: SyncEngine, policy: Policy = Policy()) {
        self.engine = engine
        self.policy = policy
    }

    public func start() {
        guard loop == nil else { return }
        loop = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                await self.tick()
                try? await Task.sleep(nanoseconds: UInt64(self.policy.pollInterval * 1_000_000_000))
            }
        }
    }

    /// The next attempt after failures, stored so that every process (the next REPL, `ofj ask`)
    /// honours it: a failing server costs one attempt per backoff, not one per start.
    func retryAt() -> Date {
        let stored = (try? engine.local.state("retry_at")).flatMap { $0.flatMap(Double.init) }.map { Date(timeIntervalSince1970: $0) }
        return max(nextAttempt, stored ?? .distantPast)
    }

    func tick() async {
        let now = Date()
        guard now >= retryAt() else { return }
        let pending = (try? engine.local.status(threads: engine.configuration.threads).pending) ?? 0
        guard pending > 0 || now.timeIntervalSince(lastRun) >= policy.pullInterval else { return }
        await runOnce()
    }

    /// One sync now (the REPL's `/sync` uses the engine directly and waits).
    @discardableResult
    public func runOnce() async -> SyncReport {
        let report = await engine.run()
        lastRun = Date()
        lastReport = report
        if report.succeeded {
            failures = 0
            nextAttempt = .distantPast
            try? engine.local.setState("retry_at", nil)
        } else {
            failures += 1
            let ceiling = min(policy.maxBackoff, policy.initialBackoff * pow(2, Double(min(failures - 1, 20))))
            var delay = report.retryable ? ceiling / 2 + Double.random(in: 0...(ceiling / 2)) : policy.maxBackoff
            if let after = report.retryAfter, after > 0 { delay = min(policy.maxBackoff, max(delay, after)) }
            nextAttempt = Date().addingTimeInterval(delay)
            try? engine.local.setState("retry_at", String(nextAttempt.timeIntervalSince1970))
        }
        return report
    }

    /// Stops the loop; when local changes are pending and the remote is not backing off, tries
    /// one last sync for at most `timeout` seconds (what is not sent stays pending for next time).
    public func shutdown(timeout: Double = 2) async {
        loop?.cancel()
        loop = nil
        guard Date() >= retryAt(), ((try? engine.local.status(threads: engine.configuration.threads).pending) ?? 0) > 0 else { return }
        let engine = self.engine
        let work = Task { await engine.run() }
        // Race the sync against the deadline without awaiting the loser (a stalled server cannot
        // hold the exit longer than `timeout`).
        let settled = Once()
        let finished: Bool = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Task.detached {
                _ = await work.value
                if settled.claim() { continuation.resume(returning: true) }
            }
            Task.detached {
                try? await Task.sleep(nanoseconds: UInt64(max(0, timeout) * 1_000_000_000))
                if settled.claim() { continuation.resume(returning: false) }
            }
        }
        if !finished { work.cancel() }
    }
}

/// True for the first caller of `claim()` only.
final class Once: Sendable {
    private let claimed = Mutex(false)
    func claim() -> Bool { claimed.withLock { done in defer { done = true }; return !done } }
}
