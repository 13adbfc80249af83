// The command line as one declarative table: every command and subcommand declares its name,
// synopsis, arguments, options and help text next to its handler. Parsing, usage errors with
// "did you mean", `--help`/`-h`, shell completion and the README's command table all come from it,
// so adding a command is one `CommandSpec` and its handler.
import Base
import Foundation

/// What an option's value or a positional argument is; the parser checks numbers and choices,
/// completion offers choices and file names.
public enum ValueKind: Sendable, Hashable {
    case text
    /// A whole number, optionally within bounds.
    case integer(ClosedRange<Int>?)
    /// A finite number.
    case number
    case date
    case file
    case duration
    case choice([String])
    /// Values offered by completion; others are accepted (checked by the handler).
    case suggestions([String])
}

public struct OptionSpec: Sendable {
    public var name: String
    public var short: String?
    /// The value's placeholder ("FILE"); nil for a flag.
    public var placeholder: String?
    public var kind: ValueKind
    public var help: String
    /// Shown in help; the handler applies it.
    public var defaultValue: String?
    /// May be given more than once (each value is kept); otherwise a second use is a usage error.
    public var repeatable: Bool
    /// Options that cannot be given together with this one (checked both ways).
    public var excludes: [String]
    /// Options this one needs.
    public var requires: [String]

    public var isFlag: Bool { placeholder == nil }

    public static func flag(_ name: String, short: String? = nil, _ help: String, excludes: [String] = [],
                            requires: [String] = []) -> OptionSpec {
        OptionSpec(name: name, short: short, placeholder: nil, kind: .text, help: help, defaultValue: nil, repeatable: false,
                   excludes: excludes, requires: requires)
    }

    public static func value(_ name: String, short: String? = nil, _ placeholder: String, _ kind: ValueKind = .text, _ help: String,
                             default defaultValue: String? = nil, repeatable: Bool = false, excludes: [String] = [],
                             requires: [String] = []) -> OptionSpec {
        OptionSpec(name: name, short: short, placeholder: placeholder, kind: kind, help: help, defaultValue: defaultValue,
                   repeatable: repeatable, excludes: excludes, requires: requires)
    }

    /// "-o, --output FILE" / "--json".
    var label: String {
        (short.map { "\($0), " } ?? "") + name + (placeholder.map { " " + $0 } ?? "")
    }
}

public struct PositionalSpec: Sendable {
    public var name: String
    public var kind: ValueKind
    public var optional: Bool
    public var variadic: Bool
    public init(_ name: String, _ kind: ValueKind = .text, optional: Bool = false, variadic: Bool = false) {
        self.name = name
        self.kind = kind
        self.optional = optional
        self.variadic = variadic
    }

    var label: String {
        let core = name + (variadic ? "…" : "")
        return optional ? "[\(core)]" : core
    }
}

/// One way of using a command whose options depend on what it is asked to do (`ofj log NAME
/// --kcal N`, `ofj log --food X`, `ofj log --ref ID`): the option that selects it (nil for the
/// default mode), the options only it takes, and a hint naming them for the usage error when
/// another mode's option is given. Options in no mode apply to every mode.
public struct ModeSpec: Sendable {
    public var name: String
    public var selector: String?
    public var options: [String]
    public var takesArguments: Bool
    public var hint: String
    public init(_ name: String, selector: String?, options: [String], takesArguments: Bool = false, hint: String) {
        self.name = name
        self.selector = selector
        self.options = options
        self.takesArguments = takesArguments
        self.hint = hint
    }
}

/// Whether a command reads or changes the database (read-only commands open it read-only).
public enum DataAccess: Sendable { case none, read, write }

/// What the parser found: the command's path ("backup export") and its arguments.
public struct CommandInvocation: Sendable {
    public var path: [String]
    public var arguments: ParsedArguments
    public init(path: [String], arguments: ParsedArguments) {
        self.path = path
        self.arguments = arguments
    }
    /// "ofj backup export".
    public var commandLine: String { (["ofj"] + path).joined(separator: " ") }
}

public enum CommandAction: Sendable {
    /// Runs on the main thread without starting the async runtime (start-up time).
    case sync(@Sendable (CommandInvocation) throws -> Int32)
    case async(@Sendable (CommandInvocation) async throws -> Int32)
}

public struct CommandSpec: Sendable {
    public var name: String
    /// One line: help listings and the README table.
    public var summary: String
    /// Usage lines after "ofj NAME" when the generated one would not say it well (several modes).
    public var synopsis: [String]?
    /// Paragraphs after the usage line in `--help`.
    public var details: String
    public var arguments: [PositionalSpec]
    public var options: [OptionSpec]
    public var subcommands: [CommandSpec]
    /// Modes whose options exclude each other's (empty: every option goes with every other).
    public var modes: [ModeSpec]
    public var access: DataAccess
    public var hidden: Bool
    public var action: CommandAction?

    public init(_ name: String, summary: String, synopsis: [String]? = nil, details: String = "", arguments: [PositionalSpec] = [], options: [OptionSpec] = [],
                subcommands: [CommandSpec] = [], modes: [ModeSpec] = [], access: DataAccess = .none, hidden: Bool = false,
                action: CommandAction? = nil) {
        self.name = name
        self.summary = summary
        self.synopsis = synopsis
        self.details = details
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
        self.modes = modes
        self.access = access
        self.hidden = hidden
        self.action = action
    }

    var visibleSubcommands: [CommandSpec] { subcommands.filter { !$0.hidden } }

    func option(named name: String) -> OptionSpec? {
        options.first { $0.name == name || $0.short == name }
    }
}

/// The result of parsing: a command to run, or help to print (exit 0).
public enum ParseOutcome: Sendable {
    case run(CommandSpec, CommandInvocation)
    case help(String)
}

public struct CommandTable: Sendable {
    public let root: CommandSpec
    public let program: String

    /// Added to "unknown command" at the top level when no command is close (e.g. how to ask).
    public let unknownCommandHint: String?

    public init(root: CommandSpec, program: String = "ofj", unknownCommandHint: String? = nil) {
        self.root = root
        self.program = program
        self.unknownCommandHint = unknownCommandHint
    }

    static let helpOption = OptionSpec.flag("--help", short: "-h", "show this help")

    /// The command at `path` (names of subcommands from the root), if any.
    public func command(at path: [String]) -> CommandSpec? {
        var c = root
        for name in path {
            guard let next = c.subcommands.first(where: { $0.name == name }) else { return nil }
            c = next
        }
        return c
    }

    // MARK: - parsing

    /// Parses the words after the program name.
    public func parse(_ args: [String]) throws -> ParseOutcome {
        var command = root
        var path: [String] = []
        var rest = args[...]
        // Subcommands come first: `ofj backup export -o FILE`.
        while let word = rest.first, !command.subcommands.isEmpty, !word.hasPrefix("-") {
            if let sub = command.subcommands.first(where: { $0.name == word }) {
                command = sub
                path.append(word)
                rest = rest.dropFirst()
                continue
            }
            // A word that is no subcommand is an argument only where the command takes arguments.
            if command.arguments.isEmpty {
                let line = ([program] + path).joined(separator: " ")
                let what = path.isEmpty ? "command" : "\(path.joined(separator: " ")) command"
                var suggestion = Self.suggestion(word, among: command.visibleSubcommands.map(\.name))
                if suggestion.isEmpty && path.isEmpty, let hint = unknownCommandHint { suggestion = "; " + hint }
                throw UsageError("unknown \(what) '\(UsageError.quote(word))'\(suggestion)", command: line)
            }
            break
        }
        let line = ([program] + path).joined(separator: " ")
        // `--help` / `-h` anywhere before `--` shows the command's help, whatever else is there.
        let beforeDashes = rest.prefix { $0 != "--" }
        if beforeDashes.contains("--help") || beforeDashes.contains("-h") {
            return .help(help(for: command, path: path))
        }
        let parsed = try parseArguments(Array(rest), of: command, line: line)
        if command.action == nil {
            // A group such as `ofj diag`: say which subcommands there are.
            let names = command.visibleSubcommands.map(\.name).joined(separator: ", ")
            throw UsageError("\(line) needs a command: \(names)", command: line)
        }
        return .run(command, CommandInvocation(path: path, arguments: parsed))
    }

    func parseArguments(_ args: [String], of command: CommandSpec, line: String) throws -> ParsedArguments {
        var out = ParsedArguments()
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            let a = args[i]
            i += 1
            if onlyPositionals || !a.hasPrefix("-") || a == "-" || Double(a) != nil {
                out.positionals.append(a)
                continue
            }
            if a == "--" { onlyPositionals = true; continue }
            var name = a
            var inlineValue: String?
            if a.hasPrefix("--"), let eq = a.firstIndex(of: "=") {
                name = String(a[..<eq])
                inlineValue = String(a[a.index(after: eq)...])
            }
            guard let option = command.option(named: name) else {
                let names = command.options.map(\.name) + ["--help"]
                throw UsageError("unknown option \(UsageError.quote(name))\(line.isEmpty ? "" : " for " + line)\(Self.suggestion(name, among: names))",
                                 command: line)
            }
            let key = option.name
            if option.isFlag {
                guard inlineValue == nil else { throw UsageError("\(key) takes no value", command: line) }
                if out.flags.contains(key) && !option.repeatable { throw UsageError("\(key) is given twice; give it once", command: line) }
                out.flags.insert(key)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard i < args.count else { throw UsageError("\(key) needs a value (\(option.placeholder ?? "VALUE"))", command: line) }
                value = args[i]
                i += 1
            }
            if out.values[key] != nil && !option.repeatable {
                throw UsageError("\(key) is given twice; give it once", command: line)
            }
            try Self.check(value, kind: option.kind, what: key, line: line)
            out.values[key, default: []].append(value)
        }
        try checkModes(out, of: command, line: line)
        // Options that exclude or require each other.
        for option in command.options where out.given(option.name) {
            for other in option.excludes where out.given(other) {
                throw UsageError("give \(option.name) or \(other), not both", command: line)
            }
            for needed in option.requires where !out.given(needed) {
                throw UsageError("\(option.name) goes with \(needed)", command: line)
            }
        }
        // Positional arguments: how many, and their kinds.
        let specs = command.arguments
        let variadic = specs.last?.variadic == true
        if !variadic && out.positionals.count > specs.count {
            let extra = out.positionals[specs.count]
            let takes = specs.isEmpty ? "takes no arguments" : "takes \(specs.map(\.label).joined(separator: " "))"
            throw UsageError("unexpected argument '\(UsageError.quote(extra))': \(line) \(takes)", command: line)
        }
        let required = specs.filter { !$0.optional }
        if out.positionals.count < required.count {
            throw UsageError("\(line) needs \(required[out.positionals.count].name)", command: line)
        }
        for (index, value) in out.positionals.enumerated() {
            let spec = specs[min(index, specs.count - 1)]
            try Self.check(value, kind: spec.kind, what: spec.name, line: line)
        }
        return out
    }

    /// One mode at a time, and only its options (and those of no mode).
    func checkModes(_ out: ParsedArguments, of command: CommandSpec, line: String) throws {
        guard !command.modes.isEmpty else { return }
        let selected = command.modes.filter { $0.selector.map(out.given) ?? false }
        if selected.count > 1 {
            throw UsageError("give \(selected.compactMap(\.selector).joined(separator: " or ")), not both", command: line)
        }
        guard let mode = selected.first ?? command.modes.first(where: { $0.selector == nil }) else { return }
        let label = mode.selector ?? "a \(mode.name)"
        let others = Set(command.modes.filter { $0.name != mode.name }.flatMap(\.options)).subtracting(mode.options)
        if let stray = out.flags.union(out.values.keys).sorted().first(where: { others.contains($0) }) {
            throw UsageError("\(stray) does not apply to \(label): \(mode.hint)", command: line)
        }
        if !mode.takesArguments, let extra = out.positionals.first {
            throw UsageError("unexpected '\(UsageError.quote(extra, limit: 30))': \(mode.hint)", command: line)
        }
    }

    static func check(_ value: String, kind: ValueKind, what: String, line: String) throws {
        switch kind {
        case .integer(let range):
            guard let n = Int(value), range.map({ $0.contains(n) }) ?? true else {
                let bounds = range.map { " from \($0.lowerBound) to \($0.upperBound)" } ?? ""
                throw UsageError("\(what) takes a whole number\(bounds), not '\(UsageError.quote(value))'", command: line)
            }
        case .number:
            guard let n = Double(value), n.isFinite else {
                throw UsageError("\(what) takes a number, not '\(UsageError.quote(value))'", command: line)
            }
        case .choice(let choices):
            guard choices.contains(value.lowercased()) else {
                throw UsageError("\(what) takes \(choices.joined(separator: ", ")), not '\(UsageError.quote(value))'\(suggestion(value, among: choices))",
                                 command: line)
            }
        case .text, .date, .file, .duration, .suggestions:
            break
        }
    }

    /// " (did you mean X?)" for the closest name, when it is close enough.
    static func suggestion(_ word: String, among names: [String]) -> String {
        let w = word.lowercased()
        let scored = names.map { ($0, editDistance($0.lowercased(), w)) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return "" }
        let close = best.1 <= (best.0.count <= 6 ? 2 : 3) || (w.count >= 3 && best.0.hasPrefix(w))
        return close ? " (did you mean \(best.0)?)" : ""
    }

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
                let args = sub.subcommands.isEmpty ? sub.arguments.map(\.label) : [sub.action == nil ? names : "[\(names)]"]
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
