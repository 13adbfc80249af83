// Machines for sync tests: each a database with every module's migrations, a JournalStore and a
// SyncEngine pointed at one tools/turso_server.py.
import Agent
import Base
import Foundation
import HTTP
import Hrana
import Journal
import Nutrition
import Research
import SQLiteKit
import Sync
import TestSupport

/// UTC, so the day of an entry does not depend on the machine running the tests.
let utc = TimeZone(secondsFromGMT: 0) ?? .gmt

final class Machine: @unchecked Sendable {
    let dir = TempDirectory(prefix: "ofj-sync")
    let queue: DatabaseQueue
    let journal: JournalStore
    var engine: SyncEngine

    /// `beforeSync` runs on a database with every module's migrations but sync's (an upgrade).
    init(url: String, token: String? = nil, mode: SyncConfiguration.Mode = .sync, threads: Bool = true, version: Int? = nil,
         responseLimit: Int? = nil, beforeSync: ((DatabaseQueue) throws -> Void)? = nil) throws {
        queue = try DatabaseQueue(path: dir.file("ofj.sqlite"))
        var m = Migrator()
        JournalStore.registerMigrations(into: &m)
        ConversationStore.registerMigrations(into: &m)
        SourceStore.registerMigrations(into: &m)
        if let beforeSync {
            try queue.migrate(m)
            try beforeSync(queue)
        }
        SyncSchema.registerMigrations(into: &m)
        try queue.migrate(m)
        journal = JournalStore(queue: queue, timeZone: utc)
        let configuration = SyncConfiguration(turso: try TursoConfiguration(databaseURL: url, authToken: token), mode: mode, threads: threads)
        var client = HranaClient(configuration: configuration.turso, transport: CurlTransport(),
                                 timeouts: HTTPTimeouts(connect: 2, firstByte: 10, idle: 10))
        client.forcedVersion = version
        if let responseLimit { client.responseLimit = responseLimit }
        engine = SyncEngine(local: SyncLocal(queue: queue), remote: SyncRemote(client: client), configuration: configuration, appVersion: "test")
    }

    var local: SyncLocal { engine.local }

    @discardableResult
    func sync() async throws -> SyncReport {
        let report = await engine.run()
        if let error = report.error { throw Failure(error) }
        return report
    }

    @discardableResult
    func log(_ name: String, kcal: Double, day: String = "2026-11-30", meal: Meal = .lunch, id: UUID? = nil) throws -> Entry {
        try journal.logEntry(EntryDraft(day: try CalendarDay(parsing: day), meal: meal, name: name, servings: 1,
                                        nutrients: try NutrientAmounts(["energy_kcal": kcal, "protein_g": kcal / 20]), id: id))
    }

    /// Every synced table in a fixed order, without local row numbers: equal dumps mean equal journals.
    func dump() throws -> String {
        try queue.read { db in
            var out = ""
            for row in try db.rows("SELECT \(SyncedKind.entry.columnOrder.joined(separator: ", ")) FROM journal_entries ORDER BY id") {
                out += "E " + (0..<SyncedKind.entry.columnOrder.count).map { "\(row[$0])" }.joined(separator: "|") + "\n"
            }
            for row in try db.rows("SELECT e.id, n.day, n.nutrient, n.amount, n.total FROM journal_entry_nutrients n JOIN journal_entries e ON e.seq = n.entry_seq ORDER BY e.id, n.nutrient") {
                out += "N " + (0..<5).map { "\(row[$0])" }.joined(separator: "|") + "\n"
            }
            for row in try db.rows("SELECT day, nutrient, total, reported FROM journal_day_totals ORDER BY day, nutrient") {
                out += "T " + (0..<4).map { "\(row[$0])" }.joined(separator: "|") + "\n"
            }
            for row in try db.rows("SELECT \(SyncedKind.food.columnOrder.joined(separator: ", ")) FROM journal_saved_foods ORDER BY id") {
                out += "F " + (0..<SyncedKind.food.columnOrder.count).map { "\(row[$0])" }.joined(separator: "|") + "\n"
            }
            for row in try db.rows("SELECT key, value FROM journal_settings ORDER BY key") {
                out += "S \(row[0])|\(row[1])\n"
            }
            for row in try db.rows("SELECT id, title, created_at FROM agent_threads ORDER BY id") {
                out += "H \(row[0])|\(row[1])|\(row[2])\n"
            }
            return out
        }
    }

    func count(_ table: String) throws -> Int { try queue.read { try $0.scalar("SELECT count(*) FROM \(table)").int ?? -1 } }

    /// Shifts this machine's clock (as seen by the hybrid logical clock) by `seconds`.
    func skewClock(seconds: Double) throws {
        try queue.write { try $0.execute("UPDATE sync_clock SET skew_us = ?", [Int64(seconds * 1_000_000)]) }
    }
}

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Runs SQL on the server's file directly (checks only; writes go through Hrana).
func remoteRows(_ path: String, _ sql: String) throws -> [Row] {
    let db = try Database(path: path)
    return try db.rows(sql)
}

/// A local server on a file the test can inspect.
struct Remote {
    let dir: TempDirectory
    let server: LocalTursoServer
    var url: String { server.url }
    var dbPath: String { dir.file("remote.sqlite") }
    static func start(arguments: [String] = [], token: String? = nil) async throws -> Remote {
        let dir = TempDirectory(prefix: "ofj-remote")
        let server = try await LocalTursoServer.start(token: token, db: dir.file("remote.sqlite"), arguments: arguments)
        return Remote(dir: dir, server: server)
    }
    init(dir: TempDirectory, server: LocalTursoServer) { self.dir = dir; self.server = server }
    func shutdown() async { await server.shutdown() }
}

/// Waits until SQLite's clock (millisecond resolution) has moved on, so that an edit made next
/// is later in time than the one before (two edits in one millisecond are ordered by device id).
func laterMillisecond() { usleep(3_000) }

/// A transport whose token "expires" after `allowed` requests: every later request gets 401.
final class ExpiringTokenTransport: HTTPTransport, @unchecked Sendable {
    let inner = CurlTransport()
    let lock = NSLock()
    var remaining: Int
    init(allowed: Int) { remaining = allowed }
    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        let allowed: Bool = lock.withLock { remaining -= 1; return remaining >= 0 }
        if allowed { return try await inner.send(request) }
        let body = AsyncThrowingStream<[UInt8], Error> { c in c.yield(Array("token expired".utf8)); c.finish() }
        return HTTPStreamingResponse(head: HTTPResponseHead(status: 401, headers: [HTTPHeader("Content-Type", "text/plain")]), body: body)
    }
}
