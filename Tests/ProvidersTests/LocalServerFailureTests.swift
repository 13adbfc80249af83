// Honest failures from local servers, through the runner and a real adapter over loopback fakes
// that behave like llama-server, llama-cpp-python, vLLM and Ollama did with a small model: one
// clear line with a next step, never a silent success.
import Base
import Foundation
import Synchronization
import Testing
import Agent
import HTTP
import Providers
import SQLiteKit
import TestSupport

private struct BigLookup: Tool {
    var name: String
    var description = String(repeating: "Looks up foods, meals, goals and totals in the journal by name or date. ", count: 8)
    var parameters: JSONValue = ["type": "object", "properties": ["query": ["type": "string"]], "required": ["query"]]
    var effect: ToolEffect { .read }
    func activity(arguments: JSONValue) -> String { name }
    func execute(arguments: JSONValue, context: ToolContext) async throws -> ToolOutput { ToolOutput(content: "none", summary: "none") }
}

private final class EventLog: Sendable {
    let events = Mutex<[AgentEvent]>([])
}

/// A runner over a llama.cpp-like loopback server, with the app's context manager and advice.
private final class LocalRun: Sendable {
    let server: LoopbackHTTPServer
    let runner: AgentRunner
    let log = EventLog()
    let consumer: Task<Void, Never>

    init(policy: DeadlinePolicy = .patient, tools: Int = 4, systemPrompt: String = "You keep a food journal.") throws {
        server = try LoopbackHTTPServer()
        let queue = try DatabaseQueue(path: ":memory:")
        var migrator = Migrator()
        ConversationStore.registerMigrations(into: &migrator)
        try queue.migrate(migrator)
        let store = ConversationStore(queue: queue)
        let model = ChatCompletionsModel(config: AdapterConfig(provider: "llamacpp", baseURL: server.url("/v1"), apiKey: nil, model: "default",
                                                               timeouts: policy.httpTimeouts, keyVariable: ""),
                                         transport: CurlTransport())
        var settings = ContextSettings(limits: { _, _ in ModelLimits(contextWindow: 8_192, maxOutputTokens: 1_000, source: .assumed) })
        settings.raiseAdvice = { ContextWindows.advice(provider: $0, tokens: $1) }
        runner = AgentRunner(store: store, model: model, tools: ToolRegistry((0..<tools).map { BigLookup(name: "lookup_\($0)") }),
                             approvals: ScriptedApprovalGate(fallback: .deny), clock: SystemClock(), ids: CountingIDSource(prefix: "r-"),
                             diagnostics: NoDiagnostics(),
                             configuration: AgentConfiguration(systemPrompt: systemPrompt, policy: policy, maxOutputTokens: 1_000),
                             assembler: CompactingAssembler(store: store, settings: settings), faults: nil)
        let box = log
        let stream = runner.events
        consumer = Task { for await e in stream { box.events.withLock { $0.append(e) } } }
    }

    /// Asks once; returns the outcome and the run's one-line notices and errors.
    func ask(_ text: String = "What did I eat today?") async throws -> (RunOutcome, [String]) {
        let handle = try runner.submit(threadID: "t1", text: text)
        let outcome = try #require(await runner.outcome(of: handle.runID))
        // The events of the run arrive on their own task: wait for its `finished`.
        for _ in 0..<500 where !log.events.withLock({ $0.contains { if case .finished = $0.kind { return $0.runID == handle.runID } else { return false } } }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        let lines = log.events.withLock { $0 }.filter { $0.runID == handle.runID }.compactMap { e -> String? in
            if case .error(let x) = e.kind { return x.line } else { return nil }
        }
        return (outcome, lines)
    }

    static func stream(_ parts: String...) -> LoopbackHTTPServer.Response { .eventStream(parts.joined(), maxChunk: 64) }
}

@Suite(.timeLimit(.minutes(1)))
struct LocalServerFailureTests {
    @Test func anEmptyStreamRightAfterTheRequestSaysTheServerRefusedThePrompt() async throws {
        let run = try LocalRun()
        // llama-cpp-python over its context: 200 text/event-stream, and nothing.
        run.server.enqueue(LoopbackHTTPServer.Response(status: 200, headers: [("Content-Type", "text/event-stream")], body: [], framing: .chunked))
        let (outcome, _) = try await run.ask()
        #expect(outcome.phase == .failed)
        let line = try #require(outcome.error?.line)
        #expect(line.hasPrefix("The server refused the prompt; its log says why — often the context size: this request is ~"), "\(line)")
        #expect(line.contains("llama-server -c ") && line.contains("--n_ctx "))
        #expect(!line.contains("try again in a moment") && !line.contains("\n"))
        #expect(run.server.requests.count == 1) // retrying never helps
    }

    @Test func llamaServersContextSize400IsAContextOverflowWithTheFlag() async throws {
        let run = try LocalRun()
        run.server.enqueue(.json(LocalServerBodies.llamaContextExceeded, status: 400))
        let (outcome, _) = try await run.ask()
        #expect(outcome.phase == .failed)
        #expect(outcome.error?.kind == .contextOverflow)
        let line = try #require(outcome.error?.line)
        #expect(line.contains("request (10777 tokens) exceeds the available context size (4096 tokens)"), "\(line)")
        #expect(line.contains("cannot make it fit") && line.contains("llama-server -c "))
        #expect(!line.contains("check the model name"))
    }

    static let overflowBodies: [(Int, String)] = [
        (400, #"{"error":{"message":"This model's maximum context length is 4096 tokens. However, you requested 10777 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#),
        (400, #"{"object":"error","message":"This model's maximum context length is 4096 tokens. However, your request has 10777 input tokens.","type":"BadRequestError","code":400}"#),
        (500, #"{"error":"the input length exceeds the context length"}"#),
    ]

    @Test(arguments: LocalServerFailureTests.overflowBodies)
    func otherServersContextMessagesAreContextOverflows(status: Int, body: String) async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.json(body, status: status))
        let model = ChatCompletionsModel(config: AdapterConfig(provider: "vllm", baseURL: server.url("/v1"), apiKey: nil, model: "m", keyVariable: ""),
                                         transport: CurlTransport())
        let turn = await runTurn(model, ChatRequest(system: "s", messages: [.user("hi")], tools: []))
        #expect(turn.error?.kind == .contextOverflow, "\(String(describing: turn.error))")
    }

    @Test func pingCommentsAndPromptProgressAreLivenessFromLocalServersOnly() async throws {
        // What llama-cpp-python sends while it reads a long prompt (`: ping`), llama.cpp's
        // progress event, then the answer. (That liveness keeps the first-event deadline from
        // firing is checked on virtual time: DeadlineTests.)
        let body = LocalServerBodies.ping + LocalServerBodies.ping + LocalServerBodies.promptProgress(processed: 512, total: 1_024)
            + LocalServerBodies.chunk("You had oats.") + LocalServerBodies.finish("stop")
        func events(_ provider: String) async throws -> [ChatEvent] {
            let server = try LoopbackHTTPServer()
            server.enqueue(.eventStream(body, maxChunk: 16))
            let model = ChatCompletionsModel(config: AdapterConfig(provider: provider, baseURL: server.url("/v1"), apiKey: provider == "openrouter" ? testKey : nil,
                                                                   model: "m", keyVariable: ""), transport: CurlTransport())
            let turn = await runTurn(model, ChatRequest(system: "s", messages: [.user("hi")], tools: []))
            #expect(turn.error == nil)
            #expect(turn.text == "You had oats.")
            return turn.events
        }
        let local = try await events("llamacpp")
        let firstText = try #require(local.firstIndex { if case .textDelta = $0 { return true } else { return false } })
        #expect(local[..<firstText].filter { $0 == .alive }.count >= 3) // two pings and the progress event
        #expect(try await events("openrouter").allSatisfy { $0 != .alive }) // hosted: comments are not liveness
    }

    @Test func aSilentLocalServerTimesOutNamingThePromptSizeWithoutRetrying() async throws {
        let policy = DeadlinePolicy(name: "patient", localRead: 1, webSearch: 10, urlFetch: 15, firstEvent: 1, streamIdle: 5, modelTurn: 30, run: 60)
        let run = try LocalRun(policy: policy)
        run.server.enqueue(LoopbackHTTPServer.Response(status: 200, headers: [("Content-Type", "text/event-stream")], body: [], framing: .chunked,
                                                       ending: .stall(afterBodyBytes: 0)))
        let (outcome, _) = try await run.ask()
        #expect(outcome.phase == .failed)
        let line = try #require(outcome.error?.line)
        #expect(line.hasPrefix("The model did not start answering within 1 s for a prompt of ~"), "\(line)")
        #expect(line.contains(" tokens; a local server may need longer"))
        #expect(run.server.requests.count == 1)
    }

    @Test func chatTemplateMarkersInTheTextAreNamed() async throws {
        let run = try LocalRun()
        run.server.enqueue(LocalRun.stream(LocalServerBodies.chunk("<|im_start|>assistant\nYou had oats.<|im_end|>\n<|im_start|>user"),
                                           LocalServerBodies.finish("stop")))
        let (outcome, lines) = try await run.ask()
        #expect(outcome.phase == .completed)
        #expect(lines.count == 1)
        #expect(lines.first?.contains("the server's chat template does not match the model") == true, "\(lines)")
    }

    @Test func aLengthCutAnswerSaysItWasCutOff() async throws {
        let run = try LocalRun()
        run.server.enqueue(LocalRun.stream(LocalServerBodies.chunk(String(repeating: "oats and more oats, ", count: 20)),
                                           LocalServerBodies.finish("length", promptTokens: 2_000, completionTokens: 4_000)))
        let (outcome, lines) = try await run.ask()
        #expect(outcome.phase == .completed)
        #expect(lines == ["The answer was cut off at 4,000 tokens (the model's output limit); ask it to go on, or for something shorter."])
    }

    @Test func promptTokensFarBelowTheToolsSayTheToolsWereDropped() async throws {
        let run = try LocalRun(tools: 10)
        run.server.enqueue(LocalRun.stream(LocalServerBodies.chunk("You had oats."), LocalServerBodies.finish("stop", promptTokens: 533)))
        run.server.enqueue(LocalRun.stream(LocalServerBodies.chunk("Still oats."), LocalServerBodies.finish("stop", promptTokens: 533)))
        let (_, lines) = try await run.ask()
        #expect(lines.count == 1)
        #expect(lines.first.map { $0.contains("prompt tokens") && $0.contains("did not give the model the tools") && $0.contains("--jinja") } == true,
                "\(lines)")
        // Said once per model, not on every answer.
        let (_, again) = try await run.ask("And yesterday?")
        #expect(again.isEmpty)
        // A count that covers the tools says nothing.
        let fine = try LocalRun(tools: 10)
        fine.server.enqueue(LocalRun.stream(LocalServerBodies.chunk("You had oats."), LocalServerBodies.finish("stop", promptTokens: 2_400)))
        #expect(try await fine.ask().1.isEmpty)
    }

    /// ofj's own proportions (a ~530-token system prompt, ~2,000 tokens of everyday tool specs)
    /// with a long first message: the server that dropped the tools counted the system prompt and
    /// the message, more than half the specs (the old check, prompt_tokens under half the specs,
    /// missed it), yet far less than it would have with them.
    @Test func droppedToolsAreToldApartWithAnEverydaySizedToolSetAndALongMessage() async throws {
        let system = String(repeating: "Use the tools for every number; never guess. ", count: 46)
        let run = try LocalRun(tools: 12, systemPrompt: system)
        let long = String(repeating: "I had oats with milk and a banana, ", count: 57)
        run.server.enqueue(LocalRun.stream(LocalServerBodies.chunk("You had oats."), LocalServerBodies.finish("stop", promptTokens: 1_250)))
        let (_, lines) = try await run.ask(long)
        #expect(lines.count == 1 && lines.first?.contains("did not give the model the tools") == true, "\(lines)")
        // The same request with the tools counted (system + specs + message) says nothing.
        let fine = try LocalRun(tools: 12, systemPrompt: system)
        fine.server.enqueue(LocalRun.stream(LocalServerBodies.chunk("You had oats."), LocalServerBodies.finish("stop", promptTokens: 3_100)))
        #expect(try await fine.ask(long).1.isEmpty)
    }
}
