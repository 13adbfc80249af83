// One run of the agent loop: model turns, tool batches, deadlines, retries, and how it ends.
import Base
import SQLiteKit

/// Lives inside the run's task only (not shared), so its plain stored state needs no locks.
final class RunExecution {
    let env: RunnerEnvironment
    let handle: RunHandle
    let model: any ChatModel
    let stop: StopBox
    let budget: RunBudget
    var turnsUsed: Int
    var lastText = ""
    var totalUsage = Usage.zero
    var phase: RunPhase = .queued
    let startedAt: Double
    /// The background save of the message's attached files; the run ends only after it.
    let saving: AttachmentSaving?

    init(environment: RunnerEnvironment, handle: RunHandle, model: any ChatModel, turnsUsed: Int, stop: StopBox,
         saving: AttachmentSaving? = nil) {
        self.env = environment
        self.handle = handle
        self.model = model
        self.turnsUsed = turnsUsed
        self.stop = stop
        self.saving = saving
        self.budget = RunBudget(limit: environment.configuration.policy.run, clock: environment.clock)
        self.startedAt = environment.clock.monotonic()
    }

    var policy: DeadlinePolicy { env.configuration.policy }
    var tools: ToolExecutor { ToolExecutor(env: env, handle: handle, budget: budget, model: model) }

    func emit(_ kind: AgentEvent.Kind) { env.emit(AgentEvent(threadID: handle.threadID, runID: handle.runID, kind: kind)) }

    func fault(_ point: FaultPoint) throws { try env.faults?.reached(point, runID: handle.runID) }

    func setPhase(_ phase: RunPhase, error: AgentError? = nil) throws {
        guard phase != self.phase || error != nil else { return }
        let now = env.clock.now()
        try env.store.queue.write { try ConversationStore.setPhase($0, runID: handle.runID, phase, now: now, error: error) }
        self.phase = phase
        emit(.phase(phase))
    }

    // MARK: - The loop

    func run() async -> RunOutcome {
        do {
            try fault(.runStarted)
            try setPhase(.preparing)
            try await loop()
            if let failed = await saving?.wait() {
                if failed is SimulatedCrash { throw failed }
                // The answer has arrived and is kept; the file is tried again later.
                let line = (failed as? AgentError)?.line ?? "\(failed)"
                emit(.error(AgentError(.storage, "The attached file was sent but not saved: \(line) "
                                       + "ofj tries again with your next message and when you quit.")))
            }
            try setPhase(.finalizing)
            try fault(.beforeFinalize)
            try setPhase(.completed)
            return finish(RunOutcome(phase: .completed, text: lastText))
        } catch let crash as SimulatedCrash {
            // A crashed process writes nothing more; recovery finds the run where it stopped.
            return RunOutcome(phase: phase, text: lastText, error: AgentError(.internal, "simulated crash at \(crash.point.rawValue)"))
        } catch {
            // However the run ends, its message's files are stored first (or known not to be).
            _ = await saving?.wait()
            return end(after: error)
        }
    }

    /// Turns an error into the run's final state, one user-facing line and diagnostics.
    private func end(after error: any Error) -> RunOutcome {
        let cancelled = Task.isCancelled && (error is CancellationError || stop.value != nil)
        if !cancelled, let notSaved = error as? WriteNotSaved { return suspend(notSaved.line) }
        do {
            if cancelled {
                let mode = stop.value ?? .suspend
                try tools.markUnanswered(cancelled: mode == .cancel)
                if mode == .cancel {
                    let e = AgentError(.cancelled, "Stopped; what arrived so far is saved.")
                    try setPhase(.cancelled, error: e)
                    return finish(RunOutcome(phase: .cancelled, text: lastText, error: e))
                }
                let e = AgentError(.interrupted, "Interrupted; what arrived so far is saved. Type /continue to resume.")
                try setPhase(.suspended, error: e)
                return finish(RunOutcome(phase: .suspended, text: lastText, error: e))
            }
            let failure = (error as? AgentError) ?? Self.describe(error, policy: policy)
            var d = diagnostic(.failure, status: "failed")
            d.errorClass = failure.kind.rawValue
            env.diagnostics.record(d)
            emit(.error(failure))
            try tools.markUnanswered(cancelled: true)
            try setPhase(.failed, error: failure)
            return finish(RunOutcome(phase: .failed, text: lastText, error: failure))
        } catch let crash as SimulatedCrash {
            return RunOutcome(phase: phase, text: lastText, error: AgentError(.internal, "simulated crash at \(crash.point.rawValue)"))
        } catch {
            // The database refused even the final bookkeeping: report it. The run is still "active"
            // in the file; stranded, it can be taken over by /continue or a new message here (and
            // by recovery at the next start).
            env.deferred.strand(handle.runID)
            let failure = AgentError.storage(error)
            emit(.error(failure))
            return finish(RunOutcome(phase: .failed, text: lastText, error: failure))
        }
    }

    /// The disk or a lock refused an approved write: the run waits, suspended, with the decision
    /// kept, for `/continue`. If the database refuses even the new phase, the runner remembers the
    /// run as stranded so `/continue` (or a new message) can take it over in this process.
    private func suspend(_ line: AgentError) -> RunOutcome {
        var d = diagnostic(.failure, status: "suspended")
        d.errorClass = line.kind.rawValue
        env.diagnostics.record(d)
        do {
            try tools.markUnanswered(cancelled: false)
            try setPhase(.suspended, error: line)
        } catch let crash as SimulatedCrash {
            return RunOutcome(phase: phase, text: lastText, error: AgentError(.internal, "simulated crash at \(crash.point.rawValue)"))
        } catch {
            env.deferred.strand(handle.runID)
        }
        return finish(RunOutcome(phase: .suspended, text: lastText, error: line))
    }

    private func finish(_ outcome: RunOutcome) -> RunOutcome {
        var d = diagnostic(.run, status: outcome.phase.rawValue)
        d.totalMs = (env.clock.monotonic() - startedAt) * 1000
        d.usage = totalUsage
        d.resultCount = turnsUsed
        d.errorClass = outcome.error?.kind.rawValue
        // Best effort: a run whose attachments cannot be read is still recorded.
        if let attachments = try? runAttachments(), !attachments.isEmpty {
            d.attachmentCount = attachments.count
            d.attachmentBytes = attachments.reduce(0) { $0 + $1.bytes }
            var types: [String] = []
            for a in attachments where !types.contains(a.type) { types.append(a.type) }
            d.attachmentTypes = types.joined(separator: ",")
        }
        env.diagnostics.record(d)
        emit(.finished(outcome))
        return outcome
    }

    private func loop() async throws {
        var next = try resumePoint()
        while true {
            switch next {
            case .finalize(let text):
                lastText = text
                return
            case .tools(let turn, let calls):
                try setPhase(.executingTools)
                try await tools.execute(calls, turn: turn, setPhase: { try self.setPhase($0) })
            case .modelTurn:
                break
            }
            guard turnsUsed < env.configuration.maxTurnsPerMessage else { throw turnLimit() }
            turnsUsed += 1
            let turn = turnsUsed
            try env.store.queue.write { db in
                try db.execute("UPDATE agent_runs SET turns_used = ? WHERE id = ?", [turn, handle.runID])
            }
            let result = try await modelTurn(turn)
            try fault(.afterModelTurn)
            if result.calls.isEmpty {
                next = .finalize(result.text)
            } else if turnsUsed >= env.configuration.maxTurnsPerMessage {
                try tools.skipForTurnLimit(result.calls, turn: turn, limit: env.configuration.maxTurnsPerMessage)
                throw turnLimit()
            } else {
                next = .tools(turn: turn, calls: Array(result.calls.enumerated()).map { ($0.offset, $0.element) })
            }
        }
    }

    private func turnLimit() -> AgentError {
        AgentError(.turnLimit, "Stopped after \(env.configuration.maxTurnsPerMessage) model turns for one message; ask again to let it go on.")
    }

    enum ResumePoint {
        case modelTurn
        case tools(turn: Int, calls: [(ordinal: Int, call: ToolCall)])
        case finalize(String)
    }

    /// Where the stored transcript says this run stands (a fresh run: a model turn is due).
    private func resumePoint() throws -> ResumePoint {
        try env.store.queue.read { db in
            guard let last = try db.row("""
                SELECT id, turn, state FROM agent_messages WHERE run_id = ? AND role = 'assistant' ORDER BY seq DESC LIMIT 1
                """, [handle.runID]), let messageID = last[0].int64, let turn = last[1].int else { return .modelTurn }
            guard last[2].string == MessageState.complete.rawValue else { return .modelTurn }
            let parts = try db.rows("SELECT kind, body, call_id, name FROM agent_message_parts WHERE message_id = ? ORDER BY ordinal", [messageID])
            let kinds = try parts.map { try $0.decode(0, as: String.self) }
            let calls = try zip(kinds, parts).filter { $0.0 == "tool_call" }.map { _, p in
                ToolCall(id: try p.decode(2), name: try p.decode(3), arguments: try p.decode(1))
            }
            if calls.isEmpty {
                return .finalize(try zip(kinds, parts).filter { $0.0 == "text" }.map { try $0.1.decode(1, as: String.self) }.joined())
            }
            let answered = Set(try db.rows("""
                SELECT p.call_id FROM agent_messages m JOIN agent_message_parts p ON p.message_id = m.id
                WHERE m.run_id = ? AND m.turn = ? AND m.role = 'tool' AND p.kind = 'tool_result'
                """, [handle.runID, turn]).map { try $0.decode(0, as: String.self) })
            let pending = calls.enumerated().filter { !answered.contains($0.element.id) }.map { ($0.offset, $0.element) }
            return pending.isEmpty ? .modelTurn : .tools(turn: turn, calls: pending)
        }
    }

    // MARK: - One model turn

    private func modelTurn(_ turn: Int) async throws -> TurnResult {
        var turnStart = env.clock.monotonic()
        var attempt = 0
        var overflowRetried = false
        // The everyday tools and the groups this thread enabled (earlier turns' calls included).
        let tools = env.tools.specs(groups: try env.store.enabledToolGroups(threadID: handle.threadID))
        let context = RequestContext(threadID: handle.threadID, runID: handle.runID, turn: turn, systemPrompt: env.configuration.systemPrompt,
                                     contextNote: env.configuration.contextNote(), tools: tools, maxOutputTokens: env.configuration.maxOutputTokens, store: env.store, model: model,
                                     notice: { [env, handle] in env.emit(AgentEvent(threadID: handle.threadID, runID: handle.runID, kind: .error($0))) },
                                     compaction: { [env, handle] in env.emit(AgentEvent(threadID: handle.threadID, runID: handle.runID, kind: .compaction($0))) })
        while true {
            try Task.checkCancellation()
            attempt += 1
            try setPhase(.preparing)
            let assemblyStart = env.clock.monotonic()
            var request = try await env.assembler.assemble(context)
            // A compaction while assembling is its own model round under its own deadline: it
            // must not eat this turn's (the run deadline still counts it).
            turnStart += env.clock.monotonic() - assemblyStart
            request.messages = RequestNormalizer.normalize(request.messages, continuationFamily: model.continuationFamily)
            request.messages = AttachmentWindow.apply(request.messages) { [env, handle] id in
                try? env.store.attachment(id: id, threadID: handle.threadID)
            }
            try fault(.beforeModelRequest)
            try setPhase(.waitingForProvider)
            let recorder = TurnRecorder(environment: env, handle: handle, turn: turn)
            let attemptStart = env.clock.monotonic()
            let wallStart = env.clock.now()
            do {
                try await stream(request, into: recorder, turnStart: turnStart)
                let result = try recorder.close(.complete)
                recordRound(result, turn: turn, attempt: attempt, recorder: recorder, start: (attemptStart, wallStart), error: nil)
                lastText = result.text
                if result.finish == .length && result.calls.isEmpty {
                    // Shown, not hidden in a long answer: the model stopped at its output limit.
                    let n = result.usage?.outputTokens ?? 0
                    let at = n > 0 ? "at \(CompactingAssembler.number(n)) tokens" : "at the model's output limit"
                    emit(.error(AgentError(.answerTooLong, "The answer was cut off \(at) (the model's output limit); ask it to go on, or for something shorter.")))
                }
                return result
            } catch let crash as SimulatedCrash {
                throw crash
            } catch {
                let partial = try recorder.close(.partial)
                if !partial.text.isEmpty { lastText = partial.text }
                if Task.isCancelled {
                    recordRound(partial, turn: turn, attempt: attempt, recorder: recorder, start: (attemptStart, wallStart), error: AgentError(.cancelled, "cancelled"))
                    throw CancellationError()
                }
                var failure = Self.describe(error, policy: policy, hadOutput: recorder.hasOutput, promptTokens: TokenEstimator.tokens(request))
                recordRound(partial, turn: turn, attempt: attempt, recorder: recorder, start: (attemptStart, wallStart), error: failure, cause: error)
                if let chat = error as? ChatError, chat.kind == .contextOverflow, !recorder.hasOutput {
                    if !overflowRetried {
                        overflowRetried = true
                        if await env.assembler.handleContextOverflow(context) {
                            attempt -= 1
                            continue
                        }
                    }
                    if let line = await env.assembler.contextOverflowLine(context, chat) { failure = line }
                    throw failure
                }
                guard attempt == 1, !recorder.hasOutput, let delay = retryDelay(for: error, turnStart: turnStart) else { throw failure }
                var d = diagnostic(.retry, status: "scheduled")
                d.turn = turn
                d.errorClass = failure.kind.rawValue
                d.retryCount = 1
                env.diagnostics.record(d)
                emit(.retrying(operation: "model_turn", delaySeconds: delay))
                try await env.clock.sleep(seconds: delay)
            }
        }
    }

    /// The wait before the single retry of a model request that produced nothing, or nil when
    /// it must not be retried (or the wait would not fit in what is left of the deadlines).
    private func retryDelay(for error: any Error, turnStart: Double) -> Double? {
        let backoff = policy.retryBackoff * (0.8 + 0.4 * env.configuration.jitter())
        let delay: Double
        switch error {
        case let e as DeadlineExpired where e.kind == .firstEvent:
            // A local server (patient policy) that is slow to start is reading the prompt: a retry
            // would read it all again.
            if policy.name == DeadlinePolicy.patient.name { return nil }
            delay = backoff
        case let e as ChatError:
            switch e.kind {
            case .retryable: delay = backoff
            case .rateLimited(let after): delay = after ?? backoff
            default: return nil
            }
        default:
            return nil
        }
        let turnLeft = policy.modelTurn - (env.clock.monotonic() - turnStart)
        return delay < min(turnLeft, budget.remaining) ? delay : nil
    }

    /// Streams one attempt into the recorder under the first-event, idle and turn/run deadlines.
    private func stream(_ request: ChatRequest, into recorder: TurnRecorder, turnStart: Double) async throws {
        let turnLeft = policy.modelTurn - (env.clock.monotonic() - turnStart)
        let runLeft = budget.remaining
        let overall = turnLeft <= runLeft ? DeadlineExpired(kind: .modelTurn, seconds: policy.modelTurn) : DeadlineExpired(kind: .run, seconds: policy.run)
        let overallLeft = min(turnLeft, runLeft)
        guard overallLeft > 0 else { throw overall }
        let watchdog = StreamWatchdog(clock: env.clock, firstEvent: policy.firstEvent, idle: policy.streamIdle)
        watchdog.start(overall: overall, after: overallLeft)
        let model = self.model
        let failure = OnceResult<Void>()
        // The consumer starts reading only once the watchdog can cancel it; otherwise a deadline
        // that falls due before `attach` (a fast machine, or virtual time) would be missed.
        let attached = StartGate()
        let consumer = Task {
            await attached.wait()
            do {
                var handled = 0
                for try await event in model.stream(request) {
                    // A stream buffers what arrived: after a stop or a deadline, don't drain it.
                    try Task.checkCancellation()
                    if case .alive = event {
                        try watchdog.heartbeat()
                        continue
                    }
                    // Deadlines are checked here too: a stream that never pauses keeps this task
                    // busy, and the timers then may not get a thread in time.
                    try watchdog.eventArrived()
                    try recorder.handle(event)
                    handled += 1
                    if handled % 256 == 0 { await Task.yield() }
                }
                if Task.isCancelled { throw CancellationError() }
                failure.resume(.success(()))
            } catch {
                failure.resume(.failure(error))
            }
        }
        watchdog.attach(consumer)
        attached.open()
        await withTaskCancellationHandler { await consumer.value } onCancel: { consumer.cancel() }
        watchdog.stop()
        do {
            // A stream that ended normally counts even if a timer fired in the same instant.
            try await withCheckedThrowingContinuation { failure.install($0) }
        } catch {
            if let fired = watchdog.fired { throw fired }
            try Task.checkCancellation()
            throw error
        }
    }

    private func recordRound(_ result: TurnResult, turn: Int, attempt: Int, recorder: TurnRecorder, start: (Double, Double),
                             error: AgentError?, cause: (any Error)? = nil) {
        var d = diagnostic(.modelRound, status: error == nil ? "ok" : (error?.kind == .cancelled ? "cancelled" : "error"))
        d.turn = turn
        d.providerRequestID = result.responseID
        d.startedAt = start.1
        d.firstEventMs = recorder.firstEventAt.map { ($0 - start.0) * 1000 }
        d.totalMs = (env.clock.monotonic() - start.0) * 1000
        d.usage = result.usage
        d.retryCount = attempt - 1
        if let error {
            d.errorClass = error.kind.rawValue
            if let chat = cause as? ChatError {
                d.errorCode = chat.code
                d.httpStatus = chat.httpStatus
                d.errorMessage = chat.message
            }
            if let expired = cause as? DeadlineExpired {
                var t = diagnostic(.timeout, status: expired.kind.rawValue)
                t.turn = turn
                t.totalMs = expired.seconds * 1000
                env.diagnostics.record(t)
            }
        }
        if let usage = result.usage {
            let cost = env.configuration.costEstimator?(model.provider, model.model, usage)
            d.costUSD = cost
            totalUsage = totalUsage + usage
            let now = env.clock.now()
            // Usage is bookkeeping: losing one row must not fail the answer, but it is not silent.
            do {
                try env.store.queue.write { db in
                    try db.execute("""
                        INSERT INTO agent_usage (thread_id, run_id, turn, provider, model, input_tokens, cached_input_tokens, output_tokens,
                            reasoning_tokens, cost_usd, provider_request_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """, [handle.threadID, handle.runID, turn, model.provider, model.model, usage.inputTokens, usage.cachedInputTokens,
                              usage.outputTokens, usage.reasoningTokens, cost, result.responseID, now])
                }
            } catch {
                var f = diagnostic(.failure, status: "usage_not_saved")
                f.errorClass = "storage"
                env.diagnostics.record(f)
            }
            emit(.usage(turn: turn, usage: usage, provider: model.provider, model: model.model, costUSD: cost))
        }
        env.diagnostics.record(d)
    }

    /// Media type and size of each attachment the person's message of this run carried.
    private func runAttachments() throws -> [(type: String, bytes: Int)] {
        try env.store.queue.read { db in
            try db.rows("""
                SELECT a.media_type, a.byte_count FROM agent_message_attachments l JOIN agent_messages m ON m.id = l.message_id
                JOIN attachments a ON a.sha256 = l.sha256 WHERE m.run_id = ? AND m.role = 'user' ORDER BY l.ordinal
                """, [handle.runID]).map { (try $0.decode(0), try $0.decode(1)) }
        }
    }

    func diagnostic(_ operation: AgentDiagnostic.Operation, status: String) -> AgentDiagnostic {
        var d = AgentDiagnostic(operation: operation, status: status)
        d.threadID = handle.threadID
        d.runID = handle.runID
        d.provider = model.provider
        d.model = model.model
        return d
    }

    // MARK: - User-facing lines

    static func describe(_ error: any Error, policy: DeadlinePolicy, hadOutput: Bool = false, promptTokens: Int? = nil) -> AgentError {
        switch error {
        case let e as AgentError:
            return e
        case let e as DeadlineExpired:
            let limit = formatSeconds(e.seconds)
            switch e.kind {
            case .firstEvent:
                if policy.name == DeadlinePolicy.patient.name, let promptTokens {
                    // A local server: the time goes into reading the prompt, which a retry reads again.
                    return AgentError(.timeout, "The model did not start answering within \(limit) for a prompt of ~\(CompactingAssembler.number(promptTokens)) "
                                      + "tokens; a local server may need longer to read it (a faster model, a smaller context, or its log shows how far it got).")
                }
                return AgentError(.timeout, "The model did not start answering within \(limit); check your connection or the provider's status, then try again.")
            case .streamIdle:
                return AgentError(.timeout, "The model went silent for \(limit) in the middle of its answer; what arrived is saved. Ask again to go on.")
            case .modelTurn:
                return AgentError(.timeout, "One model turn took longer than \(limit) and was stopped; what arrived is saved. Ask again, or pick a faster model.")
            case .run:
                return AgentError(.timeout, "This answer took longer than \(limit) in total and was stopped; what arrived is saved. Ask again to go on.")
            case .toolRead:
                return AgentError(.timeout, "A tool did not answer within \(limit).")
            }
        case let e as ChatError:
            let message = e.message.trimmingSpaces()
            switch e.kind {
            case .retryable where hadOutput, .unknownOutcome:
                return AgentError(.unknownOutcome, "The connection broke while the model was answering (\(message)); what arrived is saved and nothing was retried. Ask again to go on.")
            case .retryable:
                return AgentError(.providerUnavailable, "The provider failed (\(message)); try again in a moment.")
            case .rateLimited(let after):
                let wait = after.map { " and asked to wait \(formatSeconds($0))" } ?? ""
                return AgentError(.rateLimited, "The provider is limiting requests\(wait); wait a little and try again.")
            case .contextOverflow:
                return AgentError(.contextOverflow, "The conversation is too long for this model; compact it (/compact) or start a new thread.")
            case .fatal:
                return AgentError(.providerRejected, "The provider refused the request (\(message)); check the model name and settings.")
            case .configuration:
                return AgentError(.configuration, message)
            case .timeout:
                return AgentError(.timeout, "The provider timed out (\(message)); try again.")
            }
        case let e as DatabaseError:
            return AgentError.storage(e)
        default:
            return AgentError(.internal, "Something went wrong inside ofj (\(String(describing: type(of: error)))); try again, and report it if it repeats.")
        }
    }

    static func formatSeconds(_ s: Double) -> String {
        if s >= 60 && s.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(s / 60)) min" }
        return "\(JSONValue.format(s)) s"
    }
}
