// Error classification for every adapter: HTTP statuses, provider bodies, transport failures, and key hygiene.
import Foundation
import Testing
import Agent
import HTTP
import Providers
import TestSupport

/// Builds each adapter over a transport, with the key variable the person would need to check.
enum AdapterKind: String, CaseIterable, Sendable {
    case gemini, chat, responses, azure, anthropic

    var keyVariable: String {
        switch self {
        case .gemini: return "GEMINI_API_KEY"
        case .chat: return "OPENROUTER_API_KEY"
        case .responses: return "OPENAI_API_KEY"
        case .azure: return "AZURE_OPENAI_API_KEY"
        case .anthropic: return "ANTHROPIC_API_KEY"
        }
    }

    func make(_ t: FakeHTTPTransport) -> any ChatModel {
        let cfg = AdapterConfig(provider: rawValue, baseURL: "https://example.test/v1", apiKey: testKey, model: "some-model",
                                keyVariable: keyVariable)
        switch self {
        case .gemini: return GeminiModel(config: cfg, transport: t)
        case .chat: return ChatCompletionsModel(config: cfg, transport: t)
        case .responses: return ResponsesModel(config: cfg, transport: t)
        case .azure: return ResponsesModel(config: cfg, flavor: .azure, transport: t)
        case .anthropic: return AnthropicModel(config: cfg, transport: t)
        }
    }

    /// A short successful stream in this adapter's format, for mid-stream failure tests.
    var textStream: String {
        switch self {
        case .gemini:
            return "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hello there\"}],\"role\": \"model\"},\"index\": 0}]}\r\n\r\n"
                + "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"!\"}],\"role\": \"model\"},\"finishReason\": \"STOP\",\"index\": 0}]}\r\n\r\n"
        case .chat:
            return "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello there\"}}]}\n\n"
                + "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
        case .responses, .azure:
            return "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"m\",\"delta\":\"Hello there\"}\n\n"
                + "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\"}}\n\n"
        case .anthropic:
            return "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
                + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello there\"}}\n\n"
                + "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
        }
    }
}

@Suite struct ErrorMappingTests {
    let request = ChatRequest(system: "", messages: [.user("hi")], tools: [])

    func fail(_ kind: AdapterKind, status: Int, body: String, headers: [HTTPHeader] = []) async -> ChatError? {
        let t = FakeHTTPTransport(FakeHTTPTransport.Reply(status: status, headers: headers, body: Array(body.utf8)))
        return await runTurn(kind.make(t), request).error
    }

    @Test(arguments: AdapterKind.allCases)
    func successStreamsDecode(kind: AdapterKind) async {
        let turn = await runTurn(kind.make(transport(kind.textStream, maxChunk: 5)), request)
        #expect(turn.error == nil)
        #expect(turn.text.hasPrefix("Hello there"))
        #expect(turn.finish == .stop)
    }

    @Test(arguments: AdapterKind.allCases)
    func badRequestIsFatalWithTheProvidersShortMessage(kind: AdapterKind) async {
        let error = await fail(kind, status: 400, body: #"{"error":{"code":400,"message":"Invalid value at 'tools[0]': unknown type","status":"INVALID_ARGUMENT"}}"#)
        #expect(error?.kind == .fatal)
        #expect(error?.httpStatus == 400)
        #expect(error?.message.contains("Invalid value at 'tools[0]'") == true)
    }

    @Test(arguments: AdapterKind.allCases)
    func unauthorizedNamesTheVariableAndNeverTheKey(kind: AdapterKind) async {
        for status in [401, 403] {
            // OpenAI echoes part of a wrong key; Gemini says "API key not valid".
            let body = #"{"error":{"message":"Incorrect API key provided: sk-test-S*****************XYZ. You can find your API key at https://platform.openai.com/account/api-keys. Provided: \#(testKey)","type":"invalid_request_error","code":"invalid_api_key"}}"#
            let error = await fail(kind, status: status, body: body)
            #expect(error?.kind == .configuration)
            #expect(error?.message.contains("check \(kind.keyVariable)") == true)
            #expect(error?.message.contains(testKey) == false)
            #expect(error?.message.contains("sk-test-S") == false)
            #expect(error?.message.contains("XYZ") == false)
        }
    }

    @Test(arguments: AdapterKind.allCases)
    func notFoundSaysWhichModel(kind: AdapterKind) async {
        let error = await fail(kind, status: 404, body: #"{"error":{"code":404,"message":"models/some-model is not found for API version v1beta","status":"NOT_FOUND"}}"#)
        #expect(error?.kind == .fatal)
        #expect(error?.message.contains("\"some-model\"") == true)
    }

    @Test(arguments: AdapterKind.allCases)
    func rateLimitCarriesTheProvidersDelay(kind: AdapterKind) async {
        let body = #"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#
        let seconds = await fail(kind, status: 429, body: body, headers: [HTTPHeader("Retry-After", "7")])
        #expect(seconds?.kind == .rateLimited(retryAfter: 7))
        let ms = await fail(kind, status: 429, body: body, headers: [HTTPHeader("retry-after-ms", "1500"), HTTPHeader("Retry-After", "7")])
        #expect(ms?.kind == .rateLimited(retryAfter: 1.5))
        let none = await fail(kind, status: 429, body: body)
        #expect(none?.kind == .rateLimited(retryAfter: nil))
        let future = Date().timeIntervalSince1970 + 120
        let date = await fail(kind, status: 429, body: body, headers: [HTTPHeader("Retry-After", Self.httpDate(future))])
        if case .rateLimited(let d?)? = date?.kind {
            #expect(d > 100 && d <= 121)
        } else {
            Issue.record("HTTP-date Retry-After not used: \(String(describing: date))")
        }
    }

    @Test func geminiRetryInfoInTheBody() async {
        let body = #"{"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"34.4s"}]}}"#
        let error = await fail(.gemini, status: 429, body: body)
        #expect(error?.kind == .rateLimited(retryAfter: 34.4))
        #expect(error?.code == "RESOURCE_EXHAUSTED")
    }

    @Test func quotaExhaustedIsConfiguration() async {
        let body = #"{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}"#
        let error = await fail(.responses, status: 429, body: body)
        #expect(error?.kind == .configuration)
    }

    @Test(arguments: AdapterKind.allCases)
    func serverErrorsAreRetryable(kind: AdapterKind) async {
        for status in [500, 502, 503, 529] {
            let error = await fail(kind, status: status, body: #"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#)
            #expect(error?.kind == .retryable, "status \(status)")
            #expect(error?.message.contains("Overloaded") == true)
        }
        let html = await fail(kind, status: 502, body: "<html><body>Bad gateway \(testKey)</body></html>")
        #expect(html?.kind == .retryable)
        #expect(html?.message.contains("<html>") == false)
        #expect(html?.message.contains(testKey) == false)
    }

    @Test func contextLengthErrorsAreContextOverflow() async {
        let cases: [(AdapterKind, String)] = [
            (.chat, #"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#),
            (.responses, #"{"error":{"message":"Your input exceeds the context window of this model.","type":"invalid_request_error","code":"context_length_exceeded"}}"#),
            (.anthropic, #"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#),
            (.gemini, #"{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}"#),
        ]
        for (kind, body) in cases {
            let error = await fail(kind, status: 400, body: body)
            #expect(error?.kind == .contextOverflow, "\(kind)")
        }
    }

    @Test(arguments: AdapterKind.allCases)
    func resetBeforeOutputIsRetryableAndAfterIsUnknownOutcome(kind: AdapterKind) async {
        let body = Array(kind.textStream.utf8)
        let early = FakeHTTPTransport(FakeHTTPTransport.Reply(body: body, maxChunk: 4, failure: .connectionReset("reset by peer"), failAfterBytes: 3))
        let e1 = await runTurn(kind.make(early), request)
        #expect(e1.error?.kind == .retryable)
        // Cut just after the event that carries "Hello there" is complete.
        let text = kind.textStream
        let separator = kind == .gemini ? "\r\n\r\n" : "\n\n"
        guard let hello = text.range(of: "Hello there"),
              let end = text.range(of: separator, range: hello.upperBound..<text.endIndex) else {
            Issue.record("test stream has no complete first event")
            return
        }
        let cut = text[..<end.upperBound].utf8.count
        let late = FakeHTTPTransport(FakeHTTPTransport.Reply(body: body, maxChunk: 4, failure: .connectionReset("reset by peer"), failAfterBytes: min(cut, body.count - 1)))
        let e2 = await runTurn(kind.make(late), request)
        #expect(e2.text == "Hello there")
        #expect(e2.error?.kind == .unknownOutcome)
    }

    // Provider chaos found these: libcurl's own words ("Recv failure: Connection reset by peer",
    // "Failed to connect … after 0 ms: Couldn't connect to server") reached the person's error
    // line, and a timeout read "openrouter the response stalled; … patient policy for slow
    // local servers" for a hosted provider.
    @Test(arguments: AdapterKind.allCases)
    func transportFailuresAreWordedWithoutLibcurlText(kind: AdapterKind) async throws {
        let body = Array(kind.textStream.utf8)
        let replies: [FakeHTTPTransport.Reply] = [
            FakeHTTPTransport.Reply(body: body, maxChunk: 4, failure: .connectionReset("Recv failure: Connection reset by peer"), failAfterBytes: 3),
            FakeHTTPTransport.Reply(body: body, maxChunk: 4, failure: .connectionReset("Recv failure: Connection reset by peer"), failAfterBytes: body.count - 2),
            .failing(.connectFailed("Failed to connect to 127.0.0.1 port 80 after 0 ms: Couldn't connect to server")),
            .failing(.other("HTTP transfer failed (Failure when receiving data from the peer)")),
            FakeHTTPTransport.Reply(body: [], failure: .idleTimeout),
            FakeHTTPTransport.Reply(body: body, maxChunk: 4, failure: .idleTimeout, failAfterBytes: body.count - 2),
            .failing(.firstByteTimeout),
        ]
        for reply in replies {
            let message = try #require(await runTurn(kind.make(FakeHTTPTransport(reply)), request).error?.message)
            for raw in ["Recv failure", "Connection reset by peer", "Couldn't", "after 0 ms", "Failure when receiving", "port 80", "patient policy"] {
                #expect(!message.contains(raw), "\(message)")
            }
            #expect(message.contains(kind.rawValue), "\(message)")
        }
    }

    // Provider chaos: a truncated JSON event before any output was reported as a refused request
    // ("check the model name and settings") and never retried; it is a damaged stream, retried once.
    @Test(arguments: AdapterKind.allCases)
    func damagedEventBeforeOutputIsRetryable(kind: AdapterKind) async {
        let damaged = "event: message_start\ndata: {\"type\":\"message_start\",\"mess\n\n"
        let error = await runTurn(kind.make(transport(damaged)), request).error
        #expect(error?.kind == .retryable)
        #expect(error?.message.contains("damaged stream") == true)
    }

    @Test(arguments: AdapterKind.allCases)
    func timeoutsAndConnectFailures(kind: AdapterKind) async {
        let idle = FakeHTTPTransport(FakeHTTPTransport.Reply(body: [], failure: .idleTimeout))
        #expect(await runTurn(kind.make(idle), request).error?.kind == .timeout)
        let firstByte = FakeHTTPTransport(.failing(.firstByteTimeout))
        #expect(await runTurn(kind.make(firstByte), request).error?.kind == .timeout)
        let refused = FakeHTTPTransport(.failing(.connectFailed("connection refused")))
        #expect(await runTurn(kind.make(refused), request).error?.kind == .retryable)
        let badURL = FakeHTTPTransport(.failing(.invalidURL))
        #expect(await runTurn(kind.make(badURL), request).error?.kind == .configuration)
    }

    @Test(arguments: AdapterKind.allCases)
    func bodyThatIsNotAnEventStream(kind: AdapterKind) async {
        let t = FakeHTTPTransport(FakeHTTPTransport.Reply(headers: [HTTPHeader("Content-Type", "text/html")],
                                                          body: Array("<html>\n<body>Welcome to nginx!</body>\n</html>\n".utf8)))
        let error = await runTurn(kind.make(t), request).error
        #expect(error?.kind == .fatal)
        #expect(error?.message.contains("base URL") == true)
    }

    @Test(arguments: AdapterKind.allCases)
    func emptyBodyIsRetryable(kind: AdapterKind) async {
        let error = await runTurn(kind.make(transport("")), request).error
        #expect(error?.kind == .retryable)
    }

    @Test func longProviderMessagesAreCutToOneLine() async {
        let long = String(repeating: "word ", count: 400)
        let error = await fail(.chat, status: 400, body: "{\"error\":{\"message\":\"line one\\nline two \(long)\"}}")
        #expect(error?.message.contains("\n") == false)
        #expect((error?.message.count ?? 0) < 500)
    }

    @Test func redactionScrubsKeyShapedTokens() {
        #expect(Redaction.scrub("bad key AIzaSyA1234567890abcdefghij here", key: nil) == "bad key [key] here")
        #expect(Redaction.scrub("got \(testKey).", key: testKey) == "got [key].")
        #expect(Redaction.scrub("sk-proj-abcdefgh", key: nil) == "[key]")
        #expect(Redaction.scrub("nothing secret", key: testKey) == "nothing secret")
    }

    @Test func cancellationStopsTheStream() async throws {
        // The consumer stops after the first event; the request task is cancelled, nothing hangs.
        let t = FakeHTTPTransport(FakeHTTPTransport.Reply(body: Array(AdapterKind.chat.textStream.utf8), maxChunk: 1))
        let model = AdapterKind.chat.make(t)
        let task = Task { () -> Int in
            var n = 0
            for try await _ in model.stream(request) { n += 1; break }
            return n
        }
        let n = try await task.value
        #expect(n == 1)
    }

    static func httpDate(_ seconds: Double) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return f.string(from: Date(timeIntervalSince1970: seconds))
    }

    @Test(arguments: AdapterKind.allCases)
    func keyNeverAppearsInAnyErrorText(kind: AdapterKind) async {
        let bodyWithKey = "{\"error\":{\"message\":\"bad request for key \(testKey)\",\"code\":\"x\"}}"
        var errors: [ChatError?] = []
        for status in [400, 401, 403, 404, 408, 413, 429, 500, 503] {
            errors.append(await fail(kind, status: status, body: bodyWithKey, headers: [HTTPHeader("Retry-After", testKey)]))
        }
        for failure: HTTPError in [.connectFailed("proxy said \(testKey)"), .tls("cert for \(testKey)"), .other("x-api-key: \(testKey)")] {
            errors.append(await runTurn(kind.make(FakeHTTPTransport(.failing(failure))), request).error)
            // Fails after the first text event, before the terminal marker.
            let late = FakeHTTPTransport(FakeHTTPTransport.Reply(body: Array(kind.textStream.utf8), maxChunk: 3, failure: failure,
                                                                 failAfterBytes: Self.firstEventEnd(kind)))
            errors.append(await runTurn(kind.make(late), request).error)
        }
        let text = kind.textStream
        let separator = kind == .gemini ? "\r\n\r\n" : "\n\n"
        if let hello = text.range(of: "Hello there"), let end = text.range(of: separator, range: hello.upperBound..<text.endIndex) {
            let midStream = String(text[..<end.upperBound]) + "data: {\"error\":{\"message\":\"leak \(testKey)\"}}" + separator
            errors.append(await runTurn(kind.make(transport(midStream)), request).error)
        }
        #expect(errors.allSatisfy { $0 != nil })
        for error in errors.compactMap({ $0 }) {
            #expect(!error.message.contains(testKey), "\(error.message)")
            #expect(!error.description.contains(testKey))
            #expect(!error.message.contains("SECRETKEY"))
        }
    }

    @Test(arguments: AdapterKind.allCases)
    func aServerThatHangsAfterTheTerminalMarkerDoesNotSpoilTheAnswer(kind: AdapterKind) async {
        // Every byte arrives, then the connection stalls until the idle timeout fires.
        let t = FakeHTTPTransport(FakeHTTPTransport.Reply(body: Array(kind.textStream.utf8), maxChunk: 9, failure: .idleTimeout))
        let turn = await runTurn(kind.make(t), request)
        #expect(turn.error == nil)
        #expect(turn.finish == .stop)
    }

    @Test func geminiBadKeyIsA400ThatMeansConfiguration() async {
        let body = #"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}"#
        let error = await fail(.gemini, status: 400, body: body)
        #expect(error?.kind == .configuration)
        #expect(error?.message.contains("check GEMINI_API_KEY") == true)
        #expect(error?.httpStatus == 400)
    }

    /// Byte offset just after the event carrying "Hello there" in the adapter's test stream.
    static func firstEventEnd(_ kind: AdapterKind) -> Int {
        let text = kind.textStream
        let separator = kind == .gemini ? "\r\n\r\n" : "\n\n"
        guard let hello = text.range(of: "Hello there"), let end = text.range(of: separator, range: hello.upperBound..<text.endIndex) else {
            return 0
        }
        return text[..<end.upperBound].utf8.count
    }

    @Test func localServerNotRunningSaysWhere() async {
        let cfg = AdapterConfig(provider: "ollama", baseURL: "http://127.0.0.1:11434/v1", apiKey: nil, model: "llama3.2")
        let model = ChatCompletionsModel(config: cfg, transport: FakeHTTPTransport(.failing(.connectFailed("connection refused"))))
        let error = await runTurn(model, request).error
        #expect(error?.kind == .retryable)
        // The transport's own words stay out (provider chaos); where and what to check stay in.
        #expect(error?.message == "could not connect to ollama at http://127.0.0.1:11434/v1; is the server running?")
    }
}
