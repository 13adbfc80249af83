// Building a model request: the replaceable assembler seam and the normaliser every request passes.

/// What an assembler gets to build one model turn's request.
public struct RequestContext: Sendable {
    public var threadID: String
    public var runID: String
    public var turn: Int
    public var systemPrompt: String
    /// The volatile tail of this turn's request (`ChatRequest.contextNote`).
    public var contextNote: String = ""
    public var tools: [ToolSpec]
    public var maxOutputTokens: Int
    public var store: ConversationStore
    public var model: any ChatModel
    /// Tells the person something in one line during the run (e.g. that old messages were left
    /// out to fit the context); shown as an `AgentEvent` error line.
    public var notice: @Sendable (AgentError) -> Void = { _ in }
    /// Announces a compaction in one line (done, or skipped because the summary was refused);
    /// shown as an `AgentEvent.Kind.compaction`.
    public var compaction: @Sendable (String) -> Void = { _ in }

    public init(threadID: String, runID: String, turn: Int, systemPrompt: String, contextNote: String = "", tools: [ToolSpec], maxOutputTokens: Int,
                store: ConversationStore, model: any ChatModel, notice: @escaping @Sendable (AgentError) -> Void = { _ in },
                compaction: @escaping @Sendable (String) -> Void = { _ in }) {
        self.threadID = threadID
        self.runID = runID
        self.turn = turn
        self.systemPrompt = systemPrompt
        self.contextNote = contextNote
        self.tools = tools
        self.maxOutputTokens = maxOutputTokens
        self.store = store
        self.model = model
        self.notice = notice
        self.compaction = compaction
    }
}

/// Chooses what a request carries. The default sends the system prompt and the whole stored
/// transcript; a context manager (budgets, checkpoints) replaces it. Whatever it returns is
/// normalised by the runner afterwards, so the request invariants hold for every assembler.
public protocol RequestAssembler: Sendable {
    func assemble(_ context: RequestContext) async throws -> ChatRequest
    /// Called once when the provider says the request was too long. Return true after making
    /// the next request smaller (e.g. by compacting) to have the turn retried once.
    func handleContextOverflow(_ context: RequestContext) async -> Bool
    /// The one line for a context overflow that making the request smaller cannot fix (or did
    /// not), with what to do instead; nil for the runner's generic line.
    func contextOverflowLine(_ context: RequestContext, _ error: ChatError) async -> AgentError?
}

extension RequestAssembler {
    public func handleContextOverflow(_ context: RequestContext) async -> Bool { false }
    public func contextOverflowLine(_ context: RequestContext, _ error: ChatError) async -> AgentError? { nil }
}

/// System prompt + the full stored transcript.
public struct FullTranscriptAssembler: RequestAssembler {
    public init() {}
    public func assemble(_ context: RequestContext) async throws -> ChatRequest {
        let messages = try context.store.transcript(threadID: context.threadID).map(\.forModel)
        return ChatRequest(system: context.systemPrompt, messages: messages, tools: context.tools, maxOutputTokens: context.maxOutputTokens,
                           contextNote: context.contextNote)
    }
}

/// Makes a transcript safe to send: every tool call gets exactly one result right after its
/// assistant message (a missing one becomes an explicit "interrupted" result), results that
/// answer no earlier call are dropped, continuation items go only to the family that made them,
/// and messages left empty are dropped.
public enum RequestNormalizer {
    public static let interruptedResult =
        #"{"error":"this tool call was interrupted before it finished; its outcome is unknown. Check with a read tool before repeating a change."}"#

    public static func normalize(_ messages: [Message], continuationFamily: String) -> [Message] {
        var out: [Message] = []
        out.reserveCapacity(messages.count)
        var i = 0
        while i < messages.count {
            let message = messages[i]
            i += 1
            switch message.role {
            case .tool:
                continue // results not right after their call are orphans
            case .user:
                let parts = message.parts.filter { if case .text = $0 { return true } else { return false } }
                if !parts.isEmpty || !message.attachments.isEmpty {
                    out.append(Message(role: .user, parts: parts, attachments: message.attachments))
                }
            case .assistant:
                var seen = Set<String>()
                let parts = message.parts.filter { part in
                    switch part {
                    case .toolResult: return false
                    case .continuation(let c): return c.provider == continuationFamily
                    case .toolCall(let c): return seen.insert(c.id).inserted
                    case .text(let t): return !t.isEmpty
                    }
                }
                let calls = parts.compactMap { if case .toolCall(let c) = $0 { return c } else { return nil } }
                // Gather the results that follow, up to the next non-tool message.
                var results: [String: ToolResult] = [:]
                while i < messages.count, messages[i].role == .tool {
                    for r in messages[i].toolResults where results[r.callID] == nil { results[r.callID] = r }
                    i += 1
                }
                guard !parts.isEmpty else { continue }
                out.append(Message(role: .assistant, parts: parts))
                if !calls.isEmpty {
                    let answered = calls.map { call in
                        MessagePart.toolResult(results[call.id]
                            ?? ToolResult(callID: call.id, name: call.name, content: interruptedResult, isError: true))
                    }
                    out.append(Message(role: .tool, parts: answered))
                }
            }
        }
        return out
    }

    /// Violations of the request invariants (empty when the transcript is well formed): every
    /// result answers an earlier call of the message just before, every call has exactly one result.
    public static func violations(_ messages: [Message]) -> [String] {
        var problems: [String] = []
        var open: [String] = []
        for (index, message) in messages.enumerated() {
            switch message.role {
            case .tool:
                for r in message.toolResults {
                    if let k = open.firstIndex(of: r.callID) { open.remove(at: k) } else {
                        problems.append("message \(index): result for \(r.callID) answers no open call")
                    }
                }
                if !open.isEmpty {
                    problems.append("message \(index): calls without results: \(open.joined(separator: ", "))")
                    open = []
                }
            case .user, .assistant:
                if !open.isEmpty {
                    problems.append("message \(index): calls without results: \(open.joined(separator: ", "))")
                }
                open = message.role == .assistant ? message.toolCalls.map(\.id) : []
                if message.role == .assistant && !message.toolResults.isEmpty { problems.append("message \(index): result inside an assistant message") }
            }
        }
        if !open.isEmpty { problems.append("end: calls without results: \(open.joined(separator: ", "))") }
        return problems
    }
}
