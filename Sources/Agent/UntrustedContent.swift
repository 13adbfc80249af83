// What entered a conversation from outside the person (issue 31): fetched pages, search results,
// attached files, packaged-food text, messages synced from another machine. Each read is stored in
// `agent_untrusted_reads`; while a thread has reads the person's last message has not cleared (its
// "mark"), no write runs on a thread grant or an allow rule — the person sees a card naming every
// such read — and deny rules still apply. The person's next message clears the mark.
import Base
import SQLiteKit

/// One piece of content from outside the person, as a card and `/sources` name it.
public struct UntrustedRead: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case webPage = "web_page", webSearch = "web_search", attachment, packagedFood = "packaged_food", syncedMessage = "synced_message"

        /// "web page", as a card names it.
        public var noun: String {
            switch self {
            case .webPage: return "web page"
            case .webSearch: return "web search results"
            case .attachment: return "attached file"
            case .packagedFood: return "packaged-food text"
            case .syncedMessage: return "synced"
            }
        }
    }

    public var kind: Kind
    /// What it was: a URL, a query, a file name, a barcode, "messages from another machine".
    public var label: String

    public init(kind: Kind, label: String) {
        self.kind = kind
        // A label blank once cleaned (spaces, controls, direction overrides) still names a read:
        // a read is never dropped for its name.
        let printable = Self.printable(label)
        self.label = printable.isEmpty ? (kind == .syncedMessage ? "messages synced from another machine" : "(no printable name)") : printable
    }

    /// "web page https://example.com/donut" (one line).
    public var text: String { kind == .syncedMessage ? label : "\(kind.noun) \(label)" }

    /// One line of at most 160 characters, without controls or direction overrides.
    static func printable(_ s: String) -> String {
        let cleaned = String(String.UnicodeScalarView(s.unicodeScalars.map { u -> Unicode.Scalar in
            u.value < 0x20 || (0x7F...0x9F).contains(u.value) || (0x202A...0x202E).contains(u.value) || (0x2066...0x2069).contains(u.value)
                || u.value == 0x2028 || u.value == 0x2029 ? " " : u
        })).trimmingSpaces()
        return cleaned.count > 160 ? String(cleaned.prefix(159)) + "…" : cleaned
    }
}

/// A stored read of untrusted content.
public struct UntrustedReadRecord: Sendable, Hashable {
    public var id: Int64
    public var threadID: String
    public var runID: String?
    public var read: UntrustedRead
    public var readAt: Double
    /// When the person's next message cleared it (nil: it still stands).
    public var clearedAt: Double?
}

/// One decision about a write as `agent_approvals` keeps it.
public struct ApprovalRecord: Sendable, Hashable {
    public var callID: String
    public var toolName: String
    public var decision: String
    /// person, person_edited, thread_grant or rule.
    public var source: String
    /// The rule that decided (source rule): "rule 2 (allow log_food when energy_kcal < 800)".
    public var rule: String?
    /// The untrusted content the card named (empty when the thread had no mark).
    public var untrusted: [UntrustedRead]
    /// The grant or allow rule that did not decide because of the mark.
    public var standingNotUsed: String?
}

/// How a card and `ofj ask` explain the mark.
public enum UntrustedContent {
    /// At most this many reads are named on one card (then "and N more, /sources lists them").
    public static let namedOnCard = 20

    /// "web page https://…; web search results "donut kcal"" (at most `namedOnCard`).
    public static func list(_ reads: [UntrustedRead]) -> String {
        let shown = reads.prefix(namedOnCard).map(\.text).joined(separator: "; ")
        let more = reads.count > namedOnCard ? "; and \(reads.count - namedOnCard) more (/sources lists them)" : ""
        return shown + more
    }

    /// The line above a card while the thread's mark stands. `standing`: the grant or allow rule
    /// that would have approved the change without asking, if one would have.
    public static func cardHeader(_ reads: [UntrustedRead], standing: String?) -> String {
        var line = "Untrusted content was read since your last message: \(list(reads)). It may carry instructions meant for the assistant; check this change yourself"
        if let standing { line += " — your \(standing) \(standing.contains(" and your ") ? "are" : "is") not used for it until you send your next message" }
        return line + "."
    }

    /// What `ofj ask` (which asks nobody) says about a card: without --yes, that the write was
    /// refused — and, after untrusted content, what was read, which rule did not apply and how to
    /// approve; with --yes, that --yes approved it although untrusted content was read ("" when
    /// there was none).
    public static func askLine(_ r: ApprovalRequest, yes: Bool) -> String {
        let what = list(r.untrusted)
        if yes {
            return r.untrusted.isEmpty ? "" : "--yes approved \(r.toolName) although untrusted content was read since your last message (\(what))"
        }
        guard !r.untrusted.isEmpty else { return "refused \(r.toolName) (writes need --yes in ofj ask)" }
        let standing = r.standingNotUsed.map { ", so your \($0) does not apply to it" } ?? ""
        return "refused \(r.toolName): untrusted content was read since your last message (\(what))\(standing); "
            + "to approve it, run again with --yes (approves every write of that run) or answer its card in the REPL (ofj --resume)"
    }

    /// The name a thread grant has on a card and in the approvals table.
    public static let threadGrant = "\"always for this thread\""
}

extension ConversationStore {
    /// Records reads of untrusted content in `threadID` (in the caller's transaction; `now` nil:
    /// the database's clock). A read the standing mark already names (same kind and label) is not
    /// added again, so a thread's rows stay bounded by what it read.
    public static func recordUntrusted(_ db: Database, threadID: String, runID: String?, reads: [UntrustedRead], now: Double?) throws {
        for read in reads {
            try db.execute("""
                INSERT INTO agent_untrusted_reads (thread_id, run_id, kind, label, read_at)
                SELECT ?1, ?2, ?3, ?4, coalesce(?5, (julianday('now') - 2440587.5) * 86400.0) WHERE EXISTS (SELECT 1 FROM agent_threads WHERE id = ?1)
                  AND NOT EXISTS (SELECT 1 FROM agent_untrusted_reads WHERE thread_id = ?1 AND cleared_at IS NULL AND kind = ?3 AND label = ?4)
                """, [threadID, runID, read.kind.rawValue, read.label, now])
        }
    }

    /// The person's new message clears the thread's mark (in the caller's transaction).
    static func clearUntrusted(_ db: Database, threadID: String, messageID: Int64, now: Double) throws {
        try db.execute("UPDATE agent_untrusted_reads SET cleared_at = ?, cleared_by_message_id = ? WHERE thread_id = ? AND cleared_at IS NULL",
                       [now, messageID, threadID])
    }

    /// The reads that mark the thread now (since the person's last message), oldest first.
    public static func standingUntrusted(_ db: Database, threadID: String) throws -> [UntrustedReadRecord] {
        try db.rows("""
            SELECT id, thread_id, run_id, kind, label, read_at, cleared_at FROM agent_untrusted_reads
            WHERE thread_id = ? AND cleared_at IS NULL ORDER BY id
            """, [threadID]).map(Self.untrustedRecord)
    }

    /// Every read of untrusted content in the thread, cleared ones too, oldest first.
    public func untrustedReads(threadID: String) throws -> [UntrustedReadRecord] {
        try queue.read { db in
            try db.rows("""
                SELECT id, thread_id, run_id, kind, label, read_at, cleared_at FROM agent_untrusted_reads WHERE thread_id = ? ORDER BY id
                """, [threadID]).map(Self.untrustedRecord)
        }
    }

    /// The reads marking the thread now.
    public func standingUntrusted(threadID: String) throws -> [UntrustedReadRecord] {
        try queue.read { try Self.standingUntrusted($0, threadID: threadID) }
    }

    static func untrustedRecord(_ r: Row) throws -> UntrustedReadRecord {
        let name: String = try r.decode(3)
        // A kind this ofj does not know is an error, never read as some other kind.
        guard let kind = UntrustedRead.Kind(rawValue: name) else {
            throw RowDecodingError(column: "agent_untrusted_reads.kind", expected: "one of ofj's kinds of read", found: "other text")
        }
        return UntrustedReadRecord(id: try r.decode(0), threadID: try r.decode(1), runID: try r.decodeIfPresent(2),
                                   read: UntrustedRead(kind: kind, label: try r.decode(4)),
                                   readAt: try r.decode(5), clearedAt: try r.decodeIfPresent(6))
    }

    /// The reads a native web search turn (a `WebSources` continuation item) brought in.
    static func untrustedReads(of item: ContinuationItem) -> [UntrustedRead] {
        guard item.provider == WebSources.provider, let json = try? JSONValue.parse(item.payload), let sources = WebSources(json: json) else { return [] }
        var reads: [UntrustedRead] = []
        for s in sources.searches {
            reads.append(UntrustedRead(kind: .webSearch, label: s.query.isEmpty ? "(\(sources.backend) search)" : "\"\(s.query)\" (\(sources.backend) search)"))
        }
        for p in sources.pages { reads.append(UntrustedRead(kind: .webPage, label: p.url)) }
        if reads.isEmpty && !sources.citations.isEmpty {
            reads.append(UntrustedRead(kind: .webSearch, label: "(\(sources.backend) search, \(sources.citations.count) cited)"))
        }
        // A search that ran (or was offered, its results in the prompt) but reported nothing.
        if reads.isEmpty && sources.searched { reads.append(UntrustedRead(kind: .webSearch, label: "(\(sources.backend) search)")) }
        return Array(reads.prefix(40))
    }
}
