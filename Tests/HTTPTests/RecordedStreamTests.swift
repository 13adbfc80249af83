// Every recorded provider stream, served by the loopback server in small random chunks through
// the real CurlTransport and parsed incrementally, must give exactly what the recording holds.
import Foundation
import HTTP
import Testing
import TestSupport

@Suite("Recorded streams end to end", .timeLimit(.minutes(1)))
struct RecordedStreamTests {
    /// (name, response body) for every recorded stream: cassette responses, .sse files and
    /// .chunks.txt files re-framed as SSE.
    static func recordings() throws -> [(String, [UInt8])] {
        let dir = try #require(ProviderFixtures.directory())
        var out: [(String, [UInt8])] = []
        let files = try #require(FileManager.default.enumerator(atPath: dir.path)).compactMap { $0 as? String }.sorted()
        for file in files {
            if file.hasSuffix(".cassette.json") {
                for (i, interaction) in try ProviderFixtures.cassette(file).enumerated() {
                    out.append(("\(file)#\(i)", Array(interaction.responseBody.utf8)))
                }
            } else if file.hasSuffix(".sse") {
                out.append((file, try ProviderFixtures.bytes(file)))
            } else if file.hasSuffix(".chunks.txt") {
                out.append((file, Array(try ProviderFixtures.chunksAsSSE(file, named: true).utf8)))
            }
        }
        return out
    }

    @Test func everyRecordingArrivesIntactAndParsesTheSameAsAWhole() async throws {
        let recordings = try Self.recordings()
        #expect(recordings.count >= 15)
        let server = try LoopbackHTTPServer()
        let transport = CurlTransport()
        for (index, (name, body)) in recordings.enumerated() {
            server.enqueue(.init(status: 200, headers: [("Content-Type", "text/event-stream")], body: body,
                                 framing: .chunked, chunking: .random(seed: UInt64(index + 1), maxChunk: 7)))
            let response = try await transport.send(request(server, "/stream/\(index)"))
            var parser = SSEParser()
            var streamed: [SSEEvent] = []
            var received: [UInt8] = []
            for try await chunk in response.body {
                received += chunk
                streamed += parser.feed(chunk)
            }
            streamed += parser.finish()

            var whole = SSEParser()
            let expected = whole.feed(body) + whole.finish()
            #expect(received == body, "\(name)")
            #expect(streamed == expected, "\(name)")
            #expect(!expected.isEmpty, "\(name)")
        }
        #expect(server.requests.count == recordings.count)
    }
}
