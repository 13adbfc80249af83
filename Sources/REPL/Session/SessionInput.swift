// What the session reads: messages at the prompt and answers at approval cards.
#if canImport(Glibc)
import Glibc
#endif

public protocol SessionInput: AnyObject {
    func readMessage(prompt: String) -> LineInput
    /// An answer (approval, confirmation); never recorded in history.
    func readAnswer(prompt: String) -> LineInput
    func remember(_ line: String)
    var completer: (@Sendable (String) -> [String])? { get set }
    /// Drops input typed before now (keys pressed while the answer streamed), so that what
    /// answers an approval card was typed after the card appeared.
    func discardTypedAhead()
}

extension SessionInput {
    public func discardTypedAhead() {}
}

/// Messages and answers from one line reader (the terminal, or plain stdin).
public final class LineReaderInput: SessionInput {
    let reader: any LineReader
    public init(reader: any LineReader) { self.reader = reader }
    public func readMessage(prompt: String) -> LineInput { reader.readLine(prompt: prompt) }
    public func readAnswer(prompt: String) -> LineInput { reader.readLine(prompt: prompt) }
    public func remember(_ line: String) { reader.remember(line) }
    /// On a terminal, flushes what the kernel holds unread. Piped input is a script of answers
    /// written in advance, so it is kept.
    public func discardTypedAhead() {
        if isatty(STDIN_FILENO) == 1 { tcflush(STDIN_FILENO, TCIFLUSH) }
    }
    public var completer: (@Sendable (String) -> [String])? {
        get { reader.completer }
        set { reader.completer = newValue }
    }
}
