// Where the REPL writes: the terminal (stdout) or a buffer (replay, tests). Thread-safe.
import CEditLine
import Foundation
import Synchronization

public protocol Output: AnyObject, Sendable {
    func write(_ text: String)
}

public final class StandardOutput: Output {
    private let lock = Mutex(())
    public init() {}
    public func write(_ text: String) {
        lock.withLock { _ in
            fputs(text, cedit_stdout())
            fflush(cedit_stdout())
        }
    }
}

public final class CapturedOutput: Output {
    private let buffer = Mutex("")
    public init() {}
    public func write(_ text: String) { buffer.withLock { $0 += text } }
    /// Everything written so far, emptying the buffer.
    public func take() -> String { buffer.withLock { s in defer { s = "" }; return s } }
    public var text: String { buffer.withLock { $0 } }
}

/// Writes streamed text, wrapping words at `width` columns (0 = no wrapping) and tracking the
/// column. Every fragment is shown as soon as it arrives: a word is placed (on this line or the
/// next) when its first part arrives, and later parts of the same word follow it directly.
final class StreamWriter {
    let output: any Output
    var width: Int
    private(set) var column = 0
    private var pendingWord = ""
    private var midWord = false

    init(output: any Output, width: Int) {
        self.output = output
        self.width = width
    }

    func write(_ text: String) {
        guard width > 0 else {
            output.write(text)
            if let last = text.split(separator: "\n", omittingEmptySubsequences: false).last {
                column = text.contains("\n") ? last.count : column + last.count
            }
            return
        }
        var out = ""
        for ch in text {
            if ch == "\n" {
                out += placeWord() + "\n"
                column = 0
                midWord = false
            } else if ch == " " {
                out += placeWord()
                midWord = false
                if column < width { out += " "; column += 1 }
            } else if midWord {
                out.append(ch)
                column += 1
            } else {
                pendingWord.append(ch)
            }
        }
        out += placeWord()
        output.write(out)
    }

    /// Puts the word being collected on this line, or the next when it does not fit.
    private func placeWord() -> String {
        guard !pendingWord.isEmpty else { return "" }
        defer { pendingWord = ""; midWord = true }
        if column > 0 && column + pendingWord.count > width {
            column = pendingWord.count
            return "\n" + pendingWord
        }
        column += pendingWord.count
        return pendingWord
    }

    /// Ends the current line if anything is on it.
    func finishLine() {
        let rest = placeWord()
        if !rest.isEmpty { output.write(rest) }
        midWord = false
        if column > 0 { output.write("\n"); column = 0 }
    }
}
