// Key-shaped words hidden from error lines before they reach the screen.
import OutputSafety

/// Replaces key- and token-shaped parts of a line ("sk-…", "AIza…", JWTs) with "[key]" before it
/// is shown: a provider error may quote a key, and screens end up in screenshots and scrollback.
public func hidingSecrets(_ line: String) -> String {
    var out = ""
    var part = ""
    func flush() {
        out += Redactor.hasKeyShape(part) ? "[key]" : part
        part = ""
    }
    for ch in line {
        if ch.isWhitespace || "?&=\"'(),;:<>[]{}".contains(ch) {
            flush()
            out.append(ch)
        } else {
            part.append(ch)
        }
    }
    flush()
    return out
}
