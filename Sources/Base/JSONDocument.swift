// A parsed JSON document that keeps its bytes and a flat index ("tape") of where each value is,
// and builds Swift strings, arrays and dictionaries only for what is read. Provider stream events
// are parsed this way: an event is read for a handful of fields, so building a whole JSONValue
// tree (a dictionary per object, hashing every key, then freeing it all) was most of the cost of
// decoding a stream (BENCHMARKS.md, streaming).
//
// It accepts exactly what JSONValue.parse accepts (it runs the same grammar checks, depth limit
// and UTF-8 rules, through the same Parser) and reads the same values; `value` materialises any
// part as a JSONValue. A stream decoder parses every event into one document, reusing its memory,
// and reads values lent by `withRoot` that hold no reference: per event there is no allocation
// and no reference counting for the JSON (BENCHMARKS.md, section 4).

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

public final class JSONDocument {
    // The document's bytes are copied into memory this object owns, so reads use a stable pointer
    // (no closure or bounds-checked array access per key comparison). `parse` reuses that memory
    // and the tape's capacity, so decoding a stream allocates nothing per event for its JSON.
    // The mutable state sits behind a constant pointer: a class's own `var`s are checked for
    // exclusive access at run time on every read (swift_beginAccess), which cost more than parsing.
    private let state: UnsafeMutablePointer<State>

    /// Everything a read needs. JSONRef points here rather than at the class, so passing values
    /// around and reading them involves no reference counting at all.
    struct State {
        var storage: UnsafeMutableBufferPointer<UInt8>
        var bytes: UnsafeBufferPointer<UInt8>
        var tape = Tape(capacity: 32)
        /// Counts parses; a JSONRef remembers the one it was made by and traps if read after another.
        var generation: UInt32 = 0
    }

    var generation: UInt32 { state.pointee.generation }

    /// The entries, in memory the document owns and grows as documents need (it never shrinks:
    /// a decoder's document lives for one model turn). Plain pointer reads: no reference counting
    /// or uniqueness checks on the paths every member lookup takes.
    struct Tape {
        private(set) var base: UnsafeMutablePointer<Entry>
        private(set) var count = 0
        private var capacity: Int

        init(capacity: Int) {
            base = .allocate(capacity: capacity)
            self.capacity = capacity
        }

        subscript(i: Int) -> Entry {
            get {
                assert(i >= 0 && i < count)
                return base[i]
            }
            set {
                assert(i >= 0 && i < count)
                base[i] = newValue
            }
        }

        @inline(__always)
        mutating func append(_ entry: Entry) {
            if count == capacity { grow() }
            (base + count).initialize(to: entry)
            count += 1
        }

        @inline(never)
        private mutating func grow() {
            let grown = UnsafeMutablePointer<Entry>.allocate(capacity: capacity * 2)
            grown.moveInitialize(from: base, count: count)
            base.deallocate()
            base = grown
            capacity *= 2
        }

        mutating func removeAll() { count = 0 } // Entry is a trivial type: nothing to deinitialize

        func deallocate() { base.deallocate() }
    }

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

    /// An empty document, to be filled by `parse`.
    public init() {
        let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 256)
        state = .allocate(capacity: 1)
        state.initialize(to: State(storage: storage, bytes: UnsafeBufferPointer(rebasing: storage[0..<0])))
    }

    /// Parses one JSON document (surrounding whitespace allowed, nothing else).
    public convenience init(parsing text: String) throws {
        self.init()
        var text = text
        try text.withUTF8 { try parse($0) }
    }

    /// Parses one JSON document from bytes, rejecting invalid UTF-8 as JSONValue.parse does.
    public convenience init(bytes: [UInt8]) throws {
        self.init()
        try bytes.withUnsafeBufferPointer { try parse($0) }
    }

    deinit {
        state.pointee.storage.deallocate()
        state.pointee.tape.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Replaces this document with `source` (copied), parsed as one JSON document. Values read
    /// from the previous content stop being readable (they trap), and a failed parse leaves the
    /// document empty.
    public func parse(_ source: UnsafeBufferPointer<UInt8>) throws {
        state.pointee.generation &+= 1
        guard source.count < Int(Int32.max) else {
            state.pointee.tape.removeAll()
            throw JSONValue.ParseError(offset: 0, reason: "document too large")
        }
        if source.count > state.pointee.storage.count {
            let grown = max(source.count, state.pointee.storage.count * 2)
            state.pointee.storage.deallocate()
            state.pointee.storage = .allocate(capacity: grown)
        }
        let storage = state.pointee.storage
        if let from = source.baseAddress { storage.baseAddress!.update(from: from, count: source.count) }
        let bytes = UnsafeBufferPointer(rebasing: storage[0..<source.count])
        state.pointee.bytes = bytes
        // Build into the previous tape's memory; the builder may grow it, so it goes back either way.
        var builder = Builder(parser: JSONValue.Parser(bytes: bytes), tape: state.pointee.tape)
        builder.tape.removeAll()
        defer { state.pointee.tape = builder.tape }
        do {
            builder.parser.skipWhitespace()
            try builder.value(depth: 0)
            builder.parser.skipWhitespace()
            guard builder.parser.index == bytes.count else { throw builder.parser.error("unexpected trailing characters") }
        } catch {
            builder.tape.removeAll()
            throw error
        }
    }

    /// Lends the top-level value of the last successful parse to `body`. Like the pointer in
    /// `withUnsafeBufferPointer`, it and every value read from it are valid only during `body`:
    /// they do not keep the document alive (reference counting them cost more than the reads).
    /// A value kept past the next `parse` traps when read.
    public func withRoot<R>(_ body: (JSONRef) throws -> R) rethrows -> R {
        precondition(state.pointee.tape.count > 0, "the JSON document holds no value")
        return try withExtendedLifetime(self) { try body(JSONRef(document: state, index: 0, generation: generation)) }
    }

    struct Builder {
        var parser: JSONValue.Parser
        var tape: Tape

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
}

extension JSONDocument.State {
    typealias Entry = JSONDocument.Entry

    func entry(_ i: Int) -> Entry { tape[i] }

    func withParser<T>(at offset: Int32, _ body: (inout JSONValue.Parser) throws -> T) rethrows -> T {
        var parser = JSONValue.Parser(bytes: bytes, index: Int(offset))
        return try body(&parser)
    }

    func string(at i: Int) -> String {
        let e = entry(i)
        if e.escaped {
            // Already validated while building the tape.
            return (try? withParser(at: e.start - 1) { try $0.parseString() }) ?? ""
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[Int(e.start)..<Int(e.end)]), as: UTF8.self)
    }

    /// The tape index of the value of the member `key` of the object at `object`, if any: the last
    /// one when a key repeats, as JSONValue keeps it.
    func member(_ key: UnsafeBufferPointer<UInt8>, ofObjectAt object: Int) -> Int? {
        let base = bytes.baseAddress!
        var found: Int?
        var i = object + 1
        let end = Int(tape[object].next)
        while i < end {
            let e = tape[i]
            // Most members differ in length: compare bytes only when the lengths agree.
            if Int(e.end - e.start) == key.count || e.escaped, equals(e, at: i, base, key) { found = i + 1 }
            i = Int(tape[i + 1].next)
        }
        return found
    }

    /// True when the string entry `e` (at tape index `i`) reads as exactly the bytes `text`.
    private func equals(_ e: Entry, at i: Int, _ base: UnsafePointer<UInt8>, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        if e.escaped { return string(at: i).utf8.elementsEqual(text) }
        guard Int(e.end - e.start) == text.count else { return false }
        guard let t = text.baseAddress else { return true } // both empty
        // Keys and type names are short: eight bytes at a time, then the tail, beats calling memcmp.
        let a = UnsafeRawPointer(base + Int(e.start)), b = UnsafeRawPointer(t)
        let n = text.count
        var j = 0
        while j + 8 <= n {
            if a.loadUnaligned(fromByteOffset: j, as: UInt64.self) != b.loadUnaligned(fromByteOffset: j, as: UInt64.self) { return false }
            j += 8
        }
        while j < n {
            if a.load(fromByteOffset: j, as: UInt8.self) != b.load(fromByteOffset: j, as: UInt8.self) { return false }
            j += 1
        }
        return true
    }

    /// True when the value at `i` is a string equal to `text`.
    func string(at i: Int, equals text: UnsafeBufferPointer<UInt8>) -> Bool {
        let e = entry(i)
        return e.kind == .string && equals(e, at: i, bytes.baseAddress!, text)
    }
}

/// One value inside a JSONDocument, lent by `withRoot`. Read it with the same accessors as
/// JSONValue; `value` builds the JSONValue when a whole part is needed.
public struct JSONRef {
    /// The document's state, not retained: a JSONRef lives only inside `withRoot`, which keeps
    /// the document alive.
    let document: UnsafeMutablePointer<JSONDocument.State>
    let index: Int
    let generation: UInt32

    var entry: JSONDocument.Entry {
        precondition(document.pointee.generation == generation, "a JSON value was read after its document was parsed again")
        return document.pointee.entry(index)
    }

    func ref(_ index: Int) -> JSONRef { JSONRef(document: document, index: index, generation: generation) }

    /// The member `key` of an object (the last one when a key repeats, as JSONValue keeps it).
    /// Keys are literals, compared as bytes in place (a String key would be retained and released
    /// on every lookup, which was a large part of decoding an event); `member` takes any String.
    public subscript(key: StaticString) -> JSONRef? {
        key.withUTF8Buffer { member($0) }
    }

    /// The member `key` of an object, for keys known only at run time.
    public func member(_ key: String) -> JSONRef? {
        var key = key
        return key.withUTF8 { member($0) }
    }

    private func member(_ key: UnsafeBufferPointer<UInt8>) -> JSONRef? {
        guard entry.kind == .object else { return nil }
        return document.pointee.member(key, ofObjectAt: index).map(ref)
    }

    public subscript(position: Int) -> JSONRef? {
        let e = entry
        guard e.kind == .array, position >= 0 else { return nil }
        var i = index + 1
        var n = 0
        while i < Int(e.next) {
            if n == position { return ref(i) }
            i = Int(document.pointee.entry(i).next)
            n += 1
        }
        return nil
    }

    public var stringValue: String? { entry.kind == .string ? document.pointee.string(at: index) : nil }

    /// True when this is a string (without building it).
    public var isStringValue: Bool { entry.kind == .string }

    /// True when this is a string equal to `text`; compared in place, without building a String.
    public func isString(_ text: StaticString) -> Bool {
        _ = entry // the generation check
        return text.withUTF8Buffer { document.pointee.string(at: index, equals: $0) }
    }

    public var doubleValue: Double? {
        let e = entry
        guard e.kind == .number else { return nil }
        return try? document.pointee.withParser(at: e.start) { try $0.parseNumber() }
    }

    public var intValue: Int? {
        // Plain integers of up to 15 digits (indexes, token counts) are read directly; anything
        // else goes through the Double, as JSONValue.intValue does.
        let e = entry
        guard e.kind == .number else { return nil }
        let bytes = document.pointee.bytes
        var i = Int(e.start)
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        if Int(e.end) - i <= 15 {
            var n = 0
            while i < Int(e.end), bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") {
                n = n * 10 + Int(bytes[i] &- UInt8(ascii: "0"))
                i += 1
            }
            if i == Int(e.end) { return negative ? -n : n }
        }
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
            out.append(ref(i))
            i = Int(document.pointee.entry(i).next)
        }
        return out
    }

    /// The members of an object, built as JSONValues.
    public var objectValue: [String: JSONValue]? { isObject ? value.objectValue : nil }

    /// This value as a JSONValue (built on each call).
    public var value: JSONValue {
        // The tape was built by the same parser, so this part parses again without error.
        let e = entry
        return (try? document.pointee.withParser(at: e.kind == .string ? e.start - 1 : e.start) { try $0.parseValue(depth: 0) }) ?? .null
    }

    /// Compact JSON with sorted keys, as JSONValue.serialized.
    public var serialized: String { value.serialized }
}

/// Read access shared by JSONValue and JSONRef, so code that reads JSON works on either.
public protocol JSONReadable {
    subscript(key: StaticString) -> Self? { get }
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

    public subscript(key: StaticString) -> JSONValue? { self[key.description] }
}

extension JSONRef: JSONReadable {}
