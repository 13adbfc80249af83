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
    /// Values completion asks the program for at Tab time (`PROGRAM __complete NAME` prints one
    /// per line, in the order to offer them); any text is accepted.
    case dynamic(String)
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
/// another mode's option is given. Options in no mode apply to every mode. A mode may run its own
/// handler with its own database access (`ofj log --barcode` asks the network, `ofj diag export
/// --local` only reads); nil keeps the command's.
public struct ModeSpec: Sendable {
    public var name: String
    public var selector: String?
    public var options: [String]
    public var takesArguments: Bool
    public var hint: String
    public var access: DataAccess?
    public var action: CommandAction?
    public init(_ name: String, selector: String?, options: [String], takesArguments: Bool = false, hint: String,
                access: DataAccess? = nil, action: CommandAction? = nil) {
        self.name = name
        self.selector = selector
        self.options = options
        self.takesArguments = takesArguments
        self.hint = hint
        self.access = access
        self.action = action
    }
}

/// Whether a command reads or changes the database (read-only commands open it read-only).
public enum DataAccess: Sendable { case none, read, write }

/// What the parser found: the command's path ("backup export"), its arguments, and the database
/// access its spec (or the mode the arguments select) declares: handlers open the database with
/// exactly this, so what a command may do to the database is read off its spec.
public struct CommandInvocation: Sendable {
    public var path: [String]
    public var arguments: ParsedArguments
    public var access: DataAccess
    public init(path: [String], arguments: ParsedArguments, access: DataAccess = .none) {
        self.path = path
        self.arguments = arguments
        self.access = access
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

    /// The mode `arguments` select: the one whose selector was given, else the default mode (nil
    /// when the command has no modes). The parser has already refused two selectors at once.
    public func mode(for arguments: ParsedArguments) -> ModeSpec? {
        modes.first { $0.selector.map(arguments.given) ?? false } ?? modes.first { $0.selector == nil }
    }

    /// What runs for `arguments`: the selected mode's handler, else the command's.
    public func action(for arguments: ParsedArguments) -> CommandAction? {
        mode(for: arguments)?.action ?? action
    }

    /// The database access for `arguments`: the selected mode's, else the command's.
    public func access(for arguments: ParsedArguments) -> DataAccess {
        mode(for: arguments)?.access ?? access
    }

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
        return .run(command, CommandInvocation(path: path, arguments: parsed, access: command.access(for: parsed)))
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
            // The one decimal rule (`TypedNumber`): "1,5" is 1.5, "1.5,5" is refused with what to type.
            if case .failure(let problem)? = TypedNumber.read(value) {
                throw UsageError("\(what) takes a number, and '\(UsageError.quote(value))' \(problem.reason); \(problem.hint)", command: line)
            }
            guard let n = Double(value) ?? TypedNumber.value(value), n.isFinite else {
                throw UsageError("\(what) takes a number, not '\(UsageError.quote(value))'", command: line)
            }
        case .choice(let choices):
            guard choices.contains(value.lowercased()) else {
                throw UsageError("\(what) takes \(choices.joined(separator: ", ")), not '\(UsageError.quote(value))'\(suggestion(value, among: choices))",
                                 command: line)
            }
        case .text, .date, .file, .duration, .suggestions, .dynamic:
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
}
