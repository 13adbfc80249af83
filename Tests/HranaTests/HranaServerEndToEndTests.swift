// End to end: the Hrana client over CurlTransport against tools/turso_server.py (values, tokens,
// fault classification, a dead port).
import Foundation
import HTTP
import TestSupport
import Testing
@testable import Hrana

@Suite(.serialized) struct HranaServerEndToEndTests {
    static let service = HranaService(name: "test database", urlVariable: "TEST_URL", tokenVariable: "TEST_TOKEN", retryPhrase: "it retries")

    func client(_ server: LocalTursoServer, token: String? = nil, firstByte: Double = 10) throws -> HranaClient {
        let config = try TursoConfiguration(databaseURL: server.url, authToken: token)
        return HranaClient(configuration: config, transport: CurlTransport(), timeouts: HTTPTimeouts(connect: 2, firstByte: firstByte, idle: 5))
    }

    @Test func valuesRoundTripThroughTheRealServer() async throws {
        let server = try await LocalTursoServer.start()
        let health = try await CurlTransport().send(HTTPRequest(method: "GET", url: server.url + "/health"))
        _ = try await health.collect()
        #expect(health.head.status == 200)
        let c = try client(server)
        let r = try await c.execute(HranaStatement("SELECT ?, ?, ?, ?, ?, ?", [.integer(Int64.max), .float(-0.125), .text("é ✓ \"q\""),
                                                                            .blob([0xAB]), .blob([1, 2, 3, 4, 5]), .null]))
        #expect(r.rows == [[.integer(Int64.max), .float(-0.125), .text("é ✓ \"q\""), .blob([0xAB]), .blob([1, 2, 3, 4, 5]), .null]])
        #expect(r.columns.count == 6)
        await server.shutdown()
    }

    @Test func unauthorizedNeverEchoesTheToken() async throws {
        let server = try await LocalTursoServer.start(token: "right-token-0123456789")
        let good = try client(server, token: "right-token-0123456789")
        #expect(try await good.execute(HranaStatement("SELECT 1")).rows == [[.integer(1)]])
        for token in ["sk-wrong-token-0123456789abcdef", nil] as [String?] {
            do {
                _ = try await client(server, token: token).execute(HranaStatement("SELECT 1"))
                Issue.record("expected 401")
            } catch let error as HranaError {
                #expect(error == .unauthorized(status: 401))
                let message = error.describe(Self.service)
                #expect(!message.contains("wrong-token") && !error.description.contains("wrong-token"))
                #expect(message.contains("TEST_TOKEN"))
            }
        }
        await server.shutdown()
    }

    @Test func faultModesAreClassified() async throws {
        let server = try await LocalTursoServer.start()
        let c = try client(server)
        let cases: [(String, (HranaError) -> Bool)] = [
            ("429", { if case .rateLimited(let after) = $0 { return after == 1 } else { return false } }),
            ("500", { $0 == .server(status: 500) }),
            ("503", { $0 == .server(status: 503) }),
            ("400", { if case .protocolError(400, _) = $0 { return true } else { return false } }),
            ("garbage", { if case .invalidResponse = $0 { return true } else { return false } }),
            ("down", { if case .network = $0 { return true } else { return false } }),
        ]
        for (mode, matches) in cases {
            try await server.setMode(mode)
            do {
                _ = try await c.execute(HranaStatement("SELECT 1"))
                Issue.record("mode \(mode) should fail")
            } catch let error as HranaError {
                #expect(matches(error), "mode \(mode) gave \(error)")
            }
        }
        try await server.setMode("normal")
        #expect(try await c.execute(HranaStatement("SELECT 1")).rows == [[.integer(1)]])
        await server.shutdown()
    }

    @Test func deadPortIsARetryableNetworkError() async throws {
        let server = try await LocalTursoServer.start()
        let url = server.url
        await server.shutdown()
        let config = try TursoConfiguration(databaseURL: url, authToken: nil)
        let c = HranaClient(configuration: config, transport: CurlTransport(), timeouts: HTTPTimeouts(connect: 2, firstByte: 2, idle: 2))
        do {
            _ = try await c.execute(HranaStatement("SELECT 1"))
            Issue.record("expected a network error")
        } catch let error as HranaError {
            guard case .network = error else { Issue.record("\(error)"); return }
            #expect(error.isRetryable)
        }
        await server.shutdown()
    }
}
