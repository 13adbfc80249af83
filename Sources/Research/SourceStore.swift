// Durable research sources: every fetched page (and, later, search result set) kept in the
// thread's database as a versioned source, so the model can read it again after compaction.
import Agent
import Base
import SQLiteKit

/// One stored source.
public struct ResearchSource: Sendable, Hashable {
    public var id: Int
    public var threadID: String
    /// "page" (fetch_url) or "search" (web_search).
    public var kind: String
    public var url: String
    public var title: String
    public var fetchedAt: Double
    /// SHA-256 of the text, hex.
    public var contentHash: String
    /// 1 for the first fetch of this URL in the thread; +1 each time the text changed.
    public var version: Int
    public var text: String
}

public final class SourceStore: Sendable {
    let queue: DatabaseQueue

    public init(queue: DatabaseQueue) { self.queue = queue }

    public static func registerMigrations(into migrator: inout Migrator) {
        migrator.register("research-1-sources", sql: """
            CREATE TABLE research_sources (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                thread_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                url TEXT NOT NULL,
                title TEXT NOT NULL DEFAULT '',
                fetched_at REAL NOT NULL,
                content_hash TEXT NOT NULL,
                version INTEGER NOT NULL,
                text TEXT NOT NULL,
                -- The last run that read this source (write cards of that run name it).
                last_run_id TEXT,
                UNIQUE (thread_id, url, version)
            );
            CREATE INDEX research_sources_thread ON research_sources (thread_id, id);
            """)
        registerUsageMigration(into: &migrator)
    }

    /// Applies only these migrations and the agent's (whose untrusted reads `/sources` shows; tests).
    public static func migrate(_ queue: DatabaseQueue) throws {
        var migrator = Migrator()
        ConversationStore.registerMigrations(into: &migrator)
        registerMigrations(into: &migrator)
        try queue.migrate(migrator)
    }

    /// Stores a source, or returns the existing one when this thread already has the same URL
    /// with the same text. A changed text becomes the next version.
    @discardableResult
    public func record(threadID: String, runID: String? = nil, kind: String, url: String, title: String, text: String,
                       fetchedAt: Double) throws -> ResearchSource {
        try queue.write { db in
            try Self.record(db, threadID: threadID, runID: runID, kind: kind, url: url, title: title, text: text, fetchedAt: fetchedAt, touch: true)
        }
    }

    /// `record` inside a transaction. `touch`: a source already kept is marked as read by `runID`
    /// (a new read); harvesting a stored turn again leaves it as it was.
    static func record(_ db: Database, threadID: String, runID: String?, kind: String, url: String, title: String, text: String,
                       fetchedAt: Double, touch: Bool) throws -> ResearchSource {
        let hash = SHA256Hasher.hex(Array(text.utf8))
        if let row = try db.row("""
            SELECT id, version, content_hash, fetched_at FROM research_sources
            WHERE thread_id = ? AND url = ? ORDER BY version DESC LIMIT 1
            """, [threadID, url]) {
            let version = row[1].int ?? 1
            if row[2].string == hash, let id = row[0].int {
                if touch { try db.execute("UPDATE research_sources SET last_run_id = ? WHERE id = ?", [runID, id]) }
                return ResearchSource(id: id, threadID: threadID, kind: kind, url: url, title: title,
                                      fetchedAt: row[3].double ?? fetchedAt, contentHash: hash, version: version, text: text)
            }
            if !touch {
                // A turn harvested again after the same URL changed: keep the version it read if
                // it is there, else add it.
                if let same = try db.row("SELECT id FROM research_sources WHERE thread_id = ? AND url = ? AND content_hash = ?",
                                         [threadID, url, hash]), let id = same[0].int {
                    return ResearchSource(id: id, threadID: threadID, kind: kind, url: url, title: title, fetchedAt: fetchedAt,
                                          contentHash: hash, version: version, text: text)
                }
            }
            return try insert(db, threadID, runID, kind, url, title, text, fetchedAt, hash, version + 1)
        }
        return try insert(db, threadID, runID, kind, url, title, text, fetchedAt, hash, 1)
    }

    private static func insert(_ db: Database, _ threadID: String, _ runID: String?, _ kind: String, _ url: String, _ title: String, _ text: String,
                               _ fetchedAt: Double, _ hash: String, _ version: Int) throws -> ResearchSource {
        try db.execute("""
            INSERT INTO research_sources (thread_id, kind, url, title, fetched_at, content_hash, version, text, last_run_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [threadID, kind, url, title, fetchedAt, hash, version, text, runID])
        let id = try db.scalar("SELECT last_insert_rowid()").int ?? 0
        return ResearchSource(id: id, threadID: threadID, kind: kind, url: url, title: title, fetchedAt: fetchedAt,
                              contentHash: hash, version: version, text: text)
    }

    /// The source with this id in this thread (sources of other threads are not visible).
    public func source(id: Int, threadID: String) throws -> ResearchSource? {
        try queue.read { db in
            try db.row("""
                SELECT id, thread_id, kind, url, title, fetched_at, content_hash, version, text
                FROM research_sources WHERE id = ? AND thread_id = ?
                """, [id, threadID]).map(Self.source)
        }
    }

    /// Marks a source as read again by `runID` (its write cards and answer links name it).
    public func markRead(id: Int, threadID: String, runID: String) throws {
        try queue.write { db in
            try db.execute("UPDATE research_sources SET last_run_id = ? WHERE id = ? AND thread_id = ?", [runID, id, threadID])
        }
    }

    /// The thread's sources, oldest first (text included).
    public func sources(threadID: String) throws -> [ResearchSource] {
        try queue.read { db in
            try db.rows("""
                SELECT id, thread_id, kind, url, title, fetched_at, content_hash, version, text
                FROM research_sources WHERE thread_id = ? ORDER BY id
                """, [threadID]).map(Self.source)
        }
    }

    /// The thread's sources last read by this run, oldest first, read with `db` (a write tool's
    /// preview runs inside the queue's transaction; taking the queue again would deadlock).
    public static func sources(threadID: String, runID: String, in db: Database) throws -> [ResearchSource] {
        try db.rows("""
            SELECT id, thread_id, kind, url, title, fetched_at, content_hash, version, text
            FROM research_sources WHERE thread_id = ? AND last_run_id = ? ORDER BY id
            """, [threadID, runID]).map(Self.source)
    }

    /// `/sources`: one line per source of the thread, numbered by source id, then the thread's
    /// mark: the untrusted content read since the person's last message (attachments, packaged
    /// foods and synced messages too), during which no grant or allow rule approves a write.
    public func report(threadID: String) throws -> String {
        try harvest(threadID: threadID)
        let all = try sources(threadID: threadID)
        let standing = try ConversationStore(queue: queue).standingUntrusted(threadID: threadID)
        var lines: [String] = []
        if !standing.isEmpty {
            lines.append("Untrusted content read since your last message (until you send your next one, every write is asked about, "
                + "even with \"always for this thread\" or an allow rule; deny rules still apply):")
            for r in standing.prefix(50) { lines.append("  · " + r.read.text) }
            if standing.count > 50 { lines.append("  · and \(standing.count - 50) more") }
        }
        return ((all.isEmpty ? ["No web sources in this thread yet."] : try sourceLines(all)) + lines).joined(separator: "\n")
    }

    private func sourceLines(_ all: [ResearchSource]) throws -> [String] {
        var lines = ["Web sources in this thread (untrusted; read_conversation_source reads one again):"]
        for s in all {
            let title = s.title.isEmpty ? "" : "\(s.title.prefix(80)) — "
            let version = s.version > 1 ? ", version \(s.version)" : ""
            lines.append("  [\(s.id)] \(title)\(s.url.prefix(200))  (\(Self.utcLabel(s.fetchedAt)), \(s.text.count) characters\(version))")
        }
        return lines
    }

    static func utcLabel(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondsOfDay = total - days * 86_400
        return "\(CalendarDay.text(dayNumber: days)) \(zeroPadded(secondsOfDay / 3600, width: 2)):\(zeroPadded(secondsOfDay % 3600 / 60, width: 2)) UTC"
    }

    private static func source(_ row: Row) throws -> ResearchSource {
        ResearchSource(id: try row.decode(0), threadID: try row.decode(1), kind: try row.decode(2), url: try row.decode(3),
                       title: try row.decode(4), fetchedAt: try row.decode(5), contentHash: try row.decode(6),
                       version: try row.decode(7), text: try row.decode(8))
    }
}
