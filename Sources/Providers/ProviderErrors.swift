// Maps HTTP statuses, provider error bodies and transport failures to ChatError, without leaking keys.
import Base
import HTTP
import Agent

/// The short error a provider put in its JSON body, in the shapes the providers use:
/// `{"error":{"message","code","status"|"type"}}` (Gemini, OpenAI, OpenRouter, Azure),
/// `{"type":"error","error":{"type","message"}}` (Anthropic), flat `{"type":"error","code","message"}`
/// (Responses), `{"object":"error","message"}` (vLLM), `{"error":"text"}` (Ollama).
struct ProviderErrorBody: Sendable {
    var message: String?
    /// Machine code: OpenAI `code`/`type`, Gemini `status`, Anthropic `error.type`.
    var code: String?
    /// Gemini `RetryInfo.retryDelay` in seconds.
    var retryDelay: Double?

    init(message: String? = nil, code: String? = nil, retryDelay: Double? = nil) {
        self.message = message
        self.code = code
        self.retryDelay = retryDelay
    }

    static func parse<J: JSONReadable>(_ value: J) -> ProviderErrorBody? {
        if let err = value["error"] {
            if let text = err.stringValue { return ProviderErrorBody(message: text, code: value["code"]?.stringValue) }
            guard err.objectValue != nil else { return nil }
            var body = ProviderErrorBody()
            body.message = err["message"]?.stringValue
            body.code = err["code"]?.stringValue ?? err["status"]?.stringValue ?? err["type"]?.stringValue
            if body.code == nil, let n = err["code"]?.intValue { body.code = String(n) }
            if let status = err["status"]?.stringValue, body.code != status, err["code"]?.intValue != nil {
                body.code = status // Gemini: numeric code + textual status; the status says more
            }
            for detail in err["details"]?.arrayValue ?? [] {
                if let delay = detail["retryDelay"]?.stringValue { body.retryDelay = parseDuration(delay) }
                // Gemini answers a bad key with 400 INVALID_ARGUMENT; the reason says what it is.
                if let reason = detail["reason"]?.stringValue, reason.hasPrefix("API_KEY_") { body.code = reason }
            }
            return body
        }
        if value["object"]?.stringValue == "error" || value["type"]?.stringValue == "error" {
            return ProviderErrorBody(message: value["message"]?.stringValue,
                                     code: value["code"]?.stringValue ?? value["type"]?.stringValue)
        }
        return nil
    }

    static func parse(bytes: [UInt8]) -> ProviderErrorBody? {
        guard let value = try? JSONValue.parse(bytes: bytes) else { return nil }
        if let body = parse(value) { return body }
        // Gemini sometimes wraps the error in a one-element array.
        if let first = value[0] { return parse(first) }
        return nil
    }

    /// "34.4s" (protobuf Duration JSON) → 34.4.
    static func parseDuration(_ text: String) -> Double? {
        var t = text
        if t.hasSuffix("s") { t.removeLast() }
        return Double(t)
    }
}

/// Builds ChatErrors for one adapter; knows the key so it can scrub it from every message.
struct ErrorMapper: Sendable {
    var provider: String
    var model: String
    var keyVariable: String
    var apiKey: String?
    var baseURL: String
    var timeouts: HTTPTimeouts

    init(config: AdapterConfig) {
        baseURL = config.baseURL
        timeouts = config.timeouts
        provider = config.provider
        model = config.model
        keyVariable = config.keyVariable
        apiKey = config.apiKey
    }

    /// Maps a non-2xx response. `body` is at most a few KB of the error body.
    func map(status: Int, head: HTTPResponseHead, body: [UInt8], now: Double) -> ChatError {
        let parsed = ProviderErrorBody.parse(bytes: body)
        let detail = parsed?.message.map { ": " + clean($0) } ?? ""
        let code = parsed?.code
        if isContextOverflow(status: status, code: code, message: parsed?.message) {
            return ChatError(.contextOverflow, "\(provider) (HTTP \(status))\(detail)", httpStatus: status, code: code)
        }
        // Gemini answers a bad key with 400; treat it like 401.
        let effective = code?.hasPrefix("API_KEY_") == true ? 401 : status
        switch effective {
        case 401, 403:
            let what = keyVariable.isEmpty ? "the provider's credentials" : keyVariable
            return ChatError(.configuration, "\(provider) rejected the request (HTTP \(status))\(detail); check \(what)",
                             httpStatus: status, code: code)
        case 402:
            return ChatError(.configuration, "\(provider) says payment is required (HTTP 402)\(detail); check the account's credits",
                             httpStatus: status, code: code)
        case 404:
            return ChatError(.fatal, "\(provider) does not know model \"\(model)\" or the endpoint is wrong (HTTP 404)\(detail); check OFJ_MODEL or --model",
                             httpStatus: status, code: code)
        case 408:
            return ChatError(.retryable, "\(provider) timed out the request (HTTP 408)\(detail)", httpStatus: status, code: code)
        case 429:
            if code == "insufficient_quota" {
                return ChatError(.configuration, "\(provider) quota is used up (HTTP 429)\(detail); check the plan and billing for \(keyVariable)",
                                 httpStatus: status, code: code)
            }
            let delay = parsed?.retryDelay ?? Self.retryAfter(head: head, now: now)
            return ChatError(.rateLimited(retryAfter: delay), "\(provider) is rate limiting requests (HTTP 429)\(detail); wait a moment and try again",
                             httpStatus: status, code: code)
        case 500...599:
            return ChatError(.retryable, "\(provider) had a server error (HTTP \(status))\(detail)",
                             httpStatus: status, code: code)
        default:
            return ChatError(.fatal, "\(provider) refused the request (HTTP \(status))\(detail)", httpStatus: status, code: code)
        }
    }

    /// Maps an error reported inside a 200 stream. `started` says whether output was already produced.
    func mapStreamError(_ body: ProviderErrorBody, started: Bool) -> ChatError {
        let detail = body.message.map { ": " + clean($0) } ?? ""
        let code = body.code
        if isContextOverflow(status: 400, code: code, message: body.message) {
            return ChatError(.contextOverflow, "\(provider)\(detail)", code: code)
        }
        let lowered = code?.lowercased() ?? ""
        if lowered == "insufficient_quota" {
            return ChatError(.configuration, "\(provider) quota is used up\(detail); check the plan and billing for \(keyVariable)", code: code)
        }
        if ["authentication_error", "permission_error", "invalid_api_key", "unauthenticated", "permission_denied", "401", "403"].contains(lowered) {
            return ChatError(.configuration, "\(provider) rejected the request\(detail); check \(keyVariable)", code: code)
        }
        if ["rate_limit_error", "rate_limit_exceeded", "resource_exhausted", "429"].contains(lowered) {
            if started { return ChatError(.unknownOutcome, "\(provider) stopped the answer midway (rate limited)\(detail)", code: code) }
            return ChatError(.rateLimited(retryAfter: body.retryDelay), "\(provider) is rate limiting requests\(detail); wait a moment and try again", code: code)
        }
        if ["invalid_request_error", "invalid_argument", "invalid_prompt", "not_found_error", "400", "404"].contains(lowered) {
            return ChatError(.fatal, "\(provider) refused the request\(detail)", code: code)
        }
        // Server errors, overload, unknown: the answer was cut off.
        if started { return ChatError(.unknownOutcome, "\(provider) stopped the answer midway\(detail)", code: code) }
        return ChatError(.retryable, "\(provider) failed before answering\(detail)", code: code)
    }

    /// Maps a transport failure. `started` says whether output was already produced. The
    /// person sees these words (wrapped by the runner), so they say what happened in plain
    /// terms: libcurl's own error text ("Recv failure: Connection reset by peer") stays out,
    /// except for TLS problems, where its detail is what the person needs to fix the setup.
    func mapTransport(_ error: Error, started: Bool) -> ChatError {
        if let chat = error as? ChatError { return chat }
        guard let http = error as? HTTPError else {
            return started ? ChatError(.unknownOutcome, "the connection to \(provider) failed midway")
                : ChatError(.retryable, "could not reach \(provider)")
        }
        switch http {
        case .connectTimeout:
            return ChatError(.timeout, "\(provider) did not accept the connection within \(seconds(timeouts.connect))\(localHint)")
        case .firstByteTimeout where !started, .idleTimeout where !started:
            return ChatError(.timeout, "\(provider) did not start answering within \(seconds(http == .firstByteTimeout ? timeouts.firstByte : timeouts.idle))\(localHint)")
        case .idleTimeout, .firstByteTimeout:
            return ChatError(.unknownOutcome, "\(provider) stopped sending for \(seconds(timeouts.idle)) in the middle of the answer")
        case .invalidURL:
            return ChatError(.configuration, "the \(provider) base URL is not a valid URL; check the base URL setting")
        case .tls(let m):
            return ChatError(.configuration, "TLS error talking to \(provider) (\(clean(m))); check the base URL and proxy settings")
        case .cancelled:
            return ChatError(.unknownOutcome, "the \(provider) request was cancelled")
        case .connectFailed where !started && ModelCatalog.localProviders.contains(provider):
            return ChatError(.retryable, "could not connect to \(provider) at \(clean(baseURL)); is the server running?")
        case .connectFailed:
            return ChatError(.retryable, "could not connect to \(provider)")
        case .connectionReset, .other:
            if started { return ChatError(.unknownOutcome, "the connection to \(provider) was lost midway") }
            return ChatError(.retryable, "the connection to \(provider) was lost before it answered")
        }
    }

    /// Slow local servers are what the patient policy is for; hosted ones are not helped by it.
    private var localHint: String {
        ModelCatalog.localProviders.contains(provider) ? " (slow local servers need the patient policy)" : ""
    }

    private func seconds(_ s: Double) -> String {
        s == s.rounded() ? "\(Int(s)) s" : "\(s) s"
    }

    /// Context overflow in every server's words: OpenAI `context_length_exceeded`, llama-server's
    /// `exceed_context_size_error` ("request (10777 tokens) exceeds the available context size
    /// (4096 tokens)"), vLLM's "maximum context length is … tokens", Ollama's "input length
    /// exceeds the context length" (some Ollama versions answer 500).
    func isContextOverflow(status: Int, code: String?, message: String?) -> Bool {
        guard status == 400 || status == 413 || status == 422 || status == 500 else { return false }
        if status == 413 { return true }
        if let code, ["context_length_exceeded", "string_above_max_length", "context_window_exceeded", "exceed_context_size_error"].contains(code) {
            return true
        }
        guard let m = message?.lowercased() else { return false }
        if status == 500 { return m.contains("context length") || m.contains("context size") }
        let phrases = ["prompt is too long", "context length", "context_length", "maximum context", "context window", "context size",
                       "too many tokens", "input token count", "exceeds the maximum number of tokens", "tokens exceeds",
                       "input is too long", "reduce the length of the messages"]
        return phrases.contains { m.contains($0) }
    }

    /// One line, bounded, with the key (and anything that looks like a key) removed.
    func clean(_ text: String) -> String {
        Redaction.scrub(text, key: apiKey)
    }

    /// Delay from `retry-after-ms`, then `Retry-After` as seconds or as an HTTP-date.
    static func retryAfter(head: HTTPResponseHead, now: Double) -> Double? {
        if let ms = head.header("retry-after-ms").flatMap({ Double($0.trimmingSpaces) }), ms >= 0 { return ms / 1000 }
        guard let value = head.header("retry-after")?.trimmingSpaces else { return nil }
        if let seconds = Double(value), seconds >= 0 { return seconds }
        if let date = HTTPDate.parse(value) { return max(0, date - now) }
        return nil
    }
}

/// Removes secrets from text that may reach the user or diagnostics.
public enum Redaction {
    /// Scrubs `key` and key-like tokens, keeps one line, caps the length.
    public static func scrub(_ text: String, key: String?, limit: Int = 300) -> String {
        var out = text
        if let key, key.count >= 4 { out = out.replacingAll(key, with: "[key]") }
        var words: [Substring] = []
        for word in out.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }) {
            words.append(looksLikeSecret(word, key: key) ? "[key]" : word)
        }
        out = words.joined(separator: " ")
        if out.count > limit { out = String(out.prefix(limit)) + "…" }
        return out
    }

    static func looksLikeSecret(_ word: Substring, key: String?) -> Bool {
        let w = word.trimmingSet( "\"'.,;:()[]")
        if w.hasPrefix("sk-") || w.hasPrefix("AIza") || w.hasPrefix("sk_") { return w.count >= 8 }
        if w.contains("***") || w.contains("*****") { return true }
        if let key, key.count >= 12 {
            if w.count >= 6 && (w.contains(key.prefix(8)) || w.contains(key.suffix(6))) { return true }
        }
        return false
    }
}

/// Parses IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), the form Retry-After uses.
enum HTTPDate {
    static func parse(_ text: String) -> Double? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT" else { return nil }
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard let day = Int(parts[1]), let monthIndex = months.firstIndex(of: String(parts[2])), let year = Int(parts[3]) else { return nil }
        let hms = parts[4].split(separator: ":").compactMap { Int($0) }
        guard hms.count == 3 else { return nil }
        // Days from civil (Howard Hinnant's algorithm).
        let m = monthIndex + 1
        let y = m <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (m + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return Double(days * 86_400 + hms[0] * 3_600 + hms[1] * 60 + hms[2])
    }
}

extension String {
    var trimmingSpaces: String { trimmingSet(" \t") }

    func trimmingSet(_ set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }

    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var out = ""
        var rest = Substring(self)
        while let r = rest.firstRange(ofText: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        out += rest
        return out
    }
}

extension Substring {
    func trimmingSet(_ set: String) -> String { String(self).trimmingSet( set) }

    func firstRange(ofText target: String) -> Range<Substring.Index>? {
        guard !target.isEmpty, count >= target.count else { return nil }
        var i = startIndex
        while i < endIndex {
            if self[i...].hasPrefix(target) {
                return i..<index(i, offsetBy: target.count)
            }
            i = index(after: i)
        }
        return nil
    }
}
