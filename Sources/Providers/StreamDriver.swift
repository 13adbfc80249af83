// The shared request/stream loop: send, map HTTP errors, parse SSE, hand events to a wire decoder.
import Base
import HTTP
import Agent
import Synchronization

/// Turns one provider's SSE events into ChatEvents. One instance per model turn.
protocol WireDecoder {
    /// Decodes one SSE event (lent by the parser: read it, don't keep it); throws
    /// `ProviderStreamError` for errors reported in the stream.
    mutating func decode(_ event: SSEEventView) throws -> [ChatEvent]
    /// The stream ended (EOF). Returns the closing events, or throws `ProviderStreamError.truncated`
    /// when the provider's terminal marker never came.
    mutating func finish() throws -> [ChatEvent]
    /// True once the provider's terminal marker arrived: the driver stops reading, so a server
    /// that keeps the connection open afterwards cannot turn a finished answer into a timeout.
    var isComplete: Bool { get }
}

/// Failures a decoder reports; the driver turns them into ChatErrors knowing whether output started.
enum ProviderStreamError: Error {
    case provider(ProviderErrorBody)
    case truncated
    case blocked(String)
    case malformed(String)
}

struct StreamDriver: Sendable {
    var transport: any HTTPTransport
    var mapper: ErrorMapper
    var now: @Sendable () -> Double
    /// Stamped on every continuation item of the stream (the adapter's `continuationOrigin`), so
    /// the item is later replayed only to the server and model that produced it.
    var origin: String = ""
    /// Attachments whose base64 the body carries as markers: spliced in just before sending.
    var attachments: [AttachmentRef] = []

    /// Sends `request` and streams decoded events into `out`. Throws ChatError. A thrown error
    /// with a non-nil `httpStatus` means the server refused before any output was produced.
    func run<D: WireDecoder>(_ request: HTTPRequest, decoder: D, out: AsyncThrowingStream<ChatEvent, Error>.Continuation) async throws {
        let response: HTTPStreamingResponse
        do {
            response = try await transport.send(try withAttachments(request))
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw mapper.mapTransport(error, started: false)
        }
        let status = response.head.status
        guard (200..<300).contains(status) else {
            var body: [UInt8] = []
            do {
                for try await chunk in response.body {
                    body.append(contentsOf: chunk)
                    if body.count > 64 * 1024 { break }
                }
            } catch {
                // The status already says what failed; a broken error body adds nothing.
            }
            throw mapper.map(status: status, head: response.head, body: body, now: now())
        }

        var stream = StreamDecoding(decoder: decoder, mapper: mapper)
        let gate = EventGate.current
        do {
            for try await chunk in response.body {
                var produced = 0
                try stream.feed(chunk) { out.yield(stamped($0)); produced += 1 }
                try Task.checkCancellation()
                if stream.isComplete { break }
                // Decoding outruns the consumer (which stores every delta): wait for it rather
                // than buffer the whole stream, so the transport's own backpressure applies too.
                if let gate { try await gate.produced(produced) }
            }
        } catch let error as ChatError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw mapper.mapTransport(error, started: stream.started)
        }
        if Task.isCancelled { throw CancellationError() }
        try stream.finish(status: status) { out.yield(stamped($0)) }
    }

    /// `request` with the attachments' bytes in its body (read from their sources in chunks and
    /// base64-encoded straight into the body). A source that cannot be read fails the turn.
    private func withAttachments(_ request: HTTPRequest) throws -> HTTPRequest {
        guard !attachments.isEmpty else { return request }
        var out = request
        do {
            let json = request.body
            out.sharedBody = try HTTPBodyBuffer(count: AttachmentSplicer.splicedCount(json, attachments)) {
                try AttachmentSplicer.splice(json, attachments, into: $0)
            }
            out.body = []
        } catch let error as AgentError {
            throw ChatError(.fatal, error.line)
        } catch {
            throw ChatError(.fatal, "An attachment could not be read from the database; attach the file again.")
        }
        return out
    }

    private func stamped(_ event: ChatEvent) -> ChatEvent {
        guard case .continuation(var item) = event, item.origin.isEmpty else { return event }
        item.origin = origin
        return .continuation(item)
    }
}

/// The synchronous heart of `StreamDriver.run` for a 2xx response: SSE parsing, the wire decoder
/// and the mapping of stream errors to ChatErrors, fed one body chunk at a time. Separate from the
/// transport so the fuzz targets (tools/fuzz) drive exactly this path.
struct StreamDecoding<D: WireDecoder> {
    private(set) var decoder: D
    let mapper: ErrorMapper
    private var parser = SSEParser()
    /// `ChatError.code` of a local server's empty 200 stream (see `finish`).
    static var emptyStreamCode: String { ChatError.emptyStreamCode }
    /// True once output (text, a tool call, a continuation item) was produced.
    private(set) var started = false
    private var sawEvent = false
    /// Local servers: SSE comments (`: ping`) and events that decode to nothing (llama.cpp's
    /// `prompt_progress`) are passed on as `.alive`, which the runner counts as liveness.
    let heartbeats: Bool

    init(decoder: D, mapper: ErrorMapper) {
        self.decoder = decoder
        self.mapper = mapper
        heartbeats = ModelCatalog.localProviders.contains(mapper.provider)
    }

    /// True once the provider's terminal marker arrived; the caller stops reading.
    var isComplete: Bool { decoder.isComplete }

    /// Parses and decodes the next body chunk, handing each event to `emit` as it is decoded.
    /// Throws ChatError for an error the provider reported in the stream.
    mutating func feed(_ chunk: some Collection<UInt8>, emit: (ChatEvent) -> Void) throws {
        let comments = parser.comments
        try parse(emit: emit) { try $0.feed(chunk, onEvent: $1) }
        if heartbeats && parser.comments != comments { emit(.alive) }
    }

    /// Runs one parser step whose events go to `handle`. `handle` mutates the rest of self, so the
    /// parser is taken out for the step (a swap, no copy) and the two accesses don't overlap.
    private mutating func parse(emit: (ChatEvent) -> Void,
                                _ step: (inout SSEParser, (SSEEventView) throws -> Void) throws -> Void) throws {
        var parser = SSEParser()
        swap(&parser, &self.parser)
        defer { swap(&parser, &self.parser) }
        // `emit` is only called during the step; Swift cannot see that through two closures.
        try withoutActuallyEscaping(emit) { emit in try step(&parser) { try handle($0, emit: emit) } }
        if parser.sawOversizedEvent {
            throw map(.malformed("an event over \(SSEParser.maxEventBytes >> 20) MB"), started: started)
        }
    }

    /// The body ended (EOF, or the terminal marker arrived): dispatches what is pending and
    /// emits the closing events, or throws the ChatError that says why the stream is unusable.
    /// `status` is the response's HTTP status, reported when the body was not an event stream.
    mutating func finish(status: Int, emit: (ChatEvent) -> Void) throws {
        if !decoder.isComplete { try parse(emit: emit) { try $0.finish(onEvent: $1) } }
        if parser.sawNonSSEText && !decoder.isComplete {
            // An error object written without SSE framing (seen from Gemini mid-stream).
            if let body = ProviderErrorBody.parse(bytes: Array(parser.nonSSEText.utf8)) {
                throw mapper.mapStreamError(body, started: started)
            }
            if !sawEvent {
                throw ChatError(.fatal, "the response from \(mapper.provider) was not an event stream; check the base URL", httpStatus: status)
            }
        }
        let closing: [ChatEvent]
        do {
            closing = try decoder.finish()
        } catch let error as ProviderStreamError {
            if !sawEvent && !parser.sawNonSSEText {
                if ModelCatalog.localProviders.contains(mapper.provider) {
                    // llama-cpp-python answers a prompt over its context with 200 and no event;
                    // a retry never helps, a smaller request may.
                    throw ChatError(.contextOverflow, "\(mapper.provider) answered with an empty stream", httpStatus: status, code: Self.emptyStreamCode)
                }
                throw ChatError(.retryable, "\(mapper.provider) closed the connection without answering")
            }
            throw map(error, started: started)
        }
        for e in closing { emit(e) }
    }

    private mutating func handle(_ event: SSEEventView, emit: (ChatEvent) -> Void) throws {
        sawEvent = true
        let decoded: [ChatEvent]
        do {
            decoded = try decoder.decode(event)
        } catch let error as ProviderStreamError {
            throw map(error, started: started)
        }
        if heartbeats && decoded.isEmpty && !decoder.isComplete { emit(.alive) }
        for e in decoded {
            switch e {
            case .textDelta, .toolCall, .continuation: started = true
            default: break
            }
            emit(e)
        }
    }

    func map(_ error: ProviderStreamError, started: Bool) -> ChatError {
        switch error {
        case .provider(let body):
            return mapper.mapStreamError(body, started: started)
        case .truncated:
            return started ? ChatError(.unknownOutcome, "the \(mapper.provider) answer was cut off before it finished")
                : ChatError(.retryable, "the \(mapper.provider) stream ended before any answer")
        case .blocked(let reason):
            return ChatError(.fatal, "\(mapper.provider) blocked the request (\(mapper.clean(reason))); rephrase it")
        case .malformed(let what):
            // Garbled bytes are a transient fault of the provider or a proxy on the way, not a
            // refusal: before any output, one retry is safe and the settings are not to blame.
            return started ? ChatError(.unknownOutcome, "\(mapper.provider) sent a damaged stream (\(what))")
                : ChatError(.retryable, "\(mapper.provider) sent a damaged stream (\(what))")
        }
    }
}

/// Runs `body` in a task tied to the returned stream: cancelling the consumer cancels the request.
/// The producer waits (`EventGate`) while more than `EventGate.high` events wait for the consumer.
func makeEventStream(_ body: @escaping @Sendable (AsyncThrowingStream<ChatEvent, Error>.Continuation) async throws -> Void)
    -> AsyncThrowingStream<ChatEvent, Error> {
    let gate = EventGate()
    let inner = AsyncThrowingStream<ChatEvent, Error> { continuation in
        let task = Task {
            do {
                try await EventGate.$current.withValue(gate) { try await body(continuation) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in
            task.cancel()
            gate.release()
        }
    }
    let reader = EventReader(inner.makeAsyncIterator(), gate: gate)
    return AsyncThrowingStream(unfolding: { try await reader.next() })
}

/// Backpressure between a decoding task and the consumer of its events: the producer counts
/// what it yielded and waits while more than `high` events are unread, until `low` are left.
final class EventGate: Sendable {
    static let high = 4096
    static let low = 1024
    @TaskLocal static var current: EventGate?

    private struct State {
        var pending = 0
        var waiter: CheckedContinuation<Void, Never>?
        var released = false
    }
    private let state = Mutex(State())

    /// The producer yielded `count` events; waits while too many are unread.
    func produced(_ count: Int) async throws {
        let mustWait = state.withLock { s -> Bool in
            s.pending += count
            return s.pending > Self.high && !s.released
        }
        guard mustWait else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.pending <= Self.low || s.released { return true }
                    s.waiter = c
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: {
            release()
        }
        try Task.checkCancellation()
    }

    /// The consumer took one event.
    func consumed() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.pending -= 1
            guard s.pending <= Self.low, let w = s.waiter else { return nil }
            s.waiter = nil
            return w
        }
        waiter?.resume()
    }

    /// Nobody will read any more: never wait again.
    func release() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.released = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }
}

/// Reads the event stream for its one consumer, telling the gate what was taken.
private final class EventReader: @unchecked Sendable {
    private var iterator: AsyncThrowingStream<ChatEvent, Error>.AsyncIterator
    private let gate: EventGate
    init(_ iterator: AsyncThrowingStream<ChatEvent, Error>.AsyncIterator, gate: EventGate) {
        self.iterator = iterator
        self.gate = gate
    }
    func next() async throws -> ChatEvent? {
        let event = try await iterator.next()
        if event != nil { gate.consumed() }
        return event
    }
}

extension JSONDocument {
    /// Parses the data of one SSE event as this document and lends its top-level value to `body`,
    /// reporting a malformed stream if it is not JSON. Each decoder keeps one document for its
    /// whole stream and reads a few fields of each event in place.
    func withEvent<R>(_ event: SSEEventView, _ body: (JSONRef) throws -> R) throws -> R {
        do {
            try parse(event.data)
        } catch {
            // Bytes that are not UTF-8 inside a string are replaced by U+FFFD, as when events were
            // decoded to Strings first: one bad byte from a proxy must not cost the whole answer.
            // Valid UTF-8 repairs to the same bytes and fails again.
            var repaired = String(decoding: event.data, as: UTF8.self)
            guard (try? repaired.withUTF8 { try parse($0) }) != nil else {
                throw ProviderStreamError.malformed("an event was not valid JSON")
            }
        }
        return try withRoot(body)
    }
}

/// The type of a stream event: the payload's "type" string, or the SSE event name when the payload
/// has none. Matched in place by `switch`, so no String is built per event to compare it:
/// `switch EventType(payload, event) { case "message_stop": … }`.
struct EventType {
    private let member: JSONRef?
    private let name: String

    init(_ payload: JSONRef, _ event: SSEEventView) {
        member = payload["type"].flatMap { $0.isStringValue ? $0 : nil }
        name = event.event
    }

    static func ~= (pattern: StaticString, type: EventType) -> Bool {
        type.member?.isString(pattern) ?? (pattern.description == type.name)
    }
}

/// Request helpers shared by the adapters.
enum WireJSON {
    static func body(_ value: JSONValue) -> [UInt8] { Array(value.serialized.utf8) }

    /// Tool arguments as a JSON object: "" or whitespace means {}; unparsable text is kept as a string
    /// under "_raw" so the request still serializes (the model sees what it sent).
    static func argumentsObject(_ call: ToolCall) -> JSONValue {
        if let parsed = try? call.parsedArguments() { return parsed }
        return .object(["_raw": .string(call.arguments)])
    }

    /// Merges `extra` into the object `base` (top level only).
    static func merge(_ base: [String: JSONValue], _ extra: [String: JSONValue]) -> JSONValue {
        var out = base
        for (k, v) in extra { out[k] = v }
        return .object(out)
    }
}

/// A flag shared by copies of an adapter (adapters are values), set at most once.
final class Flag: Sendable {
    private let state = Mutex(false)
    var value: Bool { state.withLock { $0 } }
    func set() { state.withLock { $0 = true } }
}

extension Usage {
    /// True when no count was reported.
    var isEmpty: Bool { self == .zero }
}
