// End-to-end tests of CurlTransport against the loopback server: streaming, heads, errors,
// timeouts, cancellation, secrecy of request headers, large bodies and resource hygiene.
import Foundation
import HTTP
import Testing
import TestSupport

@Suite("CurlTransport", .timeLimit(.minutes(1)))
struct CurlTransportTests {
    let transport = CurlTransport()

    // MARK: - Success and heads

    @Test func bodyArrivesIncrementallyInManySmallChunks() async throws {
        let server = try LoopbackHTTPServer()
        let body = Array(String(repeating: "data: {\"delta\":\"token\"}\n\n", count: 80).utf8)
        server.enqueue(.init(status: 200, headers: [("Content-Type", "text/event-stream")], body: body,
                             framing: .chunked, chunking: .random(seed: 42, maxChunk: 16),
                             delayBetweenChunks: 0.002, holdAfterBodyBytes: 5))
        let response = try await transport.send(request(server, "/v1/stream",
                                                         headers: [HTTPHeader("Authorization", "Bearer t")]))
        #expect(response.head.status == 200)

        var iterator = response.body.makeAsyncIterator()
        let first = try #require(try await iterator.next())
        // The server is parked after 5 bytes: this chunk cannot have waited for the rest.
        #expect(first.count <= 5)
        #expect(server.bodyBytesSent <= 5)
        server.releaseHold()

        var chunks = [first]
        while let chunk = try await iterator.next() { chunks.append(chunk) }
        #expect(chunks.flatMap { $0 } == body)
        #expect(chunks.count > 10)

        let received = try #require(server.requests.first)
        #expect(received.method == "POST")
        #expect(received.path == "/v1/stream")
        #expect(received.header("authorization") == "Bearer t")
        #expect(received.bodyText == #"{"hello":"world"}"#)
        #expect(received.header("expect") == nil)
    }

    @Test func headersAreExposedAndLookedUpCaseInsensitively() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.json("{}", headers: [("X-Request-Id", "req_123"), ("retry-after-ms", "1500"),
                                             ("X-Multi", "a"), ("X-Multi", "b"), ("X-Empty", "")]))
        let response = try await transport.send(request(server))
        #expect(response.head.header("x-request-id") == "req_123")
        #expect(response.head.header("X-REQUEST-ID") == "req_123")
        #expect(response.head.header("Retry-After-Ms") == "1500")
        #expect(response.head.header("content-type") == "application/json")
        #expect(response.head.header("x-empty") == "")
        #expect(response.head.headers.filter { $0.name.lowercased() == "x-multi" }.map(\.value) == ["a", "b"])
        #expect(response.head.header("missing") == nil)
        #expect(try await response.collect() == Array("{}".utf8))
    }

    @Test func interimResponsesAndTrailersStayOutOfTheHead() async throws {
        let server = try LoopbackHTTPServer()
        var response = LoopbackHTTPServer.Response(status: 200, headers: [("X-Final", "yes")], body: Array("body".utf8),
                                                   framing: .chunked, chunking: .fixed(1))
        response.interimStatuses = [103]
        response.trailers = [("X-Trailer", "late")]
        server.enqueue(response)
        let received = try await transport.send(request(server))
        #expect(received.head.status == 200)
        #expect(received.head.header("x-final") == "yes")
        #expect(received.head.header("link") == nil)
        #expect(try await received.collect() == Array("body".utf8))
        #expect(received.head.header("x-trailer") == nil)
    }

    @Test func rateLimitedResponseCarriesRetryAfter() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.rateLimited(retryAfter: "7", headers: [("retry-after-ms", "7000")]))
        let response = try await transport.send(request(server))
        #expect(response.head.status == 429)
        #expect(response.head.header("Retry-After") == "7")
        #expect(response.head.header("retry-after-ms") == "7000")
        #expect(String(decoding: try await response.collect(), as: UTF8.self).contains("rate limited"))
    }

    @Test func serverErrorIsAResponseNotAThrow() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.json(#"{"error":"boom"}"#, status: 500))
        let response = try await transport.send(request(server))
        #expect(response.head.status == 500)
        #expect(try await response.collect() == Array(#"{"error":"boom"}"#.utf8))
    }

    @Test func methodsAndEmptyBodies() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(contentsOf: [.text("a"), .text("b"), .init(status: 204)])
        for method in ["GET", "DELETE", "PUT"] {
            let response = try await transport.send(request(server, "/m", method: method, body: []))
            _ = try await response.collect()
        }
        #expect(server.requests.map(\.method) == ["GET", "DELETE", "PUT"])
        #expect(server.requests.allSatisfy { $0.body.isEmpty })
    }

    @Test func requestHeadersAreSentAsGivenAndNothingIsInvented() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(contentsOf: [.text("a"), .text("b")])
        _ = try await transport.send(request(server)).collect()
        _ = try await transport.send(request(server, headers: [
            HTTPHeader("Content-Type", "application/json"), HTTPHeader("User-Agent", "custom/1"),
            HTTPHeader("X-Empty", ""), HTTPHeader("X-Title", "ofj test"),
        ])).collect()
        let (plain, custom) = (server.requests[0], server.requests[1])
        #expect(plain.header("content-type") == nil)  // libcurl would otherwise claim form encoding
        #expect(plain.header("user-agent") == "ofj")
        #expect(plain.header("content-length") == "17")
        #expect(custom.header("content-type") == "application/json")
        #expect(custom.header("user-agent") == "custom/1")
        #expect(custom.header("x-empty") == "")
        #expect(custom.header("x-title") == "ofj test")
    }

    @Test func malformedRequestHeadersAreRejectedBeforeSending() async throws {
        let server = try LoopbackHTTPServer()
        for header in [HTTPHeader("X-Bad", "a\r\nInjected: yes"), HTTPHeader("Bad Name", "v"), HTTPHeader("", "v")] {
            await #expect(throws: HTTPError.self) {
                _ = try await transport.send(request(server, headers: [header]))
            }
        }
        #expect(server.requests.isEmpty)
    }

    @Test func alreadyCancelledTaskDoesNotSend() async throws {
        let server = try LoopbackHTTPServer()
        let transport = self.transport
        let req = request(server)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(req)
        }
        await #expect(throws: HTTPError.cancelled) { try await task.value }
        try await Task.sleep(for: .milliseconds(50))
        #expect(server.requests.isEmpty)
        #expect(transport.activeTransfers == 0)
    }

    // MARK: - Failures

    @Test(arguments: [(LoopbackHTTPServer.Response.Framing.contentLength, true),
                      (.contentLength, false), (.chunked, true), (.chunked, false)])
    func connectionResetMidStreamFailsAfterPartialData(framing: LoopbackHTTPServer.Response.Framing, hard: Bool) async throws {
        let server = try LoopbackHTTPServer()
        let body = randomBytes(1000, seed: 3)
        server.enqueue(.init(status: 200, body: body, framing: framing, chunking: .random(seed: 9, maxChunk: 64),
                             holdAfterBodyBytes: 300, ending: .reset(afterBodyBytes: 300, hard: hard)))
        let response = try await transport.send(request(server))
        var received: [UInt8] = []
        var caught: Error?
        do {
            for try await chunk in response.body {
                received += chunk
                if received.count == 300 { server.releaseHold() }
            }
        } catch {
            caught = error
        }
        #expect(received == Array(body.prefix(300)))
        guard case .connectionReset = try #require(caught as? HTTPError) else {
            Issue.record("expected connectionReset, got \(String(describing: caught))")
            return
        }
    }

    // Timing: lower bounds are measured by the test (a starved cooperative pool only makes them
    // longer); upper bounds use server-side instants, since the transport's timers run on its
    // own thread while the test task may wait seconds for a busy pool.

    @Test func stallTripsIdleTimeout() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.init(status: 200, body: randomBytes(100, seed: 1), framing: .chunked,
                             ending: .stall(afterBodyBytes: 50)))
        let started = ContinuousClock.now
        let response = try await transport.send(request(server, timeouts: HTTPTimeouts(connect: 10, firstByte: 30, idle: 0.3)))
        let drained = await drain(response)
        #expect(drained.bytes.count == 50)
        #expect(drained.error as? HTTPError == .idleTimeout)
        #expect(started.duration(to: .now) >= .milliseconds(300))
        // The transport hung up on the stalled server about `idle` after the last byte.
        #expect(await server.waitUntil(timeout: 20) { $0.clientDisconnects == 1 })
        let stalled = try #require(server.lastStallBegan).duration(to: #require(server.lastClientDisconnect))
        #expect(stalled >= .milliseconds(250))
        #expect(stalled < .seconds(10)) // proves the timeout fired; generous for a loaded 2-core machine
    }

    // Provider chaos found this: servers send the head at once and then think before the first
    // event. The idle limit (8 s under the fast policy) used to start at the head, so a first
    // event due within the 10 s first-byte limit was cut off at 8 s.
    @Test func headThenSilenceIsBoundByTheFirstByteLimitNotTheIdleOne() async throws {
        let server = try LoopbackHTTPServer()
        let body = Array("data: {}\n\n".utf8)
        server.enqueue(.init(status: 200, body: body, framing: .chunked, holdAfterBodyBytes: 0))
        let response = try await transport.send(request(server, timeouts: HTTPTimeouts(connect: 10, firstByte: 30, idle: 0.3)))
        #expect(response.head.status == 200)
        try await Task.sleep(for: .seconds(1)) // well past the idle limit, before any body byte
        server.releaseHold()
        let drained = await drain(response)
        #expect(drained.error == nil)
        #expect(drained.bytes == body)
    }

    // Issue 25 §4: a server writing at full speed to a consumer that lags filled the memory
    // (every chunk was buffered). Past 4 MB the transfer now pauses, and the idle timeout does
    // not count the pause.
    @Test func aLaggingConsumerPausesTheTransferInsteadOfBufferingEverything() async throws {
        let server = try LoopbackHTTPServer()
        let pattern = (0..<4093).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var body: [UInt8] = []
        body.reserveCapacity(12 << 20)
        while body.count < 12 << 20 { body += pattern }
        server.enqueue(.init(status: 200, body: body, framing: .contentLength))
        let transport = CurlTransport()
        let response = try await transport.send(request(server, timeouts: HTTPTimeouts(connect: 10, firstByte: 30, idle: 0.5)))
        var iterator = response.body.makeAsyncIterator()
        var received: [UInt8] = []
        if let first = try await iterator.next() { received += first }
        // Not reading: the transfer fills its 4 MB and pauses (wait for that, however busy the machine).
        let until = ContinuousClock.now + .seconds(30)
        while transport.peakBufferedBytes < (4 << 20) - (64 << 10) && ContinuousClock.now < until {
            try await Task.sleep(for: .milliseconds(10))
        }
        // Longer than the idle limit: a paused transfer is not idle.
        try await Task.sleep(for: .seconds(1))
        #expect(transport.peakBufferedBytes >= (4 << 20) - (64 << 10))
        #expect(transport.peakBufferedBytes <= 5 << 20, "held \(transport.peakBufferedBytes) bytes")
        while let chunk = try await iterator.next() { received += chunk }
        #expect(received.count == body.count)
        #expect(received == body)
    }

    @Test func headThenSilenceTripsFirstByteTimeout() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.init(status: 200, body: Array("data: {}\n\n".utf8), framing: .chunked, holdAfterBodyBytes: 0))
        let response = try await transport.send(request(server, timeouts: HTTPTimeouts(connect: 10, firstByte: 0.3, idle: 0.3)))
        let drained = await drain(response)
        #expect(drained.bytes.isEmpty)
        #expect(drained.error as? HTTPError == .firstByteTimeout)
        server.releaseHold()
    }

    @Test func silentServerTripsFirstByteTimeout() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.init(status: 200, body: [1, 2, 3], delayBeforeHead: 30))
        let started = ContinuousClock.now
        await #expect(throws: HTTPError.firstByteTimeout) {
            _ = try await transport.send(request(server, timeouts: HTTPTimeouts(connect: 10, firstByte: 0.3, idle: 30)))
        }
        #expect(started.duration(to: .now) >= .milliseconds(300))
        #expect(await server.waitUntil(timeout: 20) { $0.clientDisconnects == 1 })
        let waited = try #require(server.requests.first?.receivedAt).duration(to: #require(server.lastClientDisconnect))
        #expect(waited >= .milliseconds(250))
        #expect(waited < .seconds(10))
    }

    @Test func deadPortFailsToConnect() async throws {
        let port = deadPort()
        let request = HTTPRequest(url: "http://127.0.0.1:\(port)/v1/x")
        do {
            _ = try await transport.send(request)
            Issue.record("expected a connect failure")
        } catch let error as HTTPError {
            guard case .connectFailed = error else {
                Issue.record("expected connectFailed, got \(error)")
                return
            }
        }
    }

    @Test func unansweredConnectTripsConnectTimeout() async throws {
        let blackhole = try #require(BlackholeListener())
        let started = ContinuousClock.now
        await #expect(throws: HTTPError.connectTimeout) {
            _ = try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(blackhole.port)/",
                                                     timeouts: HTTPTimeouts(connect: 0.3, firstByte: 30, idle: 30)))
        }
        // Loose: the bound proves our timeout applied (libcurl's default is 300 s), not its precision.
        #expect(started.duration(to: .now) < .seconds(20))
        withExtendedLifetime(blackhole) {}
    }

    @Test func httpsToAPlaintextServerIsATLSError() async throws {
        let server = try LoopbackHTTPServer()
        let url = "https://127.0.0.1:\(server.port)/v1"
        do {
            _ = try await transport.send(HTTPRequest(url: url, timeouts: relaxedTimeouts))
            Issue.record("expected a TLS failure")
        } catch let error as HTTPError {
            guard case .tls = error else {
                Issue.record("expected tls, got \(error)")
                return
            }
        }
        #expect(server.requests.isEmpty)
    }

    @Test func invalidURLsAreRejected() async throws {
        for url in ["ftp://127.0.0.1/x", "file:///etc/passwd", "127.0.0.1:80/x", "http://exa mple.com/"] {
            await #expect(throws: HTTPError.invalidURL) {
                _ = try await transport.send(HTTPRequest(url: url))
            }
        }
    }

    // MARK: - Cancellation

    @Test func cancellingTheConsumerStopsTheTransferQuickly() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.init(status: 200, body: randomBytes(100, seed: 5), framing: .chunked,
                             ending: .stall(afterBodyBytes: 10)))
        let transport = self.transport
        let (firstChunk, signal) = AsyncStream.makeStream(of: Void.self)
        let req = request(server)
        let consumer = Task {
            let response = try await transport.send(req)
            var count = 0
            for try await chunk in response.body {
                count += chunk.count
                signal.yield()
            }
            return count
        }
        for await _ in firstChunk { break }
        let cancelledAt = ContinuousClock.now
        consumer.cancel()
        _ = try? await consumer.value
        let consumerLatency = cancelledAt.duration(to: .now)
        #expect(await server.waitUntil(timeout: 20) { $0.clientDisconnects == 1 })
        let wireLatency = try cancelledAt.duration(to: #require(server.lastClientDisconnect))
        // The wire side does not depend on the cooperative pool: cancel() runs the stream's
        // termination handler synchronously, and the loop thread closes the socket.
        #expect(wireLatency < .seconds(5))
        #expect(consumerLatency < .seconds(15))
        #expect(await eventually { transport.activeTransfers == 0 })
        reportTiming("cancel while streaming: consumer \(consumerLatency), wire \(wireLatency)")
    }

    @Test func cancellingWhileWaitingForTheHeadThrowsCancelled() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.init(status: 200, body: [1], delayBeforeHead: 30))
        let transport = self.transport
        let req = request(server)
        let consumer = Task { try await transport.send(req) }
        #expect(await server.waitUntil(timeout: 20) { $0.requests.count == 1 })
        let cancelledAt = ContinuousClock.now
        consumer.cancel()
        let result = await consumer.result
        let latency = cancelledAt.duration(to: .now)
        #expect(throws: HTTPError.cancelled) { try result.get() }
        #expect(await server.waitUntil(timeout: 20) { $0.clientDisconnects == 1 })
        let wireLatency = try cancelledAt.duration(to: #require(server.lastClientDisconnect))
        #expect(wireLatency < .seconds(5))
        #expect(latency < .seconds(15))
        reportTiming("cancel while waiting for head: consumer \(latency), wire \(wireLatency)")
    }

    @Test func cancellingWhileConnectingThrowsCancelled() async throws {
        let blackhole = try #require(BlackholeListener())
        let transport = self.transport
        let req = HTTPRequest(url: "http://127.0.0.1:\(blackhole.port)/", timeouts: relaxedTimeouts)
        let consumer = Task { try await transport.send(req) }
        try await Task.sleep(for: .milliseconds(100))
        let cancelledAt = ContinuousClock.now
        consumer.cancel()
        let result = await consumer.result
        #expect(throws: HTTPError.cancelled) { try result.get() }
        #expect(cancelledAt.duration(to: .now) < .seconds(5))
        #expect(await eventually { transport.activeTransfers == 0 })
        withExtendedLifetime(blackhole) {}
    }

    @Test func droppingTheResponseStopsTheTransfer() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.init(status: 200, body: randomBytes(100, seed: 6), ending: .stall(afterBodyBytes: 10)))
        func readOneChunk() async throws -> Int {
            let response = try await transport.send(request(server))
            var iterator = response.body.makeAsyncIterator()
            return try await iterator.next()?.count ?? 0
        }
        #expect(try await readOneChunk() > 0)
        #expect(await server.waitUntil(timeout: 20) { $0.clientDisconnects == 1 })
        #expect(await eventually { transport.activeTransfers == 0 })
    }

    // MARK: - Secrets

    @Test func requestHeaderSecretsNeverAppearInErrors() async throws {
        let secret = "sk-test-SECRET123"
        let headers = [HTTPHeader("Authorization", "Bearer \(secret)"), HTTPHeader("x-api-key", secret),
                       HTTPHeader("x-goog-api-key", secret)]
        let fast = HTTPTimeouts(connect: 0.5, firstByte: 0.3, idle: 0.3)
        var errors: [Error] = []

        let server = try LoopbackHTTPServer()
        server.enqueue(contentsOf: [
            .init(status: 200, body: randomBytes(100, seed: 1), ending: .reset(afterBodyBytes: 10, hard: true)),
            .init(status: 200, body: randomBytes(100, seed: 1), ending: .reset(afterBodyBytes: 10, hard: false)),
            .init(status: 200, body: randomBytes(100, seed: 1), ending: .stall(afterBodyBytes: 10)),
            .init(status: 200, delayBeforeHead: 5),
        ])
        for _ in 0..<4 {
            do {
                let response = try await transport.send(request(server, headers: headers, body: Array(secret.utf8), timeouts: fast))
                if let error = await drain(response).error { errors.append(error) }
            } catch {
                errors.append(error)
            }
        }
        #expect(server.requests.count == 4)
        #expect(server.requests.allSatisfy { $0.header("x-api-key") == secret })

        let dead = "http://127.0.0.1:\(deadPort())/v1?key=\(secret)"
        for url in [dead, "ftp://host/\(secret)"] {
            do { _ = try await transport.send(HTTPRequest(url: url, headers: headers)) } catch { errors.append(error) }
        }
        do {
            _ = try await transport.send(HTTPRequest(url: server.url("/"), headers: [HTTPHeader("x-api-key", "\(secret)\r\nX: y")]))
        } catch {
            errors.append(error)
        }

        #expect(errors.count == 7)
        for error in errors {
            for text in [String(describing: error), String(reflecting: error), "\(error)", error.localizedDescription] {
                #expect(!text.contains("SECRET123"), "leaked in: \(text)")
            }
        }
    }

    // MARK: - Volume and hygiene

    @Test func largeBodiesSurviveIntact() async throws {
        let server = try LoopbackHTTPServer()
        let body = randomBytes(4 << 20, seed: 11)
        let upload = randomBytes(2 << 20, seed: 12)
        server.enqueue(.init(status: 200, body: body, framing: .chunked, chunking: .random(seed: 13, maxChunk: 65_536)))
        let response = try await transport.send(request(server, body: upload))
        let drained = await drain(response)
        #expect(drained.error == nil)
        #expect(drained.bytes.count == body.count)
        #expect(drained.bytes == body)
        #expect(server.requests.first?.body == upload)
    }

    @Test func manySequentialRequestsLeakNoThreadsOrSockets() async throws {
        let server = try LoopbackHTTPServer()
        let count = 60
        for i in 0..<count {
            server.enqueue(.eventStream("data: \(i)\n\n", seed: UInt64(i), maxChunk: 3))
        }
        for i in 0..<count {
            let response = try await transport.send(request(server))
            #expect(String(decoding: try await response.collect(), as: UTF8.self) == "data: \(i)\n\n")
        }
        #expect(transport.activeTransfers == 0)
        #expect(await server.waitUntil(timeout: 20) { $0.openConnections == 0 })
        #expect(await eventually { openSocketDescriptors(port: server.port) == 0 })
        // Every transfer in the process shares one loop thread.
        let names = threadNames()
        #expect(names.filter { $0 == "ofj-curl" }.count == 1, "threads: \(names)")
        server.stop()
        #expect(openSocketDescriptors(port: server.port) == 0)
    }

    @Test func concurrentRequestsShareTheLoop() async throws {
        let server = try LoopbackHTTPServer()
        let count = 12
        for _ in 0..<count {
            server.enqueue(.init(status: 200, body: randomBytes(5000, seed: 2), framing: .chunked,
                                 chunking: .random(seed: 4, maxChunk: 200), delayBetweenChunks: 0.001))
        }
        let transport = self.transport
        let req = request(server)
        let results = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<count { group.addTask { try await transport.send(req).collect() } }
            return try await group.reduce(into: [[UInt8]]()) { $0.append($1) }
        }
        #expect(results.count == count)
        #expect(results.allSatisfy { $0 == randomBytes(5000, seed: 2) })
    }
}

/// Prints measured latencies when OFJ_HTTP_TIMING is set (for reports, not assertions).
func reportTiming(_ line: String) {
    if ProcessInfo.processInfo.environment["OFJ_HTTP_TIMING"] != nil { print("[timing] \(line)") }
}
