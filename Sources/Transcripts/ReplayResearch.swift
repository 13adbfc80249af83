// Web research in a replay (`@config research=on`): web_search answered from the transcript's
// `@seed web` responses by a transport that opens no socket, so a transcript never reaches the
// internet; read_conversation_source, source-naming write cards, /sources, the links under an
// answer and /usage's search lines as `ofj` wires them.
import Base
import Foundation
import Agent
import HTTP
import Journal
import Synchronization

/// What `ofj` builds for a replayed process with research on.
public struct ReplayResearch: Sendable {
    public var tools: ToolRegistry
    public var sourcesReport: @Sendable (_ threadID: String) throws -> String
    public var sourceLinks: @Sendable (_ threadID: String, _ runID: String) throws -> String?
    public var searchUsage: @Sendable (_ threadID: String, _ now: Double, _ secondsFromGMT: Int) throws -> [String]
    public init(tools: ToolRegistry, sourcesReport: @escaping @Sendable (String) throws -> String,
                sourceLinks: @escaping @Sendable (String, String) throws -> String?,
                searchUsage: @escaping @Sendable (String, Double, Int) throws -> [String]) {
        self.tools = tools; self.sourcesReport = sourcesReport; self.sourceLinks = sourceLinks; self.searchUsage = searchUsage
    }
}

/// Answers a Tavily search request (`POST …/search` with `{"query": …}`) with the `@seed web`
/// response whose `"query"` is the same, or with no results; refuses every other request. No
/// socket is ever opened.
public final class SeededSearchTransport: HTTPTransport {
    let responses: [String: String]
    let count = Atomic<Int>(0)
    /// How many searches it answered.
    public var answered: Int { count.load(ordering: .relaxed) }

    /// `seeds`: Tavily response bodies, each with the query it answers in `"query"`.
    public init(seeds: [String]) throws {
        var responses: [String: String] = [:]
        for seed in seeds {
            guard let value = try? JSONValue.parse(seed), let query = value["query"]?.stringValue else {
                throw Replayer.SetupError(description: "@seed web takes a Tavily search response with the query it answers in \"query\"")
            }
            responses[query] = value.serialized
        }
        self.responses = responses
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        guard request.method == "POST", request.url.hasSuffix("/search"),
              let query = (try? JSONValue.parse(bytes: request.body))?["query"]?.stringValue else {
            throw HTTPError.connectFailed(NoNetworkTransport.detail)
        }
        count.add(1, ordering: .relaxed)
        let body = responses[query] ?? JSONValue.object(["query": .string(query), "results": .array([])]).serialized
        let bytes = Array(body.utf8)
        return HTTPStreamingResponse(head: HTTPResponseHead(status: 200, headers: [HTTPHeader("Content-Type", "application/json")]),
                                     body: AsyncThrowingStream { $0.yield(bytes); $0.finish() })
    }
}

/// Forwards to a recorder set after the tools are built (the recorder needs their names).
final class ReplayDiagnosticsRelay: DiagnosticsRecorder {
    private let target = Mutex<(any DiagnosticsRecorder)?>(nil)
    func connect(_ recorder: any DiagnosticsRecorder) { target.withLock { $0 = recorder } }
    func record(_ event: AgentDiagnostic) { target.withLock { $0 }?.record(event) }
}
