// Hides credentials inside URLs before a line is shown (`ofj doctor` prints base URLs that people
// paste into bug reports): user:password@ and key/token/signature query values.
import Foundation

public enum URLCredentials {
    /// `text` with every URL's user information and credential-shaped query values replaced by
    /// `***`: `https://user:pass@host/p?key=abc&q=1` → `https://***@host/p?key=***&q=1`.
    public static func redact(_ text: String) -> String {
        guard text.contains("://") else { return text }
        var out = ""
        var rest = Substring(text)
        while let marker = rest.range(of: "://") {
            // The scheme is the letters just before "://".
            var schemeStart = marker.lowerBound
            while schemeStart > rest.startIndex {
                let before = rest.index(before: schemeStart)
                let c = rest[before]
                guard c.isASCII, c.isLetter || c.isNumber || c == "+" || c == "-" || c == "." else { break }
                schemeStart = before
            }
            out += rest[rest.startIndex..<schemeStart]
            // The URL runs to whitespace or a quote/bracket that cannot be part of it.
            var end = marker.upperBound
            while end < rest.endIndex, !rest[end].isWhitespace, !"\"'<>`".contains(rest[end]) { end = rest.index(after: end) }
            // Punctuation that ends a sentence or a list ("…/v1, fast deadlines") is not part of it.
            while end > marker.upperBound, ",.;:)]!".contains(rest[rest.index(before: end)]) { end = rest.index(before: end) }
            out += redactURL(String(rest[schemeStart..<end]))
            rest = rest[end...]
        }
        out += rest
        return out
    }

    /// One URL: user information and credential query values replaced.
    static func redactURL(_ url: String) -> String {
        guard let marker = url.range(of: "://") else { return url }
        let scheme = url[..<marker.upperBound]
        let afterScheme = url[marker.upperBound...]
        let authorityEnd = afterScheme.firstIndex(where: { "/?#".contains($0) }) ?? afterScheme.endIndex
        var authority = String(afterScheme[..<authorityEnd])
        if let at = authority.lastIndex(of: "@") {
            authority = "***" + authority[at...]
        }
        var tail = String(afterScheme[authorityEnd...])
        if let q = tail.firstIndex(of: "?") {
            let fragmentStart = tail[q...].firstIndex(of: "#") ?? tail.endIndex
            let query = tail[tail.index(after: q)..<fragmentStart]
            let redacted = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
                guard let eq = pair.firstIndex(of: "=") else { return String(pair) }
                let name = pair[..<eq]
                return isCredentialName(name) ? String(name) + "=***" : String(pair)
            }.joined(separator: "&")
            tail = String(tail[...q]) + redacted + tail[fragmentStart...]
        }
        return scheme + authority + tail
    }

    /// Query parameter names that carry secrets: key, api-key, api_key, token, access_token,
    /// sig, signature, password, secret, auth… (case-insensitive, by part of the name).
    static func isCredentialName(_ name: Substring) -> Bool {
        let n = name.lowercased()
        if n == "sig" || n == "code" { return true }
        return ["key", "token", "secret", "password", "passwd", "pwd", "signature", "auth", "credential", "session"]
            .contains { n.contains($0) }
    }
}
