// End to end through the real CurlTransport and the loopback server: recorded bodies in small
// random chunks, HTTP errors, resets, stalls, non-SSE bodies, and key hygiene.
import Foundation
import Testing
import Agent
import HTTP
import Providers
import TestSupport

@Suite(.timeLimit(.minutes(1)))
struct CurlEndToEndTests {
    let transport = CurlTransport()
    let request = ChatRequest(system: "s", messages: [.user("Add and multiply the number 2 and 3")], tools: [])

    func gemini(_ server: LoopbackHTTPServer, idle: Double = 8) -> GeminiModel {
        GeminiModel(config: AdapterConfig(provider: "gemini", baseURL: server.url("/v1beta"), apiKey: testKey, model: "gemini-3-pro-preview",
                                          timeouts: HTTPTimeouts(connect: 5, firstByte: 5, idle: idle), keyVariable: "GEMINI_API_KEY"),
                    transport: transport)
    }

    func chat(_ server: LoopbackHTTPServer, idle: Double = 8) -> ChatCompletionsModel {
        ChatCompletionsModel(config: AdapterConfig(provider: "openrouter", baseURL: server.url("/api/v1"), apiKey: testKey, model: "m",
                                                   timeouts: HTTPTimeouts(connect: 5, firstByte: 5, idle: idle), keyVariable: "OPENROUTER_API_KEY"),
                             transport: transport)
    }

    @Test func recordedGeminiStreamInSmallRandomChunks() async throws {
        let cassette = try ProviderFixtures.cassette("gemini/fantasy__gemini-3-pro-preview__multi_tool_streaming.cassette.json")
        let server = try LoopbackHTTPServer()
        server.enqueue(.eventStream(cassette[0].responseBody, seed: 5, maxChunk: 23))
        let turn = await runTurn(gemini(server), request)
        #expect(turn.error == nil)
        #expect(turn.toolCalls.map(\.id) == ["8hd01vsf", "k0srpqrc"])
        #expect(turn.finish == .toolCalls)
        let received = try #require(server.requests.first)
        #expect(received.path == "/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse")
        #expect(received.header("x-goog-api-key") == testKey)
        #expect(!received.path.contains(testKey))
        #expect(try json(received.body)["contents"]?[0]?["role"] == "user")
    }

    @Test func recordedOpenRouterStreamWithComments() async throws {
        let cassette = try ProviderFixtures.cassette("openai-chat/fantasy__openrouter-kimi__multi_tool_streaming.cassette.json")
        let server = try LoopbackHTTPServer()
        server.enqueue(.eventStream(cassette[0].responseBody, seed: 11, maxChunk: 7))
        let turn = await runTurn(chat(server), request)
        #expect(turn.error == nil)
        #expect(turn.toolCalls.map(\.id) == ["functions.add:0", "functions.multiply:1"])
        #expect(server.requests.first?.header("authorization") == "Bearer \(testKey)")
    }

    @Test func rateLimitedWithRetryAfter() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.rateLimited(retryAfter: "3"))
        let turn = await runTurn(chat(server), request)
        #expect(turn.error?.kind == .rateLimited(retryAfter: 3))
    }

    @Test func serverErrorBeforeOutputIsRetryable() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.json(#"{"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}}"#, status: 500))
        let turn = await runTurn(gemini(server), request)
        #expect(turn.error?.kind == .retryable)
        #expect(turn.error?.message.contains("Internal error encountered.") == true)
    }

    @Test func connectionResetMidStreamIsUnknownOutcome() async throws {
        let cassette = try ProviderFixtures.cassette("gemini/fantasy__gemini-3-pro-preview__multi_tool_streaming.cassette.json")
        let body = cassette[1].responseBody
        let firstEvent = try #require(body.range(of: "\r\n\r\n"))
        let cut = body[..<firstEvent.upperBound].utf8.count + 10
        let server = try LoopbackHTTPServer()
        server.enqueue(.init(status: 200, headers: [("Content-Type", "text/event-stream")], body: Array(body.utf8), framing: .chunked,
                             chunking: .random(seed: 3, maxChunk: 40), ending: .reset(afterBodyBytes: cut, hard: true)))
        let turn = await runTurn(gemini(server), request)
        #expect(turn.text == "The sum of 2 and 3 is 5, and their product is 6")
        #expect(turn.error?.kind == .unknownOutcome)
    }

    @Test func stallBeforeOutputTripsTheIdleTimeout() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.init(status: 200, headers: [("Content-Type", "text/event-stream")], body: Array(": ping\n\n".utf8), framing: .chunked,
                             ending: .stall(afterBodyBytes: 8)))
        let start = ContinuousClock.now
        let turn = await runTurn(chat(server, idle: 0.4), request)
        #expect(turn.error?.kind == .timeout)
        // Generous bound: the machine may be loaded; a hang would hit the suite time limit instead.
        #expect(ContinuousClock.now - start < .seconds(30))
    }

    @Test func stallAfterOutputIsUnknownOutcome() async throws {
        let body = "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n"
        let server = try LoopbackHTTPServer()
        server.enqueue(.init(status: 200, headers: [("Content-Type", "text/event-stream")], body: Array(body.utf8), framing: .chunked,
                             ending: .stall(afterBodyBytes: body.utf8.count)))
        let turn = await runTurn(chat(server, idle: 0.4), request)
        #expect(turn.text == "Hel")
        #expect(turn.error?.kind == .unknownOutcome)
    }

    @Test func bodyThatIsNotSSE() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.text("<html><body>It works!</body></html>\n", contentType: "text/html"))
        let turn = await runTurn(chat(server), request)
        #expect(turn.error?.kind == .fatal)
        #expect(turn.error?.message.contains("base URL") == true)
    }

    @Test func keyNeverInErrorText() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.json("{\"error\":{\"message\":\"Incorrect API key provided: \(testKey)\",\"code\":\"invalid_api_key\"}}", status: 401))
        server.enqueue(.json("{\"error\":{\"message\":\"bad \(testKey)\"}}", status: 400))
        server.enqueue(.text("oops \(testKey)", status: 502))
        for _ in 0..<3 {
            let turn = await runTurn(chat(server), request)
            let error = try #require(turn.error)
            #expect(!error.message.contains(testKey))
            #expect(!error.message.contains("SECRETKEY"))
        }
        #expect(server.requests.count == 3)
    }

    @Test func unreachableServerIsRetryable() async throws {
        let refusing = try RefusingLoopbackPort()
        let base = refusing.url("/v1")
        let model = ChatCompletionsModel(config: AdapterConfig(provider: "ollama", baseURL: base, apiKey: nil, model: "m",
                                                               timeouts: HTTPTimeouts(connect: 2, firstByte: 2, idle: 2)), transport: transport)
        let turn = await runTurn(model, request)
        #expect(turn.error?.kind == .retryable || turn.error?.kind == .timeout)
        withExtendedLifetime(refusing) {}
    }
}
