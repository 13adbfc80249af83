// The redactor removes secrets, URLs, emails, amounts and content words, and keeps error vocabulary.
import Testing
@testable import OutputSafety

@Suite struct RedactorTests {
    @Test(arguments: [
        "sk-abcdefghijklmnop1234567890",
        "sk-proj-AbCdEf0123456789_AbCdEf0123456789-xyz",
        "sk-ant-api03-AbCdEf0123456789AbCdEf0123456789",
        "AIzaSyA1234567890abcdefghijklmnopqrstuv",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "ghp_0123456789abcdefghijABCDEFGHIJ0123",
        "0123456789abcdef0123456789abcdef01234567",
        "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0123456789==",
    ])
    func removesKeysAndTokens(secret: String) {
        let text = "request failed with key \(secret) please retry"
        let out = Redactor.redact(text)
        #expect(!out.contains(secret))
        #expect(!Redactor.scrub(text).contains(secret))
        #expect(out.contains("request failed"))
    }

    @Test func removesBearerTokensAndKeyValues() {
        let text = "Authorization: Bearer abc.def-ghi and x-goog-api-key=XYZ123secret token=shorty"
        let out = Redactor.scrub(text)
        #expect(!out.contains("abc.def-ghi"))
        #expect(!out.contains("XYZ123secret"))
        #expect(!out.contains("shorty"))
    }

    @Test func removesURLsAndEmails() {
        let out = Redactor.redact("could not fetch https://example.com/food?q=oats nor www.example.org; mail jane.doe@example.com")
        #expect(!out.contains("example"))
        #expect(!out.contains("jane"))
        #expect(out.contains("[url]"))
        #expect(out.contains("[email]"))
    }

    @Test(arguments: ["150g", "150 g", "2200 kcal", "12.5 mg", "12.5mg", "3 cups", "40%", "1,5 kg", "(30g)", "value=25mg"])
    func removesAmounts(amount: String) {
        let out = Redactor.redact("invalid value \(amount) for field")
        let digits = amount.filter(\.isNumber)
        #expect(!out.contains(digits), "\(out)")
        #expect(out.contains("invalid value"))
    }

    @Test func removesQuotedValuesAndUnknownWords() {
        let out = Redactor.redact("Invalid value for 'Blueberry Oatmeal': expected integer, got Grandma's pancakes")
        #expect(!out.contains("Blueberry"))
        #expect(!out.contains("Oatmeal"))
        #expect(!out.contains("pancakes"))
        #expect(!out.contains("Grandma"))
        #expect(out.hasPrefix("Invalid value for [quoted]"))
        #expect(out.contains("expected integer"))
    }

    @Test func keepsTechnicalErrors() {
        #expect(Redactor.redact("rate limit exceeded, please retry after 20 seconds") == "rate limit exceeded, please retry after 20 seconds")
        #expect(Redactor.redact("HTTP 503 Service Unavailable") == "HTTP 503 Service Unavailable")
        #expect(Redactor.redact("SQLITE_BUSY: database is locked") == "SQLITE_BUSY: database is locked")
        #expect(Redactor.redact("timed out waiting for the first event") == "timed out waiting for the first event")
    }

    @Test func boundsLength() {
        let long = String(repeating: "error ", count: 500)
        #expect(Redactor.redact(long).count <= Redactor.maxLength + 1)
    }

    @Test func collapsesRunsOfUnknownWords() {
        #expect(Redactor.redact("error: banana bread walnuts failed") == "error: … failed")
        #expect(Redactor.redact("error: banana with walnuts failed") == "error: … with … failed")
    }
}

@Suite struct RedactorSpeedTests {
    /// The recorder redacts on the caller's thread: a long error must stay cheap even in debug builds.
    @Test func longMessagesAreFast() {
        let message = String(repeating: "connection reset by the server with sk-proj-abcdefghijklmnopqrstuv at https://x.example/a 150g ", count: 10)
        let clock = ContinuousClock()
        let elapsed = clock.measure { for _ in 0..<50 { _ = Redactor.redact(message) } }
        #expect(elapsed < .seconds(10), "50 redactions took \(elapsed)")  // generous: debug build on a shared 2-core machine
    }
}
