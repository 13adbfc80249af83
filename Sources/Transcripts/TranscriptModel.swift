// The model of a replayed transcript: plays the file's `model:` turns in order, one per request,
// across restarts, and turns `interrupt` and `crash` into events the replayer acts on.
import Agent
import Synchronization

final class TranscriptModel: ChatModel {
    let provider = "scripted"
    let model: String
    let continuationFamily = "scripted"
    private let turns: Mutex<[[ScriptedEvent]]>
    private let requestCount = Mutex(0)
    /// Called (once per event) when the stream reaches `interrupt` or `crash`.
    let onInterrupt: @Sendable () -> Void
    let onCrash: @Sendable () -> Void
    /// The clock of the current process (replaced at restart).
    let clock: Mutex<any AgentClock>

    init(model: String, turns: [[ScriptedEvent]], clock: any AgentClock,
         onInterrupt: @escaping @Sendable () -> Void, onCrash: @escaping @Sendable () -> Void) {
        self.model = model
        self.turns = Mutex(turns)
        self.clock = Mutex(clock)
        self.onInterrupt = onInterrupt
        self.onCrash = onCrash
    }

    var remainingTurns: Int { turns.withLock { $0.count } }
    var requests: Int { requestCount.withLock { $0 } }

    static func chatError(kind: String, retryAfter: Double?, message: String) -> ChatError {
        let text = message.isEmpty ? "scripted \(kind) error" : message
        switch kind {
        case "retryable": return ChatError(.retryable, text, httpStatus: 503)
        case "rate_limited": return ChatError(.rateLimited(retryAfter: retryAfter), text, httpStatus: 429)
        case "context_overflow": return ChatError(.contextOverflow, text, httpStatus: 400)
        case "configuration": return ChatError(.configuration, text, httpStatus: 401)
        case "unknown_outcome": return ChatError(.unknownOutcome, text)
        case "timeout": return ChatError(.timeout, text)
        default: return ChatError(.fatal, text, httpStatus: 400)
        }
    }

    func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        requestCount.withLock { $0 += 1 }
        let turn: [ScriptedEvent]? = turns.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        let player = TurnPlayer(turn: turn, clock: clock.withLock { $0 }, onInterrupt: onInterrupt, onCrash: onCrash)
        // Pull-driven: each step runs when the agent asks for the next event, on the agent's own
        // task, so a delay that crosses a deadline is cut off exactly when the deadline fires.
        return AsyncThrowingStream(unfolding: { try await player.next() })
    }
}

/// Plays one scripted turn step by step.
final class TurnPlayer: @unchecked Sendable {
    private var events: [ScriptedEvent]
    private let missing: Bool
    private let clock: any AgentClock
    private let onInterrupt: @Sendable () -> Void
    private let onCrash: @Sendable () -> Void
    private var sawCall = false
    private var finished = false

    init(turn: [ScriptedEvent]?, clock: any AgentClock, onInterrupt: @escaping @Sendable () -> Void, onCrash: @escaping @Sendable () -> Void) {
        self.events = turn ?? []
        self.missing = turn == nil
        self.clock = clock
        self.onInterrupt = onInterrupt
        self.onCrash = onCrash
    }

    /// The next event, or nil at the end of the turn.
    func next() async throws -> ChatEvent? {
        if missing { throw ChatError(.fatal, "the transcript has no model turn left for this request; add 'model:' lines") }
        while !events.isEmpty {
            try Task.checkCancellation()
            let event = events.removeFirst()
            switch event {
            case .text(let t): return .textDelta(t)
            case .call(let id, let name, let arguments):
                sawCall = true
                return .toolCall(ToolCall(id: id, name: name, arguments: arguments))
            case .continuation(let kind, let payload):
                // A provider's native search results (recorded from a live session) stay provider-neutral.
                let provider = kind == WebSources.kind ? WebSources.provider : "scripted"
                return .continuation(ContinuationItem(provider: provider, kind: kind, payload: payload))
            case .usage(let i, let o, let c, let r):
                return .usage(Usage(inputTokens: i, cachedInputTokens: c, outputTokens: o, reasoningTokens: r))
            case .delay(let seconds):
                try await clock.sleep(seconds: seconds)
            case .error(let kind, let retryAfter, let message):
                throw TranscriptModel.chatError(kind: kind, retryAfter: retryAfter, message: message)
            case .interrupt:
                onInterrupt()
                // Wait for the Ctrl-C to stop the run.
                while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
                throw CancellationError()
            case .crash:
                onCrash()
                // A crashed process does nothing more: never finish, never throw.
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
                throw CancellationError()
            }
        }
        guard !finished else { return nil }
        finished = true
        return .finish(sawCall ? .toolCalls : .stop)
    }
}
