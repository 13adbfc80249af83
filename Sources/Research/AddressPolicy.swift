// Which network addresses fetch_url may connect to: IP literals parsed the way browsers and
// libcurl parse them (every IPv4 spelling), and the ranges that are never the public internet.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address.
public enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    case v4(UInt32)
    /// 16 bytes, network order.
    case v6([UInt8])

    /// Dotted quad or RFC 5952 text (what libcurl's CONNECT_TO and `inet_pton` take).
    public var description: String {
        switch self {
        case .v4(let value):
            return "\(value >> 24).\((value >> 16) & 0xFF).\((value >> 8) & 0xFF).\(value & 0xFF)"
        case .v6(let bytes):
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { raw in
                for (i, byte) in bytes.prefix(16).enumerated() { raw[i] = byte }
            }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return "::" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// Parses an IPv6 literal (no brackets, no zone). nil when it is not one.
    public static func parseIPv6(_ text: String) -> IPAddress? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 == 0x3A || $0 == 0x2E || isHex($0) }) else { return nil }
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        return .v6(withUnsafeBytes(of: &address) { Array($0) })
    }

    /// Whether `host` is written as a number the way the WHATWG URL standard (and libcurl) would
    /// read as IPv4: its last dot-separated part is decimal digits or `0x` hex. Such a host is an
    /// address, never a name to look up.
    public static func looksLikeIPv4(_ host: String) -> Bool {
        var parts = host.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count > 1, parts.last?.isEmpty == true { parts.removeLast() }
        guard let last = parts.last, !last.isEmpty else { return false }
        if last.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return true }
        let lower = last.lowercased()
        return lower.hasPrefix("0x") && lower.utf8.dropFirst(2).allSatisfy(isHex)
    }

    /// Parses every IPv4 spelling: `127.0.0.1`, `2130706433`, `0x7f.1`, `017700000001`, `127.1`.
    /// nil when the host looks numeric but is not a valid address (refuse those, never resolve).
    public static func parseIPv4(_ host: String) -> IPAddress? {
        var parts = host.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count > 1, parts.last?.isEmpty == true { parts.removeLast() }
        guard (1...4).contains(parts.count) else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            guard let n = parseIPv4Number(part) else { return nil }
            numbers.append(n)
        }
        for n in numbers.dropLast() where n > 255 { return nil }
        guard let lastNumber = numbers.last else { return nil }
        let lastLimit: UInt64 = 1 << (8 * UInt64(5 - numbers.count))
        guard lastNumber < lastLimit else { return nil }
        var value = lastNumber
        for (i, n) in numbers.dropLast().enumerated() { value += n << (8 * UInt64(3 - i)) }
        return .v4(UInt32(truncatingIfNeeded: value))
    }

    private static func parseIPv4Number(_ part: Substring) -> UInt64? {
        guard !part.isEmpty, part.utf8.count <= 40 else { return nil }
        var digits = Substring(part.lowercased())
        var radix: UInt64 = 10
        if digits.hasPrefix("0x") {
            radix = 16
            digits = digits.dropFirst(2)
            if digits.isEmpty { return 0 }
        } else if digits.count > 1, digits.hasPrefix("0") {
            radix = 8
            digits = digits.dropFirst()
        }
        var value: UInt64 = 0
        for c in digits.utf8 {
            let d: UInt64
            switch c {
            case 0x30...0x39: d = UInt64(c - 0x30)
            case 0x61...0x66: d = UInt64(c - 0x61 + 10)
            default: return nil
            }
            guard d < radix else { return nil }
            value = value * radix + d
            if value > UInt64(UInt32.max) { return nil }
        }
        return value
    }

    private static func isHex(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46)
    }
}

/// Decides whether fetch_url may open a connection to an address and port. The product uses
/// `PublicInternetPolicy`; the test target supplies a policy that also admits its own loopback
/// servers. There is no switch for that in the product: no setting, argument or environment
/// variable reaches this choice.
public protocol AddressPolicy: Sendable {
    /// nil when the connection may be made; otherwise why not, as a short phrase
    /// ("a loopback address").
    func refusal(for address: IPAddress, port: Int) -> String?
}

/// Only the public internet: every special-purpose range refused, and ports 80, 443 or 1024-65535.
/// Well-known ports other than 80/443 (SMTP on 25, …) are refused so a page cannot aim requests at
/// other protocols; high ports are allowed because only public addresses are ever reached.
public struct PublicInternetPolicy: AddressPolicy {
    public init() {}

    public func refusal(for address: IPAddress, port: Int) -> String? {
        if let reason = Self.nonPublicReason(address) { return reason }
        return Self.portRefusal(port)
    }

    public static func portRefusal(_ port: Int) -> String? {
        if port == 80 || port == 443 || (1024...65535).contains(port) { return nil }
        return "port \(port) (only 80, 443 and 1024-65535 are fetched)"
    }

    /// Why `address` is not a public internet address, or nil when it is one.
    public static func nonPublicReason(_ address: IPAddress) -> String? {
        switch address {
        case .v4(let v): return v4Reason(v)
        case .v6(let b): return v6Reason(b)
        }
    }

    private static func v4Reason(_ v: UInt32) -> String? {
        func within(_ base: UInt32, _ bits: UInt32) -> Bool {
            let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << (32 - bits)
            return v & mask == base & mask
        }
        if v == 0xFFFF_FFFF { return "the broadcast address" }
        if within(0x0000_0000, 8) { return "an unspecified (0.0.0.0/8) address" }
        if within(0x7F00_0000, 8) { return "a loopback address" }
        if within(0x0A00_0000, 8) || within(0xAC10_0000, 12) || within(0xC0A8_0000, 16) { return "a private network address" }
        if within(0x6440_0000, 10) { return "a carrier-grade NAT (100.64.0.0/10) address" }
        if within(0xA9FE_0000, 16) { return "a link-local address (this includes cloud metadata at 169.254.169.254)" }
        if within(0xE000_0000, 4) { return "a multicast address" }
        if within(0xF000_0000, 4) { return "a reserved (240.0.0.0/4) address" }
        if within(0xC000_0000, 24) { return "an IETF protocol (192.0.0.0/24) address" }
        if within(0xC000_0200, 24) || within(0xC633_6400, 24) || within(0xCB00_7100, 24) { return "a documentation address" }
        if within(0xC612_0000, 15) { return "a benchmarking (198.18.0.0/15) address" }
        if within(0xC058_6300, 24) { return "a 6to4 relay (192.88.99.0/24) address" }
        return nil
    }

    private static func v6Reason(_ b: [UInt8]) -> String? {
        guard b.count == 16 else { return "a malformed IPv6 address" }
        func embeddedV4(at i: Int) -> UInt32 {
            UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
        }
        if b.allSatisfy({ $0 == 0 }) { return "the unspecified address (::)" }
        if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return "a loopback address" }
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF { return "an IPv4-mapped IPv6 address" }
        if b[0..<12].allSatisfy({ $0 == 0 }) { return "an IPv4-compatible IPv6 address" }
        if b[0] == 0xFF { return "a multicast address" }
        if b[0] & 0xFE == 0xFC { return "a unique-local (fc00::/7) address" }
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return "a link-local address" }
        if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { return "a site-local address" }
        // NAT64 (64:ff9b::/96): the IPv4 address inside decides; the local-use prefix never public.
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B {
            if b[4..<12].allSatisfy({ $0 == 0 }) {
                return v4Reason(embeddedV4(at: 12)).map { "a NAT64 address embedding \($0)" }
            }
            if b[4] == 0 && b[5] == 1 { return "a local-use NAT64 (64:ff9b:1::/48) address" }
        }
        if b[0] == 0x01 && b[1] == 0x00 && b[2..<8].allSatisfy({ $0 == 0 }) { return "a discard-only (100::/64) address" }
        // Only global unicast (2000::/3) beyond this point.
        if b[0] & 0xE0 != 0x20 { return "a reserved IPv6 address" }
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8 { return "a documentation address" }
        if b[0] == 0x3F && b[1] == 0xFF && b[2] & 0xF0 == 0 { return "a documentation address" }
        // 2001::/23: IETF protocol assignments, Teredo (2001::/32) among them, which hides an IPv4 address.
        if b[0] == 0x20 && b[1] == 0x01 && b[2] < 0x02 { return "an IETF protocol (2001::/23) address such as Teredo" }
        // 6to4 (2002::/16): the IPv4 address in bytes 2-5 decides.
        if b[0] == 0x20 && b[1] == 0x02 {
            return v4Reason(embeddedV4(at: 2)).map { "a 6to4 address embedding \($0)" }
        }
        return nil
    }
}
