// Provider-native search as durable sources, and the links an answer used.
//
// A provider's own search (Anthropic, OpenAI Responses, Gemini, OpenRouter, Perplexity) happens on
// its servers; the adapter leaves a `WebSources` continuation item in the stored turn. Here those
// items become `research_sources` rows (a `search` source per result set, a `page` source per page
// the provider read), so `/sources`, `read_conversation_source` and write cards treat them like
// the sources web_search and fetch_url keep. Harvesting is idempotent (a source already kept is
// found by URL and text) and runs where the sources are needed: before a write card, `/sources`,
// `read_conversation_source` and an answer's source links.
import Agent
import Base
import Foundation
import SQLiteKit

/// One numbered link under an answer.
public struct SourceLink: Sendable, Hashable {
    public var url: String
    public var title: String
    public init(url: String, title: String) {
        self.url = url
        self.title = title
    }
}

extension SourceStore {
    /// Keeps the native search results and pages of the thread (or one run) as sources; the
    /// stored turns are read through the conversation store.
    static func harvest(threadID: String, runID: String?, in db: Database) throws {
        for item in try ConversationStore.webSources(threadID: threadID, runID: runID, in: db) {
            for (kind, url, title, text) in Self.rows(item.sources) {
                _ = try Self.record(db, threadID: threadID, runID: item.runID, kind: kind, url: url, title: title, text: text,
                                    fetchedAt: item.createdAt, touch: false)
            }
        }
    }

    /// What one WebSources item keeps: a `search` source per result set (citations alone, as
    /// Perplexity and OpenRouter give them, count as one) and a `page` source per page read.
    static func rows(_ w: WebSources) -> [(kind: String, url: String, title: String, text: String)] {
        var out: [(String, String, String, String)] = []
        var searches = w.searches.filter { !$0.results.isEmpty }
        if searches.isEmpty && !w.citations.isEmpty { searches = [WebSources.Search(query: "", results: w.citations)] }
        for s in searches {
            let text = numbered(s.results.map { ($0.title, $0.url, $0.text) })
            let label = "search:\(w.backend):" + (s.query.isEmpty ? "cited \(s.results.count) pages" : s.query)
            out.append(("search", String(label.prefix(500)), String((s.query.isEmpty ? "\(w.backend) web search" : s.query).prefix(120)), text))
        }
        for p in w.pages {
            let text = p.text.isEmpty ? "(\(w.backend) read this page; its text was not returned to ofj)" : p.text
            out.append(("page", p.url, p.title, String(text.prefix(40_000))))
        }
        return out
    }

    /// "[1] Title (date)\nurl\nsnippet" blocks: the text of every search source.
    static func numbered(_ results: [(title: String, url: String, snippet: String)]) -> String {
        results.enumerated().map { i, r in
            "[\(i + 1)] \(r.title)\n\(r.url)" + (r.snippet.isEmpty ? "" : "\n\(String(r.snippet.prefix(600)))")
        }.joined(separator: "\n\n")
    }

    /// The URLs of a search source's text, in order (the lines after each "[n] " line).
    static func resultURLs(_ text: String) -> [String] { resultLinks(text).map(\.url) }

    /// The results of a search source's text: each "[n] Title (date)" line and the URL under it.
    static func resultLinks(_ text: String) -> [SourceLink] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var links: [SourceLink] = []
        for (i, line) in lines.enumerated() where line.hasPrefix("[") && i + 1 < lines.count {
            guard let close = line.firstIndex(of: "]"), line[line.index(after: line.startIndex)..<close].allSatisfy(\.isNumber) else { continue }
            let next = lines[i + 1]
            guard next.hasPrefix("https://") || next.hasPrefix("http://") else { continue }
            var title = line[line.index(after: close)...].trimmingCharacters(in: .whitespaces)
            // web_search adds the publication date in parentheses.
            if title.hasSuffix(")"), let open = title.range(of: " (", options: .backwards),
               title[open.upperBound...].dropLast().allSatisfy({ $0.isNumber || $0 == "-" || $0 == ":" || $0 == "T" || $0 == "Z" }) {
                title = String(title[..<open.lowerBound])
            }
            links.append(SourceLink(url: String(next), title: title))
        }
        return links
    }

    /// Harvests the thread's native sources (for `/sources` and `read_conversation_source`).
    public func harvest(threadID: String) throws {
        try queue.write { db in try Self.harvest(threadID: threadID, runID: nil, in: db) }
    }

    /// The links an answer used, numbered under it: the pages the provider cited, then the pages
    /// read in the run (fetch_url, a provider's fetch); when neither, the first results of the
    /// run's searches. At most `limit`.
    public func links(threadID: String, runID: String, limit: Int = 8) throws -> [SourceLink] {
        // Most answers use no web source: only a run with native search items takes the write lock.
        if try queue.read({ db in try !ConversationStore.webSources(threadID: threadID, runID: runID, in: db).isEmpty }) {
            try queue.write { db in try Self.harvest(threadID: threadID, runID: runID, in: db) }
        }
        return try queue.read { db in
            var links: [SourceLink] = []
            func add(_ url: String, _ title: String) {
                guard !url.isEmpty, !links.contains(where: { $0.url == url }) else { return }
                links.append(SourceLink(url: url, title: title))
            }
            let items = try ConversationStore.webSources(threadID: threadID, runID: runID, in: db)
            for item in items { for c in item.sources.citations { add(c.url, c.title) } }
            let used = try Self.sources(threadID: threadID, runID: runID, in: db)
            for s in used where s.kind == "page" { add(s.url, s.title) }
            if links.isEmpty {
                for s in used where s.kind == "search" {
                    for link in Self.resultLinks(s.text) { add(link.url, link.title) }
                }
            }
            return Array(links.prefix(limit))
        }
    }

    /// "Sources:" and one numbered line per link, or nil when the answer used none.
    public func footer(threadID: String, runID: String, limit: Int = 8) throws -> String? {
        let links = try links(threadID: threadID, runID: runID, limit: limit)
        guard !links.isEmpty else { return nil }
        var lines = ["Sources:"]
        for (i, link) in links.enumerated() {
            let title = link.title.isEmpty ? "" : "\(link.title.prefix(80)) — "
            lines.append("  \(i + 1). \(title)\(link.url.prefix(300))")
        }
        return lines.joined(separator: "\n")
    }
}
