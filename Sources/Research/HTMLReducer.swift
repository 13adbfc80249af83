// HTML to readable text in one pass over the bytes, with no recursion and no tree: title,
// headings, paragraphs, list items and table rows survive; scripts, styles, navigation and other
// chrome are dropped; the output stops at a size budget. Any input, however malformed or deeply
// nested, is handled in time linear in its length and memory bounded by the budget.

public struct ReducedHTML: Sendable, Hashable {
    public var title: String
    public var text: String
    /// True when the text stopped at the budget.
    public var truncated: Bool
}

public enum HTMLReducer {
    /// What an element does to the text.
    fileprivate enum Kind: Hashable {
        case heading(Int), listItem, row, cell, paragraph, block, spacer
        /// Content dropped; `raw`: its content is raw text up to the end tag (script, style).
        case dropped(raw: Bool)
        /// Content is raw text that is kept (textarea, xmp).
        case rawKept
        case title
        case inline
    }

    /// A lowercase tag name of up to 16 bytes, packed (longer names are all `.long`, which no
    /// table entry uses).
    fileprivate struct Name: Hashable {
        var a: UInt64 = 0
        var b: UInt64 = 0
        static let long = Name(a: .max, b: .max)

        init(a: UInt64, b: UInt64) {
            self.a = a
            self.b = b
        }

        init(_ text: String) {
            self.init(Array(text.utf8)[...])
        }

        init(_ bytes: ArraySlice<UInt8>) {
            guard bytes.count <= 16 else {
                self = .long
                return
            }
            for (i, c) in bytes.enumerated() {
                let lower = UInt64(c >= 0x41 && c <= 0x5A ? c | 0x20 : c)
                if i < 8 { a |= lower << UInt64(8 * i) } else { b |= lower << UInt64(8 * (i - 8)) }
            }
        }

        init(_ p: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) {
            guard to - from <= 16 else {
                self = .long
                return
            }
            for i in from..<to {
                let c = p[i]
                let lower = UInt64(c >= 0x41 && c <= 0x5A ? c | 0x20 : c)
                let o = i - from
                if o < 8 { a |= lower << UInt64(8 * o) } else { b |= lower << UInt64(8 * (o - 8)) }
            }
        }
    }

    fileprivate static let kinds: [Name: Kind] = {
        var table: [Name: Kind] = [:]
        for name in ["nav", "svg", "math", "template", "object", "canvas", "select", "button", "aside", "footer", "dialog"] {
            table[Name(name)] = .dropped(raw: false)
        }
        for name in ["script", "style", "noscript", "iframe"] { table[Name(name)] = .dropped(raw: true) }
        for name in ["textarea", "xmp", "plaintext", "noembed", "noframes"] { table[Name(name)] = .rawKept }
        for level in 1...6 { table[Name("h\(level)")] = .heading(level) }
        for name in ["p", "blockquote", "pre", "table", "section", "article"] { table[Name(name)] = .paragraph }
        for name in ["div", "br", "hr", "main", "header", "ul", "ol", "dl", "dt", "dd", "thead", "tbody", "tfoot", "figure",
                     "figcaption", "address", "details", "summary", "body", "html", "caption"] {
            table[Name(name)] = .block
        }
        table[Name("li")] = .listItem
        table[Name("tr")] = .row
        table[Name("td")] = .cell
        table[Name("th")] = .cell
        table[Name("img")] = .spacer
        table[Name("input")] = .spacer
        table[Name("title")] = .title
        return table
    }()

    fileprivate static let cellSeparator = Array(" | ".utf8)
    fileprivate static let headingPrefixes: [[UInt8]] = (0...6).map { Array(repeating: 0x23, count: $0) + [0x20] }
    fileprivate static let listPrefix = Array("- ".utf8)

    /// Reduces `html` to at most `budget` characters of text (the title is extra, at most 300).
    public static func reduce(_ html: [UInt8], budget: Int = 40_000) -> ReducedHTML {
        var state = Reducer(budget: max(0, budget))
        // Invalid UTF-8 is replaced first, so every character counted is one the text will have.
        var valid = true
        html.withUnsafeBufferPointer { p in
            var decoder = UTF8()
            var iterator = p.makeIterator()
            loop: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue: continue
                case .emptyInput: break loop
                case .error:
                    valid = false
                    break loop
                }
            }
        }
        state.run(valid ? html : Array(String(decoding: html, as: UTF8.self).utf8))
        return state.result()
    }

    public static func reduce(_ html: String, budget: Int = 40_000) -> ReducedHTML {
        reduce(Array(html.utf8), budget: budget)
    }

    fileprivate struct Reducer {
        let budget: Int
        var out: [UInt8] = []
        var outCharacters = 0
        var title: [UInt8] = []
        var truncated = false
        /// Pending separator before the next text: 0 none, 1 space, 2 newline, 3 blank line.
        var pendingBreak = 0
        var atLineStart = true
        /// Inside a dropped element: its name and how many of it are open.
        var dropName: Name?
        var dropDepth = 0
        var inTitle = false
        var cellInRow = 0
        var linePrefix: [UInt8] = []

        init(budget: Int) {
            self.budget = budget
            out.reserveCapacity(min(budget, 1 << 19) * 2)
        }

        var full: Bool { outCharacters >= budget }

        mutating func run(_ b: [UInt8]) {
            b.withUnsafeBufferPointer { p in
                let n = p.count
                var i = 0
                while i < n && !truncated {
                    let c = p[i]
                    if c == 0x3C /* < */ {
                        i = tag(p, i)
                        continue
                    }
                    // A run of text up to the next '<'.
                    var j = i
                    while j < n && p[j] != 0x3C { j += 1 }
                    if dropName == nil { text(p, i, j) }
                    i = j
                }
            }
        }

        /// Handles the markup at `p[start] == '<'`; returns the index after it.
        mutating func tag(_ p: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
            let n = p.count
            var i = start + 1
            guard i < n else { return n }
            // Comments, doctype, processing instructions, CDATA.
            if p[i] == 0x21 /* ! */ {
                if i + 2 < n && p[i + 1] == 0x2D && p[i + 2] == 0x2D {
                    var k = i + 3
                    while k + 2 < n && !(p[k] == 0x2D && p[k + 1] == 0x2D && p[k + 2] == 0x3E) { k += 1 }
                    return min(n, k + 3)
                }
                return skipPast(p, i, 0x3E)
            }
            if p[i] == 0x3F /* ? */ { return skipPast(p, i, 0x3E) }
            var closing = false
            if p[i] == 0x2F /* / */ {
                closing = true
                i += 1
            }
            let nameStart = i
            while i < n, isNameByte(p[i]) { i += 1 }
            if i == nameStart && (closing || i >= n) {
                // "</" without a name is a bogus comment; markup cut off by the end is dropped.
                return skipPast(p, i, 0x3E)
            }
            if i == nameStart {
                // Not a tag ("a < b"): the '<' is text.
                if dropName == nil { emitText([0x3C]) }
                return start + 1
            }
            let name = Name(p, nameStart, i)
            let kind = HTMLReducer.kinds[name] ?? .inline
            let nameEnd = i
            // Attributes, with quotes, up to '>'.
            var quote: UInt8 = 0
            var selfClosing = false
            while i < n {
                let c = p[i]
                if quote != 0 {
                    if c == quote { quote = 0 }
                } else if c == 0x22 || c == 0x27 {
                    quote = c
                } else if c == 0x3E {
                    selfClosing = i > 0 && p[i - 1] == 0x2F
                    break
                }
                i += 1
            }
            let after = min(n, i + 1)
            func lowercaseName() -> [UInt8] {
                (nameStart..<nameEnd).map { p[$0] >= 0x41 && p[$0] <= 0x5A ? p[$0] | 0x20 : p[$0] }
            }

            if kind == .title && !closing && !selfClosing && dropName == nil {
                return rawTextEnd(p, after, Array("title".utf8), into: true)
            }
            if let dropping = dropName {
                if name == dropping {
                    if closing { dropDepth -= 1 } else if !selfClosing { dropDepth += 1 }
                    if dropDepth <= 0 {
                        dropName = nil
                        dropDepth = 0
                        separator(2)
                    }
                }
                return after
            }
            if closing {
                endTag(kind)
                return after
            }
            switch kind {
            case .dropped(raw: true):
                return rawTextEnd(p, after, lowercaseName(), into: false)
            case .dropped(raw: false):
                if !selfClosing {
                    dropName = name
                    dropDepth = 1
                }
                return after
            case .rawKept:
                // textarea, xmp, …: their content is text, tags inside are not tags.
                return rawTextEnd(p, after, lowercaseName(), into: false, keep: true)
            default:
                startTag(kind)
                return after
            }
        }

        /// Skips raw text up to `</name`; keeps it as the title, as text, or drops it.
        mutating func rawTextEnd(_ p: UnsafeBufferPointer<UInt8>, _ from: Int, _ nameBytes: [UInt8], into isTitle: Bool, keep: Bool = false) -> Int {
            let n = p.count
            var k = from
            while k < n {
                if p[k] == 0x3C && k + 1 < n && p[k + 1] == 0x2F && k + 2 + nameBytes.count <= n {
                    var match = true
                    for (o, b) in nameBytes.enumerated() where p[k + 2 + o] | 0x20 != b {
                        match = false
                        break
                    }
                    if match { break }
                }
                k += 1
            }
            if isTitle && title.isEmpty {
                var t = Reducer(budget: 300)
                t.text(p, from, k)
                title = t.out
            } else if keep {
                text(p, from, k)
            }
            return k >= n ? n : skipPast(p, k, 0x3E)
        }

        mutating func startTag(_ kind: Kind) {
            switch kind {
            case .heading(let level):
                separator(3)
                linePrefix = HTMLReducer.headingPrefixes[level]
            case .listItem:
                separator(2)
                linePrefix = HTMLReducer.listPrefix
            case .row:
                separator(2)
                cellInRow = 0
            case .cell:
                if cellInRow > 0 && !out.isEmpty {
                    emitRaw(HTMLReducer.cellSeparator)
                    pendingBreak = 0
                }
                cellInRow += 1
            case .paragraph:
                separator(3)
            case .block:
                separator(2)
            case .spacer:
                separator(1)
            case .dropped, .rawKept, .title, .inline:
                // Inline elements (a, span, b, em, …) add nothing.
                break
            }
        }

        mutating func endTag(_ kind: Kind) {
            switch kind {
            case .heading, .paragraph:
                linePrefix = []
                separator(3)
            case .listItem, .row:
                linePrefix = []
                separator(2)
            case .cell:
                separator(1)
            case .block:
                separator(2)
            case .spacer, .dropped, .rawKept, .title, .inline:
                break
            }
        }

        mutating func separator(_ level: Int) {
            if level > pendingBreak { pendingBreak = level }
        }

        /// Text between tags: entities decoded, whitespace collapsed.
        mutating func text(_ p: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) {
            var i = from
            var chunk: [UInt8] = []
            while i < to {
                let c = p[i]
                if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0C {
                    if !chunk.isEmpty { emitText(chunk); chunk.removeAll(keepingCapacity: true) }
                    separator(1)
                    i += 1
                    continue
                }
                if c == 0x26 /* & */, let (decoded, length) = HTMLReducer.entity(p, i, to) {
                    chunk.append(contentsOf: decoded)
                    i += length
                    continue
                }
                if c < 0x20 || c == 0x7F { i += 1; continue }  // control characters
                // A run of ordinary bytes, appended at once.
                var j = i + 1
                while j < to {
                    let d = p[j]
                    if d <= 0x20 || d == 0x26 || d == 0x7F { break }
                    j += 1
                }
                chunk.append(contentsOf: UnsafeBufferPointer(rebasing: p[i..<j]))
                i = j
                if chunk.count >= 4096 { emitText(chunk); chunk.removeAll(keepingCapacity: true) }
                if truncated { return }
            }
            if !chunk.isEmpty { emitText(chunk) }
        }

        mutating func emitText(_ bytes: [UInt8]) {
            guard !truncated else { return }
            if pendingBreak > 0 && !out.isEmpty {
                switch pendingBreak {
                case 1: emitRaw([0x20])
                case 2: emitRaw([0x0A])
                default: emitRaw([0x0A, 0x0A])
                }
            }
            if pendingBreak >= 2 || out.isEmpty { if !linePrefix.isEmpty { emitRaw(linePrefix) } }
            pendingBreak = 0
            emitRaw(bytes)
        }

        mutating func emitRaw(_ bytes: [UInt8]) {
            guard !truncated else { return }
            var characters = 0
            for b in bytes where b & 0xC0 != 0x80 { characters += 1 }
            if outCharacters + characters <= budget {
                out.append(contentsOf: bytes)
                outCharacters += characters
                return
            }
            for b in bytes {
                // Count characters (UTF-8 lead bytes), stop at the budget on a character boundary.
                if b & 0xC0 != 0x80 {
                    if outCharacters >= budget {
                        truncated = true
                        return
                    }
                    outCharacters += 1
                }
                out.append(b)
            }
        }

        func result() -> ReducedHTML {
            ReducedHTML(title: String(decoding: title, as: UTF8.self), text: String(decoding: out, as: UTF8.self), truncated: truncated)
        }

        func skipPast(_ p: UnsafeBufferPointer<UInt8>, _ from: Int, _ byte: UInt8) -> Int {
            var k = from
            while k < p.count && p[k] != byte { k += 1 }
            return min(p.count, k + 1)
        }

        func isNameByte(_ c: UInt8) -> Bool {
            (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x3A
        }
    }

    private static let namedEntities: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "ndash": "–", "mdash": "—",
        "hellip": "…", "copy": "©", "reg": "®", "trade": "™", "deg": "°", "frac12": "½", "frac14": "¼", "frac34": "¾",
        "times": "×", "middot": "·", "rsquo": "’", "lsquo": "‘", "rdquo": "”", "ldquo": "“", "bull": "•", "micro": "µ",
        "eacute": "é", "egrave": "è", "agrave": "à", "ccedil": "ç", "uuml": "ü", "ouml": "ö", "auml": "ä", "ntilde": "ñ",
    ]

    /// Decodes the character reference at `p[i] == '&'`: its bytes and length, or nil (then '&' is text).
    fileprivate static func entity(_ p: UnsafeBufferPointer<UInt8>, _ i: Int, _ end: Int) -> ([UInt8], Int)? {
        var k = i + 1
        let limit = min(end, i + 12)
        while k < limit && p[k] != 0x3B && p[k] != 0x26 && p[k] != 0x3C && p[k] > 0x20 { k += 1 }
        guard k < end, p[k] == 0x3B, k > i + 1 else { return nil }
        let body = Array(p[(i + 1)..<k])
        let length = k - i + 1
        if body[0] == 0x23 /* # */ {
            var digits = body.dropFirst()
            var radix: UInt32 = 10
            if let x = digits.first, x == 0x78 || x == 0x58 {
                radix = 16
                digits = digits.dropFirst()
            }
            guard !digits.isEmpty, let value = UInt32(String(decoding: digits, as: UTF8.self), radix: Int(radix)) else { return nil }
            // Control characters and invalid scalars become a space.
            guard value >= 0x20, value != 0x7F, let scalar = Unicode.Scalar(value) else { return ([0x20], length) }
            return (Array(String(Character(scalar)).utf8), length)
        }
        guard let decoded = namedEntities[String(decoding: body, as: UTF8.self)] else { return nil }
        return (Array(decoded.utf8), length)
    }
}
