// One sync: push pending local changes in idempotent batches, then pull the remote's changes
// after this machine's position, page by page. Each step commits locally before the next.
import Hrana
import Foundation
import HTTP
import SQLiteKit

public struct SyncReport: Sendable, Hashable {
    public var pushed = 0
    public var pulled = 0
    public var applied = 0
    public var conflicts = 0
    /// Rows of a kind this ofj does not know.
    public var skipped = 0
    /// Rows that broke a rule, kept aside (`ofj sync quarantine`).
    public var quarantined = 0
    public var error: String?
    public var retryable = true
    public var retryAfter: Double?
    /// Local changes not sent because their payload is over `Limits.rowBytes` (no machine could read them).
    public var tooLarge = 0
    /// Why a pull stopped before the end (one of its caps), in one line; the next sync goes on.
    public var stopped: String?
    public var succeeded: Bool { error == nil }
    public init() {}
}

public struct SyncEngine: Sendable {
    public struct Limits: Sendable, Hashable {
        /// Records per push batch and payload bytes per batch: each request stays well under 1 MiB
        /// (JSON escaping of payload text adds about a fifth).
        public var batchRecords = 500
        public var batchBytes = 384 << 10
        /// Rows per pull page at most; halved on an answer too large, grown back after.
        public var pageRows = 1000
        /// A payload larger than this is not read (it arrives without its text and is quarantined):
        /// half the 10 MiB response limit, so one row and JSON escaping fit an answer.
        public var rowBytes = 5 << 20
        /// Caps of one pull: requests, rows, payload bytes and seconds. Reaching one ends the pull
        /// (what was applied stays, the position is kept) and says so; the next sync goes on.
        public var pullRequests = 500
        public var pullRows = 100_000
        public var pullBytes = 256 << 20
        public var pullSeconds = 300.0
        public init() {}
    }

    public let local: SyncLocal
    public let remote: SyncRemote
    public let configuration: SyncConfiguration
    public let appVersion: String
    public var limits = Limits()
    /// Called after each pushed batch and pulled page (counts so far), for a progress line.
    public var progress: (@Sendable (SyncReport) -> Void)?
    /// Test hook: called at each phase of `phases`.
    public var phase: (@Sendable (String) -> Void)?
    /// Where a sync can be interrupted: after the remote committed a push (before the local
    /// acknowledgement), after it, after a page was read, after a page was applied.
    public static let phases = ["push-sent", "push-acknowledged", "pull-read", "pull-applied"]
    let now: @Sendable () -> Date

    public init(local: SyncLocal, configuration: SyncConfiguration, transport: any HTTPTransport, appVersion: String,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.local = local
        self.configuration = configuration
        self.remote = SyncRemote(client: HranaClient(configuration: configuration.turso, transport: transport))
        self.appVersion = appVersion
        self.now = now
    }

    public init(local: SyncLocal, remote: SyncRemote, configuration: SyncConfiguration, appVersion: String,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.local = local
        self.remote = remote
        self.configuration = configuration
        self.appVersion = appVersion
        self.now = now
    }

    /// The remote was replaced (another database id) or lost its tables: set it up and bind again.
    struct RemoteChanged: Error {}

    /// Push then pull (push only in `push` mode). Never throws: the report carries the error,
    /// which is also stored for `ofj sync status`. The remote schema is created and checked on
    /// the first sync with a database; afterwards every batch's guard step checks it.
    public func run() async -> SyncReport {
        var report = SyncReport()
        do {
            var attempt = 0
            while true { // bounded: the second failure is rethrown
                do {
                    let bound = try local.state("remote_id")
                    if bound == nil || attempt > 0 {
                        try local.bind(remoteID: try await remote.migrate())
                    }
                    let expected = try local.state("remote_id")
                    try local.repairClock(now: now().timeIntervalSince1970)
                    let device = try local.device()
                    try await push(device: device, expected: expected, report: &report)
                    if configuration.mode == .sync { try await pull(device: device, expected: expected, report: &report) }
                    break
                } catch let e as SyncError where attempt == 0 && Self.isMissingTable(e) {
                    attempt += 1
                } catch is RemoteChanged where attempt == 0 {
                    attempt += 1
                }
            }
            try local.setState("last_success", String(now().timeIntervalSince1970))
            try local.setState("last_error", nil)
            try local.setState("retry_at", nil) // any success (also `ofj sync`) ends a backoff
        } catch {
            let message: String
            if let e = error as? SyncError {
                message = e.description
                report.retryable = e.isRetryable
                if case .remote(.rateLimited(let after)) = e { report.retryAfter = after }
            } else if let e = error as? DatabaseError {
                message = "could not write the synced changes here (\(e.message)); nothing of that page was kept, sync will retry later"
            } else if error is SyncLocal.ThreadAnswering {
                message = "a thread deleted on another machine is answering here; sync will delete it once the answer ends"
                report.retryable = true
            } else if error is RemoteChanged {
                message = "the sync database changed while syncing; sync will retry later"
            } else {
                message = "sync failed (\(String(describing: type(of: error))))"
            }
            report.error = message
            try? local.setState("last_error", message)
        }
        return report
    }

    static func isMissingTable(_ e: SyncError) -> Bool {
        if case .remote(.statement(let s)) = e { return s.message.lowercased().contains("no such table") }
        return false
    }

    /// Bounded: at most the records pending when it started (plus one batch of changes made
    /// meanwhile); later changes wait for the next sync. A batch the remote does not confirm
    /// exactly (the stamp it names is not the one sent, nor newer) ends the push with an error.
    func push(device: String, expected: String?, report: inout SyncReport) async throws {
        let budget = try local.status(threads: configuration.threads).pending + limits.batchRecords
        var sent = 0
        while sent < budget {
            try Task.checkCancellation()
            let (batch, tooLarge) = try local.pendingBatch(limit: limits.batchRecords, maxBytes: limits.batchBytes, threads: configuration.threads,
                                                           maxRecordBytes: limits.rowBytes)
            report.tooLarge = max(report.tooLarge, tooLarge)
            if batch.isEmpty { return }
            let result = try await remote.push(batch, device: device, appVersion: appVersion, now: now())
            phase?("push-sent")
            // Written to another database than the one this machine is bound to: not acknowledged.
            if result.databaseID != expected { throw RemoteChanged() }
            try local.acknowledge(batch, winners: result.winners, positionBefore: result.positionBefore,
                                  positionAfter: result.positionAfter, now: now().timeIntervalSince1970)
            phase?("push-acknowledged")
            report.pushed += batch.count
            sent += batch.count
            report.conflicts += batch.filter { r in result.winners[r.kind + "\u{1F}" + r.id].map { r.stamp < $0 } ?? false }.count
            progress?(report)
            // A record the remote did not confirm stays pending; stop rather than resend it forever.
            if batch.contains(where: { r in result.winners[r.kind + "\u{1F}" + r.id].map { $0 != r.stamp && $0 < r.stamp } ?? true }) {
                throw SyncError.unreadable("it did not confirm every change with the stamp that was sent")
            }
        }
    }

    /// Bounded: pages shrink to fit the response limit (a row too large on its own is
    /// quarantined by its metadata), and the pull ends at the first of its caps, at the end of the
    /// rows, or with an error on a cursor that does not advance.
    func pull(device: String, expected: String?, report: inout SyncReport) async throws {
        let threads = configuration.threads
        // Thread rows are not read while sync.threads is off; once it is on again, everything is
        // read again from the start (what is here already is skipped: equal stamps change nothing).
        if threads, try local.state("pulled_without_threads") != nil {
            try local.setState("remote_position", "0")
            try local.setState("pulled_without_threads", nil)
        } else if !threads, try local.state("pulled_without_threads") == nil {
            try local.setState("pulled_without_threads", "1")
        }
        var position = try local.remotePosition()
        var pageRows = max(1, limits.pageRows)
        var requests = 0, rows = 0, bytes = 0
        let started = now()
        while true {
            try Task.checkCancellation()
            let elapsed = now().timeIntervalSince(started)
            let cap: String? = requests >= limits.pullRequests ? "\(requests) requests"
                : rows >= limits.pullRows ? "\(rows) rows" : bytes >= limits.pullBytes ? "\(bytes >> 20) MiB"
                : elapsed >= limits.pullSeconds ? "\(Int(elapsed)) s" : nil
            if let cap {
                report.stopped = "pull stopped after \(cap), the most one sync reads; the next sync goes on from position \(position)"
                break
            }
            requests += 1
            let page: SyncRemote.PullPage
            do {
                page = try await remote.pull(after: position, limit: pageRows, rowBytes: limits.rowBytes, threads: threads, device: device,
                                             appVersion: appVersion, now: now())
            } catch SyncError.remote(.network(let why)) where why == HranaClient.answerTooLarge {
                if pageRows > 1 {
                    pageRows = max(1, pageRows / 2)
                    continue
                }
                // One row on its own is larger than an answer may be: kept aside by its metadata.
                requests += 1
                guard var row = try await remote.rowMetadata(after: position, threads: threads) else { throw SyncError.unreadable("a row too large to read") }
                row.problem = "the row is larger than an answer may be (\(remote.client.responseLimit) bytes)"
                let applied = try local.apply([row], threads: threads, now: now().timeIntervalSince1970)
                report.pulled += 1
                report.quarantined += applied.quarantined
                position = row.position
                continue
            }
            phase?("pull-read")
            if page.databaseID != expected { throw RemoteChanged() }
            let pageRowsRead = page.rows
            if pageRowsRead.isEmpty { break }
            let applied = try local.apply(pageRowsRead, threads: threads, now: now().timeIntervalSince1970)
            phase?("pull-applied")
            report.pulled += pageRowsRead.count
            report.applied += applied.applied
            report.conflicts += applied.conflicts
            report.skipped += applied.unknown
            report.quarantined += applied.quarantined
            rows += pageRowsRead.count
            bytes += page.bytes
            position = pageRowsRead.last?.position ?? position
            progress?(report)
            if pageRowsRead.count < pageRows { break }
            pageRows = min(max(1, limits.pageRows), pageRows * 2)
        }
        // Tombstone expiry (and the final position) at most once a day.
        let last = try local.state("last_purge").flatMap(Double.init) ?? 0
        if now().timeIntervalSince1970 - last > 86_400 {
            try await remote.recordPulled(device: device, position: position, appVersion: appVersion, now: now())
            try local.setState("last_purge", String(now().timeIntervalSince1970))
        }
    }
}
