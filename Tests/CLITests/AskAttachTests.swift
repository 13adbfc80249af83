// `ofj ask --attach` end to end: the real binary sends the file's bytes to a loopback
// OpenAI-compatible server as an image part, and refuses a file the model cannot take.
import Foundation
import Testing
import TestSupport

@Suite(.serialized) struct AskAttachTests {
    let home = TempDirectory(prefix: "ofj-attach")

    static let answer = """
        data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"A label."},"finish_reason":"stop"}]}

        data: [DONE]


        """

    func environment(_ server: LoopbackHTTPServer, provider: String = "openai") -> [String: String] {
        ["OFJ_HOME": home.file("data"), "XDG_STATE_HOME": home.file("state"), "XDG_CONFIG_HOME": home.file("config"),
         "HOME": home.path, "LANG": "C.UTF-8", "OFJ_PROVIDER": provider, "OFJ_MODEL": "gpt-4.1",
         "OPENAI_BASE_URL": server.url("/v1"), "OPENAI_API_KEY": "sk-test-NOT-A-REAL-KEY-123456"]
    }

    @Test func theImageGoesInTheRequestAndIsStored() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.eventStream(Self.answer))
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array("a label photo".utf8) + [0xFF, 0xD9]
        let path = home.file("label.jpg")
        _ = FileManager.default.createFile(atPath: path, contents: Data(jpeg))
        let r = try await OfjBinary.run(["ask", "what is this?", "--attach", path], environment: environment(server))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("A label."))
        let sent = try #require(server.requests.first)
        let body = String(decoding: sent.body, as: UTF8.self)
        #expect(body.contains("\"url\":\"data:image/jpeg;base64,\(Data(jpeg).base64EncodedString())\""))
        #expect(body.contains("[attachment a1: JPEG image \\\"label.jpg\\\""))

        // The offline assistant cannot see it: refused before anything is sent, exit status 2.
        var env = environment(server)
        env["OFJ_PROVIDER"] = "offline"
        let refused = try await OfjBinary.run(["ask", "what is this?", "--attach", path], environment: env)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("offline assistant cannot see images"))
        #expect(!refused.stderr.contains("label.jpg"))
        #expect(server.requests.count == 1)

        // Two PDFs: refused with what to do in `ofj ask` (not the REPL's /detach), by position.
        let pdf = home.file("menu.pdf")
        _ = FileManager.default.createFile(atPath: pdf, contents: Data("%PDF-1.4\n%%EOF\n".utf8))
        let two = try await OfjBinary.run(["ask", "x", "--attach", pdf, "--attach", pdf], environment: environment(server))
        #expect(two.status == 2)
        #expect(two.stderr == "ofj: --attach #2: A message carries at most 1 PDF; ask about the others in another ofj ask.\n", "\(two.stderr)")
        #expect(server.requests.count == 1)
    }

    /// A recorded session carries the files it attached (`@seed attachment`), so it replays
    /// offline with the same bytes: from `ofj ask --attach` and from the REPL's `/attach`.
    @Test func aRecordingCarriesItsFilesAndReplays() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.eventStream(Self.answer))
        server.enqueue(.eventStream(Self.answer))
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array("recorded label".utf8) + [0xFF, 0xD9]
        let path = home.file("my label.jpg")
        _ = FileManager.default.createFile(atPath: path, contents: Data(jpeg))
        let base64 = Data(jpeg).base64EncodedString()

        let askFile = home.file("ask.ofjt")
        let ask = try await OfjBinary.run(["ask", "what is this?", "--attach", path, "--record", askFile], environment: environment(server))
        #expect(ask.status == 0, "\(ask.stderr)")
        #expect(ask.stderr.contains("the files you attach"))
        let askText = try String(contentsOfFile: askFile, encoding: .utf8)
        #expect(askText.contains("@seed attachment \(path)\n  \(base64)\n"), "\(askText)")
        #expect(askText.contains("> /attach \"\(path)\"\n"))
        // Settled by a replay at the end of recording: the replay attached the seeded bytes.
        #expect(askText.contains("| 📎 my label.jpg — JPEG image"), "\(askText)")
        let askReplay = try await OfjBinary.run(["replay", askFile], environment: ["HOME": home.path])
        #expect(askReplay.status == 0, "\(askReplay.stdout)")

        let replFile = home.file("repl.ofjt")
        let repl = try await OfjBinary.run(["--record", replFile], input: "/attach \"\(path)\"\nwhat is this?\n", environment: environment(server))
        #expect(repl.status == 0, "\(repl.stderr)")
        let replText = try String(contentsOfFile: replFile, encoding: .utf8)
        #expect(replText.contains("@seed attachment \(path)\n  \(base64)\n"), "\(replText)")
        #expect(replText.contains("| 📎 my label.jpg — JPEG image"), "\(replText)")
        let replReplay = try await OfjBinary.run(["replay", replFile], environment: ["HOME": home.path])
        #expect(replReplay.status == 0, "\(replReplay.stdout)")
        #expect(server.requests.count == 2) // replays send nothing
    }
}
