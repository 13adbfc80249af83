// WriteLedger: the exactly-once write for frontends that are not a model run (ofj mcp).
import Testing
import SQLiteKit
import TestSupport
@testable import Agent

struct WriteLedgerTests {
    private func setUp() throws -> (DatabaseQueue, WriteLedger, AddEntryTool) {
        let queue = try openDatabase()
        let tool = AddEntryTool()
        let ledger = WriteLedger(store: ConversationStore(queue: queue), tools: ToolRegistry([tool]))
        try ledger.openSession(threadID: "mcp", threadTitle: "MCP", runID: "session-1", now: 10)
        try ledger.openSession(threadID: "mcp", threadTitle: "MCP", runID: "session-1", now: 20)
        return (queue, ledger, tool)
    }

    @Test func aKeyIsAppliedOnceAndThenAnsweredFromTheLedger() throws {
        let (queue, ledger, tool) = try setUp()
        let key = CallKey(runID: "session-1", turn: 1, callID: "request:7")
        let call = ToolCall(id: key.callID, name: tool.name, arguments: #"{"grams":50,"item":"oats"}"#)
        let context = ToolContext(threadID: "mcp", runID: key.runID, callID: key.callID, now: WallTime(secondsSince1970: 30))
        let planned = try queue.read { try tool.preview(arguments: ["item": "oats", "grams": 50], context: context, database: $0) }
        let first = try ledger.apply(planned, tool: tool, call: call, key: key, context: context, decision: .allowOnce, now: 30)
        let again = try ledger.apply(planned, tool: tool, call: call, key: key, context: context, decision: .allowOnce, now: 31)
        guard case .applied = first, case .replayed(let entry) = again else { Issue.record("expected applied, then replayed"); return }
        #expect(entry.output == first.output)
        #expect(entry.change == planned)
        #expect(tool.applyCount.count == 1)
        #expect(try count(queue, "SELECT COUNT(*) FROM test_entries") == 1)
        #expect(try ledger.entry(key)?.outcome == .committed)
        // The session's run is finished: it never blocks the thread nor gets recovered.
        #expect(try ConversationStore(queue: queue).run("session-1")?.phase == .completed)
    }

    @Test func aFailedApplyRollsBackAndAnUnwrittenOutcomeIsKept() throws {
        let (queue, ledger, _) = try setUp()
        var failing = AddEntryTool()
        failing.failApply = true
        let key = CallKey(runID: "session-1", turn: 1, callID: "request:8")
        let call = ToolCall(id: key.callID, name: failing.name, arguments: "{}")
        let context = ToolContext(threadID: "mcp", runID: key.runID, callID: key.callID, now: WallTime(secondsSince1970: 30))
        let planned = PlannedChange(card: "add", change: ["item": "x", "grams": 1])
        #expect(throws: AddEntryTool.ApplyFailed.self) {
            try ledger.apply(planned, tool: failing, call: call, key: key, context: context, decision: .allowOnce, now: 30)
        }
        #expect(try ledger.entry(key) == nil)
        let denied = try ledger.recordUnwritten(key: key, call: call, outcome: .denied, decision: .deny, output: ToolOutput(content: "{}", summary: "declined"),
                                                change: planned, now: 31)
        guard case .applied = denied else { Issue.record("expected the denial to be stored"); return }
        let second = try ledger.recordUnwritten(key: key, call: call, outcome: .failed, decision: nil, output: .error("x"), change: nil, now: 32)
        guard case .replayed(let entry) = second else { Issue.record("a recorded key keeps its entry"); return }
        #expect(entry.outcome == .denied)
        #expect(try count(queue, "SELECT COUNT(*) FROM test_entries") == 0)
    }
}
