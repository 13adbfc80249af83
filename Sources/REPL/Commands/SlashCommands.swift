// The REPL's slash commands: names, help text, parsing, and "did you mean" suggestions.
import Base
import Foundation

public struct SlashCommand: Sendable, Hashable {
    public let name: String
    public let arguments: String
    public let help: String
}

public enum SlashCommands {
    public static let all: [SlashCommand] = [
        SlashCommand(name: "help", arguments: "", help: "show this help"),
        SlashCommand(name: "new", arguments: "", help: "start a new thread"),
        SlashCommand(name: "threads", arguments: "[query]", help: "list threads, newest first, or search them"),
        SlashCommand(name: "search", arguments: "TEXT", help: "search threads and the journal (words match their start)"),
        SlashCommand(name: "open", arguments: "ID|N", help: "open a thread by id (or a unique id prefix), or result N of /search"),
        SlashCommand(name: "title", arguments: "TEXT", help: "rename the current thread"),
        SlashCommand(name: "delete", arguments: "ID", help: "delete a thread and its messages (asks first)"),
        SlashCommand(name: "export", arguments: "md|json [FILE]", help: "write this thread as Markdown or JSON (to FILE, or show it)"),
        SlashCommand(name: "continue", arguments: "", help: "resume a suspended run"),
        SlashCommand(name: "retry", arguments: "", help: "regenerate the last reply"),
        SlashCommand(name: "day", arguments: "[DATE]", help: "show a day of the journal (today, yesterday, YYYY-MM-DD)"),
        SlashCommand(name: "today", arguments: "", help: "show today's journal"),
        SlashCommand(name: "week", arguments: "", help: "show the last 7 days, with calorie bars"),
        SlashCommand(name: "month", arguments: "[YYYY-MM]", help: "a calendar of a month: each day's calories as % of the goal"),
        SlashCommand(name: "foods", arguments: "[query]", help: "search your Food Bank"),
        SlashCommand(name: "goals", arguments: "", help: "show your daily goals"),
        SlashCommand(name: "undo", arguments: "[N]", help: "undo the last write (or the last N), after showing what it restores; again to redo"),
        SlashCommand(name: "permissions", arguments: "", help: "standing approval rules (config.json); /permissions add RULE, /permissions remove N"),
        SlashCommand(name: "usage", arguments: "", help: "tokens and estimated cost for this thread and today"),
        SlashCommand(name: "context", arguments: "", help: "how full the context is and what the next request carries"),
        SlashCommand(name: "budget", arguments: "50k|200k|max", help: "the context budget of this thread (shown in /context)"),
        SlashCommand(name: "compact", arguments: "[focus]", help: "summarise older turns into a checkpoint now"),
        SlashCommand(name: "sources", arguments: "", help: "web pages and searches the assistant used in this thread"),
        SlashCommand(name: "attach", arguments: "FILE…", help: "attach images (JPEG, PNG, WebP, GIF; up to 4) or a PDF to your next message"),
        SlashCommand(name: "attachments", arguments: "", help: "what your next message carries"),
        SlashCommand(name: "detach", arguments: "[N]", help: "remove attachment N (or all) from your next message"),
        SlashCommand(name: "model", arguments: "[NAME]", help: "show or change the model"),
        SlashCommand(name: "provider", arguments: "[NAME]", help: "show or change the provider"),
        SlashCommand(name: "diag", arguments: "", help: "diagnostics delivery status"),
        SlashCommand(name: "sync", arguments: "", help: "sync the journal with your other machines now"),
        SlashCommand(name: "exit", arguments: "", help: "leave ofj (Ctrl-D works too)"),
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
        all.first { $0.name == name } ?? (name == "quit" ? all.first { $0.name == "exit" } : nil)
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

    /// The footer of the banner, `/help`, the report and the README.
    public static let medicalNote = "Not medical advice: ofj's numbers are estimates; ask a doctor or dietitian about your health."

    public static var helpText: String {
        let width = all.map { ($0.name + " " + $0.arguments).count }.max() ?? 10
        return all.map { c in
            let usage = "/" + c.name + (c.arguments.isEmpty ? "" : " " + c.arguments)
            return "  " + usage.padding(toLength: width + 2, withPad: " ", startingAt: 0) + c.help
        }.joined(separator: "\n")
    }
}
