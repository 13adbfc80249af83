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
        term.__sigaction_handler.sa_handler = { _ in processTerminations.raise() }
        sigemptyset(&term.sa_mask)
        term.sa_flags = 0
        sigaction(SIGTERM, &term, nil)
        sigaction(SIGHUP, &term, nil)
        signal(SIGPIPE, SIG_IGN)
    }

    public static var interrupts: InterruptFlag { processInterrupts }
    public static var terminations: InterruptFlag { processTerminations }
}
