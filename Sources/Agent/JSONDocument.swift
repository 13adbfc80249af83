// A parsed JSON document that keeps its bytes and a flat index ("tape") of where each value is,
// and builds Swift strings, arrays and dictionaries only for what is read. Provider stream events
// are parsed this way: an event is read for a handful of fields, so building a whole JSONValue
// tree (a dictionary per object, hashing every key, then freeing it all) was most of the cost of
// decoding a stream (BENCHMARKS.md, streaming).
//
// It accepts exactly what JSONValue.parse accepts (it runs the same grammar checks, depth limit
// and UTF-8 rules, through the same Parser) and reads the same values; `value` materialises any
// part as a JSONValue.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

public final class JSONDocument: @unchecked Sendable {
    // The document's bytes, copied once into memory this object owns, so reads use a stable
    // pointer (no closure or bounds-checked array access per key comparison). Never written
    // after init, hence @unchecked Sendable.
    private let storage: UnsafeMutableBufferPointer<UInt8>
    let bytes: UnsafeBufferPointer<UInt8>
    let tape: [Entry]

    struct Entry: Sendable {
        var kind: Kind
        /// Strings: contains a backslash escape, so reading it must decode.
        var escaped: Bool
        /// Strings: the first byte after the opening quote; everything else: the value's first byte.
        var start: Int32
        /// Strings: the closing quote; numbers and literals: one past the last byte; containers: one
        /// past the closing bracket.
        var end: Int32
        /// The tape index after this value and everything inside it.
        var next: Int32
    }

    enum Kind: UInt8, Sendable { case null, trueValue, falseValue, number, string, array, object }

    /// Parses one JSON document (surrounding whitespace allowed, nothing else).
    public convenience init(parsing text: String) throws {
        var text = text
        let storage = text.withUTF8 { Self.copy($0) }
        try self.init(owning: storage)
    }

    /// Parses one JSON document from bytes, rejecting invalid UTF-8 as JSONValue.parse does.
    public convenience init(bytes: [UInt8]) throws {
        try self.init(owning: bytes.withUnsafeBufferPointer { Self.copy($0) })
    }

    private static func copy(_ source: UnsafeBufferPointer<UInt8>) -> UnsafeMutableBufferPointer<UInt8> {
        let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(source.count, 1))
        _ = storage.initialize(from: source)
        return UnsafeMutableBufferPointer(rebasing: storage[0..<source.count])
    }

    /// Takes ownership of `storage` (freed by deinit, or here when parsing fails).
    private init(owning storage: UnsafeMutableBufferPointer<UInt8>) throws {
        let bytes = UnsafeBufferPointer(storage)
        do {
            tape = try Self.buildTape(bytes)
        } catch {
            storage.deallocate()
            throw error
        }
        self.storage = storage
        self.bytes = bytes
    }

    deinit { storage.deallocate() }

    private static func buildTape(_ buffer: UnsafeBufferPointer<UInt8>) throws -> [Entry] {
        guard buffer.count < Int(Int32.max) else { throw JSONValue.ParseError(offset: 0, reason: "document too large") }
        var builder = Builder(parser: JSONValue.Parser(bytes: buffer))
        builder.tape.reserveCapacity(buffer.count / 8 + 4) // about one value per 8-10 bytes in provider events
        builder.parser.skipWhitespace()
        try builder.value(depth: 0)
        builder.parser.skipWhitespace()
        guard builder.parser.index == buffer.count else { throw builder.parser.error("unexpected trailing characters") }
        return builder.tape
    }

    /// The top-level value.
    public var root: JSONRef { JSONRef(document: self, index: 0) }

    struct Builder {
        var parser: JSONValue.Parser
        var tape: [Entry] = []

        var index: Int { parser.index }
        var bytes: UnsafeBufferPointer<UInt8> { parser.bytes }

        mutating func append(_ kind: Kind, _ start: Int, _ end: Int, escaped: Bool = false) {
            tape.append(Entry(kind: kind, escaped: escaped, start: Int32(start), end: Int32(end), next: Int32(tape.count + 1)))
        }

        mutating func value(depth: Int) throws {
            guard depth < JSONValue.Parser.maxDepth else { throw parser.error("nesting too deep") }
            guard index < bytes.count else { throw parser.error("unexpected end of input") }
            let start = index
            switch bytes[index] {
            case UInt8(ascii: "{"): try container(object: true, depth: depth)
            case UInt8(ascii: "["): try container(object: false, depth: depth)
            case UInt8(ascii: "\""): try string()
            case UInt8(ascii: "t"): try parser.expect("true"); append(.trueValue, start, index)
            case UInt8(ascii: "f"): try parser.expect("false"); append(.falseValue, start, index)
            case UInt8(ascii: "n"): try parser.expect("null"); append(.null, start, index)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                _ = try parser.parseNumber() // validates; read again when asked for
                append(.number, start, index)
            default: throw parser.error("unexpected character")
            }
        }

        /// Objects are laid out as key, value, key, value… after the object's own entry.
        mutating func container(object: Bool, depth: Int) throws {
            let at = tape.count
            let start = index
            append(object ? .object : .array, start, start)
            let close = object ? UInt8(ascii: "}") : UInt8(ascii: "]")
            parser.index += 1
            parser.skipWhitespace()
            if index < bytes.count, bytes[index] == close {
                parser.index += 1
            } else {
                while true {
                    parser.skipWhitespace()
                    if object {
                        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw parser.error("expected a string key") }
                        try string()
                        parser.skipWhitespace()
                        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw parser.error("expected ':'") }
                        parser.index += 1
                        parser.skipWhitespace()
                    }
                    try value(depth: depth + 1)
                    parser.skipWhitespace()
                    guard index < bytes.count else { throw parser.error("unexpected end of input") }
                    if bytes[index] == UInt8(ascii: ",") { parser.index += 1; continue }
                    if bytes[index] == close { parser.index += 1; break }
                    throw parser.error(object ? "expected ',' or '}'" : "expected ',' or ']'")
                }
            }
            tape[at].end = Int32(index)
            tape[at].next = Int32(tape.count)
        }

        mutating func string() throws {
            let quote = index
            var i = quote + 1
            var ascii = true
            // Eight bytes at a time: bit tricks on one UInt64 find the first quote, backslash or
            // control character (the lowest flagged byte is always a real one), and the byte loop
            // below starts right there.
            if let base = bytes.baseAddress {
                let raw = UnsafeRawPointer(base)
                let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
                var high: UInt64 = 0
                while i + 8 <= bytes.count {
                    let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    let quotes = w ^ (ones &* 0x22), backslashes = w ^ (ones &* 0x5C)
                    let special = (((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes) | ((w &- ones &* 0x20) & ~w)) & highs
                    if special != 0 {
                        let skip = special.littleEndian.trailingZeroBitCount / 8
                        high |= w.littleEndian & ((1 << UInt64(skip * 8)) &- 1)
                        i += skip
                        break
                    }
                    high |= w
                    i += 8
                }
                if high & highs != 0 { ascii = false }
            }
            while i < bytes.count {
                let c = bytes[i]
                if c == UInt8(ascii: "\"") {
                    guard ascii || UTF8Check.isValid(UnsafeBufferPointer(rebasing: bytes[(quote + 1)..<i])) else {
                        parser.index = i
                        throw parser.error("invalid UTF-8 in string")
                    }
                    append(.string, quote + 1, i)
                    parser.index = i + 1
                    return
                }
                if c == UInt8(ascii: "\\") {
                    // Escapes are rare in provider events: let the full parser check and skip it.
                    _ = try parser.parseString()
                    append(.string, quote + 1, index - 1, escaped: true)
                    return
                }
                if c < 0x20 { parser.index = i; throw parser.error("control character in string") }
                if c >= 0x80 { ascii = false }
                i += 1
            }
            parser.index = i
            throw parser.error("unterminated string")
        }
    }

    func entry(_ i: Int) -> Entry { tape[i] }

    func withParser<T>(at offset: Int32, _ body: (inout JSONValue.Parser) throws -> T) rethrows -> T {
        var parser = JSONValue.Parser(bytes: bytes, index: Int(offset))
        return try body(&parser)
    }

    func string(at i: Int) -> String {
        let e = tape[i]
        if e.escaped {
            // Already validated while building the tape.
            return (try? withParser(at: e.start - 1) { try $0.parseString() }) ?? ""
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[Int(e.start)..<Int(e.end)]), as: UTF8.self)
    }

    /// The tape index of the value of the member `key` of the object at `object`, if any: the last
    /// one when a key repeats, as JSONValue keeps it.
    func member(_ key: String, ofObjectAt object: Int) -> Int? {
        let length = key.utf8.count
        var found: Int?
        var i = object + 1
        let end = Int(tape[object].next)
        while i < end {
            let e = tape[i]
            // Most members differ in length: compare bytes only when the lengths agree.
            if e.escaped ? string(at: i) == key : (Int(e.end - e.start) == length && bytesEqual(e.start, key)) {
                found = i + 1
            }
            i = Int(tape[i + 1].next)
        }
        return found
    }

    private func bytesEqual(_ start: Int32, _ key: String) -> Bool {
        var key = key
        return key.withUTF8 { k in
            k.isEmpty || memcmp(bytes.baseAddress! + Int(start), k.baseAddress!, k.count) == 0
        }
    }
}

/// One value inside a JSONDocument. Read it with the same accessors as JSONValue; `value` builds
/// the JSONValue when a whole part is needed.
public struct JSONRef: Sendable {
    let document: JSONDocument
    let index: Int

    var entry: JSONDocument.Entry { document.entry(index) }

    /// The member `key` of an object (the last one when a key repeats, as JSONValue keeps it).
    public subscript(key: String) -> JSONRef? {
        guard entry.kind == .object else { return nil }
        return document.member(key, ofObjectAt: index).map { JSONRef(document: document, index: $0) }
    }

    public subscript(position: Int) -> JSONRef? {
        let e = entry
        guard e.kind == .array, position >= 0 else { return nil }
        var i = index + 1
        var n = 0
        while i < Int(e.next) {
            if n == position { return JSONRef(document: document, index: i) }
            i = Int(document.entry(i).next)
            n += 1
        }
        return nil
    }

    public var stringValue: String? { entry.kind == .string ? document.string(at: index) : nil }

    public var doubleValue: Double? {
        let e = entry
        guard e.kind == .number else { return nil }
        return try? document.withParser(at: e.start) { try $0.parseNumber() }
    }

    public var intValue: Int? {
        guard let n = doubleValue, n.rounded() == n, abs(n) < 9e15 else { return nil }
        return Int(n)
    }

    public var boolValue: Bool? {
        switch entry.kind {
        case .trueValue: return true
        case .falseValue: return false
        default: return nil
        }
    }

    public var isNull: Bool { entry.kind == .null }
    public var isObject: Bool { entry.kind == .object }

    /// The elements of an array.
    public var arrayValue: [JSONRef]? {
        let e = entry
        guard e.kind == .array else { return nil }
        var out: [JSONRef] = []
        var i = index + 1
        while i < Int(e.next) {
            out.append(JSONRef(document: document, index: i))
            i = Int(document.entry(i).next)
        }
        return out
    }

    /// The members of an object, built as JSONValues.
    public var objectValue: [String: JSONValue]? { isObject ? value.objectValue : nil }

    /// This value as a JSONValue (built on each call).
    public var value: JSONValue {
        // The tape was built by the same parser, so this part parses again without error.
        let e = entry
        return (try? document.withParser(at: e.kind == .string ? e.start - 1 : e.start) { try $0.parseValue(depth: 0) }) ?? .null
    }

    /// Compact JSON with sorted keys, as JSONValue.serialized.
    public var serialized: String { value.serialized }
}

/// Read access shared by JSONValue and JSONRef, so code that reads JSON works on either.
public protocol JSONReadable: Sendable {
    subscript(key: String) -> Self? { get }
    subscript(index: Int) -> Self? { get }
    var stringValue: String? { get }
    var doubleValue: Double? { get }
    var intValue: Int? { get }
    var boolValue: Bool? { get }
    var isNull: Bool { get }
    var arrayValue: [Self]? { get }
    var objectValue: [String: JSONValue]? { get }
    var serialized: String { get }
    /// The value as a JSONValue.
    var value: JSONValue { get }
}

extension JSONValue: JSONReadable {
    public var value: JSONValue { self }
}

extension JSONRef: JSONReadable {}
