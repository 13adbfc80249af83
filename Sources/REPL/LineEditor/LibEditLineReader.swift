// The terminal line editor over libedit: emacs keys, persistent history, Tab completion,
// backslash continuation and multi-line paste, UTF-8 editing.
import CEditLine
import Foundation
import OutputSafety
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
    public var completer: Completer?
    fileprivate var interrupted = false
    fileprivate var discardedText = false

    /// - Parameters:
    ///   - historyPath: file to load and save history (nil: no persistence).
    ///   - historyLimit: number of entries kept.
    public init?(programName: String = "ofj", historyPath: String?, historyLimit: Int32 = 1_000) {
        LibEditLineReader.useUTF8Locale()
        guard let el = el_init(programName, cedit_stdin(), cedit_stdout(), cedit_stderr()), let h = history_init() else { return nil }
        editLine = el
        history = h
        self.historyPath = historyPath
        self.historyLimit = historyLimit
        // libedit may draw the prompt as soon as it is set: it must never be NULL.
        promptCString = strdup("")
        cedit_history_setsize(h, &event, historyLimit)
        cedit_history_setunique(h, &event, 1)
        if let historyPath { _ = cedit_history_load(h, &event, historyPath) }
        cedit_set_editor(el, "emacs")
        cedit_set_hist(el, h)
        cedit_set_signal(el, 1)
        cedit_set_clientdata(el, Unmanaged.passUnretained(self).toOpaque())
        cedit_set_prompt(el) { _ in UnsafePointer(currentPrompt) }
        cedit_add_fn(el, "ofj-complete", "complete a command, thread or food") { el, _ in
            guard let el, let data = cedit_get_clientdata(el) else { return UInt8(CC_ERROR) }
            return Unmanaged<LibEditLineReader>.fromOpaque(data).takeUnretainedValue().complete()
        }
        cedit_bind(el, "^I", "ofj-complete")
        // Ctrl-C while editing: end the read at once and report an interrupt (libedit would
        // otherwise retry its read after SIGINT and swallow the first press).
        cedit_keep_ctrl_c_as_key(el)
        cedit_add_fn(el, "ofj-interrupt", "interrupt") { el, _ in
            guard let el, let data = cedit_get_clientdata(el) else { return UInt8(CC_ERROR) }
            let reader = Unmanaged<LibEditLineReader>.fromOpaque(data).takeUnretainedValue()
            reader.interrupted = true
            if let info = el_line(el)?.pointee { reader.discardedText = info.lastchar != info.buffer }
            return UInt8(CC_NEWLINE)
        }
        cedit_bind(el, "^C", "ofj-interrupt")
        _ = cedit_source(el) // the user's ~/.editrc, if any
    }

    /// libedit converts the prompt and input with the C locale's multibyte functions: under the
    /// default "C" locale any non-ASCII character fails (and a non-ASCII prompt crashes it).
    static func useUTF8Locale() {
        if let current = setlocale(LC_CTYPE, ""), String(cString: current).lowercased().contains("utf") { return }
        if setlocale(LC_CTYPE, "C.UTF-8") == nil { _ = setlocale(LC_CTYPE, "C.utf8") }
    }

    deinit {
        el_end(editLine)
        history_end(history)
        free(promptCString)
    }

    private func setPrompt(_ prompt: String) {
        free(promptCString)
        promptCString = strdup(prompt)
        currentPrompt = promptCString ?? emptyPrompt
    }

    private func rawLine(prompt: String) -> LineInput {
        setPrompt(prompt)
        var count: Int32 = 0
        errno = 0
        interrupted = false
        discardedText = false
        let cLine = el_gets(editLine, &count)
        if interrupted {
            fputs("^C\n", cedit_stdout())
            // Ctrl-C on a line with text only clears it, as in a shell; on an empty line it is an interrupt.
            return discardedText ? .line("") : .interrupt
        }
        guard let cLine else {
            if count == -1 || errno == EINTR { return .interrupt }
            // Ctrl-D: end the prompt's line, so the shell's prompt does not follow "› " on it.
            fputs("\n", cedit_stdout())
            fflush(cedit_stdout())
            return .eof
        }
        var line = String(cString: cLine)
        if line.hasSuffix("\n") { line.removeLast() }
        return .line(line)
    }

    /// True when more input is waiting (within `milliseconds`).
    private func inputPending(milliseconds: Int32 = 15) -> Bool {
        var fds = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        return poll(&fds, 1, milliseconds) > 0
    }

    public func readLine(prompt: String) -> LineInput {
        // Lines typed ahead while an answer was streaming are separate messages; only lines that
        // arrive together while this line is being read (a paste) are joined.
        let typedAhead = inputPending(milliseconds: 0)
        let first = rawLine(prompt: prompt)
        guard case .line(var text) = first else { return first }
        // Backslash continuation.
        text = joinContinuation(first: text) {
            if case .line(let more) = rawLine(prompt: "… ") { return more }
            return nil
        }
        // Pasted multi-line text arrives as one message.
        while !typedAhead && inputPending() {
            guard case .line(let more) = rawLine(prompt: "… ") else { break }
            text += "\n" + more
        }
        return .line(text)
    }

    public func pushBack(_ text: String) { el_push(editLine, text) }

    public func remember(_ line: String) {
        // Lines starting with a space stay out of history, as in shells.
        guard !line.hasPrefix(" "), !line.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        var entry = line.replacingOccurrences(of: "\n", with: " ")
        while entry.last == " " { entry.removeLast() }
        cedit_history_enter(history, &event, entry)
        if let historyPath {
            let dir = (historyPath as NSString).deletingLastPathComponent
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
            // libedit rewrites the file in place: created 0600 first, it never exists readable by others.
            do { try PrivateFile.createIfMissing(historyPath) } catch {}
            _ = cedit_history_save(history, &event, historyPath)
            chmod(historyPath, 0o600)
        }
    }

    fileprivate func complete() -> UInt8 {
        guard let info = el_line(editLine)?.pointee, let completer else { return UInt8(CC_ERROR) }
        let length = info.cursor - info.buffer
        let before = String(decoding: UnsafeBufferPointer(start: UnsafeRawPointer(info.buffer).assumingMemoryBound(to: UInt8.self), count: length), as: UTF8.self)
        let offered = completer(before)
        let candidates = offered.candidates
        guard !candidates.isEmpty else { return UInt8(CC_REFRESH_BEEP) }
        // What was typed is replaced (a name may start differently from the typed word, or
        // differ in case); the common part of the candidates is inserted in its place.
        let typed = String(before.suffix(offered.replacing))
        let common = candidates.dropFirst().reduce(candidates[0]) { commonPrefix($0, $1) }
        let unique = candidates.count == 1
        if unique || (common.count > typed.count) || (common.count == typed.count && common != typed && !common.isEmpty) {
            if !typed.isEmpty { el_deletestr(editLine, Int32(typed.unicodeScalars.count)) }
            el_insertstr(editLine, (unique ? candidates[0] : common) + (unique ? " " : ""))
            return UInt8(CC_REFRESH)
        }
        fputs("\n" + candidates.joined(separator: "  ") + "\n", cedit_stdout())
        return UInt8(CC_REDISPLAY)
    }
}

/// A prompt that is always valid, for callbacks that arrive before one was set.
nonisolated(unsafe) let emptyPrompt: UnsafeMutablePointer<CChar> = strdup("")!
/// The prompt libedit draws (one line editor per process reads the terminal).
nonisolated(unsafe) var currentPrompt: UnsafeMutablePointer<CChar> = emptyPrompt

/// The common start of two candidates, ignoring case (the first one's spelling).
func commonPrefix(_ a: String, _ b: String) -> String {
    String(zip(a, b).prefix { $0.lowercased() == $1.lowercased() }.map(\.0))
}
