import Foundation
import Synchronization
import Testing
import TestSupport
import SQLiteKit

/// Issue 25 §4: a streamed answer arriving at full speed must not keep `ofj ask` alive after
/// SIGTERM. The real binary, a loopback server writing a 48 MB stream as fast as it is read.
@Suite(.serialized) struct StreamStopTests {
    let home = TempDirectory(prefix: "ofj-stream-stop")

    /// A Chat Completions stream of `deltas` deltas of 64 bytes, then the end marker.
    static func fastStream(deltas: Int) -> [UInt8] {
        let text = String(repeating: "oatmeal with milk and honey is a fine breakfast for a cold day. ", count: 1).prefix(64)
        let event = "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\(text)\"}}]}\n\n"
        var body = Array("data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n".utf8)
        let one = Array(event.utf8)
        body.reserveCapacity(one.count * deltas + 200)
        for _ in 0..<deltas { body += one }
        body += Array("data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n".utf8)
        return body
    }

    /// Collects a pipe's bytes on a thread of its own.
    final class Collector: Sendable {
        private let data = Mutex(Data())
        private let done = DispatchSemaphore(value: 0)
        init(_ handle: FileHandle) {
            Thread { [self] in
                while let chunk = PipeReading.readSome(handle) {
                    data.withLock { $0.append(chunk) }
                }
                done.signal()
            }.start()
        }
        var count: Int { data.withLock { $0.count } }
        var text: String { data.withLock { String(decoding: $0, as: UTF8.self) } }
        func wait() { done.wait() }
    }

    @Test func sigtermDuringAFullSpeedStreamExits143WithinASecond() async throws {
        let server = try LoopbackHTTPServer()
        let body = Self.fastStream(deltas: 1_500_000) // ~240 MB of events, ~96 MB of text: still flowing when the signal goes, even on an idle machine
        server.enqueue(.init(status: 200, headers: [("Content-Type", "text/event-stream")], body: body, framing: .contentLength))
        let binary = try #require(OfjBinary.path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["ask", "tell me everything"]
        process.environment = ["OFJ_HOME": home.file("data"), "XDG_STATE_HOME": home.file("state"), "XDG_CONFIG_HOME": home.file("config"),
                               "HOME": home.path, "PATH": "/usr/bin:/bin", "OFJ_PROVIDER": "openai", "OFJ_MODEL": "test-model",
                               "OPENAI_BASE_URL": server.url("/v1"), "OPENAI_API_KEY": "sk-test-NOT-A-REAL-KEY",
                               // The 4 MB answer cap would end a fast run before the signal: this is about SIGTERM.
                               "OFJ_MAX_ANSWER_MB": "1024"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        let exitedAt = Mutex<ContinuousClock.Instant?>(nil)
        process.terminationHandler = { _ in
            exitedAt.withLock { $0 = ContinuousClock.now }
            exited.signal()
        }
        try process.run()
        let stdout = Collector(out.fileHandleForReading)
        let stderr = Collector(err.fileHandleForReading)

        // Wait (up to 60 s on a busy machine) until the answer is flowing: 256 KB shown, and
        // still growing.
        let start = ContinuousClock.now
        while stdout.count < 256 * 1024 && process.isRunning && ContinuousClock.now - start < .seconds(60) {
            try await Task.sleep(for: .milliseconds(5))
        }
        // Still growing (within 5 s: a loaded machine can stall a reader for a moment).
        let before = stdout.count
        let growing = ContinuousClock.now
        while stdout.count == before && process.isRunning && ContinuousClock.now - growing < .seconds(5) {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(stdout.count > before, "the stream was not flowing when the signal went")
        try #require(process.isRunning, "ofj ended before the signal: \(stderr.text)")

        let signalled = ContinuousClock.now
        kill(process.processIdentifier, SIGTERM)
        let inTime = exited.wait(timeout: .now() + 5) == .success
        if !inTime { kill(process.processIdentifier, SIGKILL); exited.wait() }
        let took = try #require(exitedAt.withLock { $0 }) - signalled
        stdout.wait()
        stderr.wait()
        // The 0.9 s backstop makes this under a second on an idle machine (BENCHMARKS.md: 0.25 s by
        // hand); here it only has to be the backstop or the clean path, not the end of a 48 MB
        // stream or a deadline, whatever else the machine is doing (no timed assertions).
        #expect(took < .seconds(3), "exit took \(took) after SIGTERM")
        #expect(process.terminationReason == .exit && process.terminationStatus == 143, "status \(process.terminationStatus), \(stderr.text)")
        let db = try Database(path: home.file("data/ofj.sqlite"))
        let phases = try db.rows("SELECT phase FROM agent_runs").compactMap { $0[0].string }
        if stderr.text.contains("Interrupted; what arrived is saved") {
            // The clean path ran: the run was suspended and the person told so.
            #expect(phases == ["suspended"])
        } else {
            // A machine too busy for the clean path within 0.9 s: the backstop exited. The run is
            // left active (the next start suspends it, as after a crash), never completed or failed.
            #expect(phases.count == 1 && !["completed", "failed", "cancelled"].contains(phases[0]), "\(phases)")
        }
        let saved = try db.scalar("SELECT length(body) FROM agent_message_parts WHERE kind = 'text' AND message_id IN (SELECT id FROM agent_messages WHERE role = 'assistant')").int ?? 0
        #expect(saved > 0)
    }
}
