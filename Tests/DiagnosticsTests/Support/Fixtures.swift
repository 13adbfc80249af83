// Shared fixtures of the diagnostics tests: an outbox, a sink over FakeTurso, events, a clock.
import Agent
import Foundation
import HTTP
import Hrana
import SQLiteKit
import TestSupport
@testable import Diagnostics

// MARK: - Shared helpers

enum Fixtures {
    /// A fresh outbox in an in-memory database with the outbox migrations applied.
    static func outbox(limits: DiagnosticsOutbox.Limits = .init(), now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) throws -> DiagnosticsOutbox {
        let queue = try DatabaseQueue.inMemory()
        try DiagnosticsOutbox.migrate(queue)
        return DiagnosticsOutbox(queue: queue, limits: limits, now: now)
    }

    static func sink(_ fake: FakeTurso, token: String? = nil, url: String = "libsql://diag.example.test") throws -> TursoSink {
        let config = try TursoConfiguration(databaseURL: url, authToken: token)
        return TursoSink(client: HranaClient(configuration: config, transport: fake))
    }

    static func diagnostic(_ operation: AgentDiagnostic.Operation = .modelRound, status: String = "ok") -> AgentDiagnostic {
        var d = AgentDiagnostic(operation: operation, status: status)
        d.threadID = "thread-1"
        d.runID = "run-1"
        d.turn = 1
        d.provider = "gemini"
        d.model = "gemini-2.5-flash"
        d.usage = Usage(inputTokens: 100, cachedInputTokens: 10, outputTokens: 20, reasoningTokens: 5)
        d.totalMs = 123.5
        return d
    }

    static func event(_ n: Int, at time: Double = Date().timeIntervalSince1970) -> DiagnosticEvent {
        DiagnosticEvent(diagnostic(), id: String(format: "00000000-0000-4000-8000-%012d", n), occurredAt: time, appVersion: "0.1.0")
    }
}

/// A thread-safe settable clock for tests.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Double
    init(_ start: Double = 1_800_000_000) { value = start }
    var now: Double {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
    func advance(_ seconds: Double) { lock.withLock { value += seconds } }
}
