// Deadline policies (SPEC §2 "fast" and "patient") and the timers that enforce them.
import Synchronization

/// Every deadline and the retry backoff, in seconds.
public struct DeadlinePolicy: Sendable, Hashable {
    public var name: String
    public var localRead: Double
    public var webSearch: Double
    public var urlFetch: Double
    public var firstEvent: Double
    public var streamIdle: Double
    public var modelTurn: Double
    public var run: Double
    /// Base backoff before the single retry of a safe operation (jittered ±20%).
    public var retryBackoff: Double

    public init(name: String, localRead: Double, webSearch: Double, urlFetch: Double, firstEvent: Double, streamIdle: Double,
                modelTurn: Double, run: Double, retryBackoff: Double = 0.25) {
        self.name = name
        self.localRead = localRead
        self.webSearch = webSearch
        self.urlFetch = urlFetch
        self.firstEvent = firstEvent
        self.streamIdle = streamIdle
        self.modelTurn = modelTurn
        self.run = run
        self.retryBackoff = retryBackoff
    }

    /// Hosted providers.
    public static let fast = DeadlinePolicy(name: "fast", localRead: 1, webSearch: 10, urlFetch: 15, firstEvent: 10, streamIdle: 8,
                                            modelTurn: 90, run: 180)
    /// Local model servers, which can take minutes to read a long prompt on a CPU.
    public static let patient = DeadlinePolicy(name: "patient", localRead: 1, webSearch: 10, urlFetch: 15, firstEvent: 120, streamIdle: 60,
                                               modelTurn: 600, run: 1800)

    public func seconds(for timing: ToolTiming) -> Double {
        switch timing {
        case .localRead: return localRead
        case .webSearch: return webSearch
        case .urlFetch: return urlFetch
        }
    }
}

/// Which deadline passed.
public enum DeadlineKind: String, Sendable, Hashable {
    case toolRead = "tool_read", firstEvent = "first_event", streamIdle = "stream_idle", modelTurn = "model_turn", run
}

struct DeadlineExpired: Error, Sendable {
    var kind: DeadlineKind
    var seconds: Double
}

/// Time a run has used, not counting time spent waiting for the person's approval.
final class RunBudget: Sendable {
    private struct State { var started: Double; var excluded: Double = 0 }
    private let state: Mutex<State>
    let limit: Double
    let clock: any AgentClock

    init(limit: Double, clock: any AgentClock) {
        self.limit = limit
        self.clock = clock
        self.state = Mutex(State(started: clock.monotonic()))
    }

    var used: Double { state.withLock { clock.monotonic() - $0.started - $0.excluded } }
    var remaining: Double { max(0, limit - used) }

    /// Adds a span (approval wait) that does not count.
    func exclude(_ seconds: Double) { state.withLock { $0.excluded += max(0, seconds) } }
}

/// A once-only continuation that may be resumed before it is installed.
final class OnceResult<T: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<T, any Error>)
        case done(Result<T, any Error>)
        case consumed
    }
    private let state = Mutex<State>(.empty)

    func install(_ c: CheckedContinuation<T, any Error>) {
        let ready: Result<T, any Error>? = state.withLock { s in
            switch s {
            case .empty: s = .waiting(c); return nil
            case .done(let r): s = .consumed; return r
            case .waiting, .consumed: return nil
            }
        }
        if let ready { c.resume(with: ready) }
    }

    func resume(_ r: Result<T, any Error>) {
        let waiting: CheckedContinuation<T, any Error>? = state.withLock { s in
            switch s {
            case .empty: s = .done(r); return nil
            case .waiting(let c): s = .consumed; return c
            case .done, .consumed: return nil
            }
        }
        waiting?.resume(with: r)
    }
}

/// Runs `operation` in its own task and returns its result, or throws `DeadlineExpired` when
/// `seconds` pass first (the operation is cancelled and not waited for, so a stuck tool cannot
/// hold the run). Cancelling the caller cancels the operation and returns at once.
func withDeadline<T: Sendable>(_ seconds: Double, kind: DeadlineKind, clock: any AgentClock,
                               _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let result = OnceResult<T>()
    let task = Task {
        do { result.resume(.success(try await operation())) } catch { result.resume(.failure(error)) }
    }
    let timer = clock.schedule(after: seconds) {
        result.resume(.failure(DeadlineExpired(kind: kind, seconds: seconds)))
        task.cancel()
    }
    defer { timer.cancel() }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { result.install($0) }
    } onCancel: {
        result.resume(.failure(CancellationError()))
        task.cancel()
    }
}

/// Guards one streamed model attempt: the first-event timer until the first event, then one
/// idle timer that, when it falls due, re-arms itself for the time since the latest event (so
/// events cost no timer each); the turn (or run) timer once. Whichever fires first is remembered
/// and cancels the consuming task. The consumer also checks the turn deadline on every event
/// (`eventArrived` throws), so a stream that never pauses stops on time even when it keeps every
/// thread busy and the timers cannot run.
final class StreamWatchdog: Sendable {
    private struct State {
        var eventTimer: ScheduledTimer?
        var overallTimer: ScheduledTimer?
        var overallAt: Double?
        var overall: DeadlineExpired?
        var lastEventAt: Double?
        /// The last sign of life before the first event (`heartbeat`): the first-event wait
        /// counts from here.
        var aliveAt: Double?
        var fired: DeadlineExpired?
        var target: Task<Void, Never>?
        var stopped = false
    }
    private let state = Mutex(State())
    private let clock: any AgentClock
    private let firstEvent: Double
    private let idle: Double

    init(clock: any AgentClock, firstEvent: Double, idle: Double) {
        self.clock = clock
        self.firstEvent = firstEvent
        self.idle = idle
    }

    var fired: DeadlineExpired? { state.withLock { $0.fired } }

    /// Starts the timers; `overall` is the turn or run limit, whichever is nearer. Call before
    /// the consuming task exists, then `attach` it.
    func start(overall: DeadlineExpired, after seconds: Double) {
        let at = clock.monotonic() + seconds
        state.withLock {
            $0.overallAt = at
            $0.overall = overall
        }
        let whole = schedule(overall, after: seconds)
        state.withLock { $0.overallTimer = whole }
        armFirstEventTimer(after: firstEvent)
    }

    /// A sign of life that is not an event (an SSE comment such as llama-cpp-python's `: ping`, or
    /// llama.cpp's `prompt_progress` while it reads the prompt): before the first event the
    /// first-event wait starts again from now; after it, it counts for the idle deadline. The
    /// turn's and run's limits still hold. Throws the deadline that passed, as `eventArrived`.
    func heartbeat() throws {
        let now = clock.monotonic()
        let expired: DeadlineExpired? = state.withLock { s in
            if let fired = s.fired { return fired }
            if s.stopped { return nil }
            if let at = s.overallAt, let overall = s.overall, now >= at {
                s.fired = overall
                return overall
            }
            if s.lastEventAt != nil { s.lastEventAt = now } else { s.aliveAt = now }
            return nil
        }
        if let expired { throw expired }
    }

    /// The first-event timer: due when neither an event nor a heartbeat came for `firstEvent`
    /// seconds; after a heartbeat it sets itself again for what is left.
    private func armFirstEventTimer(after seconds: Double) {
        let timer = clock.schedule(after: seconds) { [weak self] in
            guard let self else { return }
            let now = self.clock.monotonic()
            enum Next { case nothing, rearm(Double), fire(Task<Void, Never>?) }
            let next: Next = self.state.withLock { s in
                if s.stopped || s.fired != nil || s.lastEventAt != nil { return .nothing }
                let left = (s.aliveAt ?? 0) + self.firstEvent - now
                if s.aliveAt != nil && left > 1e-9 { return .rearm(left) }
                s.fired = DeadlineExpired(kind: .firstEvent, seconds: self.firstEvent)
                return .fire(s.target)
            }
            switch next {
            case .nothing: break
            case .rearm(let left): self.armFirstEventTimer(after: left)
            case .fire(let target): target?.cancel()
            }
        }
        let replaced: Bool = state.withLock { s in
            if s.stopped || s.fired != nil || s.lastEventAt != nil { return false }
            s.eventTimer = timer
            return true
        }
        if !replaced { timer.cancel() }
    }

    /// The task a firing deadline cancels (cancelled at once if one already fired).
    func attach(_ target: Task<Void, Never>) {
        let firedAlready = state.withLock { s -> Bool in
            s.target = target
            return s.fired != nil
        }
        if firedAlready { target.cancel() }
    }

    /// An event arrived: the idle deadline starts again. Throws the deadline that passed, if the
    /// turn's (or run's) time is up or a timer already fired.
    func eventArrived() throws {
        let now = clock.monotonic()
        var armIdle = false
        let (expired, old): (DeadlineExpired?, ScheduledTimer?) = state.withLock { s in
            if let fired = s.fired { return (fired, nil) }
            if s.stopped { return (nil, nil) }
            if let at = s.overallAt, let overall = s.overall, now >= at {
                s.fired = overall
                return (overall, nil)
            }
            let first = s.lastEventAt == nil
            s.lastEventAt = now
            guard first else { return (nil, nil) }
            armIdle = true
            defer { s.eventTimer = nil }
            return (nil, s.eventTimer)
        }
        if let expired { throw expired }
        old?.cancel()
        if armIdle { armIdleTimer(after: idle) }
    }

    func stop() {
        let timers: [ScheduledTimer] = state.withLock { s in
            s.stopped = true
            s.target = nil
            return [s.eventTimer, s.overallTimer].compactMap { $0 }
        }
        timers.forEach { $0.cancel() }
    }

    /// The idle timer: due when no event came for `idle` seconds; if one came meanwhile, it sets
    /// itself again for what is left.
    private func armIdleTimer(after seconds: Double) {
        let timer = clock.schedule(after: seconds) { [weak self] in
            guard let self else { return }
            let now = self.clock.monotonic()
            enum Next { case nothing, rearm(Double), fire(Task<Void, Never>?) }
            let next: Next = self.state.withLock { s in
                if s.stopped || s.fired != nil { return .nothing }
                let left = (s.lastEventAt ?? now) + self.idle - now
                if left > 1e-9 { return .rearm(left) }
                s.fired = DeadlineExpired(kind: .streamIdle, seconds: self.idle)
                return .fire(s.target)
            }
            switch next {
            case .nothing: break
            case .rearm(let left): self.armIdleTimer(after: left)
            case .fire(let target): target?.cancel()
            }
        }
        let replaced: Bool = state.withLock { s in
            if s.stopped || s.fired != nil { return false }
            s.eventTimer = timer
            return true
        }
        if !replaced { timer.cancel() }
    }

    private func schedule(_ expiry: DeadlineExpired, after seconds: Double) -> ScheduledTimer {
        clock.schedule(after: seconds) { [weak self] in
            guard let self else { return }
            let target: Task<Void, Never>? = self.state.withLock { s in
                if s.stopped || s.fired != nil { return nil }
                s.fired = expiry
                return s.target
            }
            target?.cancel()
        }
    }
}

/// A one-shot gate: `wait()` returns once `open()` was called (before or after).
final class StartGate: Sendable {
    private let state = Mutex<(open: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    func wait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                if s.open { return true }
                s.waiter = c
                return false
            }
            if ready { c.resume() }
        }
    }

    func open() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.open = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }
}
