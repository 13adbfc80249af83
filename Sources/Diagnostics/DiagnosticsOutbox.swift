// The bounded local outbox of diagnostic events, in the main SQLite database, with delivery counters.
import Foundation
import OutputSafety
import SQLiteKit

/// Events waiting for delivery. Bounded by count, bytes and age (oldest dropped first, drops
/// counted persistently); survives restarts because it lives in the main database.
public final class DiagnosticsOutbox: Sendable {
    public struct Limits: Sendable, Hashable {
        public var maxEvents: Int
        public var maxBytes: Int
        /// Seconds.
        public var maxAge: Double
        public init(maxEvents: Int = 500, maxBytes: Int = 2 << 20, maxAge: Double = 48 * 3600) {
            self.maxEvents = maxEvents
            self.maxBytes = maxBytes
            self.maxAge = maxAge
        }
    }

    /// What `ofj diag status` shows.
    public struct Status: Sendable, Hashable {
        public var pending: Int
        public var pendingBytes: Int
        public var delivered: Int
        public var dropped: Int
        /// Redacted.
        public var lastError: String?
        public var lastErrorAt: Double?
        public var lastSuccessAt: Double?
        /// Events the bounds removed after they were sent, not yet confirmed on the sink or dropped.
        public var unconfirmed: Int = 0
    }

    public let queue: DatabaseQueue
    public let limits: Limits
    let now: @Sendable () -> Double

    public init(queue: DatabaseQueue, limits: Limits = Limits(), now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.queue = queue
        self.limits = limits
        self.now = now
    }

    // MARK: - Schema

    /// Registers the outbox tables with the main database's migrator.
    public static func registerMigrations(into migrator: inout Migrator) {
        migrator.register("diagnostics-1-outbox", sql: """
            CREATE TABLE diagnostics_outbox (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                id TEXT NOT NULL UNIQUE,
                occurred_at REAL NOT NULL,
                payload TEXT NOT NULL,
                size INTEGER NOT NULL
            );
            CREATE INDEX diagnostics_outbox_occurred ON diagnostics_outbox (occurred_at);
            CREATE TABLE diagnostics_state (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                delivered INTEGER NOT NULL DEFAULT 0,
                dropped INTEGER NOT NULL DEFAULT 0,
                dropped_reported INTEGER NOT NULL DEFAULT 0,
                last_error TEXT,
                last_error_at REAL,
                last_success_at REAL,
                last_expiry_sweep_at REAL
            );
            INSERT INTO diagnostics_state (singleton) VALUES (1);
            """)
        // The drop report being delivered, kept until the sink acknowledges it: a retry after a
        // lost acknowledgement resends the same id (and count) instead of a second report.
        migrator.register("diagnostics-2-drop-report", sql: """
            ALTER TABLE diagnostics_state ADD COLUMN drop_report_id TEXT;
            ALTER TABLE diagnostics_state ADD COLUMN drop_report_count INTEGER;
            ALTER TABLE diagnostics_state ADD COLUMN drop_report_at REAL;
            ALTER TABLE diagnostics_state ADD COLUMN retry_at REAL;
            ALTER TABLE diagnostics_state ADD COLUMN consecutive_failures INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE diagnostics_outbox ADD COLUMN attempted INTEGER NOT NULL DEFAULT 0;
            CREATE TABLE diagnostics_unconfirmed (
                n INTEGER PRIMARY KEY AUTOINCREMENT,
                id TEXT NOT NULL UNIQUE,
                removed_at REAL NOT NULL
            );
            """)
    }

    /// Applies only the outbox migrations (tests and tools that open a database just for this).
    /// Every queued event's payload without its id, times and app version, oldest first: what a
    /// replayed transcript compares (`expect diag`), so a field that leaked content would show.
    public static func payloadsWithoutIDsOrTimes(_ db: Database) throws -> [String] {
        try db.rows("""
            SELECT json_remove(payload, '$.id', '$.occurred_at_epoch', '$.started_at_epoch', '$.app_version', '$.total_ms',
                               '$.first_event_ms', '$.expires_at') FROM diagnostics_outbox ORDER BY seq
            """).map { try $0.decode(0) }
    }

    public static func migrate(_ queue: DatabaseQueue) throws {
        var migrator = Migrator()
        registerMigrations(into: &migrator)
        try queue.migrate(migrator)
    }

    // MARK: - Writing

    /// Stores one event and enforces the bounds. One small transaction.
    public func enqueue(_ event: DiagnosticEvent) throws {
        let payload = event.json
        try queue.write { db in
            try db.execute("INSERT OR IGNORE INTO diagnostics_outbox (id, occurred_at, payload, size) VALUES (?, ?, ?, ?)",
                           [event.id, event.occurredAt, payload, payload.utf8.count])
            _ = try enforceBounds(db)
        }
    }

    /// Drops expired and excess events (oldest first) and counts them. Also run by the flusher so
    /// that the age bound holds while nothing new is recorded.
    @discardableResult
    public func prune() throws -> Int {
        try queue.write { try enforceBounds($0) }
    }

    /// Removes the rows `condition` selects. Rows never sent are dropped and counted at once. Rows
    /// already sent may have reached the sink with the acknowledgement lost (or still in flight):
    /// their ids wait in `diagnostics_unconfirmed` until the flusher asks the sink (at most
    /// four times `maxEvents` of them; beyond that the oldest count as dropped unchecked).
    private func remove(_ db: Database, where condition: String, _ arguments: [DatabaseValueConvertible]) throws -> Int {
        try db.execute("INSERT OR IGNORE INTO diagnostics_unconfirmed (id, removed_at) SELECT id, ? FROM diagnostics_outbox WHERE attempted = 1 AND \(condition) ORDER BY seq",
                       [now()] + arguments)
        try db.execute("DELETE FROM diagnostics_outbox WHERE attempted = 0 AND \(condition)", arguments)
        var dropped = db.changes
        try db.execute("DELETE FROM diagnostics_outbox WHERE \(condition)", arguments)
        let excess = (try db.scalar("SELECT COUNT(*) FROM diagnostics_unconfirmed").int ?? 0) - Self.unconfirmedLimit(limits)
        if excess > 0 {
            try db.execute("DELETE FROM diagnostics_unconfirmed WHERE n IN (SELECT n FROM diagnostics_unconfirmed ORDER BY n LIMIT ?)", [excess])
            dropped += db.changes
        }
        return dropped
    }

    private func enforceBounds(_ db: Database) throws -> Int {
        var dropped = 0
        dropped += try remove(db, where: "occurred_at < ?", [now() - limits.maxAge])
        let totals = try db.row("SELECT COUNT(*), COALESCE(SUM(size), 0) FROM diagnostics_outbox")
        var count = totals?[0].int ?? 0
        var bytes = totals?[1].int ?? 0
        if count > limits.maxEvents || bytes > limits.maxBytes {
            var cutoff: Int64?
            try db.forEachRow("SELECT seq, size FROM diagnostics_outbox ORDER BY seq") { row in
                guard count > limits.maxEvents || bytes > limits.maxBytes else { return }
                cutoff = row.value(at: 0).int64
                count -= 1
                bytes -= row.value(at: 1).int ?? 0
            }
            if let cutoff {
                dropped += try remove(db, where: "seq <= ?", [cutoff])
            }
        }
        if dropped > 0 {
            try db.execute("UPDATE diagnostics_state SET dropped = dropped + ? WHERE singleton = 1", [dropped])
        }
        return dropped
    }

    // MARK: - Delivery

    /// Every pending event, oldest first, without changing anything (undecodable rows are
    /// skipped): what `ofj diag export --local` exports.
    public func allPending() throws -> [DiagnosticEvent] {
        try queue.read { db in
            var out: [DiagnosticEvent] = []
            try db.forEachRow("SELECT payload FROM diagnostics_outbox ORDER BY seq") { row in
                if let text = row.value(at: 0).string, let event = DiagnosticEvent(json: text) { out.append(event) }
            }
            return out
        }
    }

    /// The oldest pending events, at most `limit` of them and about `maxBytes` of payload.
    /// With `markAttempted`, the rows are marked as sent in the same transaction: marking them
    /// afterwards left a moment (long when another process held the write lock) in which the
    /// bound could remove them as never sent, so an event could arrive and be counted as dropped.
    public func pending(limit: Int, maxBytes: Int = 256 << 10, markAttempted: Bool = false) throws -> [DiagnosticEvent] {
        try queue.write { db in
            var out: [DiagnosticEvent] = []
            var bytes = 0
            var corrupt: [String] = []
            try db.forEachRow("SELECT id, payload, size FROM diagnostics_outbox ORDER BY seq LIMIT ?", [limit]) { row in
                let size = row.value(at: 2).int ?? 0
                guard out.isEmpty || bytes + size <= maxBytes else { return }
                guard let text = row.value(at: 1).string, let event = DiagnosticEvent(json: text) else {
                    if let id = row.value(at: 0).string { corrupt.append(id) }
                    return
                }
                bytes += size
                out.append(event)
            }
            // An undecodable row would block the queue forever: count it as dropped.
            for id in corrupt {
                try db.execute("DELETE FROM diagnostics_outbox WHERE id = ?", [id])
                try db.execute("UPDATE diagnostics_state SET dropped = dropped + 1 WHERE singleton = 1")
            }
            if markAttempted {
                for event in out { try db.execute("UPDATE diagnostics_outbox SET attempted = 1 WHERE id = ?", [event.id]) }
            }
            return out
        }
    }

    /// Deletes delivered events at once and counts them (also those the bound removed while they
    /// were in flight).
    public func acknowledge(_ ids: [String]) throws {
        guard !ids.isEmpty else { return }
        try queue.write { db in
            var removed = 0
            for id in ids {
                try db.execute("DELETE FROM diagnostics_outbox WHERE id = ?", [id])
                removed += db.changes
                try db.execute("DELETE FROM diagnostics_unconfirmed WHERE id = ?", [id])
                removed += db.changes
            }
            try db.execute("UPDATE diagnostics_state SET delivered = delivered + ?, last_success_at = ? WHERE singleton = 1",
                           [removed, now()])
        }
    }

    /// Remembers the last delivery error (redacted here, whatever the caller passed).
    public func recordFailure(_ message: String) throws {
        try queue.write { db in
            try db.execute("UPDATE diagnostics_state SET last_error = ?, last_error_at = ? WHERE singleton = 1",
                           [Redactor.redact(message), now()])
        }
    }

    /// The shared backoff: failed deliveries in a row and when the next automatic attempt is due.
    /// Kept in the database so that every ofj process (REPL, each `ofj ask`) honours it.
    public func backoff() throws -> (failures: Int, retryAt: Double?) {
        try queue.read { db in
            let row = try db.row("SELECT consecutive_failures, retry_at FROM diagnostics_state WHERE singleton = 1")
            return (row?[0].int ?? 0, row?[1].double)
        }
    }

    public func setBackoff(failures: Int, retryAt: Double?) throws {
        try queue.write { db in
            try db.execute("UPDATE diagnostics_state SET consecutive_failures = ?, retry_at = ? WHERE singleton = 1", [failures, retryAt])
        }
    }

    /// Clears the last error after a success.
    public func recordSuccess() throws {
        try queue.write { db in
            try db.execute("UPDATE diagnostics_state SET last_error = NULL, last_error_at = NULL, last_success_at = ?, retry_at = NULL, consecutive_failures = 0 WHERE singleton = 1", [now()])
        }
    }

    /// Unconfirmed ids kept at most (ids only, about 40 bytes each).
    static func unconfirmedLimit(_ limits: Limits) -> Int { 4 * limits.maxEvents }

    /// Seconds an unconfirmed id waits before the sink is asked: a request the client gave up on
    /// (timeout, exit deadline) may still commit on the server a little later.
    public static let unconfirmedSettle: Double = 60

    /// Ids removed by the bounds after they were sent, oldest first: on the sink or lost.
    public func unconfirmed(limit: Int, removedBefore: Double = .infinity) throws -> [String] {
        try queue.read { db in
            try db.rows("SELECT id FROM diagnostics_unconfirmed WHERE removed_at < ? ORDER BY n LIMIT ?", [removedBefore, limit])
                .compactMap { $0[0].string }
        }
    }

    /// The sink was asked about `ids`: those in `found` count as delivered, the others as dropped.
    public func resolveUnconfirmed(_ ids: [String], found: Set<String>) throws {
        guard !ids.isEmpty else { return }
        try queue.write { db in
            var delivered = 0
            var dropped = 0
            for id in ids {
                try db.execute("DELETE FROM diagnostics_unconfirmed WHERE id = ?", [id])
                guard db.changes > 0 else { continue }
                if found.contains(id) { delivered += 1 } else { dropped += 1 }
            }
            try db.execute("UPDATE diagnostics_state SET delivered = delivered + ?, dropped = dropped + ? WHERE singleton = 1",
                           [delivered, dropped])
        }
    }

    /// The drop report to deliver: the one already in flight (same id and count, so a resend
    /// after a lost acknowledgement is a no-op on the sink), or a new one for the drops not yet
    /// reported (which then count as reported). nil when there is nothing to report.
    public func pendingDropReport(makeID: () -> String) throws -> (id: String, count: Int, occurredAt: Double)? {
        try queue.write { db in
            guard let state = try db.row("SELECT drop_report_id, drop_report_count, drop_report_at, dropped - dropped_reported FROM diagnostics_state WHERE singleton = 1")
            else { return nil }
            if let id = state[0].string, let count = state[1].int, let at = state[2].double { return (id, count, at) }
            let unreported = state[3].int ?? 0
            guard unreported > 0 else { return nil }
            let report = (id: makeID(), count: unreported, occurredAt: now())
            try db.execute("""
                UPDATE diagnostics_state SET drop_report_id = ?, drop_report_count = ?, drop_report_at = ?,
                dropped_reported = dropped_reported + ? WHERE singleton = 1
                """, [report.id, report.count, report.occurredAt, report.count])
            return report
        }
    }

    /// The sink stored the drop report `id`.
    public func completeDropReport(_ id: String) throws {
        try queue.write { db in
            try db.execute("UPDATE diagnostics_state SET drop_report_id = NULL, drop_report_count = NULL, drop_report_at = NULL WHERE singleton = 1 AND drop_report_id = ?", [id])
        }
    }

    /// Drops not yet reported to the sink.
    public func unreportedDrops() throws -> Int {
        try queue.read { db in
            try db.scalar("SELECT dropped - dropped_reported FROM diagnostics_state WHERE singleton = 1").int ?? 0
        }
    }

    /// Marks `count` drops as reported to the sink.
    public func markDropsReported(_ count: Int) throws {
        try queue.write { db in
            try db.execute("UPDATE diagnostics_state SET dropped_reported = dropped_reported + ? WHERE singleton = 1", [count])
        }
    }

    /// When the sink's expired rows were last deleted.
    public func lastExpirySweep() throws -> Double? {
        try queue.read { try $0.scalar("SELECT last_expiry_sweep_at FROM diagnostics_state WHERE singleton = 1").double }
    }

    public func recordExpirySweep(at time: Double) throws {
        try queue.write { try $0.execute("UPDATE diagnostics_state SET last_expiry_sweep_at = ? WHERE singleton = 1", [time]) }
    }

    public func status() throws -> Status {
        try queue.read { db in
            let totals = try db.row("SELECT COUNT(*), COALESCE(SUM(size), 0) FROM diagnostics_outbox")
            let state = try db.row("SELECT delivered, dropped, last_error, last_error_at, last_success_at FROM diagnostics_state WHERE singleton = 1")
            return Status(pending: totals?[0].int ?? 0, pendingBytes: totals?[1].int ?? 0,
                          delivered: state?[0].int ?? 0, dropped: state?[1].int ?? 0,
                          lastError: state?[2].string, lastErrorAt: state?[3].double, lastSuccessAt: state?[4].double,
                          unconfirmed: try db.scalar("SELECT COUNT(*) FROM diagnostics_unconfirmed").int ?? 0)
        }
    }
}
