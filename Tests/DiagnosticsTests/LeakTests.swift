// Leak proof: keys, food names, nutrient values, URLs and emails planted in every input never reach
// the outbox, the wire, the sink rows, the status text or the CSV export.
import Agent
import Foundation
import SQLiteKit
import TestSupport
import Testing
@testable import Diagnostics

@Suite struct LeakTests {
    static let openAIKey = "sk-proj-LEAKKEY0123456789abcdefghijklmnop"
    static let geminiKey = "AIzaSyLEAK0123456789abcdefghijklmnopq"
    static let anthropicKey = "sk-ant-api03-LEAKANT0123456789abcdefghij"
    static let tursoToken = "eyJhbGciOiJFZERTQSJ9.eyJsZWFrIjoidG9rZW4ifQ.LEAKSIGNATURE0123456789"
    static let food = "Blueberry Oatmeal"
    static let amounts = ["9137 kcal", "41.75 mg", "863g"]
    static let url = "https://leak.example.org/meals?food=oatmeal"
    static let email = "jane.leak@example.com"

    /// What must never appear (case-insensitive).
    static let needles = [openAIKey, geminiKey, anthropicKey, tursoToken, "LEAKKEY", "LEAKANT", "LEAKSIGNATURE", "SyLEAK",
                          "Blueberry", "Oatmeal", "9137", "41.75", "863g", "leak.example", "jane.leak", "example.com"]

    /// Everything at once, as free text and as HTTP header lines.
    static var composite: String {
        "\(food) \(amounts.joined(separator: " ")) key \(openAIKey) \(geminiKey) \(anthropicKey) see \(url) mail \(email) "
            + "Authorization: Bearer \(tursoToken) x-goog-api-key: \(geminiKey) x-api-key=\(anthropicKey) "
            + "provider said: {\"error\": \"\(food) has \(amounts[0])\"} and '\(food)'"
    }

    /// Values planted one by one into identifier-shaped fields too (no spaces to give them away).
    static var planted: [String] {
        [composite, openAIKey, geminiKey, anthropicKey, tursoToken, url, email, "863g", "Blueberry_Oatmeal_9137kcal"]
    }

    static func plantedDiagnostics() -> [AgentDiagnostic] {
        var out: [AgentDiagnostic] = []
        let fields: [WritableKeyPath<AgentDiagnostic, String?>] = [
            \.threadID, \.runID, \.callID, \.providerRequestID, \.provider, \.model, \.toolName, \.errorClass, \.errorCode, \.errorMessage,
        ]
        for value in planted {
            for field in fields {
                var d = Fixtures.diagnostic(.toolExecution, status: "error")
                d[keyPath: field] = value
                out.append(d)
            }
            var s = Fixtures.diagnostic(.failure, status: value)
            s.errorMessage = value
            out.append(s)
        }
        return out
    }

    static func assertClean(_ haystack: String, _ place: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let lower = haystack.lowercased()
        for needle in needles where lower.contains(needle.lowercased()) {
            Issue.record("\(needle) leaked into \(place)", sourceLocation: sourceLocation)
        }
    }

    static func dump(_ rows: [Row]) -> String {
        rows.map { row in row.values.map { v in v.string ?? v.double.map { String($0) } ?? "" }.joined(separator: "|") }.joined(separator: "\n")
    }

    @Test func plantedSecretsNeverLeave() async throws {
        let fake = try FakeTurso(token: Self.tursoToken)
        let outbox = try Fixtures.outbox()
        let counter = Counter()
        let recorder = OutboxRecorder(outbox: outbox, appVersion: "0.1.0", makeID: { counter.nextID() }, now: { 1_800_000_000 })
        let diagnostics = Self.plantedDiagnostics()
        for d in diagnostics { recorder.record(d) }
        #expect(recorder.failedRecords.count == 0)
        #expect(try outbox.status().pending == diagnostics.count)

        // 1. The outbox, every table it owns.
        let outboxRows = try outbox.queue.read { db in
            try db.rows("SELECT * FROM diagnostics_outbox") + db.rows("SELECT * FROM diagnostics_state")
        }
        Self.assertClean(Self.dump(outboxRows), "the outbox")

        // 2. A failed delivery whose transport error carries everything: the stored last error.
        fake.mode = .down("Failed to connect: " + Self.composite)
        let sink = try Fixtures.sink(fake, token: Self.tursoToken, url: "https://leak.example.org")
        let flusher = DiagnosticsFlusher(outbox: outbox, sink: sink, appVersion: "0.1.0")
        let failed = await flusher.flush()
        #expect(!failed.succeeded)
        Self.assertClean(failed.error ?? "", "the flush report")
        let commands = DiagnosticsCommands(outbox: outbox, flusher: flusher)
        Self.assertClean((await commands.run(["status"])).stdout, "diag status")
        fake.mode = .status(400, Self.composite)
        Self.assertClean((await commands.run(["flush"])).stderr, "diag flush error")

        // 3. Delivery: the wire bodies and the sink rows.
        fake.mode = .normal
        let report = await flusher.flush()
        #expect(report.succeeded, "\(report.error ?? "")")
        #expect(try outbox.status().pending == 0)
        for sent in fake.sent {
            Self.assertClean(sent.body, "a request body")
            Self.assertClean(sent.headers.filter { $0.name != "Authorization" }.map(\.value).joined(separator: "\n"), "request headers")
        }
        let sinkRows = try fake.rows("SELECT * FROM \(TursoSink.table)")
        #expect(sinkRows.count == diagnostics.count)
        Self.assertClean(Self.dump(sinkRows), "the sink rows")

        // 4. The CSV export.
        let export = await commands.export(since: 10 * 365 * 86_400, to: nil)
        #expect(export.exitCode == 0)
        #expect(export.stdout.split(separator: "\r\n").count == diagnostics.count + 1)
        Self.assertClean(export.stdout + export.stderr, "the CSV export")

        // The test can fail: the same needles are found in the raw inputs.
        Self.assertCleanFails(Self.composite)
    }

    static func assertCleanFails(_ text: String) {
        let lower = text.lowercased()
        #expect(needles.filter { lower.contains($0.lowercased()) }.count >= 10)
    }

    @Test func toolNamesOutsideTheRegistryAreReplaced() throws {
        let outbox = try Fixtures.outbox()
        let recorder = OutboxRecorder(outbox: outbox, appVersion: "0.1.0", allowedToolNames: ["log_entry", "search_foods"])
        var d = Fixtures.diagnostic(.toolExecution)
        d.toolName = "BlueberryOatmeal"
        recorder.record(d)
        d.toolName = "log_entry"
        recorder.record(d)
        #expect(try outbox.pending(limit: 10).map(\.toolName) == ["unregistered_tool", "log_entry"])
    }
}

/// Deterministic event ids (random ones could contain the planted digits by chance).
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func nextID() -> String {
        lock.withLock {
            n += 1
            return String(format: "00000000-0000-4000-8000-%012d", n)
        }
    }
}
