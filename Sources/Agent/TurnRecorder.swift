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
/// written every `flushEvery` deltas and when the part closes, so a crash loses at most a few
/// deltas; tool calls and continuation items are stored verbatim, in arrival order, with the
/// turn number. Used from the consuming task, then read by the run after that task ended.
final class TurnRecorder: Sendable {
    static let flushEvery = 16

    private struct State {
        var messageID: Int64?
        var partCount = 0
        var openText: (ordinal: Int, text: String, unflushed: Int)?
        var text = ""
        var calls: [ToolCall] = []
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

    func handle(_ event: ChatEvent) throws {
        let now = environment.clock.now()
        let monotonic = environment.clock.monotonic()
        var delta: String?
        var crashCheck = false
        // Autocommit per statement: most deltas write nothing, so no transaction is opened for them.
        try environment.store.queue.read { db in
            try state.withLock { s in
                if s.firstEventAt == nil { s.firstEventAt = monotonic }
                switch event {
                case .textDelta(let t):
                    guard !t.isEmpty else { return }
                    try ensureMessage(db, &s, now: now)
                    s.hasOutput = true
                    s.text += t
                    delta = t
                    if var open = s.openText {
                        open.text += t
                        open.unflushed += 1
                        if open.unflushed >= Self.flushEvery, let id = s.messageID {
                            try ConversationStore.updateTextPart(db, messageID: id, ordinal: open.ordinal, text: open.text)
                            open.unflushed = 0
                        }
                        s.openText = open
                    } else if let id = s.messageID {
                        try ConversationStore.insertPart(db, messageID: id, ordinal: s.partCount, .text(t))
                        s.openText = (s.partCount, t, 0)
                        s.partCount += 1
                    }
                    if !s.firstDeltaSeen { s.firstDeltaSeen = true; crashCheck = true }
                case .toolCall(let call):
                    try closeText(db, &s)
                    try ensureMessage(db, &s, now: now)
                    s.hasOutput = true
                    if let id = s.messageID { try ConversationStore.insertPart(db, messageID: id, ordinal: s.partCount, .toolCall(call)) }
                    s.partCount += 1
                    s.calls.append(call)
                case .continuation(let item):
                    try closeText(db, &s)
                    try ensureMessage(db, &s, now: now)
                    s.hasOutput = true
                    if let id = s.messageID { try ConversationStore.insertPart(db, messageID: id, ordinal: s.partCount, .continuation(item)) }
                    s.partCount += 1
                case .usage(let u):
                    // Some providers report input and output in separate events; keep the largest of each.
                    let old = s.usage ?? .zero
                    s.usage = Usage(inputTokens: max(old.inputTokens, u.inputTokens), cachedInputTokens: max(old.cachedInputTokens, u.cachedInputTokens),
                                    outputTokens: max(old.outputTokens, u.outputTokens), reasoningTokens: max(old.reasoningTokens, u.reasoningTokens))
                case .responseID(let id):
                    s.responseID = id
                case .finish(let reason):
                    s.finish = reason
                }
            }
        }
        if let delta { environment.emit(AgentEvent(threadID: handle.threadID, runID: handle.runID, kind: .textDelta(delta))) }
        if crashCheck { try environment.faults?.reached(.afterFirstTextDelta, runID: handle.runID) }
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
        if open.unflushed > 0, let id = s.messageID {
            try ConversationStore.updateTextPart(db, messageID: id, ordinal: open.ordinal, text: open.text)
        }
        s.openText = nil
    }
}
