// Unit tests for CurlTransfer's pure helpers: URL host extraction and the loopback proxy bypass.
@testable import HTTP
import Testing

@Suite("CurlTransfer helpers")
struct CurlTransferUnitTests {
    @Test(arguments: [
        ("http://127.0.0.1:8080/v1", "127.0.0.1"),
        ("https://user:pw@API.OpenAI.com/v1/responses?x=1", "api.openai.com"),
        ("http://[::1]:11434/api", "::1"),
        ("http://localhost", "localhost"),
        ("https://example.com?q=a/b", "example.com"),
        ("no-scheme", ""),
    ])
    func hostIsExtracted(url: String, host: String) {
        #expect(CurlTransfer.host(of: url) == host)
    }

    @Test func onlyRealLoopbackHostsBypassTheProxy() {
        for host in ["localhost", "ollama.localhost", "::1", "127.0.0.1", "127.1.2.3"] {
            #expect(CurlTransfer.isLoopback(host: host), "\(host)")
        }
        for host in ["127.evil.com", "127.0.0.1.nip.io", "api.openai.com", "10.0.0.1", "", "localhost.example.com", "127.0.0.256"] {
            #expect(!CurlTransfer.isLoopback(host: host), "\(host)")
        }
    }
}
