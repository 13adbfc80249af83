// Streaming base64 into a request body, an incremental SHA-256, and splicing attachment bytes
// into a serialized JSON body at placeholder strings.

/// Base64 (RFC 4648, with padding) appended to a byte buffer piece by piece.
public struct Base64Appender {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private var pending: (UInt8, UInt8) = (0, 0)
    private var pendingCount = 0

    public init() {}

    public mutating func append(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        var i = 0
        let n = bytes.count
        let a = Self.alphabet
        // Complete a group started by the previous piece.
        while pendingCount > 0 && pendingCount < 3 && i < n {
            if pendingCount == 1 { pending.1 = bytes[i] } else { emit(pending.0, pending.1, bytes[i], into: &out) }
            pendingCount = pendingCount == 2 ? 0 : 2
            i += 1
        }
        while i + 3 <= n {
            let b0 = bytes[i], b1 = bytes[i + 1], b2 = bytes[i + 2]
            out.append(a[Int(b0 >> 2)])
            out.append(a[Int((b0 & 0x03) << 4 | b1 >> 4)])
            out.append(a[Int((b1 & 0x0F) << 2 | b2 >> 6)])
            out.append(a[Int(b2 & 0x3F)])
            i += 3
        }
        while i < n {
            if pendingCount == 0 { pending.0 = bytes[i]; pendingCount = 1 } else { pending.1 = bytes[i]; pendingCount = 2 }
            i += 1
        }
    }

    private func emit(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, into out: inout [UInt8]) {
        let a = Self.alphabet
        out.append(a[Int(b0 >> 2)])
        out.append(a[Int((b0 & 0x03) << 4 | b1 >> 4)])
        out.append(a[Int((b1 & 0x0F) << 2 | b2 >> 6)])
        out.append(a[Int(b2 & 0x3F)])
    }

    /// Writes the last partial group with padding.
    public mutating func finish(_ out: inout [UInt8]) {
        let a = Self.alphabet
        let pad = UInt8(ascii: "=")
        switch pendingCount {
        case 1:
            out.append(a[Int(pending.0 >> 2)]); out.append(a[Int((pending.0 & 0x03) << 4)]); out.append(pad); out.append(pad)
        case 2:
            out.append(a[Int(pending.0 >> 2)]); out.append(a[Int((pending.0 & 0x03) << 4 | pending.1 >> 4)])
            out.append(a[Int((pending.1 & 0x0F) << 2)]); out.append(pad)
        default: break
        }
        pendingCount = 0
    }

    /// The whole encoding of `bytes` (tests and small values).
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var b = Base64Appender()
        bytes.withUnsafeBytes { b.append($0, to: &out) }
        b.finish(&out)
        return String(decoding: out, as: UTF8.self)
    }
}

/// SHA-256 (FIPS 180-4) fed piece by piece; no crypto library is linked.
public struct SHA256Hasher {
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]
    private var h: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    private var block = [UInt8](repeating: 0, count: 64)
    private var blockCount = 0
    private var length: UInt64 = 0
    private var w = [UInt32](repeating: 0, count: 64)

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var i = 0
        while i < bytes.count {
            if blockCount == 0 && bytes.count - i >= 64 {
                compress(UnsafeRawBufferPointer(rebasing: bytes[i..<i + 64]))
                i += 64
                continue
            }
            let n = min(64 - blockCount, bytes.count - i)
            for j in 0..<n { block[blockCount + j] = bytes[i + j] }
            blockCount += n
            i += n
            if blockCount == 64 {
                let copy = block
                copy.withUnsafeBytes { compress($0) }
                blockCount = 0
            }
        }
    }

    public mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    private mutating func compress(_ p: UnsafeRawBufferPointer) {
        func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
        for t in 0..<16 {
            w[t] = UInt32(p[t * 4]) << 24 | UInt32(p[t * 4 + 1]) << 16 | UInt32(p[t * 4 + 2]) << 8 | UInt32(p[t * 4 + 3])
        }
        for t in 16..<64 {
            let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
            let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
            w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, hh) = h
        for t in 0..<64 {
            let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
            let ch = (e & f) ^ (~e & g)
            let t1 = hh &+ s1 &+ ch &+ Self.k[t] &+ w[t]
            let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
            let maj = (a & b) ^ (a & c) ^ (b & c)
            (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ s0 &+ maj)
        }
        h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e, h.5 &+ f, h.6 &+ g, h.7 &+ hh)
    }

    /// Lower-case hex digest.
    public mutating func finalize() -> String {
        let bits = length &* 8
        var tail: [UInt8] = [0x80]
        while (blockCount + tail.count) % 64 != 56 { tail.append(0) }
        for i in (0..<8).reversed() { tail.append(UInt8(truncatingIfNeeded: bits >> (UInt64(i) * 8))) }
        let saved = length
        update(tail)
        length = saved
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for word in [h.0, h.1, h.2, h.3, h.4, h.5, h.6, h.7] {
            for shift in stride(from: 28, through: 0, by: -4) { out.append(digits[Int((word >> UInt32(shift)) & 0xF)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func hex(_ bytes: [UInt8]) -> String {
        var s = SHA256Hasher()
        s.update(bytes)
        return s.finalize()
    }
}

/// Writes a request body whose JSON carries attachment placeholders: adapters put
/// `marker(ref)` where the attachment's base64 goes (alone, or after a `data:` prefix), serialize
/// the JSON as usual, and `splice` streams each attachment's base64 into the output in place of
/// its marker. The JSON is built without the bytes, and the body is the only whole copy.
public enum AttachmentSplicer {
    /// A per-process random tag, so text a person or model wrote cannot be taken for a marker.
    static let tag: String = {
        var g = SystemRandomNumberGenerator()
        return String(UInt64.random(in: 1...UInt64.max, using: &g), radix: 36)
    }()

    /// The string to put in the JSON where `ref`'s base64 belongs.
    public static func marker(_ ref: AttachmentRef) -> String { "@@ofj-attachment-\(tag)-\(ref.sha256)@@" }

    /// `json` with every marker replaced by its attachment's base64 (read from its source in chunks).
    public static func splice(_ json: [UInt8], _ attachments: [AttachmentRef]) throws -> [UInt8] {
        var utf8 = json
        guard !attachments.isEmpty else { return utf8 }
        var bySHA: [String: AttachmentRef] = [:]
        for a in attachments { bySHA[a.sha256] = a }
        let prefix = Array("@@ofj-attachment-\(tag)-".utf8)
        var total = utf8.count
        for a in bySHA.values { total += a.base64Count }
        var out: [UInt8] = []
        out.reserveCapacity(total)
        var i = 0
        var copied = 0
        while i + prefix.count + 66 <= utf8.count {
            if utf8[i] == UInt8(ascii: "@"), utf8[i..<i + prefix.count].elementsEqual(prefix) {
                let shaStart = i + prefix.count
                let shaEnd = shaStart + 64
                if utf8[shaEnd] == UInt8(ascii: "@"), utf8[shaEnd + 1] == UInt8(ascii: "@"),
                   let ref = bySHA[String(decoding: utf8[shaStart..<shaEnd], as: UTF8.self)] {
                    out.append(contentsOf: utf8[copied..<i])
                    var encoder = Base64Appender()
                    try ref.source.read { encoder.append($0, to: &out) }
                    encoder.finish(&out)
                    i = shaEnd + 2
                    copied = i
                    continue
                }
            }
            i += 1
        }
        out.append(contentsOf: utf8[copied...])
        utf8 = []
        return out
    }
}
