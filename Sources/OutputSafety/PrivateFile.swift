// Files that hold journal data (backups, CSV exports, diagnostics exports, recordings, the
// database) are created owner-only (0600) whatever the umask.
#if canImport(Glibc)
import Glibc
#endif

public enum PrivateFile {
    /// The permission bits of every file ofj creates with journal data in it.
    public static let mode: mode_t = 0o600

    public struct WriteError: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// Writes `bytes` to `path` atomically with mode 0600: a temporary file in the same folder,
    /// fsync, then a rename (`overwrite`) or a hard link, which fails if the file appeared meanwhile.
    public static func write(_ bytes: [UInt8], to path: String, overwrite: Bool) throws {
        let slash = path.lastIndex(of: "/")
        let dir = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var random = SystemRandomNumberGenerator()
        let temp = "\(dir.isEmpty ? "/" : dir)/.\(name).\(String(random.next() as UInt32, radix: 16)).tmp"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw WriteError(description: String(cString: strerror(errno))) }
        var written = 0
        // fchmod: the mode given to open is reduced by the umask; this one is not.
        var ok = fchmod(fd, mode) == 0
        if ok {
            ok = bytes.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress else { return fsync(fd) == 0 }
                while written < buffer.count {
                    let n = Glibc.write(fd, base + written, buffer.count - written)
                    if n < 0 && errno == EINTR { continue }
                    if n <= 0 { return false }
                    written += n
                }
                return fsync(fd) == 0
            }
        }
        let writeErrno = errno
        close(fd)
        guard ok else {
            unlink(temp)
            throw WriteError(description: String(cString: strerror(writeErrno)))
        }
        if overwrite {
            guard rename(temp, path) == 0 else {
                let e = errno
                unlink(temp)
                throw WriteError(description: String(cString: strerror(e)))
            }
        } else {
            let rc = link(temp, path)
            let e = errno
            unlink(temp)
            guard rc == 0 else {
                throw WriteError(description: e == EEXIST ? "the file already exists" : String(cString: strerror(e)))
            }
        }
    }

    /// Creates `path` as an empty 0600 file when it does not exist yet (an existing file is left
    /// as it is). SQLite then opens it as a new database and gives its -wal and -shm files the
    /// same mode.
    public static func createIfMissing(_ path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        if fd < 0 {
            if errno == EEXIST { return }
            throw WriteError(description: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        guard fchmod(fd, mode) == 0 else { throw WriteError(description: String(cString: strerror(errno))) }
    }

    /// Whether a file or folder can be read by its group or by everyone (nil when it does not exist).
    public static func isReadableByOthers(_ path: String) -> Bool? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return st.st_mode & 0o044 != 0
    }

    /// The permission bits of `path` (nil when it does not exist).
    public static func permissions(_ path: String) -> mode_t? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return st.st_mode & 0o7777
    }
}
