// A JSON value with its own strict parser and a deterministic (sorted-key) serializer.
// Shared by tools, providers, transcripts and diagnostics; no Foundation bridging quirks.

public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    // MARK: - Accessors

    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }
    public subscript(index: Int) -> JSONValue? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }
    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    public var doubleValue: Double? { if case .number(let n) = self { return n } else { return nil } }
    public var intValue: Int? {
        if case .number(let n) = self, n.rounded() == n, abs(n) < 9e15 { return Int(n) }
        return nil
    }
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { return o } else { return nil } }
    public var isNull: Bool { self == .null }

    /// The JSON type name as JSON Schema spells it.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number(let n): return n.rounded() == n ? "integer" : "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    // MARK: - Serialization

    /// Compact JSON with object keys sorted, so equal values serialize to equal bytes.
    public var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    public func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += JSONValue.format(n)
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                v.write(to: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, k) in o.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(k, to: &out)
                out += ":"
                o[k]!.write(to: &out)
            }
            out += "}"
        }
    }

    /// Integers print without a fraction; other finite numbers use Swift's shortest round-trip form.
    public static func format(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        if n.rounded() == n && abs(n) < 1e15 { return String(Int64(n)) }
        return "\(n)"
    }

    /// `s` as a JSON string literal: the runs that need no escape are appended whole, not scalar
    /// by scalar (a request's 37 KB of tool specs took 29 M instructions that way; issue 39).
    /// Escaped: quote, backslash, control characters, DEL, and U+2028/U+2029 (E2 80 A8/A9).
    public static func writeString(_ s: String, to out: inout String) {
        out += "\""
        // The common case, checked over the raw bytes: nothing to escape at all.
        let plain = s.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            for (n, byte) in bytes.enumerated() {
                if byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F { return false }
                if byte == 0xE2, n + 2 < bytes.count, bytes[n + 1] == 0x80, bytes[n + 2] == 0xA8 || bytes[n + 2] == 0xA9 { return false }
            }
            return true
        }
        if plain == true {
            out += s
            out += "\""
            return
        }
        let utf8 = s.utf8
        var run = utf8.startIndex
        var i = utf8.startIndex
        while i != utf8.endIndex {
            let byte = utf8[i]
            var escape: String?
            var width = 1
            switch byte {
            case 0x22: escape = "\\\""
            case 0x5C: escape = "\\\\"
            case 0x0A: escape = "\\n"
            case 0x0D: escape = "\\r"
            case 0x09: escape = "\\t"
            case 0x08: escape = "\\b"
            case 0x0C: escape = "\\f"
            case 0x00..<0x20, 0x7F:
                let hex = String(byte, radix: 16)
                escape = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            case 0xE2:
                let second = utf8.index(after: i)
                if second != utf8.endIndex, utf8[second] == 0x80 {
                    let third = utf8.index(after: second)
                    if third != utf8.endIndex, utf8[third] == 0xA8 || utf8[third] == 0xA9 {
                        escape = utf8[third] == 0xA8 ? "\\u2028" : "\\u2029"
                        width = 3
                    }
                }
            default: break
            }
            if let escape {
                out.append(contentsOf: s[run..<i])
                out += escape
                i = utf8.index(i, offsetBy: width)
                run = i
            } else {
                i = utf8.index(after: i)
            }
        }
        if run == utf8.startIndex {
            out += s // nothing escaped: the String's own append, faster than a Substring's
        } else {
            out.append(contentsOf: s[run..<utf8.endIndex])
        }
        out += "\""
    }

    // MARK: - Parsing

    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public let offset: Int
        public let reason: String
        public var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    /// Parses one JSON document (surrounding whitespace allowed, nothing else).
    public static func parse(_ text: String) throws -> JSONValue {
        var text = text
        return try text.withUTF8 { try parse(bytes: $0) }
    }

    public static func parse(bytes: some Collection<UInt8>) throws -> JSONValue {
        if let contiguous = try bytes.withContiguousStorageIfAvailable({ try parse(buffer: $0) }) {
            return contiguous
        }
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { try parse(buffer: $0) }
    }

    public static func parse(buffer: UnsafeBufferPointer<UInt8>) throws -> JSONValue {
        var p = Parser(bytes: buffer)
        p.skipWhitespace()
        let v = try p.parseValue(depth: 0)
        p.skipWhitespace()
        guard p.index == buffer.count else { throw p.error("unexpected trailing characters") }
        return v
    }

    struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        static let maxDepth = 512

        func error(_ reason: String) -> ParseError { ParseError(offset: index, reason: reason) }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        mutating func parseValue(depth: Int) throws -> JSONValue {
            guard depth < Parser.maxDepth else { throw error("nesting too deep") }
            guard index < bytes.count else { throw error("unexpected end of input") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try parseObject(depth: depth)
            case UInt8(ascii: "["): return try parseArray(depth: depth)
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): try expect("true"); return .bool(true)
            case UInt8(ascii: "f"): try expect("false"); return .bool(false)
            case UInt8(ascii: "n"): try expect("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
            default: throw error("unexpected character")
            }
        }

        mutating func expect(_ word: StaticString) throws {
            let n = word.utf8CodeUnitCount
            guard index + n <= bytes.count else { throw error("unexpected end of input") }
            for i in 0..<n where bytes[index + i] != word.utf8Start[i] { throw error("invalid literal") }
            index += n
        }

        mutating func parseObject(depth: Int) throws -> JSONValue {
            index += 1
            // Provider chunks are small objects; one allocation skips the first regrowths. (Not
            // reserveCapacity: that runs unspecialised and looks up generic metadata each call.)
            var dict = [String: JSONValue](minimumCapacity: 8)
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(dict) }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string key") }
                let key = try parseString()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
                index += 1
                skipWhitespace()
                dict[key] = try parseValue(depth: depth + 1)
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of input") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(dict) }
                throw error("expected ',' or '}'")
            }
        }

        mutating func parseArray(depth: Int) throws -> JSONValue {
            index += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            while true {
                skipWhitespace()
                items.append(try parseValue(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of input") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                throw error("expected ',' or ']'")
            }
        }

        /// Powers of ten exactly representable as Double (Clinger's fast path).
        static let exactPowersOfTen: [Double] = (0...22).map { pow10Exact($0) }
        static func pow10Exact(_ n: Int) -> Double { var r = 1.0; for _ in 0..<n { r *= 10 }; return r }

        mutating func parseNumber() throws -> Double {
            let start = index
            var negative = false
            if bytes[index] == UInt8(ascii: "-") { negative = true; index += 1 }
            // Mantissa digits as an integer and a decimal exponent; exact for up to 15 significant
            // digits and small exponents, which is nearly every number a provider sends.
            var mantissa: UInt64 = 0
            var digitCount = 0
            var exponent = 0
            func digits(_ into: inout UInt64, _ count: inout Int, fraction: Bool, _ exponent: inout Int) -> Int {
                let s = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                    if count < 19 {
                        into = into &* 10 &+ UInt64(bytes[index] - UInt8(ascii: "0"))
                        if into != 0 { count += 1 }
                        if fraction { exponent -= 1 }
                    } else if !fraction {
                        exponent += 1
                    }
                    index += 1
                }
                return index - s
            }
            guard index < bytes.count else { throw error("invalid number") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else if digits(&mantissa, &digitCount, fraction: false, &exponent) == 0 {
                throw error("invalid number")
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                if digits(&mantissa, &digitCount, fraction: true, &exponent) == 0 { throw error("invalid number") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                var expNegative = false
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    expNegative = bytes[index] == UInt8(ascii: "-")
                    index += 1
                }
                var e = 0
                let s = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                    if e < 100_000 { e = e * 10 + Int(bytes[index] - UInt8(ascii: "0")) }
                    index += 1
                }
                if index == s { throw error("invalid number") }
                exponent += expNegative ? -e : e
            }
            if digitCount <= 15 && abs(exponent) <= 22 {
                var value = Double(mantissa)
                if exponent < 0 { value /= Parser.exactPowersOfTen[-exponent] } else if exponent > 0 { value *= Parser.exactPowersOfTen[exponent] }
                return negative ? -value : value
            }
            // Anything else: the standard library's correctly rounded conversion.
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            guard let value = Double(text), value.isFinite else { throw error("number out of range") }
            return value
        }

        mutating func parseHex4() throws -> UInt32 {
            guard index + 4 <= bytes.count else { throw error("invalid \\u escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[index]
                let d: UInt32
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
                default: throw error("invalid \\u escape")
                }
                v = v * 16 + d
                index += 1
            }
            return v
        }

        mutating func parseString() throws -> String {
            index += 1 // opening quote
            let start = index
            // Fast path: no escapes.
            var ascii = true
            while index < bytes.count {
                let c = bytes[index]
                if c == UInt8(ascii: "\"") {
                    let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    index += 1
                    // String(validating:) instantiates generic metadata on every call (a quarter of
                    // the decode time in a profile); validate here and build the String directly.
                    guard ascii || UTF8Check.isValid(slice) else { throw error("invalid UTF-8 in string") }
                    return String(decoding: slice, as: UTF8.self)
                }
                if c == UInt8(ascii: "\\") { break }
                if c < 0x20 { throw error("control character in string") }
                if c >= 0x80 { ascii = false }
                index += 1
            }
            var out = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<index]))
            while index < bytes.count {
                let c = bytes[index]
                if c == UInt8(ascii: "\"") {
                    index += 1
                    guard out.withUnsafeBufferPointer({ UTF8Check.isValid($0) }) else { throw error("invalid UTF-8 in string") }
                    return String(decoding: out, as: UTF8.self)
                }
                if c < 0x20 { throw error("control character in string") }
                if c != UInt8(ascii: "\\") { out.append(c); index += 1; continue }
                index += 1
                guard index < bytes.count else { break }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try parseHex4()
                    if (0xD800...0xDBFF).contains(code) {
                        if index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                            index += 2
                            let low = try parseHex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid surrogate pair") }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            code = 0xFFFD // lone surrogate: replace rather than fail
                        }
                    } else if (0xDC00...0xDFFF).contains(code) {
                        code = 0xFFFD
                    }
                    let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: throw error("invalid escape")
                }
            }
            throw error("unterminated string")
        }
    }
}

/// Strict UTF-8 validation (RFC 3629: no overlong forms, surrogates or code points past U+10FFFF).
enum UTF8Check {
    static func isValid(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = b.count
        while i < n {
            let c = b[i]
            if c < 0x80 { i += 1; continue }
            let need: Int
            var lower: UInt8 = 0x80, upper: UInt8 = 0xBF
            switch c {
            case 0xC2...0xDF: need = 1
            case 0xE0: need = 2; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: need = 2
            case 0xED: need = 2; upper = 0x9F
            case 0xF0: need = 3; lower = 0x90
            case 0xF1...0xF3: need = 3
            case 0xF4: need = 3; upper = 0x8F
            default: return false
            }
            guard i + need < n else { return false }
            let second = b[i + 1]
            guard second >= lower && second <= upper else { return false }
            var k = 2
            while k <= need {
                guard b[i + k] & 0xC0 == 0x80 else { return false }
                k += 1
            }
            i += need + 1
        }
        return true
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: CustomStringConvertible {
    public var description: String { serialized }
}
