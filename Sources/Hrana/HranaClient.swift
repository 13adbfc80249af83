// The Hrana client: pipelines over /v3 with /v2 fallback, /v3/cursor for large reads, transactions.
import Base
import Foundation
import HTTP
import Synchronization

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

    /// The network reason of an answer larger than `responseLimit` (sync shrinks its page on it).
    public static let answerTooLarge = "the answer was too large"

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
            return detail.hasPrefix("response larger than") ? answerTooLarge : "the request failed"
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
