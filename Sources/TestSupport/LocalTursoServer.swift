// Runs tools/turso_server.py as a subprocess on a free loopback port for end-to-end tests.
import Foundation
import HTTP

/// The local Turso-compatible server (Python standard library), started with `--port 0`; the
/// port is read from the first line of its stdout. Stopped by `stop()` or when released.
public final class LocalTursoServer: @unchecked Sendable {
    public let process = Process()
    public let port: Int
    public var url: String { "http://127.0.0.1:\(port)" }

    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    static var script: String { OfjBinary.repositoryRoot + "/tools/turso_server.py" }

    public init(token: String? = nil, db: String? = nil, arguments extra: [String] = []) throws {
        guard let python = Self.python else { throw StartError(description: "python3 is not available") }
        process.executableURL = URL(fileURLWithPath: python)
        var arguments = [Self.script, "--port", "0", "--quiet"]
        if let token { arguments += ["--token", token] }
        if let db { arguments += ["--db", db] }
        arguments += extra
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Read the first line (the port). EOF before it means the server failed to start.
        var buffer: [UInt8] = []
        let handle = out.fileHandleForReading
        while !buffer.contains(UInt8(ascii: "\n")) {
            guard let data = PipeReading.readSome(handle) else { break }
            buffer += data
        }
        let line = String(decoding: buffer, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        guard let port = Int(line.trimmingCharacters(in: .whitespaces)) else {
            process.terminate()
            throw StartError(description: "turso_server.py did not report a port (got \(line.debugDescription))")
        }
        self.port = port
    }

    /// Starts a server without blocking a Swift concurrency thread (the start-up reads a pipe and
    /// tests run on a small shared pool).
    public static func start(token: String? = nil, db: String? = nil, arguments: [String] = []) async throws -> LocalTursoServer {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try LocalTursoServer(token: token, db: db, arguments: arguments) })
            }
        }
    }

    /// Stops the server off the concurrency pool.
    public func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                self.stop()
                continuation.resume()
            }
        }
    }

    /// Switches the server's fault mode: normal, down, slow, 500, 503, 429, 400, 401, garbage.
    public func setMode(_ mode: String, delay: Double = 0) async throws {
        let body = Array(#"{"mode": "\#(mode)", "delay": \#(delay)}"#.utf8)
        let response = try await CurlTransport().send(HTTPRequest(method: "POST", url: url + "/__admin/mode",
                                                                  headers: [HTTPHeader("Content-Type", "application/json")], body: body))
        _ = try await response.collect()
        guard response.head.status == 200 else { throw StartError(description: "admin mode failed: \(response.head.status)") }
    }

    /// The real interpreter behind `python3`. Version-manager shims (pyenv) are shell scripts that
    /// do not pass SIGTERM on, so the server is started without them.
    static let python: String? = try? findPython()

    static func findPython() throws -> String {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import sys; print(sys.executable)"]
        let out = Pipe()
        probe.standardOutput = out
        probe.standardError = FileHandle.nullDevice
        try probe.run()
        let data = PipeReading.readToEnd(out.fileHandleForReading)
        probe.waitUntilExit()
        let path = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard probe.terminationStatus == 0, !path.isEmpty else { throw StartError(description: "python3 is not available") }
        return path
    }

    /// SIGTERM, then SIGKILL if the server has not exited within 3 s.
    public func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(3)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}
