// Newline-delimited JSON-RPC framing for the MCP stdio transport, with a bound on a line's size.

/// One unit read from the client.
public enum Frame: Sendable, Hashable {
    /// A complete line (without its newline, a trailing CR removed); never empty.
    case line([UInt8])
    /// A line longer than the limit: it was dropped without being kept in memory. `head` and `tail`
    /// are its first and last bytes (at most `LineFramer.keptEdge` each), enough to find its id.
    case oversized(size: Int, head: [UInt8], tail: [UInt8])
}

/// Splits a byte stream into lines. A line over `limit` bytes is skipped up to its newline while
/// keeping only its edges, so a 10 MB request costs no more memory than a small one.
public struct LineFramer: Sendable {
    /// The largest line the server reads whole (4 MiB).
    public static let defaultLimit = 4 * 1024 * 1024
    /// Bytes kept from each end of an oversized line.
    public static let keptEdge = 1024

    public let limit: Int
    private var buffer: [UInt8] = []
    /// Set while skipping an oversized line: its size so far, first and last bytes.
    private var skipping: (size: Int, head: [UInt8], tail: [UInt8])?

    public init(limit: Int = LineFramer.defaultLimit) {
        self.limit = max(1, limit)
    }

    /// Feeds bytes; returns the frames they complete, in order.
    public mutating func feed<C: Collection>(_ bytes: C) -> [Frame] where C.Element == UInt8 {
        var frames: [Frame] = []
        var rest = bytes[...]
        while !rest.isEmpty {
            if let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
                take(rest[rest.startIndex..<newline])
                if let frame = endLine() { frames.append(frame) }
                rest = rest[rest.index(after: newline)...]
            } else {
                take(rest)
                break
            }
        }
        return frames
    }

    /// The end of the input: an unterminated last line is still a frame.
    public mutating func finish() -> Frame? { endLine() }

    private mutating func take<C: Collection>(_ part: C) where C.Element == UInt8 {
        guard !part.isEmpty else { return }
        if var s = skipping {
            s.size += part.count
            // The head fills up to its size however the line was split into reads.
            if s.head.count < Self.keptEdge { s.head.append(contentsOf: part.prefix(Self.keptEdge - s.head.count)) }
            s.tail = Self.lastBytes(s.tail, part)
            skipping = s
            return
        }
        if buffer.count + part.count <= limit {
            buffer.append(contentsOf: part)
            return
        }
        // Over the limit: keep only the edges from here on.
        var all = buffer
        all.append(contentsOf: part.prefix(Self.keptEdge))
        let head = Array(all.prefix(Self.keptEdge))
        let tail = Self.lastBytes(Array(buffer.suffix(Self.keptEdge)), part)
        skipping = (buffer.count + part.count, head, tail)
        buffer = []
    }

    private mutating func endLine() -> Frame? {
        if let s = skipping {
            skipping = nil
            return .oversized(size: s.size, head: s.head, tail: s.tail)
        }
        var line = buffer
        buffer = []
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        // Blank lines between messages are tolerated and ignored.
        guard line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else { return nil }
        return .line(line)
    }

    private static func lastBytes<C: Collection>(_ kept: [UInt8], _ more: C) -> [UInt8] where C.Element == UInt8 {
        if more.count >= keptEdge { return Array(more.suffix(keptEdge)) }
        return Array((kept + more).suffix(keptEdge))
    }
}
