// Ctrl-C, SIGTERM and SIGHUP: the handlers only count; the REPL polls the counts.
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Counts interrupt requests. The process-wide instance is fed by the SIGINT handler; replay and
/// tests use their own.
public final class InterruptFlag: Sendable {
    private let count = Atomic<Int>(0)
    public init() {}
    public func raise() { count.add(1, ordering: .relaxed) }
    public var value: Int { count.load(ordering: .relaxed) }
}

let processInterrupts = InterruptFlag()
let processTerminations = InterruptFlag()
/// The number of the last SIGTERM or SIGHUP (for the exit status, 128 + signal).
let processTerminationSignal = Atomic<Int32>(0)

public enum Signals {
    /// SIGINT counts an interrupt; SIGTERM and SIGHUP ask for a clean exit. No SA_RESTART, so a
    /// blocking read returns and the line editor can notice.
    public static func install() {
        var sa = sigaction()
        sa.__sigaction_handler.sa_handler = { _ in processInterrupts.raise() }
        sigemptyset(&sa.sa_mask)
        sa.sa_flags = 0
        sigaction(SIGINT, &sa, nil)
        var term = sigaction()
        term.__sigaction_handler.sa_handler = { signal in
            processTerminationSignal.store(signal, ordering: .relaxed)
            processTerminations.raise()
        }
        sigemptyset(&term.sa_mask)
        term.sa_flags = 0
        sigaction(SIGTERM, &term, nil)
        sigaction(SIGHUP, &term, nil)
        signal(SIGPIPE, SIG_IGN)
        // A parent can start ofj with these blocked (the mask is inherited across exec); blocked,
        // a SIGTERM would wait unseen until the run's own deadline.
        var wanted = sigset_t()
        sigemptyset(&wanted)
        for s in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&wanted, s) }
        pthread_sigmask(SIG_UNBLOCK, &wanted, nil)
    }

    public static var interrupts: InterruptFlag { processInterrupts }
    public static var terminations: InterruptFlag { processTerminations }
    /// The exit status for a termination signal: 143 for SIGTERM, 129 for SIGHUP.
    public static var terminationStatus: Int32 {
        let signal = processTerminationSignal.load(ordering: .relaxed)
        return 128 + (signal == 0 ? SIGTERM : signal)
    }
}

/// Watches the interrupt and termination counts on a thread of its own (never the task pool,
/// which a fast stream can keep busy) and calls `action` once, within ~10 ms of a signal that
/// came after the watch started.
public final class SignalWatch: Sendable {
    private let cancelled = Atomic<Bool>(false)

    /// `since` gives the counts to compare with (taken earlier, so a signal that came in between
    /// counts); by default, the counts now.
    public init(interrupts: InterruptFlag = Signals.interrupts, terminations: InterruptFlag = Signals.terminations,
                since: (interrupts: Int, terminations: Int)? = nil, _ action: @escaping @Sendable () -> Void) {
        let base = since.map { ($0.interrupts, $0.terminations) } ?? (interrupts.value, terminations.value)
        let thread = Thread { [self] in
            while !self.cancelled.load(ordering: .relaxed) {
                if interrupts.value != base.0 || terminations.value != base.1 {
                    action()
                    return
                }
                usleep(10_000)
            }
        }
        thread.name = "ofj-signals"
        thread.start()
    }

    /// Ends the watch (the thread notices within ~10 ms).
    public func cancel() { cancelled.store(true, ordering: .relaxed) }
}
