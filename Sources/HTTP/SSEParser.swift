// Incremental parser for the text/event-stream (server-sent events) grammar, working on raw bytes.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One dispatched server-sent event.
public struct SSEEvent: Sendable, Hashable {
    /// The `event:` name, or "message" when the event had none (as the spec says).
    public var event: String
    /// The `data:` lines joined with "\n".
    public var data: String
    /// The last event id seen so far in the stream (ids are sticky across events), if any.
    public var id: String?
    public init(event: String = "message", data: String, id: String? = nil) {
        self.event = event
        self.data = data
        self.id = id
    }
}

/// One dispatched event, lent by `SSEParser.feed(_:onEvent:)`: `data` points into the parser's
/// buffer and is valid only during the call that receives it (copy what must outlive it).
public struct SSEEventView {
    /// The `event:` name, or "message" when the event had none.
    public let event: String
    /// The bytes of the `data:` lines joined with "\n" (not checked as UTF-8).
    public let data: UnsafeBufferPointer<UInt8>
    /// The last event id seen so far in the stream, if any.
    public let id: String?
}

extension SSEEvent {
    /// An owned copy of a lent event, the data decoded as UTF-8 (invalid bytes replaced).
    public init(_ view: SSEEventView) {
        self.init(event: view.event, data: String(decoding: view.data, as: UTF8.self), id: view.id)
    }
}

/// Parses the event-stream grammar (WHATWG HTML §9.2.6) from arbitrarily split byte chunks:
/// LF, CRLF and CR line ends (a CR ending one chunk and an LF starting the next count as one
/// line end), `:` comments, multi-line `data` joined with "\n", `event`, `id` (sticky, ignored if
/// it contains NUL), `retry` (ignored: the caller owns reconnection), a UTF-8 BOM at the start.
///
/// One deliberate leniency: `finish()` dispatches an event whose blank terminating line never
/// came (the spec discards it). Some servers end the stream right after the last `data:` line;
/// adapters still detect truncation from their own terminal markers.
///
/// Lines that are neither comments nor known fields (for example a bare JSON error object that a
/// server wrote without `data:` framing) are ignored as the spec says, but recorded in
/// `nonSSEText` so adapters can surface them.
public struct SSEParser: Sendable {
    /// True once a non-empty line was seen that is neither a comment nor a known field.
    public private(set) var sawNonSSEText = false
    /// How many `:` comment lines were seen (keep-alives such as `: ping`).
    public private(set) var comments = 0
    /// True once one event (its data lines together, or any single line) grew past
    /// `maxEventBytes`. The parser then drops what it held and ignores the rest of the stream:
    /// a server that never ends a line must not fill the memory.
    public private(set) var sawOversizedEvent = false
    public static let maxEventBytes = 32 * 1024 * 1024
    /// Up to `nonSSELimit` bytes of such lines, each followed by "\n".
    public var nonSSEText: String { String(decoding: nonSSEBytes, as: UTF8.self) }
    public static let nonSSELimit = 64 * 1024

    private var nonSSEBytes: [UInt8] = []
    private var partialLine: [UInt8] = []
    private var dataBuffer: [UInt8] = []
    private var eventName: [UInt8] = []
    private var lastEventID: String?
    private var lastNameBytes: [UInt8] = []
    private var lastName = "message"
    private var pendingCR = false
    private var bomState: BOMState = .checking([])

    private enum BOMState: Sendable {
        case checking([UInt8])
        case done
    }

    private static let lf: UInt8 = 0x0A
    private static let cr: UInt8 = 0x0D
    private static let colon: UInt8 = 0x3A
    private static let space: UInt8 = 0x20
    private static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]

    public init() {}

    /// Feeds the next chunk of the stream; returns the events it completed, in order.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> [SSEEvent] {
        var out: [SSEEvent] = []
        feed(bytes) { out.append(SSEEvent($0)) }
        return out
    }

    /// Ends the stream: processes an unterminated last line and returns a pending event.
    public mutating func finish() -> [SSEEvent] {
        var out: [SSEEvent] = []
        finish { out.append(SSEEvent($0)) }
        return out
    }

    /// Feeds the next chunk of the stream, lending each event it completes to `onEvent`, in order,
    /// without copying its data. If `onEvent` throws, the rest of the chunk is not parsed: the
    /// stream is over for this parser.
    public mutating func feed(_ bytes: some Collection<UInt8>, onEvent: (SSEEventView) throws -> Void) rethrows {
        if sawOversizedEvent { return }
        if case .checking(var seen) = bomState {
            // The BOM may itself be split across chunks: hold back up to three bytes.
            var rest = bytes.makeIterator()
            while seen.count < 3, let b = rest.next() { seen.append(b) }
            if seen.count < 3 && seen == Array(Self.bom.prefix(seen.count)) {
                bomState = .checking(seen)
                return
            }
            bomState = .done
            var remainder = seen == Self.bom ? [] : seen
            while let b = rest.next() { remainder.append(b) }
            try remainder.withUnsafeBufferPointer { try consume($0, onEvent) }
            return
        }
        if try bytes.withContiguousStorageIfAvailable({ try consume($0, onEvent) }) == nil {
            try Array(bytes).withUnsafeBufferPointer { try consume($0, onEvent) }
        }
    }

    /// Ends the stream: processes an unterminated last line and lends a pending event to `onEvent`.
    public mutating func finish(onEvent: (SSEEventView) throws -> Void) rethrows {
        if sawOversizedEvent { return }
        if case .checking(let seen) = bomState {
            bomState = .done
            if seen != Self.bom { try seen.withUnsafeBufferPointer { try consume($0, onEvent) } }
        }
        if !partialLine.isEmpty {
            let line = partialLine
            partialLine = []
            try line.withUnsafeBufferPointer { try processLine($0, onEvent) }
        }
        pendingCR = false
        try dispatch(onEvent)
    }

    private mutating func consume(_ buf: UnsafeBufferPointer<UInt8>, _ onEvent: (SSEEventView) throws -> Void) rethrows {
        let n = buf.count
        var i = 0
        guard n > 0 else { return } // an empty chunk must not forget a pending CR
        if pendingCR {
            pendingCR = false
            if buf[0] == Self.lf { i = 1 }
        }
        guard let base = buf.baseAddress else { return }
        let raw = UnsafeRawPointer(base)
        var lineStart = i
        while i < n {
            // memchr is vectorised: find the next LF, then any CR before it.
            let lfAt = memchr(raw + i, Int32(Self.lf), n - i).map { raw.distance(to: UnsafeRawPointer($0)) } ?? n
            let end = memchr(raw + i, Int32(Self.cr), lfAt - i).map { raw.distance(to: UnsafeRawPointer($0)) } ?? lfAt
            if end == n { break }
            i = end
            let c = buf[i]
            if partialLine.isEmpty {
                try processLine(UnsafeBufferPointer(rebasing: buf[lineStart..<i]), onEvent)
            } else {
                if partialLine.count + (i - lineStart) > Self.maxEventBytes { return oversized() }
                partialLine.append(contentsOf: UnsafeBufferPointer(rebasing: buf[lineStart..<i]))
                // Move the buffer out (no copy), process it, and hand its capacity back.
                var line: [UInt8] = []
                swap(&line, &partialLine)
                defer {
                    if !sawOversizedEvent { // else the memory goes, as oversized() meant
                        line.removeAll(keepingCapacity: true)
                        swap(&line, &partialLine)
                    }
                }
                try line.withUnsafeBufferPointer { try processLine($0, onEvent) }
            }
            if sawOversizedEvent { return }
            if c == Self.cr {
                if i + 1 < n {
                    if buf[i + 1] == Self.lf { i += 1 }
                } else {
                    pendingCR = true
                }
            }
            i += 1
            lineStart = i
        }
        if lineStart < n {
            if partialLine.count + (n - lineStart) > Self.maxEventBytes { return oversized() }
            partialLine.append(contentsOf: UnsafeBufferPointer(rebasing: buf[lineStart..<n]))
        }
    }

    private mutating func oversized() {
        sawOversizedEvent = true
        partialLine = []
        dataBuffer = []
        eventName = []
    }

    private mutating func processLine(_ line: UnsafeBufferPointer<UInt8>, _ onEvent: (SSEEventView) throws -> Void) rethrows {
        if line.isEmpty {
            try dispatch(onEvent)
            return
        }
        if line[0] == Self.colon { comments &+= 1; return } // comment
        var colonAt = line.count
        if let base = line.baseAddress, let hit = memchr(base, Int32(Self.colon), line.count) {
            colonAt = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
        }
        let field = UnsafeBufferPointer(rebasing: line[0..<colonAt])
        var valueStart = colonAt + 1
        if valueStart < line.count && line[valueStart] == Self.space { valueStart += 1 }
        let value = valueStart < line.count ? UnsafeBufferPointer(rebasing: line[valueStart...]) : UnsafeBufferPointer(rebasing: line[line.count...])
        if Self.equals(field, "data") {
            if dataBuffer.count + value.count + 1 > Self.maxEventBytes { return oversized() }
            dataBuffer.append(contentsOf: value)
            dataBuffer.append(Self.lf)
        } else if Self.equals(field, "event") {
            eventName.removeAll(keepingCapacity: true)
            eventName.append(contentsOf: value)
        } else if Self.equals(field, "id") {
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        } else if Self.equals(field, "retry") {
            // Reconnection delay: ignored, the caller decides about retries.
        } else {
            sawNonSSEText = true
            if nonSSEBytes.count < Self.nonSSELimit {
                nonSSEBytes.append(contentsOf: line.prefix(Self.nonSSELimit - nonSSEBytes.count))
                nonSSEBytes.append(Self.lf)
            }
        }
    }

    private mutating func dispatch(_ onEvent: (SSEEventView) throws -> Void) rethrows {
        if dataBuffer.isEmpty {
            eventName.removeAll(keepingCapacity: true)
            return
        }
        dataBuffer.removeLast() // the LF after the last data line
        let name: String
        if eventName.isEmpty {
            name = "message"
        } else if eventName == lastNameBytes {
            name = lastName // streams repeat a few names; don't build the same String per event
        } else {
            name = String(decoding: eventName, as: UTF8.self)
            lastNameBytes = eventName
            lastName = name
        }
        // The buffers are cleared even if onEvent throws; their capacity is reused.
        defer {
            dataBuffer.removeAll(keepingCapacity: true)
            eventName.removeAll(keepingCapacity: true)
        }
        try dataBuffer.withUnsafeBufferPointer { try onEvent(SSEEventView(event: name, data: $0, id: lastEventID)) }
    }

    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        guard bytes.count == word.utf8CodeUnitCount else { return false }
        let p = word.utf8Start
        for k in 0..<bytes.count where bytes[k] != p[k] { return false }
        return true
    }
}
