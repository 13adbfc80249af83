// Tests of the loopback test server's own promises (other suites build on them).
import Foundation
import HTTP
import Testing
import TestSupport

@Suite("LoopbackHTTPServer", .timeLimit(.minutes(1)))
struct LoopbackHTTPServerTests {
    let transport = CurlTransport()

    @Test func unscriptedRequestsGetA500AndAreStillRecorded() async throws {
        let server = try LoopbackHTTPServer()
        let response = try await transport.send(request(server, "/nothing?x=1", method: "GET", body: []))
        #expect(response.head.status == 500)
        #expect(String(decoding: try await response.collect(), as: UTF8.self) == "no scripted response")
        #expect(server.requests.map(\.path) == ["/nothing?x=1"])
    }

    @Test func responsesArePlayedInOrder() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.text("one"))
        server.enqueue(.json(#"{"n":2}"#, status: 201))
        let first = try await transport.send(request(server))
        #expect(try await first.collect() == Array("one".utf8))
        let second = try await transport.send(request(server))
        #expect(second.head.status == 201)
        #expect(second.head.header("content-type") == "application/json")
        #expect(try await second.collect() == Array(#"{"n":2}"#.utf8))
    }

    @Test func closeDelimitedBodiesEndAtClose() async throws {
        let server = try LoopbackHTTPServer()
        let body = randomBytes(3000, seed: 21)
        server.enqueue(.init(status: 200, body: body, framing: .untilClose, chunking: .fixed(100)))
        let response = try await transport.send(request(server))
        #expect(response.head.header("content-length") == nil)
        #expect(try await response.collect() == body)
    }

    @Test func seededChunkingIsReproducible() {
        var a = SeededRandom(seed: 99)
        var b = SeededRandom(seed: 99)
        var c = SeededRandom(seed: 100)
        let xs = (0..<8).map { _ in a.next() }
        #expect(xs == (0..<8).map { _ in b.next() })
        #expect(xs != (0..<8).map { _ in c.next() })
    }

    @Test func stopEndsStalledConnectionsPromptly() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.init(status: 200, body: randomBytes(100, seed: 1), framing: .chunked,
                             ending: .stall(afterBodyBytes: 10)))
        let response = try await transport.send(request(server))
        let started = ContinuousClock.now
        server.stop()
        #expect(started.duration(to: .now) < .seconds(5))
        #expect(server.openConnections == 0)
        let drained = await drain(response)
        #expect(drained.bytes.count == 10)
        guard case .connectionReset = try #require(drained.error as? HTTPError) else {
            Issue.record("expected connectionReset, got \(String(describing: drained.error))")
            return
        }
        server.stop()  // idempotent
    }

    /// After stop() the port is free: it can be bound again at once (and is then held, not
    /// listened on, so that connecting is refused and no other test's server can be given it:
    /// with tests in parallel, connecting to a freed port could reach that server instead).
    @Test func stoppedServerRefusesConnections() async throws {
        var held: RefusingLoopbackPort?
        for _ in 0..<5 where held == nil {
            let server = try LoopbackHTTPServer()
            server.stop()
            // Another test's server may take the freed port in between: try with a new one.
            held = try? RefusingLoopbackPort(port: server.port)
        }
        let port = try #require(held, "a stopped server's port could not be bound again: its listener is still open")
        do {
            _ = try await transport.send(HTTPRequest(method: "GET", url: port.url("/x"), headers: [], body: []))
            Issue.record("expected a connect failure")
        } catch let error as HTTPError {
            guard case .connectFailed = error else {
                Issue.record("expected connectFailed, got \(error)")
                return
            }
        }
    }
}
