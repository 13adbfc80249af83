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

/// Writes streamed text, wrapping words at `width` columns (0 = no wrapping) and tracking the column.
final class StreamWriter {
    let output: any Output
    var width: Int
    private(set) var column = 0
    private var pendingWord = ""

    init(output: any Output, width: Int) {
        self.output = output
        self.width = width
    }

    /// Writes a fragment; words are held back until a space or newline shows where they end.
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
                out += flushWord() + "\n"
                column = 0
            } else if ch == " " {
                out += flushWord()
                if column < width { out += " "; column += 1 }
            } else {
                pendingWord.append(ch)
            }
        }
        output.write(out)
    }

    private func flushWord() -> String {
        guard !pendingWord.isEmpty else { return "" }
        defer { pendingWord = "" }
        if column > 0 && column + pendingWord.count > width {
            column = pendingWord.count
            return "\n" + pendingWord
        }
        column += pendingWord.count
        return pendingWord
    }

    /// Ends the current line if anything is on it.
    func finishLine() {
        let rest = flushWord()
        if !rest.isEmpty { output.write(rest) }
        if column > 0 { output.write("\n"); column = 0 }
    }
}
