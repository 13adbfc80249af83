// Reading a file the person attaches: a regular file only, size-capped, read once, checked
// for change while reading, sniffed and checked for truncation. Errors never name the file.
import Glibc

/// A file read for attaching, not yet stored (nor hashed: that happens in the background once
/// the message is saved, AttachmentSaving.swift).
public struct LoadedAttachment: Sendable {
    public var name: String
    public var format: AttachmentFormat
    public var bytes: [UInt8]
    /// The key the message stores it under until its SHA-256 is known ("pending-…").
    public let key: String

    public init(name: String, format: AttachmentFormat, bytes: [UInt8]) {
        self.name = name
        self.format = format
        self.bytes = bytes
        self.key = AttachmentRef.newPendingKey()
    }

    /// Checks `bytes` as a file called `name` would be checked (replay's seeded files).
    public static func checked(name: String, bytes: [UInt8]) throws(AttachmentError) -> LoadedAttachment {
        if bytes.isEmpty { throw AttachmentError("That file is empty; attach the image or PDF again once it is saved.") }
        let format = try AttachmentFile.check(bytes)
        return LoadedAttachment(name: name, format: format, bytes: bytes)
    }

    public var ref: AttachmentRef {
        AttachmentRef(name: name, format: format, byteCount: bytes.count, sha256: key, source: MemoryAttachmentSource(bytes))
    }
}

/// Why a file cannot be attached: one line saying what to do; never the file's name or bytes.
public struct AttachmentError: Error, Sendable, Hashable, CustomStringConvertible {
    public var line: String
    public init(_ line: String) { self.line = line }
    public var description: String { line }
}

public enum AttachmentFile {
    /// The largest file ofj reads at all (no provider takes more inline).
    public static let maxBytes = 50 * 1_000_000

    /// Reads and checks the file at `path`. `maxBytes` caps the size before anything is read.
    public static func load(path: String, maxBytes: Int = AttachmentFile.maxBytes) throws(AttachmentError) -> LoadedAttachment {
        try load(path: path, maxBytes: maxBytes, afterRead: nil)
    }

    /// `afterRead` runs between reading and the second look at the file (tests change the file there).
    static func load(path: String, maxBytes: Int, afterRead: (() -> Void)?) throws(AttachmentError) -> LoadedAttachment {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 {
            switch errno {
            case ENOENT, ENOTDIR: throw AttachmentError("No such file; check the path (Tab completes it).")
            case EACCES, EPERM: throw AttachmentError("That file cannot be read (permission denied); check its permissions.")
            default: throw AttachmentError("That file cannot be opened (\(String(cString: strerror(errno)))); check the path.")
            }
        }
        defer { close(fd) }
        var before = stat()
        guard fstat(fd, &before) == 0 else { throw AttachmentError("That file cannot be read; check the path.") }
        switch before.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw AttachmentError("That is a folder; attach an image or PDF file inside it.")
        default: throw AttachmentError("That is not a regular file (a device, pipe or socket); attach an image or PDF file.")
        }
        let size = Int(before.st_size)
        if size == 0 { throw AttachmentError("That file is empty; attach the image or PDF again once it is saved.") }
        if size > maxBytes {
            throw AttachmentError("That file is \(AttachmentRef.sizeText(size)); ofj attaches files up to \(AttachmentRef.sizeText(maxBytes)). Resize or compress it first.")
        }
        // Read one byte more than the size said, to notice a file that grows while being read.
        var bytes = [UInt8](repeating: 0, count: size + 1)
        var got = 0
        let failed: Bool = bytes.withUnsafeMutableBytes { raw in
            while got < raw.count {
                let n = read(fd, raw.baseAddress! + got, raw.count - got)
                if n < 0 { if errno == EINTR { continue }; return true }
                if n == 0 { break }
                got += n
            }
            return false
        }
        if failed { throw AttachmentError("That file could not be read to the end; try again.") }
        afterRead?()
        var after = stat()
        guard fstat(fd, &after) == 0 else { throw AttachmentError("That file cannot be read; check the path.") }
        if got != size || after.st_size != before.st_size || after.st_mtim.tv_sec != before.st_mtim.tv_sec
            || after.st_mtim.tv_nsec != before.st_mtim.tv_nsec {
            throw AttachmentError("That file changed while it was being read; wait until it is saved and attach it again.")
        }
        bytes.removeLast()
        let format = try check(bytes)
        let base = path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? "attachment"
        return LoadedAttachment(name: base, format: format, bytes: bytes)
    }

    /// The format of `bytes`, after checking that a known format is complete.
    public static func check(_ bytes: [UInt8]) throws(AttachmentError) -> AttachmentFormat {
        guard let format = AttachmentFormat.sniff(bytes) else {
            throw AttachmentError("That file is \(AttachmentFormat.describeRefused(bytes)); \(AttachmentFormat.acceptedLine). Convert it (e.g. export as JPEG) and attach again.")
        }
        if !isComplete(bytes, format) {
            throw AttachmentError("That \(format.label) is cut short (incomplete file); save or download it again and attach it.")
        }
        return format
    }

    /// Whether the file ends the way its format ends (trailing zero bytes and whitespace allowed).
    static func isComplete(_ bytes: [UInt8], _ format: AttachmentFormat) -> Bool {
        var end = bytes.count
        while end > 0, [0x00, 0x0A, 0x0D, 0x20, 0x09].contains(bytes[end - 1]) { end -= 1 }
        let body = bytes[0..<end]
        switch format {
        case .jpeg:
            return body.count >= 4 && body.suffix(2).elementsEqual([0xFF, 0xD9])
        case .png:
            // The IEND chunk: length 0, type, CRC.
            return body.suffix(12).elementsEqual([0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])
        case .gif:
            return body.count > 13 && body.last == 0x3B
        case .webp:
            guard bytes.count >= 12 else { return false }
            let riff = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
            return riff + 8 <= bytes.count && riff >= 4
        case .pdf:
            let tail = Array(body.suffix(1_024))
            let eof = Array("%%EOF".utf8)
            guard tail.count >= eof.count else { return false }
            return (0...(tail.count - eof.count)).contains { tail[$0..<$0 + eof.count].elementsEqual(eof) }
        }
    }

    /// Whether `path` looks like a pasted or dropped file name of an existing image or PDF (for
    /// the REPL's "attach it?"): one line, an existing regular file, sniffed as a known format.
    public static func looksAttachable(_ text: String) -> String? {
        var t = text.trimmingCharacters(in: " \t")
        if t.count >= 2, let f = t.first, f == t.last, f == "'" || f == "\"" { t = String(t.dropFirst().dropLast()) }
        if t.hasPrefix("file://") { t = String(t.dropFirst(7)) }
        t = t.replacingOccurrences(of: "\\ ", with: " ")
        guard t.hasPrefix("/") || t.hasPrefix("~/") || t.hasPrefix("./"), !t.contains("\n") else { return nil }
        if t.hasPrefix("~/"), let home = getenv("HOME") { t = String(cString: home) + t.dropFirst(1) }
        var st = stat()
        guard stat(t, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size > 0 else { return nil }
        let fd = open(t, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 16)
        let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress!, 16) }
        guard n > 0, AttachmentFormat.sniff(head.prefix(n)) != nil else { return nil }
        return t
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        let s = Set(set)
        var sub = Substring(self)
        while let f = sub.first, s.contains(f) { sub.removeFirst() }
        while let l = sub.last, s.contains(l) { sub.removeLast() }
        return String(sub)
    }
    fileprivate func replacingOccurrences(of a: String, with b: String) -> String {
        split(separator: a, omittingEmptySubsequences: false).joined(separator: b)
    }
}

/// How many attachments one message may carry.
public enum AttachmentRules {
    public static let maxImages = 4
    public static let maxPDFs = 1

    /// Why `format` cannot be added to a message already carrying `current`, or nil. `remedy`
    /// ends the line: what to do instead where the file was given (the REPL or `ofj ask`).
    public static func refusal(adding format: AttachmentFormat, to current: [AttachmentRef],
                               remedy: String = "send this one with the next message (/detach removes one)") -> String? {
        let images = current.filter(\.format.isImage).count
        if format.isImage && images >= maxImages {
            return "A message carries at most \(maxImages) images; \(remedy)."
        }
        if !format.isImage && current.count - images >= maxPDFs {
            return "A message carries at most \(maxPDFs) PDF; \(remedy)."
        }
        return nil
    }
}
