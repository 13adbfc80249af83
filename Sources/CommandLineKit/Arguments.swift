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
