// Streamed Markdown for the terminal: headings, bold/italic, lists, quotes, code spans and blocks,
// tables, wrapped at word boundaries to the terminal width. Line-buffered: a visual line is written
// once it is complete (no re-flow flicker), a table once its last row arrived (to align it), and
// each delta costs O(delta + width).
import Views

/// Renders Markdown deltas (already sanitised by `TerminalText.StreamFilter`) to styled lines.
struct MarkdownStream {
    /// Colours and attributes; with styling off the same layout is produced without escape codes.
    let style: Style
    /// Columns to wrap to, read at every line (so a resized terminal is followed).
    let width: () -> Int

    private enum Kind: Equatable { case paragraph, heading(Int), bullet(indent: Int, marker: String), quote, table, fence, code, rule, blank }

    private var pending = ""           // the current source line, not yet written
    private var kind: Kind?            // decided once the line's start is known
    private var continuing = false     // part of this source line was already written
    private var inlineState = InlineState()
    private var inCodeBlock = false
    private var table: [[String]] = []

    init(style: Style, width: @escaping () -> Int) {
        self.style = style
        self.width = width
    }

    var hasPendingText: Bool { !pending.isEmpty || !table.isEmpty }

    /// Takes a delta; returns complete lines to write (possibly none).
    mutating func feed(_ delta: String) -> String {
        var out = ""
        var rest = Substring(delta)
        while let nl = rest.firstIndex(of: "\n") {
            pending += rest[..<nl]
            out += completeLine()
            rest = rest[rest.index(after: nl)...]
        }
        pending += rest
        out += emitFullVisualLines()
        return out
    }

    /// Ends the text: writes what is left (a line without its newline, a buffered table).
    mutating func finish() -> String {
        var out = ""
        if !pending.isEmpty || continuing { out += completeLine() }
        out += flushTable()
        inCodeBlock = false
        return out
    }

    // MARK: - Lines

    private var columns: Int { max(20, width()) }

    private mutating func completeLine() -> String {
        let line = pending
        pending = ""
        let k = kind ?? classify(line)
        kind = nil
        let wasContinuing = continuing
        continuing = false
        var out = ""
        if k != .table { out += flushTable() }
        switch k {
        case .fence:
            inCodeBlock.toggle()
        case .code:
            out += style.cyan("  " + line) + "\n"
        case .table:
            table.append(Self.cells(line))
        case .blank:
            out += "\n"
        case .rule:
            out += style.dim(String(repeating: "─", count: min(columns, 40))) + "\n"
        default:
            out += render(body(of: line, kind: k, continuing: wasContinuing), kind: k, continuing: wasContinuing, all: true).text
        }
        inlineState = InlineState()
        return out
    }

    /// While a paragraph, list item or quote streams, writes each visual line once it is full.
    private mutating func emitFullVisualLines() -> String {
        guard !pending.isEmpty else { return "" }
        if kind == nil {
            // The line's start decides its kind; wait until it cannot still become something else.
            let trimmed = pending.drop { $0 == " " }
            guard trimmed.count >= 4 || pending.contains(" ") && trimmed.contains(" ") else { return "" }
            kind = classify(pending)
        }
        guard let k = kind else { return "" }
        switch k {
        case .paragraph, .bullet, .quote: break
        default: return ""
        }
        let source = body(of: pending, kind: k, continuing: continuing)
        let r = render(source, kind: k, continuing: continuing, all: false)
        guard let cut = r.cut else { return "" }
        // Keep the unwritten rest as the pending text of the same source line.
        let prefixLength = pending.count - source.count
        pending = String(pending.dropFirst(prefixLength + cut.offset))
        inlineState = cut.state
        continuing = true
        return r.text
    }

    private func classify(_ line: String) -> Kind {
        if inCodeBlock { return line.trimmingCharacters(in: .whitespaces).hasPrefix("```") ? .fence : .code }
        let trimmed = line.drop { $0 == " " }
        let indent = line.count - trimmed.count
        if trimmed.isEmpty { return .blank }
        if trimmed.hasPrefix("```") { return .fence }
        if trimmed.hasPrefix("|") { return .table }
        if trimmed.hasPrefix(">") { return .quote }
        if let hashes = Optional(trimmed.prefix { $0 == "#" }.count), (1...6).contains(hashes),
           trimmed.dropFirst(hashes).first == " " { return .heading(hashes) }
        let compact = trimmed.filter { $0 != " " }
        if compact.count >= 3, let c = compact.first, "-*_".contains(c), compact.allSatisfy({ $0 == c }) { return .rule }
        if let first = trimmed.first, "-*+".contains(first), trimmed.dropFirst().first == " " {
            return .bullet(indent: indent, marker: "•")
        }
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        if !digits.isEmpty, digits.count <= 3 {
            let after = trimmed.dropFirst(digits.count)
            if (after.first == "." || after.first == ")"), after.dropFirst().first == " " {
                return .bullet(indent: indent, marker: digits + ".")
            }
        }
        return .paragraph
    }

    /// The line without its block marker ("## ", "- ", "> ").
    private func body(of line: String, kind: Kind, continuing: Bool) -> Substring {
        if continuing { return Substring(line) }
        let trimmed = line.drop { $0 == " " }
        switch kind {
        case .heading(let n): return trimmed.dropFirst(n + 1)
        case .bullet(_, let marker):
            let numbered = marker != "•"
            let skip = numbered ? (trimmed.prefix { $0.isASCII && $0.isNumber }.count + 2) : 2
            return trimmed.dropFirst(skip)
        case .quote: return trimmed.dropFirst().drop { $0 == " " }
        default: return trimmed
        }
    }

    private struct Rendered {
        var text: String
        /// Where the unwritten rest starts in the body, and the inline state there (partial rendering).
        var cut: (offset: Int, state: InlineState)?
    }

    /// Wraps a block's body with its prefixes. With `all` false, only full visual lines are
    /// written and the rest is reported as `cut`.
    private func render(_ body: Substring, kind: Kind, continuing: Bool, all: Bool) -> Rendered {
        var first: String, rest: String, firstWidth: Int
        var extra = InlineState()
        switch kind {
        case .heading(let n):
            first = ""; rest = ""; firstWidth = 0
            extra.bold = true
            extra.heading = n <= 2
        case .bullet(let indent, let marker):
            let pad = String(repeating: " ", count: indent)
            first = continuing ? pad + String(repeating: " ", count: marker.count + 1) : pad + marker + " "
            rest = pad + String(repeating: " ", count: marker.count + 1)
            firstWidth = first.count
        case .quote:
            first = "│ "; rest = "│ "; firstWidth = 2
        default:
            first = ""; rest = ""; firstWidth = 0
        }
        let (cells, _) = Inline.parse(body, from: inlineState)
        let lines = Inline.wrap(cells, width: columns, firstIndent: firstWidth, indent: rest.count)
        let shown = all ? lines : Array(lines.dropLast())
        guard !shown.isEmpty || all else { return Rendered(text: "", cut: nil) }
        var text = ""
        for (i, line) in shown.enumerated() {
            let lead = i == 0 ? first : rest
            text += (kind == .quote ? style.dim(lead) : lead) + Inline.styled(line, style: style, extra: extra) + "\n"
        }
        if all { return Rendered(text: text, cut: nil) }
        guard let next = lines.last?.first else { return Rendered(text: text, cut: nil) }
        return Rendered(text: text, cut: (next.offset, next.state))
    }

    // MARK: - Tables

    static func cells(_ line: String) -> [String] {
        var t = line.trimmingCharacters(in: .whitespaces)
        if t.hasPrefix("|") { t.removeFirst() }
        if t.hasSuffix("|") { t.removeLast() }
        return t.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    }

    static func isSeparator(_ row: [String]) -> Bool {
        !row.isEmpty && row.allSatisfy { cell in !cell.isEmpty && cell.allSatisfy { "-:".contains($0) } && cell.contains("-") }
    }

    private mutating func flushTable() -> String {
        guard !table.isEmpty else { return "" }
        defer { table = [] }
        var rows = table
        var header = false
        var rightAligned: Set<Int> = []
        if rows.count > 1 && Self.isSeparator(rows[1]) {
            // "---:" right-aligns a column (numbers).
            rightAligned = Set(rows[1].indices.filter { rows[1][$0].hasSuffix(":") && !rows[1][$0].hasPrefix(":") })
            rows.remove(at: 1)
            header = true
        }
        rows = rows.filter { !Self.isSeparator($0) }
        let count = rows.map(\.count).max() ?? 0
        let parsed: [[[Inline.Cell]]] = rows.map { row in
            (0..<count).map { i in Inline.parse(Substring(i < row.count ? row[i] : ""), from: InlineState()).cells }
        }
        var widths = (0..<count).map { i in max(1, parsed.map { TerminalTextWidth.columns(String($0[i].map(\.character))) }.max() ?? 1) }
        // Separators " │ " between columns; shrink the widest column until the table fits.
        let available = columns - 3 * max(0, count - 1)
        while widths.reduce(0, +) > available, let widest = widths.indices.max(by: { widths[$0] < widths[$1] }), widths[widest] > 4 {
            widths[widest] -= 1
        }
        var out = ""
        for (r, row) in parsed.enumerated() {
            let wrapped = row.enumerated().map { Inline.wrap($1, width: widths[$0], firstIndent: 0, indent: 0) }
            let height = wrapped.map(\.count).max() ?? 1
            for l in 0..<height {
                var parts: [String] = []
                for (i, cellLines) in wrapped.enumerated() {
                    let line = l < cellLines.count ? cellLines[l] : []
                    let shown = TerminalTextWidth.columns(String(line.map(\.character)))
                    var extra = InlineState()
                    extra.bold = header && r == 0
                    let padding = String(repeating: " ", count: max(0, widths[i] - shown))
                    let text = Inline.styled(line, style: style, extra: extra)
                    parts.append(rightAligned.contains(i) ? padding + text : text + (i == wrapped.count - 1 ? "" : padding))
                }
                var row = ""
                for (i, part) in parts.enumerated() {
                    // No trailing blank after the last separator when the last cell is empty here.
                    if i > 0 { row += style.dim(i == parts.count - 1 && part.isEmpty ? " │" : " │ ") }
                    row += part
                }
                if !style.enabled { while row.last == " " { row.removeLast() } }
                out += row + "\n"
            }
            if header && r == 0 {
                out += style.dim(widths.map { String(repeating: "─", count: $0) }.joined(separator: "─┼─")) + "\n"
            }
        }
        return out
    }
}

/// Inline markup state: inside `**bold**`, `*italic*`, `` `code` `` (and heading styling).
struct InlineState: Equatable {
    var bold = false
    var italic = false
    var code = false
    var heading = false
}

enum Inline {
    struct Cell {
        var character: Character
        var state: InlineState
        /// Offset of the character in the parsed source.
        var offset: Int
    }

    /// The visible characters of `text` with their styling, markers removed. A `*`/`**` marker
    /// opens only before a non-space and closes only after one, so "5 * 3" stays as it is.
    static func parse(_ text: Substring, from start: InlineState) -> (cells: [Cell], end: InlineState) {
        var state = start
        var cells: [Cell] = []
        let chars = Array(text)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "`" {
                state.code.toggle()
                i += 1
                continue
            }
            if !state.code && (c == "*" || c == "_") {
                let double = i + 1 < chars.count && chars[i + 1] == c
                let n = double ? 2 : 1
                let before: Character? = i > 0 ? chars[i - 1] : nil
                let after: Character? = i + n < chars.count ? chars[i + n] : nil
                let opens = after.map { !$0.isWhitespace } ?? false
                let closes = before.map { !$0.isWhitespace } ?? false
                // A single "_" inside a word (snake_case) is a letter.
                let wordy = c == "_" && !double && (before.map { $0.isLetter || $0.isNumber } ?? false) && (after.map { $0.isLetter || $0.isNumber } ?? false)
                let isOn = double ? state.bold : state.italic
                if !wordy && ((isOn && closes) || (!isOn && opens && (before.map { !$0.isLetter && !$0.isNumber } ?? true) || c == "*" && !isOn && opens)) {
                    if double { state.bold.toggle() } else { state.italic.toggle() }
                    i += n
                    continue
                }
            }
            cells.append(Cell(character: c, state: state, offset: i))
            i += 1
        }
        return (cells, state)
    }

    /// Greedy word wrap of styled cells to `width` columns (first line `firstIndent` narrower,
    /// the others `indent`); a word longer than a line is broken.
    static func wrap(_ cells: [Cell], width: Int, firstIndent: Int, indent: Int) -> [[Cell]] {
        var lines: [[Cell]] = []
        var line: [Cell] = []
        var used = 0
        var limit = max(1, width - firstIndent)
        var i = 0
        while i < cells.count {
            if cells[i].character == " " {
                i += 1
                continue
            }
            var j = i
            var wordWidth = 0
            while j < cells.count && cells[j].character != " " {
                wordWidth += TerminalTextWidth.columns(cells[j].character)
                j += 1
            }
            let space = line.isEmpty ? 0 : 1
            if used + space + wordWidth <= limit {
                if space == 1 { line.append(cells[i - 1].character == " " ? cells[i - 1] : Cell(character: " ", state: cells[i].state, offset: cells[i].offset)) }
                line.append(contentsOf: cells[i..<j])
                used += space + wordWidth
            } else if wordWidth <= max(1, width - indent) || !line.isEmpty {
                if !line.isEmpty { lines.append(line) }
                limit = max(1, width - indent)
                line = []
                used = 0
                // Break a word too long for any line.
                var k = i
                while k < j {
                    let w = TerminalTextWidth.columns(cells[k].character)
                    if used + w > limit && !line.isEmpty { lines.append(line); line = []; used = 0 }
                    line.append(cells[k])
                    used += w
                    k += 1
                }
            } else {
                var k = i
                while k < j {
                    let w = TerminalTextWidth.columns(cells[k].character)
                    if used + w > limit && !line.isEmpty { lines.append(line); line = []; used = 0; limit = max(1, width - indent) }
                    line.append(cells[k])
                    used += w
                    k += 1
                }
            }
            i = j
        }
        lines.append(line)
        return lines
    }

    /// Plain text (no markup) wrapped to `width` columns, later lines `indent` narrower.
    /// Leading spaces are kept (on every line of the paragraph).
    static func wrapPlain(_ text: String, width: Int, indent: Int) -> [String] {
        let lead = String(text.prefix { $0 == " " })
        let cells = text.dropFirst(lead.count).enumerated().map { Cell(character: $1, state: InlineState(), offset: $0) }
        return wrap(cells, width: width - lead.count, firstIndent: 0, indent: indent).map { lead + String($0.map(\.character)) }
    }

    /// The cells as text with SGR attributes (none when styling is off).
    static func styled(_ cells: [Cell], style: Style, extra: InlineState) -> String {
        guard style.enabled else { return String(cells.map(\.character)) }
        var out = ""
        var run = ""
        var current: InlineState?
        func flush() {
            guard let s = current, !run.isEmpty else { return }
            var codes: [String] = []
            if s.bold || extra.bold { codes.append("1") }
            if s.italic { codes.append("3") }
            if s.code { codes.append("36") }
            if extra.heading { codes.append("4") }
            out += codes.isEmpty ? run : "\u{1B}[\(codes.joined(separator: ";"))m\(run)\u{1B}[0m"
            run = ""
        }
        for cell in cells {
            if cell.state != current { flush(); current = cell.state }
            run.append(cell.character)
        }
        flush()
        return out
    }
}
