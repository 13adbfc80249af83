// Opens text in the person's editor ($VISUAL, $EDITOR, else vi) on the terminal and reads it back.
import Foundation
import OutputSafety
#if canImport(Glibc)
import Glibc
#endif

public enum EditOutcome: Equatable, Sendable {
    case edited(String)
    case unchanged
    /// One line saying what went wrong.
    case failed(String)
}

enum ExternalEditor {
    static func edit(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> EditOutcome {
        let editor = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? "vi"
        let dir = NSTemporaryDirectory()
        let path = (dir as NSString).appendingPathComponent("ofj-arguments-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).json")
        do {
            // The arguments are journal data: 0600, and removed afterwards.
            try PrivateFile.write(Array(text.utf8), to: path, overwrite: false)
        } catch {
            return .failed("could not create a file for the editor in \(dir); check it is writable")
        }
        defer { unlink(path) }
        // Through the shell, so EDITOR may carry options ("code --wait").
        let words: [String] = ["/bin/sh", "-c", editor + " \"$1\"", "sh", path]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, "/bin/sh", nil, nil, argv, environ)
        guard rc == 0 else { return .failed("could not start the editor '\(TerminalText.sanitize(editor, keepNewlines: false))'; set $VISUAL or $EDITOR to an editor that is installed") }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        guard (status & 0x7f) == 0, (status >> 8) & 0xff == 0 else {
            return .failed("the editor '\(TerminalText.sanitize(editor, keepNewlines: false))' did not finish cleanly; the arguments were not changed (save and quit the editor to apply an edit)")
        }
        guard let data = FileManager.default.contents(atPath: path) else { return .failed("the edited file could not be read back; the arguments were not changed, press e to try again") }
        let edited = String(decoding: data, as: UTF8.self)
        return edited.trimmingCharacters(in: .whitespacesAndNewlines) == text.trimmingCharacters(in: .whitespacesAndNewlines) ? .unchanged : .edited(edited)
    }
}
