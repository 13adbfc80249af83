// The hostile-URL suite: every case is refused (or bounded) with a clear one-line message, and a
// loopback listener watching for it proves no refused fetch ever opened a connection.
import Foundation
import HTTP
import Research
import Testing

@Suite("fetch_url hostile URLs", .timeLimit(.minutes(1)))
struct HostileURLTests {
    /// URLs refused before any connection, with the product's address policy. `W` is the
    /// watcher's port. The fake resolver answers the `.test` names; no real DNS is asked.
    static let refused: [String] = [
        "http://127.0.0.1:W/",
        "http://2130706433:W/",
        "http://0x7f.1:W/",
        "http://017700000001:W/",
        "http://127.1:W/",
        "http://0x7f000001:W/",
        "http://0177.0.0.1:W/",
        "http://127.0.0.1.:W/",
        "http://0:W/",
        "http://0.0.0.0:W/",
        "http://[::1]:W/",
        "http://[::]:W/",
        "http://[::ffff:127.0.0.1]:W/",
        "http://[::ffff:7f00:1]:W/",
        "http://[::127.0.0.1]:W/",
        "http://[0:0:0:0:0:0:0:1]:W/",
        "http://[::1%25lo]:W/",
        "http://localhost:W/",
        "http://localhost.:W/",
        "http://LOCALHOST:W/",
        "http://api.localhost:W/",
        "http://localhost.localdomain:W/",
        "http://public@127.0.0.1:W/",
        "http://example.com@127.0.0.1:W/",
        "http://user:secret@example.com/",
        "http://example.com\\@127.0.0.1:W/",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/",
        "http://172.16.5.4/",
        "http://192.168.1.1/",
        "http://100.64.0.1/",
        "http://224.0.0.1/",
        "http://255.255.255.255/",
        "http://240.0.0.1/",
        "http://[fc00::1]/",
        "http://[fd12:3456::1]/",
        "http://[fe80::1]/",
        "http://[ff02::1]/",
        "http://[64:ff9b::7f00:1]/",
        "http://[64:ff9b::a9fe:a9fe]/",
        "http://[2002:7f00:1::]/",
        "http://[2002:a9fe:a9fe::1]/",
        "http://[2001:0::1]/",
        "http://[2001:db8::1]/",
        "file:///etc/passwd",
        "gopher://127.0.0.1:W/_GET",
        "ftp://example.com/",
        "javascript:alert(1)",
        "dict://127.0.0.1:W/",
        "http://münchen.example/",
        "http://%31%32%37.0.0.1:W/",
        "http://1.2.3.4.5/",
        "http://256.1.1.1/",
        "http://0x100000000/",
        "http://93.184.216.34:25/",
        "http://93.184.216.34:0/",
        "http://93.184.216.34:99999/",
        "http://internal.test:W/",
        "http://metadata.test/",
        "http://mixed.test/",
        "http://mixed6.test/",
        "http://cgnat.test/",
        "http://nowhere.test/",
        "http:///path",
        "",
        "not a url",
    ]

    static let resolver = FakeResolver([
        "internal.test": [[ip("127.0.0.1")]],
        "metadata.test": [[ip("169.254.169.254")]],
        // All answers are checked: one private answer among public ones refuses the fetch.
        "mixed.test": [[ip("93.184.216.34"), ip("10.1.2.3")]],
        "mixed6.test": [[ip("2606:2800:220:1::1"), ip("fd00::1")]],
        "cgnat.test": [[ip("100.100.100.100")]],
    ])

    @Test(arguments: refused)
    func refusedWithoutConnecting(_ template: String) async throws {
        let watcher = try ConnectionWatcher()
        defer { watcher.stop() }
        let url = template.replacingOccurrences(of: ":W/", with: ":\(watcher.port)/")
        let fetcher = URLFetcher(transport: CurlTransport(), resolver: Self.resolver, policy: PublicInternetPolicy(),
                                 limits: FetchLimits(totalSeconds: 5))
        do {
            let page = try await fetcher.fetch(url)
            Issue.record("fetched \(url): \(page.url)")
        } catch {
            let message = error.description
            switch error {
            case .refused, .failed: break
            default: Issue.record("\(url): unexpected \(error)")
            }
            #expect(!message.contains("\n"))
            #expect(message.hasPrefix("not fetched: ") || message.hasPrefix("fetch failed: could not find"), "\(url): \(message)")
            #expect(!message.contains("secret"))
        }
        #expect(watcher.connections == 0, "\(url) reached the loopback listener")
    }

    @Test func messagesSayWhy() async throws {
        let fetcher = URLFetcher(transport: CurlTransport(), resolver: Self.resolver, policy: PublicInternetPolicy())
        func message(_ url: String) async -> String {
            do { _ = try await fetcher.fetch(url); return "fetched" } catch { return error.description }
        }
        #expect(await message("http://0x7f.1/") == "not fetched: 127.0.0.1 is a loopback address; only public internet addresses are fetched")
        #expect(await message("http://169.254.169.254/").contains("cloud metadata"))
        #expect(await message("http://public@127.0.0.1/") == "not fetched: URLs with credentials (user@host) are not fetched")
        #expect(await message("file:///etc/passwd") == "not fetched: only http:// and https:// URLs are fetched, not file:")
        #expect(await message("http://mixed.test/") == "not fetched: mixed.test resolves to a private network address (10.1.2.3); only public internet addresses are fetched")
        #expect(await message("http://[2002:7f00:1::]/").contains("6to4 address embedding a loopback address"))
        #expect(await message("http://localhost./") == "not fetched: localhost is this computer; only public internet addresses are fetched")
        #expect(await message("http://münchen.example/").contains("punycode"))
        // The port, said once and as the URL's problem (issue 31 §7: it said the address "is port 25").
        #expect(await message("http://93.184.216.34:25/")
            == "not fetched: the URL's port 25 is one ofj does not fetch from (only 80, 443 and 1024-65535); use the page's address without it")
        #expect(await message("http://127.0.0.1:25/").contains("loopback"))
    }

    @Test func everyIPv4SpellingIsTheSameAddress() {
        for spelling in ["127.0.0.1", "2130706433", "0x7f.1", "017700000001", "127.1", "0x7f000001", "0177.0.0.1", "127.0.1", "0x7F.0.0.1", "127.0.0.1."] {
            #expect(IPAddress.looksLikeIPv4(spelling), "\(spelling)")
            #expect(IPAddress.parseIPv4(spelling) == .v4(0x7F00_0001), "\(spelling)")
        }
        #expect(IPAddress.parseIPv4("1.2.3.4.5") == nil)
        #expect(IPAddress.parseIPv4("08.1.1.1") == nil)  // 8 is not an octal digit
        #expect(!IPAddress.looksLikeIPv4("example.com"))
        #expect(!IPAddress.looksLikeIPv4("123.example"))
    }

    @Test func publicAddressesPass() {
        let policy = PublicInternetPolicy()
        for address in ["93.184.216.34", "8.8.8.8", "1.1.1.1", "2606:2800:220:1::1", "2a00:1450:4001:80b::200e", "64:ff9b::808:808", "2002:808:808::1"] {
            #expect(policy.refusal(for: ip(address), port: 443) == nil, "\(address)")
        }
        #expect(policy.refusal(for: ip("8.8.8.8"), port: 8080) == nil)
        #expect(policy.refusal(for: ip("8.8.8.8"), port: 22) != nil)
    }

    @Test func redirectTargetsResolveAgainstTheCurrentURL() throws {
        let base = try FetchTarget.parse("https://Example.COM./a/b?q=1#frag")
        #expect(base.url == "https://example.com/a/b?q=1")
        #expect(try base.resolving(location: "/c").url == "https://example.com/c")
        #expect(try base.resolving(location: "d?x").url == "https://example.com/a/d?x")
        #expect(try base.resolving(location: "//other.org:8443/e").url == "https://other.org:8443/e")
        #expect(try base.resolving(location: "http://2130706433/").host == .address(.v4(0x7F00_0001)))
        #expect(throws: FetchError.self) { try base.resolving(location: "file:///etc/passwd") }
        #expect(throws: FetchError.self) { try base.resolving(location: "gopher://example.com/") }
    }
}

@Suite("fetch_url URL parser invariants")
struct URLParserInvariantTests {
    /// Inputs the urlpolicy fuzz target found; each must rebuild to a URL that parses back to itself.
    @Test(arguments: [
        [104, 116, 116, 112, 58, 47, 47, 116, 112, 58, 47, 255, 255, 255, 255, 48, 48, 120, 178, 178, 100, 98, 35, 205, 133,
         100, 98, 55, 255, 255, 255, 255, 255, 47, 47, 91, 50, 48, 178, 178, 58, 100, 98, 47] as [UInt8],
    ])
    func rebuiltURLsParseBack(_ bytes: [UInt8]) throws {
        try check(bytes)
    }

    @Test func aURLThatGrowsPastTheLimitWhenEncodedIsRefused() throws {
        // Found by the fuzz target: 500 invalid bytes become 4,500 bytes of %EF%BF%BD.
        let bytes = Array("http://t/".utf8) + [UInt8](repeating: 0xFF, count: 500)
        #expect(throws: FetchError.refused("the URL is longer than 4096 characters")) {
            try FetchTarget.parse(String(decoding: bytes, as: UTF8.self))
        }
        try check(bytes)
    }

    func check(_ bytes: [UInt8]) throws {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let target = try? FetchTarget.parse(text) else { return }
        let again = try FetchTarget.parse(target.url)
        #expect(again == target, "\(target.url)")
    }
}
