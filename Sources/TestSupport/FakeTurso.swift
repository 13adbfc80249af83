// An in-memory Turso stand-in: an HTTPTransport that answers Hrana pipelines by running them on SQLite
// (the Hrana client's tests, the diagnostics sink's and its flusher's).
import Base
import Foundation
import HTTP
import Hrana
import SQLiteKit

/// Executes `/v2/pipeline` requests on an in-memory SQLite database, with switchable faults.
/// Strict like sqld: integers must be JSON strings (a number is HTTP 400).
public final class FakeTurso: HTTPTransport, @unchecked Sendable {
    public enum Mode: Sendable, Equatable {
        case normal
        /// The connection fails (with this transport message).
        case down(String)
        /// Answers with this HTTP status and body.
        case status(Int, String)
        /// Waits this long before answering (cancellable).
        case slow(Double)
        /// 200 with a body that is not Hrana.
        case garbage
        /// Runs the request (so it commits), then answers with this HTTP status: the
        /// acknowledgement is lost, as with a proxy failing after the database answered.
        case commitThenFail(Int)
    }

    public struct Sent: Sendable {
        public var url: String
        public var headers: [HTTPHeader]
        public var body: String
    }

    private let lock = NSLock()
    public let db: DatabaseQueue
    private var _mode: Mode = .normal
    private var _sent: [Sent] = []
    public let token: String?
    /// Called with each request body before it runs (under no lock), e.g. to simulate a
    /// concurrent client changing the schema.
    public var beforeRequest: (@Sendable (String, DatabaseQueue) -> Void)?
    /// Answers every page as if it were the first (a sink that ignores the keyset cursor).
    public var ignoresCursor: Bool {
        get { lock.withLock { _ignoresCursor } }
        set { lock.withLock { _ignoresCursor = newValue } }
    }
    private var _ignoresCursor = false

    public init(token: String? = nil) throws {
        db = try DatabaseQueue.inMemory()
        self.token = token
    }

    public var mode: Mode {
        get { lock.withLock { _mode } }
        set { lock.withLock { _mode = newValue } }
    }
    public var sent: [Sent] { lock.withLock { _sent } }

    public func rows(_ sql: String) throws -> [Row] { try db.read { try $0.rows(sql) } }

    // MARK: - HTTPTransport

    public func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        let body = String(decoding: request.body, as: UTF8.self)
        let mode = lock.withLock { () -> Mode in
            _sent.append(Sent(url: request.url, headers: request.headers, body: body))
            return _mode
        }
        switch mode {
        case .normal: break
        case .down(let message): throw HTTPError.connectFailed(message)
        case .status(let code, let text): return Self.response(code, text)
        case .slow(let seconds):
            try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
        case .garbage: return Self.response(200, "<html>502 Bad Gateway</html>")
        case .commitThenFail: break
        }
        guard request.url.hasSuffix("/v2/pipeline") || request.url.hasSuffix("/v3/pipeline") else {
            return Self.response(404, "Not found")
        }
        if let token, request.headers.first(where: { $0.name.lowercased() == "authorization" })?.value != "Bearer \(token)" {
            return Self.response(401, "Unauthorized")
        }
        beforeRequest?(body, db)
        do {
            let json = try JSONValue.parse(body)
            guard let requests = json["requests"]?.arrayValue else { return Self.response(400, "no requests") }
            // Each request runs as sqld runs it: statements commit on their own, batches open their own transaction.
            let results = try db.unrestricted { db in try requests.map { try self.handle($0, db) } }
            if case .commitThenFail(let status) = mode { return Self.response(status, "Internal Server Error") }
            let answer: JSONValue = ["baton": nil, "base_url": nil, "results": .array(results)]
            return Self.response(200, answer.serialized)
        } catch let e as ProtocolFailure {
            return Self.response(400, e.message)
        } catch {
            return Self.response(400, "invalid JSON")
        }
    }

    public static func response(_ status: Int, _ text: String) -> HTTPStreamingResponse {
        let bytes = Array(text.utf8)
        let stream = AsyncThrowingStream<[UInt8], Error> { continuation in
            continuation.yield(bytes)
            continuation.finish()
        }
        return HTTPStreamingResponse(head: HTTPResponseHead(status: status, headers: [HTTPHeader("Retry-After", "7")]), body: stream)
    }

    // MARK: - Hrana

    struct ProtocolFailure: Error { let message: String }
    struct StepFailure: Error { let message: String; let code: String }

    private func handle(_ request: JSONValue, _ db: Database) throws -> JSONValue {
        do {
            switch request["type"]?.stringValue {
            case "execute":
                return ["type": "ok", "response": ["type": "execute", "result": try execute(request["stmt"] ?? .null, db)]]
            case "batch":
                return ["type": "ok", "response": ["type": "batch", "result": try batch(request["batch"] ?? .null, db)]]
            case "close":
                return ["type": "ok", "response": ["type": "close"]]
            default:
                throw ProtocolFailure(message: "unknown request")
            }
        } catch let e as StepFailure {
            return ["type": "error", "error": ["message": .string(e.message), "code": .string(e.code)]]
        }
    }

    private func value(_ json: JSONValue) throws -> DatabaseValue {
        switch json["type"]?.stringValue {
        case "null": return .null
        case "integer":
            guard let s = json["value"]?.stringValue, let v = Int64(s) else { throw ProtocolFailure(message: "integer must be a string") }
            return .integer(v)
        case "float":
            guard let d = json["value"]?.doubleValue else { throw ProtocolFailure(message: "bad float") }
            return .real(d)
        case "text":
            guard let s = json["value"]?.stringValue else { throw ProtocolFailure(message: "bad text") }
            return .text(s)
        case "blob":
            guard let s = json["base64"]?.stringValue, let d = HranaValue.decodeBase64(s) else { throw ProtocolFailure(message: "bad blob") }
            return .blob(Array(d))
        default: throw ProtocolFailure(message: "bad value")
        }
    }

    private func encode(_ v: DatabaseValue) -> JSONValue {
        switch v {
        case .null: return ["type": "null"]
        case .integer(let i): return ["type": "integer", "value": .string(String(i))]
        case .real(let d): return ["type": "float", "value": .number(d)]
        case .text(let s): return ["type": "text", "value": .string(s)]
        // Unpadded, like sqld.
        case .blob(let b):
            var s = Data(b).base64EncodedString()
            while s.hasSuffix("=") { s.removeLast() }
            return ["type": "blob", "base64": .string(s)]
        }
    }

    private func execute(_ stmt: JSONValue, _ db: Database) throws -> JSONValue {
        guard var sql = stmt["sql"]?.stringValue else { throw ProtocolFailure(message: "no sql") }
        if ignoresCursor { sql = sql.replacingOccurrences(of: "(occurred_at, id) > (?, ?)", with: "((occurred_at, id) > (?, ?) OR 1)") }
        let args = try (stmt["args"]?.arrayValue ?? []).map(value)
        do {
            let statement = try db.prepare(sql)
            try statement.bind(args)
            var rows: [JSONValue] = []
            while try statement.step() {
                rows.append(.array((0..<statement.columnCount).map { encode(statement.value(at: $0)) }))
            }
            let cols = (0..<statement.columnCount).map { JSONValue.object(["name": .string(statement.columnName($0)), "decltype": nil]) }
            let isWrite = ["INSERT", "UPDATE", "DELETE"].contains(sql.split(separator: " ").first.map { $0.uppercased() } ?? "")
            return ["cols": .array(cols), "rows": .array(rows), "affected_row_count": .number(Double(isWrite ? db.changes : 0)),
                    "last_insert_rowid": nil, "replication_index": nil]
        } catch let e as DatabaseError {
            throw StepFailure(message: e.message, code: "SQLITE_\(e.code)")
        }
    }

    private func batch(_ batch: JSONValue, _ db: Database) throws -> JSONValue {
        guard let steps = batch["steps"]?.arrayValue else { throw ProtocolFailure(message: "no steps") }
        var outcomes: [Bool?] = []
        var results: [JSONValue] = []
        var errors: [JSONValue] = []
        for step in steps {
            if let condition = step["condition"], !condition.isNull, try !evaluate(condition, outcomes, db) {
                outcomes.append(nil); results.append(.null); errors.append(.null)
                continue
            }
            do {
                results.append(try execute(step["stmt"] ?? .null, db))
                errors.append(.null)
                outcomes.append(true)
            } catch let e as StepFailure {
                results.append(.null)
                errors.append(["message": .string(e.message), "code": .string(e.code)])
                outcomes.append(false)
            }
        }
        return ["step_results": .array(results), "step_errors": .array(errors)]
    }

    private func evaluate(_ c: JSONValue, _ outcomes: [Bool?], _ db: Database) throws -> Bool {
        switch c["type"]?.stringValue {
        case "ok", "error":
            guard let i = c["step"]?.intValue, outcomes.indices.contains(i) else { throw ProtocolFailure(message: "bad step") }
            guard let outcome = outcomes[i] else { return false }
            return c["type"]?.stringValue == "ok" ? outcome : !outcome
        case "not": return try !evaluate(c["cond"] ?? .null, outcomes, db)
        case "and": return try (c["conds"]?.arrayValue ?? []).allSatisfy { try evaluate($0, outcomes, db) }
        case "or": return try (c["conds"]?.arrayValue ?? []).contains { try evaluate($0, outcomes, db) }
        default: throw ProtocolFailure(message: "bad condition")
        }
    }
}
