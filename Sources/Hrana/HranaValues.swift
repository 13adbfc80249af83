// Hrana over HTTP (Turso's SQL-over-HTTP): SQL values, statements, batches and requests as
// the protocol encodes them.
import Base
import Foundation

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
    public static func decodeBase64(_ s: String) -> Data? {
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
