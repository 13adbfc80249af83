// ofj's own guidance in a diagnostics error survives the redactor that `diag status` applies.
import Hrana
import OutputSafety
import Testing
@testable import Diagnostics

@Suite struct OwnMessagesSurviveRedactionTests {
    /// `diag status` shows the last error after redaction: ofj's own guidance must survive it.
    @Test(arguments: [
        HranaError.unauthorized(status: 401), .notFound, .rateLimited(retryAfter: nil), .server(status: 503),
        .network("cancelled"), .invalidURL, .protocolError(status: 400, message: "Invalid baton"),
    ])
    func hranaErrors(error: HranaError) {
        let message = error.describe(.diagnostics)
        #expect(Redactor.redact(message) == message)
    }

    @Test func diagnosticsErrorsNameTheDiagnosticsSettings() {
        #expect(HranaError.unauthorized(status: 401).describe(.diagnostics)
            == "the diagnostics database refused the token (HTTP 401); check TURSO_AUTH_TOKEN")
        #expect(HranaError.invalidURL.describe(.diagnostics) == "TURSO_DATABASE_URL must start with libsql, https or http; fix it and try again")
        #expect(HranaError.server(status: 503).describe(.diagnostics) == "the diagnostics database failed (HTTP 503); delivery will retry later")
    }
}
