// Everything the REPL knows about the terminal: tty detection, width, colour, safe text.
import Foundation
import OutputSafety
#if canImport(Glibc)
import Glibc
#endif

public enum Terminal {
    public static func isTTY(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Columns of the terminal on stdout, or `fallback` when not a terminal.
    public static func width(fallback: Int = 80) -> Int {
        var ws = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0 { return Int(ws.ws_col) }
        return fallback
    }

    /// Makes untrusted text (food names, model output) safe to print; see `TerminalText.sanitize`,
    /// the one sanitiser every output path uses.
    public static func sanitize(_ text: String, keepNewlines: Bool = true) -> String {
        TerminalText.sanitize(text, keepNewlines: keepNewlines)
    }
}

/// ANSI styling that switches itself off for pipes and when NO_COLOR is set.
public struct Style: Sendable {
    public let enabled: Bool
    public init(enabled: Bool) { self.enabled = enabled }

    /// Colour only on a terminal and never when NO_COLOR is set (any value, per no-color.org).
    public static func detect(environment: [String: String], fd: Int32 = STDOUT_FILENO) -> Style {
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return Style(enabled: Terminal.isTTY(fd) && !noColor && environment["TERM"] != "dumb")
    }

    private func wrap(_ s: String, _ code: String) -> String { enabled ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
    public func dim(_ s: String) -> String { wrap(s, "2") }
    public func bold(_ s: String) -> String { wrap(s, "1") }
    public func red(_ s: String) -> String { wrap(s, "31") }
    public func green(_ s: String) -> String { wrap(s, "32") }
    public func yellow(_ s: String) -> String { wrap(s, "33") }
    public func cyan(_ s: String) -> String { wrap(s, "36") }
}

/// Word-wraps text to a width, keeping existing line breaks; counts characters, not bytes.
public func wrapText(_ text: String, width: Int) -> String {
    guard width > 10 else { return text }
    var lines: [String] = []
    for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
        var line = ""
        for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        lines.append(line)
    }
    return lines.joined(separator: "\n")
}

/// Replaces key- and token-shaped parts of a line ("sk-…", "AIza…", JWTs) with "[key]" before it
/// is shown: a provider error may quote a key, and screens end up in screenshots and scrollback.
public func hidingSecrets(_ line: String) -> String {
    var out = ""
    var part = ""
    func flush() {
        out += Redactor.hasKeyShape(part) ? "[key]" : part
        part = ""
    }
    for ch in line {
        if ch.isWhitespace || "?&=\"'(),;:<>[]{}".contains(ch) {
            flush()
            out.append(ch)
        } else {
            part.append(ch)
        }
    }
    flush()
    return out
}
