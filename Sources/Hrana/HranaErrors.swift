// Hrana failures classified for retry decisions, and their one-line messages for each database
// that uses the client (each names its own settings).
import OutputSafety

// MARK: - Errors

/// Pipeline failures, classified for retry decisions. Descriptions never include the token,
/// the URL or request content.
public enum HranaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// HTTP 400 and similar: the request was malformed. A client bug; retrying will not help.
    case protocolError(status: Int, message: String)
    /// HTTP 401/403: bad or missing token.
    case unauthorized(status: Int)
    /// HTTP 404: wrong database URL.
    case notFound
    /// HTTP 429 (and 408): slow down.
    case rateLimited(retryAfter: Double?)
    /// HTTP 5xx: the server failed; retry with backoff.
    case server(status: Int)
    /// The connection failed or timed out.
    case network(String)
    /// The server answered 200 with something that is not a Hrana response.
    case invalidResponse(String)
    /// A request or step failed inside an HTTP 200 answer.
    case statement(HranaServerError)
    case invalidURL

    public var isRetryable: Bool {
        switch self {
        case .rateLimited, .server, .network, .invalidResponse: return true
        case .protocolError, .unauthorized, .notFound, .statement, .invalidURL: return false
        }
    }

    /// True when the user must fix configuration (token, URL) before anything can succeed.
    public var isConfigurationProblem: Bool {
        switch self {
        case .unauthorized, .notFound, .invalidURL: return true
        default: return false
        }
    }

    /// The error for no database in particular; each user of the client says which one it is
    /// (`describe(_:)` with its own `HranaService`), naming its own settings.
    public var description: String { describe(HranaService.database) }

    /// The error in words for one use of a database (diagnostics sink or journal sync).
    public func describe(_ service: HranaService) -> String {
        let db = service.name
        switch self {
        case .protocolError(let status, let message):
            return "the \(db) rejected the request (HTTP \(status): \(Redactor.scrub(message))); this is a bug in ofj, please report it"
        case .unauthorized(let status):
            return "the \(db) refused the token (HTTP \(status)); check \(service.tokenVariable)"
        case .notFound:
            return "the \(db) was not found (HTTP 404); check \(service.urlVariable)"
        case .rateLimited:
            return "the \(db) is rate limiting (HTTP 429); \(service.retryPhrase)"
        case .server(let status):
            return "the \(db) failed (HTTP \(status)); \(service.retryPhrase)"
        case .network(let message):
            return "could not reach the \(db) (\(Redactor.scrub(message))); \(service.retryPhrase)"
        case .invalidResponse(let why):
            return "the \(db) sent an unreadable answer (\(why)); \(service.retryPhrase)"
        case .statement(let e):
            return "the \(db) reported an error (\(Redactor.scrub(e.description)))"
        case .invalidURL:
            return "\(service.urlVariable) must start with libsql, https or http; fix it and try again"
        }
    }
}

/// Which database a Hrana error is about, for its message.
public struct HranaService: Sendable, Hashable {
    public var name: String
    public var urlVariable: String
    public var tokenVariable: String
    public var retryPhrase: String
    public init(name: String, urlVariable: String, tokenVariable: String, retryPhrase: String) {
        self.name = name
        self.urlVariable = urlVariable
        self.tokenVariable = tokenVariable
        self.retryPhrase = retryPhrase
    }
    /// A database named by no setting (the plain `description`).
    public static let database = HranaService(name: "database", urlVariable: "the database URL", tokenVariable: "the auth token",
                                              retryPhrase: "try again later")
}
