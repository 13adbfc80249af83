// Writing to stdout and stderr without ever crashing: a reader that went away (`ofj … | head`)
// must not bring the process down in the middle of a write to the journal.
#if canImport(Glibc)
import Glibc
#endif

enum Console {
    static func out(_ text: String) { write(STDOUT_FILENO, text) }
    static func err(_ text: String) { write(STDERR_FILENO, text) }

    /// Writes everything it can; a closed pipe (EPIPE, with SIGPIPE ignored) ends the write quietly.
    private static func write(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n > 0 { offset += n; continue }
            if n < 0 && errno == EINTR { continue }
            return
        }
        bytes.removeAll()
    }
}
