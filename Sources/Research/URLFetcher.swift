// fetch_url's engine: a URL the model chose, fetched so that it cannot be turned against the
// person's own network, and bounded in size, time and kind of content.
import Agent
import HTTP
import Synchronization

/// Why a fetch did not produce a page. Every message is one line and names at most the host,
/// never the path or query (they may carry tokens).
public enum FetchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not attempted, or stopped, because the rules forbid it (address, scheme, redirect, type).
    case refused(String)
    /// The network or the server failed.
    case failed(String)
    case timedOut(Double)
    case cancelled

    public var description: String {
        switch self {
        case .refused(let m): return "not fetched: \(m)"
        case .failed(let m): return "fetch failed: \(m)"
        case .timedOut(let s): return "fetch failed: no complete answer within \(Self.seconds(s)) s"
        case .cancelled: return "fetch cancelled"
        }
    }

    private static func seconds(_ s: Double) -> String {
        s == s.rounded() ? String(Int(s)) : String(s)
    }
}

/// What kind of document a page is, from its Content-Type.
public enum FetchedKind: String, Sendable, Hashable {
    case html, text, json, xml, pdf
}

public struct FetchedPage: Sendable, Hashable {
    /// The URL finally fetched (after redirects), without fragment.
    public var url: String
    public var status: Int
    public var kind: FetchedKind
    /// The Content-Type media type (lowercase, no parameters).
    public var mediaType: String
    public var title: String
    /// Readable text (HTML reduced), at most the text budget.
    public var text: String
    /// True when the body was cut at the byte cap or the text at the budget.
    public var truncated: Bool
    /// Decoded body bytes read (at most the byte cap).
    public var bytesRead: Int
    /// Redirects followed.
    public var redirects: Int
    /// A PDF's bytes, whole and checked (sniffed as PDF, ends with %%EOF); empty for other kinds.
    public var document: [UInt8] = []
}

/// Limits of one fetch. The defaults are the product's (SPEC: URL fetch 15 s).
public struct FetchLimits: Sendable, Hashable {
    /// Decoded body bytes read at most; the rest is never downloaded.
    public var maxBytes: Int
    /// Whole fetch, lookups and redirects included.
    public var totalSeconds: Double
    public var maxRedirects: Int
    /// Characters of text handed back.
    public var textBudget: Int
    public init(maxBytes: Int = 2 << 20, totalSeconds: Double = 15, maxRedirects: Int = 5, textBudget: Int = 40_000) {
        self.maxBytes = maxBytes
        self.totalSeconds = totalSeconds
        self.maxRedirects = maxRedirects
        self.textBudget = textBudget
    }
}

/// Fetches one URL:
/// - http and https only, no credentials in the URL, every IPv4 spelling read as an address;
/// - a name is resolved once, every answer must pass the `AddressPolicy` (one private answer
///   refuses the fetch), and the connection is pinned to the first checked answer (libcurl
///   CONNECT_TO, and the connected peer is verified), so a second, different DNS answer
///   (rebinding) is never used;
/// - redirects (at most `maxRedirects`) are followed by hand, each target checked the same way;
/// - proxy environment variables are ignored (a proxy would do its own DNS lookup, out of reach
///   of these checks); no cookies are sent or kept;
/// - Content-Type must be HTML, plain text, JSON, XML or PDF; a PDF (also one sent as
///   application/octet-stream) must be one by its bytes and whole within the cap;
/// - at most `maxBytes` decoded bytes are read (compressed responses are counted after decoding,
///   so a decompression bomb stops at the cap) within `totalSeconds`.
public struct URLFetcher: Sendable {
    let transport: any HTTPTransport
    let resolver: any HostResolver
    let policy: any AddressPolicy
    public let limits: FetchLimits

    /// The product's fetcher: the system resolver and only public internet addresses.
    public init(limits: FetchLimits = FetchLimits()) {
        self.init(transport: CurlTransport(), resolver: SystemResolver(), policy: PublicInternetPolicy(), limits: limits)
    }

    /// A fetcher with its dependencies supplied (the tests' loopback servers need a resolver and
    /// policy that admit them; nothing in the product constructs one).
    public init(transport: any HTTPTransport, resolver: any HostResolver, policy: any AddressPolicy, limits: FetchLimits = FetchLimits()) {
        self.transport = transport
        self.resolver = resolver
        self.policy = policy
        self.limits = limits
    }

    public func fetch(_ url: String) async throws(FetchError) -> FetchedPage {
        let limit = limits.totalSeconds
        final class Outcome: Sendable {
            let value = Mutex<Result<FetchedPage, FetchError>?>(nil)
        }
        let outcome = Outcome()
        // Race the fetch against the total deadline; the loser is cancelled (which aborts the transfer).
        let fetcher = self
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                let result: Result<FetchedPage, FetchError>
                do throws(FetchError) {
                    result = .success(try await fetcher.fetchFollowingRedirects(url))
                } catch {
                    result = .failure(error)
                }
                outcome.value.withLock { if $0 == nil { $0 = result } }
            }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(limit * 1_000_000_000))
                if !Task.isCancelled { outcome.value.withLock { if $0 == nil { $0 = .failure(.timedOut(limit)) } } }
            }
            await group.next()
            group.cancelAll()
        }
        guard let result = outcome.value.withLock({ $0 }) else { throw .cancelled }
        if Task.isCancelled, case .failure = result { throw .cancelled }
        return try result.get()
    }

    private func fetchFollowingRedirects(_ url: String) async throws(FetchError) -> FetchedPage {
        var target = try FetchTarget.parse(url)
        var visited: Set<String> = []
        var redirects = 0
        var redirectedFrom: String?
        while true {
            visited.insert(target.url)
            let outcome: Attempt
            do throws(FetchError) {
                outcome = try await attempt(target)
            } catch {
                if case .refused(let why) = error, let from = redirectedFrom {
                    throw .refused("a redirect from \(from) was refused: \(why)")
                }
                throw error
            }
            switch outcome {
            case .redirect(let status, let location):
                guard let location, !location.isEmpty else {
                    throw .failed("\(target.hostDescription) answered HTTP \(status) without a Location")
                }
                redirects += 1
                guard redirects <= limits.maxRedirects else {
                    throw .refused("more than \(limits.maxRedirects) redirects (last from \(target.hostDescription))")
                }
                let next: FetchTarget
                do throws(FetchError) {
                    next = try target.resolving(location: location)
                } catch {
                    if case .refused(let why) = error { throw .refused("a redirect from \(target.hostDescription) was refused: \(why)") }
                    throw error
                }
                guard !visited.contains(next.url) else {
                    throw .refused("\(target.hostDescription) redirects in a loop")
                }
                redirectedFrom = target.hostDescription
                target = next
            case .body(let status, let mediaType, let charset, let kind, let body, let cut):
                return page(status: status, mediaType: mediaType, charset: charset, kind: kind, body: body, cut: cut,
                            target: target, redirects: redirects)
            }
        }
    }

    private enum Attempt {
        case redirect(status: Int, location: String?)
        case body(status: Int, mediaType: String, charset: String?, kind: FetchedKind, body: [UInt8], cut: Bool)
    }

    /// One request to a checked, pinned address. The response is released when this returns, which
    /// aborts whatever the server still wanted to send past the cap.
    private func attempt(_ target: FetchTarget) async throws(FetchError) -> Attempt {
        let address = try await checkedAddress(for: target)
        var request = HTTPRequest(method: "GET", url: target.url, headers: [
            HTTPHeader("Accept", "text/html, application/xhtml+xml, text/plain, application/json, application/xml;q=0.9, application/pdf;q=0.5, */*;q=0.1"),
            HTTPHeader("User-Agent", "ofj (nutrition journal; fetch_url)"),
        ], timeouts: HTTPTimeouts(connect: 10, firstByte: 12, idle: 10))
        request.pinnedAddress = address.description
        request.decodeContent = true
        let response: HTTPStreamingResponse
        do {
            response = try await transport.send(request)
        } catch let error as HTTPError {
            throw Self.map(error, host: target.hostDescription)
        } catch {
            throw .failed("\(target.hostDescription): \(error)")
        }
        let status = response.head.status
        if [301, 302, 303, 307, 308].contains(status) {
            return .redirect(status: status, location: response.head.header("Location"))
        }
        guard (200..<300).contains(status) else {
            throw .failed("\(target.hostDescription) answered HTTP \(status)")
        }
        guard let contentType = response.head.header("Content-Type"), !contentType.trimmingSpaces().isEmpty else {
            throw .refused("\(target.hostDescription) did not say what the content is (no Content-Type)")
        }
        let (mediaType, charset) = Self.parseContentType(contentType)
        let refusedType = FetchError.refused("\(target.hostDescription) sent \(mediaType.prefix(60)), not a web page, text, JSON, XML or PDF")
        // application/octet-stream is read only to see whether its bytes are a PDF.
        guard let kind = Self.kind(of: mediaType) ?? (mediaType == "application/octet-stream" ? .pdf : nil) else { throw refusedType }
        var body: [UInt8] = []
        var cut = false
        do {
            for try await chunk in response.body {
                let room = limits.maxBytes - body.count
                if chunk.count > room {
                    body.append(contentsOf: chunk.prefix(room))
                    cut = true
                    break
                }
                body.append(contentsOf: chunk)
            }
        } catch let error as HTTPError {
            if Task.isCancelled { throw .cancelled }
            throw Self.map(error, host: target.hostDescription)
        } catch {
            throw .failed("\(target.hostDescription): \(error)")
        }
        if Task.isCancelled { throw .cancelled }
        if kind == .pdf {
            guard AttachmentFormat.sniff(body) == .pdf else {
                if mediaType == "application/octet-stream" { throw refusedType }
                throw .refused("\(target.hostDescription) said it sent a PDF, but the bytes are not one")
            }
            if cut {
                throw .refused("\(target.hostDescription) sent a PDF larger than \(AttachmentRef.sizeText(limits.maxBytes)); fetch_url reads PDFs up to that size")
            }
            guard (try? AttachmentFile.check(body)) == .pdf else {
                throw .refused("\(target.hostDescription) sent an incomplete PDF (no end-of-file marker)")
            }
        }
        return .body(status: status, mediaType: mediaType, charset: charset, kind: kind, body: body, cut: cut)
    }

    /// The address to connect to for `target`, after every check; throws the refusal.
    private func checkedAddress(for target: FetchTarget) async throws(FetchError) -> IPAddress {
        let addresses: [IPAddress]
        switch target.host {
        case .address(let a):
            addresses = [a]
        case .name(let name):
            addresses = try await resolver.resolve(name)
            guard !addresses.isEmpty else { throw .failed("the host \(name) has no address") }
        }
        // A port ofj does not fetch from is the URL's problem, not the address's: said once, as such.
        if PublicInternetPolicy.portRefusal(target.port) != nil, policy.refusal(for: addresses[0], port: target.port) != nil,
           policy.refusal(for: addresses[0], port: 443) == nil {
            throw .refused("the URL's port \(target.port) is one ofj does not fetch from (only 80, 443 and 1024-65535); use the page's address without it")
        }
        for address in addresses {
            if let why = policy.refusal(for: address, port: target.port) {
                if case .name(let name) = target.host {
                    throw .refused("\(name) resolves to \(why) (\(address)); only public internet addresses are fetched")
                }
                throw .refused("\(address) is \(why); only public internet addresses are fetched")
            }
        }
        guard let first = addresses.first else { throw .failed("no address") }
        return first
    }

    private func page(status: Int, mediaType: String, charset: String?, kind: FetchedKind, body: [UInt8], cut: Bool,
                      target: FetchTarget, redirects: Int) -> FetchedPage {
        let title: String
        var text: String
        var truncated = cut
        switch kind {
        case .pdf:
            title = ""
            text = "PDF, \(body.count) bytes"
        case .html:
            let reduced = HTMLReducer.reduce(Self.utf8(body, charset: charset), budget: limits.textBudget)
            title = reduced.title
            text = reduced.text
            truncated = truncated || reduced.truncated
        case .text, .json, .xml:
            title = ""
            text = String(decoding: Self.utf8(body, charset: charset), as: UTF8.self)
            if text.count > limits.textBudget {
                text = String(text.prefix(limits.textBudget))
                truncated = true
            }
        }
        return FetchedPage(url: target.url, status: status, kind: kind, mediaType: kind == .pdf ? "application/pdf" : mediaType, title: title,
                           text: text, truncated: truncated, bytesRead: body.count, redirects: redirects,
                           document: kind == .pdf ? body : [])
    }

    static func parseContentType(_ value: String) -> (mediaType: String, charset: String?) {
        let parts = value.split(separator: ";")
        let media = (parts.first.map { $0.trimmingSpaces() } ?? "").lowercased()
        var charset: String?
        for p in parts.dropFirst() {
            let kv = p.split(separator: "=", maxSplits: 1)
            if kv.count == 2, kv[0].trimmingSpaces().lowercased() == "charset" {
                charset = kv[1].trimmingSpaces().lowercased().trimmingCharacters("\"'")
            }
        }
        return (media, charset)
    }

    static func kind(of mediaType: String) -> FetchedKind? {
        switch mediaType {
        case "text/html", "application/xhtml+xml": return .html
        case "text/plain", "text/markdown", "text/csv": return .text
        case "application/json", "text/json": return .json
        case "application/xml", "text/xml": return .xml
        case "application/pdf": return .pdf
        default:
            if mediaType.hasPrefix("application/"), mediaType.hasSuffix("+json") { return .json }
            if mediaType.hasPrefix("application/"), mediaType.hasSuffix("+xml") { return .xml }
            return nil
        }
    }

    /// The body as UTF-8: Latin-1 and Windows-1252 are converted; anything else is read as UTF-8
    /// (invalid sequences become U+FFFD when the text is made).
    static func utf8(_ body: [UInt8], charset: String?) -> [UInt8] {
        guard let charset, ["iso-8859-1", "latin1", "latin-1", "windows-1252", "cp1252", "us-ascii", "ascii"].contains(charset),
              body.contains(where: { $0 >= 0x80 }) else { return body }
        var out: [UInt8] = []
        out.reserveCapacity(body.count + body.count / 8)
        for b in body {
            if b < 0x80 { out.append(b) } else { out.append(contentsOf: String(Character(Unicode.Scalar(b))).utf8) }
        }
        return out
    }

    static func map(_ error: HTTPError, host: String) -> FetchError {
        switch error {
        case .cancelled: return .cancelled
        case .invalidURL: return .refused("libcurl would not take the URL for \(host)")
        case .connectTimeout: return .failed("timed out connecting to \(host)")
        case .firstByteTimeout: return .failed("\(host) did not answer in time")
        case .idleTimeout: return .failed("\(host) stopped sending")
        case .connectFailed(let m): return .failed("could not connect to \(host) (\(m))")
        case .connectionReset(let m): return .failed("the connection to \(host) was lost (\(m))")
        case .tls(let m): return .failed("TLS error with \(host) (\(m))")
        case .other(let m): return .failed("\(host): \(m)")
        }
    }
}

extension String {
    fileprivate func trimmingCharacters(_ set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}
