// libFuzzer target: fetch_url's URL parser and address classifier (Sources/Research). The input
// is a URL; whatever it parses to, (1) an IP literal host must get the same answer from the
// policy however it is spelled (the canonical URL re-parses to the same target), (2) a parsed
// URL must rebuild to http(s) with no userinfo, whitespace or backslash, and (3) nothing crashes.
import Research

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURLPolicy(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let policy = PublicInternetPolicy()
    guard let target = try? FetchTarget.parse(text) else { return 0 }
    let url = target.url
    precondition(url.hasPrefix("http://") || url.hasPrefix("https://"), "rebuilt URL has another scheme")
    let authority = url.dropFirst(url.hasPrefix("https") ? 8 : 7).prefix { $0 != "/" }
    precondition(!authority.contains("@"), "userinfo survived")
    precondition(!url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x5C || $0 >= 0x7F }), "unsafe byte in the rebuilt URL")
    guard let again = try? FetchTarget.parse(url), again == target else {
        preconditionFailure("the rebuilt URL does not parse to the same target")
    }
    if case .address(let address) = target.host {
        let verdict = policy.refusal(for: address, port: target.port)
        if case .address(let same) = again.host { precondition(policy.refusal(for: same, port: target.port) == verdict) }
        // Every spelling of a loopback or private IPv4 address is refused.
        if case .v4(let v) = address, v >> 24 == 127 || v >> 24 == 10 || v >> 24 == 0 {
            precondition(verdict != nil, "a loopback/private/unspecified address passed")
        }
    }
    return 0
}
