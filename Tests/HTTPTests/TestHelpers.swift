// Shared helpers for the HTTP transport tests: request builders, body draining, fd inspection.
import Foundation
import HTTP
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What a body stream produced before it ended.
struct Drained {
    var chunks: [[UInt8]] = []
    var error: Error?
    var bytes: [UInt8] { chunks.flatMap { $0 } }
}

func drain(_ response: HTTPStreamingResponse) async -> Drained {
    var out = Drained()
    do {
        for try await chunk in response.body { out.chunks.append(chunk) }
    } catch {
        out.error = error
    }
    return out
}

func request(_ server: LoopbackHTTPServer, _ path: String = "/v1/test", method: String = "POST",
             headers: [HTTPHeader] = [], body: [UInt8] = Array(#"{"hello":"world"}"#.utf8),
             timeouts: HTTPTimeouts = relaxedTimeouts) -> HTTPRequest {
    HTTPRequest(method: method, url: server.url(path), headers: headers, body: body, timeouts: timeouts)
}

/// Timeouts that only a broken transport trips. Tests run in parallel with every other suite on
/// a busy machine, where the cooperative pool can be starved for seconds; a test that relies on
/// the consumer keeping up (e.g. releasing a hold) must not race a short idle timer.
let relaxedTimeouts = HTTPTimeouts(connect: 10, firstByte: 30, idle: 30)

/// Deterministic pseudo-random bytes.
func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var generator = SeededRandom(seed: seed)
    var out = [UInt8]()
    out.reserveCapacity(count)
    while out.count < count {
        let word = generator.next()
        for shift in stride(from: 0, to: 64, by: 8) where out.count < count {
            out.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
        }
    }
    return out
}

/// Polls until `condition` holds or `timeout` seconds pass.
func eventually(timeout: Double = 20, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// Number of this process's open file descriptors that are TCP sockets with `port` at either end.
/// Other tests running in parallel use other ports, so this count is ours alone. Listening
/// sockets are not counted.
func openSocketDescriptors(port: Int) -> Int {
    let hexPort = String(format: ":%04X", port)
    var inodes = Set<String>()
    for table in ["/proc/self/net/tcp", "/proc/self/net/tcp6"] {
        guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 9, fields[3] != "0A" else { continue }  // 0A: the listening socket
            if fields[1].hasSuffix(hexPort) || fields[2].hasSuffix(hexPort) { inodes.insert(String(fields[9])) }
        }
    }
    inodes.remove("0")
    let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return fds.filter { fd in
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)"),
              target.hasPrefix("socket:[") else { return false }
        return inodes.contains(String(target.dropFirst(8).dropLast()))
    }.count
}

/// Names of this process's threads.
func threadNames() -> [String] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
        .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
}

/// A listening socket whose accept queue is full, so further SYNs are dropped and connects hang
/// (a loopback stand-in for an unreachable host).
final class BlackholeListener {
    let port: Int
    private var fds: [Int32] = []

    init?() {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { return nil }
        fds.append(listener)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 0) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard ok else { return nil }
        port = Int(UInt16(bigEndian: address.sin_port))
        // Fill the accept queue (never accepted).
        for _ in 0..<3 {
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard client >= 0 else { continue }
            fds.append(client)
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        usleep(50_000)
    }

    deinit { for fd in fds { close(fd) } }
}

/// A port on 127.0.0.1 with nothing listening (bound once, then released).
func deadPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 ? getsockname(fd, $0, &length) : -1
        }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}
