// Proves TLS peer verification is on: a loopback `openssl s_server` with a self-signed
// certificate must be refused, and the refusal must map to HTTPError.tls.
import Foundation
import HTTP
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

@Suite("TLS verification", .timeLimit(.minutes(1)))
struct TLSVerificationTests {
    @Test func selfSignedCertificateIsRejected() async throws {
        let dir = TempDirectory(prefix: "ofj-tls")
        try runOpenSSL(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                        "-keyout", dir.file("key.pem"), "-out", dir.file("cert.pem"), "-days", "1",
                        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
        let port = deadPort()
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        server.arguments = ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", dir.file("cert.pem"),
                            "-key", dir.file("key.pem"), "-www", "-quiet"]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        server.standardInput = FileHandle.nullDevice
        try server.run()
        defer {
            // s_server does not always exit on SIGTERM; it holds no state worth a clean shutdown.
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        #expect(await eventually(timeout: 10) { canConnect(port: port) })

        do {
            let response = try await CurlTransport().send(HTTPRequest(method: "GET", url: "https://127.0.0.1:\(port)/"))
            Issue.record("self-signed certificate was accepted (status \(response.head.status))")
        } catch let error as HTTPError {
            guard case .tls(let detail) = error else {
                Issue.record("expected tls, got \(error)")
                return
            }
            #expect(detail.lowercased().contains("certificate"))
        }
    }

    private func runOpenSSL(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "openssl \(arguments.first ?? "") failed")
    }
}

/// True if something accepts TCP connections on 127.0.0.1:port.
private func canConnect(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}
