// Hrana over HTTP (Turso's SQL-over-HTTP): value encoding, pipeline requests, batches, errors.
import Base
import Foundation
import HTTP
import Synchronization

// MARK: - Values and statements

/// A SQL value as Hrana encodes it: integers as strings, finite floats, base64 blobs.
public enum HranaValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case float(Double)
    case text(String)
    case blob([UInt8])

    public var json: JSONValue {
        switch self {
        case .null: return ["type": "null"]
        case .integer(let v): return ["type": "integer", "value": .string(String(v))]
        // Non-finite floats have no JSON form; SQLite stores them as NULL anyway.
        case .float(let v): return v.isFinite ? ["type": "float", "value": .number(v)] : ["type": "null"]
        case .text(let s): return ["type": "text", "value": .string(s)]
        case .blob(let b): return ["type": "blob", "base64": .string(Data(b).base64EncodedString())]
        }
    }

    /// Decodes a value; tolerant where servers differ (integers as numbers, unpadded base64).
    public init(json: JSONValue) throws {
        guard let type = json["type"]?.stringValue else { throw HranaError.invalidResponse("value without a type") }
        switch type {
        case "null": self = .null
        case "integer":
            if let s = json["value"]?.stringValue, let v = Int64(s) { self = .integer(v) }
            else if let d = json["value"]?.doubleValue, d.rounded() == d, abs(d) < 9.2e18 { self = .integer(Int64(d)) }
            else { throw HranaError.invalidResponse("bad integer value") }
        case "float":
            if let d = json["value"]?.doubleValue { self = .float(d) }
            else if let s = json["value"]?.stringValue, let d = Double(s) { self = .float(d) }
            else { throw HranaError.invalidResponse("bad float value") }
        case "text":
            guard let s = json["value"]?.stringValue else { throw HranaError.invalidResponse("bad text value") }
            self = .text(s)
        case "blob":
            guard let s = json["base64"]?.stringValue, let data = HranaValue.decodeBase64(s) else {
                throw HranaError.invalidResponse("bad blob value")
            }
            self = .blob(Array(data))
        default: throw HranaError.invalidResponse("unknown value type")
        }
    }

    /// Standard or URL-safe base64, padded or not (servers send it unpadded).
    static func decodeBase64(_ s: String) -> Data? {
        var t = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let remainder = t.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { t += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: t)
    }

    public var text: String? { if case .text(let s) = self { return s } else { return nil } }
    public var integer: Int64? {
        switch self {
        case .integer(let v): return v
        case .float(let d) where d.rounded() == d && abs(d) < 9.2e18: return Int64(d)
        default: return nil
        }
    }
    public var double: Double? {
        switch self {
        case .integer(let v): return Double(v)
        case .float(let d): return d
        default: return nil
        }
    }
}

public struct HranaStatement: Sendable, Hashable {
    public var sql: String
    public var args: [HranaValue]
    public var wantRows: Bool
    public init(_ sql: String, _ args: [HranaValue] = [], wantRows: Bool = true) {
        self.sql = sql
        self.args = args
        self.wantRows = wantRows
    }
    var json: JSONValue {
        ["sql": .string(sql), "args": .array(args.map(\.json)), "want_rows": .bool(wantRows)]
    }
}

public struct HranaStatementResult: Sendable, Hashable {
    public var columns: [String]
    public var rows: [[HranaValue]]
    public var affectedRowCount: Int
    public var lastInsertRowID: Int64?

    init(json: JSONValue) throws {
        guard json.objectValue != nil else { throw HranaError.invalidResponse("statement result is not an object") }
        columns = (json["cols"]?.arrayValue ?? []).map { $0["name"]?.stringValue ?? "" }
        rows = try (json["rows"]?.arrayValue ?? []).map { row in
            guard let values = row.arrayValue else { throw HranaError.invalidResponse("row is not an array") }
            return try values.map(HranaValue.init(json:))
        }
        affectedRowCount = json["affected_row_count"]?.intValue ?? 0
        lastInsertRowID = json["last_insert_rowid"]?.stringValue.flatMap { Int64($0) }
    }
}

/// An error the server reported for one request or batch step (inside an HTTP 200).
public struct HranaServerError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var code: String?
    init(json: JSONValue?) {
        message = json?["message"]?.stringValue ?? "unknown error"
        code = json?["code"]?.stringValue
    }
    public init(message: String, code: String?) {
        self.message = message
        self.code = code
    }
    public var description: String { code.map { "\($0): \(message)" } ?? message }
}

// MARK: - Batches

public indirect enum HranaCondition: Sendable, Hashable {
    case ok(Int), error(Int), not(HranaCondition), and([HranaCondition]), or([HranaCondition]), isAutocommit
    var json: JSONValue {
        switch self {
        case .ok(let i): return ["type": "ok", "step": .number(Double(i))]
        case .error(let i): return ["type": "error", "step": .number(Double(i))]
        case .not(let c): return ["type": "not", "cond": c.json]
        case .and(let cs): return ["type": "and", "conds": .array(cs.map(\.json))]
        case .or(let cs): return ["type": "or", "conds": .array(cs.map(\.json))]
        case .isAutocommit: return ["type": "is_autocommit"]
        }
    }
}

public struct HranaBatchStep: Sendable, Hashable {
    public var condition: HranaCondition?
    public var statement: HranaStatement
    public init(_ statement: HranaStatement, condition: HranaCondition? = nil) {
        self.statement = statement
        self.condition = condition
    }
}

public struct HranaBatchResult: Sendable, Hashable {
    /// One entry per step; nil when the step failed or was skipped.
    public var stepResults: [HranaStatementResult?]
    /// One entry per step; nil when the step succeeded or was skipped.
    public var stepErrors: [HranaServerError?]
}

// MARK: - Requests

public enum HranaRequest: Sendable, Hashable {
    case execute(HranaStatement)
    case batch([HranaBatchStep])
    case sequence(String)
    case close

    var json: JSONValue {
        switch self {
        case .execute(let s): return ["type": "execute", "stmt": s.json]
        case .batch(let steps):
            return ["type": "batch", "batch": ["steps": .array(steps.map { step in
                var o: [String: JSONValue] = ["stmt": step.statement.json]
                if let c = step.condition { o["condition"] = c.json }
                return .object(o)
            })]]
        case .sequence(let sql): return ["type": "sequence", "sql": .string(sql)]
        case .close: return ["type": "close"]
        }
    }
}

public enum HranaResponse: Sendable, Hashable {
    case execute(HranaStatementResult)
    case batch(HranaBatchResult)
    case other
}

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

    public var description: String { describe(HranaService.diagnostics) }

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
    public static let diagnostics = HranaService(name: "diagnostics database", urlVariable: "TURSO_DATABASE_URL",
                                                 tokenVariable: "TURSO_AUTH_TOKEN", retryPhrase: "delivery will retry later")
}

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

// MARK: - Client

/// Which Hrana version a server speaks, learnt from the first request and shared by every
/// client of the same base URL in the process.
final class HranaVersionMemo: Sendable {
    static let shared = HranaVersionMemo()
    private let versions = Mutex<[String: Int]>([:])
    func version(for base: String) -> Int? { versions.withLock { $0[base] } }
    func set(_ version: Int, for base: String) { versions.withLock { $0[base] = version } }
}

/// A stateless Hrana client: every call is one `POST /v3/pipeline` (or `/v2/pipeline` when the
/// server has no Hrana 3) with a null baton, ending with `close`, so no stream state outlives a
/// call. Large reads use `POST /v3/cursor` (a pipeline batch on a Hrana 2 server).
public struct HranaClient: Sendable {
    public let configuration: TursoConfiguration
    let transport: HTTPTransport
    public var timeouts: HTTPTimeouts
    /// Largest response accepted (sqld's own limit is 10 MB).
    public var responseLimit = 10 << 20
    /// The longest one request may take in all, seconds. The idle timeout alone let a server that
    /// sends a byte every few seconds hold a flush (and `ofj diag flush`) for as long as it liked.
    public var totalTimeout: Double = 30
    /// Forces one protocol version (tests); nil negotiates: Hrana 3 first, Hrana 2 after a 404/405.
    public var forcedVersion: Int?
    let memo = HranaVersionMemo.shared

    public init(configuration: TursoConfiguration, transport: HTTPTransport,
                timeouts: HTTPTimeouts = HTTPTimeouts(connect: 5, firstByte: 10, idle: 10)) {
        self.configuration = configuration
        self.transport = transport
        self.timeouts = timeouts
    }

    /// The Hrana version used for the next request (3 until a server has shown it lacks it).
    public var negotiatedVersion: Int { forcedVersion ?? memo.version(for: configuration.baseURL) ?? 3 }

    /// Encodes a pipeline body (exposed for tests).
    public static func pipelineBody(_ requests: [HranaRequest]) -> [UInt8] {
        let body: JSONValue = ["baton": nil, "requests": .array(requests.map(\.json) + [HranaRequest.close.json])]
        return Array(body.serialized.utf8)
    }

    /// Sends the requests (plus a closing `close`) and returns one outcome per request.
    public func pipeline(_ requests: [HranaRequest]) async throws -> [Result<HranaResponse, HranaServerError>] {
        let body = Self.pipelineBody(requests)
        let version = negotiatedVersion
        var (status, retryAfter, answer) = try await post(path: "/v\(version)/pipeline", body: body)
        if version == 3, forcedVersion == nil, status == 404 || status == 405 {
            // A server without Hrana 3 (older sqld, some proxies): use Hrana 2 from now on.
            (status, retryAfter, answer) = try await post(path: "/v2/pipeline", body: body)
            if status != 404 && status != 405 { memo.set(2, for: configuration.baseURL) }
        } else if version == 3, status == 200 {
            memo.set(3, for: configuration.baseURL)
        }
        try Self.check(status: status, body: answer, retryAfter: retryAfter)
        return try Self.decodePipeline(answer, expected: requests.count + 1).prefix(requests.count).map { $0 }
    }

    /// Runs a batch through `/v3/cursor`, which streams rows as JSON lines instead of building one
    /// large JSON answer; on a Hrana 2 server it is an ordinary pipeline batch. A cut-off answer
    /// (no `step_end` for a step that began, a broken line) is an error, never a short result.
    public func cursor(_ steps: [HranaBatchStep]) async throws -> HranaBatchResult {
        if negotiatedVersion == 2 { return try await batch(steps) }
        var stepsJSON: [JSONValue] = []
        for step in steps {
            var o: [String: JSONValue] = ["stmt": step.statement.json]
            if let c = step.condition { o["condition"] = c.json }
            stepsJSON.append(.object(o))
        }
        let request: JSONValue = ["baton": nil, "batch": ["steps": .array(stepsJSON)]]
        let (status, retryAfter, answer) = try await post(path: "/v3/cursor", body: Array(request.serialized.utf8))
        if forcedVersion == nil, status == 404 || status == 405 {
            memo.set(2, for: configuration.baseURL)
            return try await batch(steps)
        }
        try Self.check(status: status, body: answer, retryAfter: retryAfter)
        return try Self.decodeCursor(answer, steps: steps.count)
    }

    /// Parses a `/v3/cursor` answer: a header line, then step_begin / row / step_end / step_error lines.
    static func decodeCursor(_ body: [UInt8], steps: Int) throws -> HranaBatchResult {
        var results = [HranaStatementResult?](repeating: nil, count: steps)
        var errors = [HranaServerError?](repeating: nil, count: steps)
        guard body.last == UInt8(ascii: "\n") else { throw HranaError.invalidResponse("the cursor answer was cut off") }
        let lines = body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
        guard let header = lines.first, (try? JSONValue.parse(bytes: Array(header)))?.objectValue != nil else {
            throw HranaError.invalidResponse("the cursor answer has no header")
        }
        var open: (step: Int, columns: [String], rows: [[HranaValue]])?
        for line in lines.dropFirst() {
            let json: JSONValue
            do { json = try JSONValue.parse(bytes: Array(line)) } catch { throw HranaError.invalidResponse("not JSON") }
            switch json["type"]?.stringValue {
            case "step_begin":
                guard open == nil, let step = json["step"]?.intValue, (0..<steps).contains(step) else {
                    throw HranaError.invalidResponse("bad cursor step")
                }
                open = (step, (json["cols"]?.arrayValue ?? []).map { $0["name"]?.stringValue ?? "" }, [])
            case "row":
                guard open != nil, let values = json["row"]?.arrayValue else { throw HranaError.invalidResponse("row outside a step") }
                open?.rows.append(try values.map(HranaValue.init(json:)))
            case "step_end":
                guard let current = open else { throw HranaError.invalidResponse("step end outside a step") }
                var result = try HranaStatementResult(json: ["cols": [], "rows": [],
                                                             "affected_row_count": json["affected_row_count"] ?? .number(0)])
                result.columns = current.columns
                result.rows = current.rows
                results[current.step] = result
                open = nil
            case "step_error":
                guard let step = json["step"]?.intValue, (0..<steps).contains(step) else { throw HranaError.invalidResponse("bad cursor step") }
                errors[step] = HranaServerError(json: json["error"])
                open = nil
            case "error":
                throw HranaError.statement(HranaServerError(json: json["error"]))
            default:
                throw HranaError.invalidResponse("unknown cursor entry")
            }
        }
        if open != nil { throw HranaError.invalidResponse("the cursor answer was cut off") }
        return HranaBatchResult(stepResults: results, stepErrors: errors)
    }

    /// One POST with the auth header, the deadline and transport errors mapped to `HranaError`.
    func post(path: String, body: [UInt8]) async throws -> (Int, String?, [UInt8]) {
        var headers = [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Accept", "application/json")]
        if let token = configuration.authToken { headers.append(HTTPHeader("Authorization", "Bearer \(token)")) }
        let request = HTTPRequest(method: "POST", url: configuration.baseURL + path, headers: headers, body: body, timeouts: timeouts)
        do {
            let transport = self.transport
            let limit = responseLimit
            return try await Self.withDeadline(totalTimeout) {
                let response = try await transport.send(request)
                return (response.head.status, response.head.header("Retry-After"), try await response.collect(limit: limit))
            }
        } catch let error as HTTPError {
            if error == .invalidURL { throw HranaError.invalidURL }
            throw HranaError.network(Self.networkReason(error))
        } catch is DeadlineExceeded {
            throw HranaError.network("the response did not finish in time")
        } catch is CancellationError {
            throw HranaError.network("cancelled")
        } catch {
            throw HranaError.network(String(describing: type(of: error)))
        }
    }

    struct DeadlineExceeded: Error {}

    /// Runs `work`, cancelling it after `seconds` (0 or less: no deadline).
    static func withDeadline<T: Sendable>(_ seconds: Double, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        guard seconds > 0 else { return try await work() }
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw DeadlineExceeded() }
            return value
        }
    }

    /// A fixed phrase per transport failure. libcurl's own text ("Failed to connect to 127.0.0.1
    /// port 8080 after 0 ms: Couldn't connect to server") is not shown: after redaction it read
    /// as half a sentence with "…" holes, and it names the host and port.
    static func networkReason(_ error: HTTPError) -> String {
        switch error {
        case .connectFailed(let detail):
            return detail.lowercased().contains("resolve") ? "could not resolve the host" : "could not connect"
        case .connectTimeout, .firstByteTimeout, .idleTimeout, .cancelled, .invalidURL: return error.description
        case .connectionReset: return "the connection was lost"
        case .tls: return "TLS error"
        case .other(let detail):
            return detail.hasPrefix("response larger than") ? "the answer was too large" : "the request failed"
        }
    }

    /// Maps a non-200 status to its error class.
    static func check(status: Int, body: [UInt8], retryAfter: String?) throws {
        switch status {
        case 200: return
        case 401, 403: throw HranaError.unauthorized(status: status)
        case 404: throw HranaError.notFound
        case 408, 429: throw HranaError.rateLimited(retryAfter: retryAfter.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) })
        case 400..<500:
            // Bodies may be text, JSON or HTML: keep a short, scrubbed first line only.
            let text = String(decoding: body.prefix(200), as: UTF8.self)
            let firstLine = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            let message = (try? JSONValue.parse(text))?["message"]?.stringValue ?? firstLine
            throw HranaError.protocolError(status: status, message: String(message.prefix(120)))
        default: throw HranaError.server(status: status)
        }
    }

    /// Parses `{"results": [...]}` into per-request outcomes.
    static func decodePipeline(_ body: [UInt8], expected: Int) throws -> [Result<HranaResponse, HranaServerError>] {
        let json: JSONValue
        do { json = try JSONValue.parse(bytes: body) } catch { throw HranaError.invalidResponse("not JSON") }
        guard let results = json["results"]?.arrayValue else { throw HranaError.invalidResponse("no results") }
        guard results.count == expected else { throw HranaError.invalidResponse("expected \(expected) results, received \(results.count)") }
        return try results.map { result in
            switch result["type"]?.stringValue {
            case "ok":
                let response = result["response"]
                switch response?["type"]?.stringValue {
                case "execute":
                    return .success(.execute(try HranaStatementResult(json: response?["result"] ?? .null)))
                case "batch":
                    return .success(.batch(try decodeBatch(response?["result"] ?? .null)))
                default:
                    return .success(.other)
                }
            case "error":
                return .failure(HranaServerError(json: result["error"]))
            default:
                throw HranaError.invalidResponse("unknown result type")
            }
        }
    }

    static func decodeBatch(_ json: JSONValue) throws -> HranaBatchResult {
        guard let results = json["step_results"]?.arrayValue, let errors = json["step_errors"]?.arrayValue,
              results.count == errors.count else { throw HranaError.invalidResponse("bad batch result") }
        return HranaBatchResult(
            stepResults: try results.map { $0.isNull ? nil : try HranaStatementResult(json: $0) },
            stepErrors: errors.map { $0.isNull ? nil : HranaServerError(json: $0) })
    }

    // MARK: Conveniences

    /// Runs one statement.
    public func execute(_ statement: HranaStatement) async throws -> HranaStatementResult {
        let outcomes = try await pipeline([.execute(statement)])
        switch outcomes.first {
        case .success(.execute(let r)): return r
        case .failure(let e): throw HranaError.statement(e)
        default: throw HranaError.invalidResponse("unexpected response type")
        }
    }

    /// Runs a batch as is.
    public func batch(_ steps: [HranaBatchStep]) async throws -> HranaBatchResult {
        let outcomes = try await pipeline([.batch(steps)])
        switch outcomes.first {
        case .success(.batch(let r)):
            guard r.stepResults.count == steps.count else { throw HranaError.invalidResponse("batch result length") }
            return r
        case .failure(let e): throw HranaError.statement(e)
        default: throw HranaError.invalidResponse("unexpected response type")
        }
    }

    /// The guarded transaction batch: `BEGIN IMMEDIATE`, each statement guarded by `ok(previous)`,
    /// `COMMIT` guarded by `ok(last)`, `ROLLBACK` guarded by `not ok(COMMIT)`.
    public static func transactionSteps(_ statements: [HranaStatement]) -> [HranaBatchStep] {
        var steps = [HranaBatchStep(HranaStatement("BEGIN IMMEDIATE", wantRows: false))]
        for s in statements { steps.append(HranaBatchStep(s, condition: .ok(steps.count - 1))) }
        let commit = steps.count
        steps.append(HranaBatchStep(HranaStatement("COMMIT", wantRows: false), condition: .ok(commit - 1)))
        steps.append(HranaBatchStep(HranaStatement("ROLLBACK", wantRows: false), condition: .not(.ok(commit))))
        return steps
    }

    /// Runs statements atomically; returns their results or throws the first step error.
    public func transaction(_ statements: [HranaStatement]) async throws -> [HranaStatementResult] {
        let result = try await batch(Self.transactionSteps(statements))
        let commitIndex = statements.count + 1
        guard result.stepResults[commitIndex] != nil else {
            let failure = result.stepErrors.compactMap { $0 }.first
                ?? HranaServerError(message: "transaction did not commit", code: nil)
            throw HranaError.statement(failure)
        }
        return try statements.indices.map { i in
            guard let r = result.stepResults[i + 1] else { throw HranaError.invalidResponse("missing step result") }
            return r
        }
    }
}
