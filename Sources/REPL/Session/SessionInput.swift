// What the session reads: messages at the prompt and answers at approval cards.
import CEditLine
import Foundation
#if canImport(Glibc)
import Glibc
#endif

public protocol SessionInput: AnyObject {
    func readMessage(prompt: String) -> LineInput
    /// An answer (approval, confirmation); never recorded in history.
    func readAnswer(prompt: String) -> LineInput
    /// The answer at an approval card: one key without Enter on a terminal, a line otherwise.
    func readChoice(prompt: String) -> LineInput
    func remember(_ line: String)
    var completer: Completer? { get set }
    /// Drops input typed before now (keys pressed while the answer streamed), so that what
    /// answers an approval card was typed after the card appeared.
    func discardTypedAhead()
    /// Whether `edit` can open an editor (a terminal is needed).
    var canEdit: Bool { get }
    /// Opens `text` in the person's editor and returns what they saved.
    func edit(_ text: String) -> EditOutcome
}

extension SessionInput {
    public func discardTypedAhead() {}
    public func readChoice(prompt: String) -> LineInput { readAnswer(prompt: prompt) }
    public var canEdit: Bool { false }
    public func edit(_ text: String) -> EditOutcome { .failed("editing needs a terminal") }
}

/// Messages and answers from one line reader (the terminal, or plain stdin).
public final class LineReaderInput: SessionInput {
    let reader: any LineReader
    /// stdin and stdout are a terminal: single-key answers and the editor are available.
    let interactive: Bool
    let terminations: InterruptFlag

    public init(reader: any LineReader, interactive: Bool? = nil, terminations: InterruptFlag = Signals.terminations) {
        self.reader = reader
        self.interactive = interactive ?? (isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1)
        self.terminations = terminations
    }
    public func readMessage(prompt: String) -> LineInput { reader.readLine(prompt: prompt) }

    public func readAnswer(prompt: String) -> LineInput {
        guard !interactive else { return reader.readLine(prompt: prompt) }
        // Piped: the question and the answer read are shown, so the output reads as a dialogue.
        let answer = reader.readLine(prompt: prompt)
        switch answer {
        case .line(let a): show(prompt + a + "\n")
        case .interrupt, .eof: show(prompt + "\n")
        }
        return answer
    }

    public func readChoice(prompt: String) -> LineInput {
        guard interactive else { return readAnswer(prompt: prompt) }
        show(prompt)
        let key = SingleKey.read(terminations: terminations)
        if case .line = key { SingleKey.dropTrailingEnter { reader.pushBack($0) } }
        return key
    }

    public func remember(_ line: String) { reader.remember(line) }
    /// On a terminal, flushes what the kernel holds unread. Piped input is a script of answers
    /// written in advance, so it is kept.
    public func discardTypedAhead() {
        if isatty(STDIN_FILENO) == 1 { tcflush(STDIN_FILENO, TCIFLUSH) }
    }
    public var canEdit: Bool { interactive }
    public func edit(_ text: String) -> EditOutcome { ExternalEditor.edit(text) }
    public var completer: Completer? {
        get { reader.completer }
        set { reader.completer = newValue }
    }

    private func show(_ text: String) {
        fputs(text, cedit_stdout())
        fflush(cedit_stdout())
    }
}
