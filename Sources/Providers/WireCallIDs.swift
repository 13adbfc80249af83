// Tool-call ids as one wire accepts them: a thread continued on another provider carries ids that
// provider never made.
import Agent

/// The ids one request sends for its tool calls and results. Ids are stored as the provider made
/// them (so a thread replays byte-exact to its own provider); an id the target wire would refuse
/// is replaced, for this request only, by a deterministic stand-in: the id with refused characters
/// turned into `_`, shortened to fit, plus `_` and 16 hex digits of a hash of the original. Calls
/// and results of the same id get the same stand-in, and no stand-in equals another id of the
/// request. An id the wire accepts is sent unchanged.
struct WireCallIDs {
    /// What a wire accepts as a call id.
    struct Rule: Sendable {
        /// Longest id accepted, if there is a limit.
        var maxLength: Int?
        /// Characters accepted, if restricted (ASCII bytes).
        var allowed: (@Sendable (UInt8) -> Bool)?

        /// Anthropic Messages: `tool_use.id` must match `^[a-zA-Z0-9_-]+$`.
        static let anthropic = Rule(maxLength: nil, allowed: { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b == 0x2D
        })
        /// OpenAI Chat Completions refuses `tool_calls[].id` over 40 characters.
        static let chatCompletions = Rule(maxLength: 40, allowed: nil)
        /// The Responses API refuses `call_id` over 64 characters.
        static let responses = Rule(maxLength: 64, allowed: nil)

        func accepts(_ id: String) -> Bool {
            let bytes = Array(id.utf8)
            if bytes.isEmpty { return false }
            if let maxLength, bytes.count > maxLength { return false }
            if let allowed, !bytes.allSatisfy(allowed) { return false }
            return true
        }
    }

    private var map: [String: String] = [:]

    /// Builds the mapping for every call and result id in `messages`.
    init(_ messages: [Message], rule: Rule) {
        var ids: [String] = []
        var seen = Set<String>()
        for message in messages {
            for part in message.parts {
                let id: String
                switch part {
                case .toolCall(let c): id = c.id
                case .toolResult(let r): id = r.callID
                default: continue
                }
                if seen.insert(id).inserted { ids.append(id) }
            }
        }
        // Ids the wire accepts keep their value; stand-ins must not take one of them.
        var used = Set(ids.filter(rule.accepts))
        for id in ids where !rule.accepts(id) {
            var salt = 0
            var candidate = Self.standIn(for: id, rule: rule, salt: salt)
            while used.contains(candidate) {
                salt += 1
                candidate = Self.standIn(for: id, rule: rule, salt: salt)
            }
            used.insert(candidate)
            map[id] = candidate
        }
    }

    /// The id to send for `id`.
    func wire(_ id: String) -> String { map[id] ?? id }

    static func standIn(for id: String, rule: Rule, salt: Int) -> String {
        let suffix = "_" + hex(fnv1a(Array(id.utf8) + (salt == 0 ? [] : Array("#\(salt)".utf8))))
        var prefix = id.utf8.map { b -> Character in
            if b >= 0x80 { return "_" }
            if let allowed = rule.allowed, !allowed(b) { return "_" }
            return Character(Unicode.Scalar(b))
        }
        if prefix.isEmpty { prefix = Array("call") }
        if let maxLength = rule.maxLength { prefix = Array(prefix.prefix(max(0, maxLength - suffix.count))) }
        return String(prefix) + suffix
    }

    /// 64-bit FNV-1a: stable across runs and platforms (Swift's `Hasher` is seeded per process).
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01B3
        }
        return h
    }

    static func hex(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
