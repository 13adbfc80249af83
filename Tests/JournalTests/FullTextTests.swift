// The journal's full-text index (FTS5) on the generated 10-year journal: results equal a scan of
// every entry, the index follows edits, moves and deletes in their transactions, a migration
// builds it for a database that predates it, and FTS5 syntax in the text is never an error.
import Foundation
import Nutrition
import SQLiteKit
import Testing
@testable import Journal

@Suite struct FullTextTests {
    /// The 10-year journal (≈40,000 entries), generated once per test that needs it.
    static func tenYears() throws -> (JournalStore, JournalFixtures.Summary) {
        let (store, _) = try makeStore(ManualClock("2026-11-29T18:00:00Z"))
        let summary = try JournalFixtures.generateYears(10, endingOn: day("2026-11-29"), foods: 3_000, seed: 42, store: store)
        return (store, summary)
    }

    /// What the index must find: entries whose name or brand has a word starting with each query
    /// word (case-insensitive), computed by reading every entry in Swift.
    static func scan(_ store: JournalStore, _ words: [String]) throws -> [(seq: Int64, day: String)] {
        try store.queue.read { db in
            try db.rows("SELECT seq, day, name, coalesce(brand, '') FROM journal_entries").compactMap { r -> (Int64, String)? in
                let text = ((r[2].string ?? "") + " " + (r[3].string ?? "")).lowercased()
                let tokens = text.split { !$0.isLetter && !$0.isNumber }.map(String.init)
                guard words.allSatisfy({ w in tokens.contains { $0.hasPrefix(w) } }) else { return nil }
                return (r[0].int64 ?? 0, r[1].string ?? "")
            }
        }
    }

    @Test func tenYearJournalSearchEqualsAScanAndAnswersWhenLastEaten() throws {
        let (store, summary) = try Self.tenYears()
        #expect(summary.entryCount > 35_000)
        #expect(try count(store, "journal_entries_fts") == summary.entryCount)
        for query in ["oatmeal", "smoked salm", "Greek YOGURT", "chobani", "dave's killer", "almonds 17"] {
            let q = try #require(FullTextQuery(query))
            let expected = try Self.scan(store, q.words)
            #expect(!expected.isEmpty, "\(query) should match the generated journal")
            let found = try store.searchEntries(query, limit: 10_000)
            #expect(found.count == expected.count, "\(query)")
            // Newest day first; the first result is the day the scan finds last.
            #expect(found.first?.day.description == expected.map(\.day).max())
            #expect(zip(found, found.dropFirst()).allSatisfy { $0.day >= $1.day })
            let last = try store.queue.read { try store.lastEaten(query, in: $0) }
            #expect(last?.day.description == expected.map(\.day).max())
            #expect(last?.matches == expected.count)
        }
        #expect(try store.searchEntries("nosuchfoodanywhere").isEmpty)
    }

    @Test func theIndexFollowsLogEditMoveAndDelete() throws {
        let (store, _) = try makeStore()
        let e = try store.logEntry(EntryDraft(day: day("2024-04-30"), meal: .lunch, name: "Crème brûlée", brand: "Maison",
                                              nutrients: nutrients(["energy_kcal": 300])))
        #expect(try store.searchEntries("creme").map(\.id) == [e.id]) // accents folded
        #expect(try store.searchEntries("BRÛL mais").map(\.id) == [e.id])
        _ = try store.updateEntry(e.id, EntryUpdate(name: "Panna cotta"))
        #expect(try store.searchEntries("creme").isEmpty)
        #expect(try store.searchEntries("panna").map(\.id) == [e.id])
        _ = try store.moveEntry(e.id, toDay: day("2024-04-29"))
        #expect(try store.searchEntries("panna").map(\.day) == [day("2024-04-29")])
        try store.deleteEntry(e.id)
        #expect(try store.searchEntries("panna").isEmpty)
        #expect(try count(store, "journal_entries_fts") == 0)
    }

    @Test func ftsSyntaxInTheTextIsSearchedAsWordsNeverAnError() throws {
        let (store, _) = try makeStore()
        try store.logEntry(EntryDraft(day: day("2024-04-30"), meal: .lunch, name: "Oat milk (barista) \"NEAR\" edition",
                                      nutrients: nutrients(["energy_kcal": 60])))
        for text in ["\"", "oat\"", "oat*", "oat OR", "NEAR(oat milk)", "name:oat", "^oat", "(barista", "oat -milk", "* AND *", "edition NOT", "*", "\"\""] {
            // Every one either finds the entry by its words or finds nothing; none throws a syntax
            // error. Text without a letter or digit is refused with a clear message instead.
            guard FullTextQuery(text) != nil else {
                #expect(journalError { _ = try store.searchEntries(text) }?.description.contains("letter or digit") == true)
                continue
            }
            let found = try store.searchEntries(text)
            let words = FullTextQuery(text)?.words ?? []
            let expected = words.allSatisfy { w in ["oat", "milk", "barista", "near", "edition"].contains { $0.hasPrefix(w) } } && !words.isEmpty
            #expect(found.count == (expected ? 1 : 0), "\(text)")
        }
        #expect(journalError { _ = try store.searchEntries("\"*()") } != nil) // nothing to search for: a clear error
    }

    @Test func aMigrationBuildsTheIndexForAnExistingDatabase() throws {
        let (store, _) = try makeStore()
        for name in ["Banana", "Banana bread", "Apple"] {
            try store.logEntry(EntryDraft(day: day("2024-04-30"), meal: .snack, name: name, nutrients: nutrients(["energy_kcal": 100])))
        }
        // A database from before the index: no table, no migration row.
        try store.queue.write { db in
            try db.execute("DROP TABLE journal_entries_fts")
            try db.execute("DELETE FROM schema_migrations WHERE identifier = 'fts-1-journal-entries'")
        }
        try store.queue.unrestricted { try JournalStore.migrate($0) }
        #expect(try count(store, "journal_entries_fts") == 3)
        #expect(try store.searchEntries("banana").count == 2)
    }
}
