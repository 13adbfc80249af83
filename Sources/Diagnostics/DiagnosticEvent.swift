// The only shape of data that may leave the machine: content-free facts about one agent operation.
import Agent
import Base
import Foundation
import OutputSafety

/// One diagnostic event. Every field is an id, a closed word, a number or redacted error text;
/// there is no field that can carry prompts, answers, tool arguments, results or journal values.
/// Build it from an `AgentDiagnostic` with `init(_:id:occurredAt:appVersion:)`, which sanitizes
/// every string on the way in.
public struct DiagnosticEvent: Sendable, Hashable {
    public private(set) var id: String
    public private(set) var runID: String?
    public private(set) var threadID: String?
    public private(set) var turn: Int?
    public private(set) var callID: String?
    public private(set) var providerRequestID: String?
    public private(set) var provider: String?
    public private(set) var model: String?
    public private(set) var operation: String
    public private(set) var status: String
    public private(set) var errorClass: String?
    public private(set) var errorCode: String?
    /// Error text after `Redactor.redact`.
    public private(set) var errorMessage: String?
    public private(set) var httpStatus: Int?
    /// Seconds since 1970.
    public private(set) var startedAt: Double?
    public private(set) var firstEventMs: Double?
    public private(set) var totalMs: Double?
    public private(set) var inputTokens: Int?
    public private(set) var cachedInputTokens: Int?
    public private(set) var outputTokens: Int?
    public private(set) var reasoningTokens: Int?
    public private(set) var costUSD: Double?
    public private(set) var retryCount: Int?
    public private(set) var toolName: String?
    public private(set) var resultCount: Int?
    public private(set) var sizeBytes: Int?
    /// Web search credits (Tavily).
    public private(set) var credits: Double?
    /// Attachments of the run's message: count, total bytes, media types (known types only).
    public private(set) var attachmentCount: Int?
    public private(set) var attachmentBytes: Int?
    public private(set) var attachmentTypes: String?
    public private(set) var appVersion: String
    /// Seconds since 1970.
    public private(set) var occurredAt: Double

    /// Builds an event from an agent diagnostic, sanitizing every string.
    public init(_ d: AgentDiagnostic, id: String, occurredAt: Double, appVersion: String) {
        self.id = Sanitize.opaqueID(id).flatMap { $0 == "redacted" ? nil : $0 } ?? UUID().uuidString.lowercased()
        self.occurredAt = Sanitize.number(occurredAt) ?? 0
        self.appVersion = Sanitize.identifier(appVersion) ?? "unknown"
        self.operation = d.operation.rawValue
        self.status = Sanitize.identifier(d.status) ?? "redacted"
        runID = Sanitize.opaqueID(d.runID)
        threadID = Sanitize.opaqueID(d.threadID)
        turn = d.turn
        callID = Sanitize.opaqueID(d.callID)
        providerRequestID = Sanitize.opaqueID(d.providerRequestID)
        provider = Sanitize.identifier(d.provider)
        model = Sanitize.identifier(d.model)
        toolName = Sanitize.identifier(d.toolName)
        errorClass = Sanitize.identifier(d.errorClass)
        errorCode = Sanitize.identifier(d.errorCode)
        errorMessage = d.errorMessage.map(Redactor.redact).flatMap { $0.isEmpty ? nil : $0 }
        httpStatus = d.httpStatus.flatMap { (100...599).contains($0) ? $0 : nil }
        startedAt = Sanitize.number(d.startedAt)
        firstEventMs = Sanitize.number(d.firstEventMs)
        totalMs = Sanitize.number(d.totalMs)
        inputTokens = d.usage?.inputTokens
        cachedInputTokens = d.usage?.cachedInputTokens
        outputTokens = d.usage?.outputTokens
        reasoningTokens = d.usage?.reasoningTokens
        costUSD = Sanitize.number(d.costUSD)
        retryCount = d.retryCount
        resultCount = d.resultCount
        sizeBytes = d.sizeBytes
        credits = Sanitize.number(d.credits)
        attachmentCount = d.attachmentCount.flatMap { $0 >= 0 ? $0 : nil }
        attachmentBytes = d.attachmentBytes.flatMap { $0 >= 0 ? $0 : nil }
        attachmentTypes = Sanitize.mediaTypes(d.attachmentTypes)
    }

    /// An event about the outbox itself (drops while the sink was unreachable).
    static func outboxDrops(_ count: Int, id: String, occurredAt: Double, appVersion: String) -> DiagnosticEvent {
        var d = AgentDiagnostic(operation: .failure, status: "outbox_dropped")
        d.errorClass = "outbox_overflow"
        d.resultCount = count
        return DiagnosticEvent(d, id: id, occurredAt: occurredAt, appVersion: appVersion)
    }

    // MARK: - Columns

    /// Column name and value of every field, in the sink's column order.
    public var columns: [(name: String, value: ColumnValue)] {
        [
            ("id", .text(id)), ("occurred_at", .text(ISOTime.format(occurredAt))),
            ("run_id", .optionalText(runID)), ("thread_id", .optionalText(threadID)), ("turn", .optionalInteger(turn)),
            ("call_id", .optionalText(callID)), ("provider_request_id", .optionalText(providerRequestID)),
            ("provider", .optionalText(provider)), ("model", .optionalText(model)),
            ("operation", .text(operation)), ("status", .text(status)),
            ("error_class", .optionalText(errorClass)), ("error_code", .optionalText(errorCode)),
            ("error_message", .optionalText(errorMessage)), ("http_status", .optionalInteger(httpStatus)),
            ("started_at", .optionalText(startedAt.map(ISOTime.format))),
            ("first_event_ms", .optionalReal(firstEventMs)), ("total_ms", .optionalReal(totalMs)),
            ("input_tokens", .optionalInteger(inputTokens)), ("cached_input_tokens", .optionalInteger(cachedInputTokens)),
            ("output_tokens", .optionalInteger(outputTokens)), ("reasoning_tokens", .optionalInteger(reasoningTokens)),
            ("cost_usd", .optionalReal(costUSD)), ("retry_count", .optionalInteger(retryCount)),
            ("tool_name", .optionalText(toolName)), ("result_count", .optionalInteger(resultCount)),
            ("size_bytes", .optionalInteger(sizeBytes)), ("app_version", .text(appVersion)),
            ("credits", .optionalReal(credits)),
            ("attachment_count", .optionalInteger(attachmentCount)), ("attachment_bytes", .optionalInteger(attachmentBytes)),
            ("attachment_types", .optionalText(attachmentTypes)),
        ]
    }

    public enum ColumnValue: Sendable, Hashable {
        case text(String), integer(Int), real(Double), null
        static func optionalText(_ s: String?) -> ColumnValue { s.map { .text($0) } ?? .null }
        static func optionalInteger(_ i: Int?) -> ColumnValue { i.map { .integer($0) } ?? .null }
        static func optionalReal(_ d: Double?) -> ColumnValue { d.map { .real($0) } ?? .null }
    }

    // MARK: - Outbox encoding

    /// Compact JSON for the local outbox.
    var json: String {
        var object: [String: JSONValue] = ["occurred_at_epoch": .number(occurredAt)]
        if let startedAt { object["started_at_epoch"] = .number(startedAt) }
        for (name, value) in columns where name != "occurred_at" && name != "started_at" {
            switch value {
            case .text(let s): object[name] = .string(s)
            case .integer(let i): object[name] = .number(Double(i))
            case .real(let d): object[name] = .number(d)
            case .null: break
            }
        }
        return JSONValue.object(object).serialized
    }

    /// Decodes outbox JSON. Strings are sanitized again so that a tampered outbox row cannot
    /// smuggle content out.
    init?(json: String) {
        guard let o = (try? JSONValue.parse(json))?.objectValue,
              let id = o["id"]?.stringValue, let operation = o["operation"]?.stringValue,
              let status = o["status"]?.stringValue, let occurred = o["occurred_at_epoch"]?.doubleValue else { return nil }
        var d = AgentDiagnostic(operation: AgentDiagnostic.Operation(rawValue: operation) ?? .failure, status: status)
        d.runID = o["run_id"]?.stringValue
        d.threadID = o["thread_id"]?.stringValue
        d.turn = o["turn"]?.intValue
        d.callID = o["call_id"]?.stringValue
        d.providerRequestID = o["provider_request_id"]?.stringValue
        d.provider = o["provider"]?.stringValue
        d.model = o["model"]?.stringValue
        d.toolName = o["tool_name"]?.stringValue
        d.errorClass = o["error_class"]?.stringValue
        d.errorCode = o["error_code"]?.stringValue
        d.errorMessage = o["error_message"]?.stringValue
        d.httpStatus = o["http_status"]?.intValue
        d.startedAt = o["started_at_epoch"]?.doubleValue
        d.firstEventMs = o["first_event_ms"]?.doubleValue
        d.totalMs = o["total_ms"]?.doubleValue
        let tokens = ["input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens"].map { o[$0]?.intValue }
        if tokens.contains(where: { $0 != nil }) {
            d.usage = Usage(inputTokens: tokens[0] ?? 0, cachedInputTokens: tokens[1] ?? 0,
                            outputTokens: tokens[2] ?? 0, reasoningTokens: tokens[3] ?? 0)
        }
        d.costUSD = o["cost_usd"]?.doubleValue
        d.retryCount = o["retry_count"]?.intValue
        d.resultCount = o["result_count"]?.intValue
        d.sizeBytes = o["size_bytes"]?.intValue
        d.credits = o["credits"]?.doubleValue
        d.attachmentCount = o["attachment_count"]?.intValue
        d.attachmentBytes = o["attachment_bytes"]?.intValue
        d.attachmentTypes = o["attachment_types"]?.stringValue
        self.init(d, id: id, occurredAt: occurred, appVersion: o["app_version"]?.stringValue ?? "unknown")
        // A partial usage decodes with zeros above; keep the nils that were stored.
        inputTokens = tokens[0]
        cachedInputTokens = tokens[1]
        outputTokens = tokens[2]
        reasoningTokens = tokens[3]
    }
}

/// Sanitizers for the identifier-like fields.
enum Sanitize {
    /// A comma-separated list of attachment media types, keeping only the types ofj attaches
    /// (anything else, a name included, cannot pass); nil when none is left.
    static func mediaTypes(_ value: String?) -> String? {
        guard let value else { return nil }
        let kept = value.split(separator: ",").map(String.init).filter { AttachmentFormat(mediaType: $0) != nil }
        return kept.isEmpty ? nil : kept.joined(separator: ",")
    }

    /// Keeps names and codes (provider, model, tool, status, error class): at most 128
    /// characters of `[A-Za-z0-9._:/@+-]`, with no secret, URL, email or amount shape.
    /// Anything else (spaces, quotes, content) becomes "redacted".
    static func identifier(_ s: String?) -> String? {
        guard let s, !s.isEmpty else { return nil }
        guard isIdentifierShaped(s) else { return "redacted" }
        if Redactor.isSecret(s) || Redactor.isAmount(s) { return "redacted" }
        return s
    }

    /// Keeps opaque ids (UUIDs, provider request and call ids), which are long and random by
    /// nature, so only known key shapes are refused, anywhere after a separator.
    static func opaqueID(_ s: String?) -> String? {
        guard let s, !s.isEmpty else { return nil }
        guard isIdentifierShaped(s) else { return "redacted" }
        var rest = Substring(s)
        while true {
            if Redactor.hasKeyShape(String(rest)) { return "redacted" }
            guard let sep = rest.firstIndex(where: { "._:/@+-".contains($0) }) else { break }
            rest = rest[rest.index(after: sep)...]
        }
        return s
    }

    static func isIdentifierShaped(_ s: String) -> Bool {
        guard s.count <= 128, !s.contains("://"), !Redactor.isEmail(s) else { return false }
        guard s.allSatisfy({ c in c.isASCII && (c.isLetter || c.isNumber || "._:/@+-".contains(c)) }) else { return false }
        // "oats_150g" or "9137kcal": an amount glued into an id is content, not an id.
        return !s.split(whereSeparator: { "._:/@+-".contains($0) }).contains { Redactor.isAmount(String($0)) }
    }

    static func number(_ d: Double?) -> Double? {
        guard let d, d.isFinite else { return nil }
        return d
    }
}

/// UTC timestamps as fixed-width ISO 8601 text ("2026-11-29T12:45:01.123Z"), which sorts as time.
public enum ISOTime {
    public static func format(_ seconds: Double) -> String {
        UTCTimestamp.iso8601(milliseconds: Int64((seconds * 1000).rounded(.down)))
    }
}
