// Threads, transcripts and indexes of the conversation store.
import Foundation
import Testing
import SQLiteKit
import TestSupport
@testable import Agent

@Suite struct ConversationStoreTests {
    @Test func migrationsArePrefixedAndIdempotent() throws {
        var migrator = Migrator()
        ConversationStore.registerMigrations(into: &migrator)
        #expect(!migrator.migrations.isEmpty)
        // Each branch prefixes its migrations with its name ("fts-" full-text index, "rules-" approval rule column, "attach-" attachments,
        // "sync3-" the flag for attachments whose bytes are on another machine).
        let owned = ["agent-", "fts-", "rules-", "attach-", "sync3-"]
        #expect(migrator.migrations.allSatisfy { m in owned.contains { m.identifier.hasPrefix($0) } })
        let queue = try DatabaseQueue.inMemory()
        try queue.migrate(migrator)
        try queue.migrate(migrator)
        #expect(try count(queue, "SELECT COUNT(*) FROM schema_migrations WHERE identifier LIKE 'agent-%' OR identifier LIKE 'fts-%' OR identifier LIKE 'rules-%' OR identifier LIKE 'attach-%' OR identifier LIKE 'sync3-%'")
                == migrator.migrations.count)
    }

    /// A value the schema rules out (edited by hand, damaged) is an error naming its column; it
    /// used to read as 0, "" or `.failed`.
    @Test func aBadStoredValueIsAnErrorNamingItsColumnNotADefault() async throws {
        let h = try Harness()
        h.model.enqueue(.text("hi", usage: Usage(inputTokens: 10, cachedInputTokens: 0, outputTokens: 2, reasoningTokens: 0)))
        let runID = try await h.ask("hello").0.runID
        #expect(try h.store.run(runID)?.phase == .completed)
        try h.queue.write { db in try db.execute("UPDATE agent_runs SET turns_used = 'many' WHERE id = ?", [runID]) }
        #expect(throws: RowDecodingError(column: "turns_used", expected: "an integer", found: "text")) { try h.store.run(runID) }
        try h.queue.write { db in
            try db.execute("UPDATE agent_runs SET turns_used = 1 WHERE id = ?", [runID])
        }
        #expect(try h.store.run(runID)?.turnsUsed == 1)
        #expect(try h.store.usage(threadID: "t1").count == 1)
        try h.queue.write { db in try db.execute("UPDATE agent_usage SET input_tokens = 'lots' WHERE run_id = ?", [runID]) }
        #expect(throws: RowDecodingError(column: "input_tokens", expected: "an integer", found: "text")) { try h.store.usage(threadID: "t1") }
        // A thread without a title yet is "New thread": there NULL means the default.
        try h.queue.write { db in try db.execute("UPDATE agent_threads SET title = NULL WHERE id = 't1'") }
        #expect(try h.store.thread("t1")?.title == "New thread")
    }

    /// What other modules read (replayed transcripts' `inspect:` steps), in the order written.
    @Test func theReadersForOtherModulesListRowsInTheOrderWritten() async throws {
        let h = try Harness()
        h.model.enqueue(.text("one", usage: Usage(inputTokens: 3, cachedInputTokens: 1, outputTokens: 2, reasoningTokens: 0)),
                        .text("two", usage: Usage(inputTokens: 5, cachedInputTokens: 0, outputTokens: 4, reasoningTokens: 1)))
        let first = try await h.ask("hello").0.runID
        let second = try await h.ask("again", thread: "t2").0.runID
        try h.queue.write { db in try ConversationStore.ensureThread(db, id: "t3", now: 4e9) } // after the virtual clock
        let threads = try h.queue.read { try ConversationStore.threadsInCreationOrder($0) }
        #expect(threads.map(\.id) == ["t1", "t2", "t3"])
        #expect(threads.last?.title == nil && threads.first?.title != nil) // an untitled thread stays nil here
        let runs = try h.queue.read { try ConversationStore.runsInCreationOrder($0) }
        #expect(runs.map(\.id) == [first, second] && runs.allSatisfy { $0.phase == .completed })
        let usage = try h.queue.read { try ConversationStore.usageInWriteOrder($0) }
        #expect(usage.map(\.usage.inputTokens) == [3, 5] && usage.map(\.runID) == [first, second])
        #expect(try h.queue.read { try ConversationStore.ledgerInWriteOrder($0) }.isEmpty)
    }

    @Test func lastUserTextReadsOnlyTheEndOfTheThread() async throws {
        // /retry used to load the whole transcript to find this; now one indexed query.
        let h = try Harness()
        #expect(try h.store.lastUserText(threadID: "t") == nil)
        try h.queue.write { db in
            try ConversationStore.ensureThread(db, id: "t", now: 0)
            for i in 0..<2_000 {
                try ConversationStore.insertMessage(db, threadID: "t", runID: nil, role: .user, turn: nil, state: .complete,
                                                    parts: [.text("question \(i)")], now: 0)
                try ConversationStore.insertMessage(db, threadID: "t", runID: nil, role: .assistant, turn: 1, state: .complete,
                                                    parts: [.text("answer \(i)")], now: 0)
            }
            // A user message with no text (only an empty part) is skipped; parts join in order.
            try ConversationStore.insertMessage(db, threadID: "t", runID: nil, role: .user, turn: nil, state: .complete,
                                                parts: [.text("first half, "), .text("second half")], now: 0)
            try ConversationStore.insertMessage(db, threadID: "t", runID: nil, role: .user, turn: nil, state: .complete,
                                                parts: [.text("")], now: 0)
        }
        #expect(try h.store.lastUserText(threadID: "t") == "first half, second half")
        #expect(try h.store.lastUserText(threadID: "other") == nil)
    }

    @Test func threadsAutoTitleListSearchRenameDelete() async throws {
        let h = try Harness()
        h.model.enqueue(.text("Noted."), .text("Second."), .text("Third."))
        _ = try await h.ask("How much protein is in 100% whole_wheat bread?\nAnd more lines", thread: "a")
        h.clock.advance(by: 10)
        _ = try await h.ask("A completely different question about something else that goes on and on beyond sixty characters", thread: "b")
        h.clock.advance(by: 10)
        _ = try await h.ask("follow-up", thread: "a")

        let a = try #require(try h.store.thread("a"))
        #expect(a.title == "How much protein is in 100% whole_wheat bread?")
        let b = try #require(try h.store.thread("b"))
        #expect(b.title.count == 60 && b.title.hasSuffix("…"))
        #expect(a.provider == "scripted" && a.model == "scripted-1")

        #expect(try h.store.listThreads().map(\.id) == ["a", "b"]) // "a" updated last
        #expect(try h.store.searchThreads("PROTEIN").map(\.id) == ["a"])
        #expect(try h.store.searchThreads("100%").map(\.id) == ["a"])
        // Full-text search: punctuation separates words and FTS5 syntax is searched as text.
        #expect(try h.store.searchThreads("100_").map(\.id) == ["a"])
        #expect(try h.store.searchThreads("whole_wheat").map(\.id) == ["a"])
        #expect(try h.store.searchThreads("prot* OR (\"bread:").map(\.id).isEmpty) // "or" is a word here, and no message has it
        #expect(try h.store.searchThreads("\"*:^()").isEmpty)
        #expect(try h.store.searchThreads("wheat bre").map(\.id) == ["a"]) // every word, as the start of a word
        #expect(try h.store.searchThreads("second.").map(\.id) == ["b"]) // assistant text is searched too
        #expect(try h.store.searchThreads("nothing like this").isEmpty)

        try h.store.renameThread("a", title: "Bread\nprotein")
        #expect(try h.store.thread("a")?.title == "Bread protein")
        _ = try await h.ask("another", thread: "a")
        #expect(try h.store.thread("a")?.title == "Bread protein") // a custom title stays

        #expect(try h.store.messageCount(threadID: "a") > 0)
        try h.store.deleteThread("a")
        #expect(try h.store.thread("a") == nil)
        #expect(try count(h.queue, "SELECT COUNT(*) FROM agent_messages WHERE thread_id = 'a'") == 0)
        #expect(try count(h.queue, "SELECT COUNT(*) FROM agent_runs WHERE thread_id = 'a'") == 0)
        #expect(try count(h.queue, "SELECT COUNT(*) FROM agent_message_parts p LEFT JOIN agent_messages m ON m.id = p.message_id WHERE m.id IS NULL") == 0)
        #expect(try count(h.queue, "SELECT COUNT(*) FROM agent_usage WHERE thread_id = 'a'") == 0)
        #expect(try h.store.thread("b") != nil)
        #expect(throws: AgentError.self) { try h.store.deleteThread("a") }
        #expect(throws: AgentError.self) { try h.store.renameThread("zzz", title: "x") }
    }

    @Test func deletingABusyThreadIsRefused() async throws {
        let h = try Harness()
        h.model.enqueue(ScriptedTurn([.stall]))
        let handle = try h.runner.submit(threadID: "t", text: "hi")
        try await h.waitFor("waiting") { $0.kind == .phase(.waitingForProvider) }
        #expect { try h.store.deleteThread("t") } throws: { ($0 as? AgentError)?.kind == .threadBusy }
        h.runner.cancel(threadID: "t")
        _ = await h.runner.outcome(of: handle.runID)
        try h.store.deleteThread("t")
    }

    @Test func everyPartKindRoundTripsInOrder() throws {
        let queue = try openDatabase()
        let store = ConversationStore(queue: queue)
        let parts: [MessagePart] = [
            .continuation(ContinuationItem(provider: "gemini", kind: "thought_signature", payload: #"{"sig":"a\u0000b"}"#)),
            .text("Let me check. "),
            .toolCall(ToolCall(id: "c1", name: "lookup", arguments: #"{"query": "x"}"#)),
            .continuation(ContinuationItem(provider: "gemini", kind: "thought_signature", payload: "raw\nbytes",
                                           origin: "gemini https://generativelanguage.googleapis.com/v1beta gemini-2.5-flash")),
            .toolCall(ToolCall(id: "c2", name: "lookup", arguments: "")),
        ]
        try queue.write { db in
            try ConversationStore.ensureThread(db, id: "t", now: 1)
            try ConversationStore.insertMessage(db, threadID: "t", runID: nil, role: .user, turn: nil, state: .complete, parts: [.text("hi")], now: 1)
            try ConversationStore.insertMessage(db, threadID: "t", runID: "r", role: .assistant, turn: 1, state: .complete, parts: parts, now: 2)
            try ConversationStore.insertMessage(db, threadID: "t", runID: "r", role: .tool, turn: 1, state: .complete,
                                                parts: [.toolResult(ToolResult(callID: "c1", name: "lookup", content: "{}", isError: true))], now: 3)
        }
        let stored = try store.transcript(threadID: "t")
        #expect(stored.map(\.seq) == [1, 2, 3])
        #expect(stored[1].message.parts == parts)
        #expect(stored[1].turn == 1 && stored[1].runID == "r")
        #expect(stored[2].message.toolResults.first?.isError == true)
        #expect(try store.messages(threadID: "t", afterSeq: 2).map(\.seq) == [3])
    }

    @Test func longThreadsLoadThroughIndexes() throws {
        let queue = try openDatabase()
        let store = ConversationStore(queue: queue)
        try queue.write { db in
            try ConversationStore.ensureThread(db, id: "long", now: 0)
            try ConversationStore.ensureThread(db, id: "other", now: 0)
            for i in 0..<10_000 {
                let role: Role = i % 2 == 0 ? .user : .assistant
                try ConversationStore.insertMessage(db, threadID: i % 10 == 9 ? "other" : "long", runID: nil, role: role, turn: nil, state: .complete,
                                                    parts: [.text("message \(i) with some words in it")], now: Double(i))
            }
        }
        let started = ContinuousClock.now
        let messages = try store.transcript(threadID: "long")
        let elapsed = ContinuousClock.now - started
        #expect(messages.count == 9_000)
        #expect(messages.map(\.seq) == messages.map(\.seq).sorted())
        #expect(elapsed < .seconds(10), "loading 9,000 messages took \(elapsed)") // ~0.1 s in debug; catches quadratic work

        // The plan must walk the (thread_id, seq) index and the parts' primary key, never scan.
        let plan = try queue.read { db in
            try db.rows("""
                EXPLAIN QUERY PLAN SELECT m.id, p.kind FROM agent_messages m LEFT JOIN agent_message_parts p ON p.message_id = m.id
                WHERE m.thread_id = ? AND m.seq > ? ORDER BY m.seq, p.ordinal
                """, ["long", 0]).compactMap { $0["detail"].string }
        }
        #expect(plan.contains { $0.hasPrefix("SEARCH m USING") && $0.contains("(thread_id=? AND seq>?)") }, "\(plan)")
        #expect(plan.contains { $0.hasPrefix("SEARCH p USING PRIMARY KEY (message_id=?)") }, "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN m") || $0.contains("SCAN agent_messages") }, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "sorting must come from the indexes: \(plan)")
    }
}
