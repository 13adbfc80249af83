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

    /// Encodes `bytes` into `dest` (at most `capacity` bytes); returns how many were written.
    public mutating func write(_ bytes: UnsafeRawBufferPointer, to dest: UnsafeMutableRawPointer, capacity: Int) -> Int {
        let a = Self.alphabet
        let d = dest.assumingMemoryBound(to: UInt8.self)
        var o = 0
        var i = 0
        let n = bytes.count
        while pendingCount > 0 && i < n {
            if pendingCount == 1 {
                pending.1 = bytes[i]; pendingCount = 2
            } else {
                precondition(o + 4 <= capacity)
                let (b0, b1, b2) = (pending.0, pending.1, bytes[i])
                d[o] = a[Int(b0 >> 2)]; d[o + 1] = a[Int((b0 & 0x03) << 4 | b1 >> 4)]
                d[o + 2] = a[Int((b1 & 0x0F) << 2 | b2 >> 6)]; d[o + 3] = a[Int(b2 & 0x3F)]
                o += 4; pendingCount = 0
            }
            i += 1
        }
        let groups = (n - i) / 3
        precondition(o + groups * 4 <= capacity)
        a.withUnsafeBufferPointer { table in
            guard let src = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            let t = table.baseAddress!
            var s = i
            for _ in 0..<groups {
                let b0 = src[s], b1 = src[s + 1], b2 = src[s + 2]
                d[o] = t[Int(b0 >> 2)]
                d[o + 1] = t[Int((b0 & 0x03) << 4 | b1 >> 4)]
                d[o + 2] = t[Int((b1 & 0x0F) << 2 | b2 >> 6)]
                d[o + 3] = t[Int(b2 & 0x3F)]
                s += 3; o += 4
            }
            i = s
        }
        while i < n {
            if pendingCount == 0 { pending.0 = bytes[i]; pendingCount = 1 } else { pending.1 = bytes[i]; pendingCount = 2 }
            i += 1
        }
        return o
    }

    /// Writes the last partial group with padding into `dest`; returns how many bytes were written.
    public mutating func finish(to dest: UnsafeMutableRawPointer, capacity: Int) -> Int {
        var tail: [UInt8] = []
        finish(&tail)
        precondition(tail.count <= capacity)
        tail.withUnsafeBytes { dest.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(dest), byteCount: $0.count) }
        return tail.count
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

/// SHA-256 (FIPS 180-4) fed piece by piece; no crypto library is linked. The compression loop
/// works on raw pointers (no bounds checks or allocations per block): hashing sits on the path
/// between attaching a file and sending the request.
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
    private var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
    private var block = [UInt8](repeating: 0, count: 64)
    private var blockCount = 0
    private var length: UInt64 = 0

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        length &+= UInt64(bytes.count)
        var i = 0
        let n = bytes.count
        if blockCount > 0 {
            let take = min(64 - blockCount, n)
            block.withUnsafeMutableBytes { b in (b.baseAddress! + blockCount).copyMemory(from: base, byteCount: take) }
            blockCount += take
            i = take
            if blockCount == 64 {
                block.withUnsafeBytes { b in Self.compress(&h, b.baseAddress!, blocks: 1) }
                blockCount = 0
            }
        }
        let whole = (n - i) / 64
        if whole > 0 {
            Self.compress(&h, base + i, blocks: whole)
            i += whole * 64
        }
        if i < n {
            let rest = n - i
            block.withUnsafeMutableBytes { b in b.baseAddress!.copyMemory(from: base + i, byteCount: rest) }
            blockCount = rest
        }
    }

    public mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    @inline(__always) private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

    private static func compress(_ state: inout [UInt32], _ p: UnsafeRawPointer, blocks: Int) {
        let w = UnsafeMutablePointer<UInt32>.allocate(capacity: 64)
        defer { w.deallocate() }
        k.withUnsafeBufferPointer { kb in
            let k = kb.baseAddress!
            state.withUnsafeMutableBufferPointer { hb in
                let h = hb.baseAddress!
                var (h0, h1, h2, h3, h4, h5, h6, h7) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
                for blockIndex in 0..<blocks {
                    let q = p + blockIndex * 64
                    for t in 0..<16 { w[t] = UInt32(bigEndian: q.loadUnaligned(fromByteOffset: t * 4, as: UInt32.self)) }
                    for t in 16..<64 {
                        let a = w[t - 15], b = w[t - 2]
                        let s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >> 3)
                        let s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >> 10)
                        w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
                    }
                    var (a, b, c, d, e, f, g, hh) = (h0, h1, h2, h3, h4, h5, h6, h7)
                    for t in 0..<64 {
                        let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                        let ch = (e & f) ^ (~e & g)
                        let t1 = hh &+ s1 &+ ch &+ k[t] &+ w[t]
                        let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                        let maj = (a & b) ^ (a & c) ^ (b & c)
                        hh = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ s0 &+ maj
                    }
                    h0 = h0 &+ a; h1 = h1 &+ b; h2 = h2 &+ c; h3 = h3 &+ d
                    h4 = h4 &+ e; h5 = h5 &+ f; h6 = h6 &+ g; h7 = h7 &+ hh
                }
                (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]) = (h0, h1, h2, h3, h4, h5, h6, h7)
            }
        }
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
        for word in h {
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

    /// The markers in `json`: byte range and attachment, in order.
    static func markers(_ json: [UInt8], _ attachments: [AttachmentRef]) -> [(Range<Int>, AttachmentRef)] {
        var bySHA: [String: AttachmentRef] = [:]
        for a in attachments { bySHA[a.sha256] = a }
        let prefix = Array("@@ofj-attachment-\(tag)-".utf8)
        var found: [(Range<Int>, AttachmentRef)] = []
        json.withUnsafeBufferPointer { utf8 in
            var i = 0
            while i + prefix.count + 66 <= utf8.count {
                if utf8[i] == UInt8(ascii: "@"), prefix.indices.allSatisfy({ utf8[i + $0] == prefix[$0] }) {
                    let shaStart = i + prefix.count
                    let shaEnd = shaStart + 64
                    if utf8[shaEnd] == UInt8(ascii: "@"), utf8[shaEnd + 1] == UInt8(ascii: "@"),
                       let ref = bySHA[String(decoding: UnsafeBufferPointer(rebasing: utf8[shaStart..<shaEnd]), as: UTF8.self)] {
                        found.append((i..<shaEnd + 2, ref))
                        i = shaEnd + 2
                        continue
                    }
                }
                i += 1
            }
        }
        return found
    }

    /// The exact size of the spliced body.
    public static func splicedCount(_ json: [UInt8], _ attachments: [AttachmentRef]) -> Int {
        markers(json, attachments).reduce(json.count) { $0 - $1.0.count + $1.1.base64Count }
    }

    /// Writes `json` with every marker replaced by its attachment's base64 into `out` (exactly
    /// `splicedCount` bytes long), reading each attachment from its source in chunks.
    public static func splice(_ json: [UInt8], _ attachments: [AttachmentRef], into out: UnsafeMutableRawBufferPointer) throws {
        var position = 0
        var copied = 0
        func put(_ from: UnsafeRawBufferPointer) {
            precondition(position + from.count <= out.count, "spliced body larger than counted")
            (out.baseAddress! + position).copyMemory(from: from.baseAddress!, byteCount: from.count)
            position += from.count
        }
        let found = markers(json, attachments)
        // Every attachment has its place in the body; a request that would go out without one
        // (or with a marker left in it) is not sent at all.
        let placed = Set(found.map(\.1.sha256))
        guard attachments.allSatisfy({ placed.contains($0.sha256) }) else {
            throw AgentError(.internal, "An attachment could not be placed in the request; nothing was sent. Attach the file again.")
        }
        try json.withUnsafeBytes { raw in
            for (range, ref) in found {
                if range.lowerBound > copied { put(UnsafeRawBufferPointer(rebasing: raw[copied..<range.lowerBound])) }
                var encoder = Base64Appender()
                var written = 0
                try ref.source.read { chunk in
                    written += encoder.write(chunk, to: out.baseAddress! + position + written, capacity: out.count - position - written)
                }
                written += encoder.finish(to: out.baseAddress! + position + written, capacity: out.count - position - written)
                guard written == ref.base64Count else {
                    throw AgentError(.storage, "An attachment changed size in the database; attach the file again.")
                }
                position += written
                copied = range.upperBound
            }
            if copied < raw.count { put(UnsafeRawBufferPointer(rebasing: raw[copied...])) }
        }
        precondition(position == out.count, "spliced body shorter than counted")
    }

    /// The spliced body as an array (tests and small bodies).
    public static func splice(_ json: [UInt8], _ attachments: [AttachmentRef]) throws -> [UInt8] {
        guard !attachments.isEmpty else { return json }
        let count = splicedCount(json, attachments)
        return try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            try splice(json, attachments, into: UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }
}
