// A small command-line parser: positionals, --flags and --options with values, and clear errors.

public struct UsageError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

public struct ParsedArguments: Sendable {
    public var positionals: [String] = []
    public var flags: Set<String> = []
    public var options: [String: String] = [:]
    /// Every value of a repeatable option, in the order given.
    public var repeated: [String: [String]] = [:]

    public func has(_ flag: String) -> Bool { flags.contains(flag) }
    public func value(_ option: String) -> String? { options[option] }
    public func values(_ option: String) -> [String] { repeated[option] ?? options[option].map { [$0] } ?? [] }
    /// Every flag and option given, e.g. to refuse those a mode does not use.
    public var given: Set<String> { flags.union(options.keys) }
}

public struct ArgumentSpec: Sendable {
    public var flags: Set<String>
    public var options: Set<String>
    /// Options that may be given more than once (e.g. `--nutrient`); any other given twice is an error.
    public var repeatable: Set<String>
    public init(flags: Set<String> = [], options: Set<String> = [], repeatable: Set<String> = []) {
        self.flags = flags
        self.options = options.union(repeatable)
        self.repeatable = repeatable
    }

    /// Parses `args` (without the program or subcommand name). `--name=value` and `--name value`
    /// both work; `--` ends options; "-" alone is a positional (stdin).
    public func parse(_ args: [String]) throws -> ParsedArguments {
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
            if let eq = a.firstIndex(of: "=") {
                name = String(a[..<eq])
                inlineValue = String(a[a.index(after: eq)...])
            }
            if flags.contains(name) {
                guard inlineValue == nil else { throw UsageError("\(name) takes no value") }
                guard out.flags.insert(name).inserted else { throw UsageError("\(name) is given twice; give it once") }
            } else if options.contains(name) {
                // A second value would silently replace the first: say so instead.
                guard out.options[name] == nil || repeatable.contains(name) else { throw UsageError("\(name) is given twice; give it once") }
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard i < args.count else { throw UsageError("\(name) needs a value") }
                    value = args[i]
                    i += 1
                }
                out.options[name] = value
                if repeatable.contains(name) { out.repeated[name, default: []].append(value) }
            } else {
                let known = (flags.union(options)).sorted()
                let hint = known.min { editDistance($0, name) < editDistance($1, name) }
                    .flatMap { editDistance($0, name) <= 3 ? " (did you mean \($0)?)" : nil } ?? ""
                throw UsageError("unknown option \(name)\(hint)")
            }
        }
        return out
    }
}
