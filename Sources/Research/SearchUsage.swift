// What web searches cost: Tavily's reported credits and an estimate for Parallel, per thread and
// per day, for `/usage`. Never the query.
import Agent
import Base
import Foundation
import SQLiteKit

/// Search prices ofj estimates with. Parallel does not report a cost per request; Tavily reports
/// credits (a basic search is 1), shown as credits, not money.
public enum SearchPricing {
    /// Parallel Search API, per request (USD): the author's knowledge of Parallel's published
    /// price on `checkedOn`, not a live check.
    public static let parallelUSDPerRequest = 0.005
    public static let checkedOn = "2026-12-01"
}

/// One backend's searches in a period.
public struct SearchUsageTotal: Sendable, Hashable {
    public var backend: String
    public var searches: Int
    public var requests: Int
    public var credits: Double?
    public var estimatedUSD: Double?
}

extension SourceStore {
    static func registerUsageMigration(into migrator: inout Migrator) {
        migrator.register("research-2-search-usage", sql: """
            CREATE TABLE research_search_usage (
                id INTEGER PRIMARY KEY,
                thread_id TEXT NOT NULL,
                run_id TEXT,
                backend TEXT NOT NULL,
                at REAL NOT NULL,
                requests INTEGER NOT NULL,
                credits REAL,
                estimated_usd REAL
            );
            CREATE INDEX research_search_usage_thread ON research_search_usage (thread_id);
            CREATE INDEX research_search_usage_at ON research_search_usage (at);
            """)
    }

    /// Records one web_search: the backend, how many HTTP requests it made, the credits the
    /// backend reported and the estimated price.
    public func recordSearchUsage(threadID: String, runID: String?, backend: SearchBackend, at: Double, requests: Int, credits: Double?) throws {
        let estimate: Double? = backend == .parallel ? Double(requests) * SearchPricing.parallelUSDPerRequest : nil
        try queue.write { db in
            try db.execute("""
                INSERT INTO research_search_usage (thread_id, run_id, backend, at, requests, credits, estimated_usd)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, [threadID, runID, backend.rawValue, at, requests, credits, estimate])
        }
    }

    /// Totals per backend for a thread, or for the day containing `now` (local day at `secondsFromGMT`).
    public func searchUsage(threadID: String? = nil, dayContaining now: Double? = nil, secondsFromGMT: Int = 0) throws -> [SearchUsageTotal] {
        var conditions: [String] = []
        var arguments: [DatabaseValueConvertible] = []
        if let threadID {
            conditions.append("thread_id = ?")
            arguments.append(threadID)
        }
        if let now {
            let offset = Double(secondsFromGMT)
            let start = ((now + offset) / 86_400).rounded(.down) * 86_400 - offset
            conditions.append("at >= ? AND at < ?")
            arguments += [start, start + 86_400]
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return try queue.read { db in
            try db.rows("""
                SELECT backend, COUNT(*), SUM(requests), SUM(credits), SUM(estimated_usd) FROM research_search_usage
                \(filter) GROUP BY backend ORDER BY backend
                """, arguments).map { row in
                // SUM over rows with no credits or estimate is NULL: not reported.
                SearchUsageTotal(backend: try row.decode(0), searches: try row.decode(1), requests: try row.decode(2),
                                 credits: try row.decodeIfPresent(3), estimatedUSD: try row.decodeIfPresent(4))
            }
        }
    }

    /// Searches a provider ran itself (its `WebSources` items), per backend, for a thread or a
    /// period. Counted from the stored turns, so nothing is counted twice.
    public func nativeSearches(threadID: String? = nil, dayContaining now: Double? = nil, secondsFromGMT: Int = 0) throws -> [SearchUsageTotal] {
        try queue.read { db in
            var day: Range<Double>?
            if let now {
                let offset = Double(secondsFromGMT)
                let start = ((now + offset) / 86_400).rounded(.down) * 86_400 - offset
                day = start..<(start + 86_400)
            }
            var counts: [String: Int] = [:]
            for item in try ConversationStore.webSources(threadID: threadID, createdIn: day, in: db) {
                let web = item.sources
                // A turn that cited pages without reporting its searches searched at least once.
                let searches = max(web.searches.filter { !$0.query.isEmpty }.count, web.citations.isEmpty && web.searches.isEmpty ? 0 : 1)
                if searches > 0 { counts[web.backend, default: 0] += searches }
            }
            return counts.sorted { $0.key < $1.key }.map {
                SearchUsageTotal(backend: $0.key, searches: $0.value, requests: $0.value, credits: nil, estimatedUSD: nil)
            }
        }
    }

    /// `/usage` lines: "Web search, this thread: …" and "Web search, today: …"; none when nothing was searched.
    public func usageLines(threadID: String, now: Double, secondsFromGMT: Int) throws -> [String] {
        func line(_ label: String, _ totals: [SearchUsageTotal]) -> String? {
            guard !totals.isEmpty else { return nil }
            let parts = totals.map { t -> String in
                let searches = "\(t.searches) search\(t.searches == 1 ? "" : "es")"
                switch t.backend {
                case "tavily":
                    let credits = t.credits.map { "\(Self.plain($0)) credit\($0 == 1 ? "" : "s")" } ?? "credits not reported"
                    return "Tavily \(searches), \(credits)"
                case "parallel":
                    return "Parallel \(searches), \(t.requests) request\(t.requests == 1 ? "" : "s") ≈ " + String(format: "$%.3f", t.estimatedUSD ?? 0)
                default:
                    // The provider's own search: billed by the provider, not estimated here.
                    return "\(t.backend.prefix(1).uppercased() + t.backend.dropFirst()) \(searches) (billed by the provider)"
                }
            }
            return "Web search, \(label): " + parts.joined(separator: " · ")
        }
        let thread = try searchUsage(threadID: threadID) + nativeSearches(threadID: threadID)
        let day = try searchUsage(dayContaining: now, secondsFromGMT: secondsFromGMT) + nativeSearches(dayContaining: now, secondsFromGMT: secondsFromGMT)
        var lines = [line("this thread", thread), line("today", day)].compactMap { $0 }
        if (thread + day).contains(where: { $0.backend == "parallel" }) {
            lines.append(String(format: "Parallel is estimated at $%.3f per request (its price on %@; not a live check).",
                                SearchPricing.parallelUSDPerRequest, SearchPricing.checkedOn))
        }
        return lines
    }

    static func plain(_ v: Double) -> String {
        v.rounded() == v && abs(v) < 1e15 ? String(Int64(v)) : String(format: "%.1f", v)
    }
}
