// What a parsed command line holds, and the usage error the parser throws. The parser itself is
// the command table's (CommandTable.swift).
import OutputSafety

public struct UsageError: Error, CustomStringConvertible, Sendable {
    public let message: String
    /// The command whose `--help` explains the mistake ("ofj day"), for the hint after the message.
    public var command: String?
    public init(_ message: String, command: String? = nil) {
        self.message = message
        self.command = command?.isEmpty == true ? nil : command
    }
    public var description: String { message }

    /// A value the person typed, safe and short enough to echo in one error line.
    public static func quote(_ value: String, limit: Int = 40) -> String {
        let clean = TerminalText.sanitize(value, keepNewlines: false)
        return clean.count > limit ? String(clean.prefix(limit)) + "…" : clean
    }
}

public struct ParsedArguments: Sendable {
    public var positionals: [String] = []
    public var flags: Set<String> = []
    /// Every value given for each option, in order (one unless the option is repeatable).
    public var values: [String: [String]] = [:]
    public init() {}

    public func has(_ flag: String) -> Bool { flags.contains(flag) }
    public func value(_ option: String) -> String? { values[option]?.last }
    public func values(_ option: String) -> [String] { values[option] ?? [] }
    /// Whether the option or flag was given at all.
    public func given(_ name: String) -> Bool { flags.contains(name) || values[name] != nil }
    /// Every flag and option given.
    public var given: Set<String> { flags.union(values.keys) }
}

/// Ad-hoc parsing with the command table's parser, for tools and tests that parse a few words
/// outside ofj's command line. ofj's commands declare their options in the command table instead.
public struct ArgumentSpec: Sendable {
    public var flags: Set<String>
    public var options: Set<String>
    /// Options that may be given more than once; any other given twice is a usage error.
    public var repeatable: Set<String>
    public init(flags: Set<String> = [], options: Set<String> = [], repeatable: Set<String> = []) {
        self.flags = flags
        self.options = options.union(repeatable)
        self.repeatable = repeatable
    }

    public func parse(_ args: [String]) throws -> ParsedArguments {
        let specs = flags.sorted().map { OptionSpec.flag($0, "") }
            + options.sorted().map { OptionSpec.value($0, "VALUE", .text, "", repeatable: repeatable.contains($0)) }
        let command = CommandSpec("", summary: "", arguments: [PositionalSpec("ARG", optional: true, variadic: true)], options: specs)
        return try CommandTable(root: command).parseArguments(args, of: command, line: "")
    }
}
