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
    }
}
