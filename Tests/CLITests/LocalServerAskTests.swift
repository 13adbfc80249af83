import Foundation
import Testing
import TestSupport

/// `ofj ask` against a loopback llama.cpp-like server: an empty answer is not a success.
@Suite(.serialized) struct LocalServerAskTests {
    let home = TempDirectory(prefix: "ofj-local")

    func environment(_ server: LoopbackHTTPServer) throws -> [String: String] {
        let config = home.file("config/ofj")
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try #"{"providers":{"llamacpp":{"base_url":"\#(server.url("/v1"))","context_window":16384}}}"#
            .write(toFile: config + "/config.json", atomically: true, encoding: .utf8)
        return ["OFJ_HOME": home.file("data"), "XDG_STATE_HOME": home.file("state"), "XDG_CONFIG_HOME": home.file("config"),
                "HOME": home.path, "LANG": "C.UTF-8", "OFJ_PROVIDER": "llamacpp"]
    }

    @Test func anEmptyAnswerExitsNonZeroWithOneLine() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.eventStream(LocalServerBodies.chunk("") + LocalServerBodies.finish("stop", promptTokens: 9_000, completionTokens: 0)))
        let r = try await OfjBinary.run(["ask", "what did I eat today?"], environment: try environment(server))
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
        #expect(r.stderr.contains("ofj: The model sent an empty answer; ask again, or try another model"), "\(r.stderr)")
        // config.json's context_window is used, so the server was not asked for its window.
        #expect(!server.infoRequests.contains { $0.path == "/props" })
        #expect(server.requests.count == 1)
    }

    @Test func anAnswerExitsZero() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.eventStream(LocalServerBodies.chunk("You had oats.") + LocalServerBodies.finish("stop", promptTokens: 9_000)))
        let r = try await OfjBinary.run(["ask", "what did I eat today?"], environment: try environment(server))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("You had oats."))
    }
}
