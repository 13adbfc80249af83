// Input for a replayed session: answers come from the transcript's `approve:` lines.
import Agent
import Foundation
import REPL
import Synchronization

final class ReplayInput: SessionInput {
    private var answers: [String] = []
    var completer: Completer?
    /// Answers asked for when none was left (reported as a mismatch).
    private(set) var missingAnswers = 0
    /// The screen: a replayed answer is shown after its prompt, as a terminal would echo it.
    let output: any Output
    /// The process clock: `approve: y after +90s` moves it while the card is open.
    let clock: VirtualClock?

    init(output: any Output, clock: VirtualClock? = nil) {
        self.output = output
        self.clock = clock
    }

    func enqueueAnswer(_ answer: String) { answers.append(answer) }
    var unusedAnswers: Int { answers.count }

    func readMessage(prompt: String) -> LineInput { .eof }

    func readAnswer(prompt: String) -> LineInput {
        guard !answers.isEmpty else {
            missingAnswers += 1
            output.write(prompt + "(no answer in the transcript: add an 'approve:' line)\n")
            return .eof
        }
        var a = answers.removeFirst()
        // "y after +90s": the person looks at the card for 90 s (the clock moves), then answers.
        if let range = a.range(of: #" after \+[0-9]+(\.[0-9]+)?s$"#, options: .regularExpression),
           let seconds = Double(a[range].dropFirst(" after +".count).dropLast()) {
            a = String(a[..<range.lowerBound])
            clock?.advance(by: seconds)
        }
        output.write(prompt + (a == "ctrl-c" ? "^C" : a) + "\n")
        return a == "ctrl-c" ? .interrupt : .line(a)
    }

    func remember(_ line: String) {}
}
