// One request in flight over libcurl: the easy handle, its callbacks, its deadlines, and how the
// outcome reaches the caller (the response head continuation and the body stream).
import CCurl
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic nanoseconds; deadlines must not move when the wall clock does.
func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Seconds to nanoseconds; zero or negative means "no limit".
private func nanos(_ seconds: Double) -> UInt64? {
    seconds > 0 ? UInt64(seconds * 1_000_000_000) : nil
}

/// Per-request state. Only `cancelRequested` is shared between threads; everything else is
/// touched by the sending task until the transfer is handed to the event loop (the hand-off goes
/// through a mutex), and from then on only by the loop thread. Hence `@unchecked Sendable`.
final class CurlTransfer: @unchecked Sendable {
    private(set) var easy: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var connectToList: UnsafeMutablePointer<curl_slist>?
    /// The only peer address allowed (`HTTPRequest.pinnedAddress`), as network-order bytes.
    private var pinnedPeer: [UInt8]?
    /// A shared request body libcurl reads from (`CURLOPT_POSTFIELDS`): kept while the handle lives.
    private var sharedBody: HTTPBodyBuffer?
    /// True when the connection went somewhere other than the pinned address.
    private(set) var peerMismatch = false
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let loop: CurlEventLoop
    private let firstByteLimit: UInt64?
    private let idleLimit: UInt64?
    /// Strings that must never appear in an error message (header values, URL query).
    private let secrets: [String]
    private let body: AsyncThrowingStream<[UInt8], Error>.Continuation
    private let onFinish: @Sendable () -> Void

    /// Set by the sending task right before the hand-off; resumed exactly once by the loop.
    var headContinuation: CheckedContinuation<HTTPResponseHead, Error>?
    let cancelRequested = Atomic<Bool>(false)

    /// Backpressure: past `pauseAbove` bytes handed to the consumer and not yet read, libcurl is
    /// paused (it stops reading the socket, so a server writing at full speed waits instead of
    /// filling the memory); it goes on once the consumer is below `resumeBelow`.
    static let pauseAbove = 4 << 20
    static let resumeBelow = 1 << 20
    /// Bytes yielded to the body stream that the consumer has not taken yet.
    let buffered = Atomic<Int>(0)
    /// Set (by the loop) while it may pause; the consumer asks for a resume when it sees it.
    let mayBePaused = Atomic<Bool>(false)
    let resumeRequested = Atomic<Bool>(false)
    /// Loop thread only.
    private var paused = false

    private var status = 0
    private var headers: [HTTPHeader] = []
    private(set) var headDelivered = false
    /// True once a body byte arrived: from then on only the idle limit applies.
    private var sawBody = false
    /// When the connection was ready and the request went out (first-byte clock starts here).
    private var connectedAt: UInt64?
    /// Last time response bytes arrived (idle clock).
    private var lastActivity: UInt64 = 0
    private var finished = false

    /// The transport's record of the most bytes any transfer held for its consumer.
    private let peak: AtomicCounter?

    init(request: HTTPRequest, loop: CurlEventLoop,
         body: AsyncThrowingStream<[UInt8], Error>.Continuation, peak: AtomicCounter? = nil,
         onFinish: @escaping @Sendable () -> Void) throws(HTTPError) {
        self.peak = peak
        let lowerURL = request.url.lowercased()
        guard lowerURL.hasPrefix("http://") || lowerURL.hasPrefix("https://"),
              !request.url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw HTTPError.invalidURL
        }
        for header in request.headers where !Self.isValid(header) {
            // Neither the name nor the value goes into the message: the value may be a key.
            throw HTTPError.other("a request header contains a character HTTP does not allow")
        }
        guard let easy = ccurl_easy_init() else {
            throw HTTPError.other("could not start an HTTP transfer (libcurl out of memory)")
        }
        self.easy = easy
        self.loop = loop
        self.body = body
        self.onFinish = onFinish
        self.firstByteLimit = nanos(request.timeouts.firstByte)
        self.idleLimit = nanos(request.timeouts.idle)
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        self.errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        var secrets: [String] = []
        for header in request.headers {
            secrets.append(header.value)
            secrets.append(contentsOf: header.value.split(separator: " ").map(String.init))
        }
        if let q = request.url.firstIndex(of: "?") { secrets.append(String(request.url[q...])) }
        self.secrets = secrets.filter { $0.count >= 4 }.sorted { $0.count > $1.count }
        try configure(easy, request)
    }

    deinit {
        if let easy { ccurl_easy_cleanup(easy) }
        if let headerList { ccurl_slist_free_all(headerList) }
        if let connectToList { ccurl_slist_free_all(connectToList) }
        errorBuffer.deallocate()
    }

    private static func isValid(_ header: HTTPHeader) -> Bool {
        let tchar: (UInt8) -> Bool = { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                || "!#$%&'*+-.^_`|~".utf8.contains(c)
        }
        return !header.name.isEmpty && header.name.utf8.allSatisfy(tchar)
            && !header.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 })
    }

    /// The host part of an http(s) URL, without userinfo, port or IPv6 brackets; lowercased.
    static func host(of url: String) -> String {
        guard let scheme = url.firstRange(of: "://") else { return "" }
        var authority = url[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<close]).lowercased()
        }
        return String(authority.prefix { $0 != ":" }).lowercased()
    }

    static func isLoopback(host: String) -> Bool {
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false).map { UInt8($0) }
        return octets.count == 4 && octets.allSatisfy { $0 != nil } && octets[0] == 127
    }

    // MARK: - Easy handle set-up

    private func configure(_ easy: UnsafeMutableRawPointer, _ request: HTTPRequest) throws(HTTPError) {
        var failed = false
        func set(_ code: CURLcode) { if code != CURLE_OK { failed = true } }

        set(ccurl_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        set(ccurl_setopt_string(easy, CURLOPT_URL, request.url))
        // Only HTTP(S), never follow redirects (a redirect could carry our key elsewhere).
        set(ccurl_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        set(ccurl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0))
        // TLS verification is libcurl's default; set it anyway so nobody "fixes" it by accident.
        set(ccurl_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1))
        set(ccurl_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2))
        // Proxies: CURLOPT_PROXY is deliberately left unset so libcurl honours http_proxy,
        // https_proxy, all_proxy and no_proxy from the environment.
        // The one exception, as in Go's ProxyFromEnvironment: loopback hosts (a local Ollama or
        // llama.cpp, the test servers) are never sent through a proxy.
        if Self.isLoopback(host: Self.host(of: request.url)) {
            set(ccurl_setopt_string(easy, CURLOPT_NOPROXY, "*"))
        }
        if let pinned = request.pinnedAddress {
            // Untrusted destination: the checked address and nothing else (see HTTPRequest).
            guard let bytes = Self.addressBytes(pinned) else { throw HTTPError.invalidURL }
            pinnedPeer = bytes
            let target = bytes.count == 16 ? "[\(pinned)]" : pinned
            connectToList = ccurl_slist_append(nil, "::\(target):")
            if connectToList == nil { failed = true }
            set(ccurl_setopt_slist(easy, CURLOPT_CONNECT_TO, connectToList))
            set(ccurl_setopt_string(easy, CURLOPT_PROXY, ""))
            set(ccurl_setopt_string(easy, CURLOPT_NOPROXY, "*"))
            set(ccurl_setopt_long(easy, CURLOPT_FRESH_CONNECT, 1))
            set(ccurl_setopt_long(easy, CURLOPT_FORBID_REUSE, 1))
        }
        if request.decodeContent {
            // "" = every encoding this libcurl decodes; the write callback sees decoded bytes.
            set(ccurl_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, ""))
        }
        set(ccurl_setopt_long(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1))
        if let connect = nanos(request.timeouts.connect) {
            set(ccurl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, max(1, Int(connect / 1_000_000))))
        }
        set(ccurl_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1))
        set(ccurl_setopt_long(easy, CURLOPT_NOPROGRESS, 1))
        set(ccurl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer))

        let me = Unmanaged.passUnretained(self).toOpaque()
        set(ccurl_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION) { ptr, size, count, user in
            guard let user else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
            transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: ptr, count: size * count))
            return size * count
        })
        set(ccurl_setopt_pointer(easy, CURLOPT_HEADERDATA, me))
        set(ccurl_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION) { ptr, size, count, user in
            guard let user else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
            // Returning a short count makes libcurl abort with CURLE_WRITE_ERROR.
            return transfer.receiveBody(UnsafeRawBufferPointer(start: ptr, count: size * count))
        })
        set(ccurl_setopt_pointer(easy, CURLOPT_WRITEDATA, me))
        set(ccurl_setopt_prereq(easy) { user, primaryIP, _, _, _ in
            if let user {
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
                if !transfer.peerAllowed(primaryIP) { return CURL_PREREQFUNC_ABORT }
                transfer.connectionReady()
            }
            return CURL_PREREQFUNC_OK
        })
        set(ccurl_setopt_pointer(easy, CURLOPT_PREREQDATA, me))

        // Headers. libcurl invents some of its own; suppress the ones we do not want unless the
        // caller set them ("Name:" removes a header, "Name;" sends an empty one).
        var lines: [String] = request.headers.map { $0.value.isEmpty ? "\($0.name);" : "\($0.name): \($0.value)" }
        let names = Set(request.headers.map { $0.name.lowercased() })
        if !names.contains("expect") { lines.append("Expect:") }  // no 100-continue round trip
        if !names.contains("content-type") { lines.append("Content-Type:") }  // not form-encoded
        for line in lines { headerList = ccurl_slist_append(headerList, line) }
        if headerList == nil { failed = true }
        set(ccurl_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList))
        if !names.contains("user-agent") { set(ccurl_setopt_string(easy, CURLOPT_USERAGENT, "ofj")) }

        let method = request.method.uppercased()
        switch method {
        case "GET" where request.body.isEmpty:
            set(ccurl_setopt_long(easy, CURLOPT_HTTPGET, 1))
        case "HEAD":
            set(ccurl_setopt_long(easy, CURLOPT_NOBODY, 1))
        case _ where request.body.isEmpty && method != "POST":
            set(ccurl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method))
        case _ where request.sharedBody != nil:
            // Sent from the buffer itself (kept alive by this transfer): no second copy of a large body.
            let shared = request.sharedBody!
            sharedBody = shared
            set(ccurl_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(shared.count)))
            set(ccurl_setopt_pointer(easy, CURLOPT_POSTFIELDS, shared.storage))
            if method != "POST" { set(ccurl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method)) }
        default:
            set(ccurl_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)))
            // COPYPOSTFIELDS copies, so the bytes need not outlive this call.
            let body = request.body.isEmpty ? [0] : request.body
            body.withUnsafeBytes { raw in
                set(ccurl_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: raw.baseAddress)))
            }
            if method != "POST" { set(ccurl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method)) }
        }
        if failed { throw HTTPError.other("could not configure the HTTP transfer") }
    }

    /// An IPv4 or IPv6 literal as network-order bytes (4 or 16), or nil.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    // MARK: - Callbacks (loop thread)

    /// With a pinned address, the connected peer must be exactly it.
    private func peerAllowed(_ primaryIP: UnsafeMutablePointer<CChar>?) -> Bool {
        guard let pinnedPeer else { return true }
        guard let primaryIP, Self.addressBytes(String(cString: primaryIP)) == pinnedPeer else {
            peerMismatch = true
            return false
        }
        return true
    }

    private func connectionReady() {
        connectedAt = monotonicNanos()
    }

    private func receiveHeaderLine(_ raw: UnsafeRawBufferPointer) {
        if headDelivered { return }  // trailers after a chunked body: not part of the head
        var bytes = raw[...]
        while let last = bytes.last, last == 0x0A || last == 0x0D { bytes = bytes.dropLast() }
        if bytes.isEmpty {
            // End of a header block. 1xx responses are followed by the real one.
            if status >= 200 { deliverHead() }
            return
        }
        if bytes.starts(with: "HTTP/".utf8) {
            let parts = bytes.split(separator: 0x20, maxSplits: 2)
            status = parts.count > 1 ? Int(String(decoding: parts[1], as: UTF8.self)) ?? 0 : 0
            headers = []
            return
        }
        if let first = bytes.first, first == 0x20 || first == 0x09, !headers.isEmpty {
            // Obsolete line folding: continues the previous header's value.
            let more = String(decoding: bytes, as: UTF8.self).trimmingHTTPSpace()
            headers[headers.count - 1].value += " " + more
            return
        }
        guard let colon = bytes.firstIndex(of: 0x3A) else { return }
        let name = String(decoding: bytes[..<colon], as: UTF8.self).trimmingHTTPSpace()
        let value = String(decoding: bytes[(colon + 1)...], as: UTF8.self).trimmingHTTPSpace()
        headers.append(HTTPHeader(name, value))
    }

    private func deliverHead() {
        headDelivered = true
        lastActivity = monotonicNanos()
        headContinuation?.resume(returning: HTTPResponseHead(status: status, headers: headers))
        headContinuation = nil
    }

    /// Returns what libcurl's write callback returns: the byte count (taken), 0 (abort) or
    /// CURL_WRITEFUNC_PAUSE (the consumer is behind; libcurl delivers the same bytes again later).
    private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if cancelRequested.load(ordering: .acquiring) { return 0 }
        if !headDelivered { deliverHead() }
        lastActivity = monotonicNanos()
        if bytes.isEmpty { return 0 }
        sawBody = true
        // Announce first, then look: a consumer that drains in between sees the flag and asks
        // for a resume, so a pause can never be missed.
        mayBePaused.store(true, ordering: .sequentiallyConsistent)
        if buffered.load(ordering: .sequentiallyConsistent) >= Self.pauseAbove {
            paused = true
            return Int(ccurl_writefunc_pause())
        }
        mayBePaused.store(false, ordering: .sequentiallyConsistent)
        let held = buffered.add(bytes.count, ordering: .sequentiallyConsistent).newValue
        if let peak { peak.value.max(held, ordering: .relaxed) }
        if case .terminated = body.yield(Array(bytes)) { return 0 }
        return bytes.count
    }

    /// The consumer took `count` bytes (any thread).
    func consumed(_ count: Int) {
        let left = buffered.subtract(count, ordering: .sequentiallyConsistent).newValue
        if left < Self.resumeBelow && mayBePaused.load(ordering: .sequentiallyConsistent)
            && !resumeRequested.exchange(true, ordering: .sequentiallyConsistent) {
            loop.wakeup()
        }
    }

    /// Loop thread: lets a paused transfer go on when the consumer asked.
    func resumeIfAsked() {
        guard resumeRequested.exchange(false, ordering: .sequentiallyConsistent), paused, let easy else { return }
        paused = false
        mayBePaused.store(false, ordering: .sequentiallyConsistent)
        lastActivity = monotonicNanos()
        // May call the write callback at once with the held bytes (which may pause again).
        _ = ccurl_easy_pause(easy, ccurl_pause_cont())
    }

    // MARK: - Loop hooks

    /// Called when the loop adopts the transfer: nothing is timed before this.
    func started() {
        lastActivity = monotonicNanos()
    }

    /// The error our own deadlines produce by `now`, or the next instant one of them expires.
    func checkDeadlines(now: UInt64) -> (expired: HTTPError?, next: UInt64?) {
        if headDelivered {
            // Paused for our own consumer: the server is not silent, we are not listening.
            if paused { return (nil, nil) }
            guard let idleLimit else { return (nil, nil) }
            var deadline = lastActivity &+ idleLimit
            if !sawBody, let connectedAt, let firstByteLimit {
                // Servers send the head at once and then think: until the first body byte the
                // first-byte limit applies too, so the idle limit (often shorter) does not cut
                // the wait for the answer's start short.
                deadline = max(deadline, connectedAt &+ firstByteLimit)
                if now >= deadline { return (.firstByteTimeout, nil) }
            }
            return now >= deadline ? (.idleTimeout, nil) : (nil, deadline)
        }
        // Before the connection is ready, libcurl's own connect timeout applies.
        guard let connectedAt, let firstByteLimit else { return (nil, nil) }
        let deadline = connectedAt &+ firstByteLimit
        return now >= deadline ? (.firstByteTimeout, nil) : (nil, deadline)
    }

    /// Ends the transfer: the handle must already be removed from the multi handle.
    func finish(_ error: HTTPError?) {
        guard !finished else { return }
        finished = true
        if error == nil && !headDelivered {
            // A response with no header block terminator (should not happen over HTTP/1.1+).
            var code = 0
            if let easy { ccurl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code) }
            status = code
            deliverHead()
        }
        if let easy { ccurl_easy_cleanup(easy) }
        easy = nil
        if let headerList { ccurl_slist_free_all(headerList) }
        headerList = nil
        if let connectToList { ccurl_slist_free_all(connectToList) }
        connectToList = nil
        // Count the transfer as done before anyone waiting on it resumes.
        onFinish()
        if let error {
            headContinuation?.resume(throwing: error)
            headContinuation = nil
            body.finish(throwing: error)
        } else {
            body.finish()
        }
    }

    /// Safe from any thread; the loop notices within one wake-up.
    func requestCancel() {
        if cancelRequested.exchange(true, ordering: .acquiringAndReleasing) { return }
        loop.wakeup()
    }

    // MARK: - Errors

    /// Maps libcurl's result to the port's error, without request headers, bodies or URL query.
    func error(for code: CURLcode) -> HTTPError {
        if cancelRequested.load(ordering: .acquiring) { return .cancelled }
        let detail = sanitizedDetail(code)
        if peerMismatch { return .connectFailed("the connection did not go to the checked address") }
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return .invalidURL
        case CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT:
            return .connectFailed(detail)
        case CURLE_OPERATION_TIMEDOUT:
            // The only timeout we give libcurl is the connect timeout; ours are checked by the loop.
            if headDelivered { return sawBody ? .idleTimeout : .firstByteTimeout }
            return connectedAt == nil ? .connectTimeout : .firstByteTimeout
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
             CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE,
             CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
             CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED:
            return .tls(detail)
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE,
             CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_HTTP3, CURLE_QUIC_CONNECT_ERROR:
            return .connectionReset(detail)
        default:
            return .other("HTTP transfer failed (\(detail))")
        }
    }

    private func sanitizedDetail(_ code: CURLcode) -> String {
        var text = String(cString: errorBuffer)
        if text.isEmpty { text = String(cString: ccurl_easy_strerror(code)) }
        // libcurl's messages name hosts and OS errors, not headers; scrub anyway, defensively.
        for secret in secrets { text = text.replacingAll(secret, with: "[redacted]") }
        return text
    }
}

extension String {
    fileprivate func trimmingHTTPSpace() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return String(s)
    }

    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            out += rest[..<range.lowerBound]
            out += replacement
            rest = rest[range.upperBound...]
        }
        return out + rest
    }
}
