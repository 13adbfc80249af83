// The one event stream every frontend (REPL, `ask --json`, replay) renders.
import Base

/// How a run ended.
public struct RunOutcome: Sendable, Hashable {
    /// `completed`, `failed`, `cancelled` or `suspended`.
    public var phase: RunPhase
    /// The last assistant text of the run (partial when it was cut off).
    public var text: String
    public var error: AgentError?
    public init(phase: RunPhase, text: String, error: AgentError? = nil) {
        self.phase = phase
        self.text = text
        self.error = error
    }
}

/// Something a run did, in order, tagged with its thread and run.
public struct AgentEvent: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case phase(RunPhase)
        case textDelta(String)
        case toolStarted(callID: String, name: String, activity: String)
        case toolFinished(callID: String, name: String, status: ToolCallStatus, summary: String)
        case approvalRequested(ApprovalRequest)
        case approvalDecided(callID: String, name: String, decision: ApprovalDecision)
        /// An approval rule decided a write (`decision` allow, ask or deny) or, with `decision` nil,
        /// the configured rules are not used (`line` says why). `line` is for the person:
        /// "allowed by rule 2 (allow log_food when energy_kcal < 800)".
        case ruleDecided(callID: String, name: String, decision: RuleDecision?, line: String)
        case usage(turn: Int, usage: Usage, provider: String, model: String, costUSD: Double?)
        /// A safe operation is being tried again after `delaySeconds`.
        case retrying(operation: String, delaySeconds: Double)
        case error(AgentError)
        /// One line about the thread's context: older messages were compacted into a summary, or
        /// a summary was refused and the full conversation is still sent.
        case compaction(String)
        case finished(RunOutcome)
    }
    public var threadID: String
    public var runID: String
    public var kind: Kind

    public init(threadID: String, runID: String, kind: Kind) {
        self.threadID = threadID
        self.runID = runID
        self.kind = kind
    }

    /// The event as a JSON object (`{"type": "...", "thread": ..., "run": ..., ...}`).
    public var json: JSONValue {
        var o: [String: JSONValue] = ["thread": .string(threadID), "run": .string(runID)]
        switch kind {
        case .phase(let p):
            o["type"] = "phase"; o["phase"] = .string(p.rawValue)
        case .textDelta(let t):
            o["type"] = "text_delta"; o["text"] = .string(t)
        case .toolStarted(let id, let name, let activity):
            o["type"] = "tool_started"; o["call_id"] = .string(id); o["tool"] = .string(name); o["activity"] = .string(activity)
        case .toolFinished(let id, let name, let status, let summary):
            o["type"] = "tool_finished"; o["call_id"] = .string(id); o["tool"] = .string(name)
            o["status"] = .string(status.rawValue); o["summary"] = .string(summary)
        case .approvalRequested(let r):
            o["type"] = "approval_requested"; o["call_id"] = .string(r.callID); o["tool"] = .string(r.toolName); o["preview"] = .string(r.preview)
        case .approvalDecided(let id, let name, let decision):
            o["type"] = "approval_decided"; o["call_id"] = .string(id); o["tool"] = .string(name); o["decision"] = .string(decision.rawValue)
        case .ruleDecided(let id, let name, let decision, let line):
            o["type"] = "rule_decided"; o["call_id"] = .string(id); o["tool"] = .string(name)
            o["decision"] = decision.map { .string($0.rawValue) } ?? .null; o["line"] = .string(line)
        case .usage(let turn, let u, let provider, let model, let cost):
            o["type"] = "usage"; o["turn"] = .number(Double(turn)); o["provider"] = .string(provider); o["model"] = .string(model)
            o["input_tokens"] = .number(Double(u.inputTokens)); o["cached_input_tokens"] = .number(Double(u.cachedInputTokens))
            o["output_tokens"] = .number(Double(u.outputTokens)); o["reasoning_tokens"] = .number(Double(u.reasoningTokens))
            o["cost_usd"] = cost.map { .number($0) } ?? .null
        case .retrying(let operation, let delay):
            o["type"] = "retrying"; o["operation"] = .string(operation); o["delay_seconds"] = .number(delay)
        case .error(let e):
            o["type"] = "error"; o["class"] = .string(e.kind.rawValue); o["message"] = .string(e.line)
        case .compaction(let line):
            o["type"] = "compaction"; o["line"] = .string(line)
        case .finished(let outcome):
            o["type"] = "finished"; o["phase"] = .string(outcome.phase.rawValue); o["text"] = .string(outcome.text)
            if let e = outcome.error { o["class"] = .string(e.kind.rawValue); o["message"] = .string(e.line) }
        }
        return .object(o)
    }

    /// One line of JSON (keys sorted), for `ofj ask --json`.
    public var jsonLine: String { json.serialized }
}
