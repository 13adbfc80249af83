// A URL fetch_url is willing to try, parsed strictly: http or https, no credentials, an ASCII host
// that is either an IP literal (in any IPv4 spelling) or a plain DNS name, a numeric port.

/// The parsed, normalised form of a URL fetch_url may request. `url` is rebuilt from the parts
/// (canonical host, explicit path), so libcurl sees exactly the host that was checked.
public struct FetchTarget: Sendable, Hashable {
    public enum Host: Sendable, Hashable {
        case address(IPAddress)
        /// A DNS name: lowercase, without a trailing dot.
        case name(String)
    }

    public var scheme: String
    public var host: Host
    public var port: Int
    /// Path and query, starting with "/"; the fragment is dropped.
    public var pathAndQuery: String

    /// The URL to send.
    public var url: String {
        let hostText: String
        switch host {
        case .address(.v6(let b)): hostText = "[\(IPAddress.v6(b))]"
        case .address(let a): hostText = a.description
        case .name(let n): hostText = n
        }
        let defaultPort = scheme == "https" ? 443 : 80
        return "\(scheme)://\(hostText)\(port == defaultPort ? "" : ":\(port)")\(pathAndQuery)"
    }

    /// The host for messages (never the path or query, which may carry tokens).
    public var hostDescription: String {
        switch host {
        case .address(let a): return a.description
        case .name(let n): return n
        }
    }

    /// Parses `text`, or throws a `FetchError.refused` saying what is wrong with it.
    public static func parse(_ text: String) throws(FetchError) -> FetchTarget {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 4096 else { throw .refused("the URL is empty or longer than 4096 characters") }
        guard let schemeEnd = text.firstRange(of: "://") else {
            throw .refused("only http:// and https:// URLs are fetched")
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw .refused("only http:// and https:// URLs are fetched, not \(scheme.prefix(20)):")
        }
        let rest = text[schemeEnd.upperBound...]
        if rest.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == 0x5C }) {
            throw .refused("the URL contains spaces, control characters or backslashes")
        }
        // Split on Unicode scalars, not Characters: "#" followed by a combining mark is still "#".
        let authorityEnd = rest.unicodeScalars.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var tail = rest[authorityEnd...]
        if let hash = tail.unicodeScalars.firstIndex(of: "#") { tail = tail[..<hash] }
        if authority.unicodeScalars.contains("@") { throw .refused("URLs with credentials (user@host) are not fetched") }
        if authority.utf8.contains(where: { $0 >= 0x80 }) {
            throw .refused("internationalised host names are not fetched; use the punycode (xn--) form of the name")
        }
        if authority.contains("%") { throw .refused("percent-encoded host names are not fetched") }

        var hostPart: Substring
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.unicodeScalars.firstIndex(of: "]") else { throw .refused("the URL's IPv6 address is not closed with ]") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .refused("the URL's host is malformed") }
                portPart = after.dropFirst()
            }
        } else {
            if let colon = authority.unicodeScalars.firstIndex(of: ":") {
                hostPart = authority[..<colon]
                portPart = authority[authority.index(after: colon)...]
            } else {
                hostPart = authority
            }
        }
        var port = scheme == "https" ? 443 : 80
        if let portPart, !portPart.isEmpty {
            guard portPart.count <= 5, portPart.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let p = Int(portPart), (1...65535).contains(p) else {
                throw .refused("the URL's port is not a number from 1 to 65535")
            }
            port = p
        }
        guard !hostPart.isEmpty else { throw .refused("the URL has no host") }

        let host: Host
        if authority.hasPrefix("[") {
            guard let address = IPAddress.parseIPv6(String(hostPart)) else { throw .refused("the URL's IPv6 address is not valid") }
            host = .address(address)
        } else if IPAddress.looksLikeIPv4(String(hostPart)) {
            guard let address = IPAddress.parseIPv4(String(hostPart)) else {
                throw .refused("the URL's host looks like an IPv4 address but is not a valid one")
            }
            host = .address(address)
        } else {
            var name = hostPart.lowercased()
            if name.hasSuffix(".") { name.removeLast() }
            let labels = name.split(separator: ".", omittingEmptySubsequences: false)
            guard name.utf8.count <= 253,
                  labels.allSatisfy({ label in
                      !label.isEmpty && label.utf8.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                          && label.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x5F }
                  }) else {
                throw .refused("the URL's host name is not valid")
            }
            if name == "localhost" || name.hasSuffix(".localhost") || name == "localhost.localdomain" {
                throw .refused("\(name) is this computer; only public internet addresses are fetched")
            }
            host = .name(name)
        }
        var path = String(tail)
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        path = percentEncodeNonASCII(path)
        let target = FetchTarget(scheme: scheme, host: host, port: port, pathAndQuery: path)
        // Checked again after percent-encoding, so the URL sent always parses back to itself.
        guard target.url.utf8.count <= 4096 else { throw .refused("the URL is longer than 4096 characters") }
        return target
    }

    /// Resolves a redirect's Location against this URL (absolute, scheme-relative, absolute-path
    /// or relative), then parses it with the same rules.
    public func resolving(location: String) throws(FetchError) -> FetchTarget {
        let trimmed = location.trimmingSpaces()
        if let colon = trimmed.firstIndex(of: ":"),
           trimmed[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." }),
           !trimmed[..<colon].isEmpty {
            return try Self.parse(trimmed)
        }
        let origin = url.prefix(url.count - pathAndQuery.count)
        if trimmed.hasPrefix("//") { return try Self.parse("\(scheme):\(trimmed)") }
        if trimmed.hasPrefix("/") { return try Self.parse(origin + trimmed) }
        let pathOnly = pathAndQuery.prefix { $0 != "?" }
        let directory = pathOnly[...(pathOnly.lastIndex(of: "/") ?? pathOnly.startIndex)]
        return try Self.parse(origin + directory + trimmed)
    }

    private static func percentEncodeNonASCII(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 >= 0x80 }) else { return text }
        var out = ""
        for byte in text.utf8 {
            if byte >= 0x80 {
                let hex = Array("0123456789ABCDEF")
                out.append("%")
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            } else {
                out.append(Character(Unicode.Scalar(byte)))
            }
        }
        return out
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" || c == "\r" || c == "\n" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" || c == "\n" { s = s.dropLast() }
        return String(s)
    }
}
