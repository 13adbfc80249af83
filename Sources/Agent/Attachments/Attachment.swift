// Images and PDFs attached to a user message: formats (sniffed from the bytes), references that
// the transcript carries, and the byte sources a request body streams from.

/// What an attachment is, sniffed from its first bytes (never from the file name).
public enum AttachmentFormat: String, Sendable, Hashable, CaseIterable {
    case jpeg, png, webp, gif, pdf

    public var mediaType: String {
        switch self {
        case .jpeg: return "image/jpeg"
        case .png: return "image/png"
        case .webp: return "image/webp"
        case .gif: return "image/gif"
        case .pdf: return "application/pdf"
        }
    }
    public var isImage: Bool { self != .pdf }
    /// "JPEG image", "PDF document": how a card or a list names the type.
    public var label: String {
        switch self {
        case .jpeg: return "JPEG image"
        case .png: return "PNG image"
        case .webp: return "WebP image"
        case .gif: return "GIF image"
        case .pdf: return "PDF document"
        }
    }

    public init?(mediaType: String) {
        guard let f = Self.allCases.first(where: { $0.mediaType == mediaType }) else { return nil }
        self = f
    }

    /// The line every refusal of an unknown type ends with.
    public static let acceptedLine = "ofj attaches JPEG, PNG, WebP and GIF images and PDF documents"

    /// The format of `head` (the file's first bytes, at least 16 when the file has them), or nil.
    public static func sniff(_ head: some Collection<UInt8>) -> AttachmentFormat? {
        let b = Array(head.prefix(16))
        func starts(_ s: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + s.count && Array(b[offset..<offset + s.count]) == s
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts(Array("%PDF-".utf8)) { return .pdf }
        return nil
    }

    /// A name for a refused type the person may recognise ("a HEIC photo"), from its bytes.
    public static func describeRefused(_ head: some Collection<UInt8>) -> String {
        let b = Array(head.prefix(16))
        if b.count >= 12, Array(b[4..<8]) == Array("ftyp".utf8) {
            let brand = String(decoding: b[8..<12], as: UTF8.self)
            if ["heic", "heix", "hevc", "heim", "heis", "mif1", "msf1"].contains(brand) { return "a HEIC/HEIF photo" }
            if brand.hasPrefix("avi") { return "an AVIF image" }
            return "a video or other media file"
        }
        if b.starts(with: Array("II*\0".utf8)) || b.starts(with: Array("MM\0*".utf8)) { return "a TIFF image" }
        if b.starts(with: Array("BM".utf8)) { return "a BMP image" }
        if b.starts(with: Array("<svg".utf8)) || b.starts(with: Array("<?xml".utf8)) { return "an SVG or XML file" }
        return "not an image or PDF ofj can read"
    }
}

/// Where an attachment's bytes come from when a request body is written (the database, or
/// memory in tests). Reads in order, in chunks, so a body can be encoded without a whole copy.
public protocol AttachmentSource: Sendable {
    /// Calls `chunk` with consecutive pieces of the bytes (each at most `AttachmentSource.chunkSize`).
    func read(_ chunk: (UnsafeRawBufferPointer) throws -> Void) throws
}

extension AttachmentSource {
    /// Chunk size used by sources: a multiple of 3, so every chunk but the last encodes to whole
    /// base64 quads.
    public static var chunkSize: Int { 3 * 64 * 1024 }
}

/// Bytes held in memory (tests, and files read before they are stored).
public struct MemoryAttachmentSource: AttachmentSource {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public func read(_ chunk: (UnsafeRawBufferPointer) throws -> Void) throws {
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            let size = Self.chunkSize
            while offset < raw.count {
                let n = min(size, raw.count - offset)
                try chunk(UnsafeRawBufferPointer(rebasing: raw[offset..<offset + n]))
                offset += n
            }
        }
    }
}

/// Why an attachment's bytes are not in this database.
public enum AttachmentAbsence: Sendable, Hashable {
    /// Only its metadata synced: the file stays on the machine it was attached on.
    case onAnotherMachine
    /// ofj stopped (was killed) while saving it, after the message was saved (AttachmentSaving.swift).
    case notSaved
    /// Another ofj (the one that sent the message) is saving it right now.
    case beingSaved

    /// How lines naming such an attachment say it.
    public var note: String {
        switch self {
        case .onAnotherMachine: return "on another machine"
        case .notSaved: return "not saved (ofj stopped while saving it)"
        case .beingSaved: return "still being saved by the ofj that sent it"
        }
    }
}

/// One attachment of a message, as the transcript carries it. Equality and hashing use the
/// identity fields, not the byte source.
public struct AttachmentRef: Sendable, Hashable, CustomStringConvertible {
    /// The id the model and the person use ("a12"): the message link's row id; "" until stored.
    public var id: String
    /// The file's base name as attached (shown on cards and to the model; never in diagnostics).
    public var name: String
    public var format: AttachmentFormat
    public var byteCount: Int
    /// Lower-case hex SHA-256 of the bytes: the storage key. A file just read has a random
    /// "pending-…" key instead until it is hashed in the background (AttachmentSaving.swift).
    public var sha256: String
    public var source: any AttachmentSource
    /// Why the bytes are not here, when only the metadata is: never sent; shown as a line.
    public var absence: AttachmentAbsence?

    public init(id: String = "", name: String, format: AttachmentFormat, byteCount: Int, sha256: String, source: any AttachmentSource,
                absence: AttachmentAbsence? = nil) {
        self.id = id
        self.name = name
        self.format = format
        self.byteCount = byteCount
        self.sha256 = sha256
        self.source = source
        self.absence = absence
    }

    /// True when the message synced from another machine and the bytes stay where the file was
    /// attached (docs/SYNC.md).
    public var isRemote: Bool { absence == .onAnotherMachine }

    public static func == (a: AttachmentRef, b: AttachmentRef) -> Bool {
        a.id == b.id && a.name == b.name && a.format == b.format && a.byteCount == b.byteCount && a.sha256 == b.sha256 && a.absence == b.absence
    }
    public func hash(into h: inout Hasher) {
        h.combine(id); h.combine(sha256); h.combine(name)
    }
    /// Never the bytes; the name only because descriptions are for tests and debugging.
    public var description: String { "attachment(\(id.isEmpty ? "-" : id), \(format.rawValue), \(byteCount) bytes)" }

    /// Base64 length of the bytes (what an inline request carries).
    public var base64Count: Int { (byteCount + 2) / 3 * 4 }

    /// The line the model sees instead of an attachment that an earlier message carried (or
    /// one whose bytes are on another machine: it cannot be shown here at all).
    public var placeholder: String {
        if let absence {
            return "[attachment \(id): \(format.label) \"\(name)\", \(AttachmentRef.sizeText(byteCount)); \(absence.note): it cannot be shown here]"
        }
        return "[attachment \(id): \(format.label) \"\(name)\", \(AttachmentRef.sizeText(byteCount)); not shown again: call read_attachment with id \"\(id)\" to look at it]"
    }

    /// What every line naming an attachment whose bytes are on another machine says.
    public static let remoteNote = AttachmentAbsence.onAnotherMachine.note

    /// "label.jpg (image/png, 120 KB)", plus " — on another machine" (or why else) when the
    /// bytes are not here: how `ofj threads show/export` lists a message's files (name not yet
    /// made safe).
    public var listLine: String {
        "\(name) (\(format.mediaType), \(AttachmentRef.sizeText(byteCount)))" + (absence.map { " — \($0.note)" } ?? "")
    }

    /// "2.1 MB", "340 KB", "12 bytes".
    public static func sizeText(_ n: Int) -> String {
        if n < 1_000 { return "\(n) bytes" }
        if n < 1_000_000 { return "\((n + 500) / 1_000) KB" }
        let tenths = (n + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10) MB"
    }
}
