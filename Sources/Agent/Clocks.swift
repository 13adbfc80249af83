// Clock and id implementations: the real ones for the app, deterministic ones for tests and replay.
import Foundation
import Synchronization

/// A pending `AgentClock.schedule` action; `cancel()` makes sure it never runs.
public final class ScheduledTimer: Sendable {
    private let onCancel: @Sendable () -> Void
    public init(onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }
    public func cancel() { onCancel() }
}

extension AgentClock {
    public func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> ScheduledTimer {
        let task = Task {
            do { try await self.sleep(seconds: seconds) } catch { return }
            action()
        }
        return ScheduledTimer { task.cancel() }
    }
}

// MARK: - Real

/// Wall time from the system, monotonic time from `ContinuousClock`.
public struct SystemClock: AgentClock {
    private let origin = ContinuousClock.now
    public init() {}
    public func now() -> Double { Date().timeIntervalSince1970 }
    public func monotonic() -> Double {
        let d = ContinuousClock.now - origin
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
    public func sleep(seconds: Double) async throws {
        guard seconds > 0 else { try Task.checkCancellation(); return }
        try await Task.sleep(for: .milliseconds(Int64((seconds * 1000).rounded(.up))))
    }
}

/// Random UUID strings.
public struct UUIDSource: IDSource {
    public init() {}
    public func next() -> String { UUID().uuidString.lowercased() }
}

// MARK: - Deterministic

/// Ids "<prefix>1", "<prefix>2", ... in call order.
public final class CountingIDSource: IDSource {
    private let counter = Mutex(0)
    private let prefix: String
    public init(prefix: String = "id-") { self.prefix = prefix }
    public func next() -> String {
        let n = counter.withLock { value -> Int in value += 1; return value }
        return "\(prefix)\(n)"
    }
}

/// Virtual time for tests and transcript replay. Nothing happens on its own: time moves only when
/// someone sleeps (a scripted model's delay, a backoff) or calls `advance(by:)`. Moving time fires
/// the scheduled actions (deadlines) that fall due, in order, at their exact time; a sleeper whose
/// task gets cancelled by such an action throws `CancellationError` at that instant. Each sleep
/// ends at `now + seconds` as read when it started, so concurrent sleeps overlap as they would in
/// real time. Results are exactly reproducible when one task at a time moves time (the scripted
/// model plays its delays on demand for that reason).
public final class VirtualClock: AgentClock {
    private struct Pending {
        var at: Double
        var action: @Sendable () -> Void
    }
    private struct State {
        var time: Double = 0
        var pending: [Int: Pending] = [:]
        var nextID = 0
    }
    private let state = Mutex(State())
    private let epoch: Double

    /// - Parameter epoch: wall time (seconds since 1970) at virtual time zero.
    public init(epoch: Double = 1_800_000_000) { self.epoch = epoch }

    public func now() -> Double { epoch + monotonic() }
    public func monotonic() -> Double { state.withLock { $0.time } }

    /// Number of scheduled actions not yet fired or cancelled (tests check that deadlines are disarmed).
    public var pendingCount: Int { state.withLock { $0.pending.count } }

    public func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        let target = state.withLock { $0.time } + max(0, seconds)
        while let action = popDue(until: target) {
            action()
            if Task.isCancelled { throw CancellationError() }
        }
        await Task.yield()
        try Task.checkCancellation()
    }

    /// Moves time forward, firing due actions (for tests that drive time by hand).
    public func advance(by seconds: Double) {
        let target = state.withLock { $0.time } + max(0, seconds)
        while let action = popDue(until: target) { action() }
    }

    public func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> ScheduledTimer {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            s.pending[s.nextID] = Pending(at: s.time + max(0, seconds), action: action)
            return s.nextID
        }
        return ScheduledTimer { [weak self] in
            _ = self?.state.withLock { $0.pending.removeValue(forKey: id) }
        }
    }

    /// Removes and returns the earliest action due by `target`, moving time to it; when none is due,
    /// moves time to `target` and returns nil.
    private func popDue(until target: Double) -> (@Sendable () -> Void)? {
        state.withLock { s in
            let due = s.pending.filter { $0.value.at <= target }
                .min { ($0.value.at, $0.key) < ($1.value.at, $1.key) }
            guard let due else {
                s.time = max(s.time, target)
                return nil
            }
            s.pending.removeValue(forKey: due.key)
            s.time = max(s.time, due.value.at)
            return due.value.action
        }
    }
}
