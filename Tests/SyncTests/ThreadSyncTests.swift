// Conversations sync with `sync.threads`: messages with their parts (in order, searchable),
// `/retry` supersession and research sources; a deleted thread goes with its messages.
@testable import Agent
import Foundation
import Research
import SQLiteKit
import TestSupport
import Testing
@testable import Sync

extension Machine {
    var threads: ConversationStore { ConversationStore(queue: queue) }

    @discardableResult
    func say(_ thread: String, _ role: Role, _ parts: [MessagePart], at: Double, run: String? = nil) throws -> Int64 {
        try queue.write { db in
            try ConversationStore.ensureThread(db, id: thread, now: at)
            return try ConversationStore.insertMessage(db, threadID: thread, runID: run, role: role, turn: run == nil ? nil : 1,
                                                       state: .complete, parts: parts, now: at)
        }
    }

    /// A thread's transcript without local row numbers: equal on every machine that has it.
    func conversation(_ thread: String) throws -> [String] {
        try threads.transcript(threadID: thread).map { "\($0.seq) \($0.message.role) \($0.runID ?? "-") \($0.createdAt) \($0.message.parts)" }
    }
}

@Suite(.serialized) struct ThreadSyncTests {
    @Test func aConversationArrivesWholeInOrderAndSearchable() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url), b = try Machine(url: server.url)
        try a.say("t1", .user, [.text("How much fibre is in lentils?")], at: 100)
        try a.say("t1", .assistant, [.continuation(ContinuationItem(provider: "p", kind: "reasoning", payload: "{\"x\":1}")),
                                     .toolCall(ToolCall(id: "c1", name: "search_foods", arguments: "{\"q\":\"lentils\"}"))], at: 101, run: "r1")
        try a.say("t1", .tool, [.toolResult(ToolResult(callID: "c1", name: "search_foods", content: "lentils: 8 g fibre", isError: false))], at: 102, run: "r1")
        let answer = try a.say("t1", .assistant, [.text("Cooked lentils have about 8 g of fibre per 100 g.")], at: 103, run: "r1")
        try a.threads.renameThread("t1", title: "Pulses")
        try SourceStore(queue: a.queue).record(threadID: "t1", kind: "page", url: "https://example.org/lentils", title: "Lentils",
                                               text: "Lentils are legumes.", fetchedAt: 104)
        try await a.sync()
        let pulled = try await b.sync()
        #expect(pulled.skipped == 0)
        #expect(try b.conversation("t1") == a.conversation("t1"))
        #expect(try b.conversation("t1").count == 4)
        #expect(try b.threads.thread("t1")?.title == "Pulses")
        #expect(try b.threads.searchThreads("fibre").map(\.id) == ["t1"])
        let hits = try b.threads.searchThreads(matching: try #require(FullTextQuery("cooked lentils")))
        #expect(hits.map(\.kind) == [.message] && hits.first?.detail == "assistant")
        let sources = try SourceStore(queue: b.queue).sources(threadID: "t1")
        #expect(sources.map(\.url) == ["https://example.org/lentils"] && sources.first?.text == "Lentils are legumes.")

        // A streamed answer that grows, and a `/retry` that supersedes it, travel as edits.
        try a.queue.write { db in
            try ConversationStore.updateTextPart(db, messageID: answer, ordinal: 0, text: "Cooked lentils have about 8 g of fibre; beans more.")
        }
        try await a.sync()
        try await b.sync()
        #expect(try b.conversation("t1") == a.conversation("t1"))
        #expect(try b.threads.searchThreads("beans").map(\.id) == ["t1"])
        try a.queue.write { try $0.execute("INSERT INTO agent_superseded_messages (message_id, by_run_id, superseded_at) VALUES (?, 'r2', 105)", [answer]) }
        try await a.sync()
        try await b.sync()
        #expect(try b.conversation("t1").count == 3)
        #expect(try b.threads.supersededAnswers(threadID: "t1").count == 1)
        // Search leaves superseded answers out, as on the machine that wrote them.
        let beans = try #require(FullTextQuery("beans"))
        #expect(try a.threads.searchThreads(matching: beans).isEmpty && b.threads.searchThreads(matching: beans).isEmpty)
        #expect(try b.count("sync_pending") == 0)
        await server.shutdown()
    }

    @Test func aThreadDeletedOnOneMachineGoesWithItsMessagesEverywhere() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url), b = try Machine(url: server.url)
        try a.say("t1", .user, [.text("Plan a picnic")], at: 100)
        try a.say("t1", .assistant, [.text("Sandwiches and apples.")], at: 101)
        try a.say("t2", .user, [.text("Other thread")], at: 102)
        try await a.sync()
        try await b.sync()
        #expect(try b.count("agent_messages") == 3)
        try a.threads.deleteThread("t1")
        try await a.sync()
        try await b.sync()
        #expect(try b.threads.thread("t1") == nil)
        #expect(try b.conversation("t1").isEmpty)
        #expect(try b.count("agent_messages") == 1 && b.count("agent_message_parts") == 1)
        #expect(try b.threads.searchThreads("sandwiches").isEmpty)
        #expect(try b.count("agent_messages_fts") == 1)
        #expect(try b.conversation("t2") == a.conversation("t2"))
        await server.shutdown()
    }

    /// Issue 31 §5: deleting the MCP clients' thread on one machine is refused where it is pulled
    /// (quarantined with its reason, never applied), and the MCP ledger survives the deletion on both machines.
    @Test func aPulledDeletionOfTheMCPThreadIsRefusedAndTheLedgerSurvives() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url), b = try Machine(url: server.url)
        let key = CallKey(runID: "mcp-idempotency-keys", turn: 0, callID: "key-1")
        for m in [a, b] {
            let ledger = WriteLedger(store: m.threads, tools: ToolRegistry([]))
            try ledger.openSession(threadID: ConversationStore.mcpThreadID, threadTitle: "MCP clients (ofj mcp)", runID: key.runID, now: 100)
            _ = try ledger.recordUnwritten(key: key, call: ToolCall(id: "key-1", name: "log_food", arguments: "{}"), outcome: .denied, decision: .deny,
                                           output: ToolOutput(content: "{}", summary: "declined"), change: nil, now: 100)
        }
        try await a.sync()
        try await b.sync()
        try a.threads.deleteThread(ConversationStore.mcpThreadID)
        #expect(try WriteLedger(store: a.threads, tools: ToolRegistry([])).entry(key) != nil)
        try await a.sync()
        let pulled = try await b.sync()
        #expect(pulled.quarantined >= 1)
        #expect(try b.count("sync_quarantine") >= 1)
        #expect(try b.threads.thread(ConversationStore.mcpThreadID) != nil)
        #expect(try WriteLedger(store: b.threads, tools: ToolRegistry([])).entry(key)?.outcome == .denied)
        await server.shutdown()
    }

    @Test func aPulledThreadDeletionWaitsForTheAnswerRunningHere() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url), b = try Machine(url: server.url)
        try a.say("t1", .user, [.text("Plan a picnic")], at: 100)
        try await a.sync()
        try await b.sync()
        try b.queue.write { db in
            try db.execute("INSERT INTO agent_runs (id, thread_id, phase, created_at, phase_changed_at) VALUES ('rb', 't1', 'waiting_for_provider', 1, 1)")
        }
        try a.threads.deleteThread("t1")
        try await a.sync()
        let report = await b.engine.run()
        #expect(report.error?.contains("answering here") == true && report.retryable)
        #expect(try b.threads.thread("t1") != nil && b.count("agent_messages") == 1)
        try b.queue.write { try $0.execute("UPDATE agent_runs SET phase = 'completed' WHERE id = 'rb'") }
        try await b.sync()
        #expect(try b.threads.thread("t1") == nil && b.count("agent_messages") == 0)
        await server.shutdown()
    }

    @Test func twoMachinesWritingOneThreadKeepEveryMessageOnce() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url), b = try Machine(url: server.url)
        try a.say("t1", .user, [.text("first")], at: 100)
        try await a.sync()
        try await b.sync()
        // Both add a second message offline: both want seq 2.
        try a.say("t1", .user, [.text("from a")], at: 200)
        try b.say("t1", .user, [.text("from b")], at: 201)
        try await a.sync()
        try await b.sync()
        try await a.sync()
        for m in [a, b] {
            let texts = try m.threads.transcript(threadID: "t1").map { "\($0.message.parts)" }
            #expect(texts.count == 3)
            #expect(Set(texts).count == 3)
            #expect(texts.first == "\([MessagePart.text("first")])")
        }
        #expect(try a.count("sync_pending") == 0 && b.count("sync_pending") == 0)
        await server.shutdown()
    }

    @Test func conversationsWrittenBeforeSyncExistedAreSent() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url) { queue in
            try queue.write { db in
                try ConversationStore.ensureThread(db, id: "old", now: 50)
                try ConversationStore.insertMessage(db, threadID: "old", runID: nil, role: .user, turn: nil, state: .complete,
                                                    parts: [.text("an old question about quinoa")], now: 50)
            }
            try SourceStore(queue: queue).record(threadID: "old", kind: "page", url: "https://example.org/q", title: "Q", text: "q", fetchedAt: 51)
        }
        let b = try Machine(url: server.url)
        #expect(try a.queue.read { try $0.scalar("SELECT count(*) FROM agent_messages WHERE sync_id IS NULL").int } == 0)
        #expect(try a.local.status().pending == 3) // the thread, its message, its source
        try await a.sync()
        try await b.sync()
        #expect(try b.conversation("old") == a.conversation("old"))
        #expect(try b.threads.searchThreads("quinoa").map(\.id) == ["old"])
        #expect(try b.count("research_sources") == 1)
        await server.shutdown()
    }

    @Test func conversationsStayLocalWhenThreadsAreOff() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url, threads: false), b = try Machine(url: server.url)
        try a.say("t1", .user, [.text("private question")], at: 100)
        try SourceStore(queue: a.queue).record(threadID: "t1", kind: "page", url: "https://example.org/x", title: "X", text: "x", fetchedAt: 101)
        try a.log("toast", kcal: 120)
        #expect(try a.local.status(threads: false).pending == 1)
        #expect(try await a.sync().pushed == 1)
        try await b.sync()
        #expect(try b.count("agent_messages") == 0 && b.count("research_sources") == 0 && b.count("journal_entries") == 1)
        #expect(try remoteRows(server.dbPath, "SELECT count(*) FROM ofj_sync_rows WHERE kind IN ('thread', 'message', 'source')").first?[0].int == 0)
        await server.shutdown()
    }
}
