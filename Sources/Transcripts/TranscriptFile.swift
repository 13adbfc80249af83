// The .ofjt transcript format: parse a file a person can read and write, and print it back
// with fresh expected output (for `ofj replay --update`). See docs/TRANSCRIPTS.md.

/// One scripted event of a model turn.
public enum ScriptedEvent: Sendable, Hashable {
    case text(String)
    case call(id: String, name: String, arguments: String)
    case continuation(kind: String, payload: String)
    case usage(input: Int, output: Int, cached: Int, reasoning: Int)
    case delay(seconds: Double)
    case error(kind: String, retryAfter: Double?, message: String)
    /// The person presses Ctrl-C at this point of the stream.
    case interrupt
    /// The process dies at this point (no clean-up); a later `restart` recovers.
    case crash
}

/// One directive of a transcript, with the line it came from.
public enum TranscriptDirective: Sendable, Hashable {
    /// `@name args` set-up lines before the first step (clock, provider, config, seed).
    case setup(name: String, argument: String, block: [String])
    /// `> text`: a line typed at the prompt.
    case input(String)
    /// `model: …` lines, grouped into one turn (ended by `model: end`, an error or an interrupt).
    case modelTurn([ScriptedEvent])
    /// `approve: y|n|a|ctrl-c|<anything>`: the answer typed at the next approval card.
    case approve(String)
    /// `sql: SELECT …`: query the database; rows are expected output.
    case sql(String)
    /// `ledger:`, `diag:`, `threads:`: print that state as expected output.
    case inspect(String)
    /// `crash`: the process dies here (no clean shutdown); `restart`: a new process starts.
    case crash
    case restart
    /// `clock: +90s` or `clock: 2026-11-30 09:00`: move the fixed clock.
    case clock(String)
    /// `fault: disk-full|lock|none`: from here on, approved writes fail as SQLite does when the
    /// disk is full or another ofj holds the lock past the busy timeout (until `fault: none`).
    case fault(String)
}

public struct TranscriptStep: Sendable, Hashable {
    public var directive: TranscriptDirective
    /// 1-based line of the directive.
    public var line: Int
    /// Expected output lines (the `| ` lines that follow), without the prefix.
    public var expected: [String]
    /// 0-based line after which the expected block is written back: the step's own line or the
    /// last model/approve/clock line that belongs to it.
    public var anchor: Int = 0
    /// Whether this step produces output that is compared.
    public var producesOutput: Bool {
        switch directive {
        case .input, .sql, .inspect, .restart: return true
        default: return false
        }
    }
}

public struct TranscriptFile: Sendable {
    public var path: String
    public var setup: [TranscriptStep]
    public var steps: [TranscriptStep]
    /// The original lines, for rewriting.
    public var lines: [String]

    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public let path: String
        public let line: Int
        public let message: String
        public var description: String { "\(path):\(line): \(message)" }
    }

    public static func parse(_ text: String, path: String = "<transcript>") throws -> TranscriptFile {
        // "\r\n" is one Character, so a file with CRLF line ends must split on it too; CRs left at
        // the end of a line are part of its line end as well (a rewrite would merge them with "\n").
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .map { line in
                var end = line.endIndex
                while end > line.startIndex, line[line.index(before: end)] == "\r" { end = line.index(before: end) }
                return String(line[..<end])
            }
        if lines.last == "" { lines.removeLast() }
        var file = TranscriptFile(path: path, setup: [], steps: [], lines: lines)
        var pendingTurn: [ScriptedEvent] = []
        var pendingTurnLine = 0
        var index = 0
        var lastOutputStep: Int?
        var outputAttached = false

        func extendAnchor() {
            if let s = lastOutputStep, !outputAttached { file.steps[s].anchor = index }
        }

        func fail(_ message: String) -> ParseError { ParseError(path: path, line: index + 1, message: message) }

        func flushTurn() {
            if pendingTurnLine > 0 {
                file.steps.append(TranscriptStep(directive: .modelTurn(pendingTurn), line: pendingTurnLine, expected: []))
                pendingTurn = []
                pendingTurnLine = 0
            }
        }

        while index < lines.count {
            let raw = lines[index]
            let line = raw.trimmingTrailingWhitespace()
            if line.hasPrefix("| ") || line == "|" {
                guard let last = lastOutputStep, pendingTurnLine == 0 else {
                    throw fail("expected output ('| ') must follow an input, sql:, an inspection or restart")
                }
                outputAttached = true
                file.steps[last].expected.append(line == "|" ? "" : String(raw.dropFirst(2)))
                index += 1
                continue
            }
            if line.isEmpty || line.hasPrefix("#") { index += 1; continue }

            if line.hasPrefix("@") {
                guard file.steps.isEmpty && pendingTurnLine == 0 else { throw fail("set-up lines (@…) must come before the first step") }
                let body = line.dropFirst()
                let name = String(body.prefix { !$0.isWhitespace })
                let argument = body.dropFirst(name.count).trimmingCharacters(in: .whitespaces)
                var block: [String] = []
                while index + 1 < lines.count, lines[index + 1].hasPrefix("  ") {
                    index += 1
                    block.append(String(lines[index].dropFirst(2)))
                }
                file.setup.append(TranscriptStep(directive: .setup(name: name, argument: argument, block: block), line: index + 1, expected: []))
                index += 1
                continue
            }

            if line.hasPrefix("model:") {
                if pendingTurnLine == 0 { pendingTurnLine = index + 1 }
                extendAnchor()
                let rest = line.dropFirst("model:".count).trimmingCharacters(in: .whitespaces)
                if rest == "end" {
                    flushTurn()
                } else {
                    let event = try parseEvent(rest, fail: fail)
                    pendingTurn.append(event)
                    if case .error = event { flushTurn() }
                    if case .interrupt = event { flushTurn() }
                    if case .crash = event { flushTurn() }
                }
                index += 1
                continue
            }
            if pendingTurnLine > 0 { throw fail("model turn not ended: add 'model: end'") }

            let step: TranscriptDirective
            if line.hasPrefix("> ") || line == ">" {
                step = .input(line == ">" ? "" : String(raw.dropFirst(2)))
            } else if let r = line.stripping("approve:") {
                step = .approve(r)
            } else if let r = line.stripping("sql:") {
                guard !r.isEmpty else { throw fail("sql: needs a query") }
                step = .sql(r)
            } else if let r = line.stripping("clock:") {
                step = .clock(r)
            } else if let r = line.stripping("fault:") {
                guard TranscriptStorageFault.kinds.contains(r) else { throw fail("fault: takes disk-full, lock or none") }
                step = .fault(r)
            } else if let r = line.stripping("inspect:") {
                guard ["ledger", "diag", "threads", "runs", "usage"].contains(r) else {
                    throw fail("inspect: takes ledger, diag, threads, runs or usage")
                }
                step = .inspect(r)
            } else if line == "crash" {
                step = .crash
            } else if line == "restart" {
                step = .restart
            } else {
                throw fail("unknown line; expected '> input', 'model: …', 'approve: …', 'sql: …', 'inspect: …', 'clock: …', 'fault: …', 'crash', 'restart', '| output' or '# comment'")
            }
            var newStep = TranscriptStep(directive: step, line: index + 1, expected: [])
            newStep.anchor = index
            file.steps.append(newStep)
            if newStep.producesOutput {
                lastOutputStep = file.steps.count - 1
                outputAttached = false
            } else if case .fault = step {
                // Set-up for what follows, not part of the step before: that step's output stays above it.
                outputAttached = true
            } else {
                extendAnchor()
            }
            index += 1
        }
        if pendingTurnLine > 0 { throw fail("model turn not ended at end of file: add 'model: end'") }
        return file
    }

    static func parseEvent(_ text: String, fail: (String) -> ParseError) throws -> ScriptedEvent {
        let kind = String(text.prefix { !$0.isWhitespace })
        let rest = text.dropFirst(kind.count).trimmingCharacters(in: .whitespaces)
        switch kind {
        case "text":
            return .text(unescape(rest))
        case "call":
            // call ID NAME {json}
            let parts = rest.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            guard parts.count >= 2 else { throw fail("model: call needs ID NAME [JSON arguments]") }
            return .call(id: String(parts[0]), name: String(parts[1]), arguments: parts.count > 2 ? String(parts[2]) : "{}")
        case "continuation":
            let parts = rest.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { throw fail("model: continuation needs KIND PAYLOAD") }
            return .continuation(kind: String(parts[0]), payload: String(parts[1]))
        case "usage":
            // usage in=N out=N [cached=N] [reasoning=N]
            var values: [String: Int] = [:]
            for pair in rest.split(separator: " ") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                guard kv.count == 2, let n = Int(kv[1]), n >= 0 else { throw fail("model: usage takes in=N out=N cached=N reasoning=N") }
                values[String(kv[0])] = n
            }
            return .usage(input: values["in"] ?? 0, output: values["out"] ?? 0, cached: values["cached"] ?? 0, reasoning: values["reasoning"] ?? 0)
        case "delay":
            guard let s = Double(rest.hasSuffix("s") ? String(rest.dropLast()) : rest), s >= 0 else { throw fail("model: delay takes seconds, e.g. 'delay 12s'") }
            return .delay(seconds: s)
        case "error":
            // error KIND [retry_after=SECONDS] message
            let parts = rest.split(separator: " ", maxSplits: 1)
            guard let k = parts.first else { throw fail("model: error needs a kind") }
            let valid = ["retryable", "rate_limited", "context_overflow", "fatal", "configuration", "unknown_outcome", "timeout"]
            guard valid.contains(String(k)) else { throw fail("model: error kind must be one of \(valid.joined(separator: ", "))") }
            var message = parts.count > 1 ? String(parts[1]) : ""
            var retryAfter: Double?
            if message.hasPrefix("retry_after=") {
                let value = message.dropFirst("retry_after=".count).prefix { !$0.isWhitespace }
                retryAfter = Double(value.hasSuffix("s") ? String(value.dropLast()) : String(value))
                message = String(message.dropFirst("retry_after=".count + value.count)).trimmingCharacters(in: .whitespaces)
            }
            return .error(kind: String(k), retryAfter: retryAfter, message: message)
        case "interrupt":
            return .interrupt
        case "crash":
            return .crash
        default:
            throw fail("unknown model event '\(kind)'; expected text, call, continuation, usage, delay, error, interrupt, crash or end")
        }
    }

    /// `\n`, `\t` and `\\` escapes in scripted text.
    static func unescape(_ s: String) -> String {
        var out = ""
        var escaping = false
        for c in s {
            if escaping {
                switch c {
                case "n": out.append("\n")
                case "t": out.append("\t")
                default: out.append(c)
                }
                escaping = false
            } else if c == "\\" {
                escaping = true
            } else {
                out.append(c)
            }
        }
        if escaping { out.append("\\") }
        return out
    }

    /// The file text with each output-producing step's expected lines replaced by `actual[stepIndex]`.
    public func rewritten(actual: [Int: [String]]) -> String {
        // Map each step's directive line to its new expected block; drop old '| ' lines.
        var replacements: [Int: [String]] = [:]  // 0-based anchor line -> new expected lines
        for (i, step) in steps.enumerated() where step.producesOutput {
            replacements[step.anchor] = actual[i] ?? step.expected
        }
        var out: [String] = []
        for (i, line) in lines.enumerated() {
            if line.hasPrefix("| ") || line.trimmingTrailingWhitespace() == "|" { continue }
            out.append(line)
            if let block = replacements[i] {
                out.append(contentsOf: block.map { $0.isEmpty ? "|" : "| " + $0 })
            }
        }
        return out.joined(separator: "\n") + "\n"
    }
}

extension String {
    func trimmingTrailingWhitespace() -> String {
        var s = Substring(self)
        while let last = s.last, last == " " || last == "\t" || last == "\r" { s = s.dropLast() }
        return String(s)
    }
    func stripping(_ prefix: String) -> String? {
        guard hasPrefix(prefix) else { return nil }
        return String(dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces)
    }
}

import Foundation
