// The journal's full-text index (SQLite FTS5): entry names and brands, kept in the same
// transaction as the entry rows by the store's row helpers (insertEntry, replaceEntry,
// deleteEntry). Triggers cannot do it: replayed transcripts run with trusted_schema off, where
// a trigger may not write a virtual table.
import Base
import Nutrition
import SQLiteKit

extension JournalStore {
    /// Creates the index and fills it from the entries already stored.
    static func registerFullTextMigration(into migrator: inout Migrator) {
        migrator.register("fts-1-journal-entries", sql: """
            CREATE VIRTUAL TABLE journal_entries_fts USING fts5(name, brand, tokenize = '\(FullTextQuery.tokenizer)');
            INSERT INTO journal_entries_fts (rowid, name, brand) SELECT seq, name, coalesce(brand, '') FROM journal_entries;
            """)
    }

    /// Indexes (or re-indexes) the entry row `seq`.
    func indexEntry(seq: Int64, name: String, brand: String?, in db: Database) throws {
        try db.execute("DELETE FROM journal_entries_fts WHERE rowid = ?", [seq])
        try db.execute("INSERT INTO journal_entries_fts (rowid, name, brand) VALUES (?, ?, ?)", [seq, name, brand ?? ""])
    }

    func unindexEntry(seq: Int64, in db: Database) throws {
        try db.execute("DELETE FROM journal_entries_fts WHERE rowid = ?", [seq])
    }

    /// Makes the index row of entry row `seq` match the table: indexed again when the row
    /// exists, removed when it does not. For writers that change `journal_entries` with their
    /// own statements (a sync pull), inside their transaction.
    public static func refreshFullText(entrySeq seq: Int64, in db: Database) throws {
        try db.execute("DELETE FROM journal_entries_fts WHERE rowid = ?", [seq])
        try db.execute("INSERT INTO journal_entries_fts (rowid, name, brand) SELECT seq, name, coalesce(brand, '') FROM journal_entries WHERE seq = ?",
                       [seq])
    }

    /// The clause selecting entries whose name or brand has every word of `query` (as word prefixes).
    static let fullTextClause = "seq IN (SELECT rowid FROM journal_entries_fts WHERE journal_entries_fts MATCH ?)"

    /// The day of the latest entry matching `text` and how many entries match in all: "when did I last eat X".
    public func lastEaten(_ text: String, in db: Database) throws -> (day: CalendarDay, matches: Int)? {
        guard let q = FullTextQuery(text) else { throw JournalError.invalid(field: "search text", reason: "needs a letter or digit") }
        guard let r = try db.row("SELECT max(day), count(*) FROM journal_entries WHERE \(Self.fullTextClause)", [q.matchExpression]),
              let day = r[0].string.flatMap({ try? CalendarDay(parsing: $0) }) else { return nil }
        return (day, r[1].int ?? 0)
    }
}
