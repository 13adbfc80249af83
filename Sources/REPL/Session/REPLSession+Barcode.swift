// A line that is only a barcode: look it up and offer to log one serving with a card, without
// a model round (issue 18).
import Foundation
import OutputSafety
import Views

/// What a scanned barcode found.
public enum BarcodeScanOffer: Sendable {
    /// A product card. `log` writes one serving (returns the line to confirm it); nil when the
    /// product cannot be logged (no nutrition data, no serving), which `card` says.
    case card(String, logPrompt: String, log: (@Sendable () throws -> String)?)
    /// One line saying why nothing was found (bad check digit, not found, offline).
    case failed(String)
}

extension REPLSession {
    /// 8 to 14 digits and nothing else.
    static func isScan(_ line: String) -> Bool {
        (8...14).contains(line.utf8.count) && line.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    func scanned(_ code: String, _ scan: @Sendable (String) async -> BarcodeScanOffer) async {
        writer.finishLine()
        output.write(style.dim("  · looking up barcode \(code)") + "\n")
        switch await scan(code) {
        case .failed(let message):
            say(style.red("✗ ") + Terminal.sanitize(message, keepNewlines: false))
        case .card(let text, let prompt, let log):
            var card = [style.bold("┌ Scanned: \(code)")]
            for line in Terminal.sanitize(text).split(separator: "\n", omittingEmptySubsequences: false) { card.append("│ " + line) }
            guard let log else {
                card.append("└ nothing to log")
                output.write(card.joined(separator: "\n") + "\n")
                return
            }
            output.write(card.joined(separator: "\n") + "\n")
            input.discardTypedAhead()
            while true {
                switch input.readAnswer(prompt: "└ \(Terminal.sanitize(prompt, keepNewlines: false)) [y]es / [n]o: ") {
                case .line(let answer):
                    switch answer.trimmingCharacters(in: .whitespaces).lowercased() {
                    case "y":
                        do { say(style.green("  ✓ ") + Terminal.sanitize(try log(), keepNewlines: false)) } catch {
                            say(style.red("✗ ") + Terminal.sanitize("\(error)", keepNewlines: false))
                        }
                        return
                    case "n":
                        say(style.dim("  not logged"))
                        return
                    default:
                        say("Please answer y or n.")
                    }
                case .interrupt, .eof:
                    say(style.yellow("Stopped; nothing was written."))
                    return
                }
            }
        }
    }
}
