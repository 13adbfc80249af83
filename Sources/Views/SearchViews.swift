// `ofj search` and `/search`: full-text search over threads and the journal, one result list
// for both frontends (numbered, so `/open N` can open a thread result).
import Agent
import Base
import Foundation
import Journal
import OutputSafety
import SQLiteKit

public enum SearchScope: String, Sendable { case all, threads, journal }

/// Search text holding no letter or digit: a mistake in what was typed (the CLI exits 2).
public struct NothingToSearchFor: Error, CustomStringConvertible, Sendable {
    public var description: String { "give a word to search for (letters or digits)" }
}

/// One numbered result: a place in a thread, or a journal entry.
public enum SearchResult: Sendable, Hashable {
    case thread(ThreadSearchHit)
    case entry(Entry)
    /// A day note (issue 34 §8).
    case note(DayNote)

    public var threadID: String? { if case .thread(let h) = self { return h.threadID } else { return nil } }
}

public enum SearchViews {
    /// At most this many results of each kind.
    public static let defaultLimit = 20

    /// Thread results first (newest first), then journal entries (newest day first). Throws
    /// `NothingToSearchFor` when the text holds nothing to search for.
    public static func search(_ text: String, scope: SearchScope, store: ConversationStore, journal: JournalStore,
                              limit: Int = defaultLimit) throws -> [SearchResult] {
        guard let query = FullTextQuery(text) else {
            throw NothingToSearchFor()
        }
        var results: [SearchResult] = []
        if scope != .journal {
            results += try store.searchThreads(matching: query, limit: limit).map(SearchResult.thread)
        }
        if scope != .threads {
            results += try journal.queue.read { db in
                try journal.searchEntries(query.words.joined(separator: " "), limit: limit, in: db)
            }.map(SearchResult.entry)
            results += try journal.searchNotes(query.words.joined(separator: " "), limit: limit).map(SearchResult.note)
        }
        return results
    }

    /// The results as lines: "N. date  where  snippet". `highlight` wraps matched words (bold on
    /// a colour terminal, nothing otherwise).
    public static func text(_ results: [SearchResult], query: String, timeZone: TimeZone,
                            highlight: (String) -> String = { $0 }) -> String {
        guard !results.isEmpty else {
            // A pasted page as the query is named by its start, not echoed whole.
            let shown = query.count > 60 ? String(query.prefix(60)) + "…" : query
            return "Nothing matches '\(JournalViews.safeName(shown))'."
        }
        var lines: [String] = []
        for (i, r) in results.enumerated() {
            let n = "\(i + 1).".padding(toLength: 4, withPad: " ", startingAt: 0)
            switch r {
            case .thread(let h):
                let what: String
                switch h.kind {
                case .title: what = "title"
                case .message: what = h.detail == "user" ? "you" : "assistant"
                case .tool: what = "tool " + JournalViews.safeName(h.detail ?? "")
                }
                lines.append("\(n)\(dateLabel(h.at, timeZone)) “\(JournalViews.safeName(URLCredentials.redact(h.threadTitle)))” (\(h.threadID.prefix(8))) · \(what): "
                             + snippet(h.snippet, highlight: highlight))
            case .entry(let e):
                lines.append("\(n)\(e.day) \(JournalViews.safeName(e.mealName))  " + JournalViews.entryLine(e))
            case .note(let note):
                let text = note.text.count > 120 ? String(note.text.prefix(119)) + "…" : note.text
                lines.append("\(n)\(note.day) note  " + JournalViews.safeName(text.replacingOccurrences(of: "\n", with: " ")))
            }
        }
        if results.contains(where: { $0.threadID != nil }) { lines.append("/open N opens the thread of result N.") }
        return lines.joined(separator: "\n")
    }

    /// The results as JSON (one object with a `results` array).
    public static func json(_ results: [SearchResult], query: String, timeZone: TimeZone) -> JSONValue {
        let items: [JSONValue] = results.map { r in
            switch r {
            case .thread(let h):
                var o: [String: JSONValue] = ["type": .string(h.kind.rawValue), "thread_id": .string(h.threadID),
                                              "thread_title": .string(URLCredentials.redact(h.threadTitle)), "at": .string(isoTime(h.at, timeZone)),
                                              "snippet": .string(snippet(h.snippet, highlight: { $0 }))]
                if let d = h.detail { o[h.kind == .tool ? "tool" : "role"] = .string(d) }
                return .object(o)
            case .entry(let e):
                var o: [String: JSONValue] = ["type": "entry", "entry_id": .string(e.id.uuidString.lowercased()), "date": .string(e.day.description),
                                              "meal": .string(e.meal.rawValue), "name": .string(e.name)]
                if let b = e.brand { o["brand"] = .string(b) }
                if let kcal = e.totalNutrients["energy_kcal"] { o["energy_kcal"] = .number((kcal * 10).rounded() / 10) }
                return .object(o)
            case .note(let note):
                return ["type": "note", "note_id": .string(note.id.uuidString.lowercased()), "date": .string(note.day.description), "text": .string(note.text)]
            }
        }
        return ["query": .string(query), "results": .array(items)]
    }

    /// A snippet on one line, sanitised, credentials in URLs hidden (as in exports), with the
    /// matched words passed through `highlight`.
    static func snippet(_ raw: String, highlight: (String) -> String) -> String {
        let raw = URLCredentials.redact(raw)
        var out = "", current = "", inMatch = false
        func flush() {
            let clean = Terminal.sanitize(current, keepNewlines: false)
            out += inMatch && !clean.isEmpty ? highlight(clean) : clean
            current = ""
        }
        for c in raw {
            if c == ThreadSearchHit.markStart { flush(); inMatch = true } else if c == ThreadSearchHit.markEnd { flush(); inMatch = false } else { current.append(c) }
        }
        flush()
        return out
    }

    public static func dateLabel(_ seconds: Double, _ zone: TimeZone) -> String { format(seconds, zone, "yyyy-MM-dd HH:mm") }

    public static func isoTime(_ seconds: Double, _ zone: TimeZone) -> String { format(seconds, zone, "yyyy-MM-dd'T'HH:mm:ssXXXXX") }

    static func format(_ seconds: Double, _ zone: TimeZone, _ pattern: String) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = zone
        f.dateFormat = pattern
        return f.string(from: Date(timeIntervalSince1970: seconds))
    }
}
