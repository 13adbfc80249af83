// Issue 33 §6 through the binary: the standing notes reach every request, in the part after the
// stable prefix (the system prompt stays the same bytes), before the time note, which goes last.
import Foundation
import Testing
import TestSupport

@Suite(.serialized) struct StandingNotesRequestTests {
    let home = TempDirectory(prefix: "ofj-notes")

    func environment(_ server: LoopbackHTTPServer) throws -> [String: String] {
        let config = home.file("config/ofj")
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try #"{"providers":{"llamacpp":{"base_url":"\#(server.url("/v1"))","context_window":16384}}}"#
            .write(toFile: config + "/config.json", atomically: true, encoding: .utf8)
        return ["OFJ_HOME": home.file("data"), "XDG_STATE_HOME": home.file("state"), "XDG_CONFIG_HOME": home.file("config"),
                "HOME": home.path, "LANG": "C.UTF-8", "OFJ_PROVIDER": "llamacpp", "TZ": "UTC"]
    }

    func ask(_ server: LoopbackHTTPServer) async throws -> [String] {
        server.enqueue(.eventStream(LocalServerBodies.chunk("Noted.") + LocalServerBodies.finish("stop", promptTokens: 900)))
        let r = try await OfjBinary.run(["ask", "what should I eat?"], environment: try environment(server))
        #expect(r.status == 0, "\(r.stderr)")
        let body = try #require(server.requests.last?.bodyText)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        let messages = try #require(object["messages"] as? [[String: Any]])
        return messages.map { m in
            if let s = m["content"] as? String { return s }
            return ((m["content"] as? [[String: Any]]) ?? []).compactMap { $0["text"] as? String }.joined(separator: "\n")
        }
    }

    @Test func theNotesGoAfterTheStablePrefixAndBeforeTheTimeNote() async throws {
        let server = try LoopbackHTTPServer()
        let before = try await ask(server)
        let notes = "Allergic to peanuts. My usual coffee is a 250 ml flat white."
        let set = try await OfjBinary.run(["profile", "notes", notes], environment: try environment(server))
        #expect(set.status == 0, "\(set.stderr)")
        let after = try await ask(server)
        // The system prompt (the start of the stable prefix) is the same bytes with or without notes.
        #expect(before.first == after.first)
        #expect(!(after.first ?? "").contains("peanuts"))
        // The notes ride in the last message, after the person's words, and the time note ends it.
        let last = try #require(after.last)
        let notesAt = try #require(last.range(of: notes)), timeAt = try #require(last.range(of: "[ofj] Now: "))
        let wordsAt = try #require(last.range(of: "what should I eat?"))
        #expect(wordsAt.upperBound <= notesAt.lowerBound && notesAt.upperBound <= timeAt.lowerBound)
        #expect(last.contains("[ofj] Notes: "))
        #expect(!(before.last ?? "").contains("[ofj] Notes"))
    }
}
