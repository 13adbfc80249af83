// tools/call and resources/read: reads run at once, writes are previewed, approved and ledgered.
import Agent
import Base
import SQLiteKit

extension MCPServer {
    /// How many times an approved change may turn out stale before the call gives up.
    static let maxConflicts = 3

    /// The answer to a `tools/call` request, or nil when none is to be sent (the input ended while
    /// the person was being asked).
    func callTool(id: JSONValue, params: JSONValue, envelope: ModernEnvelope? = nil) async -> String? {
        let started = clock.monotonic()
        let sequence = state.withLock { s -> Int in
            s.callSequence += 1
            return s.callSequence
        }
        guard let name = params["name"]?.stringValue else {
            return RPC.error(id: id, code: RPCErrorCode.invalidParams, message: "tools/call needs \"name\", the tool to call")
        }
        guard let tool = tools.tool(named: name) else {
            record(sequence, tool: nil, status: "rejected", errorClass: "unknown_tool", started: started, size: 0)
            let names = tools.tools.map(\.name).joined(separator: ", ")
            return RPC.error(id: id, code: RPCErrorCode.invalidParams, message: "unknown tool '\(String(name.prefix(60)))'; available tools: \(names)")
        }
        // Absent or null arguments are no arguments; anything else must pass the tool's schema.
        var arguments: JSONValue = .object([:])
        if let given = params["arguments"], !given.isNull { arguments = given }
        let outcome: (output: ToolOutput, status: String, errorClass: String?)?
        if tool.effect == .write, let envelope {
            switch await modernWrite(tool, params: params, arguments: arguments, requestID: id, sequence: sequence, envelope: envelope) {
            case .error(let code, let message):
                record(sequence, tool: tool.name, status: "rejected", errorClass: "request_state", started: started, size: 0)
                return RPC.error(id: id, code: code, message: message)
            case .inputRequired(let result):
                record(sequence, tool: tool.name, status: "input_required", errorClass: nil, started: started, size: 0)
                return RPC.result(id: id, stamped(result))
            case .outcome(let output, let status, let errorClass):
                outcome = (output, status, errorClass)
            }
        } else if tool.effect == .write {
            outcome = await write(tool, arguments: arguments, requestID: id, sequence: sequence, elicits: session.clientElicits)
        } else {
            outcome = await read(tool, arguments: arguments, callID: "mcp-\(sequence)")
        }
        guard let outcome else { return nil }
        record(sequence, tool: tool.name, status: outcome.status, errorClass: outcome.errorClass, started: started,
               size: outcome.output.content.utf8.count)
        let result = Self.toolResult(outcome.output)
        return RPC.result(id: id, envelope == nil ? result : complete(result))
    }

    /// The MCP form of a tool's answer: the JSON as text, and as structured content when it is an object.
    static func toolResult(_ output: ToolOutput) -> JSONValue {
        var result: [String: JSONValue] = [
            "content": [["type": "text", "text": .string(output.content)]],
            "isError": .bool(output.isError),
        ]
        if let parsed = try? JSONValue.parse(output.content), case .object = parsed { result["structuredContent"] = parsed }
        return .object(result)
    }

    // MARK: - Reads

    private func read(_ tool: any Tool, arguments: JSONValue, callID: String) async -> (output: ToolOutput, status: String, errorClass: String?) {
        let call = ToolCall(id: callID, name: tool.name, arguments: arguments.serialized)
        switch tools.resolve(call) {
        case .failure(let rejection):
            return (rejection.output, "rejected", "invalid_arguments")
        case .success(let resolved):
            let context = ToolContext(threadID: configuration.threadID, runID: configuration.sessionRunID, callID: callID,
                                      now: WallTime(secondsSince1970: clock.now()))
            do {
                let raw = try await resolved.tool.execute(arguments: resolved.arguments, context: context)
                let reads = resolved.tool.untrustedReads(arguments: resolved.arguments, output: raw)
                if !reads.isEmpty {
                    state.withLock { s in
                        for r in reads where !s.untrusted.contains(r) && s.untrusted.count < UntrustedContent.namedOnCard { s.untrusted.append(r) }
                    }
                }
                return (tools.bounded(raw), raw.isError ? "failed" : "succeeded", nil)
            } catch let e as ToolArgumentError {
                return (.error(e.description), "rejected", "invalid_arguments")
            } catch {
                return (.error("\(tool.name) failed (\(error)); try again later"), "failed", "tool_error")
            }
        }
    }

    // MARK: - Writes

    static let writesOffMessage = "ofj mcp was started without --allow-writes, so it does not change the journal. "
        + "To allow changes (each one shown for approval), start the server as: ofj mcp --allow-writes"

    typealias Outcome = (output: ToolOutput, status: String, errorClass: String?)

    /// A write call whose key is known, not recorded yet, and whose arguments passed the schema.
    struct PreparedWrite: Sendable {
        var tool: any WriteTool
        var key: CallKey
        var call: ToolCall
        var arguments: JSONValue
    }

    enum Preparation: Sendable {
        case done(output: ToolOutput, status: String, errorClass: String?)
        case ready(PreparedWrite)
    }

    /// The ledger key (an explicit idempotency key, shared by every session, else `fallbackKey`),
    /// the stored result when the key is recorded, and the schema check.
    func prepareWrite(_ tool: any Tool, arguments: JSONValue, fallbackKey: CallKey) -> Preparation {
        guard configuration.allowWrites else { return .done(output: .error(Self.writesOffMessage), status: "refused", errorClass: "writes_disabled") }
        guard let writeTool = tool as? any WriteTool else {
            return .done(output: .error("'\(tool.name)' is declared as a write tool but cannot apply changes"), status: "rejected", errorClass: "invalid_arguments")
        }
        var args = arguments
        let key: CallKey
        var explicitKey = false
        if case .object(var o) = args, let given = o.removeValue(forKey: "idempotency_key") {
            explicitKey = true
            guard let text = given.stringValue, !text.isEmpty, text.count <= 200 else {
                return .done(output: .error("idempotency_key must be a string of 1 to 200 characters"), status: "rejected", errorClass: "invalid_arguments")
            }
            args = .object(o)
            key = CallKey(runID: configuration.keyRunID, turn: 0, callID: "key:" + text)
        } else {
            key = fallbackKey
        }
        let call = ToolCall(id: key.callID, name: tool.name, arguments: args.serialized)
        do {
            try openSession()
            if let entry = try ledger.entry(key) {
                // A retry repeats the call; the same key on another call is a mistake, not a retry.
                guard entry.toolName == tool.name, try ledger.recordedArguments(key) == call.arguments else {
                    return .done(output: .error("this \(explicitKey ? "idempotency_key" : "request id") was already used for a different change (\(entry.toolName)); "
                                                + "nothing was written. Use a new one for a new change"), status: "rejected", errorClass: "key_reused")
                }
                return .done(output: entry.output, status: "ledger_replayed", errorClass: nil)
            }
        } catch {
            log("\(tool.name): the journal could not be read (\(type(of: error))); nothing was written")
            return .done(output: .error("the journal could not be read (\(error)); nothing was written, try again"), status: "failed", errorClass: "storage")
        }
        switch tools.resolve(call) {
        case .failure(let rejection):
            return .done(output: rejection.output, status: "rejected", errorClass: "invalid_arguments")
        case .success(let resolved):
            return .ready(PreparedWrite(tool: writeTool, key: key, call: call, arguments: resolved.arguments))
        }
    }

    /// The context a prepared write is previewed and applied with.
    func context(for write: PreparedWrite) -> ToolContext {
        ToolContext(threadID: configuration.threadID, runID: write.key.runID, callID: write.key.callID,
                    now: WallTime(secondsSince1970: clock.now()))
    }

    /// Resolves the change the card shows (and that is written when approved).
    func plan(_ write: PreparedWrite, context: ToolContext) -> Result<PlannedChange, PlanFailure> {
        do {
            return .success(try ledger.store.queue.read { db in try write.tool.preview(arguments: write.arguments, context: context, database: db) })
        } catch let e as ToolArgumentError {
            return .failure(PlanFailure(output: .error(e.description), status: "rejected", errorClass: "invalid_arguments"))
        } catch {
            return .failure(PlanFailure(output: .error("\(write.tool.name) could not prepare this change (\(error)); nothing was written"),
                                        status: "failed", errorClass: "tool_error"))
        }
    }

    struct PlanFailure: Error {
        var output: ToolOutput
        var status: String
        var errorClass: String?
        var outcome: Outcome { (output, status, errorClass) }
    }

    enum Commit: Sendable {
        case done(output: ToolOutput, status: String, errorClass: String?)
        /// The data the card was computed from changed: nothing written, ask again.
        case conflict(String)
    }

    /// Records the person's decision and, when allowed, applies exactly `planned` under the write's key.
    func commit(_ write: PreparedWrite, planned: PlannedChange, context: ToolContext, decision: ApprovalDecision, source: String,
                waited: Double, sequence: Int, rule: RuleVerdict? = nil) -> Commit {
        let (key, call) = (write.key, write.call)
        do {
            try ledger.recordDecision(key: key, call: call, decision: decision, source: source, waited: waited, change: planned, now: clock.now(),
                                      rule: rule?.rule.label)
            var d = diagnostic(sequence, tool: write.tool.name, status: decision.rawValue)
            d.operation = .approval
            d.totalMs = waited * 1000
            diagnostics.record(d)
            if decision == .deny {
                let output = rule?.deniedOutput ?? ToolOutput(content: #"{"denied":true,"message":"The person declined this change; nothing was written. Do not repeat it unless they ask."}"#,
                                                              summary: "declined; nothing was written")
                let stored = try ledger.recordUnwritten(key: key, call: call, outcome: .denied, decision: .deny, output: output,
                                                        change: planned, now: clock.now())
                return .done(output: stored.output, status: "denied", errorClass: nil)
            }
            let outcome = try ledger.apply(planned, tool: write.tool, call: call, key: key, context: context, decision: decision, now: clock.now())
            if case .replayed = outcome { return .done(output: outcome.output, status: "ledger_replayed", errorClass: nil) }
            return .done(output: outcome.output, status: outcome.output.isError ? "failed" : "succeeded", errorClass: nil)
        } catch let conflict as ChangeConflict {
            return .conflict(conflict.message)
        } catch let e as ToolArgumentError {
            let o = unwritten(key: key, call: call, decision: decision, planned: planned, output: .error(e.description), errorClass: "invalid_arguments")
            return .done(output: o.output, status: o.status, errorClass: o.errorClass)
        } catch let e as DatabaseError where e.isBusy {
            return .done(output: .error("the journal is busy (another ofj is writing); nothing was written, try again"), status: "failed", errorClass: "busy")
        } catch {
            // stderr gets the kind of error only: its text may quote journal values.
            log("\(write.tool.name) failed (\(type(of: error))); nothing was written")
            let output = ToolOutput.error("\(write.tool.name) failed and nothing was written (\(error)); tell the person, do not retry on your own")
            let o = unwritten(key: key, call: call, decision: decision, planned: planned, output: output, errorClass: "tool_error")
            return .done(output: o.output, status: o.status, errorClass: o.errorClass)
        }
    }

    /// The answer after `maxConflicts` stale approvals.
    func givenUp(_ write: PreparedWrite, notice: String?) -> Outcome {
        let message = "\(write.tool.name) was not done: \(notice ?? "the data changed") while the change waited for approval, again; nothing was written. Look it up again"
        return unwritten(key: write.key, call: write.call, decision: .allowOnce, planned: nil, output: .error(message), errorClass: "changed_since_preview")
    }

    /// A write in the 2025 revisions: asked about with a server-initiated `elicitation/create` when
    /// `elicits`, else approved by the client's own tool approval.
    func write(_ tool: any Tool, arguments: JSONValue, requestID: JSONValue, sequence: Int, elicits: Bool) async -> Outcome? {
        let fallback = CallKey(runID: configuration.sessionRunID, turn: 1, callID: "request:" + requestID.serialized)
        let prepared: PreparedWrite
        switch prepareWrite(tool, arguments: arguments, fallbackKey: fallback) {
        case .done(let output, let status, let errorClass): return (output, status, errorClass)
        case .ready(let p): prepared = p
        }
        var notice: String?
        for _ in 0..<Self.maxConflicts {
            let context = context(for: prepared)
            let planned: PlannedChange
            switch plan(prepared, context: context) {
            case .failure(let f): return f.outcome
            case .success(let p): planned = p
            }
            // A standing rule that allows or denies decides without asking (as in the REPL).
            if let ruled = ruledCommit(prepared, planned: planned, context: context, sequence: sequence) {
                switch ruled {
                case .done(let output, let status, let errorClass): return (output, status, errorClass)
                case .conflict(let message): notice = message; continue
                }
            }
            let decision: ApprovalDecision
            let source: String
            let waited: Double
            if elicits {
                let askedAt = clock.monotonic()
                let answer = await ask(method: "elicitation/create", params: Self.approvalQuestion(tool: tool.name, planned: planned, notice: notice))
                waited = clock.monotonic() - askedAt
                guard let answer else {
                    // Input ended or the call was cancelled while asking: nothing decided, nothing written.
                    if Task.isCancelled { return (.error("cancelled before the person answered; nothing was written"), "cancelled", nil) }
                    return nil
                }
                switch answer["action"]?.stringValue {
                case "accept":
                    decision = .allowOnce
                case "decline":
                    decision = .deny
                default:
                    return (Self.closedWithoutAnswer, "cancelled", nil)
                }
                source = "mcp_elicitation"
            } else {
                // No elicitation: the client's own tool approval is the person's decision.
                decision = .allowOnce
                source = "mcp_client"
                waited = 0
            }
            switch commit(prepared, planned: planned, context: context, decision: decision, source: source, waited: waited, sequence: sequence) {
            case .done(let output, let status, let errorClass): return (output, status, errorClass)
            case .conflict(let message): notice = message
            }
        }
        return givenUp(prepared, notice: notice)
    }

    static let closedWithoutAnswer = ToolOutput.error("the person closed the approval without answering; nothing was written")

    /// The commit of a write an approval rule allows or denies; nil when no rule decides it (or says ask).
    func ruledCommit(_ write: PreparedWrite, planned: PlannedChange, context: ToolContext, sequence: Int) -> Commit? {
        guard let rules = configuration.approvalRules else { return nil }
        let verdict: RuleVerdict?, problem: String?
        do {
            (verdict, problem) = try ledger.store.queue.read { db in
                rules.verdict(tool: write.tool, arguments: write.arguments, planned: planned, database: db)
            }
        } catch {
            // No rule decides then: the person is asked, as when the rules cannot be used.
            (verdict, problem) = (nil, "the database could not be read (\(error))")
        }
        if let problem { log("approval rules not used: \(problem)") }
        guard let v = verdict, v.decision != .ask else { return nil }
        // After this session served content from outside the person, an allow rule does not
        // decide: the client asks (elicitation), as the REPL shows a card. A deny still refuses.
        let untrusted = state.withLock { $0.untrusted }
        if v.decision == .allow && !untrusted.isEmpty {
            log("\(write.tool.name): \(v.rule.label) not used: this session served content from outside the person (\(untrusted.count) reads)")
            return nil
        }
        log("\(write.tool.name): \(v.decision == .allow ? "allowed" : "denied") by \(v.rule.label)")
        return commit(write, planned: planned, context: context, decision: v.decision == .allow ? .allowOnce : .deny, source: "rule", waited: 0,
                      sequence: sequence, rule: v)
    }

    /// The `elicitation/create` params that ask the person about `planned` (a yes/no question).
    static func approvalQuestion(tool: String, planned: PlannedChange, notice: String?) -> JSONValue {
        let card = notice.map { "Changed since the card you approved: \($0); nothing was written. The change as it is now:\n" + planned.card }
            ?? planned.card
        return [
            "message": .string("Approve: \(tool)\n\(card)"),
            "requestedSchema": ["type": "object", "properties": [:]],
        ]
    }

    /// Stores a failed write in the ledger (so a retry gets this answer, as in the agent) and answers with it.
    func unwritten(key: CallKey, call: ToolCall, decision: ApprovalDecision, planned: PlannedChange?, output: ToolOutput,
                   errorClass: String) -> Outcome {
        let stored = (try? ledger.recordUnwritten(key: key, call: call, outcome: .failed, decision: decision, output: output,
                                                  change: planned, now: clock.now()))?.output ?? output
        return (stored, "failed", errorClass)
    }

    private func openSession() throws {
        let opened = state.withLock { $0.sessionOpened }
        guard !opened else { return }
        let now = clock.now()
        try ledger.openSession(threadID: configuration.threadID, threadTitle: "MCP clients (ofj mcp)", runID: configuration.sessionRunID, now: now)
        try ledger.openSession(threadID: configuration.threadID, threadTitle: "MCP clients (ofj mcp)", runID: configuration.keyRunID, now: now)
        state.withLock { $0.sessionOpened = true }
    }

    // MARK: - Resources

    func readResource(id: JSONValue, params: JSONValue, envelope: ModernEnvelope? = nil) async -> String {
        guard let uri = params["uri"]?.stringValue else {
            return RPC.error(id: id, code: RPCErrorCode.invalidParams, message: "resources/read needs \"uri\"")
        }
        guard let resource = configuration.resources.first(where: { $0.uri == uri }), let tool = tools.tool(named: resource.toolName) else {
            return RPC.error(id: id, code: RPCErrorCode.resourceNotFound, message: "resource not found",
                             data: ["uri": .string(String(uri.prefix(200)))])
        }
        // A resource is one of the read tools with fixed arguments.
        let started = clock.monotonic()
        let sequence = state.withLock { s -> Int in
            s.callSequence += 1
            return s.callSequence
        }
        let outcome = await read(tool, arguments: resource.arguments, callID: "mcp-\(sequence)")
        record(sequence, tool: tool.name, status: outcome.status, errorClass: outcome.errorClass, started: started,
               size: outcome.output.content.utf8.count)
        guard !outcome.output.isError else {
            return RPC.error(id: id, code: RPCErrorCode.internalError, message: "\(resource.uri) could not be read: \(outcome.output.summary)")
        }
        let result: JSONValue = ["contents": [["uri": .string(resource.uri), "mimeType": "application/json", "text": .string(outcome.output.content)]]]
        return RPC.result(id: id, envelope == nil ? result : complete(result))
    }
}

extension MCPServer {
    func diagnostic(_ sequence: Int, tool: String?, status: String) -> AgentDiagnostic {
        var d = AgentDiagnostic(operation: .toolExecution, status: status)
        d.provider = "mcp"
        d.threadID = configuration.threadID
        d.runID = configuration.sessionRunID
        d.callID = "mcp-\(sequence)"
        d.toolName = tool
        return d
    }

    func record(_ sequence: Int, tool: String?, status: String, errorClass: String?, started: Double, size: Int) {
        var d = diagnostic(sequence, tool: tool, status: status)
        d.errorClass = errorClass
        d.totalMs = (clock.monotonic() - started) * 1000
        d.sizeBytes = size
        diagnostics.record(d)
    }
}
