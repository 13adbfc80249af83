// Hrana value encoding, pipeline shape, guarded transactions and error classification.
import Base
import Foundation
import HTTP
import Testing
import TestSupport
@testable import Hrana

@Suite struct HranaTests {
    /// A client of the in-memory stand-in, as the diagnostics sink and sync build theirs.
    func client(_ fake: FakeTurso, token: String? = nil, url: String = "libsql://diag.example.test") throws -> HranaClient {
        HranaClient(configuration: try TursoConfiguration(databaseURL: url, authToken: token), transport: fake)
    }

    @Test func encodesValuesLikeTurso() {
        #expect(HranaValue.integer(-42).json.serialized == #"{"type":"integer","value":"-42"}"#)
        #expect(HranaValue.integer(Int64.max).json.serialized == #"{"type":"integer","value":"9223372036854775807"}"#)
        #expect(HranaValue.float(0.5).json.serialized == #"{"type":"float","value":0.5}"#)
        #expect(HranaValue.float(.nan).json.serialized == #"{"type":"null"}"#)
        #expect(HranaValue.float(.infinity).json.serialized == #"{"type":"null"}"#)
        #expect(HranaValue.text("a\"b").json.serialized == #"{"type":"text","value":"a\"b"}"#)
        #expect(HranaValue.blob([0xAB, 0xAB, 0xAB]).json.serialized == #"{"base64":"q6ur","type":"blob"}"#)
        #expect(HranaValue.null.json.serialized == #"{"type":"null"}"#)
    }

    @Test func decodesValuesTolerantly() throws {
        #expect(try HranaValue(json: ["type": "integer", "value": "9007199254740993"]) == .integer(9_007_199_254_740_993))
        #expect(try HranaValue(json: ["type": "integer", "value": 7]) == .integer(7))
        #expect(try HranaValue(json: ["type": "float", "value": 1.5]) == .float(1.5))
        // Unpadded base64 from the server needs padding before decoding.
        #expect(try HranaValue(json: ["type": "blob", "base64": "AQ"]) == .blob([1]))
        #expect(try HranaValue(json: ["type": "blob", "base64": "AQI"]) == .blob([1, 2]))
        #expect(try HranaValue(json: ["type": "blob", "base64": "AQID"]) == .blob([1, 2, 3]))
        #expect(throws: HranaError.self) { try HranaValue(json: ["type": "blob", "base64": "A"]) }
        #expect(throws: HranaError.self) { try HranaValue(json: ["type": "integer", "value": "x"]) }
        #expect(throws: HranaError.self) { try HranaValue(json: ["value": "x"]) }
    }

    @Test func pipelineBodyOpensAStreamAndClosesIt() throws {
        let body = String(decoding: HranaClient.pipelineBody([.execute(HranaStatement("SELECT ?", [.integer(1)]))]), as: UTF8.self)
        let json = try JSONValue.parse(body)
        #expect(json["baton"] == .null)
        let requests = try #require(json["requests"]?.arrayValue)
        #expect(requests.count == 2)
        #expect(requests[0]["type"] == "execute")
        #expect(requests[0]["stmt"]?["args"]?[0]?["value"] == "1")
        #expect(requests[1]["type"] == "close")
    }

    @Test func transactionStepsAreGuarded() {
        let steps = HranaClient.transactionSteps([HranaStatement("INSERT 1"), HranaStatement("INSERT 2")])
        #expect(steps.map(\.statement.sql) == ["BEGIN IMMEDIATE", "INSERT 1", "INSERT 2", "COMMIT", "ROLLBACK"])
        #expect(steps.map(\.condition) == [nil, .ok(0), .ok(1), .ok(2), .not(.ok(3))])
    }

    @Test func libsqlURLsMapToHTTPS() throws {
        #expect(try TursoConfiguration(databaseURL: "libsql://db-org.turso.io", authToken: nil).baseURL == "https://db-org.turso.io")
        #expect(try TursoConfiguration(databaseURL: "http://127.0.0.1:8080/", authToken: nil).baseURL == "http://127.0.0.1:8080")
        #expect(throws: HranaError.invalidURL) { try TursoConfiguration(databaseURL: "ftp://x", authToken: nil) }
        #expect(throws: HranaError.invalidURL) { try TursoConfiguration(databaseURL: "libsql://", authToken: nil) }
        #expect(try TursoConfiguration.from(databaseURL: "  ", authToken: "t") == nil)
        #expect(try TursoConfiguration.from(databaseURL: nil, authToken: "t") == nil)
        let c = try TursoConfiguration(databaseURL: "libsql://x.turso.io", authToken: "sk-secret-token-123")
        #expect(!c.description.contains("sk-secret-token-123"))
        #expect(!"\(c)".contains("secret"))
    }

    @Test func bearerHeaderOnlyWithAToken() async throws {
        let fake = try FakeTurso()
        _ = try await client(fake, token: "tok-123").execute(HranaStatement("SELECT 1"))
        _ = try await client(fake, token: nil).execute(HranaStatement("SELECT 1"))
        _ = try await client(fake, token: "  ").execute(HranaStatement("SELECT 1"))
        let auth = fake.sent.map { $0.headers.first { $0.name == "Authorization" }?.value }
        #expect(auth == ["Bearer tok-123", nil, nil])
        #expect(fake.sent.allSatisfy { $0.url == "https://diag.example.test/v3/pipeline" })
        #expect(fake.sent.allSatisfy { $0.headers.contains(HTTPHeader("Content-Type", "application/json")) })
    }

    @Test func roundTripsValuesThroughTheFakeServer() async throws {
        let fake = try FakeTurso()
        let client = try client(fake)
        let r = try await client.execute(HranaStatement("SELECT ?, ?, ?, ?, ?", [.integer(Int64.min), .float(0.25), .text("✓"), .blob([0, 1, 2, 255]), .null]))
        #expect(r.rows == [[.integer(Int64.min), .float(0.25), .text("✓"), .blob([0, 1, 2, 255]), .null]])
        #expect(r.columns.count == 5)
    }

    @Test func stepErrorsRollBackTheTransaction() async throws {
        let fake = try FakeTurso()
        let client = try client(fake)
        _ = try await client.execute(HranaStatement("CREATE TABLE t (id TEXT PRIMARY KEY)"))
        await #expect(throws: HranaError.self) {
            try await client.transaction([HranaStatement("INSERT INTO t VALUES ('a')"), HranaStatement("INSERT INTO t VALUES ('a')")])
        }
        #expect(try fake.rows("SELECT count(*) FROM t")[0][0] == .integer(0))
        #expect(try fake.rows("SELECT 1").count == 1)
        // A request-level error lands as .statement and later requests still run.
        let outcomes = try await client.pipeline([.execute(HranaStatement("SELECT * FROM missing")), .execute(HranaStatement("SELECT 2"))])
        guard case .failure(let e) = outcomes[0] else { Issue.record("expected a failure"); return }
        #expect(e.message.contains("no such table"))
        guard case .success(.execute(let ok)) = outcomes[1] else { Issue.record("expected success"); return }
        #expect(ok.rows == [[.integer(2)]])
        _ = try await client.transaction([HranaStatement("INSERT INTO t VALUES ('b')")])
        #expect(try fake.rows("SELECT id FROM t")[0][0] == .text("b"))
    }

    @Test(arguments: [
        (FakeTurso.Mode.status(400, "Invalid baton"), "protocol"),
        (.status(401, "Unauthorized"), "auth"),
        (.status(403, "Forbidden"), "auth"),
        (.status(404, "Not found"), "notFound"),
        (.status(429, "slow down"), "rate"),
        (.status(500, "boom"), "server"),
        (.status(503, "<html>unavailable</html>"), "server"),
        (.down("Connection refused"), "network"),
        (.garbage, "invalid"),
    ])
    func classifiesFailures(mode: FakeTurso.Mode, expected: String) async throws {
        let fake = try FakeTurso()
        fake.mode = mode
        let client = try client(fake, token: "sk-proj-TOPSECRETTOKEN0123456789")
        do {
            _ = try await client.execute(HranaStatement("SELECT 1"))
            Issue.record("expected a failure")
        } catch let error as HranaError {
            switch (error, expected) {
            case (.protocolError(400, _), "protocol"): #expect(!error.isRetryable)
            case (.unauthorized, "auth"): #expect(!error.isRetryable && error.isConfigurationProblem)
            case (.notFound, "notFound"): #expect(error.isConfigurationProblem)
            case (.rateLimited(let after), "rate"): #expect(error.isRetryable && after == 7)
            case (.server, "server"): #expect(error.isRetryable)
            case (.network, "network"): #expect(error.isRetryable)
            case (.invalidResponse, "invalid"): #expect(error.isRetryable)
            default: Issue.record("\(error) is not \(expected)")
            }
            let service = HranaService(name: "test database", urlVariable: "TEST_URL", tokenVariable: "TEST_TOKEN", retryPhrase: "it retries")
            for text in [error.description, error.describe(service)] {
                #expect(!text.contains("TOPSECRET"))
                #expect(!text.contains("diag.example.test"))
                #expect(!text.contains("\n"))
            }
        }
    }

    /// Each user of the client names its own database and settings; the plain description names none.
    @Test func errorMessagesNameTheServicesSettings() {
        let service = HranaService(name: "test database", urlVariable: "TEST_URL", tokenVariable: "TEST_TOKEN", retryPhrase: "it retries")
        #expect(HranaError.unauthorized(status: 403).describe(service) == "the test database refused the token (HTTP 403); check TEST_TOKEN")
        #expect(HranaError.notFound.describe(service) == "the test database was not found (HTTP 404); check TEST_URL")
        #expect(HranaError.rateLimited(retryAfter: 3).describe(service) == "the test database is rate limiting (HTTP 429); it retries")
        #expect(HranaError.network("sk-proj-TOPSECRETTOKEN0123456789 refused").describe(service).contains("TOPSECRET") == false)
        #expect(HranaError.unauthorized(status: 401).description == "the database refused the token (HTTP 401); check the auth token")
        #expect(HranaError.invalidURL.description == "the database URL must start with libsql, https or http; fix it and try again")
    }
}

