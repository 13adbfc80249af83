// An MCP server over any line transport: lifecycle, dispatch, cancellation and server-to-client requests.
import Agent
import Base
import Synchronization

/// How a tool is described to MCP clients (the hints clients use to decide what to confirm).
public struct MCPToolAnnotations: Sendable, Hashable {
    /// Changes nothing.
    public var readOnly: Bool
    /// May change or remove what is there (false: only adds).
    public var destructive: Bool
    /// Calling again with the same arguments changes nothing more.
    public var idempotent: Bool
    public init(readOnly: Bool, destructive: Bool, idempotent: Bool) {
        self.readOnly = readOnly
        self.destructive = destructive
        self.idempotent = idempotent
    }
}

/// A resource the server offers: read by calling one read tool with fixed arguments.
public struct MCPResource: Sendable, Hashable {
    public var uri: String
    public var name: String
    public var title: String
    public var description: String
    public var toolName: String
    public var arguments: JSONValue
    public init(uri: String, name: String, title: String, description: String, toolName: String, arguments: JSONValue = .object([:])) {
        self.uri = uri
        self.name = name
        self.title = title
        self.description = description
        self.toolName = toolName
        self.arguments = arguments
    }
}

public struct MCPConfiguration: Sendable {
    /// Protocol revisions the server speaks, newest first; a client asking for another gets the first.
    public static let protocolVersions = ["2025-11-25", "2025-06-18"]

    public var serverName: String
    public var serverTitle: String
    public var serverVersion: String
    public var instructions: String
    /// Without it every write tool answers with an error saying how to enable writes.
    public var allowWrites: Bool
    public var resources: [MCPResource]
    public var annotations: @Sendable (any Tool) -> MCPToolAnnotations
    /// The thread that owns MCP ledger rows.
    public var threadID: String
    /// This session's run: keys of calls without an explicit idempotency key (request ids).
    public var sessionRunID: String
    /// The run that owns explicit `idempotency_key`s (shared by every session, so a key is used once).
    public var keyRunID: String
    /// Standing approval rules (config.json): a write a rule allows or denies is decided without
    /// asking the client; nil = every write is asked about.
    public var approvalRules: (any ApprovalRuleSource)? = nil

    public init(serverName: String, serverTitle: String, serverVersion: String, instructions: String, allowWrites: Bool,
                resources: [MCPResource], annotations: @escaping @Sendable (any Tool) -> MCPToolAnnotations,
                threadID: String = ConversationStore.mcpThreadID, sessionRunID: String, keyRunID: String = "mcp-idempotency-keys") {
        self.serverName = serverName
        self.serverTitle = serverTitle
        self.serverVersion = serverVersion
        self.instructions = instructions
        self.allowWrites = allowWrites
        self.resources = resources
        self.annotations = annotations
        self.threadID = threadID
        self.sessionRunID = sessionRunID
        self.keyRunID = keyRunID
    }
}

/// Serves one MCP session: reads frames until the input ends, answers requests (tool calls and
/// resource reads concurrently, so an elicitation answer can arrive while a write waits for it),
/// and returns once every call in flight has finished.
public final class MCPServer: Sendable {
    let configuration: MCPConfiguration
    let tools: ToolRegistry
    let ledger: WriteLedger
    let clock: any AgentClock
    let diagnostics: any DiagnosticsRecorder
    private let output: @Sendable (String) -> Void
    let log: @Sendable (String) -> Void

    struct State {
        var protocolVersion: String?
        var clientElicits = false
        var closed = false
        var sessionOpened = false
        /// Content from outside the person this session served to the client (packaged-food text,
        /// for one): while any stands, no allow rule writes without asking (issue 31).
        var untrusted: [UntrustedRead] = []
        var inFlight: [JSONValue: Task<Void, Never>] = [:]
        var cancelled: Set<JSONValue> = []
        var pending: [JSONValue: CheckedContinuation<JSONValue?, Never>] = [:]
        var nextOutgoing = 0
        var callSequence = 0
        /// 2026-07-28 approvals by `requestState`, and their order (the oldest are dropped first).
        var approvals: [String: PendingApproval] = [:]
        var approvalOrder: [String] = []
    }
    let state = Mutex(State())

    /// - Parameters:
    ///   - output: writes one message line (the caller adds the newline); must be safe to call from any task.
    ///   - log: one line for stderr.
    public init(configuration: MCPConfiguration, tools: ToolRegistry, store: ConversationStore, clock: any AgentClock,
                diagnostics: any DiagnosticsRecorder, output: @escaping @Sendable (String) -> Void,
                log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.configuration = configuration
        self.tools = tools
        self.ledger = WriteLedger(store: store, tools: tools)
        self.clock = clock
        self.diagnostics = diagnostics
        self.output = output
        self.log = log
    }

    /// Serves until `frames` ends (EOF), then waits for calls in flight and returns. A write waiting
    /// for the person's answer when the input ends writes nothing.
    public func serve(_ frames: some AsyncSequence<Frame, Never>) async {
        for await frame in frames {
            handle(frame)
        }
        let (waiting, tasks) = state.withLock { s -> ([CheckedContinuation<JSONValue?, Never>], [Task<Void, Never>]) in
            s.closed = true
            let w = Array(s.pending.values)
            s.pending = [:]
            return (w, Array(s.inFlight.values))
        }
        for c in waiting { c.resume(returning: nil) }
        for t in tasks { await t.value }
    }

    // MARK: - Dispatch

    /// Handles one frame; requests that may take time run in their own task.
    public func handle(_ frame: Frame) {
        switch frame {
        case .oversized(let size, let head, let tail):
            let id = RPC.idOfOversized(head: head, tail: tail)
            send(RPC.error(id: id, code: RPCErrorCode.invalidRequest,
                           message: "message too large (\(size) bytes); ofj mcp reads messages of at most \(LineFramer.defaultLimit / (1024 * 1024)) MiB"))
        case .line(let bytes):
            let message: IncomingMessage
            do {
                message = try IncomingMessage.parse(bytes)
            } catch {
                send(RPC.error(id: nil, code: RPCErrorCode.parseError, message: "parse error: \(error)"))
                return
            }
            dispatch(message)
        }
    }

    func dispatch(_ message: IncomingMessage) {
        switch message {
        case .invalid(let id, let reason):
            send(RPC.error(id: id, code: RPCErrorCode.invalidRequest, message: "invalid request: \(reason)"))
        case .response(let id, let result, let error):
            let waiter = state.withLock { $0.pending.removeValue(forKey: id) }
            waiter?.resume(returning: error == nil ? (result ?? .null) : nil)
        case .notification(let method, let params):
            notification(method, params: params)
        case .request(let id, let method, let params):
            request(id: id, method: method, params: params ?? .object([:]))
        }
    }

    private func notification(_ method: String, params: JSONValue?) {
        switch method {
        case "notifications/cancelled":
            guard let id = params?["requestId"], id.stringValue != nil || id.doubleValue != nil else { return }
            // The request's answer is not sent; a write already committing still commits (with its
            // ledger row), so a retry gets its result.
            let task = state.withLock { s -> Task<Void, Never>? in
                guard let t = s.inFlight[id] else { return nil }
                s.cancelled.insert(id)
                return t
            }
            task?.cancel()
        default:
            break // notifications/initialized and anything unknown need no answer
        }
    }

    private func request(id: JSONValue, method: String, params: JSONValue) {
        // A request with the 2026-07-28 envelope (and server/discover, which needs one) is served
        // statelessly; everything else is the 2025 revisions, as negotiated by initialize.
        if method == "server/discover" || Self.isModern(method: method, params: params) {
            modernRequest(id: id, method: method, params: params)
            return
        }
        switch method {
        case "initialize":
            send(RPC.result(id: id, initialize(params)))
        case "ping":
            send(RPC.result(id: id, .object([:])))
        case "tools/list":
            send(RPC.result(id: id, toolList()))
        case "resources/list":
            send(RPC.result(id: id, resourceList()))
        case "resources/templates/list":
            send(RPC.result(id: id, ["resourceTemplates": []]))
        case "tools/call", "resources/read":
            startCall(id: id, method: method, params: params)
        default:
            send(RPC.error(id: id, code: RPCErrorCode.methodNotFound, message: "method not found: \(String(method.prefix(60)))"))
        }
    }

    /// Runs a call in its own task, keyed by its request id (a duplicate id in flight is refused).
    func startCall(id: JSONValue, method: String, params: JSONValue, envelope: ModernEnvelope? = nil) {
        let duplicate = state.withLock { $0.inFlight[id] != nil }
        if duplicate {
            send(RPC.error(id: id, code: RPCErrorCode.invalidRequest, message: "request id \(id.serialized.prefix(40)) is already in use by a call in progress"))
            return
        }
        // The task waits until it is registered, so its end always finds its own entry.
        let (registered, go) = AsyncStream<Void>.makeStream()
        let task = Task { [self] in
            for await _ in registered { break }
            let reply: String?
            if method == "tools/call" {
                reply = await callTool(id: id, params: params, envelope: envelope)
            } else {
                reply = await readResource(id: id, params: params, envelope: envelope)
            }
            let dropped = state.withLock { s -> Bool in
                s.inFlight[id] = nil
                return s.cancelled.remove(id) != nil
            }
            if let reply, !dropped { send(reply) }
        }
        state.withLock { $0.inFlight[id] = task }
        go.yield()
        go.finish()
    }

    // MARK: - Lifecycle and lists

    func initialize(_ params: JSONValue) -> JSONValue {
        let asked = params["protocolVersion"]?.stringValue
        let version = asked.flatMap { MCPConfiguration.protocolVersions.contains($0) ? $0 : nil } ?? MCPConfiguration.protocolVersions[0]
        // Form elicitation: `{}` (2025-06-18, and 2025-11-25's form-only shorthand) or `{"form": {}}`;
        // a client that offers only URL mode cannot show the card.
        let elicitation = params["capabilities"]?["elicitation"]?.objectValue
        let elicits = elicitation.map { $0.isEmpty || $0["form"] != nil } ?? false
        state.withLock {
            $0.protocolVersion = version
            $0.clientElicits = elicits
        }
        let c = configuration
        return [
            "protocolVersion": .string(version),
            "capabilities": ["tools": ["listChanged": false], "resources": ["subscribe": false, "listChanged": false]],
            "serverInfo": ["name": .string(c.serverName), "title": .string(c.serverTitle), "version": .string(c.serverVersion)],
            "instructions": .string(c.instructions),
        ]
    }

    /// What the client negotiated, and whether it can show an elicitation.
    public var session: (protocolVersion: String?, clientElicits: Bool) {
        state.withLock { ($0.protocolVersion, $0.clientElicits) }
    }

    /// The argument every write tool accepts besides its own.
    static let idempotencyKeySchema: JSONValue = [
        "type": "string", "minLength": 1, "maxLength": 200,
        "description": "Optional. A key of your choosing for this change: a call repeated with the same key (even in another session) returns the first call's result and never writes twice.",
    ]

    func toolList() -> JSONValue {
        let list: [JSONValue] = tools.tools.map { tool in
            let a = configuration.annotations(tool)
            var schema = tool.parameters
            if tool.effect == .write, case .object(var o) = schema {
                var props = o["properties"]?.objectValue ?? [:]
                props["idempotency_key"] = Self.idempotencyKeySchema
                o["properties"] = .object(props)
                schema = .object(o)
            }
            return [
                "name": .string(tool.name),
                "description": .string(tool.description),
                "inputSchema": schema,
                "annotations": [
                    "readOnlyHint": .bool(a.readOnly), "destructiveHint": .bool(a.destructive),
                    "idempotentHint": .bool(a.idempotent), "openWorldHint": .bool(tool.timing != .localRead),
                ],
            ]
        }
        return ["tools": .array(list)]
    }

    func resourceList() -> JSONValue {
        let list: [JSONValue] = configuration.resources.map { r in
            ["uri": .string(r.uri), "name": .string(r.name), "title": .string(r.title), "description": .string(r.description),
             "mimeType": "application/json"]
        }
        return ["resources": .array(list)]
    }

    // MARK: - Output and server-to-client requests

    func send(_ line: String) { output(line) }

    /// Sends a request to the client and waits for its result; nil when it answered with an error,
    /// the input ended, or the calling task was cancelled.
    func ask(method: String, params: JSONValue) async -> JSONValue? {
        let id: JSONValue = state.withLock { s in
            s.nextOutgoing += 1
            return .string("ofj-\(s.nextOutgoing)")
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<JSONValue?, Never>) in
                let refused = state.withLock { s -> Bool in
                    if s.closed || Task.isCancelled { return true }
                    s.pending[id] = c
                    return false
                }
                if refused {
                    c.resume(returning: nil)
                } else {
                    send(RPC.request(id: id, method: method, params: params))
                }
            }
        } onCancel: {
            let (waiter, closed) = state.withLock { ($0.pending.removeValue(forKey: id), $0.closed) }
            guard let waiter else { return }
            waiter.resume(returning: nil)
            // Tell the client its question is moot (its answer would be ignored anyway).
            if !closed {
                send(JSONValue.object(["jsonrpc": "2.0", "method": "notifications/cancelled",
                                       "params": ["requestId": id, "reason": "the call was cancelled"]]).serialized)
            }
        }
    }
}
