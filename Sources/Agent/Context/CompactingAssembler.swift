// The context manager: budgets per thread, automatic compaction into validated checkpoints,
// pruning when compaction fails, and the /context and /compact commands.
import Base
import SQLiteKit
import Synchronization

/// How the context manager behaves. `limits` maps (provider, model) to the model's window and
/// output limit (the composition root passes the model catalog).
public struct ContextSettings: Sendable {
    public var defaultBudget: ContextBudgetChoice
    public var limits: @Sendable (_ provider: String, _ model: String) -> ModelLimits
    /// Whether an entry or food id exists in the journal (a checkpoint may cite ids the replaced
    /// messages do not contain only if the database knows them).
    public var idExists: (@Sendable (String) -> Bool)?
    /// Estimated cost of a compaction round, stored with its usage row.
    public var costEstimator: (@Sendable (String, String, Usage) -> Double?)?
    /// Closed turns kept verbatim after a compaction (fewer when they alone are too large).
    public var keepRecentTurns: Int
    public var maxSummaryCharacters: Int
    public var summaryMaxOutputTokens: Int
    /// Summaries of a very long stretch are built in chunks, each on top of the last; at most this many.
    public var maxCompactionRounds: Int
    public var compactionTimeout: Double
    /// Tool results are shortened to this many characters in what the summariser reads.
    public var renderedResultLimit: Int
    /// Whether a provider's models can write summaries (the offline assistant cannot: its
    /// threads are pruned instead).
    public var summarises: @Sendable (_ provider: String) -> Bool
    /// Called before a request is planned (and by `prepareLimits`): a local server's window is
    /// read from the server here, once, so `limits` can answer with it.
    public var prepare: (@Sendable (_ provider: String, _ model: String) async -> Void)?
    /// How to give the model `tokens` of context ("restart llama-server with -c 16384").
    public var raiseAdvice: @Sendable (_ provider: String, _ tokens: Int) -> String

    public init(defaultBudget: ContextBudgetChoice = .k200,
                limits: @escaping @Sendable (String, String) -> ModelLimits = { _, _ in ModelLimits(contextWindow: 32_768, maxOutputTokens: 4_096) },
                idExists: (@Sendable (String) -> Bool)? = nil, costEstimator: (@Sendable (String, String, Usage) -> Double?)? = nil,
                keepRecentTurns: Int = 2, maxSummaryCharacters: Int = 12_000, summaryMaxOutputTokens: Int = 2_000,
                maxCompactionRounds: Int = 4, compactionTimeout: Double = 60, renderedResultLimit: Int = 2_000,
                summarises: @escaping @Sendable (String) -> Bool = { _ in true }) {
        self.summarises = summarises
        self.prepare = nil
        self.raiseAdvice = { _, tokens in "give the model a context of at least \(CompactingAssembler.number(tokens)) tokens (context_window in config.json)" }
        self.defaultBudget = defaultBudget
        self.limits = limits
        self.idExists = idExists
        self.costEstimator = costEstimator
        self.keepRecentTurns = keepRecentTurns
        self.maxSummaryCharacters = maxSummaryCharacters
        self.summaryMaxOutputTokens = summaryMaxOutputTokens
        self.maxCompactionRounds = maxCompactionRounds
        self.compactionTimeout = compactionTimeout
        self.renderedResultLimit = renderedResultLimit
    }
}

/// What a compaction or pruning step did.
public enum ContextReduction: Sendable, Hashable {
    case nothing
    case compacted(ContextCheckpoint)
    case pruned(ContextCheckpoint, reason: String)
}

/// Why the model's summary could not be used.
struct CompactionFailure: Error, CustomStringConvertible {
    var description: String
    /// The model answered, but its summary was refused by `CheckpointValidator`.
    var refused = false
}

/// A `RequestAssembler` that keeps requests within the thread's budget: system prompt, the latest
/// checkpoint (as a system addendum), and only the messages after it. Reads only those messages.
public final class CompactingAssembler: RequestAssembler {
    public let store: ConversationStore
    public let settings: ContextSettings
    let clock: any AgentClock
    let diagnostics: any DiagnosticsRecorder
    /// Threads whose last automatic summary was refused: while their requests still fit, the
    /// originals are sent and no new summary is asked for (a model that wrote markup once would
    /// cost a summarising round on every message).
    let refusedThreads = Mutex(Set<String>())
    /// Threads already told that the window is too small for the fixed part (when it is assumed).
    let warnedThreads = Mutex(Set<String>())

    public init(store: ConversationStore, settings: ContextSettings, clock: any AgentClock = SystemClock(),
                diagnostics: any DiagnosticsRecorder = NoDiagnostics()) {
        self.store = store
        self.settings = settings
        self.clock = clock
        self.diagnostics = diagnostics
    }

    /// The prompt of the summarising request. Journal facts must be re-read, never trusted from it.
    public static let compactionPrompt = """
        You are compacting the older part of a conversation between a person and their food-journal assistant \
        into a checkpoint that will replace those messages for the assistant. Write a concise plain-text summary that keeps: \
        what the person asked for and prefers, decisions and corrections, open questions and unfinished tasks, and the ids \
        of entries or foods that were mentioned (copy them exactly; never invent an id). \
        Facts that live in the journal database — goals, today's or any day's totals, what was logged and in what amounts — \
        must NOT be stated as current facts: write that they must be re-read with tools, because the journal may have changed. \
        No preamble, no closing remarks.
        """

    /// What one request is built for.
    struct Shape {
        var threadID: String
        var systemPrompt: String
        var tools: [ToolSpec]
        var maxOutputTokens: Int
        var model: any ChatModel
        var runID: String?
        /// The request's volatile tail; counted with the system prompt.
        var contextNote = ""
    }

    /// The messages a request would carry, grouped into turns, with their estimates.
    struct Plan {
        var checkpoint: ContextCheckpoint?
        var messages: [StoredMessage]
        var messageTokens: [Int]
        /// Start index (in `messages`) of each turn; a turn starts at a user message.
        var turnStarts: [Int]
        var budget: ContextBudget
        var limits: ModelLimits
        var choice: ContextBudgetChoice
        var ratio: Double
        /// The system prompt and the context note.
        var systemTokens: Int
        var checkpointTokens: Int
        var toolTokens: Int
        /// What the system prompt carries for the checkpoint (its summary, and the files attached
        /// to the messages it replaces, named so the model can look at them again).
        var addendum: String = ""

        var rawMessages: Int { messageTokens.reduce(0, +) }
        var raw: Int { systemTokens + checkpointTokens + toolTokens + rawMessages }
        func corrected(_ raw: Int) -> Int { Int((Double(raw) * ratio).rounded(.up)) }
        var estimate: Int { corrected(raw) }
        func turnRange(_ k: Int) -> Range<Int> { turnStarts[k]..<(k + 1 < turnStarts.count ? turnStarts[k + 1] : messages.count) }
    }

    // MARK: - RequestAssembler

    public func assemble(_ context: RequestContext) async throws -> ChatRequest {
        let shape = Shape(threadID: context.threadID, systemPrompt: context.systemPrompt, tools: context.tools,
                          maxOutputTokens: context.maxOutputTokens, model: context.model, runID: context.runID, contextNote: context.contextNote)
        if context.model.provider == "offline" {
            // The offline assistant reads only the newest message and the exchange before it (for
            // "2" after a list of choices): it needs no history, so it never compacts or prunes.
            // Older turns keep just their user messages (it numbers its calls by them).
            var built = request(shape, try makePlan(shape))
            let users = built.messages.indices.filter { built.messages[$0].role == .user }
            if users.count > 2 {
                let keepFrom = users[users.count - 2]
                built.messages = built.messages[..<keepFrom].filter { $0.role == .user } + built.messages[keepFrom...]
            }
            return built
        }
        await settings.prepare?(shape.model.provider, shape.model.model)
        try calibrate(threadID: shape.threadID)
        var plan = try makePlan(shape)
        if let line = fixedPartDoesNotFit(plan, provider: shape.model.provider) {
            // Nothing ofj can leave out makes this request fit: say so before sending it. A window
            // ofj only assumed may be wrong, so then the request still goes, once said.
            if limits(for: shape.model).source.isAuthoritative { throw AgentError(.contextOverflow, line) }
            if warnedThreads.withLock({ $0.insert(shape.threadID).inserted }) { context.notice(AgentError(.contextOverflow, line)) }
        }
        if plan.estimate > plan.budget.compactionThreshold && compactionCanHelp(plan) {
            let done = try await reduce(shape, plan, target: plan.budget.usable / 2, keepRecent: settings.keepRecentTurns,
                                        notice: context.notice, announce: context.compaction)
            if done != .nothing {
                plan = try makePlan(shape)
                if case .compacted(let checkpoint) = done { context.compaction(Self.compactedLine(checkpoint, plan)) }
            }
        }
        var built = request(shape, plan)
        if plan.estimate > plan.budget.usable {
            // Only the open turn is left and it is still too long (many large tool results in one
            // answer): shorten older results in what is sent; the stored ones stay whole.
            built.messages = Self.shortenToolResults(built.messages, excessTokens: plan.estimate - plan.budget.usable, ratio: plan.ratio)
        }
        try recordEstimate(threadID: shape.threadID, raw: TokenEstimator.tokens(built))
        return built
    }

    /// Whether the thread's own messages put the request over the compaction threshold. When the
    /// fixed part (system prompt, note and tool specs) alone is over it, summarising the messages
    /// cannot make the request fit, so it is done only once they are a large part themselves
    /// (half the usable budget); the window is too small and `/context` says so.
    func compactionCanHelp(_ plan: Plan) -> Bool {
        plan.corrected(plan.systemTokens + plan.toolTokens) < plan.budget.compactionThreshold
            || plan.corrected(plan.checkpointTokens + plan.rawMessages) > plan.budget.usable / 2
    }

    /// The context a request of this thread needs at least: the fixed part, the answer's room,
    /// 2,048 tokens for the conversation, and the 10% kept for tool results.
    static func neededWindow(_ plan: Plan) -> Int {
        let fixed = plan.corrected(plan.systemTokens + plan.toolTokens)
        return Int((Double(fixed + plan.budget.outputHeadroom + 2_048) / 0.9).rounded(.up))
    }

    /// One line when the fixed part (system prompt, note and tool specs) alone is over the usable
    /// budget of the model's window; nil when it fits (or the thread's chosen budget is the cap).
    func fixedPartDoesNotFit(_ plan: Plan, provider: String) -> String? {
        let fixed = plan.corrected(plan.systemTokens + plan.toolTokens)
        guard fixed > plan.budget.usable, plan.budget.limit == max(1_024, plan.limits.contextWindow) else { return nil }
        let window = plan.budget.limit
        let needed = Self.neededWindow(plan)
        var suggested = 1_024
        while suggested < needed { suggested *= 2 }
        // Every figure the sum needs is in the line, so the person can check "needs at least".
        return "The model's context window (\(Self.number(window)) tokens, \(plan.limits.source.phrase)) is too small for ofj's fixed prompt alone "
            + "(~\(Self.number(fixed)) tokens of system prompt and tool specs); with \(Self.number(plan.budget.outputHeadroom)) for the answer, "
            + "2,048 for the conversation and a tenth kept for tool results, ofj needs at least \(Self.number(needed)) tokens: "
            + settings.raiseAdvice(provider, suggested) + "."
    }

    /// The one line that announces an automatic compaction.
    static func compactedLine(_ c: ContextCheckpoint, _ after: Plan) -> String {
        "Compacted the older messages (up to #\(c.toSeq)) into a summary to fit the context; the next request carries "
            + "~\(number(after.estimate)) of \(number(after.budget.usable)) tokens. All messages stay saved; /context shows what is sent."
    }

    static let shortenedNote = " [… shortened to fit the context; call the tool again for the full result]"

    /// Cuts tool results, oldest first and never the latest tool message, to 400 characters until
    /// about `excessTokens` (corrected) are saved.
    static func shortenToolResults(_ messages: [Message], excessTokens: Int, ratio: Double) -> [Message] {
        var out = messages
        var saved = 0.0
        guard let lastTool = out.lastIndex(where: { $0.role == .tool }) else { return out }
        for i in out.indices where i < lastTool && out[i].role == .tool {
            for (k, part) in out[i].parts.enumerated() {
                guard Double(excessTokens) > saved, case .toolResult(var r) = part, r.content.count > 600 else { continue }
                let before = TokenEstimator.tokens(r.content)
                r.content = String(r.content.prefix(400)) + shortenedNote
                saved += Double(before - TokenEstimator.tokens(r.content)) * ratio
                out[i].parts[k] = .toolResult(r)
            }
        }
        return out
    }

    public func handleContextOverflow(_ context: RequestContext) async -> Bool {
        let shape = Shape(threadID: context.threadID, systemPrompt: context.systemPrompt, tools: context.tools,
                          maxOutputTokens: context.maxOutputTokens, model: context.model, runID: context.runID, contextNote: context.contextNote)
        do {
            // The provider counted more than we estimated: trust our estimate less from now on.
            try store.queue.write { db in
                try db.execute("INSERT OR IGNORE INTO agent_context_state (thread_id) VALUES (?)", [shape.threadID])
                try db.execute("UPDATE agent_context_state SET ratio = min(4.0, ratio * 1.25) WHERE thread_id = ?", [shape.threadID])
            }
            let plan = try makePlan(shape)
            let done = try await reduce(shape, plan, target: plan.budget.usable * 4 / 10, keepRecent: 0, force: true,
                                        notice: context.notice, announce: context.compaction)
            if case .compacted(let checkpoint) = done { context.compaction(Self.compactedLine(checkpoint, try makePlan(shape))) }
            return done != .nothing
        } catch {
            return false
        }
    }

    /// The overflow could not be fixed by leaving older messages out (or was not): name the
    /// server's figures when it gave them, and how to give the model more context.
    public func contextOverflowLine(_ context: RequestContext, _ error: ChatError) async -> AgentError? {
        guard context.model.provider != "offline" else { return nil }
        let shape = Shape(threadID: context.threadID, systemPrompt: context.systemPrompt, tools: context.tools,
                          maxOutputTokens: context.maxOutputTokens, model: context.model, runID: context.runID, contextNote: context.contextNote)
        guard let plan = try? makePlan(shape) else { return nil }
        let needed = Self.neededWindow(plan)
        var suggested = 1_024
        while suggested < needed { suggested *= 2 }
        let said = error.message.trimmingSpaces()
        if error.code == ChatError.emptyStreamCode {
            return AgentError(.contextOverflow, "The server refused the prompt; its log says why — often the context size: this request is "
                              + "~\(Self.number(plan.estimate)) tokens and ofj counts on \(Self.number(plan.limits.contextWindow)) (\(plan.limits.source.phrase)); "
                              + "if that is it, " + settings.raiseAdvice(shape.model.provider, suggested) + ".")
        }
        return AgentError(.contextOverflow, "The request is over the model's context (\(said)) and leaving out older messages cannot make it fit; "
                          + settings.raiseAdvice(shape.model.provider, suggested) + " — ofj needs at least \(Self.number(needed)) tokens.")
    }

    // MARK: - Manual control

    /// `/compact [focus]`: summarises all but the most recent turns now. Never prunes: when the
    /// summary fails or is invalid nothing changes and the error says so.
    public func compact(threadID: String, focus: String, model: any ChatModel, systemPrompt: String, contextNote: String = "", tools: [ToolSpec],
                        maxOutputTokens: Int) async throws -> String {
        let shape = Shape(threadID: threadID, systemPrompt: systemPrompt, tools: tools, maxOutputTokens: maxOutputTokens, model: model, runID: nil,
                          contextNote: contextNote)
        try calibrate(threadID: threadID)
        let before = try makePlan(shape)
        let split = splitPoint(before, openLast: false, keepRecent: max(1, settings.keepRecentTurns), target: nil)
        guard settings.summarises(model.provider) else {
            return "\(model.provider == "offline" ? "The offline assistant" : "This model") cannot summarise a conversation; old turns are left out automatically when the thread gets too long."
        }
        guard split > 0 else {
            return "Nothing to compact yet: the \(before.turnStarts.count) most recent turn(s) are always kept as they are. /context shows the size."
        }
        do {
            let checkpoint = try await compactTurns(shape, before, turns: split, focus: focus.trimmingSpaces())
            let after = try makePlan(shape)
            return "Compacted messages up to #\(checkpoint.toSeq) into a checkpoint (~\(Self.number(after.corrected(after.checkpointTokens))) tokens); "
                + "the next request carries ~\(Self.number(after.estimate)) of \(Self.number(after.budget.usable)) tokens (was ~\(Self.number(before.estimate)))."
        } catch let e as CancellationError {
            throw e
        } catch let e as CompactionFailure {
            throw AgentError(.contextOverflow, "Compaction failed (\(e.description)); nothing was changed. Try again, or with another model.")
        } catch let e as ChatError {
            throw AgentError(.providerUnavailable, "Compaction failed: the model did not answer (\(e.message.trimmingSpaces())); nothing was changed. Try again in a moment.")
        }
    }

    /// Reads the model's window from its server when that is how it is known (see
    /// `ContextSettings.prepare`), so `report` can show the real figure before the first message.
    public func prepareLimits(model: any ChatModel) async {
        await settings.prepare?(model.provider, model.model)
    }

    /// For a context meter: the next request's estimated tokens and the thread's usable budget.
    public func meter(threadID: String, model: any ChatModel, systemPrompt: String, contextNote: String = "", tools: [ToolSpec],
                      maxOutputTokens: Int) throws -> (estimate: Int, usable: Int) {
        let plan = try makePlan(Shape(threadID: threadID, systemPrompt: systemPrompt, tools: tools, maxOutputTokens: maxOutputTokens,
                                      model: model, runID: nil, contextNote: contextNote))
        return (plan.estimate, plan.budget.usable)
    }

    /// `/context`: used/budget, what the next request would carry, and the checkpoints in effect.
    public func report(threadID: String, model: any ChatModel, systemPrompt: String, contextNote: String = "", tools: [ToolSpec],
                       maxOutputTokens: Int) throws -> String {
        let shape = Shape(threadID: threadID, systemPrompt: systemPrompt, tools: tools, maxOutputTokens: maxOutputTokens, model: model, runID: nil,
                          contextNote: contextNote)
        let plan = try makePlan(shape)
        let b = plan.budget
        let n = Self.number
        let percent = b.usable > 0 ? plan.estimate * 100 / b.usable : 0
        let limits = plan.limits
        var lines: [String] = []
        lines.append("Context: ~\(n(plan.estimate)) of \(n(b.usable)) tokens (\(percent)%); compacts at 80% (\(n(b.compactionThreshold))).")
        lines.append("Budget \(plan.choice.rawValue) (\(model.model): \(n(limits.contextWindow))-token window, \(limits.source.phrase)) = \(n(b.limit)), "
                     + "minus \(n(b.outputHeadroom)) for the answer and \(n(b.toolHeadroom)) for tool results.")
        if let line = fixedPartDoesNotFit(plan, provider: model.provider) { lines.append(line) }
        let c = { (raw: Int) in n(plan.corrected(raw)) }
        var carry = "Next request: system prompt ~\(c(plan.systemTokens))"
        if plan.checkpoint != nil { carry += " · checkpoint ~\(c(plan.checkpointTokens))" }
        carry += " · \(plan.messages.count) message(s) ~\(c(plan.rawMessages)) · \(shape.tools.count) tool spec(s) ~\(c(plan.toolTokens))"
        if abs(plan.ratio - 1) > 0.005 { carry += " (estimates ×\(JSONValue.format((plan.ratio * 100).rounded() / 100)) from the provider's counts)" }
        lines.append(carry + ".")
        let all = try store.checkpoints(threadID: threadID)
        if let latest = plan.checkpoint {
            let how = latest.kind == .summary ? "summarised by \(latest.model ?? "the model")" : "left out to fit"
            lines.append("In effect: checkpoint #\(latest.id) — messages up to #\(latest.toSeq) \(how)\(latest.kind == .pruned && !latest.summary.isEmpty ? " (earlier summary kept)" : "").")
            let earlier = all.filter { $0.id != latest.id }.suffix(3)
            if !earlier.isEmpty {
                lines.append("Earlier checkpoints (\(all.count - 1)): " + earlier.map { "#\($0.id) \($0.kind.rawValue) #\($0.fromSeq)–#\($0.toSeq)" }.joined(separator: ", ") + ".")
            }
            lines.append("All messages stay saved; /compact [focus] summarises older turns now.")
        } else {
            lines.append("No checkpoints: the whole thread is sent. /compact [focus] summarises older turns now.")
        }
        return lines.joined(separator: "\n")
    }

    // MARK: - Planning

    func limits(for model: any ChatModel) -> ModelLimits { settings.limits(model.provider, model.model) }

    func makePlan(_ shape: Shape) throws -> Plan {
        let (checkpoint, messages, choice, ratio, earlier) = try store.queue.read {
            db -> (ContextCheckpoint?, [StoredMessage], ContextBudgetChoice, Double, [AttachmentRef]) in
            let checkpoint = try ConversationStore.latestCheckpoint(db, threadID: shape.threadID)
            let earlier = try checkpoint.map {
                try ConversationStore.attachmentsByMessage(db, threadID: shape.threadID, afterSeq: 0, throughSeq: $0.toSeq, queue: store.queue)
                    .sorted { $0.key < $1.key }.flatMap(\.value)
            } ?? []
            let messages = try ConversationStore.messages(db, threadID: shape.threadID, afterSeq: checkpoint?.toSeq ?? 0, queue: store.queue)
            let state = try db.row("SELECT budget, ratio FROM agent_context_state WHERE thread_id = ?", [shape.threadID])
            // No state row, or a NULL budget: the thread uses the default budget and a ratio of 1.
            let choice = try state?.decodeIfPresent(0, as: String.self).flatMap(ContextBudgetChoice.init(rawValue:)) ?? settings.defaultBudget
            return (checkpoint, messages, choice, try state?.decode(1, as: Double.self) ?? 1, earlier)
        }
        var tokens: [Int] = []
        tokens.reserveCapacity(messages.count)
        var starts: [Int] = messages.isEmpty ? [] : [0]
        for (i, m) in messages.enumerated() {
            tokens.append(TokenEstimator.tokens(m.message))
            if i > 0 && m.message.role == .user { starts.append(i) }
        }
        let addendum = checkpoint.map { Self.addendum($0) + Self.attachmentNote(earlier) } ?? ""
        let limits = limits(for: shape.model)
        return Plan(checkpoint: checkpoint, messages: messages, messageTokens: tokens, turnStarts: starts,
                    budget: ContextBudget(choice: choice, limits: limits, requestedOutput: shape.maxOutputTokens), limits: limits,
                    choice: choice, ratio: ratio, systemTokens: TokenEstimator.tokens(shape.systemPrompt) + TokenEstimator.tokens(shape.contextNote),
                    checkpointTokens: TokenEstimator.tokens(addendum), toolTokens: TokenEstimator.tokens(shape.tools), addendum: addendum)
    }

    func request(_ shape: Shape, _ plan: Plan) -> ChatRequest {
        let system = shape.systemPrompt + plan.addendum
        return ChatRequest(system: system, messages: plan.messages.map(\.forModel), tools: shape.tools, maxOutputTokens: shape.maxOutputTokens,
                           contextNote: shape.contextNote)
    }

    /// How a checkpoint is carried: appended to the system prompt.
    /// The files attached to messages a checkpoint replaced: kept in the database, named here so
    /// the model can look at one again with read_attachment.
    static func attachmentNote(_ earlier: [AttachmentRef]) -> String {
        guard !earlier.isEmpty else { return "" }
        return "\n\nFiles attached in the summarised messages (not shown; read_attachment shows one again):\n"
            + earlier.map { "- " + $0.placeholderName }.joined(separator: "\n")
    }

    static func addendum(_ c: ContextCheckpoint) -> String {
        var s = "\n\n## Earlier in this conversation\n"
        if c.kind == .pruned {
            s += "Some earlier messages (up to #\(c.toSeq)) are not shown: they were left out to fit the context. "
                + "Ask the person if something from earlier is needed.\n"
        }
        if !c.summary.isEmpty {
            s += "Summary of the earlier messages (a checkpoint written by the assistant). Facts that live in the journal — goals, totals, "
                + "what was logged — may be out of date here: re-read them with tools before relying on them.\n\n" + c.summary
        } else {
            s += "Re-read journal facts (goals, totals, what was logged) with tools before relying on them."
        }
        return s
    }

    /// How many leading turns to replace (0: none). The last turn is open during a run; the most
    /// recent `keepRecent` closed turns are kept unless the kept part would exceed `target`.
    func splitPoint(_ plan: Plan, openLast: Bool, keepRecent: Int, target: Int?) -> Int {
        let turns = plan.turnStarts.count
        let closed = openLast ? turns - 1 : turns
        guard closed > 0 else { return 0 }
        var split = max(0, closed - max(0, keepRecent))
        if let target {
            let fixed = plan.corrected(plan.systemTokens + plan.toolTokens) + plan.corrected(2 * settings.summaryMaxOutputTokens)
            var tail = plan.corrected(plan.messageTokens[plan.turnStarts[split]...].reduce(0, +))
            while split < closed && fixed + tail > target {
                tail -= plan.corrected(plan.messageTokens[plan.turnRange(split)].reduce(0, +))
                split += 1
            }
        }
        return split
    }

    // MARK: - Compaction and pruning

    /// Compacts (or, when that fails, prunes) the leading turns so the rest fits `target`.
    /// Unless `force`d or over the hard limit, a stretch smaller than two summaries is left alone
    /// (with a tiny window and many tool specs, compacting every turn would gain nothing).
    /// A summary the validator refuses is never stored: while the request still fits (not over
    /// the usable budget, not a provider overflow) the originals are sent, with one line saying
    /// so (`announce`); only a request that cannot be sent as it is gets its oldest turns pruned.
    func reduce(_ shape: Shape, _ plan: Plan, target: Int, keepRecent: Int, force: Bool = false,
                notice: @Sendable (AgentError) -> Void, announce: @Sendable (String) -> Void = { _ in }) async throws -> ContextReduction {
        let split = splitPoint(plan, openLast: true, keepRecent: keepRecent, target: target)
        guard split > 0 else { return .nothing }
        let replaced = plan.corrected(plan.messageTokens[..<plan.turnStarts[split]].reduce(0, +))
        let fits = !force && plan.estimate <= plan.budget.usable
        if fits && replaced < 2 * settings.summaryMaxOutputTokens { return .nothing }
        if fits && refusedThreads.withLock({ $0.contains(shape.threadID) }) { return .nothing }
        let reason: String
        do {
            guard settings.summarises(shape.model.provider) else { throw CompactionFailure(description: "this model cannot summarise") }
            var plan = plan
            var split = split
            // A backlog longer than the summary rounds can read (a thread grown without a context
            // manager, e.g. 100,000 stored messages): leave out its oldest part first, so the
            // summary covers the turns just before the kept ones rather than the oldest few.
            let head = backlogHead(plan, split: split)
            if head > 0 {
                try prune(shape, plan, turns: head, notice: notice)
                plan = try makePlan(shape)
                split = splitPoint(plan, openLast: true, keepRecent: keepRecent, target: target)
                guard split > 0 else { return .nothing }
            }
            let checkpoint = try await compactTurns(shape, plan, turns: split, focus: "")
            _ = refusedThreads.withLock { $0.remove(shape.threadID) }
            return .compacted(checkpoint)
        } catch let e as CancellationError {
            throw e
        } catch let e as CompactionFailure {
            if e.refused {
                _ = refusedThreads.withLock { $0.insert(shape.threadID) }
                if fits {
                    // Chunks summarised before the refused one are valid checkpoints: they stand.
                    if let latest = try store.latestCheckpoint(threadID: shape.threadID), latest.id != plan.checkpoint?.id { return .compacted(latest) }
                    announce("Compaction skipped: \(e.description), so it was not used; the full conversation is still sent "
                             + "(~\(Self.number(plan.estimate)) of \(Self.number(plan.budget.usable)) tokens).")
                    return .nothing
                }
            }
            reason = e.description
        } catch let e as ChatError {
            reason = "the model did not answer: \(e.message.trimmingSpaces())"
        } catch let e as DeadlineExpired {
            reason = "the model took longer than \(RunExecution.formatSeconds(e.seconds))"
        }
        // A chunked compaction may have stored some checkpoints before failing: start from there.
        // Otherwise the plan in hand is still right (reloading a 100,000-message backlog while
        // holding it doubled the peak memory).
        let latest = try store.latestCheckpoint(threadID: shape.threadID)
        let now = latest?.id == plan.checkpoint?.id ? plan : try makePlan(shape)
        let pruneSplit = max(1, splitPoint(now, openLast: true, keepRecent: 0, target: target))
        guard pruneSplit <= now.turnStarts.count - 1,
              let checkpoint = try prune(shape, now, turns: pruneSplit, reason: "compaction_failed", why: reason, notice: notice) else { return .nothing }
        return .pruned(checkpoint, reason: reason)
    }

    /// How many leading turns of the first `split` to leave out before summarising, so that the
    /// rest fits in the allowed summary rounds (0 when it already does). Estimates are of the
    /// whole messages, more than the summariser reads (tool results are shortened there).
    func backlogHead(_ plan: Plan, split: Int) -> Int {
        let capacity = settings.maxCompactionRounds * compactionInputCap(plan) * 8 / 10
        var tokens = 0
        var start = split
        while start > 0 {
            let t = plan.messageTokens[plan.turnRange(start - 1)].reduce(0, +)
            if tokens + t > capacity { break }
            tokens += t
            start -= 1
        }
        // Always summarise at least the last turn of the stretch.
        return min(start, split - 1)
    }

    /// Tokens one summary round may read.
    func compactionInputCap(_ plan: Plan) -> Int { max(1_000, plan.budget.usable * 6 / 10 - settings.summaryMaxOutputTokens) }

    /// Stores a pruned checkpoint for the first `turns` turns of `plan` (carrying its checkpoint's
    /// summary) and tells the person.
    @discardableResult
    func prune(_ shape: Shape, _ plan: Plan, turns: Int, reason: String = "backlog_too_long", why failure: String = "",
               notice: @Sendable (AgentError) -> Void) throws -> ContextCheckpoint? {
        let dropped = plan.messages[plan.turnStarts[0]..<plan.turnStarts[turns]]
        guard let first = dropped.first, let last = dropped.last else { return nil }
        let clockNow = clock.now()
        let carried = plan.checkpoint?.summary ?? ""
        let id = try store.queue.write { db in
            try ConversationStore.insertCheckpoint(db, threadID: shape.threadID, kind: .pruned, fromSeq: first.seq, toSeq: last.seq,
                                                   summary: carried, provider: nil, model: nil, now: clockNow)
        }
        var d = diagnostic(shape, status: "pruned")
        d.errorClass = reason
        d.resultCount = dropped.count
        diagnostics.record(d)
        let why = reason == "compaction_failed" ? "could not be summarised\(failure.isEmpty ? "" : " (\(failure))")" : "is too long to summarise whole"
        notice(AgentError(.contextOverflow, "This conversation got too long for the model and \(why), so its \(dropped.count) oldest "
                          + "message(s) are now left out of what the model sees (they stay saved); /context shows what is sent."))
        return ContextCheckpoint(id: id, threadID: shape.threadID, kind: .pruned, fromSeq: first.seq, toSeq: last.seq,
                                 summary: carried, provider: nil, model: nil, createdAt: clockNow)
    }

    /// Summarises the first `turns` turns of `plan` (in chunks that fit the model) into validated
    /// checkpoints, each building on the previous one; returns the last.
    func compactTurns(_ shape: Shape, _ plan: Plan, turns split: Int, focus: String) async throws -> ContextCheckpoint {
        var previous = plan.checkpoint?.summary ?? ""
        let inputCap = compactionInputCap(plan)
        var start = 0
        var rounds = 0
        var stored: ContextCheckpoint?
        while start < split {
            rounds += 1
            guard rounds <= settings.maxCompactionRounds else {
                throw CompactionFailure(description: "the older part is too long to summarise in \(settings.maxCompactionRounds) steps")
            }
            var end = start
            var used = TokenEstimator.tokens(previous)
            var rendered = ""
            while end < split {
                let piece = render(plan.messages[plan.turnRange(end)])
                let t = TokenEstimator.tokens(piece)
                if end > start && used + t > inputCap { break }
                used += t
                rendered += piece
                end += 1
            }
            let maxBytes = inputCap * TokenEstimator.bytesPerToken
            if rendered.utf8.count > maxBytes { rendered = String(rendered.prefix(maxBytes / 2)) + "\n[… the rest of this turn is shortened …]\n" }
            let messages = plan.messages[plan.turnStarts[start]..<plan.turnRange(end - 1).upperBound]
            let (summary, cutOff) = try await summarise(shape, previous: previous, rendered: rendered, focus: focus)
            let replaced = previous + "\n" + messages.map { Self.fullText($0.message) }.joined(separator: "\n")
            switch CheckpointValidator.validate(summary, replacedText: replaced, maxCharacters: settings.maxSummaryCharacters, idExists: settings.idExists,
                                                cutOff: cutOff) {
            case .failure(let rejection):
                var d = diagnostic(shape, status: "rejected")
                d.errorClass = "invalid_checkpoint"
                d.errorCode = Self.code(rejection)
                d.sizeBytes = summary.utf8.count
                diagnostics.record(d)
                throw CompactionFailure(description: rejection.description, refused: true)
            case .success(let text):
                guard let first = messages.first, let last = messages.last else { throw CompactionFailure(description: "nothing to summarise") }
                let now = clock.now()
                let model = shape.model
                let id = try store.queue.write { db in
                    try ConversationStore.insertCheckpoint(db, threadID: shape.threadID, kind: .summary, fromSeq: first.seq, toSeq: last.seq,
                                                           summary: text, provider: model.provider, model: model.model, now: now)
                }
                stored = ContextCheckpoint(id: id, threadID: shape.threadID, kind: .summary, fromSeq: first.seq, toSeq: last.seq, summary: text,
                                           provider: model.provider, model: model.model, createdAt: now)
                var d = diagnostic(shape, status: "ok")
                d.resultCount = messages.count
                d.sizeBytes = text.utf8.count
                diagnostics.record(d)
                previous = text
            }
            start = end
        }
        guard let stored else { throw CompactionFailure(description: "nothing to summarise") }
        return stored
    }

    /// A rejection's class for diagnostics (never the summary's text).
    static func code(_ r: CheckpointRejection) -> String {
        switch r {
        case .empty: return "empty"
        case .cutOff: return "cut_off"
        case .markup: return "markup"
        case .repetitive: return "repetitive"
        case .tooShort: return "too_short"
        case .tooLong: return "too_long"
        case .longerThanOriginal: return "longer_than_original"
        case .unknownIDs: return "unknown_ids"
        }
    }

    /// One summarising request to the current model, under a deadline. Its usage is stored.
    /// Returns the text and whether the model stopped at its output limit.
    func summarise(_ shape: Shape, previous: String, rendered: String, focus: String) async throws -> (text: String, cutOff: Bool) {
        var input = ""
        if !previous.isEmpty { input += "Summary of what came before (an earlier checkpoint; keep what still matters):\n\(previous)\n\n" }
        input += "Messages to summarise:\n\(rendered)"
        if !focus.isEmpty { input += "\n\nThe person asked the summary to keep in particular: \(focus)" }
        // No tools of any kind: the adapters leave out the provider's own (web search) too.
        let request = ChatRequest(system: Self.compactionPrompt, messages: [.user(input)], tools: [], maxOutputTokens: settings.summaryMaxOutputTokens,
                                  purpose: .summary)
        let model = shape.model
        let timeout = settings.compactionTimeout
        let consumer = Task { () throws -> (String, Usage?, Bool) in
            var text = ""
            var usage: Usage?
            var cutOff = false
            for try await event in model.stream(request) {
                switch event {
                case .textDelta(let t): text += t
                case .usage(let u): usage = u
                case .finish(let reason): cutOff = reason == .length
                default: break
                }
            }
            try Task.checkCancellation()
            return (text, usage, cutOff)
        }
        // A scheduled deadline (not a sleep), so a virtual clock does not jump ahead.
        let expired = Mutex(false)
        let timer = clock.schedule(after: timeout) {
            expired.withLock { $0 = true }
            consumer.cancel()
        }
        let result = await withTaskCancellationHandler { await consumer.result } onCancel: { consumer.cancel() }
        timer.cancel()
        try Task.checkCancellation()
        if expired.withLock({ $0 }) { throw DeadlineExpired(kind: .modelTurn, seconds: timeout) }
        let (text, usage, cutOff) = try result.get()
        if let usage { recordUsage(shape, usage) }
        return (text, cutOff)
    }

    /// Compaction rounds are model rounds too: stored with turn 0 so they count in totals but not
    /// in the estimate calibration.
    func recordUsage(_ shape: Shape, _ usage: Usage) {
        let cost = shape.model.provider == "offline" ? 0 : settings.costEstimator?(shape.model.provider, shape.model.model, usage)
        let now = clock.now()
        do {
            try store.queue.write { db in
                try db.execute("""
                    INSERT INTO agent_usage (thread_id, run_id, turn, provider, model, input_tokens, cached_input_tokens, output_tokens,
                        reasoning_tokens, cost_usd, provider_request_id, created_at) VALUES (?, ?, 0, ?, ?, ?, ?, ?, ?, ?, NULL, ?)
                    """, [shape.threadID, shape.runID ?? "compaction", shape.model.provider, shape.model.model, usage.inputTokens,
                          usage.cachedInputTokens, usage.outputTokens, usage.reasoningTokens, cost, now])
            }
        } catch {
            var d = diagnostic(shape, status: "usage_not_saved")
            d.errorClass = "storage"
            diagnostics.record(d)
        }
    }

    func diagnostic(_ shape: Shape, status: String) -> AgentDiagnostic {
        var d = AgentDiagnostic(operation: .compaction, status: status)
        d.threadID = shape.threadID
        d.runID = shape.runID
        d.provider = shape.model.provider
        d.model = shape.model.model
        return d
    }

    /// What the summariser reads: roles, text, tool calls, and tool results shortened.
    func render(_ messages: ArraySlice<StoredMessage>) -> String {
        var out = ""
        for stored in messages {
            for part in stored.forModel.parts {
                switch part {
                case .text(let t) where !t.isEmpty: out += "[\(stored.message.role.rawValue) #\(stored.seq)] \(t)\n"
                case .toolCall(let c): out += "[assistant #\(stored.seq) calls \(c.name)] \(c.arguments)\n"
                case .toolResult(let r):
                    let body = r.content.count > settings.renderedResultLimit
                        ? String(r.content.prefix(settings.renderedResultLimit)) + " [… shortened]" : r.content
                    out += "[\(r.name) result\(r.isError ? " (error)" : "")] \(body)\n"
                default: break
                }
            }
        }
        return out
    }

    /// Everything a message says, unshortened (what cited ids are checked against).
    static func fullText(_ m: Message) -> String {
        m.parts.map { part -> String in
            switch part {
            case .text(let t): return t
            case .toolCall(let c): return c.arguments
            case .toolResult(let r): return r.content
            case .continuation: return ""
            }
        }.joined(separator: "\n")
    }

    // MARK: - Calibration

    /// Updates the thread's estimate ratio from the provider's count for the last request sent.
    func calibrate(threadID: String) throws {
        let pending = try store.queue.read { db -> (Int64, Int, Int)? in
            guard let state = try db.row("SELECT last_estimate, last_usage_id FROM agent_context_state WHERE thread_id = ?", [threadID]),
                  let usage = try db.row("SELECT id, input_tokens FROM agent_usage WHERE thread_id = ? AND turn > 0 ORDER BY id DESC LIMIT 1", [threadID])
            else { return nil }
            let estimate = try state.decode(0, as: Int.self), seen = try state.decode(1, as: Int64.self)
            let id = try usage.decode(0, as: Int64.self), input = try usage.decode(1, as: Int.self)
            guard estimate > 0, id > seen, input > 0 else { return nil }
            return (id, input, estimate)
        }
        guard let (id, input, estimate) = pending else { return }
        let ratio = min(4, max(0.25, Double(input) / Double(estimate)))
        try store.queue.write { db in
            try db.execute("UPDATE agent_context_state SET ratio = ?, last_usage_id = ? WHERE thread_id = ?", [ratio, id, threadID])
        }
    }

    /// Remembers the raw estimate of the request about to be sent, to compare with the provider's count.
    func recordEstimate(threadID: String, raw: Int) throws {
        try store.queue.write { db in
            let seen = try db.scalar("SELECT coalesce(max(id), 0) FROM agent_usage WHERE thread_id = ? AND turn > 0", [threadID]).int64 ?? 0
            try db.execute("""
                INSERT INTO agent_context_state (thread_id, last_estimate, last_usage_id) VALUES (?, ?, ?)
                ON CONFLICT (thread_id) DO UPDATE SET last_estimate = excluded.last_estimate, last_usage_id = excluded.last_usage_id
                """, [threadID, raw, seen])
        }
    }

    static func number(_ n: Int) -> String {
        let digits = String(abs(n))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return n < 0 ? "-" + out : out
    }
}
