// Help, usage lines and README.md's command table, generated from the command table.
import Foundation

extension CommandTable {
    // MARK: - help

    /// "ofj day [DATE] [--json]": the command, its subcommands or arguments, and its options.
    public func synopsis(_ command: CommandSpec, path: [String]) -> String {
        synopses(command, path: path).joined(separator: "\n")
    }

    /// The usage lines of a command: declared, or generated from its arguments and options.
    public func synopses(_ command: CommandSpec, path: [String]) -> [String] {
        let head = ([program] + path).joined(separator: " ")
        if let declared = command.synopsis { return declared.map { head + " " + $0 } }
        return [generatedSynopsis(command, path: path)]
    }

    func generatedSynopsis(_ command: CommandSpec, path: [String]) -> String {
        var words = [program] + path
        if !command.subcommands.isEmpty && command.action == nil {
            words.append(command.visibleSubcommands.map(\.name).joined(separator: "|"))
            return words.joined(separator: " ")
        }
        words += command.arguments.map(\.label)
        for o in command.options {
            if let p = o.placeholder {
                words.append("[\(o.short ?? o.name) \(p)]" + (o.repeatable ? "…" : ""))
            } else {
                words.append("[\(o.name)]")
            }
        }
        return words.joined(separator: " ")
    }

    public func help(for command: CommandSpec, path: [String]) -> String {
        var lines: [String] = []
        var usages: [String] = []
        if path.isEmpty {
            // The root: how to start the assistant, and that commands follow.
            usages += synopses(command, path: path) + ["\(program) COMMAND [ARGUMENTS] [OPTIONS]"]
        } else {
            if command.action != nil { usages += synopses(command, path: path) }
            for sub in command.visibleSubcommands { usages += synopses(sub, path: path + [sub.name]) }
        }
        for (i, u) in usages.enumerated() { lines.append((i == 0 ? "usage: " : "       ") + u) }
        lines.append("")
        lines.append(command.summary)
        if !command.details.isEmpty {
            lines.append("")
            lines.append(command.details)
        }
        if !command.visibleSubcommands.isEmpty {
            lines.append("")
            lines.append("commands:")
            lines += Self.columns(command.visibleSubcommands.map { sub in
                let names = sub.visibleSubcommands.map(\.name).joined(separator: "|")
                // A command that runs with arguments and has subcommands too (`day [DATE] | mark`) shows both.
                let args = sub.subcommands.isEmpty ? sub.arguments.map(\.label)
                    : sub.action == nil ? [names] : sub.arguments.isEmpty ? ["[\(names)]"] : sub.arguments.map(\.label) + ["|", names]
                return (([sub.name] + args).joined(separator: " "), sub.summary)
            })
        }
        let options = command.options + [Self.helpOption]
        lines.append("")
        lines.append("options:")
        lines += Self.columns(options.map { o in
            var text = o.help
            if let d = o.defaultValue { text += " (default \(d))" }
            if o.repeatable { text += " (repeatable)" }
            if case .choice(let choices) = o.kind, o.placeholder != nil, !o.help.contains(choices[0]) {
                text += ": \(choices.joined(separator: ", "))"
            }
            return (o.label, text)
        })
        if path.isEmpty {
            lines.append("")
            lines.append("Run `\(program) COMMAND --help` for a command's arguments and options.")
        } else if !command.visibleSubcommands.isEmpty {
            lines.append("")
            lines.append("Run `\(([program] + path).joined(separator: " ")) COMMAND --help` for a command's options.")
        }
        return lines.joined(separator: "\n")
    }

    static func columns(_ rows: [(String, String)]) -> [String] {
        let width = min(28, rows.map(\.0.count).max() ?? 0)
        return rows.map { left, right in
            let pad = left.count >= width ? "  " : String(repeating: " ", count: width - left.count + 2)
            return "  " + left + pad + right
        }
    }

    // MARK: - README

    /// The README's command table: one row per command and subcommand that runs something.
    public func markdownTable() -> String {
        var rows = ["| command | what it does |", "|---|---|"]
        func visit(_ c: CommandSpec, _ path: [String]) {
            if c.action != nil {
                let cell = synopses(c, path: path).map { "`" + $0.replacingOccurrences(of: "|", with: "\\|") + "`" }.joined(separator: "<br>")
                rows.append("| \(cell) | \(c.summary.replacingOccurrences(of: "|", with: "\\|")) |")
            }
            for sub in c.visibleSubcommands { visit(sub, path + [sub.name]) }
        }
        visit(root, [])
        return rows.joined(separator: "\n") + "\n"
    }

    /// Every visible command path with its command, depth first (the root first, as []).
    func allCommands() -> [([String], CommandSpec)] {
        var out: [([String], CommandSpec)] = []
        func visit(_ c: CommandSpec, _ path: [String]) {
            out.append((path, c))
            for sub in c.visibleSubcommands { visit(sub, path + [sub.name]) }
        }
        visit(root, [])
        return out
    }
}
