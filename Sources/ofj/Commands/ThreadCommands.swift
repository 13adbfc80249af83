// `ofj search` and `ofj threads …`: threads and the journal's full-text index from the command
// line.
import Agent
import Base
import CommandLineKit
import Foundation
import Views
#if canImport(Glibc)
import Glibc
#endif
import Journal
import OutputSafety
import REPL

extension OfjCommands {
    static func search(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("search", summary: "full-text search of threads (messages, titles, tool activity) and journal entries, newest first; each word matches the start of a word",
                    details: "Thread results show the thread, the date and the words around the match; journal results the day, meal and entry.\nIn the REPL: /search TEXT, then /open N opens the thread of result N.",
                    arguments: [PositionalSpec("TEXT", variadic: true)],
                    options: [.flag("--threads", "only threads", excludes: ["--journal"]), .flag("--journal", "only journal entries"),
                              .value("--limit", "N", .integer(1...500), "at most N results of each kind", default: "20"), .json],
                    access: .read,
                    action: threadCommand(ctx) { c, inv in try c.search(inv.arguments) })
    }

    static func threads(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("threads", summary: "list the assistant's threads, newest first",
                    options: [.value("--limit", "N", .integer(1...10_000), "at most N threads", default: "50"), .json],
                    subcommands: [
                        CommandSpec("list", summary: "list the assistant's threads, newest first",
                                    options: [.value("--limit", "N", .integer(1...10_000), "at most N threads", default: "50"), .json],
                                    access: .read,
                                    action: threadCommand(ctx) { c, inv in try c.list(inv.arguments) }),
                        CommandSpec("show", summary: "a thread as Markdown (--json: as JSON), with tool activity and approvals",
                                    arguments: [PositionalSpec("ID")], options: [.json], access: .read,
                                    action: threadCommand(ctx) { c, inv in try c.show(inv.arguments) }),
                        CommandSpec("delete", summary: "delete a thread with its messages; asks on a terminal (--yes does not ask)",
                                    arguments: [PositionalSpec("ID")], options: [.flag("--yes", "delete without asking")], access: .write,
                                    action: threadCommand(ctx) { c, inv in try c.delete(inv.arguments, confirm: ThreadCommands.askOnTerminal) }),
                        CommandSpec("export", summary: "write a thread as Markdown or JSON (stdout unless -o; the file is private, 0600); never keys",
                                    arguments: [PositionalSpec("ID")],
                                    options: [.value("--format", "md|json", .choice(["md", "json"]), "the format", default: "md"), .output, .force],
                                    access: .read,
                                    action: threadCommand(ctx) { c, inv in try c.export(inv.arguments) }),
                    ],
                    access: .read,
                    action: threadCommand(ctx) { c, inv in try c.list(inv.arguments) })
    }

    /// A threads or search command: opens the database as the spec declares and runs `body`.
    static func threadCommand(_ ctx: CLIContext, _ body: @escaping @Sendable (ThreadCommands, CommandInvocation) throws -> Void) -> CommandAction {
        .sync { inv in
            try body(ThreadCommands(journal: try openJournal(ctx, inv)), inv)
            return 0
        }
    }
}

struct ThreadCommands {
    let journal: JournalStore
    let store: ConversationStore
    let out: (String) -> Void

    init(journal: JournalStore) {
        self.journal = journal
        self.store = ConversationStore(queue: journal.queue)
        self.out = { writeOut($0) }
    }

    func printJSON(_ value: JSONValue) {
        out(TerminalText.escapingJSON(PrettyJSON.format(value)).trimmingCharacters(in: .newlines))
    }

    // MARK: - search

    func search(_ p: ParsedArguments) throws {
        let text = p.positionals.joined(separator: " ")
        let scope: SearchScope = p.has("--threads") ? .threads : p.has("--journal") ? .journal : .all
        let limit = Int(p.value("--limit") ?? "") ?? SearchViews.defaultLimit
        let results: [SearchResult]
        do { results = try SearchViews.search(text, scope: scope, store: store, journal: journal, limit: limit) } catch let e as NothingToSearchFor {
            throw UsageError(e.description, command: "ofj search")
        }
        if p.has("--json") {
            printJSON(SearchViews.json(results, query: text, timeZone: journal.timeZone))
        } else {
            // No "/open N" hint on the command line: `ofj threads show ID` opens a result.
            var lines = SearchViews.text(results, query: text, timeZone: journal.timeZone).split(separator: "\n").map(String.init)
            if lines.last?.hasPrefix("/open N") == true { lines[lines.count - 1] = "ofj threads show ID shows a thread." }
            out(lines.joined(separator: "\n"))
        }
    }

    // MARK: - threads

    func thread(_ key: String) throws -> ThreadSummary {
        switch try store.findThread(idPrefix: key) {
        case .found(let t): return t
        case .ambiguous(let matches): throw CLIError(ThreadMatch.ambiguityMessage(key, matches), status: 2)
        case .none: throw CLIError("no thread with id '\(TerminalText.sanitize(String(key.prefix(40)), keepNewlines: false))'; ofj threads lists them", status: 2)
        }
    }

    func list(_ p: ParsedArguments) throws {
        let limit = Int(p.value("--limit") ?? "") ?? 50
        let threads = try store.listThreads(limit: limit)
        let counts = try threads.map { try store.messageCount(threadID: $0.id) }
        if p.has("--json") {
            printJSON(["threads": .array(zip(threads, counts).map { t, n in
                var o: [String: JSONValue] = ["id": .string(t.id), "title": .string(t.title), "messages": .number(Double(n)),
                                              "created_at": .string(SearchViews.isoTime(t.createdAt, journal.timeZone)),
                                              "updated_at": .string(SearchViews.isoTime(t.updatedAt, journal.timeZone))]
                if let p = t.provider { o["provider"] = .string(p) }
                if let m = t.model { o["model"] = .string(m) }
                return .object(o)
            })])
            return
        }
        guard !threads.isEmpty else { out("No threads yet. Start one with ofj, or ofj ask \"…\"."); return }
        for (t, n) in zip(threads, counts) {
            out("\(t.id.prefix(8))  \(SearchViews.dateLabel(t.updatedAt, journal.timeZone))  \(String(n).leftPadded(6)) msgs  "
                + TerminalText.sanitize(t.title, keepNewlines: false))
        }
    }

    func show(_ p: ParsedArguments) throws {
        let t = try thread(p.positionals[0])
        out(TerminalText.sanitize(try ThreadExport.render(t, format: p.has("--json") ? .json : .md, store: store, timeZone: journal.timeZone))
            .trimmingCharacters(in: .newlines))
    }

    func export(_ p: ParsedArguments) throws {
        let t = try thread(p.positionals[0])
        let format = ThreadExport.Format(rawValue: p.value("--format") ?? "md") ?? .md
        let text = try ThreadExport.render(t, format: format, store: store, timeZone: journal.timeZone)
        guard let path = p.value("-o") ?? p.value("--output"), path != "-" else {
            out(format == .md ? TerminalText.sanitize(text).trimmingCharacters(in: .newlines) : text.trimmingCharacters(in: .newlines))
            return
        }
        try ThreadExport.write(text, to: path, force: p.has("--force"), forceHint: "--force")
        Console.err("ofj: wrote \(TerminalText.sanitize(path, keepNewlines: false)) (\(format.rawValue), \(text.utf8.count) bytes)\n")
    }

    func delete(_ p: ParsedArguments, confirm: (String) -> Bool?) throws {
        let t = try thread(p.positionals[0])
        if !p.has("--yes") {
            let n = try store.messageCount(threadID: t.id)
            let question = "Delete “\(TerminalText.sanitize(t.title, keepNewlines: false))” and its \(n) messages? This cannot be undone. [y/N] "
            guard let answer = confirm(question) else {
                throw CLIError("ofj threads delete asks first on a terminal; add --yes to delete without asking", status: 2)
            }
            guard answer else { out("Kept."); return }
        }
        do { try store.deleteThread(t.id) } catch let e as AgentError { throw CLIError(e.line) }
        out("Deleted thread \(t.id.prefix(8)) “\(TerminalText.sanitize(t.title, keepNewlines: false))”.")
    }

    /// Asks on the terminal; nil when stdin is not a terminal (scripts must pass --yes).
    static func askOnTerminal(_ question: String) -> Bool? {
        guard isatty(0) == 1 else { return nil }
        Console.err(question)
        guard let line = readLine() else { return false }
        return ["y", "yes"].contains(line.trimmingCharacters(in: .whitespaces).lowercased())
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
