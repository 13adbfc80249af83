// The REPL's slash commands as one list: each command's name, arguments, help, what Tab offers
// after it and what it does. `/help`, "did you mean" and Tab completion all come from this list,
// so adding a slash command is one entry (its longer handlers are REPLSession methods).
import Agent
import Base
import Foundation
import Views

/// What Tab offers after a slash command's name.
public enum SlashArguments: Sendable {
    /// Free text: nothing to offer.
    case freeText
    /// Thread ids and titles (the whole argument is replaced).
    case threads
    /// The model names the session knows.
    case models
    /// Whole Food Bank names.
    case foodNames
    /// File and folder names.
    case files
    /// Fixed words: for the first argument only, or for any.
    case words([String], firstOnly: Bool)
}

public struct SlashCommand: Sendable {
    public let name: String
    public let arguments: String
    public let help: String
    /// Other names that run it (`/quit`); neither listed nor completed.
    public let aliases: [String]
    public let completes: SlashArguments
    /// What it does with the text after its name; a thrown error is shown as one ✗ line.
    let action: @MainActor @Sendable (REPLSession, String) async throws -> Void

    init(_ name: String, _ arguments: String = "", help: String, aliases: [String] = [], completes: SlashArguments = .freeText,
         _ action: @escaping @MainActor @Sendable (REPLSession, String) async throws -> Void) {
        self.name = name
        self.arguments = arguments
        self.help = help
        self.aliases = aliases
        self.completes = completes
        self.action = action
    }
}

public enum SlashCommands {
    /// The providers `/provider` offers on Tab.
    static let providerNames = ["offline", "gemini", "openai", "openrouter", "azure", "anthropic", "ollama", "llamacpp", "vllm", "lmstudio"]

    /// In `/help`'s order.
    public static let all: [SlashCommand] = [
        SlashCommand("help", help: "show this help") { s, _ in s.showHelp() },
        SlashCommand("new", help: "start a new thread") { s, _ in
            s.threadIDChanged(to: s.services.ids.next())
            s.say("New thread.")
        },
        SlashCommand("threads", "[query]", help: "list threads, newest first, or search them") { s, argument in try s.listThreads(query: argument) },
        SlashCommand("search", "TEXT", help: "search threads and the journal (words match their start)") { s, argument in try s.search(argument) },
        SlashCommand("open", "ID|N", help: "open a thread by id (or a unique id prefix), or result N of /search", completes: .threads) { s, argument in
            try s.open(argument)
        },
        SlashCommand("title", "TEXT", help: "rename the current thread") { s, argument in try s.rename(argument) },
        SlashCommand("delete", "ID", help: "delete a thread and its messages (asks first)", completes: .threads) { s, argument in try s.delete(argument) },
        SlashCommand("export", "md|json [FILE]", help: "write this thread as Markdown or JSON (to FILE, or show it)",
                     completes: .words(["md", "json"], firstOnly: true)) { s, argument in try s.export(argument) },
        SlashCommand("continue", help: "resume a suspended run") { s, _ in try await s.continueRun() },
        SlashCommand("retry", help: "regenerate the last reply") { s, _ in try await s.retry() },
        SlashCommand("day", "[DATE]", help: "show a day of the journal (today, yesterday, YYYY-MM-DD)") { s, argument in try s.showDay(argument) },
        SlashCommand("today", help: "show today's journal") { s, _ in try s.showDay("today") },
        SlashCommand("week", help: "show the last 7 days, with calorie bars") { s, _ in try s.showWeek() },
        SlashCommand("month", "[YYYY-MM]", help: "a calendar of a month: each day's calories as % of the goal") { s, argument in try s.showMonth(argument) },
        SlashCommand("foods", "[query]", help: "search your Food Bank", completes: .foodNames) { s, argument in
            s.sayView(JournalViews.foods(try s.services.journal.searchFoods(argument, limit: 50), query: argument))
        },
        SlashCommand("goals", help: "show your daily goals") { s, _ in s.sayView(JournalViews.goals(try s.services.journal.goals(), sources: try s.services.journal.goalSources())) },
        SlashCommand("checkin", help: "propose a calorie goal from your expenditure and weight goal (asks first)") { s, _ in try s.checkIn() },
        SlashCommand("undo", "[N]", help: "undo the last write (or the last N), after showing what it restores; again to redo") { s, argument in
            try s.undo(argument)
        },
        SlashCommand("permissions", help: "standing approval rules (config.json); /permissions add RULE, /permissions remove N") { s, argument in
            try s.permissions(argument)
        },
        SlashCommand("usage", help: "tokens and estimated cost for this thread and today") { s, _ in try s.showUsage() },
        SlashCommand("context", help: "how full the context is and what the next request carries") { s, _ in
            guard let report = s.services.contextReport else { s.say("Context details are not available for this model."); return }
            s.sayView(Terminal.sanitize(try report(s.threadID)))
            s.say(try s.notesSizeLine())
        },
        SlashCommand("notes", "[TEXT|clear]", help: "what the assistant always knows about you (allergies, diet, usual portions); TEXT replaces them") { s, argument in
            try s.notes(argument)
        },
        SlashCommand("budget", "50k|200k|max", help: "the context budget of this thread (shown in /context)",
                     completes: .words(ContextBudgetChoice.allCases.map(\.rawValue), firstOnly: true)) { s, argument in try s.budget(argument) },
        SlashCommand("compact", "[focus]", help: "summarise older turns into a checkpoint now") { s, argument in
            guard let compact = s.services.compact else { s.say("Compaction is not available for this model."); return }
            s.say(Terminal.sanitize(try await compact(s.threadID, argument)))
        },
        SlashCommand("sources", help: "web pages and searches the assistant used in this thread") { s, _ in
            guard let report = s.services.sourcesReport else { s.say("No web sources are kept in this session."); return }
            s.say(Terminal.sanitize(try report(s.threadID)))
        },
        SlashCommand("attach", "FILE…", help: "attach images (JPEG, PNG, WebP, GIF; up to 4) or a PDF to your next message", completes: .files) { s, argument in
            s.attach(argument)
        },
        SlashCommand("attachments", help: "what your next message carries") { s, _ in s.listAttachments() },
        SlashCommand("detach", "[N]", help: "remove attachment N (or all) from your next message") { s, argument in s.detach(argument) },
        SlashCommand("model", "[NAME]", help: "show or change the model", completes: .models) { s, argument in try s.chooseModel(argument) },
        SlashCommand("provider", "[NAME]", help: "show or change the provider", completes: .words(providerNames, firstOnly: false)) { s, argument in
            try s.chooseProvider(argument)
        },
        SlashCommand("diag", help: "diagnostics delivery status") { s, _ in s.say(s.services.diagnosticsStatus()) },
        SlashCommand("sync", help: "sync the journal with your other machines now") { s, _ in
            guard let syncNow = s.services.syncNow else { s.say("Sync is off: set OFJ_SYNC_URL and OFJ_SYNC_TOKEN (README, \"One journal on several machines\")."); return }
            s.say(Terminal.sanitize(await syncNow()))
        },
        SlashCommand("exit", help: "leave ofj (Ctrl-D works too)", aliases: ["quit"]) { s, _ in s.requestExit() },
    ]

    /// Splits "/name rest of line" into the command name and its argument text.
    public static func parse(_ line: String) -> (name: String, argument: String)? {
        guard line.hasPrefix("/") else { return nil }
        let body = line.dropFirst()
        let name = body.prefix { !$0.isWhitespace }
        let rest = body.dropFirst(name.count).trimmingCharacters(in: .whitespaces)
        return (String(name).lowercased(), rest)
    }

    public static func command(named name: String) -> SlashCommand? {
        all.first { $0.name == name } ?? all.first { $0.aliases.contains(name) }
    }

    /// The closest known command by edit distance, for "unknown command /hlep — did you mean /help?".
    public static func suggestion(for name: String) -> String? {
        let limit = max(2, name.count / 2)
        var best: (name: String, distance: Int)?
        for command in all {
            let distance = command.name.hasPrefix(name) ? 0 : editDistance(name, command.name)
            guard distance <= limit else { continue }
            if let current = best, current.distance <= distance { continue }
            best = (command.name, distance)
        }
        return best?.name
    }

    /// Commands starting with a prefix (tab completion).
    public static func completions(prefix: String) -> [String] {
        all.map(\.name).filter { $0.hasPrefix(prefix) }
    }

    public static var helpText: String {
        let width = all.map { ($0.name + " " + $0.arguments).count }.max() ?? 10
        return all.map { c in
            let usage = "/" + c.name + (c.arguments.isEmpty ? "" : " " + c.arguments)
            return "  " + usage.padding(toLength: width + 2, withPad: " ", startingAt: 0) + c.help
        }.joined(separator: "\n")
    }
}
