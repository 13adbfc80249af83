// DiagnosticEvent sanitizes every string on the way in and round-trips through the outbox JSON.
import Testing
@testable import Diagnostics

@Suite struct DiagnosticEventTests {
    @Test func keepsIdentifiersAndNumbers() {
        var d = Fixtures.diagnostic(.toolExecution)
        d.toolName = "log_entry"
        d.callID = "call_Abc123XyZ0987654321abcdEFGH"
        d.providerRequestID = "req_011CTxAbCdEfGhIjKlMnOpQr"
        d.errorClass = "rate_limited"
        d.errorCode = "429"
        d.httpStatus = 429
        d.retryCount = 1
        d.resultCount = 3
        d.sizeBytes = 512
        d.costUSD = 0.0012
        let e = DiagnosticEvent(d, id: "3f2a9c1e-1111-4222-8333-444455556666", occurredAt: 1_800_000_000.25, appVersion: "0.1.0")
        #expect(e.id == "3f2a9c1e-1111-4222-8333-444455556666")
        #expect(e.toolName == "log_entry")
        #expect(e.callID == d.callID)
        #expect(e.providerRequestID == d.providerRequestID)
        #expect(e.model == "gemini-2.5-flash")
        #expect(e.operation == "tool_execution")
        #expect(e.inputTokens == 100 && e.reasoningTokens == 5)
        #expect(e.httpStatus == 429 && e.retryCount == 1 && e.resultCount == 3 && e.sizeBytes == 512)
        #expect(e.costUSD == 0.0012)
    }

    @Test func rejectsContentInIdentifierFields() {
        var d = Fixtures.diagnostic()
        d.toolName = "Blueberry Oatmeal 150g"
        d.model = "https://evil.example/model"
        d.provider = "sk-proj-abcdefghijklmnopqrstuvwx"
        d.providerRequestID = "req-sk-proj-abcdefghijklmnopqrst"
        d.status = "ok, 2200 kcal"
        d.errorCode = "150g"
        d.threadID = "jane@example.com"
        let e = DiagnosticEvent(d, id: "e1", occurredAt: 0, appVersion: "1")
        #expect(e.toolName == "redacted")
        #expect(e.model == "redacted")
        #expect(e.provider == "redacted")
        #expect(e.providerRequestID == "redacted")
        #expect(e.status == "redacted")
        #expect(e.errorCode == "redacted")
        #expect(e.threadID == "redacted")
    }

    @Test func dropsNonFiniteNumbersAndBadStatus() {
        var d = Fixtures.diagnostic()
        d.totalMs = .nan
        d.costUSD = .infinity
        d.httpStatus = 12345
        let e = DiagnosticEvent(d, id: "e1", occurredAt: 0, appVersion: "1")
        #expect(e.totalMs == nil && e.costUSD == nil && e.httpStatus == nil)
    }

    @Test func jsonRoundTrip() throws {
        var d = Fixtures.diagnostic(.retry, status: "retrying")
        d.errorMessage = "HTTP 503 Service Unavailable"
        d.startedAt = 1_800_000_000.5
        d.usage = nil
        let e = DiagnosticEvent(d, id: "e1", occurredAt: 1_800_000_001, appVersion: "0.1.0")
        let back = try #require(DiagnosticEvent(json: e.json))
        #expect(back == e)
    }

    @Test func columnsMatchTheSinkTable() {
        let eventColumns = Fixtures.event(1).columns.map(\.name)
        let sinkColumns = TursoSink.columnTypes.map(\.name).filter { $0 != "expires_at" }
        #expect(Set(eventColumns) == Set(sinkColumns))
        #expect(eventColumns.count == sinkColumns.count)
    }

    @Test func isoTime() {
        #expect(ISOTime.format(0) == "1970-01-01T00:00:00.000Z")
        #expect(ISOTime.format(1_800_000_000.123) == "2027-01-15T08:00:00.123Z")
        #expect(ISOTime.format(951_782_400) == "2000-02-29T00:00:00.000Z")
    }
}
