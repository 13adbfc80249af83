// The 2026-07-28 revision: no handshake, a per-request `_meta` envelope, `server/discover`,
// `resultType` on every result, cache hints on lists, and approval by multi round-trip requests.
import Agent
import Base

/// One request's `_meta` envelope (2026-07-28): its protocol version and what the client can do.
struct ModernEnvelope: Sendable {
    var version: String
    var clientElicits: Bool
}

/// A write waiting for (or done with) the person's answer, found again by its `requestState`.
struct PendingApproval: Sendable {
    enum Phase: Sendable {
        case waiting(PlannedChange, ToolContext, conflicts: Int, notice: String?)
        case applying
        case finished(output: ToolOutput, status: String, errorClass: String?)
    }
    var toolName: String
    /// The call's arguments as the client sent them (idempotency_key included): a retry must repeat them.
    var arguments: String
    var write: MCPServer.PreparedWrite
    var phase: Phase
}

extension MCPConfiguration {
    /// The stateless revisions (per-request `_meta`), newest first.
    public static let modernVersions = ["2026-07-28"]
    /// Every revision, newest first, as `server/discover` and `-32022` list them.
    public static var allVersions: [String] { modernVersions + protocolVersions }
}

extension MCPServer {
    static let versionKey = "io.modelcontextprotocol/protocolVersion"
    static let capabilitiesKey = "io.modelcontextprotocol/clientCapabilities"
    /// How long a client may cache `server/discover`, `tools/list` and `resources/list` (fixed for the process).
    static let listTTLMs = 3_600_000
    /// Approvals kept for retries; the oldest go first.
    static let maxPendingApprovals = 256
    /// The key of the one input request an approval carries.
    static let approvalKey = "approval"

    /// Whether a request carries the 2026-07-28 envelope (its version key; `initialize` never does).
    static func isModern(method: String, params: JSONValue) -> Bool {
        method != "initialize" && params["_meta"]?[versionKey] != nil
    }

    /// Answers one 2026-07-28 request.
    func modernRequest(id: JSONValue, method: String, params: JSONValue) {
        let envelope: ModernEnvelope
        switch Self.envelope(params) {
        case .failure(let e):
            send(RPC.error(id: id, code: e.code, message: e.message, data: e.data))
            return
        case .success(let e):
            envelope = e
        }
        switch method {
        case "server/discover":
            send(RPC.result(id: id, discover()))
        case "tools/list":
            send(RPC.result(id: id, cacheable(toolList())))
        case "resources/list":
            send(RPC.result(id: id, cacheable(resourceList())))
        case "resources/templates/list":
            send(RPC.result(id: id, cacheable(["resourceTemplates": []])))
        case "tools/call", "resources/read":
            startCall(id: id, method: method, params: params, envelope: envelope)
        default:
            // ping, logging/setLevel and the subscriptions are gone in this revision.
            send(RPC.error(id: id, code: RPCErrorCode.methodNotFound, message: "method not found: \(String(method.prefix(60)))"))
        }
    }

    struct EnvelopeError: Error {
        var code: Int
        var message: String
        var data: JSONValue?
    }

    /// Reads and checks the envelope: a version this server speaks, and capabilities as an object.
    static func envelope(_ params: JSONValue) -> Result<ModernEnvelope, EnvelopeError> {
        let meta = params["_meta"]
        guard let version = meta?[versionKey]?.stringValue else {
            return .failure(EnvelopeError(code: RPCErrorCode.invalidParams, message: "_meta[\"\(versionKey)\"] must be a protocol version string"))
        }
        guard MCPConfiguration.modernVersions.contains(version) else {
            let listed = MCPConfiguration.protocolVersions.contains(version) ? " (\(version) is spoken through initialize)" : ""
            return .failure(EnvelopeError(
                code: RPCErrorCode.unsupportedProtocolVersion,
                message: "unsupported protocol version \(String(version.prefix(40)))\(listed); this server speaks \(MCPConfiguration.allVersions.joined(separator: ", "))",
                data: ["supported": .array(MCPConfiguration.allVersions.map { .string($0) }), "requested": .string(String(version.prefix(100)))]))
        }
        guard let capabilities = meta?[capabilitiesKey]?.objectValue else {
            return .failure(EnvelopeError(code: RPCErrorCode.invalidParams, message: "_meta[\"\(capabilitiesKey)\"] must be an object (the client's capabilities for this request)"))
        }
        return .success(ModernEnvelope(version: version, clientElicits: clientElicits(capabilities["elicitation"])))
    }

    /// Form elicitation: `{}` (the form-only shorthand) or `{"form": {}}`; URL mode alone cannot show the card.
    static func clientElicits(_ elicitation: JSONValue?) -> Bool {
        elicitation?.objectValue.map { $0.isEmpty || $0["form"] != nil } ?? false
    }

    func discover() -> JSONValue {
        cacheable([
            "supportedVersions": .array(MCPConfiguration.allVersions.map { .string($0) }),
            "capabilities": ["tools": ["listChanged": false], "resources": ["subscribe": false, "listChanged": false]],
            "serverInfo": serverInfo,
            "instructions": .string(configuration.instructions),
        ])
    }

    var serverInfo: JSONValue {
        ["name": .string(configuration.serverName), "title": .string(configuration.serverTitle), "version": .string(configuration.serverVersion)]
    }

    /// A list result with `resultType` and cache hints (the lists hold no journal data and do not change while the server runs).
    func cacheable(_ result: JSONValue) -> JSONValue {
        complete(result, extra: ["ttlMs": .number(Double(Self.listTTLMs)), "cacheScope": "public"])
    }

    /// A final result: `resultType` "complete", and the server's identity in `_meta`.
    func complete(_ result: JSONValue, extra: [String: JSONValue] = [:]) -> JSONValue {
        guard case .object(var o) = result else { return result }
        o["resultType"] = "complete"
        for (k, v) in extra { o[k] = v }
        return stamped(.object(o))
    }

    /// Adds `_meta["io.modelcontextprotocol/serverInfo"]`, which 2026-07-28 servers should send on every result.
    func stamped(_ result: JSONValue) -> JSONValue {
        guard case .object(var o) = result else { return result }
        var meta = o["_meta"]?.objectValue ?? [:]
        meta["io.modelcontextprotocol/serverInfo"] = serverInfo
        o["_meta"] = .object(meta)
        return .object(o)
    }

    // MARK: - Writes by multi round-trip requests

    /// What a 2026-07-28 write call answers: a tool result, an `input_required` result, or a protocol error.
    enum ModernAnswer: Sendable {
        case outcome(output: ToolOutput, status: String, errorClass: String?)
        case inputRequired(JSONValue)
        case error(code: Int, message: String)
    }

    /// A write in 2026-07-28. The first call previews the change, keeps it in this server's table
    /// under a random `requestState`, and answers `input_required` with the card as an
    /// elicitation; the client's retry with the answer applies exactly that change through the
    /// ledger. A client that cannot elicit relies on its own tool approval, as in 2025.
    func modernWrite(_ tool: any Tool, params: JSONValue, arguments: JSONValue, requestID: JSONValue, sequence: Int,
                     envelope: ModernEnvelope) async -> ModernAnswer {
        if let stateValue = params["requestState"], !stateValue.isNull {
            guard let token = stateValue.stringValue else {
                return .error(code: RPCErrorCode.invalidParams, message: "requestState must be the string this server sent")
            }
            return continueApproval(token: token, tool: tool, params: params, arguments: arguments, sequence: sequence)
        }
        guard envelope.clientElicits else {
            let o = await write(tool, arguments: arguments, requestID: requestID, sequence: sequence, elicits: false)
            guard let o else { return .outcome(output: Self.closedWithoutAnswer, status: "cancelled", errorClass: nil) }
            return .outcome(output: o.output, status: o.status, errorClass: o.errorClass)
        }
        let token = Self.newToken()
        let fallback = CallKey(runID: configuration.sessionRunID, turn: 2, callID: "approval:" + token)
        let prepared: PreparedWrite
        switch prepareWrite(tool, arguments: arguments, fallbackKey: fallback) {
        case .done(let output, let status, let errorClass): return .outcome(output: output, status: status, errorClass: errorClass)
        case .ready(let p): prepared = p
        }
        let context = context(for: prepared)
        switch plan(prepared, context: context) {
        case .failure(let f):
            return .outcome(output: f.output, status: f.status, errorClass: f.errorClass)
        case .success(let planned):
            if let ruled = ruledCommit(prepared, planned: planned, context: context, sequence: sequence), case .done(let output, let status, let errorClass) = ruled {
                return .outcome(output: output, status: status, errorClass: errorClass)
            }
            let pending = PendingApproval(toolName: tool.name, arguments: arguments.serialized, write: prepared,
                                          phase: .waiting(planned, context, conflicts: 0, notice: nil))
            state.withLock { s in
                s.approvals[token] = pending
                s.approvalOrder.append(token)
                while s.approvalOrder.count > Self.maxPendingApprovals {
                    s.approvals[s.approvalOrder.removeFirst()] = nil
                }
            }
            return .inputRequired(Self.inputRequired(token: token, tool: tool.name, planned: planned, notice: nil))
        }
    }

    private func continueApproval(token: String, tool: any Tool, params: JSONValue, arguments: JSONValue, sequence: Int) -> ModernAnswer {
        let forged = ModernAnswer.error(code: RPCErrorCode.invalidParams,
                                        message: "requestState was not issued by this server process (or has expired); nothing was written. Call the tool again without it")
        // Taking the entry out of `waiting` is atomic: of two concurrent retries only one decides.
        let action = params["inputResponses"]?[Self.approvalKey]?["action"]?.stringValue
        enum Step { case unknown, mismatch, replay(ModernAnswer), ask(PlannedChange, String?), decide(PlannedChange, ToolContext, Int, PreparedWrite) }
        let step = state.withLock { s -> Step in
            guard let entry = s.approvals[token] else { return .unknown }
            guard entry.toolName == tool.name, entry.arguments == arguments.serialized else { return .mismatch }
            switch entry.phase {
            case .finished(let output, let status, let errorClass):
                return .replay(.outcome(output: output, status: status == "succeeded" ? "ledger_replayed" : status, errorClass: errorClass))
            case .applying:
                return .replay(.outcome(output: .error("this change is being applied right now; call again with the same requestState for its result"),
                                        status: "rejected", errorClass: "in_progress"))
            case .waiting(let planned, let context, let conflicts, let notice):
                guard action != nil else { return .ask(planned, notice) }
                s.approvals[token]?.phase = .applying
                return .decide(planned, context, conflicts, entry.write)
            }
        }
        switch step {
        case .unknown:
            return forged
        case .mismatch:
            return .error(code: RPCErrorCode.invalidParams,
                          message: "requestState belongs to another call (a different tool or arguments); nothing was written. Repeat the original call exactly, or call again without it")
        case .replay(let answer):
            return answer
        case .ask(let planned, let notice):
            // A retry without the answer: the same question again.
            return .inputRequired(Self.inputRequired(token: token, tool: tool.name, planned: planned, notice: notice))
        case .decide(let planned, let context, let conflicts, let prepared):
            let decision: ApprovalDecision
            switch action {
            case "accept": decision = .allowOnce
            case "decline": decision = .deny
            default:
                return finish(token, (Self.closedWithoutAnswer, "cancelled", nil))
            }
            // The key may have been used meanwhile (the same idempotency_key on another approval):
            // its stored result, or the refusal of a key reused for a different change.
            if case .done(let output, let status, let errorClass) = prepareWrite(tool, arguments: arguments, fallbackKey: prepared.key) {
                return finish(token, (output, status, errorClass))
            }
            switch commit(prepared, planned: planned, context: context, decision: decision, source: "mcp_elicitation", waited: 0, sequence: sequence) {
            case .done(let output, let status, let errorClass):
                return finish(token, (output, status, errorClass))
            case .conflict(let message):
                // Stale card: nothing written; ask about the change as it is now (at most maxConflicts times).
                guard conflicts + 1 < Self.maxConflicts else { return finish(token, givenUp(prepared, notice: message)) }
                let fresh = self.context(for: prepared)
                switch plan(prepared, context: fresh) {
                case .failure(let f):
                    return finish(token, f.outcome)
                case .success(let replanned):
                    state.withLock { $0.approvals[token]?.phase = .waiting(replanned, fresh, conflicts: conflicts + 1, notice: message) }
                    return .inputRequired(Self.inputRequired(token: token, tool: tool.name, planned: replanned, notice: message))
                }
            }
        }
    }

    /// Stores the final answer for retries of the same `requestState`, and returns it.
    private func finish(_ token: String, _ outcome: Outcome) -> ModernAnswer {
        state.withLock { $0.approvals[token]?.phase = .finished(output: outcome.output, status: outcome.status, errorClass: outcome.errorClass) }
        return .outcome(output: outcome.output, status: outcome.status, errorClass: outcome.errorClass)
    }

    static func inputRequired(token: String, tool: String, planned: PlannedChange, notice: String?) -> JSONValue {
        var question = approvalQuestion(tool: tool, planned: planned, notice: notice)
        if case .object(var o) = question {
            o["mode"] = "form"
            question = .object(o)
        }
        return [
            "resultType": "input_required",
            "inputRequests": .object([approvalKey: ["method": "elicitation/create", "params": question]]),
            "requestState": .string(token),
        ]
    }

    /// 128 random bits from the system's cryptographic generator: an id into this process's table
    /// that a client cannot guess.
    static func newToken() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let hex = String(g.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}
