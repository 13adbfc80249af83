// Runs one model turn's tool calls: reads in parallel (bounded), writes as approved, ledgered barriers.
import Base
import SQLiteKit

struct ToolExecutor: Sendable {
    let env: RunnerEnvironment
    let handle: RunHandle
    let budget: RunBudget
    /// The run's model, handed to tools in their context.
    var model: (any ChatModel)? = nil

    var policy: DeadlinePolicy { env.configuration.policy }

    static let stoppedResult = #"{"error":"this call was stopped before it finished because the answer was stopped; it changed nothing"}"#

    /// Executes calls in order: adjacent reads (and calls rejected before running) as one
    /// parallel group, each write alone, after everything before it and before anything after it.
    func execute(_ calls: [(ordinal: Int, call: ToolCall)], turn: Int, setPhase: (RunPhase) throws -> Void) async throws {
        // A call to a tool of a group this thread has not enabled (one the model saw earlier, or
        // enable_tools) enables that group: the next request offers its tools, schemas included.
        let groups = calls.flatMap { env.tools.groupsEnabled(by: $0.call) }
        if !groups.isEmpty { try env.store.enableToolGroups(groups, threadID: handle.threadID, now: env.clock.now()) }
        var i = 0
        while i < calls.count {
            if isWrite(calls[i].call) {
                try await executeWrite(calls[i], turn: turn, setPhase: setPhase)
                try setPhase(.executingTools)
                i += 1
                continue
            }
            var j = i
            while j < calls.count && !isWrite(calls[j].call) { j += 1 }
            try await executeReads(Array(calls[i..<j]), turn: turn)
            i = j
        }
    }

    private func isWrite(_ call: ToolCall) -> Bool { env.tools.tool(named: call.name)?.effect == .write }

    private func context(_ call: ToolCall) -> ToolContext {
        ToolContext(threadID: handle.threadID, runID: handle.runID, callID: call.id, now: WallTime(secondsSince1970: env.clock.now()),
                    model: model)
    }

    // MARK: - Reads

    private func executeReads(_ items: [(ordinal: Int, call: ToolCall)], turn: Int) async throws {
        let limit = max(1, env.configuration.maxParallelReads)
        try await withThrowingTaskGroup(of: Void.self) { group in
            var running = 0
            for item in items {
                if running >= limit {
                    try await group.next()
                    running -= 1
                }
                try Task.checkCancellation()
                guard let job = try prepare(item, turn: turn) else { continue }
                group.addTask { try await job.run() }
                running += 1
            }
            try await group.waitForAll()
        }
    }

    /// Records the call's start; returns nil when it was answered without running (rejected).
    private func prepare(_ item: (ordinal: Int, call: ToolCall), turn: Int) throws -> ReadJob? {
        let key = CallKey(runID: handle.runID, turn: turn, callID: item.call.id)
        let now = env.clock.now()
        switch env.tools.resolve(item.call) {
        case .failure(let rejection):
            try env.store.queue.write { db in
                try ConversationStore.startToolRecord(db, threadID: handle.threadID, key: key, ordinal: item.ordinal, call: item.call, effect: nil, now: now)
                try ConversationStore.recordResult(db, threadID: handle.threadID, key: key, ordinal: item.ordinal, toolName: item.call.name,
                                                   output: rejection.output, status: .rejected, now: now)
            }
            emit(.toolFinished(callID: item.call.id, name: item.call.name, status: .rejected, summary: rejection.message))
            record(.toolExecution, status: "rejected", turn: turn, call: item.call, errorClass: "invalid_arguments")
            return nil
        case .success(let resolved):
            try env.store.queue.write { db in
                try ConversationStore.startToolRecord(db, threadID: handle.threadID, key: key, ordinal: item.ordinal, call: item.call,
                                                      effect: resolved.tool.effect, now: now)
            }
            emit(.toolStarted(callID: item.call.id, name: item.call.name, activity: ToolRegistry.oneLine(resolved.tool.activity(arguments: resolved.arguments))))
            return ReadJob(executor: self, key: key, ordinal: item.ordinal, call: item.call, tool: resolved.tool,
                           arguments: resolved.arguments, context: context(item.call))
        }
    }

    struct ReadJob: Sendable {
        let executor: ToolExecutor
        let key: CallKey
        let ordinal: Int
        let call: ToolCall
        let tool: any Tool
        let arguments: JSONValue
        let context: ToolContext

        func run() async throws {
            let env = executor.env
            let policy = executor.policy
            let started = env.clock.monotonic()
            await tool.prepare() // outside the deadline: a first use may load data (counted in the total)
            let limit = policy.seconds(for: tool.timing)
            var attempt = 0
            var output: ToolOutput
            var status: ToolCallStatus
            var errorClass: String?
            while true {
                attempt += 1
                let left = executor.budget.remaining
                guard left > 0 else { throw DeadlineExpired(kind: .run, seconds: policy.run) }
                let kind: DeadlineKind = limit <= left ? .toolRead : .run
                do {
                    let tool = self.tool, arguments = self.arguments, context = self.context
                    let raw = try await withDeadline(min(limit, left), kind: kind, clock: env.clock) {
                        try await tool.execute(arguments: arguments, context: context)
                    }
                    output = env.tools.bounded(raw, toolName: tool.name)
                    status = raw.isError ? .failed : .succeeded
                    break
                } catch let e as ToolArgumentError {
                    output = .error(e.description)
                    status = .rejected
                    errorClass = "invalid_arguments"
                    break
                } catch let e as DeadlineExpired where e.kind == .run {
                    throw e
                } catch {
                    if Task.isCancelled { throw CancellationError() }
                    let timedOut = error is DeadlineExpired
                    if timedOut {
                        var t = executor.diagnostic(.timeout, status: DeadlineKind.toolRead.rawValue, turn: key.turn, call: call)
                        t.totalMs = limit * 1000
                        env.diagnostics.record(t)
                    }
                    let backoff = policy.retryBackoff * (0.8 + 0.4 * env.configuration.jitter())
                    if attempt == 1 && backoff + 0.001 < executor.budget.remaining {
                        var d = executor.diagnostic(.retry, status: "scheduled", turn: key.turn, call: call)
                        d.errorClass = timedOut ? "timeout" : "tool_error"
                        d.retryCount = 1
                        env.diagnostics.record(d)
                        executor.emit(.retrying(operation: "tool:\(call.name)", delaySeconds: backoff))
                        try await env.clock.sleep(seconds: backoff)
                        continue
                    }
                    let what = timedOut ? "did not answer within \(RunExecution.formatSeconds(limit))" : "failed (\(error))"
                    output = .error("\(call.name) \(what)\(attempt > 1 ? ", twice" : ""); continue without it or try again later")
                    status = .failed
                    errorClass = timedOut ? "timeout" : "tool_error"
                    break
                }
            }
            let now = env.clock.now()
            let finalOutput = output, finalStatus = status
            // What the result brought in from outside the person marks the thread, in the same
            // transaction as the result (a result the model can see is never unmarked).
            let untrusted = status == .rejected ? [] : tool.untrustedReads(arguments: arguments, output: output)
            try env.store.queue.write { db in
                try ConversationStore.recordResult(db, threadID: executor.handle.threadID, key: key, ordinal: ordinal, toolName: call.name,
                                                   output: finalOutput, status: finalStatus, now: now)
                try ConversationStore.recordUntrusted(db, threadID: executor.handle.threadID, runID: executor.handle.runID, reads: untrusted, now: now)
            }
            executor.emit(.toolFinished(callID: call.id, name: call.name, status: status, summary: output.summary))
            var d = executor.diagnostic(.toolExecution, status: status.rawValue, turn: key.turn, call: call)
            d.totalMs = (env.clock.monotonic() - started) * 1000
            d.sizeBytes = output.content.utf8.count
            d.retryCount = attempt - 1
            d.errorClass = errorClass
            env.diagnostics.record(d)
            try env.faults?.reached(.afterReadResult, runID: executor.handle.runID)
        }
    }

    // MARK: - Writes

    private func executeWrite(_ item: (ordinal: Int, call: ToolCall), turn: Int, setPhase: (RunPhase) throws -> Void) async throws {
        try Task.checkCancellation()
        let call = item.call
        let key = CallKey(runID: handle.runID, turn: turn, callID: call.id)
        let started = env.clock.monotonic()

        // Already decided or done (resumed run, retry, replay): the stored result, never a second write.
        if let entry = try env.store.ledgerEntry(key) {
            env.deferred.done(key)
            try answerFromLedger(entry, ordinal: item.ordinal, call: call)
            return
        }
        // A resumed run whose call was approved before it stopped applies the change that was
        // approved, never a new plan of it (kept in `agent_approvals`, or only in this runner's
        // memory when the disk or a lock refused even the approval row).
        var kept = try keptApproval(key)
        guard case .success(let resolved) = env.tools.resolve(call), let tool = resolved.tool as? any WriteTool else {
            let rejection: ToolRejection
            if case .failure(let r) = env.tools.resolve(call) { rejection = r } else {
                rejection = ToolRejection(message: "'\(call.name)' is declared as a write tool but cannot apply changes")
            }
            try finishWithoutWriting(item, turn: turn, output: rejection.output, status: .rejected, ledger: nil)
            record(.toolExecution, status: "rejected", turn: turn, call: call, errorClass: "invalid_arguments")
            return
        }
        var arguments = resolved.arguments
        // The call as it is applied and recorded: the person may edit its arguments at the card.
        var effective = call
        let context = context(call)
        let now = env.clock.now()
        try deferring(kept != nil) {
            try env.store.queue.write { db in
                try ConversationStore.startToolRecord(db, threadID: handle.threadID, key: key, ordinal: item.ordinal, call: call, effect: .write, now: now)
            }
        }
        emit(.toolStarted(callID: call.id, name: call.name, activity: ToolRegistry.oneLine(tool.activity(arguments: arguments))))

        var notice: String?
        var editNote: String?
        var conflicts = 0
        while true {
            let planned: PlannedChange
            let decision: ApprovalDecision
            var ruled: RuleVerdict?
            if let k = kept {
                kept = nil
                planned = k.change
                decision = k.decision
                if !k.stored {
                    try keepingDecision(key, decision, planned, waited: k.waited, stored: false, source: k.source) {
                        try recordApproval(key: key, call: call, decision: decision, source: k.source, waited: k.waited, change: planned)
                    }
                }
            } else {
                // Planned at the time the card is drawn (a re-plan after a conflict sees the time now).
                guard let p = try plan(tool, arguments: arguments, context: self.context(call), item: item, turn: turn) else { return }
                planned = p
                let (asked, verdict) = try await approval(of: planned, tool: tool, arguments: arguments, notice: notice, editNote: editNote, key: key,
                                                          call: effective, edited: effective != call, setPhase: setPhase)
                ruled = verdict
                editNote = nil
                switch asked {
                case .decision(let d):
                    decision = d
                case .edited(let text):
                    // Edited at the card: checked against the tool's schema like the model's own
                    // arguments, then planned and asked about again with a new card.
                    let edit = ToolCall(id: call.id, name: call.name, arguments: text)
                    switch env.tools.resolve(edit) {
                    case .success(let r):
                        arguments = r.arguments
                        effective = ToolCall(id: call.id, name: call.name, arguments: r.arguments.serialized)
                        notice = nil
                        editNote = "Edited by you; the change is now:"
                    case .failure(let rejection):
                        editNote = "Your edit was not used (\(rejection.message)); the change is still:"
                    }
                    record(.approval, status: "edited", turn: turn, call: call, errorClass: nil)
                    continue
                }
            }
            if decision == .deny {
                let output = ruled.map { Self.deniedByRule($0) }
                    ?? ToolOutput(content: #"{"denied":true,"message":"The person declined this change; nothing was written. Do not repeat it unless they ask."}"#,
                                  summary: "declined; nothing was written")
                try keepingDecision(key, decision, planned, waited: 0, stored: true) {
                    try finishWithoutWriting(item, turn: turn, output: output, status: .denied, ledger: (.denied, decision), change: planned)
                }
                env.deferred.done(key)
                record(.toolExecution, status: "denied", turn: turn, call: call, errorClass: nil)
                return
            }
            try setPhase(.executingTools)
            try Task.checkCancellation()
            do {
                try commit(planned, tool: tool, context: context, decision: decision, item: item, key: key, started: started,
                           call: effective, edited: effective != call)
                env.deferred.done(key)
                return
            } catch let conflict as ChangeConflict {
                // Rolled back: what the card showed is no longer what would be written. Ask again
                // about the change as it is now (a few times at most), or give up without writing.
                conflicts += 1
                record(.toolExecution, status: "conflict", turn: turn, call: call, errorClass: "changed_since_preview")
                guard conflicts < Self.maxConflicts else {
                    let output = ToolOutput.error("\(call.name) was not done: \(conflict.message) while the change waited for approval, again; nothing was written. Look it up again and tell the person")
                    try finishWithoutWriting(item, turn: turn, output: output, status: .failed, ledger: (.failed, decision), change: planned)
                    return
                }
                notice = conflict.message
            } catch let crash as SimulatedCrash {
                throw crash
            } catch let e as ToolArgumentError {
                // Rolled back: nothing was written. Recorded so the same call is not attempted again.
                try finishWithoutWriting(item, turn: turn, output: .error(e.description), status: .rejected, ledger: (.failed, decision), change: planned)
                record(.toolExecution, status: "rejected", turn: turn, call: call, errorClass: "invalid_arguments")
                return
            } catch let e as DatabaseError where DeferredWrites.line(for: e) != nil {
                // The disk or a lock refused it, not the change itself: rolled back, nothing written,
                // no ledger row (it could not be stored either), so the call can still happen. The
                // decision is kept (it is in `agent_approvals` too) for /continue; never retried here.
                env.deferred.keep(key, decision: decision, change: planned, waited: 0, stored: true)
                record(.toolExecution, status: "not_saved", turn: turn, call: call, errorClass: "storage")
                throw WriteNotSaved(line: DeferredWrites.line(for: e) ?? AgentError.storage(e))
            } catch {
                // Writes never retry: the model hears it failed and nothing was written.
                let output = ToolOutput.error("\(call.name) failed and nothing was written (\(error)); tell the person, do not retry on your own")
                try finishWithoutWriting(item, turn: turn, output: output, status: .failed, ledger: (.failed, decision), change: planned)
                record(.toolExecution, status: "failed", turn: turn, call: call, errorClass: "tool_error")
                return
            }
        }
    }

    /// How many times a change may turn out stale at apply time before the call gives up.
    static let maxConflicts = 3

    /// The tool's preview: the exact change, resolved now. Nil when the call was rejected (its
    /// result is already stored).
    private func plan(_ tool: any WriteTool, arguments: JSONValue, context: ToolContext, item: (ordinal: Int, call: ToolCall),
                      turn: Int) throws -> PlannedChange? {
        let call = item.call
        do {
            return try env.store.queue.read { db in try tool.preview(arguments: arguments, context: context, database: db) }
        } catch let e as ToolArgumentError {
            try finishWithoutWriting(item, turn: turn, output: .error(e.description), status: .rejected, ledger: nil)
            record(.toolExecution, status: "rejected", turn: turn, call: call, errorClass: "invalid_arguments")
            return nil
        } catch {
            try finishWithoutWriting(item, turn: turn, output: .error("\(call.name) could not prepare this change (\(error)); nothing was written"),
                                     status: .failed, ledger: nil)
            record(.toolExecution, status: "failed", turn: turn, call: call, errorClass: "tool_error")
            return nil
        }
    }

    /// The result the model sees for a write an approval rule denied: which rule, and that the
    /// person can change it.
    static func deniedByRule(_ v: RuleVerdict) -> ToolOutput { v.deniedOutput }

    /// An approval rule's verdict, else a standing grant for this tool in this thread, else the person
    /// decides now about `planned`'s card. Returns the rule that decided, if one did (allow or deny).
    /// While the thread's mark stands (content from outside the person read since their last
    /// message, UntrustedContent.swift) neither an allow rule nor a grant approves: the person is
    /// asked, and the card names every such read. A deny rule still refuses.
    private func approval(of planned: PlannedChange, tool: any WriteTool, arguments: JSONValue, notice: String?, editNote: String? = nil,
                          key: CallKey, call: ToolCall, edited: Bool = false,
                          setPhase: (RunPhase) throws -> Void) async throws -> (ApprovalAnswer, RuleVerdict?) {
        let decision: ApprovalDecision
        var askedByRule: RuleVerdict?
        let threadID = handle.threadID
        let untrusted = try env.store.queue.read { db in try ConversationStore.standingUntrusted(db, threadID: threadID) }.map(\.read)
        let named = untrusted.isEmpty ? nil : untrusted
        // The standing approval that would have decided without asking, when the mark stops it.
        var standingNotUsed: String?
        if let rules = env.configuration.approvalRules {
            let (verdict, problem) = try env.store.queue.read { db in rules.verdict(tool: tool, arguments: arguments, planned: planned, database: db) }
            if let problem {
                emit(.ruleDecided(callID: call.id, name: call.name, decision: nil, line: "approval rules not used: \(problem)"))
            }
            if let v = verdict, v.decision == .deny || (v.decision == .allow && named == nil) {
                let d: ApprovalDecision = v.decision == .allow ? .allowOnce : .deny
                try keepingDecision(key, d, planned, waited: 0, stored: false, source: "rule") {
                    try recordApproval(key: key, call: call, decision: d, source: "rule", waited: 0, change: planned, rule: v.rule.label, untrusted: named)
                }
                emit(.ruleDecided(callID: call.id, name: call.name, decision: v.decision,
                                  line: "\(v.decision == .allow ? "allowed" : "denied") by rule \(v.rule.number): \(v.rule.text)"))
                emit(.approvalDecided(callID: call.id, name: call.name, decision: d))
                try env.faults?.reached(.afterApproval, runID: handle.runID)
                return (.decision(d), v)
            }
            if let v = verdict, v.decision == .allow {
                standingNotUsed = "approval \(v.rule.label)"
                emit(.ruleDecided(callID: call.id, name: call.name, decision: nil,
                                  line: "rule \(v.rule.number) not used: untrusted content was read since your last message"))
            } else {
                askedByRule = verdict
            }
        }
        // A rule that says "ask" is asked about even with a grant for the thread.
        let hasGrant = try askedByRule == nil && env.approvals.honoursThreadGrants && env.store.queue.read { db in
            try db.row("SELECT 1 FROM agent_tool_grants WHERE thread_id = ? AND tool_name = ?", [threadID, call.name]) != nil
        }
        if hasGrant && named != nil {
            standingNotUsed = standingNotUsed.map { $0 + " and your " + UntrustedContent.threadGrant } ?? UntrustedContent.threadGrant
            emit(.ruleDecided(callID: call.id, name: call.name, decision: nil,
                              line: "\(UntrustedContent.threadGrant) not used: untrusted content was read since your last message"))
        }
        if hasGrant && named == nil {
            decision = .alwaysAllow
            try keepingDecision(key, decision, planned, waited: 0, stored: false, source: "thread_grant") {
                try recordApproval(key: key, call: call, decision: decision, source: "thread_grant", waited: 0, change: planned)
            }
        } else {
            try setPhase(.awaitingApproval)
            try env.faults?.reached(.beforeApproval, runID: handle.runID)
            var card = notice.map { "Changed since the card you approved: \($0); nothing was written. The change as it is now:\n" + planned.card } ?? planned.card
            if let editNote { card = editNote + "\n" + card }
            if let v = askedByRule { card = v.askedLine + ":\n" + card }
            if let named { card = UntrustedContent.cardHeader(named, standing: standingNotUsed) + "\n" + card }
            let request = ApprovalRequest(threadID: handle.threadID, runID: handle.runID, callID: call.id, toolName: call.name, preview: card,
                                          arguments: call.arguments, untrusted: untrusted, standingNotUsed: standingNotUsed)
            emit(.approvalRequested(request))
            let askedAt = env.clock.monotonic()
            let answer = await env.approvals.answer(request)
            let waited = env.clock.monotonic() - askedAt
            budget.exclude(waited)
            // Stopped while asking: no decision was made and nothing was written.
            try Task.checkCancellation()
            guard case .decision(let d) = answer else { return (answer, nil) }
            decision = d
            let source = edited ? "person_edited" : "person"
            try keepingDecision(key, decision, planned, waited: waited, stored: false, source: source) {
                try recordApproval(key: key, call: call, decision: decision, source: source, waited: waited, change: planned,
                                   untrusted: named, standingNotUsed: standingNotUsed)
            }
        }
        emit(.approvalDecided(callID: call.id, name: call.name, decision: decision))
        try env.faults?.reached(.afterApproval, runID: handle.runID)
        return (.decision(decision), nil)
    }

    /// The change, its ledger row, the tool record and the transcript result commit together.
    private func commit(_ planned: PlannedChange, tool: any WriteTool, context: ToolContext, decision: ApprovalDecision,
                        item: (ordinal: Int, call: ToolCall), key: CallKey, started: Double, call: ToolCall, edited: Bool) throws {
        let registry = env.tools
        let faults = env.faults
        let threadID = handle.threadID
        let clock = env.clock
        let output = try env.store.queue.write { db -> ToolOutput in
            let output: ToolOutput
            // The model hears that the person changed its arguments, and to what.
            let arguments = call.arguments
            let adjust: (ToolOutput) -> ToolOutput = edited ? { Self.notingEdit($0, arguments: arguments) } : { $0 }
            switch try LedgerWrite.applyOnce(db, planned: planned, tool: tool, call: call, key: key, context: context, decision: decision,
                                             registry: registry, now: { clock.now() }, adjust: adjust) {
            case .replayed(let existing):
                // Another process committed this call meanwhile: answer with its stored result.
                try ConversationStore.recordResult(db, threadID: threadID, key: key, ordinal: item.ordinal, toolName: call.name,
                                                   output: existing.output, status: existing.output.isError ? .failed : .succeeded, now: clock.now())
                return existing.output
            case .applied(let applied):
                output = applied
            }
            let now = clock.now()
            try ConversationStore.recordResult(db, threadID: threadID, key: key, ordinal: item.ordinal, toolName: call.name,
                                               output: output, status: output.isError ? .failed : .succeeded, now: now)
            try faults?.reached(.insideWriteTransaction, runID: key.runID)
            return output
        }
        try env.faults?.reached(.afterWriteCommit, runID: handle.runID)
        emit(.toolFinished(callID: call.id, name: call.name, status: output.isError ? .failed : .succeeded, summary: output.summary))
        var d = diagnostic(.toolExecution, status: output.isError ? "failed" : "succeeded", turn: key.turn, call: call)
        d.totalMs = (env.clock.monotonic() - started) * 1000
        d.sizeBytes = output.content.utf8.count
        env.diagnostics.record(d)
    }

    /// A result that tells the model the person edited the call's arguments at the card.
    static func notingEdit(_ output: ToolOutput, arguments: String) -> ToolOutput {
        let edited = (try? JSONValue.parse(arguments)) ?? .string(arguments)
        var object: [String: JSONValue]
        if case .object(let o)? = try? JSONValue.parse(output.content) { object = o } else { object = ["result": .string(output.content)] }
        object["arguments_edited_by_person"] = edited
        return ToolOutput(content: JSONValue.object(object).serialized, summary: output.summary, isError: output.isError)
    }

    /// The latest approval of this call that allowed a change which was not written yet (the run
    /// stopped after the answer), with the change it was for.
    private func keptApproval(_ key: CallKey) throws -> DeferredWrites.Kept? {
        if let kept = env.deferred.kept(key) { return kept }
        return try env.store.queue.read { db in
            guard let row = try db.row("""
                SELECT decision, change FROM agent_approvals WHERE run_id = ? AND turn = ? AND call_id = ? ORDER BY id DESC LIMIT 1
                """, [key.runID, key.turn, key.callID]),
                let decision = row[0].string.flatMap(ApprovalDecision.init(rawValue:)), decision != .deny,
                let change = row[1].string.flatMap({ PlannedChange(serialized: $0) }) else { return nil }
            return DeferredWrites.Kept(decision: decision, change: change, waited: 0, stored: true)
        }
    }

    /// Runs a step that stores the decision; when the disk or a lock refuses it, the decision (and
    /// the change it was for) is kept in memory and the run is suspended (`WriteNotSaved`) instead
    /// of failing, so /continue applies it without asking again.
    private func keepingDecision(_ key: CallKey, _ decision: ApprovalDecision, _ change: PlannedChange, waited: Double, stored: Bool,
                                 source: String = "person", _ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            guard let line = DeferredWrites.line(for: error) else { throw error }
            env.deferred.keep(key, decision: decision, change: change, waited: waited, stored: stored, source: source)
            throw WriteNotSaved(line: line)
        }
    }

    /// With a kept decision, a storage failure suspends the run again rather than failing it
    /// (failing would lose the decision).
    private func deferring(_ hasKeptDecision: Bool, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            guard hasKeptDecision, let line = DeferredWrites.line(for: error) else { throw error }
            throw WriteNotSaved(line: line)
        }
    }

    private func answerFromLedger(_ entry: LedgerEntry, ordinal: Int, call: ToolCall) throws {
        let key = CallKey(runID: entry.runID, turn: entry.turn, callID: entry.callID)
        let status: ToolCallStatus = entry.outcome == .committed ? (entry.output.isError ? .failed : .succeeded)
            : entry.outcome == .denied ? .denied : .failed
        let now = env.clock.now()
        try env.store.queue.write { db in
            try ConversationStore.startToolRecord(db, threadID: handle.threadID, key: key, ordinal: ordinal, call: call, effect: .write, now: now)
            try ConversationStore.recordResult(db, threadID: handle.threadID, key: key, ordinal: ordinal, toolName: call.name,
                                               output: entry.output, status: status, now: now)
        }
        emit(.toolFinished(callID: call.id, name: call.name, status: status, summary: entry.output.summary))
        record(.toolExecution, status: "ledger_replayed", turn: entry.turn, call: call, errorClass: nil)
    }

    private func finishWithoutWriting(_ item: (ordinal: Int, call: ToolCall), turn: Int, output: ToolOutput, status: ToolCallStatus,
                                      ledger: (LedgerEntry.Outcome, ApprovalDecision)?, change: PlannedChange? = nil) throws {
        let key = CallKey(runID: handle.runID, turn: turn, callID: item.call.id)
        let output = env.tools.bounded(output, toolName: item.call.name)
        let now = env.clock.now()
        try env.store.queue.write { db in
            try ConversationStore.startToolRecord(db, threadID: handle.threadID, key: key, ordinal: item.ordinal, call: item.call, effect: .write, now: now)
            if let (outcome, decision) = ledger {
                try Self.insertLedger(db, key: key, call: item.call, outcome: outcome, decision: decision, output: output, now: now, change: change)
            }
            try ConversationStore.recordResult(db, threadID: handle.threadID, key: key, ordinal: item.ordinal, toolName: item.call.name,
                                               output: output, status: status, now: now)
        }
        emit(.toolFinished(callID: item.call.id, name: item.call.name, status: status, summary: output.summary))
    }

    /// `untrusted`: what the card named (the thread's mark when it was decided); `standingNotUsed`:
    /// the grant or allow rule that did not approve it because of the mark.
    private func recordApproval(key: CallKey, call: ToolCall, decision: ApprovalDecision, source: String, waited: Double,
                                change: PlannedChange, rule: String? = nil, untrusted: [UntrustedRead]? = nil,
                                standingNotUsed: String? = nil) throws {
        let now = env.clock.now()
        let named = untrusted.map { list in JSONValue.array(list.map { ["kind": .string($0.kind.rawValue), "label": .string($0.label)] }).serialized }
        try env.store.queue.write { db in
            try db.execute("""
                INSERT INTO agent_approvals (run_id, turn, call_id, tool_name, decision, source, waited_seconds, decided_at, change, rule,
                    untrusted, standing_not_used)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [key.runID, key.turn, key.callID, call.name, decision.rawValue, source, waited, now, change.serialized, rule,
                      named, standingNotUsed])
            if decision == .alwaysAllow && source == "person" {
                try db.execute("INSERT OR IGNORE INTO agent_tool_grants (thread_id, tool_name, granted_at) VALUES (?, ?, ?)",
                               [handle.threadID, call.name, now])
            }
        }
        var d = diagnostic(.approval, status: decision.rawValue, turn: key.turn, call: call)
        d.totalMs = waited * 1000
        env.diagnostics.record(d)
    }

    static func insertLedger(_ db: Database, key: CallKey, call: ToolCall, outcome: LedgerEntry.Outcome, decision: ApprovalDecision?,
                             output: ToolOutput, now: Double, change: PlannedChange? = nil, table: String = "agent_ledger") throws {
        try db.execute("""
            INSERT INTO \(table) (run_id, turn, call_id, tool_name, arguments, outcome, decision, result, summary, is_error, recorded_at, change)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [key.runID, key.turn, key.callID, call.name, call.arguments, outcome.rawValue, decision?.rawValue,
                  output.content, output.summary, output.isError, now, change?.serialized])
    }

    // MARK: - Closing unanswered calls

    /// Gives the run's unanswered calls of its last turn an explicit "stopped" result (when the
    /// run ends for good) or marks them interrupted (when it is suspended, to run on continue).
    func markUnanswered(cancelled: Bool) throws {
        let now = env.clock.now()
        try env.store.queue.write { db in
            try db.execute("UPDATE agent_tool_calls SET status = 'interrupted', finished_at = ? WHERE run_id = ? AND status = 'running'", [now, handle.runID])
            guard cancelled else { return }
            guard let last = try db.row("SELECT id, turn FROM agent_messages WHERE run_id = ? AND role = 'assistant' ORDER BY seq DESC LIMIT 1",
                                        [handle.runID]), let messageID = last[0].int64, let turn = last[1].int else { return }
            let calls = try db.rows("SELECT call_id, name, body FROM agent_message_parts WHERE message_id = ? AND kind = 'tool_call' ORDER BY ordinal", [messageID])
            let answered = Set(try db.rows("""
                SELECT p.call_id FROM agent_messages m JOIN agent_message_parts p ON p.message_id = m.id
                WHERE m.run_id = ? AND m.turn = ? AND m.role = 'tool'
                """, [handle.runID, turn]).map { try $0.decode(0, as: String.self) })
            for (ordinal, row) in calls.enumerated() {
                let id = try row.decode(0, as: String.self)
                guard !answered.contains(id) else { continue }
                let call = ToolCall(id: id, name: try row.decode(1), arguments: try row.decode(2))
                let key = CallKey(runID: handle.runID, turn: turn, callID: id)
                try ConversationStore.startToolRecord(db, threadID: handle.threadID, key: key, ordinal: ordinal, call: call, effect: nil, now: now)
                try ConversationStore.recordResult(db, threadID: handle.threadID, key: key, ordinal: ordinal, toolName: call.name,
                                                   output: ToolOutput(content: Self.stoppedResult, summary: "stopped before it finished", isError: true),
                                                   status: .cancelled, now: now)
            }
        }
    }

    /// Answers calls the model made on its last allowed turn without running them.
    func skipForTurnLimit(_ calls: [ToolCall], turn: Int, limit: Int) throws {
        let now = env.clock.now()
        let output = ToolOutput.error("not run: the limit of \(limit) model turns for one message was reached")
        try env.store.queue.write { db in
            for (ordinal, call) in calls.enumerated() {
                let key = CallKey(runID: handle.runID, turn: turn, callID: call.id)
                try ConversationStore.startToolRecord(db, threadID: handle.threadID, key: key, ordinal: ordinal, call: call, effect: nil, now: now)
                try ConversationStore.recordResult(db, threadID: handle.threadID, key: key, ordinal: ordinal, toolName: call.name,
                                                   output: output, status: .cancelled, now: now)
            }
        }
    }

    // MARK: - Events and diagnostics

    func emit(_ kind: AgentEvent.Kind) { env.emit(AgentEvent(threadID: handle.threadID, runID: handle.runID, kind: kind)) }

    func diagnostic(_ operation: AgentDiagnostic.Operation, status: String, turn: Int, call: ToolCall) -> AgentDiagnostic {
        var d = AgentDiagnostic(operation: operation, status: status)
        d.threadID = handle.threadID
        d.runID = handle.runID
        d.turn = turn
        d.callID = call.id
        d.toolName = call.name
        return d
    }

    private func record(_ operation: AgentDiagnostic.Operation, status: String, turn: Int, call: ToolCall, errorClass: String?) {
        var d = diagnostic(operation, status: status, turn: turn, call: call)
        d.errorClass = errorClass
        env.diagnostics.record(d)
    }
}
