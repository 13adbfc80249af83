// The HTTP port: a streaming request/response transport. CurlTransport is the real one;
// tests use loopback servers or in-memory fakes.

public struct HTTPHeader: Sendable, Hashable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// Timeouts in seconds. `firstByte` covers the wait for response headers; `idle` the longest
/// silence between body chunks.
public struct HTTPTimeouts: Sendable, Hashable {
    public var connect: Double
    public var firstByte: Double
    public var idle: Double
    public init(connect: Double = 10, firstByte: Double = 10, idle: Double = 8) {
        self.connect = connect
        self.firstByte = firstByte
        self.idle = idle
    }
}

/// A large request body (attachments) written once and then only read: the transport sends it
/// from this memory without a copy of its own (libcurl `CURLOPT_POSTFIELDS`).
public final class HTTPBodyBuffer: @unchecked Sendable {
    public let count: Int
    let storage: UnsafeMutableRawPointer

    /// Allocates `count` bytes and lets `fill` write all of them.
    public init(count: Int, fill: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        self.count = count
        storage = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        do {
            try fill(UnsafeMutableRawBufferPointer(start: storage, count: count))
        } catch {
            storage.deallocate()
            throw error
        }
    }
    deinit { storage.deallocate() }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage, count: count))
    }
    /// A copy of the bytes (tests).
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }
}

public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [HTTPHeader]
    public var body: [UInt8]
    /// When set, the body sent instead of `body` (which is then empty), without a copy.
    public var sharedBody: HTTPBodyBuffer? = nil
    public var timeouts: HTTPTimeouts
    /// For requests to untrusted destinations (`fetch_url`): a numeric IPv4 or IPv6 address the
    /// caller has already checked. The connection goes to exactly this address (libcurl
    /// `CURLOPT_CONNECT_TO`; no DNS lookup of the URL's host), directly (proxy settings from the
    /// environment are ignored), on a fresh connection that is not reused afterwards, and the
    /// transfer is aborted if the connected peer is any other address. nil: ordinary behaviour.
    public var pinnedAddress: String? = nil
    /// Advertise gzip/deflate/br and hand the body stream decoded bytes, so a size cap counted by
    /// the consumer counts decoded bytes (a decompression bomb stops at the cap).
    public var decodeContent: Bool = false
    public init(method: String = "POST", url: String, headers: [HTTPHeader] = [], body: [UInt8] = [], timeouts: HTTPTimeouts = HTTPTimeouts()) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeouts = timeouts
    }
}

public struct HTTPResponseHead: Sendable, Hashable {
    public var status: Int
    public var headers: [HTTPHeader]
    public init(status: Int, headers: [HTTPHeader]) {
        self.status = status
        self.headers = headers
    }
    /// First header with this name, case-insensitively.
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }
}

/// A response whose body arrives as chunks while the request is still running.
public struct HTTPStreamingResponse: Sendable {
    public var head: HTTPResponseHead
    public var body: AsyncThrowingStream<[UInt8], Error>
    public init(head: HTTPResponseHead, body: AsyncThrowingStream<[UInt8], Error>) {
        self.head = head
        self.body = body
    }
}

/// Transport failures. Messages never include request headers or bodies.
public enum HTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidURL
    case connectFailed(String)
    case connectTimeout
    case firstByteTimeout
    case idleTimeout
    case connectionReset(String)
    case tls(String)
    case cancelled
    case other(String)

    public var description: String {
        switch self {
        case .invalidURL: return "invalid URL"
        case .connectFailed(let m): return "could not connect (\(m))"
        case .connectTimeout: return "timed out connecting"
        case .firstByteTimeout: return "timed out waiting for the response"
        case .idleTimeout: return "the response stalled"
        case .connectionReset(let m): return "connection lost (\(m))"
        case .tls(let m): return "TLS error (\(m))"
        case .cancelled: return "cancelled"
        case .other(let m): return m
        }
    }
}

public protocol HTTPTransport: Sendable {
    /// Sends the request; returns once the response head has arrived. The body stream ends when
    /// the response is complete and throws `HTTPError` on failure. Cancelling the consuming task
    /// aborts the transfer.
    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse
}

extension HTTPStreamingResponse {
    /// Collects the whole body (for small, non-streaming responses).
    public func collect(limit: Int = 16 << 20) async throws -> [UInt8] {
        var out: [UInt8] = []
        for try await chunk in body {
            out.append(contentsOf: chunk)
            if out.count > limit { throw HTTPError.other("response larger than \(limit) bytes") }
        }
        return out
    }
}
