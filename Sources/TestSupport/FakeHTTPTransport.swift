// In-memory HTTPTransport for tests: replays canned responses in random-size chunks and records requests.
import HTTP
import Synchronization

/// A deterministic random generator (SplitMix64) so chunk splits are reproducible from a seed.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Splits `bytes` into chunks of 1...maxChunk bytes chosen by `generator`.
public func randomChunks(_ bytes: [UInt8], maxChunk: Int, generator: inout SeededGenerator) -> [[UInt8]] {
    var out: [[UInt8]] = []
    var i = 0
    while i < bytes.count {
        let n = Int.random(in: 1...max(1, maxChunk), using: &generator)
        let end = min(bytes.count, i + n)
        out.append(Array(bytes[i..<end]))
        i = end
    }
    return out
}

public final class FakeHTTPTransport: HTTPTransport, Sendable {
    /// One canned response.
    public struct Reply: Sendable {
        public var status: Int
        public var headers: [HTTPHeader]
        public var body: [UInt8]
        /// Largest chunk size; chunks are 1...maxChunk bytes.
        public var maxChunk: Int
        public var seed: UInt64
        /// Thrown by the body stream after `failAfterBytes` bytes (a reset mid-stream).
        public var failure: HTTPError?
        public var failAfterBytes: Int
        /// Thrown by `send` itself (connection refused, first-byte timeout).
        public var sendFailure: HTTPError?

        public init(status: Int = 200, headers: [HTTPHeader] = [HTTPHeader("Content-Type", "text/event-stream")],
                    body: [UInt8], maxChunk: Int = 64, seed: UInt64 = 1, failure: HTTPError? = nil,
                    failAfterBytes: Int = .max, sendFailure: HTTPError? = nil) {
            self.status = status
            self.headers = headers
            self.body = body
            self.maxChunk = maxChunk
            self.seed = seed
            self.failure = failure
            self.failAfterBytes = failAfterBytes
            self.sendFailure = sendFailure
        }

        public init(status: Int = 200, headers: [HTTPHeader] = [HTTPHeader("Content-Type", "text/event-stream")],
                    text: String, maxChunk: Int = 64, seed: UInt64 = 1) {
            self.init(status: status, headers: headers, body: Array(text.utf8), maxChunk: maxChunk, seed: seed)
        }

        public static func failing(_ error: HTTPError) -> Reply {
            Reply(body: [], sendFailure: error)
        }
    }

    private struct State {
        var replies: [Reply]
        var requests: [HTTPRequest] = []
    }
    private let state: Mutex<State>

    /// Replies are served in order; when they run out the last one repeats.
    public init(replies: [Reply]) {
        state = Mutex(State(replies: replies))
    }

    public convenience init(_ reply: Reply) { self.init(replies: [reply]) }

    /// Every request sent so far, in order.
    public var requests: [HTTPRequest] { state.withLock { $0.requests } }

    public func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        let reply: Reply? = state.withLock { s in
            var recorded = request
            if let shared = request.sharedBody { recorded.body = shared.bytes } // what the server would receive
            s.requests.append(recorded)
            guard let first = s.replies.first else { return nil }
            if s.replies.count > 1 { s.replies.removeFirst() }
            return first
        }
        guard let reply else { throw HTTPError.other("no canned reply") }
        if let failure = reply.sendFailure { throw failure }
        var generator = SeededGenerator(seed: reply.seed)
        let limit = min(reply.failAfterBytes, reply.body.count)
        let chunks = randomChunks(Array(reply.body[0..<limit]), maxChunk: reply.maxChunk, generator: &generator)
        let body = AsyncThrowingStream<[UInt8], Error> { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            if let failure = reply.failure {
                continuation.finish(throwing: failure)
            } else {
                continuation.finish()
            }
        }
        return HTTPStreamingResponse(head: HTTPResponseHead(status: reply.status, headers: reply.headers), body: body)
    }
}
