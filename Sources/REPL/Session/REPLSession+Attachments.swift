// /attach, /attachments, /detach and pasted file paths: the attachments of the next message.
import Agent
import Foundation
import OutputSafety
import Providers
import Views

extension REPLSession {
    /// `/attach FILE…`: reads and checks each file; one line per file.
    func attach(_ argument: String) {
        let paths = Self.words(argument)
        guard !paths.isEmpty else {
            say("Usage: /attach FILE… (Tab completes paths). \(AttachmentFormat.acceptedLine).")
            return
        }
        for (i, path) in paths.enumerated() {
            let which = paths.count > 1 ? "/attach #\(i + 1)" : "/attach"
            do {
                let loaded = try services.loadAttachment(path)
                if let refusal = AttachmentRules.refusal(adding: loaded.format, to: pendingAttachments) { throw AttachmentError(refusal) }
                if let refusal = ModelCatalog.attachmentRefusal(pendingAttachments + [loaded.ref], model: currentModel) {
                    throw AttachmentError(refusal.replacingOccurrences(of: "Not sent: ", with: "Not attached: "))
                }
                pendingAttachments.append(loaded.ref)
                say("📎 " + Self.describe(loaded.ref) + " — goes with your next message (/attachments, /detach).")
            } catch let error as AttachmentError {
                say(style.red("✗ ") + "\(which): " + error.line)
            } catch {
                say(style.red("✗ ") + "\(which): that file could not be read; check the path.")
            }
        }
    }

    /// `/attachments`: what the next message carries.
    func listAttachments() {
        guard !pendingAttachments.isEmpty else {
            say("Your next message carries no attachments; /attach FILE adds one.")
            return
        }
        say("Your next message carries:")
        for (i, a) in pendingAttachments.enumerated() { say("  \(i + 1). " + Self.describe(a)) }
    }

    /// `/detach [N]`: removes attachment N, or all of them.
    func detach(_ argument: String) {
        let arg = argument.trimmingCharacters(in: .whitespaces)
        guard !pendingAttachments.isEmpty else { say("Nothing is attached."); return }
        if arg.isEmpty || arg == "all" {
            let n = pendingAttachments.count
            pendingAttachments = []
            say("Removed \(n == 1 ? "the attachment" : "all \(n) attachments").")
            return
        }
        guard let n = Int(arg), (1...pendingAttachments.count).contains(n) else {
            say("Usage: /detach [N] — N from 1 to \(pendingAttachments.count) (see /attachments), or nothing for all.")
            return
        }
        let removed = pendingAttachments.remove(at: n - 1)
        say("Removed " + Self.describe(removed) + ".")
    }

    /// A line naming a pasted or dropped image/PDF: asks whether to attach it. True when handled.
    func offerToAttach(_ line: String) -> Bool {
        guard let path = services.attachablePath(line) else { return false }
        let name = Terminal.sanitize((path as NSString).lastPathComponent, keepNewlines: false)
        guard case .line(let answer) = input.readAnswer(prompt: "Attach \(name) to your next message? [Y/n] ") else { return true }
        if ["", "y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) {
            attach(Self.quoted(path))
        } else {
            say("Not attached.")
        }
        return true
    }

    /// "label.jpg — JPEG image, 2.1 MB" (the name made safe for the terminal).
    static func describe(_ a: AttachmentRef) -> String {
        "\(Terminal.sanitize(a.name, keepNewlines: false)) — \(a.format.label), \(AttachmentRef.sizeText(a.byteCount))"
    }

    static func quoted(_ path: String) -> String { "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Shell-like words: spaces separate, quotes group, a backslash escapes the next character.
    static func words(_ text: String) -> [String] {
        var out: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for c in text {
            if escaped { current.append(c); escaped = false; inWord = true; continue }
            if let q = quote {
                if c == q { quote = nil } else if c == "\\" && q == "\"" { escaped = true } else { current.append(c) }
                continue
            }
            switch c {
            case "\\": escaped = true; inWord = true
            case "'", "\"": quote = c; inWord = true
            case " ", "\t":
                if inWord { out.append(current); current = ""; inWord = false }
            default: current.append(c); inWord = true
            }
        }
        if inWord { out.append(current) }
        return out.map { $0.hasPrefix("~/") ? (ProcessInfo.processInfo.environment["HOME"] ?? "~") + $0.dropFirst(1) : $0 }
    }
}
