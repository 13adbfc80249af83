// Removes secrets, URLs, emails, amounts and content words from free text before it may leave the
// machine (diagnostics events, error text from servers), and recognises key-shaped words.

/// The redactor for diagnostic text. Two layers:
/// 1. `scrub` replaces what can be recognised: API keys and tokens (`sk-…`, `sk-proj-…`, `AIza…`,
///    bearer tokens, JWTs, `key=value` secrets, long hex/base64 runs), URLs, emails, numbers
///    with units ("150g", "2200 kcal", "12.5 mg") and quoted strings (errors quote the
///    offending value, which is usually content).
/// 2. `redact` also keeps only words from a vocabulary of technical error words, so content
///    that cannot be recognised (a food name in an unquoted sentence) cannot leak either.
///    Unknown words become "…". This is what "redacted by construction" means here.
public enum Redactor {
    public static let maxLength = 300
    /// Characters of input considered; the rest is dropped before scrubbing.
    static let inputLimit = 1_000

    /// Full redaction: `scrub` followed by the vocabulary filter, bounded in length.
    public static func redact(_ text: String) -> String {
        let scrubbed = scrub(text)
        var out: [String] = []
        for token in scrubbed.split(whereSeparator: { $0.isWhitespace }) {
            let kept = filterWord(String(token))
            if kept == "…", out.last == "…" { continue }
            out.append(kept)
        }
        var result = out.joined(separator: " ")
        if result.count > maxLength { result = String(result.prefix(maxLength)) + "…" }
        return result
    }

    /// Recognising layer only: secrets, URLs, emails, amounts and quoted strings are replaced
    /// by placeholders; other words stay.
    public static func scrub(_ text: String) -> String {
        // Only the start matters (the result is bounded anyway); cutting keeps the caller fast.
        // The cut token is dropped so that half a key cannot slip past the key shapes.
        var head = Substring(text)
        if text.utf8.count > inputLimit {
            head = text.prefix(inputLimit)
            if let lastSpace = head.lastIndex(where: { $0.isWhitespace }) { head = head[..<lastSpace] } else { head = "" }
        }
        let unquoted = removeQuoted(String(head))
        let tokens = unquoted.split(whereSeparator: { $0.isWhitespace }).map(String.init)
        var out: [String] = []
        var i = 0
        while i < tokens.count {
            let token = tokens[i]
            let plain = isPlainWord(token)
            // "Bearer X", "Basic X", "token X": the word after is the secret.
            // After "token" a plain word ("the token (HTTP 401)", "token expired") is prose, not a secret.
            if plain, token.utf8.count <= 8, i + 1 < tokens.count,
               ["bearer", "basic"].contains(trimPunctuation(token.lowercased()))
                || (trimPunctuation(token.lowercased()) == "token" && !isPlainWord(tokens[i + 1]) && !tokens[i + 1].hasPrefix("(")) {
                out.append(token)
                out.append("[secret]")
                i += 2
                continue
            }
            // "150 g", "2200 kcal": a number followed by a unit word.
            if plain {
                out.append(token)
                i += 1
                continue
            }
            if isNumber(trimPunctuation(token)), i + 1 < tokens.count, isUnit(trimPunctuation(tokens[i + 1]).lowercased()) {
                out.append("[amount]")
                i += 2
                continue
            }
            out.append(scrubToken(token))
            i += 1
        }
        return out.joined(separator: " ")
    }

    // MARK: - Tokens

    /// Replaces one whitespace-free token when it is a secret, URL, email or amount.
    /// ASCII letters with at most edge punctuation: cannot be a secret, URL, email or amount.
    /// Checked on UTF-8 bytes because most tokens are plain words and this is the hot path.
    static func isPlainWord(_ token: String) -> Bool {
        var sawLetter = false
        for byte in token.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): sawLetter = true
            case UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "!"), UInt8(ascii: "?"),
                 UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "'"): continue
            default: return false
            }
        }
        return sawLetter
    }

    static func scrubToken(_ token: String) -> String {
        if isPlainWord(token) { return token }
        let core = trimPunctuation(token)
        if core.isEmpty { return token }
        let lower = core.lowercased()
        if lower.contains("://") || lower.hasPrefix("www.") { return "[url]" }
        if isEmail(core) { return "[email]" }
        // key=value or key:value where the key names a secret.
        for separator in ["=", ":"] {
            if let range = core.range(of: separator) {
                let key = core[..<range.lowerBound].lowercased()
                let value = core[range.upperBound...]
                if secretKeyNames.contains(where: { key.hasSuffix($0) }) {
                    return value.isEmpty ? token : "\(core[..<range.upperBound])[secret]"
                }
            }
        }
        if isSecret(core) { return "[secret]" }
        if isAmount(core) { return "[amount]" }
        // "oats_150g", "dose-12.5mg": an amount glued to other words.
        if core.split(whereSeparator: { "_-/".contains($0) }).contains(where: { isAmount(String($0)) }) { return "[amount]" }
        // A token like "value=150g" or "(12.5mg)" hides an amount or secret after punctuation.
        let parts = core.split(whereSeparator: { "=:,;()[]{}<>|".contains($0) }).map(String.init)
        if parts.count > 1, parts.contains(where: { isSecret($0) || isAmount($0) || isEmail($0) }) {
            return "[redacted]"
        }
        return token
    }

    static let secretKeyNames = ["key", "apikey", "api_key", "api-key", "token", "secret", "password", "passwd",
                                 "authorization", "auth", "credential", "credentials", "signature", "sig"]

    /// True for API keys, tokens and long random-looking strings.
    public static func isSecret(_ s: String) -> Bool {
        if hasKeyShape(s) { return true }
        // Long random runs: a segment (between -, _ and .) of at least 20 base64 characters with
        // both letters and digits. Model names and UUIDs have short segments and stay.
        let segments = s.split(whereSeparator: { $0 == "-" || $0 == "_" || $0 == "." })
        for segment in segments where segment.count >= 20 {
            let base64 = segment.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "/" || $0 == "=") }
            if base64 && segment.contains(where: { $0.isNumber }) && segment.contains(where: { $0.isLetter }) { return true }
        }
        return false
    }

    /// True for strings shaped like a known API key or token (`sk-…`, `AIza…`, JWTs, GitHub and
    /// Slack tokens). Narrower than `isSecret`: provider request ids are long and random too.
    public static func hasKeyShape(_ s: String) -> Bool {
        let lower = s.lowercased()
        if lower.hasPrefix("sk-") || lower.hasPrefix("sk_") || lower.hasPrefix("rk-") || lower.hasPrefix("pk_") {
            return s.count >= 8
        }
        if s.hasPrefix("AIza") && s.count >= 20 { return true }
        if lower.hasPrefix("ghp_") || lower.hasPrefix("gho_") || lower.hasPrefix("github_pat_") || lower.hasPrefix("xox") { return true }
        // JWT: three base64url segments, the first starting with eyJ ('{"').
        if s.hasPrefix("eyJ") {
            return true
        }
        return false
    }

    public static func isEmail(_ s: String) -> Bool {
        guard let at = s.firstIndex(of: "@") else { return false }
        let local = s[..<at]
        let domain = s[s.index(after: at)...]
        return !local.isEmpty && domain.contains(".") && !domain.hasPrefix(".")
    }

    static let units: Set<String> = [
        "g", "gr", "gram", "grams", "mg", "mcg", "µg", "μg", "ug", "kg", "oz", "lb", "lbs", "ml", "l", "dl", "cl",
        "kcal", "cal", "calorie", "calories", "kj", "iu", "cup", "cups", "tbsp", "tsp", "floz", "fl", "serving", "servings",
        "piece", "pieces", "slice", "slices", "%", "percent", "portion", "portions", "x",
    ]

    static func isUnit(_ s: String) -> Bool { units.contains(s) }

    static func isNumber(_ s: String) -> Bool {
        guard !s.isEmpty else { return false }
        var sawDigit = false
        for c in s {
            if c.isASCII && c.isNumber { sawDigit = true } else if c != "." && c != "," && c != "-" && c != "+" { return false }
        }
        return sawDigit
    }

    /// "150g", "12.5mg", "2200kcal", "30%".
    public static func isAmount(_ s: String) -> Bool {
        guard let first = s.first, first.isASCII, first.isNumber else { return false }
        guard let split = s.firstIndex(where: { !($0.isASCII && $0.isNumber) && $0 != "." && $0 != "," }) else { return false }
        return isUnit(s[split...].lowercased())
    }

    static let edgePunctuation: Set<Character> = [".", ",", ";", ":", "!", "?", "(", ")", "[", "]", "{", "}", "<", ">", "\"", "'", "`"]

    static func trimPunctuation(_ s: String) -> String {
        let edge = edgePunctuation
        var sub = Substring(s)
        while let f = sub.first, edge.contains(f) { sub = sub.dropFirst() }
        while let l = sub.last, edge.contains(l), l != "%" { sub = sub.dropLast() }
        return String(sub)
    }

    /// Replaces '…', "…", `…`, “…” and ‘…’ spans with [quoted]. Apostrophes inside words
    /// ("don't") are not quotes.
    static func removeQuoted(_ text: String) -> String {
        let pairs: [Character: Character] = ["\"": "\"", "`": "`", "“": "”", "‘": "’", "'": "'", "«": "»"]
        let chars = Array(text)
        var out = ""
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if let close = pairs[c] {
                let prevIsLetter = i > 0 && chars[i - 1].isLetter
                if !(c == "'" && prevIsLetter), let end = chars[(i + 1)...].firstIndex(of: close) {
                    out += "[quoted]"
                    i = end + 1
                    continue
                }
            }
            out.append(c)
            i += 1
        }
        return out
    }

    // MARK: - Vocabulary

    /// Keeps placeholders, numbers, identifier-like codes (SQLITE_BUSY, rate_limit_exceeded)
    /// and vocabulary words; everything else becomes "…".
    static func filterWord(_ token: String) -> String {
        if isPlainWord(token) {
            let word = token.utf8.filter { ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") }
            return vocabulary.contains(String(decoding: word.map { $0 | 0x20 }, as: UTF8.self)) ? token : "…"
        }
        if placeholders.contains(where: { token.contains($0) }) {
            // Keep the placeholder, not whatever was glued to it ("x[quoted]y").
            return placeholders.first(where: { token.contains($0) }) ?? "…"
        }
        let core = trimPunctuation(token)
        if core.isEmpty { return token.allSatisfy({ $0.isPunctuation || $0.isSymbol }) ? token : "…" }
        if isNumber(core) || isHTTPVersion(core) { return token }
        if isCode(core) { return token }
        // Hyphenated or slashed words are kept when every part is a vocabulary word.
        let parts = core.lowercased().split(whereSeparator: { $0 == "-" || $0 == "/" })
        if !parts.isEmpty && parts.allSatisfy({ vocabulary.contains(String($0)) || isNumber(String($0)) }) { return token }
        return "…"
    }

    static let placeholders = ["[secret]", "[url]", "[email]", "[amount]", "[quoted]", "[redacted]"]

    static func isHTTPVersion(_ s: String) -> Bool { s.hasPrefix("HTTP/") && s.count <= 8 }

    /// An error code (SQLITE_BUSY, rate_limit_exceeded, RESOURCE_EXHAUSTED): ASCII words joined by
    /// underscores, every one of them a vocabulary word or a number. "blueberry_oatmeal" is not.
    static func isCode(_ s: String) -> Bool {
        guard s.count <= 64, s.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else { return false }
        let parts = s.lowercased().split(separator: "_")
        return !parts.isEmpty && parts.allSatisfy { vocabulary.contains(String($0)) || isNumber(String($0)) }
    }

    static let vocabulary: Set<String> = Set("""
        a an the and or not no nor but if then else when while of to in on at by for from with without into onto over under \
        is are was were be been being has have had do does did done can cannot could should would will may might must shall \
        this that these those it its there here which who what where why how all any some each every more most less least \
        too very only also again once yet still just than as per via after before during until since up down out off \
        please try retry retrying retried later again wait waiting seconds second ms milliseconds minutes minute hours hour \
        error errors failed failure fail fails failing invalid valid unknown unexpected missing required expected \
        request requests response responses status code codes message reason type param parameter parameters argument arguments \
        value values field fields format malformed parse parsing parsed syntax json body header headers content length \
        too large small long short limit limits exceeded exceed exceeds quota rate rates throttled throttling overloaded capacity \
        server servers service unavailable internal gateway bad timeout timed time connection connect connecting connected \
        refused reset closed close lost network host resolve resolved dns tls ssl certificate handshake socket stream streaming \
        model models provider providers api endpoint endpoints version versions key keys token tokens auth authentication \
        authorization unauthorized forbidden permission permissions denied access allowed disallowed account billing credit \
        credits plan organization project region deployment found exist exists does exists support supported unsupported \
        maximum minimum context window input output tokens max min size sizes count number prompt completion messages role roles \
        tool tools call calls function functions schema object array string integer boolean null empty none nothing \
        database table column row rows constraint busy locked readonly disk full corrupt sql statement statements transaction \
        begin commit rollback conflict duplicate unique primary foreign check abort aborted interrupted cancelled canceled \
        deadline exceeded idle stalled stall incomplete truncated partial finish finished done ok success succeeded \
        safety blocked filter filtered policy violation recitation harmful content \
        approval approved deny denied user person run runs turn turns round rounds retry compaction checkpoint summary \
        http https get post put delete patch method path query internal_error overloaded_error \
        first last next previous new old current same different other another own \
        one two three four five many few several such event events chunk chunks data batch batches result results \
        id ids name names item items entry entries list lists text line lines character characters byte bytes \
        occurred happened because due unable able try tried again attempt attempts attempt available temporarily \
        encountered reach reached diagnostics received \
        start started stop stopped turso ofj libsql baton limiting limited expired expire expires revoked check fix set bug report reported unreadable answer answered rejected delivery deliver delivered \
        sqlite sqlite3 primarykey notnull resource exhausted insufficient unavailable_error argument_error \
        ok url uri sse tls ssl dns sql tcp ip utf8 utf ascii ms kb mb gb api_key \
        rpm tpm rpd quota_exceeded precondition aborted unimplemented unauthenticated outofrange out range \
        code_execution recitation prohibited spii blocklist safety_settings candidate candidates returned sent send sending read write writing reading open opening close closing
        """.split(whereSeparator: { $0.isWhitespace }).map(String.init))
}
