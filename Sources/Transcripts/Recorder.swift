// `ofj --record FILE`: saves a live session as a transcript whose model turns are the ones
// actually received, so it replays offline. Only model events are recorded (never request
// headers, so never keys); the journal is embedded as a backup so the replay starts from the
// same data, and attached files as `@seed attachment` — which is why the person is warned that
// journal content and their files are in the file.
import Agent
import Foundation
import OutputSafety
import REPL
import Synchronization

/// Collects a session's steps in order and writes them as a transcript.
public final class SessionRecorder: Sendable {
    private struct State {
        var lines: [String] = []
        var screen = ""
        var sawInput = false
        /// Files attached during the session, by the name `/attach` was given (`@seed attachment`).
        var files: [(name: String, bytes: [UInt8])] = []
    }
    private let state = Mutex(State())
    public let path: String

    /// - Parameters:
    ///   - startedAt: wall-clock start (becomes `@clock`), in `timeZone`.
    ///   - backupJSON: the journal at the start (becomes `@seed backup`).
    ///   - rulesJSON: the approval rules in force (config.json's `approvals.rules`, compact JSON),
    ///     written as `@config rules=…` so that the writes they allowed replay the same way.
    public init(path: String, model: String, startedAt: Date, timeZone: TimeZone, backupJSON: String, rulesJSON: String? = nil) {
        self.path = path
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = timeZone
        f.dateFormat = "yyyy-MM-dd HH:mm"
        var header = [
            "# Recorded by ofj --record. It contains your journal, what you typed and the files you attached (but no keys);",
            "# review it before sharing. Replay it with: ofj replay FILE",
            "@clock \(f.string(from: startedAt)) \(timeZone.identifier)",
            "@provider scripted \(model.split(separator: " ").first.map(String.init) ?? "recorded")",
        ]
        // `@config` values cannot hold spaces: rules with a space in a value are left out.
        if let rulesJSON, !rulesJSON.contains(where: \.isWhitespace) { header.append("@config rules=" + rulesJSON) }
        header.append("@seed backup")
        header += backupJSON.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
        header.append("")
        state.withLock { $0.lines = header }
    }

    private func flushScreen(_ s: inout State) {
        // What was on screen before the first input (the banner) belongs to no step.
        guard !s.screen.isEmpty, s.sawInput else { s.screen = ""; return }
        var screen = s.screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if screen.last == "" { screen.removeLast() }
        s.lines += screen.map { $0.isEmpty ? "|" : "| " + $0 }
        s.screen = ""
    }

    public func input(_ line: String) {
        state.withLock { s in
            flushScreen(&s)
            s.sawInput = true
            s.lines.append("> " + line.replacingOccurrences(of: "\n", with: "\\n"))
        }
    }

    /// A file read for `/attach NAME` (or `ofj ask --attach NAME`): written as `@seed attachment
    /// NAME`, so the replay attaches the same bytes. Each read is kept in order (a replay gives a
    /// name's seeds one per read); a name whose reads all gave the same bytes is written once. A
    /// read that failed is recorded with no bytes (its replay fails too).
    public func attachment(name: String, bytes: [UInt8]) {
        state.withLock { $0.files.append((name, bytes)) }
    }

    public func answer(_ answer: String) {
        state.withLock { $0.lines.append("approve: " + answer) }
    }

    public func screen(_ text: String) {
        state.withLock { $0.screen += text }
    }

    public func modelTurn(_ events: [ScriptedEvent]) {
        state.withLock { s in
            for e in events { s.lines.append("model: " + Self.format(e)) }
            if let last = events.last, case .error = last { return }
            s.lines.append("model: end")
        }
    }

    static func format(_ e: ScriptedEvent) -> String {
        switch e {
        case .text(let t): return "text " + t.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
        case .call(let id, let name, let arguments): return "call \(id) \(name) \(arguments.replacingOccurrences(of: "\n", with: " "))"
        case .continuation(let kind, let payload): return "continuation \(kind) \(payload.replacingOccurrences(of: "\n", with: " "))"
        case .usage(let i, let o, let c, let r): return "usage in=\(i) out=\(o) cached=\(c) reasoning=\(r)"
        case .delay(let s): return "delay \(s)s"
        case .error(let kind, let after, let message):
            return "error \(kind)" + (after.map { " retry_after=\($0)s" } ?? "") + (message.isEmpty ? "" : " " + message)
        case .interrupt: return "interrupt"
        case .crash: return "crash"
        }
    }

    /// Writes the transcript (atomically).
    public func write() throws {
        let text: String = state.withLock { s in
            flushScreen(&s)
            // The files go with the other set-up lines, before the first step.
            let firstStep = s.lines.firstIndex { $0.hasPrefix("> ") } ?? s.lines.count
            var seeds: [String] = []
            for (i, f) in s.files.enumerated() {
                let reads = s.files.filter { $0.name == f.name }
                // One seed when every read of the name gave the same bytes (the first read writes it).
                if reads.allSatisfy({ $0.bytes == reads[0].bytes }) && s.files.firstIndex(where: { $0.name == f.name }) != i { continue }
                seeds.append("@seed attachment " + f.name)
                let base64 = Base64Appender.encode(f.bytes)
                var start = base64.startIndex
                while start < base64.endIndex {
                    let end = base64.index(start, offsetBy: 76, limitedBy: base64.endIndex) ?? base64.endIndex
                    seeds.append("  " + base64[start..<end])
                    start = end
                }
                seeds.append("")
            }
            var lines = s.lines
            lines.insert(contentsOf: seeds, at: firstStep)
            return lines.joined(separator: "\n") + "\n"
        }
        // Owner-only from the start (0600, whatever the umask): it holds the journal and what was typed.
        try PrivateFile.write(Array(text.utf8), to: path, overwrite: true)
    }
}

/// Wraps a model: forwards its stream and records each turn's events.
public struct RecordingChatModel: ChatModel {
    public let inner: any ChatModel
    public let recorder: SessionRecorder
    public init(_ inner: any ChatModel, recorder: SessionRecorder) {
        self.inner = inner
        self.recorder = recorder
    }
    public var provider: String { inner.provider }
    public var model: String { inner.model }
    public var continuationFamily: String { inner.continuationFamily }

    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        let upstream = inner.stream(request)
        let recorder = self.recorder
        let box = EventBox()
        let source = IteratorBox(upstream.makeAsyncIterator())
        return AsyncThrowingStream(unfolding: {
            do {
                guard let event = try await source.next() else {
                    recorder.modelTurn(box.take())
                    return nil
                }
                box.add(event)
                return event
            } catch let error as ChatError {
                box.add(error: error)
                recorder.modelTurn(box.take())
                throw error
            } catch {
                recorder.modelTurn(box.take() + [.interrupt])
                throw error
            }
        })
    }
}

/// The upstream iterator; the stream is pulled by one consumer at a time.
final class IteratorBox: @unchecked Sendable {
    private var iterator: AsyncThrowingStream<ChatEvent, Error>.Iterator
    init(_ iterator: AsyncThrowingStream<ChatEvent, Error>.Iterator) { self.iterator = iterator }
    func next() async throws -> ChatEvent? { try await iterator.next() }
}

/// Events of one recorded turn.
final class EventBox: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [ScriptedEvent] = []

    func add(_ e: ChatEvent) {
        lock.lock(); defer { lock.unlock() }
        switch e {
        case .textDelta(let t):
            if case .text(let prev)? = events.last { events[events.count - 1] = .text(prev + t) } else { events.append(.text(t)) }
        case .toolCall(let c): events.append(.call(id: c.id, name: c.name, arguments: c.arguments.isEmpty ? "{}" : c.arguments))
        case .continuation(let item): events.append(.continuation(kind: item.kind, payload: item.payload))
        case .usage(let u): events.append(.usage(input: u.inputTokens, output: u.outputTokens, cached: u.cachedInputTokens, reasoning: u.reasoningTokens))
        case .responseID, .notice, .finish, .alive: break
        }
    }

    func add(error: ChatError) {
        lock.lock(); defer { lock.unlock() }
        let kind: String
        var after: Double?
        switch error.kind {
        case .retryable: kind = "retryable"
        case .rateLimited(let a): kind = "rate_limited"; after = a
        case .contextOverflow: kind = "context_overflow"
        case .fatal: kind = "fatal"
        case .configuration: kind = "configuration"
        case .unknownOutcome: kind = "unknown_outcome"
        case .timeout: kind = "timeout"
        }
        events.append(.error(kind: kind, retryAfter: after, message: error.message))
    }

    func take() -> [ScriptedEvent] {
        lock.lock(); defer { lock.unlock() }
        defer { events = [] }
        return events
    }
}

/// Session input that records what the person typed.
public final class RecordingInput: SessionInput {
    let inner: any SessionInput
    let recorder: SessionRecorder
    public init(_ inner: any SessionInput, recorder: SessionRecorder) {
        self.inner = inner
        self.recorder = recorder
    }
    public func readMessage(prompt: String) -> LineInput {
        let r = inner.readMessage(prompt: prompt)
        if case .line(let l) = r, !l.trimmingCharacters(in: .whitespaces).isEmpty { recorder.input(l) }
        return r
    }
    public func readAnswer(prompt: String) -> LineInput { recordingAnswer(inner.readAnswer(prompt: prompt), prompt: prompt) }
    public func readChoice(prompt: String) -> LineInput { recordingAnswer(inner.readChoice(prompt: prompt), prompt: prompt) }

    /// An answer at a card, recorded; the screen shows the prompt and the answer as a replay prints them.
    private func recordingAnswer(_ r: LineInput, prompt: String) -> LineInput {
        switch r {
        case .line(let a):
            recorder.answer(a)
            recorder.screen(prompt + a + "\n")
        case .interrupt:
            recorder.answer("ctrl-c")
            recorder.screen(prompt + "^C\n")
        case .eof:
            recorder.screen(prompt + "(no answer in the transcript: add an 'approve:' line)\n")
        }
        return r
    }
    public func discardTypedAhead() { inner.discardTypedAhead() }
    // Editing at a card is not offered while recording: a transcript has no way to replay an edit.
    public func remember(_ line: String) { inner.remember(line) }
    public var completer: Completer? {
        get { inner.completer }
        set { inner.completer = newValue }
    }
}

/// Output that also goes to the recording (escape codes removed).
public final class RecordingOutput: Output {
    let inner: any Output
    let recorder: SessionRecorder
    public init(_ inner: any Output, recorder: SessionRecorder) {
        self.inner = inner
        self.recorder = recorder
    }
    public func write(_ text: String) {
        inner.write(text)
        recorder.screen(text.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression))
    }
}
