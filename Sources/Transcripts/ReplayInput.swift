// Input for a replayed session: answers come from the transcript's `approve:` lines.
import REPL
import Synchronization

final class ReplayInput: SessionInput {
    private var answers: [String] = []
    var completer: (@Sendable (String) -> [String])?
    /// Answers asked for when none was left (reported as a mismatch).
    private(set) var missingAnswers = 0
    /// The screen: a replayed answer is shown after its prompt, as a terminal would echo it.
    let output: any Output

    init(output: any Output) { self.output = output }

    func enqueueAnswer(_ answer: String) { answers.append(answer) }
    var unusedAnswers: Int { answers.count }

    func readMessage(prompt: String) -> LineInput { .eof }

    func readAnswer(prompt: String) -> LineInput {
        guard !answers.isEmpty else {
            missingAnswers += 1
            output.write(prompt + "(no answer in the transcript: add an 'approve:' line)\n")
            return .eof
        }
        let a = answers.removeFirst()
        output.write(prompt + (a == "ctrl-c" ? "^C" : a) + "\n")
        return a == "ctrl-c" ? .interrupt : .line(a)
    }

    func remember(_ line: String) {}
}
