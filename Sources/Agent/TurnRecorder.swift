// Stores one streamed model turn as it arrives: parts in order, text flushed as it grows.
import SQLiteKit
import Synchronization

/// What a closed model turn produced.
struct TurnResult: Sendable {
    var text: String
    var calls: [ToolCall]
    var usage: Usage?
    var responseID: String?
    var finish: FinishReason?
}

/// Persists an assistant message while it streams. Text deltas grow one text part that is
/// written after every `flushEvery` deltas while the part is small, and once it passes
/// `geometricFrom` bytes only when it grew by an eighth since the last write, so the bytes written
/// stay linear in the answer's size (a crash loses at most 16 deltas, or an eighth of a long part);
/// the part is written whole when it closes. Tool calls and continuation items are stored verbatim,
/// in arrival order, with the turn number, except calls over `AnswerLimits` (stored with the
/// rejection marker instead of their arguments) and a repeated call id (renamed, rejected).
/// Used from the consuming task, then read by the run after that task ended.
final class TurnRecorder: Sendable {
    static let flushEvery = 16
    static let geometricFrom = 64 * 1024

    /// Counts the text bytes written to the database, for tests that check the writes stay linear.
    final class WriteMeter: Sendable {
        private let bytes = Mutex(0)
        func add(_ n: Int) { bytes.withLock { $0 += n } }
        var total: Int { bytes.withLock { $0 } }
    }
    @TaskLocal static var meter: WriteMeter?

    private struct OpenText {
        var ordinal: Int
        /// Where the part starts in `State.text` (UTF-8 offset).
        var start: Int
        var unflushedDeltas = 0
        var unflushedBytes = 0
    }

    private struct State {
        var messageID: Int64?
        var partCount = 0
        var openText: OpenText?
        /// All text of the turn, appended in place (the open part is its tail).
        var text = ""
        var textBytes = 0
        var calls: [ToolCall] = []
        var callIDs: Set<String> = []
        var argumentBytes = 0
        var usage: Usage?
        var responseID: String?
        var finish: FinishReason?
        var hasOutput = false
        var firstEventAt: Double?
        var firstDeltaSeen = false
    }
    private let state = Mutex(State())
    private let environment: RunnerEnvironment
    private let handle: RunHandle
    let turn: Int
    private var limits: AnswerLimits { environment.configuration.limits }

    init(environment: RunnerEnvironment, handle: RunHandle, turn: Int) {
        self.environment = environment
        self.handle = handle
        self.turn = turn
    }

    /// True once text, a tool call or a continuation item arrived (a retry is no longer safe).
    var hasOutput: Bool { state.withLock { $0.hasOutput } }
    var firstEventAt: Double? { state.withLock { $0.firstEventAt } }
    var text: String { state.withLock { $0.text } }
    var responseID: String? { state.withLock { $0.responseID } }

    /// Records one event. Throws `AgentError(.answerTooLong)` when the answer passes the text cap
    /// (the text up to the cap is kept) or makes far too many tool calls.
    func handle(_ event: ChatEvent) throws {
        let now = environment.clock.now()
        let monotonic = environment.clock.monotonic()
        let limits = self.limits
        var delta: String?
        var crashCheck = false
        var stop: AgentError?
        var notice: String?
        // Autocommit per statement: most deltas write nothing, so no transaction is opened for them.
        try environment.store.queue.unrestricted { db in
            try state.withLock { s in
                if s.firstEventAt == nil { s.firstEventAt = monotonic }
                switch event {
                case .textDelta(var t):
                    guard !t.isEmpty else { return }
                    if s.textBytes + t.utf8.count > limits.maxTextBytes {
                        t = Self.prefix(t, bytes: limits.maxTextBytes - s.textBytes)
                        stop = AgentError(.answerTooLong, "The answer passed \(AnswerLimits.size(limits.maxTextBytes)) and was stopped; what arrived is saved. Ask for something shorter.")
                        if t.isEmpty { return }
                    }
                    try ensureMessage(db, &s, now: now)
                    s.hasOutput = true
                    let bytes = t.utf8.count
                    s.text += t
                    s.textBytes += bytes
                    delta = t
                    if s.openText == nil, let id = s.messageID {
                        try ConversationStore.insertPart(db, messageID: id, ordinal: s.partCount, .text(t))
                        s.openText = OpenText(ordinal: s.partCount, start: s.textBytes - bytes)
                        s.partCount += 1
                    } else if var open = s.openText {
                        open.unflushedDeltas += 1
                        open.unflushedBytes += bytes
                        let partBytes = s.textBytes - open.start
                        if open.unflushedDeltas >= Self.flushEvery && (partBytes <= Self.geometricFrom || open.unflushedBytes * 8 >= partBytes) {
                            try flush(db, &s, open)
                            open.unflushedDeltas = 0
                            open.unflushedBytes = 0
                        }
                        s.openText = open
                    }
                    if !s.firstDeltaSeen { s.firstDeltaSeen = true; crashCheck = true }
                case .toolCall(let received):
                    try closeText(db, &s)
                    try ensureMessage(db, &s, now: now)
                    s.hasOutput = true
                    if s.calls.count >= limits.stopAfterCalls {
                        stop = AgentError(.answerTooLong, "The model made more than \(limits.stopAfterCalls) tool calls in one answer and was stopped; ask again.")
                        return
                    }
                    let call = Self.admit(received, &s, limits: limits)
                    if let id = s.messageID { try ConversationStore.insertPart(db, messageID: id, ordinal: s.partCount, .toolCall(call)) }
                    s.partCount += 1
                    s.calls.append(call)
                case .continuation(let item):
                    try closeText(db, &s)
                    try ensureMessage(db, &s, now: now)
                    s.hasOutput = true
                    if let id = s.messageID { try ConversationStore.insertPart(db, messageID: id, ordinal: s.partCount, .continuation(item)) }
                    s.partCount += 1
                    // The provider's own web search and fetch: content from outside the person.
                    try ConversationStore.recordUntrusted(db, threadID: handle.threadID, runID: handle.runID,
                                                          reads: ConversationStore.untrustedReads(of: item), now: now)
                case .usage(let u):
                    // Some providers report input and output in separate events; keep the largest of each.
                    let old = s.usage ?? .zero
                    s.usage = Usage(inputTokens: max(old.inputTokens, u.inputTokens), cachedInputTokens: max(old.cachedInputTokens, u.cachedInputTokens),
                                    outputTokens: max(old.outputTokens, u.outputTokens), reasoningTokens: max(old.reasoningTokens, u.reasoningTokens),
                                    cacheWriteTokens: max(old.cacheWriteTokens, u.cacheWriteTokens))
                case .responseID(let id):
                    s.responseID = id
                case .notice(let line):
                    notice = line
                case .alive:
                    break
                case .finish(let reason):
                    s.finish = reason
                }
            }
        }
        if let delta { environment.emit(AgentEvent(threadID: handle.threadID, runID: handle.runID, kind: .textDelta(delta))) }
        // Not an error of the run: the answer goes on; the person reads why it was sent differently.
        if let notice { environment.emit(AgentEvent(threadID: handle.threadID, runID: handle.runID, kind: .error(AgentError(.providerRejected, notice)))) }
        if crashCheck { try environment.faults?.reached(.afterFirstTextDelta, runID: handle.runID) }
        if let stop { throw stop }
    }

    /// The call as it is stored and run: within the caps and with an id unique in the turn, or
    /// rejected (arguments replaced by the marker, so they are neither stored nor sent again).
    private static func admit(_ received: ToolCall, _ s: inout State, limits: AnswerLimits) -> ToolCall {
        var call = received
        let size = received.arguments.utf8.count
        if s.callIDs.contains(call.id) {
            // The provider reused an id: the result must still answer exactly one call on every
            // wire, so this call gets its own id (same alphabet as the original).
            var n = 2
            while s.callIDs.contains("\(received.id)_dup\(n)") { n += 1 }
            call.id = "\(received.id)_dup\(n)"
            call.arguments = RejectedCall.arguments("this call reused the id of an earlier call in the same answer, so it was not run; call the tool again if it is still needed")
        } else if s.calls.count >= limits.maxCalls {
            call.arguments = RejectedCall.arguments("not run: one answer may make at most \(limits.maxCalls) tool calls; make fewer calls at a time")
        } else if size > limits.maxArgumentBytes {
            call.arguments = RejectedCall.arguments("not run: its arguments were over \(AnswerLimits.size(limits.maxArgumentBytes)), the limit for one call; send smaller arguments")
        } else if s.argumentBytes + size > limits.maxTurnArgumentBytes {
            call.arguments = RejectedCall.arguments("not run: the tool calls of this answer together passed \(AnswerLimits.size(limits.maxTurnArgumentBytes)) of arguments; make fewer or smaller calls")
        } else {
            s.argumentBytes += size
        }
        s.callIDs.insert(call.id)
        return call
    }

    /// The longest prefix of `text` of at most `bytes` UTF-8 bytes that ends on a character boundary.
    static func prefix(_ text: String, bytes: Int) -> String {
        guard bytes > 0 else { return "" }
        let utf8 = text.utf8
        guard bytes < utf8.count else { return text }
        var end = utf8.index(utf8.startIndex, offsetBy: bytes)
        while end > utf8.startIndex && String.Index(end, within: text) == nil { end = utf8.index(before: end) }
        return String(text[..<end])
    }

    /// Closes the message: `complete` after a finished turn, `partial` after a cut-off one
    /// (kept only if something arrived). Returns what the turn produced.
    @discardableResult
    func close(_ final: MessageState) throws -> TurnResult {
        try environment.store.queue.write { db in
            try state.withLock { s in
                try closeText(db, &s)
                if let id = s.messageID { try ConversationStore.setMessageState(db, messageID: id, final) }
                return TurnResult(text: s.text, calls: s.calls, usage: s.usage, responseID: s.responseID, finish: s.finish)
            }
        }
    }

    private func ensureMessage(_ db: Database, _ s: inout State, now: Double) throws {
        guard s.messageID == nil else { return }
        s.messageID = try db.transaction { db in
            try ConversationStore.insertMessage(db, threadID: handle.threadID, runID: handle.runID, role: .assistant, turn: turn,
                                                state: .streaming, parts: [], now: now)
        }
    }

    private func closeText(_ db: Database, _ s: inout State) throws {
        guard let open = s.openText else { return }
        if open.unflushedDeltas > 0 { try flush(db, &s, open) }
        s.openText = nil
    }

    /// Writes the open part whole (SQLite rewrites the row either way).
    private func flush(_ db: Database, _ s: inout State, _ open: OpenText) throws {
        guard let id = s.messageID else { return }
        let utf8 = s.text.utf8
        let part = String(s.text[utf8.index(utf8.startIndex, offsetBy: open.start)...])
        Self.meter?.add(s.textBytes - open.start)
        try ConversationStore.updateTextPart(db, messageID: id, ordinal: open.ordinal, text: part)
    }
}
