// Test doubles for fetch_url: the test-only resolver and address policy (the seam that lets the
// suite reach its own loopback servers; the product has no way to construct them), a listener
// that only counts connections, and a raw server for bodies too large or too slow to script.
import Foundation
import HTTP
import Research
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Answers from a table; each name has a list of answer sets, used in turn (the last repeats).
final class FakeResolver: HostResolver {
    private let table: [String: [[IPAddress]]]
    private let calls = Mutex<[String: Int]>([:])

    init(_ table: [String: [[IPAddress]]]) { self.table = table }

    func resolve(_ name: String) async throws(FetchError) -> [IPAddress] {
        let n = calls.withLock { c -> Int in
            c[name, default: 0] += 1
            return c[name, default: 1] - 1
        }
        guard let answers = table[name], !answers.isEmpty else { throw .failed("could not find the host \(name) (DNS lookup failed)") }
        return answers[min(n, answers.count - 1)]
    }

    func lookups(of name: String) -> Int { calls.withLock { $0[name] ?? 0 } }
}

/// The product's policy, except that 127.0.0.1 on the given ports counts as public: the tests'
/// "internet" is their own page servers. Every other loopback address and port stays refused.
struct LoopbackPagesPolicy: AddressPolicy {
    let ports: Set<Int>
    func refusal(for address: IPAddress, port: Int) -> String? {
        if address == .v4(0x7F00_0001) && ports.contains(port) { return nil }
        return PublicInternetPolicy().refusal(for: address, port: port)
    }
}

func ip(_ text: String) -> IPAddress {
    if let a = IPAddress.parseIPv6(text) { return a }
    guard let a = IPAddress.parseIPv4(text) else { fatalError("bad test address \(text)") }
    return a
}

/// A TCP listener on 127.0.0.1 and ::1 (same port) that accepts and counts connections and never
/// answers. A refused fetch aimed at it must leave the count at zero.
final class ConnectionWatcher: @unchecked Sendable {
    let port: Int
    private var sockets: [Int32] = []
    private let count = Mutex(0)
    private let stopped = Mutex(false)

    /// Binds 127.0.0.1 on `port` (0: any free port), and ::1 on the same port.
    init(port requested: Int = 0) throws {
        let v4 = try Self.listen(v6: false, port: requested)
        port = v4.port
        sockets.append(v4.fd)
        if let v6 = try? Self.listen(v6: true, port: port) { sockets.append(v6.fd) }
        for fd in sockets {
            Thread { [self] in
                while true {
                    let client = accept(fd, nil, nil)
                    if client >= 0 {
                        count.withLock { $0 += 1 }
                        close(client)
                        continue
                    }
                    // Only this thread closes its listener, after stop() shut it down: no
                    // descriptor is closed twice or used after another test reopened its number.
                    let done = stopped.withLock { s -> Bool in
                        if s { close(fd) }
                        return s
                    }
                    if done { return }
                    usleep(1000)
                }
            }.start()
        }
    }

    var connections: Int { count.withLock { $0 } }

    func stop() {
        stopped.withLock { s in
            guard !s else { return }
            s = true
            for fd in sockets { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    deinit { stop() }

    static func listen(v6: Bool, port: Int) throws -> (fd: Int32, port: Int) {
        let fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var bound: Int32
        if v6 {
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
            var addr = sockaddr_in6()
            addr.sin6_family = sa_family_t(AF_INET6)
            addr.sin6_port = in_port_t(UInt16(port).bigEndian)
            addr.sin6_addr = in6addr_loopback
            bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        } else {
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = in_port_t(UInt16(port).bigEndian)
            addr.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        guard bound == 0, Glibc.listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var addr = sockaddr_in6()
        var len = socklen_t(MemoryLayout<sockaddr_in6>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        let actual = v6 ? Int(UInt16(bigEndian: addr.sin6_port)) : Int(UInt16(bigEndian: withUnsafeBytes(of: addr) { $0.load(fromByteOffset: 2, as: UInt16.self) }))
        return (fd, actual)
    }
}

/// A one-connection-at-a-time raw HTTP server on 127.0.0.1 that writes a fixed head and then a
/// body produced piece by piece: endless zeros (a "2 GB" body), or one byte every interval
/// (slowloris). It counts the body bytes it managed to write.
final class RawBodyServer: @unchecked Sendable {
    enum Body: Sendable {
        case endless(chunk: Int)
        case drip(interval: Double)
    }
    let port: Int
    private let fd: Int32
    private let written = Mutex(0)
    private let stopped = Mutex(false)
    private let finished = Mutex(false)
    /// Guarded by `stopped`'s lock.
    private nonisolated(unsafe) var listenerOpen = true

    init(head: String, body: Body) throws {
        let l = try ConnectionWatcher.listen(v6: false, port: 0)
        fd = l.fd
        port = l.port
        Thread { [self] in
            let client = accept(fd, nil, nil)
            // The listener is closed here, once, under the lock stop() takes.
            stopped.withLock { _ in close(fd); listenerOpen = false }
            guard client >= 0 else { return }
            var request = [UInt8](repeating: 0, count: 4096)
            _ = recv(client, &request, request.count, 0)
            _ = head.utf8CString.withUnsafeBufferPointer { send(client, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
            switch body {
            case .endless(let size):
                let zeros = [UInt8](repeating: 0x61, count: size)
                while !stopped.withLock({ $0 }) {
                    let n = zeros.withUnsafeBytes { send(client, $0.baseAddress, size, Int32(MSG_NOSIGNAL)) }
                    if n <= 0 { break }
                    written.withLock { $0 += n }
                }
            case .drip(let interval):
                while !stopped.withLock({ $0 }) {
                    var byte: UInt8 = 0x61
                    if send(client, &byte, 1, Int32(MSG_NOSIGNAL)) <= 0 { break }
                    written.withLock { $0 += 1 }
                    usleep(useconds_t(interval * 1_000_000))
                }
            }
            close(client)
            finished.withLock { $0 = true }
        }.start()
    }

    var url: String { "http://127.0.0.1:\(port)" }
    var bytesWritten: Int { written.withLock { $0 } }
    /// True once the client hung up (the server noticed and stopped writing).
    var clientGone: Bool { finished.withLock { $0 } }

    func stop() {
        stopped.withLock { s in
            s = true
            if listenerOpen { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    deinit { stop() }
}

/// A gzip member whose body inflates to `size` zero bytes: one literal, then length-258
/// distance-1 matches (fixed Huffman, 13 bits per 258 bytes, so 8 MB fits in about 50 KB).
func gzipBomb(size: Int) -> [UInt8] {
    var out: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF]
    var bitBuffer: UInt32 = 0
    var bitCount = 0
    func bits(_ value: UInt32, _ count: Int) {  // LSB first
        for i in 0..<count {
            bitBuffer |= ((value >> UInt32(i)) & 1) << UInt32(bitCount)
            bitCount += 1
            if bitCount == 8 { out.append(UInt8(bitBuffer)); bitBuffer = 0; bitCount = 0 }
        }
    }
    func code(_ value: UInt32, _ length: Int) {  // Huffman codes go MSB first
        for i in (0..<length).reversed() { bits((value >> UInt32(i)) & 1, 1) }
    }
    bits(1, 1)  // BFINAL
    bits(1, 2)  // fixed Huffman
    code(0x30, 8)  // literal 0
    var remaining = size - 1
    while remaining >= 258 {
        code(0b1100_0101, 8)  // length 258 (code 285)
        code(0, 5)  // distance 1
        remaining -= 258
    }
    for _ in 0..<remaining { code(0x30, 8) }
    code(0, 7)  // end of block
    if bitCount > 0 { out.append(UInt8(bitBuffer)) }
    var table = [UInt32](repeating: 0, count: 256)
    for n in 0..<256 {
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        table[n] = c
    }
    var crc: UInt32 = 0xFFFF_FFFF
    for _ in 0..<size { crc = table[Int((crc ^ 0) & 0xFF)] ^ (crc >> 8) }
    crc ^= 0xFFFF_FFFF
    for v in [crc, UInt32(truncatingIfNeeded: size)] {
        out.append(contentsOf: [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)])
    }
    return out
}
