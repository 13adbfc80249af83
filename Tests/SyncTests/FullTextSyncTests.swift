// Pulled rows keep the full-text indexes exact: entries and thread titles written on one machine
// are found by search on the other, and a pulled delete leaves nothing behind in the index.
import Agent
import Foundation
import Journal
import SQLiteKit
import TestSupport
import Testing
@testable import Sync

@Suite(.serialized) struct FullTextSyncTests {
    @Test func pulledEntriesAndTitlesAreSearchableAndPulledDeletesLeaveNoIndexRow() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url), b = try Machine(url: server.url)
        let entry = try a.log("Blueberry muffin", kcal: 420)
        let threads = ConversationStore(queue: a.queue)
        try threads.createThread(id: "thread-1", now: 1_700_000_000)
        try threads.renameThread("thread-1", title: "Picnic planning")
        try await a.sync()
        try await b.sync()
        let bThreads = ConversationStore(queue: b.queue)
        #expect(try b.journal.searchEntries("blueberry").map(\.id) == [entry.id])
        #expect(try bThreads.searchThreads("picnic").map(\.id) == ["thread-1"])

        // An edit moves the index with it: the old name no longer matches, the new one does.
        _ = try a.journal.updateEntry(entry.id, EntryUpdate(name: "Raspberry muffin"))
        try threads.renameThread("thread-1", title: "Beach day")
        try await a.sync()
        try await b.sync()
        #expect(try b.journal.searchEntries("blueberry").isEmpty)
        #expect(try b.journal.searchEntries("raspberry").map(\.id) == [entry.id])
        #expect(try bThreads.searchThreads("picnic").isEmpty)
        #expect(try bThreads.searchThreads("beach").map(\.id) == ["thread-1"])

        _ = try a.journal.deleteEntry(entry.id)
        try threads.deleteThread("thread-1")
        try await a.sync()
        try await b.sync()
        #expect(try b.journal.searchEntries("raspberry").isEmpty)
        #expect(try bThreads.searchThreads("beach").isEmpty)
        // No stale index rows: the index holds exactly the rows of its table.
        #expect(try b.count("journal_entries_fts") == b.count("journal_entries"))
        #expect(try b.count("agent_titles_fts") == 0)
        await server.shutdown()
    }
}
