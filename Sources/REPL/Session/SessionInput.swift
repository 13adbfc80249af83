// What the session reads: messages at the prompt and answers at approval cards.

public protocol SessionInput: AnyObject {
    func readMessage(prompt: String) -> LineInput
    /// An answer (approval, confirmation); never recorded in history.
    func readAnswer(prompt: String) -> LineInput
    func remember(_ line: String)
    var completer: (@Sendable (String) -> [String])? { get set }
}

/// Messages and answers from one line reader (the terminal, or plain stdin).
public final class LineReaderInput: SessionInput {
    let reader: any LineReader
    public init(reader: any LineReader) { self.reader = reader }
    public func readMessage(prompt: String) -> LineInput { reader.readLine(prompt: prompt) }
    public func readAnswer(prompt: String) -> LineInput { reader.readLine(prompt: prompt) }
    public func remember(_ line: String) { reader.remember(line) }
    public var completer: (@Sendable (String) -> [String])? {
        get { reader.completer }
        set { reader.completer = newValue }
    }
}
