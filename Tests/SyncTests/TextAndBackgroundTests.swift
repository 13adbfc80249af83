// What the user sees (golden files) and the background sync (REPL): at start, after a change.
import Foundation
import Hrana
import TestSupport
import Testing
@testable import Sync

@Suite(.serialized) struct TextAndBackgroundTests {
    func golden(_ name: String, _ text: String) throws {
        let path = OfjBinary.repositoryRoot + "/Tests/Golden/sync/" + name
        if ProcessInfo.processInfo.environment["OFJ_UPDATE_GOLDEN"] == "1" { try Data(text.utf8).write(to: URL(fileURLWithPath: path)) }
        let expected = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        #expect(text == expected, "\(name) differs from its golden file; run with OFJ_UPDATE_GOLDEN=1 and review the diff")
    }

    @Test func statusLinesAndConflictsReadWell() throws {
        let status = SyncLocalStatus(device: "3f2a9c0d", pending: 3, remotePosition: 1204, conflicts: 2, lastSuccess: 1_796_000_000,
                                     lastError: "could not reach the sync database (could not connect); sync will retry later", skipped: 1)
        let configuration = SyncConfiguration(turso: try TursoConfiguration(databaseURL: "libsql://journal-me.turso.io", authToken: "secret-token"))
        var text = SyncText.status(status, configuration: configuration, problem: nil)
        text += SyncText.status(SyncLocalStatus(device: "3f2a9c0d", pending: 0, remotePosition: 0, conflicts: 0, lastSuccess: nil, lastError: nil, skipped: 0),
                                configuration: nil, problem: nil)
        var report = SyncReport()
        report.pushed = 12; report.applied = 40; report.conflicts = 1; report.skipped = 2
        text += SyncText.line(report) + "\n"
        text += SyncText.conflicts([SyncConflict(kind: "entry", recordID: "7c0e…", localPayload: #"{"day":"2026-11-30","meal":"lunch","name":"brown rice","servings":1}"#,
                                                 localStamp: SyncStamp(hlc: 1, device: "a"), winner: SyncStamp(hlc: 2, device: "b"), resolvedAt: 1_796_000_100)])
        text += SyncText.conflicts([])
        var quarantined = SyncLocalStatus(device: "3f2a9c0d", pending: 0, remotePosition: 9, conflicts: 0, lastSuccess: nil, lastError: nil, skipped: 0)
        quarantined.quarantined = 2
        text += SyncText.status(quarantined, configuration: nil, problem: nil)
        report.quarantined = 2
        report.stopped = "pull stopped after 100000 rows, the most one sync reads; the next sync goes on from position 100009"
        text += SyncText.line(report) + "\n"
        text += SyncText.quarantine([
            SyncQuarantined(kind: "entry", recordID: "not-a-uuid", position: 7, reason: "its id is not a UUID", payloadBytes: 312, at: 1_796_000_200),
            SyncQuarantined(kind: "message", recordID: String(repeating: "a", count: 80), position: 8,
                            reason: "its payload is 20971520 bytes, more than the 5242880 one row may have", payloadBytes: 20_971_520, at: 1_796_000_300),
        ])
        text += SyncText.quarantine([])
        #expect(!text.contains("secret-token"))
        let withPassword = SyncConfiguration(turso: try TursoConfiguration(databaseURL: "https://me:hunter2@sqld.example:8080?authToken=abc123", authToken: nil))
        let shown = SyncText.status(status, configuration: withPassword, problem: nil)
        #expect(!shown.contains("hunter2") && !shown.contains("abc123"), "\(shown)")
        try golden("status.txt", text)
    }

    @Test func configurationFromEnvironmentAndConfigFile() throws {
        #expect(try SyncConfiguration.resolve(environment: [:]) == nil)
        let env = try #require(try SyncConfiguration.resolve(environment: ["OFJ_SYNC_URL": "libsql://db.turso.io", "OFJ_SYNC_TOKEN": "t"]))
        #expect(env.turso.baseURL == "https://db.turso.io" && env.turso.hasToken && env.mode == .sync && env.threads)
        let file = try #require(try SyncConfiguration.resolve(environment: [:], credentials: ["OFJ_SYNC_TOKEN": "t"],
                                                              configJSON: #"{"provider": "gemini", "sync": {"url": "https://x.example", "mode": "push", "threads": false}}"#))
        #expect(file.mode == .push && !file.threads && file.turso.hasToken)
        #expect(throws: SyncConfiguration.Problem.self) { try SyncConfiguration.resolve(environment: ["OFJ_SYNC_URL": "ftp://x"]) }
        #expect(throws: SyncConfiguration.Problem.self) { try SyncConfiguration.resolve(environment: [:], configJSON: #"{"sync": {"url": "https://x", "token": "no"}}"#) }
        #expect(throws: SyncConfiguration.Problem.self) { try SyncConfiguration.resolve(environment: ["OFJ_SYNC_URL": "https://x", "OFJ_SYNC_MODE": "pull"]) }
    }

    @Test func backgroundSyncRunsAtStartAndAfterAChange() async throws {
        let remote = try await Remote.start()
        let a = try Machine(url: remote.url), b = try Machine(url: remote.url)
        try a.log("before start", kcal: 1)
        var policy = SyncBackground.Policy()
        policy.pollInterval = 0.05
        let background = SyncBackground(engine: a.engine, policy: policy)
        await background.start()
        // Bounded waits (not timing checks): each ends as soon as the change has been sent.
        func waitUntilSent() async throws {
            let deadline = Date().addingTimeInterval(60)
            while try a.local.status().pending > 0, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        }
        try await waitUntilSent()
        #expect(try a.local.status().pending == 0)
        try a.log("after start", kcal: 2)
        try await waitUntilSent()
        #expect(try a.local.status().pending == 0)
        await background.shutdown(timeout: 2)
        try await b.sync()
        #expect(try b.count("journal_entries") == 2)
        await remote.shutdown()
    }

    @Test func shutdownGivesUpOnAStalledServerWithinItsTimeout() async throws {
        let remote = try await Remote.start()
        let a = try Machine(url: remote.url)
        try a.log("pending", kcal: 1)
        try await remote.server.setMode("slow", delay: 30)
        let background = SyncBackground(engine: a.engine)
        let started = ContinuousClock.now
        await background.shutdown(timeout: 0.5)
        // The bound is generous (a busy machine); without the race the wait would be 30 s.
        #expect(ContinuousClock.now - started < .seconds(20))
        #expect(try a.local.status().pending == 1)
        try await remote.server.setMode("normal")
        await remote.shutdown()
    }

    @Test func aFailureBacksOffForEveryProcessAndASuccessEndsIt() async throws {
        let remote = try await Remote.start()
        let a = try Machine(url: remote.url)
        try a.log("waiting", kcal: 1)
        try await remote.server.setMode("503")
        let first = SyncBackground(engine: a.engine)
        let failed = await first.runOnce()
        #expect(failed.error != nil)
        let stored = try #require(try a.local.state("retry_at").flatMap(Double.init))
        #expect(stored > Date().timeIntervalSince1970)
        // Another process (a new SyncBackground on the same database) waits too: no request at start.
        try await remote.server.setMode("normal")
        let second = SyncBackground(engine: a.engine)
        await second.tick()
        #expect(try a.local.status().pending == 1)
        await second.shutdown(timeout: 1)
        #expect(try a.local.status().pending == 1)
        // `ofj sync` (the engine directly) ignores the backoff, and its success clears it.
        try await a.sync()
        #expect(try a.local.state("retry_at") == nil)
        #expect(try a.local.status().pending == 0)
        await remote.shutdown()
    }
}
