// Issue 31 §5: the ledger of writes that are not a model run's (`ofj mcp`'s idempotency keys)
// promises "at most once, ever", so nothing cascades into it: deleting its thread forgets no key,
// and the migration moves rows kept under the old, cascading table.
import Base
import Testing
import SQLiteKit
@testable import Agent

@Suite struct DurableLedgerTests {
    static let key = CallKey(runID: "mcp-idempotency-keys", turn: 0, callID: "key-1")
    static let call = ToolCall(id: "key-1", name: "add_entry", arguments: #"{"item":"tea","grams":10}"#)

    @Test func aKeySurvivesDeletingItsThreadAndIsNeverWrittenTwice() throws {
        let queue = try openDatabase()
        let store = ConversationStore(queue: queue)
        let tool = AddEntryTool()
        let ledger = WriteLedger(store: store, tools: ToolRegistry([tool]))
        try ledger.openSession(threadID: ConversationStore.mcpThreadID, threadTitle: "MCP clients (ofj mcp)", runID: Self.key.runID, now: 1)
        let context = ToolContext(threadID: ConversationStore.mcpThreadID, runID: Self.key.runID, callID: "key-1", now: WallTime(secondsSince1970: 1))
        let planned = try queue.read { try tool.preview(arguments: ["item": "tea", "grams": 10], context: context, database: $0) }
        guard case .applied = try ledger.apply(planned, tool: tool, call: Self.call, key: Self.key, context: context, decision: .allowOnce, now: 1) else {
            Issue.record("first apply did not write"); return
        }
        try store.deleteThread(ConversationStore.mcpThreadID)
        #expect(try count(queue, "SELECT count(*) FROM agent_runs") == 0)
        // The session opens again (a new `ofj mcp`); the same key is a replay, not a second write.
        try ledger.openSession(threadID: ConversationStore.mcpThreadID, threadTitle: "MCP clients (ofj mcp)", runID: Self.key.runID, now: 2)
        #expect(try ledger.entry(Self.key)?.outcome == .committed)
        guard case .replayed = try ledger.apply(planned, tool: tool, call: Self.call, key: Self.key, context: context, decision: .allowOnce, now: 2) else {
            Issue.record("a retried key wrote again"); return
        }
        #expect(try count(queue, "SELECT count(*) FROM test_entries") == 1)
        #expect(try ledger.recordedArguments(Self.key) == Self.call.arguments)
    }

    @Test func theMigrationMovesTheMCPThreadsRowsAndLeavesRunsRows() throws {
        var full = Migrator()
        ConversationStore.registerMigrations(into: &full)
        var before = Migrator()
        for m in full.migrations.prefix(while: { $0.identifier != "agent-8-durable-ledger" }) { before.register(m.identifier, m.migrate) }
        #expect(before.migrations.count == full.migrations.firstIndex { $0.identifier == "agent-8-durable-ledger" })
        let queue = try DatabaseQueue(path: ":memory:")
        try queue.migrate(before)
        try queue.write { db in
            for (thread, run) in [("mcp", "mcp-idempotency-keys"), ("t1", "run-1")] {
                try db.execute("INSERT INTO agent_threads (id, created_at, updated_at) VALUES (?, 0, 0)", [thread])
                try db.execute("INSERT INTO agent_runs (id, thread_id, phase, created_at, phase_changed_at) VALUES (?, ?, 'completed', 0, 0)", [run, thread])
                try db.execute("""
                    INSERT INTO agent_ledger (run_id, turn, call_id, tool_name, arguments, outcome, result, summary, recorded_at)
                    VALUES (?, 0, 'c', 'log_food', '{}', 'committed', '{}', 'logged', 0)
                    """, [run])
            }
        }
        try queue.migrate(full)
        #expect(try count(queue, "SELECT count(*) FROM agent_durable_ledger WHERE run_id = 'mcp-idempotency-keys'") == 1)
        #expect(try count(queue, "SELECT count(*) FROM agent_ledger WHERE run_id = 'mcp-idempotency-keys'") == 0)
        #expect(try count(queue, "SELECT count(*) FROM agent_ledger WHERE run_id = 'run-1'") == 1)
    }
}
