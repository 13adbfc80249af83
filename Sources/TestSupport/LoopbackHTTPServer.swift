// A scripted HTTP/1.1 server on 127.0.0.1 for end-to-end transport tests: it records every
// request and plays queued responses in small (seeded) random chunks, with delays, resets and stalls.
import Foundation
import HTTP
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Usage:
/// ```
/// let server = try LoopbackHTTPServer()
/// server.enqueue(.init(status: 200, headers: [("Content-Type", "text/event-stream")], body: bytes,
///                      framing: .chunked, chunking: .random(seed: 7, maxChunk: 16), delayBetweenChunks: 0.005))
/// let response = try await CurlTransport().send(HTTPRequest(url: server.url("/v1/chat")))
/// server.requests.first?.header("authorization")
/// ```
/// Each connection serves one request and then closes (`Connection: close`). Requests that arrive
/// with nothing queued get a 500 with body "no scripted response". The server stops when `stop()`
/// is called or when it is released.
public final class LoopbackHTTPServer: Sendable {
    /// A scripted response.
    public struct Response: Sendable {
        public enum Framing: Sendable, Hashable {
            /// `Content-Length` with the full body length (even if the ending cuts the body short).
            case contentLength
            /// `Transfer-Encoding: chunked`; each piece becomes one HTTP chunk.
            case chunked
            /// No length: the body ends when the server closes the connection.
            case untilClose
        }
        public enum Chunking: Sendable, Hashable {
            /// The body in one write.
            case whole
            /// Pieces of exactly this many bytes (the last may be shorter).
            case fixed(Int)
            /// Pieces of 1...maxChunk bytes from a seeded generator (reproducible).
            case random(seed: UInt64, maxChunk: Int)
        }
        public enum Ending: Sendable, Hashable {
            /// Send everything (and the chunked terminator), then close.
            case complete
            /// Close after this many body bytes. `hard` sets SO_LINGER 0 so the peer gets a RST
            /// ("connection reset by peer"); otherwise a plain FIN.
            case reset(afterBodyBytes: Int, hard: Bool)
            /// Send this many body bytes, then nothing more, keeping the socket open until the
            /// client closes it or the server stops.
            case stall(afterBodyBytes: Int)
        }

        public var status: Int
        public var reason: String?
        public var headers: [(String, String)]
        public var body: [UInt8]
        public var framing: Framing
        public var chunking: Chunking
        /// Seconds to wait after reading the request before sending the status line.
        public var delayBeforeHead: Double
        /// Seconds to wait between body pieces.
        public var delayBetweenChunks: Double
        /// After this many body bytes, wait until `releaseHold()` is called (lets a test prove the
        /// client saw early bytes before the rest existed).
        public var holdAfterBodyBytes: Int?
        public var ending: Ending
        /// 1xx statuses (e.g. 103 Early Hints) sent, each with a `Link` header, before the real head.
        public var interimStatuses: [Int] = []
        /// Trailer fields sent after the last chunk (chunked framing only).
        public var trailers: [(String, String)] = []

        public init(status: Int = 200, reason: String? = nil, headers: [(String, String)] = [],
                    body: [UInt8] = [], framing: Framing = .contentLength, chunking: Chunking = .whole,
                    delayBeforeHead: Double = 0, delayBetweenChunks: Double = 0,
                    holdAfterBodyBytes: Int? = nil, ending: Ending = .complete) {
            self.status = status
            self.reason = reason
            self.headers = headers
            self.body = body
            self.framing = framing
            self.chunking = chunking
            self.delayBeforeHead = delayBeforeHead
            self.delayBetweenChunks = delayBetweenChunks
            self.holdAfterBodyBytes = holdAfterBodyBytes
            self.ending = ending
        }

        /// A complete text response.
        public static func text(_ text: String, status: Int = 200, headers: [(String, String)] = [],
                                contentType: String = "text/plain") -> Response {
            Response(status: status, headers: [("Content-Type", contentType)] + headers, body: Array(text.utf8))
        }

        /// A JSON response (body given as text).
        public static func json(_ json: String, status: Int = 200, headers: [(String, String)] = []) -> Response {
            text(json, status: status, headers: headers, contentType: "application/json")
        }

        /// An event stream sent with chunked encoding in small random pieces.
        public static func eventStream(_ body: String, seed: UInt64 = 1, maxChunk: Int = 32,
                                       delayBetweenChunks: Double = 0, headers: [(String, String)] = []) -> Response {
            Response(status: 200, headers: [("Content-Type", "text/event-stream")] + headers, body: Array(body.utf8),
                     framing: .chunked, chunking: .random(seed: seed, maxChunk: maxChunk),
                     delayBetweenChunks: delayBetweenChunks)
        }

        /// 429 with a `Retry-After` header (seconds or an HTTP date, given verbatim).
        public static func rateLimited(retryAfter: String, headers: [(String, String)] = [],
                                       body: String = #"{"error":{"message":"rate limited"}}"#) -> Response {
            json(body, status: 429, headers: [("Retry-After", retryAfter)] + headers)
        }
    }

    /// A request as the server received it.
    public struct ReceivedRequest: Sendable, Hashable {
        public var method: String
        /// The request target, e.g. `/v1/responses?x=1`.
        public var path: String
        public var headers: [HTTPHeader]
        public var body: [UInt8]
        /// When the server finished reading it (server-side clock, independent of test scheduling).
        public var receivedAt: ContinuousClock.Instant
        /// First header with this name, case-insensitively.
        public func header(_ name: String) -> String? {
            let lower = name.lowercased()
            return headers.first { $0.name.lowercased() == lower }?.value
        }
        public var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    private let core: LoopbackServerCore

    /// Binds 127.0.0.1 on an ephemeral port and starts accepting.
    public init() throws {
        core = try LoopbackServerCore()
    }

    deinit { core.stop() }

    public var port: Int { core.port }
    /// `http://127.0.0.1:<port>`
    public var url: String { "http://127.0.0.1:\(core.port)" }
    /// `url` + path (path should start with `/`).
    public func url(_ path: String) -> String { url + path }

    public func enqueue(_ response: Response) { core.state.withLock { $0.queue.append(response) } }

    /// Answers every request whose path ends with `path` with `response`, without touching the
    /// queue (what a local server says about itself: `/props`, `/api/show`, model lists).
    public func route(_ path: String, _ response: Response) { core.state.withLock { $0.routes[path] = response } }

    /// Paths a local model server answers about itself. ofj asks them before the first request;
    /// unless routed they get a 404 (as from a server without that endpoint), and neither they nor
    /// a routed request take a queued response or appear in `requests`.
    public static let serverInfoPaths = ["/props", "/api/show", "/v1/models", "/api/v0/models"]

    /// Requests answered by a route or as a server-info path, in arrival order.
    public var infoRequests: [ReceivedRequest] { core.state.withLock { $0.infoRequests } }
    public func enqueue(contentsOf responses: [Response]) { core.state.withLock { $0.queue.append(contentsOf: responses) } }

    /// Every complete request received so far, in arrival order.
    public var requests: [ReceivedRequest] { core.state.withLock { $0.requests } }
    /// Connections currently being served (each on its own thread).
    public var openConnections: Int { core.state.withLock { $0.openConnections } }
    /// Connections the client closed before the server had finished its script
    /// (during a delay, hold, stall or while sending).
    public var clientDisconnects: Int { core.state.withLock { $0.clientDisconnects } }
    /// When the most recent such disconnect was noticed.
    public var lastClientDisconnect: ContinuousClock.Instant? { core.state.withLock { $0.lastClientDisconnect } }
    /// When the most recent `.stall` began (its last byte was written).
    public var lastStallBegan: ContinuousClock.Instant? { core.state.withLock { $0.lastStallBegan } }
    /// Body bytes written to sockets so far, over all connections.
    public var bodyBytesSent: Int { core.state.withLock { $0.bodyBytesSent } }

    /// Lets one connection waiting at `holdAfterBodyBytes` continue.
    public func releaseHold() { core.releaseHold() }

    /// Stops accepting, wakes every waiting connection, and waits (up to 5 s) for all server
    /// threads to end. Idempotent.
    public func stop() { core.stop() }

    /// Polls `condition` every 5 ms until it holds or `timeout` seconds pass.
    public func waitUntil(timeout: Double, _ condition: @Sendable (LoopbackHTTPServer) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            if condition(self) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition(self)
    }
}

public struct LoopbackServerError: Error, CustomStringConvertible {
    public var description: String
}

/// The loopback server's name for the one seeded generator of TestSupport (SplitMix64).
public typealias SeededRandom = SeededGenerator

// MARK: - Implementation

struct LoopbackServerState {
    var queue: [LoopbackHTTPServer.Response] = []
    var routes: [String: LoopbackHTTPServer.Response] = [:]
    var infoRequests: [LoopbackHTTPServer.ReceivedRequest] = []
    var requests: [LoopbackHTTPServer.ReceivedRequest] = []
    var openConnections = 0
    var clientDisconnects = 0
    var lastClientDisconnect: ContinuousClock.Instant?
    var lastStallBegan: ContinuousClock.Instant?
    var bodyBytesSent = 0
    var stopped = false
}

/// Owns the sockets and threads; threads hold the core, not the public object, so releasing
/// the server stops it.
final class LoopbackServerCore: Sendable {
    let port: Int
    let state = Mutex(LoopbackServerState())
    private let listenFD: Int32
    /// Written once by `stop()` and never read, so it stays readable: every poll wakes up.
    private let stopPipe: (read: Int32, write: Int32)
    /// One byte per `releaseHold()`; non-blocking read end so several waiters cannot hang.
    private let holdPipe: (read: Int32, write: Int32)
    private let threads = DispatchGroup()

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackServerError(description: "socket() failed: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let code = errno
            close(fd)
            throw LoopbackServerError(description: "bind/listen on 127.0.0.1 failed: errno \(code)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        var stopFDs: [Int32] = [-1, -1]
        var holdFDs: [Int32] = [-1, -1]
        guard pipe(&stopFDs) == 0, pipe(&holdFDs) == 0 else {
            close(fd)
            throw LoopbackServerError(description: "pipe() failed: errno \(errno)")
        }
        _ = fcntl(holdFDs[0], F_SETFL, fcntl(holdFDs[0], F_GETFL) | O_NONBLOCK)
        listenFD = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        stopPipe = (stopFDs[0], stopFDs[1])
        holdPipe = (holdFDs[0], holdFDs[1])
        threads.enter()
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "loopback-accept"
        thread.start()
    }

    func releaseHold() {
        var byte: UInt8 = 1
        _ = write(holdPipe.write, &byte, 1)
    }

    func stop() {
        let first = state.withLock { s -> Bool in
            defer { s.stopped = true }
            return !s.stopped
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = write(stopPipe.write, &byte, 1)
        if threads.wait(timeout: .now() + 5) == .success {
            for fd in [listenFD, stopPipe.read, stopPipe.write, holdPipe.read, holdPipe.write] { close(fd) }
        }
        // Otherwise a thread is stuck; leaking the descriptors is safer than closing them under it.
    }

    // MARK: Threads

    private func acceptLoop() {
        defer { threads.leave() }
        while true {
            var fds = [pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)]
            if poll(&fds, 2, -1) < 0 { if errno == EINTR { continue } else { return } }
            if fds[1].revents != 0 { return }
            guard fds[0].revents != 0 else { continue }
            let client = accept(listenFD, nil, nil)
            if client < 0 { continue }
            var one: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            state.withLock { $0.openConnections += 1 }
            threads.enter()
            let thread = Thread { [self] in serve(client) }
            thread.name = "loopback-conn"
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        defer {
            close(fd)
            state.withLock { $0.openConnections -= 1 }
            threads.leave()
        }
        guard let request = readRequest(fd) else { return }
        let response = state.withLock { s -> LoopbackHTTPServer.Response? in
            let path = String(request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            if let routed = s.routes.first(where: { path.hasSuffix($0.key) }) {
                s.infoRequests.append(request)
                return routed.value
            }
            if LoopbackHTTPServer.serverInfoPaths.contains(where: { path.hasSuffix($0) }) {
                s.infoRequests.append(request)
                return .json(#"{"error":"Not Found"}"#, status: 404)
            }
            s.requests.append(request)
            return s.queue.isEmpty ? nil : s.queue.removeFirst()
        } ?? .text("no scripted response", status: 500)
        play(response, on: fd)
    }

    // MARK: Reading

    private func readRequest(_ fd: Int32) -> LoopbackHTTPServer.ReceivedRequest? {
        var buffer: [UInt8] = []
        var headEnd: Int?
        var sentContinue = false
        while true {
            if headEnd == nil, let end = find([13, 10, 13, 10], in: buffer) { headEnd = end + 4 }
            if let headEnd {
                let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
                var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
                guard !lines.isEmpty else { return nil }
                let requestLine = lines.removeFirst().split(separator: " ")
                guard requestLine.count >= 2 else { return nil }
                let headers = lines.compactMap { line -> HTTPHeader? in
                    guard let colon = line.firstIndex(of: ":") else { return nil }
                    return HTTPHeader(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
                }
                func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name }?.value }
                if !sentContinue, header("expect")?.lowercased() == "100-continue" {
                    sentContinue = true
                    guard sendAll(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), fd) else { return nil }
                }
                let rest = Array(buffer[headEnd...])
                var body: [UInt8]?
                if header("transfer-encoding")?.lowercased().contains("chunked") == true {
                    body = decodeChunked(rest)
                } else {
                    let length = Int(header("content-length") ?? "0") ?? 0
                    body = rest.count >= length ? Array(rest.prefix(length)) : nil
                }
                if let body {
                    return .init(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers,
                                 body: body, receivedAt: .now)
                }
            }
            guard waitReadable(fd, timeout: -1) else { return nil }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<n])
            if buffer.first == 0x16 {
                // A TLS ClientHello: answer in plain HTTP, as real servers do, so the client's TLS
                // layer fails fast instead of waiting for a ServerHello.
                _ = sendAll(Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8), fd)
                return nil
            }
        }
    }

    /// Complete chunked body, or nil if more bytes are needed.
    private func decodeChunked(_ bytes: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        var i = 0
        while true {
            guard let lineEnd = find([13, 10], in: bytes, from: i) else { return nil }
            let sizeText = String(decoding: bytes[i..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
            i = lineEnd + 2
            if size == 0 { return out }
            guard bytes.count >= i + size + 2 else { return nil }
            out.append(contentsOf: bytes[i..<(i + size)])
            i += size + 2
        }
    }

    private func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int = 0) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        for i in start...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if Array(haystack[i..<(i + needle.count)]) == needle { return i }
        }
        return nil
    }

    // MARK: Writing

    private func play(_ response: LoopbackHTTPServer.Response, on fd: Int32) {
        if response.delayBeforeHead > 0, !pause(response.delayBeforeHead, fd) { return }
        let names = Set(response.headers.map { $0.0.lowercased() })
        var head = "HTTP/1.1 \(response.status) \(response.reason ?? Self.reason(response.status))\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        switch response.framing {
        case .contentLength where !names.contains("content-length"):
            head += "Content-Length: \(response.body.count)\r\n"
        case .chunked where !names.contains("transfer-encoding"):
            head += "Transfer-Encoding: chunked\r\n"
        default: break
        }
        if !names.contains("connection") { head += "Connection: close\r\n" }
        head += "\r\n"
        let interim = response.interimStatuses.map { "HTTP/1.1 \($0) Interim\r\nLink: </interim>; rel=preload\r\n\r\n" }
        head = interim.joined() + head
        guard sendAll(Array(head.utf8), fd) else { return }

        let stopAt: Int
        switch response.ending {
        case .complete: stopAt = response.body.count
        case .reset(let n, _), .stall(let n): stopAt = min(max(0, n), response.body.count)
        }
        var random = SeededRandom(seed: 0)
        if case .random(let seed, _) = response.chunking { random = SeededRandom(seed: seed) }
        var hold = response.holdAfterBodyBytes
        var offset = 0
        while true {
            if let h = hold, offset >= h {
                hold = nil
                guard waitForHoldRelease(fd) else { return }
            }
            if offset >= stopAt { break }
            var size: Int
            switch response.chunking {
            case .whole: size = stopAt - offset
            case .fixed(let n): size = max(1, n)
            case .random(_, let maxChunk): size = Int.random(in: 1...max(1, maxChunk), using: &random)
            }
            size = min(size, stopAt - offset)
            if let h = hold { size = min(size, h - offset) }
            let piece = Array(response.body[offset..<(offset + size)])
            let framed = response.framing == .chunked
                ? Array((String(size, radix: 16) + "\r\n").utf8) + piece + [13, 10] : piece
            guard sendAll(framed, fd) else { return }
            offset += size
            state.withLock { $0.bodyBytesSent += size }
            if offset < stopAt, response.delayBetweenChunks > 0, !pause(response.delayBetweenChunks, fd) { return }
        }
        switch response.ending {
        case .complete:
            if response.framing == .chunked {
                let trailers = response.trailers.map { "\($0.0): \($0.1)\r\n" }.joined()
                _ = sendAll(Array("0\r\n\(trailers)\r\n".utf8), fd)
            }
        case .reset(_, let hard):
            if hard {
                var linger = linger(l_onoff: 1, l_linger: 0)
                setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
            }
        case .stall:
            state.withLock { $0.lastStallBegan = .now }
            _ = waitForClientClose(fd)
        }
    }

    private func sendAll(_ bytes: [UInt8], _ fd: Int32) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 { sent += n; continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EAGAIN {
                var fds = [pollfd(fd: fd, events: Int16(POLLOUT), revents: 0),
                           pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0)]
                _ = poll(&fds, 2, -1)
                if fds[1].revents != 0 { return false }
                continue
            }
            noteClientDisconnect()
            return false
        }
        return true
    }

    // MARK: Waiting (every wait wakes on stop; the client closing ends the connection)

    private enum Wake { case timeout, stop, client, hold }

    private func wait(_ fd: Int32, timeoutMilliseconds: Int32, hold: Bool) -> Wake {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: stopPipe.read, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: holdPipe.read, events: hold ? Int16(POLLIN) : 0, revents: 0)]
        let n = poll(&fds, 3, timeoutMilliseconds)
        if n == 0 { return .timeout }
        if n < 0 { return errno == EINTR ? .timeout : .stop }
        if fds[1].revents != 0 { return .stop }
        if fds[0].revents != 0 { return .client }
        return .hold
    }

    /// True if the client has closed (data it sends after the request is read and dropped).
    private func clientClosed(_ fd: Int32) -> Bool {
        var scratch = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &scratch, scratch.count, 0)
        if n > 0 { return false }
        if n < 0 && (errno == EAGAIN || errno == EINTR) { return false }
        noteClientDisconnect()
        return true
    }

    private func noteClientDisconnect() {
        state.withLock {
            $0.clientDisconnects += 1
            $0.lastClientDisconnect = .now
        }
    }

    private func waitReadable(_ fd: Int32, timeout: Int32) -> Bool {
        while true {
            switch wait(fd, timeoutMilliseconds: timeout, hold: false) {
            case .client: return true
            case .stop: return false
            case .timeout, .hold: if timeout >= 0 { return false }
            }
        }
    }

    /// Sleeps; false if the server stopped or the client went away meanwhile.
    private func pause(_ seconds: Double, _ fd: Int32) -> Bool {
        let deadline = ContinuousClock.now + .microseconds(Int(seconds * 1_000_000))
        while true {
            let remaining = deadline - ContinuousClock.now
            if remaining <= .zero { return true }
            let ms = Int32(max(1, (remaining / .milliseconds(1)).rounded(.up)))
            switch wait(fd, timeoutMilliseconds: ms, hold: false) {
            case .timeout, .hold: continue
            case .stop: return false
            case .client: if clientClosed(fd) { return false }
            }
        }
    }

    private func waitForHoldRelease(_ fd: Int32) -> Bool {
        while true {
            switch wait(fd, timeoutMilliseconds: -1, hold: true) {
            case .timeout: continue
            case .stop: return false
            case .client: if clientClosed(fd) { return false }
            case .hold:
                var byte: UInt8 = 0
                if read(holdPipe.read, &byte, 1) == 1 { return true }  // else another waiter took it
            }
        }
    }

    private func waitForClientClose(_ fd: Int32) -> Bool {
        while true {
            switch wait(fd, timeoutMilliseconds: -1, hold: false) {
            case .timeout, .hold: continue
            case .stop: return false
            case .client: if clientClosed(fd) { return true }
            }
        }
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 408: "Request Timeout"
        case 413: "Payload Too Large"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status"
        }
    }
}

/// A loopback port that refuses connections for as long as this value lives: bound (so no other
/// test's server can be given it) but not listening. A stopped server's port is no such thing:
/// with tests running in parallel, the next server may be given it at once.
public final class RefusingLoopbackPort: @unchecked Sendable {
    public let port: Int
    private let fd: Int32

    /// Any free port, or `port` (throws when it is taken: e.g. still listened on).
    public init(port: Int = 0) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoopbackServerError(description: "socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        guard bound == 0, withUnsafeMutablePointer(to: &address, {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }) == 0 else {
            let code = errno
            close(fd)
            throw LoopbackServerError(description: "bind on 127.0.0.1 failed: errno \(code)")
        }
        self.fd = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }

    /// "http://127.0.0.1:PORT" + `path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
}
