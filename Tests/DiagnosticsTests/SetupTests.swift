// DiagnosticsSetup wires recorder → outbox → flusher → sink from configuration values.
import Foundation
import SQLiteKit
import TestSupport
import Testing
@testable import Diagnostics

@Suite struct SetupTests {
    func migratedQueue() throws -> DatabaseQueue {
        let queue = try DatabaseQueue.inMemory()
        try DiagnosticsOutbox.migrate(queue)
        return queue
    }

    @Test func notConfiguredKeepsEventsLocal() async throws {
        let setup = DiagnosticsSetup.make(queue: try migratedQueue(), databaseURL: nil, authToken: nil,
                                          transport: try FakeTurso(), appVersion: "0.1.0")
        #expect(setup.flusher == nil && setup.configurationProblem == nil)
        setup.recorder.record(Fixtures.diagnostic())
        await setup.start()
        #expect(try setup.outbox.status().pending == 1)
        #expect((await setup.commands.run(["status"])).stdout.contains("not configured"))
        await setup.shutdown()
    }

    @Test func badURLIsReportedNotThrown() async throws {
        let setup = DiagnosticsSetup.make(queue: try migratedQueue(), databaseURL: "ftp://nope", authToken: "sk-secret-abcdefgh",
                                          transport: try FakeTurso(), appVersion: "0.1.0")
        #expect(setup.flusher == nil)
        let problem = try #require(setup.configurationProblem)
        #expect(problem.contains("TURSO_DATABASE_URL"))
        let status = await setup.commands.run(["status"])
        #expect(status.stdout.contains("misconfigured"))
        #expect(!status.stdout.contains("sk-secret"))
    }

    @Test func configuredDeliversInTheBackground() async throws {
        let fake = try FakeTurso(token: "tok")
        let setup = DiagnosticsSetup.make(queue: try migratedQueue(), databaseURL: "libsql://db.example.test", authToken: "tok",
                                          transport: fake, appVersion: "0.1.0", policy: .init(interval: 0.05))
        await setup.start()
        for _ in 0..<3 { setup.recorder.record(Fixtures.diagnostic()) }
        let deadline = Date().addingTimeInterval(240) // a bound, not a timing check: exits as soon as delivered
        while try setup.outbox.status().pending > 0, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(try setup.outbox.status().delivered == 3)
        #expect(fake.sent.allSatisfy { $0.url == "https://db.example.test/v3/pipeline" })
        await setup.shutdown()
    }
}
