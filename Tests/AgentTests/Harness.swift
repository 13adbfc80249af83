// Test harness: a migrated database, virtual clock, scripted model and gate, test tools, a runner.
import Base
import Foundation
import Synchronization
import Testing
import SQLiteKit
import TestSupport
@testable import Agent

/// Opens (and migrates) the agent tables plus a tiny journal-like table for the test write tool.
func openDatabase(_ path: String = ":memory:", busyTimeoutMilliseconds: Int32 = 5_000) throws -> DatabaseQueue {
    let queue = try DatabaseQueue(path: path, options: Database.Options(busyTimeoutMilliseconds: busyTimeoutMilliseconds))
    var migrator = Migrator()
    ConversationStore.registerMigrations(into: &migrator)
    migrator.register("test-1-entries", sql: "CREATE TABLE test_entries (id INTEGER PRIMARY KEY, item TEXT NOT NULL, grams REAL NOT NULL, call_id TEXT)")
    try queue.migrate(migrator)
    return queue
}

func count(_ queue: DatabaseQueue, _ sql: String, _ args: [DatabaseValueConvertible] = []) throws -> Int {
    try queue.read { try $0.scalar(sql, args).int ?? -1 }
}

/// Collects diagnostics for assertions.
final class RecordingDiagnostics: DiagnosticsRecorder {
    private let box = Mutex<[AgentDiagnostic]>([])
    func record(_ event: AgentDiagnostic) { box.withLock { $0.append(event) } }
    var events: [AgentDiagnostic] { box.withLock { $0 } }
}

/// A shared ordered log tools write to (to check ordering and concurrency).
final class ActivityLog: Sendable {
    private struct State { var lines: [String] = []; var running = 0; var maxRunning = 0 }
    private let state = Mutex(State())
    func append(_ line: String) { state.withLock { $0.lines.append(line) } }
    var lines: [String] { state.withLock { $0.lines } }
    func enter(_ name: String) { state.withLock { $0.running += 1; $0.maxRunning = max($0.maxRunning, $0.running); $0.lines.append("start \(name)") } }
    func leave(_ name: String) { state.withLock { $0.running -= 1; $0.lines.append("end \(name)") } }
    var maxRunning: Int { state.withLock { $0.maxRunning } }
    var running: Int { state.withLock { $0.running } }
}

/// A read tool whose first use sets up for `setUpSeconds` of virtual time (in `prepare`), then
/// answers `{"prepared": true}` once set up.
final class PreparingTool: Tool {
    let name = "prepared"
    let description = "Answers once set up."
    let parameters: JSONValue = ["type": "object", "properties": [:], "additionalProperties": false]
    var effect: ToolEffect { .read }
    let clock: VirtualClock
    let setUpSeconds: Double
    let setUps = Mutex(0)

    init(clock: VirtualClock, setUpSeconds: Double) {
        self.clock = clock
        self.setUpSeconds = setUpSeconds
    }

    func activity(arguments: JSONValue) -> String { "answering" }

    func prepare() async {
        guard setUps.withLock({ $0 }) == 0 else { return }
        try? await clock.sleep(seconds: setUpSeconds)
        setUps.withLock { $0 += 1 }
    }

    func execute(arguments: JSONValue, context: ToolContext) async throws -> ToolOutput {
        ToolOutput(content: #"{"prepared":\#(setUps.withLock { $0 } > 0)}"#, summary: "answered")
    }
}

/// A read tool: answers `{"found": query}`; can take virtual time, real time, or stall until cancelled.
struct LookupTool: Tool {
    var name = "lookup"
    var description = "Looks something up."
    var parameters: JSONValue = [
        "type": "object",
        "properties": ["query": ["type": "string"], "limit": ["type": "integer", "minimum": 1, "maximum": 50]],
        "required": ["query"],
        "additionalProperties": false,
    ]
    var effect: ToolEffect { .read }
    var log: ActivityLog? = nil
    var clock: (any AgentClock)? = nil
    var virtualSeconds: Double = 0
    var realMilliseconds: Int = 0
    var stall = false
    /// Stays running until this many lookups run at once (or 3 s pass), so overlap does not
    /// depend on how busy the machine is.
    var waitForPeers = 0
    var resultSize = 0

    func activity(arguments: JSONValue) -> String { "looking up \(arguments["query"]?.stringValue ?? "?")" }

    func execute(arguments: JSONValue, context: ToolContext) async throws -> ToolOutput {
        let q = arguments["query"]?.stringValue ?? ""
        log?.enter(q)
        defer { log?.leave(q) }
        if let clock, virtualSeconds > 0 { try await clock.sleep(seconds: virtualSeconds) }
        if realMilliseconds > 0 { try await Task.sleep(for: .milliseconds(realMilliseconds)) }
        if let log, waitForPeers > 0 {
            let until = ContinuousClock.now + .seconds(3)
            while log.running < waitForPeers && ContinuousClock.now < until { try await Task.sleep(for: .milliseconds(2)) }
            try await Task.sleep(for: .milliseconds(30)) // room for any call beyond the limit to start (and be caught)
        }
        if stall { try await Task.sleep(for: .seconds(3600)) }
        let content = resultSize > 0 ? String(repeating: "x", count: resultSize) : JSONValue.object(["found": .string(q)]).serialized
        return ToolOutput(content: content, summary: "found \(q)")
    }
}

/// Suspends callers (ignoring cancellation, without spinning) until `open()` is called.
final class Latch: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    func wait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { s -> Bool in
                if s.open { return true }
                s.waiters.append(c)
                return false
            }
            if resumeNow { c.resume() }
        }
    }
    func open() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.open = true
            defer { s.waiters = [] }
            return s.waiters
        }
        waiters.forEach { $0.resume() }
    }
}

final class Counter: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

final class FailingCounter: Sendable {
    let remaining: Mutex<Int>
    init(_ n: Int) { remaining = Mutex(n) }
    func shouldFail() -> Bool { remaining.withLock { n in if n > 0 { n -= 1; return true }; return false } }
}

/// A read tool that throws a plain error the first `failures` times.
struct FlakyTool: Tool {
    var name = "flaky"
    var description = "Sometimes fails."
    var parameters: JSONValue = ["type": "object"]
    var effect: ToolEffect { .read }
    let counter: FailingCounter
    struct Boom: Error {}
    func activity(arguments: JSONValue) -> String { "trying" }
    func execute(arguments: JSONValue, context: ToolContext) async throws -> ToolOutput {
        if counter.shouldFail() { throw Boom() }
        return ToolOutput(content: "{\"ok\":true}", summary: "ok")
    }
}

/// The test write tool: inserts one row into `test_entries` inside the ledger transaction.
struct AddEntryTool: WriteTool {
    var name = "add_entry"
    var description = "Adds an entry."
    var parameters: JSONValue = [
        "type": "object",
        "properties": ["item": ["type": "string"], "grams": ["type": "number", "minimum": 0]],
        "required": ["item", "grams"],
        "additionalProperties": false,
    ]
    var log: ActivityLog? = nil
    var failApply = false
    let applyCount = Counter()

    func activity(arguments: JSONValue) -> String { "adding \(arguments["item"]?.stringValue ?? "?")" }

    func preview(arguments: JSONValue, context: ToolContext, database: Database) throws -> PlannedChange {
        let item = arguments["item"]?.stringValue ?? ""
        if item == "unknown-food" { throw ToolArgumentError(field: "item", "no food called unknown-food") }
        return PlannedChange(card: "add \(JSONValue.format(arguments["grams"]?.doubleValue ?? 0)) g of \(item)", change: arguments)
    }

    struct ApplyFailed: Error {}

    func apply(_ change: PlannedChange, context: ToolContext, database: Database) throws -> ToolOutput {
        let arguments = change.change
        applyCount.increment()
        log?.append("write \(arguments["item"]?.stringValue ?? "")")
        if failApply { throw ApplyFailed() }
        try database.execute("INSERT INTO test_entries (item, grams, call_id) VALUES (?, ?, ?)",
                             [arguments["item"]?.stringValue ?? "", arguments["grams"]?.doubleValue ?? 0, context.callID])
        return ToolOutput(content: JSONValue.object(["id": .number(Double(database.lastInsertRowID))]).serialized, summary: "added 1 entry")
    }
}

/// A gate that waits until the test says, or until cancelled (then denies).
final class ManualApprovalGate: ApprovalGate {
    private let state = Mutex<(asked: Int, answer: ApprovalDecision?)>((0, nil))
    func decide(_ request: ApprovalRequest) async -> ApprovalDecision {
        state.withLock { $0.asked += 1 }
        while !Task.isCancelled {
            if let a = state.withLock({ $0.answer }) { return a }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return .deny
    }
    func answer(_ d: ApprovalDecision) { state.withLock { $0.answer = d } }
    var asked: Int { state.withLock { $0.asked } }
}

final class EventBox: Sendable {
    private let box = Mutex<[AgentEvent]>([])
    func append(_ e: AgentEvent) { box.withLock { $0.append(e) } }
    var all: [AgentEvent] { box.withLock { $0 } }
}

/// Everything one test needs.
final class Harness: Sendable {
    let queue: DatabaseQueue
    let store: ConversationStore
    let clock: VirtualClock
    let model: ScriptedChatModel
    let runner: AgentRunner
    let diagnostics = RecordingDiagnostics()
    private let collected = EventBox()
    private let collector: Task<Void, Never>

    init(queue: DatabaseQueue? = nil, model: ScriptedChatModel? = nil, clock: VirtualClock = VirtualClock(), tools: [any Tool] = [LookupTool(), AddEntryTool()],
         gate: any ApprovalGate = ScriptedApprovalGate(fallback: .allowOnce), policy: DeadlinePolicy = .fast, maxTurns: Int = 8,
         faults: (any FaultInjector)? = nil, ids: any IDSource = CountingIDSource(prefix: "run-"), assembler: any RequestAssembler = FullTranscriptAssembler(),
         rules: (any ApprovalRuleSource)? = nil, contextNote: (@Sendable () -> String)? = nil) throws {
        self.queue = try queue ?? openDatabase()
        self.store = ConversationStore(queue: self.queue)
        self.clock = clock
        self.model = model ?? ScriptedChatModel(clock: clock)
        var configuration = AgentConfiguration(systemPrompt: "You are a test assistant.", policy: policy, maxTurnsPerMessage: maxTurns, jitter: { 0.5 })
        configuration.approvalRules = rules
        if let contextNote { configuration.contextNote = contextNote }
        self.runner = AgentRunner(store: store, model: self.model, tools: ToolRegistry(tools), approvals: gate, clock: clock, ids: ids,
                                  diagnostics: diagnostics,
                                  configuration: configuration,
                                  assembler: assembler, faults: faults)
        let events = runner.events
        let box = collected
        collector = Task { for await e in events { box.append(e) } }
    }

    deinit { collector.cancel() }

    /// Submits and waits for the run to end.
    func ask(_ text: String, thread: String = "t1") async throws -> (RunHandle, RunOutcome) {
        let handle = try runner.submit(threadID: thread, text: text)
        let outcome = try #require(await runner.outcome(of: handle.runID))
        return (handle, outcome)
    }

    var events: [AgentEvent] { collected.all }

    /// Waits (real time, up to 20 s: the machine may be busy) until an event matching `predicate` has been seen.
    @discardableResult
    func waitFor(_ what: String = "event", _ predicate: (AgentEvent) -> Bool) async throws -> AgentEvent {
        for _ in 0..<10_000 {
            if let e = events.first(where: predicate) { return e }
            try await Task.sleep(for: .milliseconds(2))
        }
        Issue.record("timed out waiting for \(what)")
        throw CancellationError()
    }

    /// Events of one run, once its `finished` event has been collected.
    func events(of runID: String) async throws -> [AgentEvent] {
        try await waitFor("finished") { if case .finished = $0.kind { return $0.runID == runID } else { return false } }
        return events.filter { $0.runID == runID }
    }

    func entries() throws -> Int { try count(queue, "SELECT COUNT(*) FROM test_entries") }
    func ledgerRows(_ outcome: String = "committed") throws -> Int { try count(queue, "SELECT COUNT(*) FROM agent_ledger WHERE outcome = ?", [outcome]) }
}

/// Every tool result in every request answers an earlier call, and every call has one result.
func expectWellFormed(_ requests: [ChatRequest], sourceLocation: SourceLocation = #_sourceLocation) {
    for (i, r) in requests.enumerated() {
        let problems = RequestNormalizer.violations(r.messages)
        #expect(problems.isEmpty, "request \(i): \(problems)", sourceLocation: sourceLocation)
    }
}

extension ChatRequest {
    /// Results the request carries, by call id.
    var results: [String: ToolResult] {
        var out: [String: ToolResult] = [:]
        for m in messages { for r in m.toolResults { out[r.callID] = r } }
        return out
    }
}
