// End to end: the diagnostics sink, flusher and export over the Hrana client and CurlTransport against tools/turso_server.py.
import Foundation
import HTTP
import Hrana
import SQLiteKit
import TestSupport
import Testing
@testable import Diagnostics

@Suite(.serialized) struct TursoServerEndToEndTests {
    func client(_ server: LocalTursoServer, token: String? = nil, firstByte: Double = 10) throws -> HranaClient {
        let config = try TursoConfiguration(databaseURL: server.url, authToken: token)
        return HranaClient(configuration: config, transport: CurlTransport(), timeouts: HTTPTimeouts(connect: 2, firstByte: firstByte, idle: 5))
    }

    func count(_ client: HranaClient) async throws -> Int64? {
        try await client.execute(HranaStatement("SELECT count(*) FROM \(TursoSink.table)")).rows.first?.first?.integer
    }

    @Test func migratesAnOlderTableShapeInTheServersFile() async throws {
        let dir = TempDirectory()
        let path = dir.file("remote.sqlite")
        do {
            let db = try Database(path: path)
            try db.execute(batch: """
                CREATE TABLE ofj_ai_diagnostic_events (id TEXT PRIMARY KEY, occurred_at TEXT NOT NULL, expires_at TEXT NOT NULL, operation TEXT);
                INSERT INTO ofj_ai_diagnostic_events VALUES ('old', '2026-01-01T00:00:00.000Z', '2026-01-15T00:00:00.000Z', 'model_round');
                """)
        }
        let server = try await LocalTursoServer.start(db: path)
        let sink = TursoSink(client: try client(server))
        try await sink.migrate()
        try await sink.migrate()
        let info = try await sink.client.execute(HranaStatement("PRAGMA table_info(\(TursoSink.table))"))
        let names = Set(info.rows.compactMap { $0[1].text })
        #expect(names == Set(TursoSink.columnTypes.map(\.name)))
        try await sink.insert([Fixtures.event(1)])
        #expect(try await count(sink.client) == 2)
        await server.shutdown()
    }

    @Test func redeliveryIsIdempotentAndStepErrorsRollBack() async throws {
        let server = try await LocalTursoServer.start()
        let sink = TursoSink(client: try client(server))
        try await sink.migrate()
        let events = (1...20).map { Fixtures.event($0) }
        try await sink.insert(events)
        try await sink.insert(events)
        try await sink.insert(Array(events.suffix(5)))
        #expect(try await count(sink.client) == 20)

        // A failing step inside the guarded batch: nothing from that batch remains.
        do {
            _ = try await sink.client.transaction([
                TursoSink.insertStatement(Fixtures.event(100)),
                HranaStatement("INSERT INTO no_such_table VALUES (1)"),
            ])
            Issue.record("expected a step error")
        } catch HranaError.statement(let e) {
            #expect(e.message.contains("no such table"))
        }
        #expect(try await count(sink.client) == 20)
        // Request-level errors do not stop later requests in the pipeline.
        let outcomes = try await sink.client.pipeline([.execute(HranaStatement("SELEC 1")), .execute(HranaStatement("SELECT 5"))])
        if case .failure(let e) = outcomes[0] { #expect(e.message.contains("syntax error")) } else { Issue.record("expected an error") }
        if case .success(.execute(let r)) = outcomes[1] { #expect(r.rows == [[.integer(5)]]) } else { Issue.record("expected rows") }
        await server.shutdown()
    }

    @Test func slowServerTimesOutAndShutdownStaysBounded() async throws {
        let server = try await LocalTursoServer.start()
        try await server.setMode("slow", delay: 30)
        let start = Date()
        do {
            _ = try await client(server, firstByte: 0.5).execute(HranaStatement("SELECT 1"))
            Issue.record("expected a timeout")
        } catch let error as HranaError {
            guard case .network = error else { Issue.record("\(error)"); return }
        }
        // 0.5 s first-byte timeout against a 30 s server; slack for a loaded machine.
        #expect(Date().timeIntervalSince(start) < 10)

        let outbox = try Fixtures.outbox()
        try outbox.enqueue(Fixtures.event(1))
        let flusher = DiagnosticsFlusher(outbox: outbox, sink: TursoSink(client: try client(server)), appVersion: "0.1.0")
        let shutdownStart = Date()
        let report = await flusher.shutdown(timeout: 1)
        #expect(Date().timeIntervalSince(shutdownStart) < 10)
        #expect(report?.succeeded != true)
        #expect(try outbox.status().pending == 1)
        try await server.setMode("normal")
        await server.shutdown()
    }

    @Test func recorderToExportThroughTheServer() async throws {
        let server = try await LocalTursoServer.start(token: "tok-e2e")
        let outbox = try Fixtures.outbox()
        let sink = TursoSink(client: try client(server, token: "tok-e2e"))
        let flusher = DiagnosticsFlusher(outbox: outbox, sink: sink, appVersion: "0.1.0", policy: .init(batchEvents: 4))
        let recorder = OutboxRecorder(outbox: outbox, appVersion: "0.1.0")
        for turn in 1...9 {
            var d = Fixtures.diagnostic(.modelRound)
            d.turn = turn
            d.errorMessage = "rate limit exceeded for key sk-proj-E2ELEAK0123456789abcdef on 2 cups of Oat Milk"
            recorder.record(d)
        }
        let commands = DiagnosticsCommands(outbox: outbox, flusher: flusher)
        let flush = await commands.run(["flush"])
        #expect(flush.stdout == "delivered 9, pending 0\n")
        let dir = TempDirectory()
        let export = await commands.export(to: dir.file("out.csv"), pageSize: 4)
        #expect(export.exitCode == 0, "\(export.stderr)")
        let csv = try String(contentsOfFile: dir.file("out.csv"), encoding: .utf8)
        let lines = csv.split(separator: "\r\n")
        #expect(lines.count == 10)
        #expect(!csv.contains("E2ELEAK") && !csv.contains("Oat") && !csv.contains("2 cups"))
        #expect(csv.contains("rate limit exceeded"))
        let status = await commands.run(["status"])
        #expect(status.stdout.contains("delivered: 9"))
        #expect(status.stdout.contains("last error: none"))
        await server.shutdown()
    }
}
