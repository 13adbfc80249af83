// Full-text search over threads: on a 100,000-message thread (made as tools/big-thread.sh makes
// it: real turns copied in SQL, then indexed by the fts-2 migration, as an existing database
// would be), and the index kept by the store in the transactions of new messages, tool
// summaries, titles and deletes.
import Foundation
import SQLiteKit
import Testing
import TestSupport
@testable import Agent

@Suite struct ThreadSearchTests {
    static func query(_ text: String) throws -> FullTextQuery { try #require(FullTextQuery(text)) }

    @Test func aHundredThousandMessageThreadIsSearchedNewestFirst() async throws {
        let h = try Harness()
        h.model.enqueue(.calls(("c1", "lookup", #"{"query":"porridge"}"#)), .text("Noted, porridge it is."))
        _ = try await h.ask("I had porridge for breakfast", thread: "big")
        let template = try count(h.queue, "SELECT count(*) FROM agent_messages WHERE thread_id = 'big'")
        #expect(template >= 3)
        let total = 100_000
        // Copies of the real turn up to 100,000 messages, each text part given its own word
        // ("w" + seq), written in SQL without the store, as tools/big-thread.sh does.
        try h.queue.write { db in
            try db.execute(batch: """
                CREATE TEMP TABLE tmpl AS SELECT row_number() OVER (ORDER BY seq) - 1 AS r, id, role, run_id, turn, created_at
                  FROM agent_messages WHERE thread_id = 'big';
                CREATE TEMP TABLE k AS WITH RECURSIVE k(i) AS (SELECT (SELECT count(*) FROM tmpl) + 1 UNION ALL SELECT i + 1 FROM k WHERE i < \(total))
                  SELECT i FROM k;
                INSERT INTO agent_messages (thread_id, seq, run_id, role, turn, state, created_at)
                SELECT 'big', k.i, t.run_id, t.role, t.turn, 'complete', t.created_at + k.i
                  FROM k JOIN tmpl t ON t.r = (k.i - 1) % (SELECT count(*) FROM tmpl);
                INSERT INTO agent_message_parts (message_id, ordinal, kind, body, call_id, name, is_error, provider, subkind)
                SELECT m.id, p.ordinal, p.kind, CASE WHEN p.kind = 'text' THEN p.body || ' w' || m.seq ELSE p.body END,
                       CASE WHEN p.call_id IS NULL THEN NULL ELSE p.call_id || '-' || m.seq END, p.name, p.is_error, p.provider, p.subkind
                  FROM agent_messages m
                  JOIN tmpl t ON t.r = (m.seq - 1) % (SELECT count(*) FROM tmpl)
                  JOIN agent_message_parts p ON p.message_id = t.id
                 WHERE m.thread_id = 'big' AND m.seq > (SELECT count(*) FROM tmpl);
                DROP TABLE tmpl; DROP TABLE k;
                -- As before the index existed: the fts-2 migration must build it from the rows.
                DROP TABLE agent_messages_fts; DROP TABLE agent_tools_fts; DROP TABLE agent_titles_fts;
                DELETE FROM schema_migrations WHERE identifier = 'fts-2-threads';
                """)
        }
        #expect(try count(h.queue, "SELECT count(*) FROM agent_messages WHERE thread_id = 'big'") == total)
        var migrator = Migrator()
        ConversationStore.registerMigrations(into: &migrator)
        migrator.register("test-1-entries") { _ in }  // the harness's own table, already there
        try h.queue.migrate(migrator)
        let textParts = try count(h.queue, """
            SELECT count(*) FROM agent_message_parts p JOIN agent_messages m ON m.id = p.message_id
            WHERE p.kind = 'text' AND m.role IN ('user', 'assistant')
            """)
        #expect(try count(h.queue, "SELECT count(*) FROM agent_messages_fts") == textParts)
        #expect(textParts >= 50_000)

        // One message among 100,000, by its own word.
        let seq = try count(h.queue, "SELECT max(seq) FROM agent_messages WHERE thread_id = 'big' AND role = 'user' AND seq < 73457")
        let one = try h.store.searchThreads(matching: Self.query("w\(seq)"), limit: 20)
        #expect(one.count == 1)
        #expect(one.first?.kind == .message && one.first?.threadID == "big" && one.first?.detail == "user")
        #expect(one.first.map { $0.snippet.contains("\(ThreadSearchHit.markStart)w\(seq)\(ThreadSearchHit.markEnd)") } == true)

        // A word in every copy: the newest 20, newest first.
        let many = try h.store.searchThreads(matching: Self.query("porridge"), limit: 20)
        #expect(many.count == 20)
        // The title first (it names the thread), then the newest messages.
        #expect(many.first?.kind == .title)
        #expect(zip(many.dropFirst(), many.dropFirst(2)).allSatisfy { $0.at >= $1.at })
        let newestUserSeq = try count(h.queue, "SELECT max(seq) FROM agent_messages WHERE thread_id = 'big' AND role = 'user'")
        #expect(many.contains { $0.kind == .message && $0.snippet.contains("w\(newestUserSeq)") })

        // Tool summaries and the title were indexed by the migration too.
        #expect(try h.store.searchThreads(matching: Self.query("found porr"), limit: 5).contains { $0.kind == .tool && $0.detail == "lookup" })
        #expect(try h.store.searchThreads(matching: Self.query("breakfast porridge"), limit: 50).first?.kind == .title)

        // Deleting the thread removes its rows from the index in the same transaction.
        try h.store.deleteThread("big")
        for table in ["agent_messages_fts", "agent_tools_fts", "agent_titles_fts"] {
            #expect(try count(h.queue, "SELECT count(*) FROM \(table)") == 0)
        }
    }

    @Test func newMessagesToolSummariesAndTitlesAreIndexedAsTheyAreWritten() async throws {
        let h = try Harness()
        h.model.enqueue(.calls(("c1", "lookup", #"{"query":"kumquat"}"#)), .text("Kumquats are small citrus fruits."))
        _ = try await h.ask("Tell me about kumquats", thread: "a")
        let hits = try h.store.searchThreads(matching: Self.query("kumquat"), limit: 20)
        #expect(Set(hits.map(\.kind)) == [.title, .message, .tool])
        #expect(hits.filter { $0.kind == .message }.compactMap(\.detail).sorted() == ["assistant", "user"])
        #expect(hits.allSatisfy { $0.threadID == "a" && $0.threadTitle == "Tell me about kumquats" })

        try h.store.renameThread("a", title: "Citrus notes")
        #expect(try h.store.searchThreads(matching: Self.query("citrus notes"), limit: 20).contains { $0.kind == .title })
        #expect(try !h.store.searchThreads(matching: Self.query("tell kumq"), limit: 20).contains { $0.kind == .title })

        // An answer replaced by /retry is kept, but no longer found.
        h.model.enqueue(.text("A kumquat is an orange-like fruit."))
        let (retry, _) = try h.runner.regenerate(threadID: "a")
        _ = await h.runner.outcome(of: retry.runID)
        let afterRetry = try h.store.searchThreads(matching: Self.query("small citrus"), limit: 20)
        #expect(!afterRetry.contains { $0.kind == .message && $0.detail == "assistant" })
        #expect(try h.store.searchThreads(matching: Self.query("orange like"), limit: 20).count == 1)
    }
}
