// The agent loop's public face: submit, continue, stop, recover, and the one event stream.
import SQLiteKit
import Synchronization

/// Settings of a runner.
public struct AgentConfiguration: Sendable {
    public var systemPrompt: String
    public var policy: DeadlinePolicy
    public var maxTurnsPerMessage: Int
    public var maxParallelReads: Int
    public var maxOutputTokens: Int
    /// A number in 0..<1 for backoff jitter (fixed in tests).
    public var jitter: @Sendable () -> Double
    /// Estimated cost of one round in USD, from a price table; nil when unknown.
    public var costEstimator: (@Sendable (_ provider: String, _ model: String, _ usage: Usage) -> Double?)?
    /// Caps on one streamed answer (text, tool calls).
    public var limits: AnswerLimits = .standard
    /// Standing approval rules (config.json `approvals.rules`); nil = none, every write is asked about.
    public var approvalRules: (any ApprovalRuleSource)?
    /// What changes from one request to the next (the date and local time), asked for each model
    /// turn and sent after the stable prefix (`ChatRequest.contextNote`); the system prompt stays
    /// the same bytes for the whole thread, so providers' prompt caches keep matching.
    public var contextNote: @Sendable () -> String = { "" }

    public init(systemPrompt: String, policy: DeadlinePolicy = .fast, maxTurnsPerMessage: Int = 8, maxParallelReads: Int = 3,
                maxOutputTokens: Int = 4_000, jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
                costEstimator: (@Sendable (String, String, Usage) -> Double?)? = nil) {
        self.systemPrompt = systemPrompt
        self.policy = policy
        self.maxTurnsPerMessage = maxTurnsPerMessage
        self.maxParallelReads = maxParallelReads
        self.maxOutputTokens = maxOutputTokens
        self.jitter = jitter
        self.costEstimator = costEstimator
    }
}

/// Identifies a run that was started.
public struct RunHandle: Sendable, Hashable {
    public var threadID: String
    public var runID: String
}

/// Everything a run needs, shared by all runs of one runner.
struct RunnerEnvironment: Sendable {
    var store: ConversationStore
    var tools: ToolRegistry
    var approvals: any ApprovalGate
    var clock: any AgentClock
    var ids: any IDSource
    var diagnostics: any DiagnosticsRecorder
    var configuration: AgentConfiguration
    var assembler: any RequestAssembler
    var faults: (any FaultInjector)?
    /// Approved writes the disk or a lock refused, kept for `continueRun`.
    var deferred = DeferredWrites()
    var emit: @Sendable (AgentEvent) -> Void
}

/// How a stop request should leave the run.
enum StopMode: Sendable { case suspend, cancel }

final class StopBox: Sendable {
    private let mode = Mutex<StopMode?>(nil)
    var value: StopMode? { mode.withLock { $0 } }
    func set(_ m: StopMode) { mode.withLock { if $0 == nil { $0 = m } } }
}

/// Runs the agent loop for threads stored in a `ConversationStore`. Thread-safe; one instance
/// per process. Every frontend renders `events`.
public final class AgentRunner: Sendable {
    public let store: ConversationStore
    public let events: AsyncStream<AgentEvent>
    private let continuation: AsyncStream<AgentEvent>.Continuation
    private let environment: RunnerEnvironment
    private let defaultModel: any ChatModel

    private struct Active {
        var threadID: String
        var task: Task<RunOutcome, Never>
        var stop: StopBox
    }
    private struct State {
        var active: [String: Active] = [:]
        /// Outcomes of recent runs, for `outcome(of:)` after the fact (bounded, oldest dropped).
        var finished: [String: RunOutcome] = [:]
        var finishedOrder: [String] = []
    }
    private static let keptOutcomes = 256
    private let state = Mutex(State())

    public init(store: ConversationStore, model: any ChatModel, tools: ToolRegistry, approvals: any ApprovalGate,
                clock: any AgentClock = SystemClock(), ids: any IDSource = UUIDSource(),
                diagnostics: any DiagnosticsRecorder = NoDiagnostics(), configuration: AgentConfiguration,
                assembler: any RequestAssembler = FullTranscriptAssembler(), faults: (any FaultInjector)? = nil) {
        self.store = store
        self.defaultModel = model
        let (stream, continuation) = AsyncStream<AgentEvent>.makeStream()
        self.events = stream
        self.continuation = continuation
        self.environment = RunnerEnvironment(store: store, tools: tools, approvals: approvals, clock: clock, ids: ids,
                                             diagnostics: diagnostics, configuration: configuration, assembler: assembler,
                                             faults: faults, emit: { continuation.yield($0) })
    }

    deinit { continuation.finish() }

    // MARK: - Starting runs

    /// A fresh thread id from the runner's id source (deterministic in tests and replay).
    public func newThreadID() -> String { environment.ids.next() }

    /// Stores the user's message and a queued run in one transaction, then starts the run in the
    /// background. Creates the thread when it does not exist yet. Throws `AgentError.threadBusy`
    /// when a run on this thread is active (in this process or any other).
    @discardableResult
    public func submit(threadID: String, text: String, attachments: [AttachmentRef] = [], model: (any ChatModel)? = nil) throws -> RunHandle {
        let model = model ?? defaultModel
        let runID = environment.ids.next()
        let now = environment.clock.now()
        do {
            try insertRun(threadID: threadID, runID: runID, text: text, attachments: attachments, model: model, now: now)
        } catch let error as DatabaseError where Self.isActiveRunConflict(error) {
            // The active run may belong to an ofj that stopped after this one started: recover
            // the thread's orphaned runs and try once more; a live run keeps the thread busy.
            guard (try? recoverInterruptedRuns(threadID: threadID))?.isEmpty == false else { throw AgentError.busy }
            do {
                try insertRun(threadID: threadID, runID: runID, text: text, attachments: attachments, model: model, now: now)
            } catch let error as DatabaseError where Self.isActiveRunConflict(error) {
                throw AgentError.busy
            } catch {
                throw AgentError.storage(error)
            }
        } catch {
            throw AgentError.storage(error)
        }
        // Files just read are hashed and stored while the request goes out; the run waits for
        // that before it ends (AttachmentSaving.swift).
        let faults = environment.faults
        let reached: @Sendable () throws -> Void = { try faults?.reached(.attachmentSave, runID: runID) }
        let saving = ConversationStore.savePending(attachments, queue: store.queue, now: now, reached: reached)
        environment.emit(AgentEvent(threadID: threadID, runID: runID, kind: .phase(.queued)))
        start(RunHandle(threadID: threadID, runID: runID), model: model, turnsUsed: 0, saving: saving)
        return RunHandle(threadID: threadID, runID: runID)
    }

    /// The user's message and a queued run owned by this process, in one transaction.
    private func insertRun(threadID: String, runID: String, text: String, attachments: [AttachmentRef], model: any ChatModel, now: Double) throws {
        try store.queue.write { db in
                try ConversationStore.ensureThread(db, id: threadID, now: now)
                try ConversationStore.insertQueuedRun(db, runID: runID, threadID: threadID, model: model, now: now,
                                                      supersededLine: "A newer message replaced this interrupted answer.")
                let messageID = try ConversationStore.insertMessage(db, threadID: threadID, runID: runID, role: .user, turn: nil,
                                                                    state: .complete, parts: [.text(text)], now: now)
                // The person's message clears what was read before it; files attached to it are
                // content from outside them, read by this run.
                try ConversationStore.clearUntrusted(db, threadID: threadID, messageID: messageID, now: now)
                if !attachments.isEmpty {
                    try ConversationStore.insertAttachments(db, messageID: messageID, attachments, queue: store.queue, now: now)
                    try ConversationStore.recordUntrusted(db, threadID: threadID, runID: runID,
                                                          reads: attachments.map { UntrustedRead(kind: .attachment, label: $0.name) }, now: now)
                }
                try db.execute("UPDATE agent_threads SET title = ? WHERE id = ? AND title IS NULL", [Self.autoTitle(text), threadID])
                if db.changes > 0 { try ConversationStore.indexTitle(db, threadID: threadID) }
                try db.execute("UPDATE agent_threads SET provider = ?, model = ? WHERE id = ?", [model.provider, model.model, threadID])
            }
    }

    /// Replaces the thread's last answer with a new one for the same message (`/retry`): the
    /// answer's closing text (the assistant messages after its last tool result) is marked
    /// superseded — kept as an earlier version, never sent again — and a new run answers from
    /// there. Tool calls the answer made (and what they wrote) stay: a retry never repeats a write.
    /// Returns the handle and how many earlier versions the message now has.
    @discardableResult
    public func regenerate(threadID: String, model: (any ChatModel)? = nil) throws -> (handle: RunHandle, versions: Int) {
        let model = model ?? defaultModel
        let runID = environment.ids.next()
        let now = environment.clock.now()
        let versions: Int
        do {
            versions = try store.queue.write { db -> Int in
                // From the end through the (thread_id, seq) index: a long thread is not scanned.
                guard let userSeq = try db.scalar("""
                    SELECT seq FROM agent_messages WHERE thread_id = ? AND role = 'user' ORDER BY seq DESC LIMIT 1
                    """, [threadID]).int else {
                    throw AgentError(.nothingToContinue, "Nothing to retry in this thread yet.")
                }
                if try db.row("SELECT 1 FROM agent_runs WHERE thread_id = ? AND phase IN (\(ConversationStore.activePhaseList))", [threadID]) != nil {
                    throw AgentError.busy
                }
                let lastKept = try db.scalar("""
                    SELECT m.seq FROM agent_messages m
                    WHERE m.thread_id = ?1 AND m.seq >= ?2
                      AND NOT EXISTS (SELECT 1 FROM agent_superseded_messages s WHERE s.message_id = m.id)
                      AND (m.role <> 'assistant'
                           OR EXISTS (SELECT 1 FROM agent_message_parts p WHERE p.message_id = m.id AND p.kind = 'tool_call'))
                    ORDER BY m.seq DESC LIMIT 1
                    """, [threadID, userSeq]).int ?? userSeq
                try db.execute("""
                    INSERT INTO agent_superseded_messages (message_id, by_run_id, superseded_at)
                    SELECT m.id, ?3, ?4 FROM agent_messages m
                    WHERE m.thread_id = ?1 AND m.seq > ?2 AND m.role = 'assistant'
                      AND NOT EXISTS (SELECT 1 FROM agent_superseded_messages s WHERE s.message_id = m.id)
                    """, [threadID, lastKept, runID, now])
                // A retry replaces a run left suspended, as a new message does.
                try ConversationStore.insertQueuedRun(db, runID: runID, threadID: threadID, model: model, now: now,
                                                      supersededLine: "A newer answer replaced this interrupted one.")
                try db.execute("UPDATE agent_threads SET provider = ?, model = ? WHERE id = ?", [model.provider, model.model, threadID])
                return try db.scalar("""
                    SELECT count(DISTINCT s.by_run_id) FROM agent_superseded_messages s JOIN agent_messages m ON m.id = s.message_id
                    WHERE m.thread_id = ? AND m.seq > ?
                    """, [threadID, userSeq]).int ?? 0
            }
        } catch let error as AgentError {
            throw error
        } catch let error as DatabaseError where Self.isActiveRunConflict(error) {
            throw AgentError.busy
        } catch {
            throw AgentError.storage(error)
        }
        environment.emit(AgentEvent(threadID: threadID, runID: runID, kind: .phase(.queued)))
        start(RunHandle(threadID: threadID, runID: runID), model: model, turnsUsed: 0)
        return (RunHandle(threadID: threadID, runID: runID), versions)
    }

    /// Resumes the thread's latest run if it is `suspended`: unanswered tool calls of its last
    /// complete turn run (committed writes return their ledger result), then the loop goes on.
    /// Nothing is sent to the provider unless the stored transcript needs another model turn.
    @discardableResult
    public func continueRun(threadID: String, model: (any ChatModel)? = nil) throws -> RunHandle {
        let model = model ?? defaultModel
        let now = environment.clock.now()
        let record: RunRecord
        do {
            record = try store.queue.write { db in
                guard let latest = try db.row("SELECT \(ConversationStore.runColumns) FROM agent_runs WHERE thread_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1",
                                              [threadID]).map(ConversationStore.runRecord) else {
                    throw AgentError(.nothingToContinue, "This thread has nothing to continue; send a message instead.")
                }
                // A run suspended because the disk or a lock refused an approved write, whose
                // `suspended` phase the database refused too: still "active" in the file, but
                // nobody runs it.
                let stranded = environment.deferred.isStranded(latest.id) && !isRunning(latest.id)
                if latest.phase.isActive && !stranded { throw AgentError.busy }
                guard latest.phase == .suspended || stranded else {
                    throw AgentError(.nothingToContinue, "The last answer in this thread is not interrupted; send a message instead.")
                }
                if stranded {
                    try db.execute("UPDATE agent_tool_calls SET status = 'interrupted', finished_at = ? WHERE run_id = ? AND status = 'running'", [now, latest.id])
                }
                try db.execute("""
                    UPDATE agent_runs SET phase = 'queued', error_class = NULL, error_line = NULL, phase_changed_at = ?, finished_at = NULL,
                        provider = ?, model = ?, owner = ?
                    WHERE id = ?
                    """, [now, model.provider, model.model, RunOwner.current, latest.id])
                return latest
            }
        } catch let error as DatabaseError where Self.isActiveRunConflict(error) {
            throw AgentError.busy
        } catch {
            throw AgentError.storage(error)
        }
        environment.deferred.unstrand(record.id)
        environment.emit(AgentEvent(threadID: threadID, runID: record.id, kind: .phase(.queued)))
        start(RunHandle(threadID: threadID, runID: record.id), model: model, turnsUsed: record.turnsUsed)
        return RunHandle(threadID: threadID, runID: record.id)
    }

    private func start(_ handle: RunHandle, model: any ChatModel, turnsUsed: Int, saving: AttachmentSaving? = nil) {
        let environment = self.environment
        let stop = StopBox()
        state.withLock { s in
            let task = Task { [weak self] () -> RunOutcome in
                let execution = RunExecution(environment: environment, handle: handle, model: model, turnsUsed: turnsUsed, stop: stop,
                                             saving: saving)
                let outcome = await execution.run()
                self?.finished(handle.runID, outcome)
                return outcome
            }
            s.active[handle.runID] = Active(threadID: handle.threadID, task: task, stop: stop)
            s.finished[handle.runID] = nil
        }
    }

    private func finished(_ runID: String, _ outcome: RunOutcome) {
        state.withLock { s in
            s.active[runID] = nil
            s.finished[runID] = outcome
            s.finishedOrder.append(runID)
            if s.finishedOrder.count > Self.keptOutcomes {
                let dropped = s.finishedOrder.removeFirst()
                if !s.finishedOrder.contains(dropped) { s.finished[dropped] = nil }
            }
        }
    }

    // MARK: - Stopping and waiting

    /// Stops the thread's active run and leaves it `suspended` (Ctrl-C, SIGTERM): partial text is
    /// kept and `continueRun` can resume it.
    public func interrupt(threadID: String) { stop(threadID: threadID, .suspend) }

    /// Stops the thread's active run for good: it ends `cancelled`, and unanswered calls get a
    /// result saying they were cancelled.
    public func cancel(threadID: String) { stop(threadID: threadID, .cancel) }

    /// Interrupts every active run (process shutdown).
    public func interruptAll() {
        let runs = state.withLock { Array($0.active.values) }
        for run in runs {
            run.stop.set(.suspend)
            run.task.cancel()
        }
    }

    private func stop(threadID: String, _ mode: StopMode) {
        let runs = state.withLock { $0.active.values.filter { $0.threadID == threadID } }
        for run in runs {
            run.stop.set(mode)
            run.task.cancel()
        }
    }

    /// Waits for a run of this runner to end; nil for a run it does not know.
    public func outcome(of runID: String) async -> RunOutcome? {
        // A continued run reuses its id: the active task, if any, is the one to wait for.
        let (task, done) = state.withLock { ($0.active[runID]?.task, $0.finished[runID]) }
        if let task { return await task.value }
        return done
    }

    private func isRunning(_ runID: String) -> Bool { state.withLock { $0.active[runID] != nil } }

    /// Whether this runner is working on the thread right now.
    public func isActive(threadID: String) -> Bool {
        state.withLock { $0.active.values.contains { $0.threadID == threadID } }
    }

    // MARK: - Recovery

    /// Call once at start: runs left in an active phase by a process that stopped (crash, kill,
    /// power loss) become `suspended`; their half-streamed messages become `partial` and tool
    /// calls caught running become `interrupted`. Runs of this runner are left alone, and so are
    /// runs of another ofj process that is still running (`agent_runs.owner`). Sends nothing to
    /// any provider. Returns the runs now suspended. `threadID` limits it to one thread and to
    /// runs of other processes that are gone (used when a message finds its thread busy).
    @discardableResult
    public func recoverInterruptedRuns(threadID: String? = nil) throws -> [RunRecord] {
        let mine = state.withLock { Set($0.active.keys) }
        let now = environment.clock.now()
        do {
            let recovered = try store.queue.write { db -> [String] in
                let sql = "SELECT id, owner FROM agent_runs WHERE phase IN (\(ConversationStore.activePhaseList))"
                    + (threadID == nil ? "" : " AND thread_id = ?") + " ORDER BY created_at"
                let runs = try db.rows(sql, threadID.map { [$0] } ?? []).map { (id: try $0.decode(0, as: String.self), owner: try $0.decodeIfPresent(1, as: String.self)) }
                let ids = runs.filter { RunOwner.isOrphaned($0.owner, includingThisProcess: threadID == nil) || environment.deferred.isStranded($0.id) }
                    .map(\.id).filter { !mine.contains($0) }
                for id in ids {
                    try ConversationStore.setPhase(db, runID: id, .suspended, now: now,
                                                   error: AgentError(.interrupted, "This answer was interrupted before it finished; type /continue to resume it."))
                    try db.execute("UPDATE agent_messages SET state = 'partial' WHERE run_id = ? AND state = 'streaming'", [id])
                    try db.execute("UPDATE agent_tool_calls SET status = 'interrupted', finished_at = ? WHERE run_id = ? AND status = 'running'", [now, id])
                }
                return ids
            }
            for id in recovered {
                environment.deferred.unstrand(id)
                var d = AgentDiagnostic(operation: .run, status: "recovered_suspended")
                d.runID = id
                environment.diagnostics.record(d)
            }
            return try recovered.compactMap { try store.run($0) }
        } catch {
            throw AgentError.storage(error)
        }
    }

    // MARK: - Helpers

    static func isActiveRunConflict(_ error: DatabaseError) -> Bool {
        error.isConstraint && error.message.contains("agent_runs.thread_id")
    }

    /// First line of the first message, at most 60 characters.
    static func autoTitle(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init)?.trimmingSpaces() ?? ""
        if line.isEmpty { return "New thread" }
        return line.count <= 60 ? line : String(line.prefix(59)).trimmingSpaces() + "…"
    }
}
