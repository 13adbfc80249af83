// The terminal line editor over libedit: emacs keys, persistent history, Tab completion,
// backslash continuation and multi-line paste, UTF-8 editing.
import CEditLine
import Foundation
#if canImport(Glibc)
import Glibc
#endif

public final class LibEditLineReader: LineReader {
    private let editLine: OpaquePointer
    private let history: OpaquePointer
    private var event = HistEvent()
    private let historyPath: String?
    private let historyLimit: Int32
    /// The prompt libedit draws; kept alive as a C string for the prompt callback.
    fileprivate var promptCString: UnsafeMutablePointer<CChar>?
    public var completer: (@Sendable (String) -> [String])?

    /// - Parameters:
    ///   - historyPath: file to load and save history (nil: no persistence).
    ///   - historyLimit: number of entries kept.
    public init?(programName: String = "ofj", historyPath: String?, historyLimit: Int32 = 1_000) {
        guard let el = el_init(programName, cedit_stdin(), cedit_stdout(), cedit_stderr()), let h = history_init() else { return nil }
        editLine = el
        history = h
        self.historyPath = historyPath
        self.historyLimit = historyLimit
        cedit_history_setsize(h, &event, historyLimit)
        cedit_history_setunique(h, &event, 1)
        if let historyPath { _ = cedit_history_load(h, &event, historyPath) }
        cedit_set_editor(el, "emacs")
        cedit_set_hist(el, h)
        cedit_set_signal(el, 1)
        cedit_set_clientdata(el, Unmanaged.passUnretained(self).toOpaque())
        cedit_set_prompt(el) { el in
            guard let el, let data = cedit_get_clientdata(el) else { return nil }
            let reader = Unmanaged<LibEditLineReader>.fromOpaque(data).takeUnretainedValue()
            return UnsafePointer(reader.promptCString)
        }
        cedit_add_fn(el, "ofj-complete", "complete a command, thread or food") { el, _ in
            guard let el, let data = cedit_get_clientdata(el) else { return UInt8(CC_ERROR) }
            return Unmanaged<LibEditLineReader>.fromOpaque(data).takeUnretainedValue().complete()
        }
        cedit_bind(el, "^I", "ofj-complete")
        _ = cedit_source(el) // the user's ~/.editrc, if any
    }

    deinit {
        el_end(editLine)
        history_end(history)
        free(promptCString)
    }

    private func setPrompt(_ prompt: String) {
        free(promptCString)
        promptCString = strdup(prompt)
    }

    private func rawLine(prompt: String) -> LineInput {
        setPrompt(prompt)
        var count: Int32 = 0
        errno = 0
        guard let cLine = el_gets(editLine, &count) else {
            return (count == -1 || errno == EINTR) ? .interrupt : .eof
        }
        var line = String(cString: cLine)
        if line.hasSuffix("\n") { line.removeLast() }
        return .line(line)
    }

    /// True when more input is already waiting (a paste in progress).
    private func inputPending() -> Bool {
        var fds = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        return poll(&fds, 1, 15) > 0
    }

    public func readLine(prompt: String) -> LineInput {
        let first = rawLine(prompt: prompt)
        guard case .line(var text) = first else { return first }
        // Backslash continuation.
        text = joinContinuation(first: text) {
            if case .line(let more) = rawLine(prompt: "… ") { return more }
            return nil
        }
        // Pasted multi-line text arrives as one message.
        while inputPending() {
            guard case .line(let more) = rawLine(prompt: "… ") else { break }
            text += "\n" + more
        }
        return .line(text)
    }

    public func remember(_ line: String) {
        // Lines starting with a space stay out of history, as in shells.
        guard !line.hasPrefix(" "), !line.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        cedit_history_enter(history, &event, line.replacingOccurrences(of: "\n", with: " "))
        if let historyPath {
            let dir = (historyPath as NSString).deletingLastPathComponent
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            _ = cedit_history_save(history, &event, historyPath)
            chmod(historyPath, 0o600)
        }
    }

    fileprivate func complete() -> UInt8 {
        guard let info = el_line(editLine)?.pointee, let completer else { return UInt8(CC_ERROR) }
        let length = info.cursor - info.buffer
        let before = String(decoding: UnsafeBufferPointer(start: UnsafeRawPointer(info.buffer).assumingMemoryBound(to: UInt8.self), count: length), as: UTF8.self)
        let candidates = completer(before)
        let word = String(before.split(separator: " ", omittingEmptySubsequences: false).last ?? "")
        guard !candidates.isEmpty else { return UInt8(CC_REFRESH_BEEP) }
        let common = candidates.dropFirst().reduce(candidates[0]) { commonPrefix($0, $1) }
        if common.count > word.count {
            el_insertstr(editLine, String(common.dropFirst(word.count)) + (candidates.count == 1 ? " " : ""))
            return UInt8(CC_REFRESH)
        }
        if candidates.count > 1 {
            fputs("\n" + candidates.joined(separator: "  ") + "\n", cedit_stdout())
            return UInt8(CC_REDISPLAY)
        }
        return UInt8(CC_REFRESH)
    }
}

func commonPrefix(_ a: String, _ b: String) -> String {
    String(zip(a, b).prefix { $0 == $1 }.map(\.0))
}
