// Runs a program on a pseudo-terminal so tests can type keys (Ctrl-C, Tab, arrows) and read
// what a person would see.
import CEditLine
import Foundation
#if canImport(Glibc)
import Glibc
#endif

public final class PTYProcess: @unchecked Sendable {
    public let pid: pid_t
    private let master: Int32
    private var buffer: [UInt8] = []

    public struct SpawnError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `executable` with `arguments` and `environment` on a new pseudo-terminal of the given size.
    public init(executable: String, arguments: [String], environment: [String: String], columns: UInt16 = 100, rows: UInt16 = 40) throws {
        let m = cedit_openpt(O_RDWR | O_NOCTTY)
        guard m >= 0, cedit_grantpt(m) == 0, cedit_unlockpt(m) == 0, let namePtr = cedit_ptsname(m) else {
            throw SpawnError(description: "cannot open a pseudo-terminal")
        }
        let slaveName = String(cString: namePtr)
        var ws = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(m, UInt(TIOCSWINSZ), &ws)
        master = m

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A new session, so the terminal becomes the child's controlling terminal and Ctrl-C reaches it.
        posix_spawnattr_setflags(&attributes, cedit_spawn_setsid() | Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addclose(&actions, m)
        posix_spawn_file_actions_addopen(&actions, 0, slaveName, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard rc == 0 else {
            close(m)
            throw SpawnError(description: "cannot start \(executable): \(String(cString: strerror(rc)))")
        }
        pid = child
    }

    deinit {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(master)
    }

    /// Types text (use "\u{03}" for Ctrl-C, "\u{04}" for Ctrl-D, "\t" for Tab, "\r" for Enter).
    public func send(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            offset += n
        }
    }

    /// Reads what arrived within `timeout` seconds.
    @discardableResult
    public func read(timeout: Double) async -> String {
        _ = await drain(until: Date().addingTimeInterval(timeout)) { _ in false }
        return takeAll()
    }

    /// Reads until `text` has appeared in the output (returns everything so far) or the timeout passes (nil).
    /// The default timeout is generous: a passing read returns as soon as the text appears, and
    /// the whole suite running in parallel on 2 cores can starve a child for tens of seconds.
    public func read(until text: String, timeout: Double = 60) async -> String? {
        let found = await drain(until: Date().addingTimeInterval(timeout)) { String(decoding: $0, as: UTF8.self).contains(text) }
        // On a miss the output stays buffered, so the next read (or a failure message) can show it.
        return found ? takeAll() : nil
    }

    private func takeAll() -> String {
        defer { buffer.removeAll() }
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Never blocks a thread of the shared task pool: polls without waiting and sleeps in between.
    private func drain(until deadline: Date, stop: ([UInt8]) -> Bool) async -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if stop(buffer) { return true }
            if deadline.timeIntervalSinceNow <= 0 { return false }
            var fds = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            if poll(&fds, 1, 0) > 0 {
                let n = chunk.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
                if n <= 0 { return stop(buffer) }
                buffer.append(contentsOf: chunk[0..<n])
            } else {
                try? await Task.sleep(nanoseconds: 5_000_000)
            }
        }
    }

    /// Waits for the process to exit; returns its exit status, or nil on timeout.
    public func waitForExit(timeout: Double = 60) async -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        while Date() < deadline {
            _ = await read(timeout: 0.02)
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid {
                if (status & 0x7f) == 0 { return (status >> 8) & 0xff }
                return 128 + (status & 0x7f)
            }
        }
        return nil
    }

    public func signal(_ sig: Int32) { kill(pid, sig) }

    /// Resizes the terminal, as a person dragging the window does (the program gets SIGWINCH).
    public func resize(columns: UInt16, rows: UInt16 = 40) {
        var ws = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &ws)
        kill(pid, SIGWINCH)
    }
}

/// Removes ANSI escape sequences, for comparing what a terminal shows.
public func stripANSI(_ s: String) -> String {
    s.replacingOccurrences(of: "\u{1B}\\[[0-9;?]*[ -/]*[@-~]", with: "", options: .regularExpression)
        .replacingOccurrences(of: "\r", with: "")
}
