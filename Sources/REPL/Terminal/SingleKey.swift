// Reading one key at an approval card without waiting for Enter (terminal only).
import CEditLine
import Foundation
#if canImport(Glibc)
import Glibc
#endif

enum SingleKey {
    /// Reads one key from the terminal on stdin with echo and line editing off: Ctrl-C is an
    /// interrupt, Ctrl-D the end of input, Enter alone is ignored (the card still waits), an
    /// escape sequence (arrow keys) comes back as one unknown key. The key is echoed with a newline.
    static func read(terminations: InterruptFlag) -> LineInput {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return .eof }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        defer { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
        let baseline = terminations.value
        while true {
            guard let byte = readByte() else {
                if errno == EINTR && terminations.value == baseline { continue }
                return .eof
            }
            switch byte {
            case 0x03: echo("^C\n"); return .interrupt
            case 0x04: echo("\n"); return .eof
            case 0x0D, 0x0A: continue
            case 0x1B:
                while pending(milliseconds: 20) { _ = readByte() }
                echo("\n")
                return .line("\u{1B}")
            default:
                var bytes = [byte]
                // The rest of a UTF-8 character.
                let extra = byte >= 0xF0 ? 3 : byte >= 0xE0 ? 2 : byte >= 0xC0 ? 1 : 0
                for _ in 0..<extra { if let b = readByte() { bytes.append(b) } }
                let key = String(decoding: bytes, as: UTF8.self)
                let shown = key.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F } ? key : "?"
                echo(shown + "\n")
                return .line(key)
            }
        }
    }

    /// After a key answered, an Enter typed out of habit right behind it is dropped (it would
    /// otherwise reach the next prompt as an empty line). Anything else typed is given back.
    static func dropTrailingEnter(giveBack: (String) -> Void) {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        raw.c_iflag &= ~tcflag_t(ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        defer { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
        guard pending(milliseconds: 250), let byte = readByte() else { return }
        if byte == 0x0D || byte == 0x0A { return }
        giveBack(String(decoding: [byte], as: UTF8.self))
    }

    private static func readByte() -> UInt8? {
        var byte: UInt8 = 0
        errno = 0
        return Glibc.read(STDIN_FILENO, &byte, 1) == 1 ? byte : nil
    }

    private static func pending(milliseconds: Int32) -> Bool {
        var fds = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        return poll(&fds, 1, milliseconds) > 0
    }

    private static func echo(_ text: String) {
        fputs(text, cedit_stdout())
        fflush(cedit_stdout())
    }
}
