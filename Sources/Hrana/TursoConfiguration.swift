// Where a Turso (libSQL) database lives: its URL normalised to HTTP(S) and its token.
import Foundation

// MARK: - Configuration

/// Where the sink lives. Built from TURSO_DATABASE_URL and TURSO_AUTH_TOKEN, passed in by the
/// caller (the library never reads the environment).
public struct TursoConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP(S) base URL, without a trailing slash.
    public let baseURL: String
    let authToken: String?

    /// nil when no URL is set (diagnostics stay local). Throws for a URL that cannot work.
    public static func from(databaseURL: String?, authToken: String?) throws -> TursoConfiguration? {
        guard let raw = databaseURL?.trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty else { return nil }
        return try TursoConfiguration(databaseURL: raw, authToken: authToken)
    }

    public init(databaseURL: String, authToken: String?) throws {
        var url = databaseURL.trimmingCharacters(in: .whitespacesAndNewlines)
        let lower = url.lowercased()
        if lower.hasPrefix("libsql://") {
            url = "https://" + url.dropFirst("libsql://".count)
        } else if !(lower.hasPrefix("https://") || lower.hasPrefix("http://")) {
            throw HranaError.invalidURL
        }
        while url.hasSuffix("/") { url.removeLast() }
        guard let schemeEnd = url.range(of: "://"), url[schemeEnd.upperBound...].count > 0,
              !url.contains(where: { $0.isWhitespace }) else { throw HranaError.invalidURL }
        baseURL = url
        let token = authToken?.trimmingCharacters(in: .whitespacesAndNewlines)
        self.authToken = (token?.isEmpty ?? true) ? nil : token
    }

    public var hasToken: Bool { authToken != nil }

    /// Never shows the token.
    public var description: String { "Turso(\(baseURL), token: \(hasToken ? "set" : "none"))" }
}
