// The agent's DiagnosticsRecorder: turns AgentDiagnostics into redacted events in the outbox.
import Agent
import Foundation
import OutputSafety
import Synchronization

/// Records each `AgentDiagnostic` as a `DiagnosticEvent` in the outbox with one small insert.
/// Never throws into the caller: a failed insert is counted and remembered (redacted) instead.
public final class OutboxRecorder: DiagnosticsRecorder {
    public let outbox: DiagnosticsOutbox
    public let appVersion: String
    private let makeID: @Sendable () -> String
    private let now: @Sendable () -> Double
    private let failures = Mutex<(count: Int, last: String?)>((0, nil))
    private let onRecord: (@Sendable () -> Void)?
    private let allowedToolNames: Set<String>?

    /// - Parameters:
    ///   - makeID: event ids (random UUIDs by default).
    ///   - onRecord: called after each stored event, e.g. `flusher.nudge` (must not block).
    ///   - allowedToolNames: the tool registry's names; when given, any other tool name is
    ///     recorded as "unregistered_tool" (a name-shaped string could otherwise be content).
    public init(outbox: DiagnosticsOutbox, appVersion: String, allowedToolNames: Set<String>? = nil,
                makeID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() },
                now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
                onRecord: (@Sendable () -> Void)? = nil) {
        self.outbox = outbox
        self.appVersion = appVersion
        self.makeID = makeID
        self.now = now
        self.onRecord = onRecord
        self.allowedToolNames = allowedToolNames
    }

    public func record(_ diagnostic: AgentDiagnostic) {
        var diagnostic = diagnostic
        if let allowedToolNames, let name = diagnostic.toolName, !allowedToolNames.contains(name) {
            diagnostic.toolName = "unregistered_tool"
        }
        let event = DiagnosticEvent(diagnostic, id: makeID(), occurredAt: now(), appVersion: appVersion)
        do {
            try outbox.enqueue(event)
            onRecord?()
        } catch {
            // Diagnostics must never break the REPL; the failure shows in `diag status` via
            // `failedRecords` and is redacted like every other diagnostic text.
            let message = Redactor.redact(String(describing: error))
            failures.withLock { $0 = ($0.count + 1, message) }
        }
    }

    /// Events that could not be stored since start, and the last reason (redacted).
    public var failedRecords: (count: Int, lastError: String?) {
        failures.withLock { ($0.count, $0.last) }
    }
}
