// A ChatModel that plays scripted turns and records every request (tests, transcript replay).
import Synchronization

/// One scripted model turn: steps played in order.
public struct ScriptedTurn: Sendable, Hashable {
    public enum Step: Sendable, Hashable {
        case text(String)
        case toolCall(id: String, name: String, arguments: String)
        case continuation(ContinuationItem)
        case usage(Usage)
        case responseID(String)
        /// Waits this long in the model's clock (virtual time in tests, so it can trip deadlines).
        case delay(Double)
        /// Waits until the request is cancelled, without moving any clock.
        case stall
        /// Fails the stream with this error.
        case fail(ChatError)
        case finish(FinishReason)
        /// A sign of life (`ChatEvent.alive`: an SSE comment or progress event of a local server).
        case alive
    }
    public var steps: [Step]
    public init(_ steps: [Step]) { self.steps = steps }

    /// A plain answer, optionally streamed in several chunks.
    public static func text(_ chunks: String..., usage: Usage? = nil) -> ScriptedTurn {
        ScriptedTurn(chunks.map { .text($0) } + (usage.map { [.usage($0)] } ?? []))
    }

    /// One turn that calls tools (in parallel when several): (id, name, JSON arguments).
    public static func calls(_ calls: (String, String, String)...) -> ScriptedTurn {
        ScriptedTurn(calls.map { .toolCall(id: $0.0, name: $0.1, arguments: $0.2) })
    }

    public static func failure(_ error: ChatError) -> ScriptedTurn { ScriptedTurn([.fail(error)]) }
}

/// Plays `ScriptedTurn`s, one per request, from a queue or from a responder that looks at the
/// request. A turn without a `finish` step ends with `.toolCalls` or `.stop` as fits.
public final class ScriptedChatModel: ChatModel {
    public let provider: String
    public let model: String
    public let continuationFamily: String
    private let clock: any AgentClock
    private let responder: (@Sendable (ChatRequest, Int) -> ScriptedTurn?)?
    private struct State {
        var queue: [ScriptedTurn] = []
        var requests: [ChatRequest] = []
    }
    private let state = Mutex(State())

    public init(turns: [ScriptedTurn] = [], clock: any AgentClock, provider: String = "scripted", model: String = "scripted-1",
                continuationFamily: String = "scripted") {
        self.provider = provider
        self.model = model
        self.continuationFamily = continuationFamily
        self.clock = clock
        self.responder = nil
        state.withLock { $0.queue = turns }
    }

    /// Answers each request with `responder(request, index)` (index counts from 0); queued
    /// turns, if any, are played first.
    public init(clock: any AgentClock, provider: String = "scripted", model: String = "scripted-1", continuationFamily: String = "scripted",
                responder: @escaping @Sendable (ChatRequest, Int) -> ScriptedTurn?) {
        self.provider = provider
        self.model = model
        self.continuationFamily = continuationFamily
        self.clock = clock
        self.responder = responder
    }

    /// Every request received, in order.
    public var requests: [ChatRequest] { state.withLock { $0.requests } }
    public var remainingTurns: Int { state.withLock { $0.queue.count } }

    public func enqueue(_ turns: ScriptedTurn...) { state.withLock { $0.queue.append(contentsOf: turns) } }

    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        let (turn, index): (ScriptedTurn?, Int) = state.withLock { s in
            s.requests.append(request)
            if !s.queue.isEmpty { return (s.queue.removeFirst(), s.requests.count - 1) }
            return (nil, s.requests.count - 1)
        }
        let player = ScriptPlayer(turn: turn ?? responder?(request, index), clock: clock)
        // Pull-driven: each step runs when the consumer asks for the next event, so a delay starts
        // only after the previous event was handled. That keeps virtual-time deadlines exact.
        return AsyncThrowingStream(unfolding: { try await player.next() })
    }
}

/// Plays one scripted turn step by step, on demand.
final class ScriptPlayer: Sendable {
    private struct State {
        var index = 0
        var sawCall = false
        var finished = false
    }
    private let state = Mutex(State())
    private let turn: ScriptedTurn?
    private let clock: any AgentClock

    init(turn: ScriptedTurn?, clock: any AgentClock) {
        self.turn = turn
        self.clock = clock
    }

    func next() async throws -> ChatEvent? {
        guard let turn else { throw ChatError(.fatal, "the scripted model has no turn left for this request") }
        while true {
            try Task.checkCancellation()
            let step: ScriptedTurn.Step? = state.withLock { s in
                guard s.index < turn.steps.count else { return nil }
                s.index += 1
                return turn.steps[s.index - 1]
            }
            guard let step else {
                let reason: FinishReason? = state.withLock { s in
                    if s.finished { return nil }
                    s.finished = true
                    return s.sawCall ? .toolCalls : .stop
                }
                return reason.map { .finish($0) }
            }
            switch step {
            case .text(let t): return .textDelta(t)
            case .toolCall(let id, let name, let arguments):
                state.withLock { $0.sawCall = true }
                return .toolCall(ToolCall(id: id, name: name, arguments: arguments))
            case .continuation(let item): return .continuation(item)
            case .usage(let u): return .usage(u)
            case .responseID(let id): return .responseID(id)
            case .delay(let seconds): try await clock.sleep(seconds: seconds)
            case .stall: try await Task.sleep(for: .seconds(365 * 24 * 3600))
            case .fail(let error): throw error
            case .finish(let reason):
                state.withLock { $0.finished = true }
                return .finish(reason)
            case .alive: return .alive
            }
        }
    }
}

/// An approval gate that answers from a queue (then `fallback`) and records what it was asked.
/// It may take virtual time to answer, to show that approval waits do not count.
public final class ScriptedApprovalGate: ApprovalGate {
    private struct State {
        var answers: [ApprovalDecision]
        var asked: [ApprovalRequest] = []
    }
    private let state: Mutex<State>
    private let fallback: ApprovalDecision
    private let clock: (any AgentClock)?
    private let thinkSeconds: Double

    public init(_ answers: [ApprovalDecision] = [], fallback: ApprovalDecision = .deny, clock: (any AgentClock)? = nil, thinkSeconds: Double = 0) {
        self.state = Mutex(State(answers: answers))
        self.fallback = fallback
        self.clock = clock
        self.thinkSeconds = thinkSeconds
    }

    public var asked: [ApprovalRequest] { state.withLock { $0.asked } }

    public func decide(_ request: ApprovalRequest) async -> ApprovalDecision {
        let answer = state.withLock { s -> ApprovalDecision in
            s.asked.append(request)
            return s.answers.isEmpty ? fallback : s.answers.removeFirst()
        }
        if let clock, thinkSeconds > 0 {
            do { try await clock.sleep(seconds: thinkSeconds) } catch { return .deny }
        }
        return Task.isCancelled ? .deny : answer
    }
}
