// Finds the built `ofj` executable and runs it with pipes, for end-to-end tests.
import Foundation

public enum OfjBinary {
    /// The repository root, from this file's location (Sources/TestSupport/…).
    public static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// `.build/debug/ofj` (built by `swift build --build-tests`), or nil when missing.
    public static var path: String? {
        let candidates = [repositoryRoot + "/.build/debug/ofj", repositoryRoot + "/.build/x86_64-unknown-linux-gnu/debug/ofj"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs ofj on its own thread (never blocking the shared task pool) and waits for it.
    /// `umask` (octal, e.g. "000") runs it under that file-creation mask, through /bin/sh.
    public static func run(_ arguments: [String], input: String = "", environment: [String: String],
                           currentDirectory: String? = nil, umask: String? = nil) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Swift.Result<OfjBinary.Result, Error> {
                    try runBlocking(arguments, input: input, environment: environment, currentDirectory: currentDirectory, umask: umask)
                })
            }.start()
        }
    }

    /// Runs ofj with `arguments`, feeding `input` on stdin, in an environment limited to `environment`
    /// (and in `currentDirectory` when given, e.g. the home folder a person replays a file from).
    public static func runBlocking(_ arguments: [String], input: String = "", environment: [String: String],
                                   currentDirectory: String? = nil, umask: String? = nil) throws -> Result {
        guard let path else { throw CocoaError(.fileNoSuchFile) }
        let process = Process()
        if let umask {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "umask \(umask) && exec \"$0\" \"$@\"", path] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments
        }
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        var env = environment
        env["PATH"] = env["PATH"] ?? "/usr/bin:/bin"
        process.environment = env
        let inPipe = Pipe(), outPipe = Pipe(), errPipe = Pipe()
        process.standardInput = inPipe
        process.standardOutput = outPipe
        process.standardError = errPipe
        try process.run()
        inPipe.fileHandleForWriting.write(Data(input.utf8))
        try? inPipe.fileHandleForWriting.close()
        // Read stderr on another thread so that neither pipe can fill up and stall the child.
        nonisolated(unsafe) var err = Data()
        let errDone = DispatchSemaphore(value: 0)
        Thread {
            err = PipeReading.readToEnd(errPipe.fileHandleForReading)
            errDone.signal()
        }.start()
        let out = PipeReading.readToEnd(outPipe.fileHandleForReading)
        errDone.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }
}
