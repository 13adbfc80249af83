// Cache-friendly requests (issue 32): within a thread every request starts with the bytes of the
// one before, up to its context note, across a minute and a day boundary, on all four wires.
// The requests are made by the product's runner and context manager through the real adapters.
//
// "Prefix", per wire (docs/PROVIDERS.md, "Stable prefix and cache"): the serialized components
// in the order the provider reads them — Anthropic tools, system, messages; Gemini tools,
// toolConfig, systemInstruction, contents; Chat Completions tools, messages; Responses tools,
// input — with the context note taken off the end (it is the last text of the last user turn,
// or a user turn of its own) and Anthropic's cache_control markers left out (they mark where
// to cache; they are not prompt). Request N's prefix must be a byte prefix of request N+1's.
import Foundation
import Testing
import Agent
import Base
import HTTP
import Providers
import SQLiteKit
import Synchronization
import TestSupport

private struct LookupTool: Tool {
    var name: String { "lookup" }
    var description: String { "Look a food up" }
    var parameters: JSONValue { ["type": "object", "properties": ["q": ["type": "string"]], "required": ["q"]] }
    var effect: ToolEffect { .read }
    func activity(arguments: JSONValue) -> String { "looking up" }
    func execute(arguments: JSONValue, context: ToolContext) async throws -> ToolOutput {
        ToolOutput(content: #"{"food":"egg","energy_kcal":72}"#, summary: "egg")
    }
}

private struct NoDiagnostics: DiagnosticsRecorder {
    func record(_ event: AgentDiagnostic) {}
}

@Suite struct StablePrefixTests {
    enum Wire: String, CaseIterable { case anthropic, gemini, chat, responses }

    /// A tool call, then two answers: the replies of one thread's four requests.
    static func replies(_ wire: Wire) -> [String] {
        switch wire {
        case .anthropic:
            func message(_ block: String, _ delta: String, stop: String) -> String {
                [#"{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":12,"cache_read_input_tokens":1800,"cache_creation_input_tokens":40,"output_tokens":1}}}"#,
                 #"{"type":"content_block_start","index":0,"content_block":\#(block)}"#,
                 #"{"type":"content_block_delta","index":0,"delta":\#(delta)}"#,
                 #"{"type":"content_block_stop","index":0}"#,
                 #"{"type":"message_delta","delta":{"stop_reason":"\#(stop)"},"usage":{"output_tokens":5}}"#,
                 #"{"type":"message_stop"}"#].map { "event: x\ndata: \($0)\n\n" }.joined()
            }
            let text = message(#"{"type":"text","text":""}"#, #"{"type":"text_delta","text":"Done."}"#, stop: "end_turn")
            return [message(#"{"type":"tool_use","id":"toolu_1","name":"lookup","input":{}}"#, #"{"type":"input_json_delta","partial_json":"{\"q\":\"egg\"}"}"#,
                            stop: "tool_use"), text, text, text]
        case .gemini:
            let usage = #""usageMetadata":{"promptTokenCount":1900,"candidatesTokenCount":5,"cachedContentTokenCount":1700}"#
            let text = #"data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Done."}]},"finishReason":"STOP"}],\#(usage),"responseId":"g2"}"# + "\n\n"
            return [#"data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"lookup","args":{"q":"egg"},"id":"call-1"}}]},"finishReason":"STOP"}],\#(usage),"responseId":"g1"}"# + "\n\n",
                    text, text, text]
        case .chat:
            let usage = #""usage":{"prompt_tokens":1900,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":1792}}"#
            let text = [#"{"id":"c2","choices":[{"index":0,"delta":{"role":"assistant","content":"Done."}}]}"#,
                        #"{"id":"c2","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],\#(usage)}"#, "[DONE]"].map { "data: \($0)\n\n" }.joined()
            return [[#"{"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"egg\"}"}}]}}]}"#,
                     #"{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],\#(usage)}"#, "[DONE]"].map { "data: \($0)\n\n" }.joined(),
                    text, text, text]
        case .responses:
            let completed = #"{"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":1900,"input_tokens_details":{"cached_tokens":1792},"output_tokens":5}}}"#
            let text = [#"{"type":"response.output_text.delta","item_id":"msg_1","delta":"Done."}"#, completed].map { "data: \($0)\n\n" }.joined()
            return [[#"{"type":"response.output_item.done","item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"lookup","arguments":"{\"q\":\"egg\"}"}}"#,
                     completed].map { "data: \($0)\n\n" }.joined(),
                    text, text, text]
        }
    }

    static func model(_ wire: Wire, _ t: FakeHTTPTransport) -> any ChatModel {
        switch wire {
        case .anthropic: return AnthropicModel(config: config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-sonnet-4-5"), transport: t)
        case .gemini: return GeminiModel(config: config("gemini", base: "https://generativelanguage.googleapis.com/v1beta", model: "gemini-3-pro-preview"), transport: t)
        case .chat: return ChatCompletionsModel(config: config("openai", base: "https://api.openai.com/v1", model: "gpt-4.1"), transport: t)
        case .responses: return ResponsesModel(config: config("openai", base: "https://api.openai.com/v1", model: "gpt-5"), transport: t)
        }
    }

    /// The serialized components in the provider's reading order, the note taken off the end.
    static func prefix(_ wire: Wire, _ body: JSONValue, note: String) throws -> (bytes: [UInt8], tail: String) {
        let body = try #require(withoutCacheMarkers(body))
        var head: [JSONValue]
        var items: [JSONValue]
        switch wire {
        case .anthropic:
            head = [body["tools"] ?? .null, body["system"] ?? .null]
            items = body["messages"]?.arrayValue ?? []
        case .gemini:
            head = [body["tools"] ?? .null, body["toolConfig"] ?? .null, body["systemInstruction"] ?? .null]
            items = body["contents"]?.arrayValue ?? []
        case .chat:
            head = [body["tools"] ?? .null]
            items = body["messages"]?.arrayValue ?? []
        case .responses:
            head = [body["tools"] ?? .null]
            items = body["input"]?.arrayValue ?? []
        }
        // Take the note off: the last text of the last user turn, or a turn of its own.
        let popped = items.popLast()
        let last = try #require(popped)
        let partsKey = wire == .gemini ? "parts" : "content"
        var tail = ""
        if let text = last[partsKey]?.stringValue {
            // Chat Completions: appended to the last user message's text after a blank line.
            if text == note {
                tail = text
            } else if text.hasSuffix("\n\n" + note) {
                tail = note
                items.append(["role": last["role"] ?? .null, "content": .string(String(text.dropLast(note.count + 2)))])
            }
        } else {
            var parts = try #require(last[partsKey]?.arrayValue)
            let lastPart = parts.popLast()
            let part = try #require(lastPart)
            tail = part["text"]?.stringValue ?? ""
            if !parts.isEmpty {
                var o = last.objectValue ?? [:]
                o[partsKey] = .array(parts)
                items.append(.object(o))
            }
        }
        var bytes: [UInt8] = []
        for v in head + items { bytes += Array(v.serialized.utf8) }
        return (bytes, tail)
    }

    @Test(arguments: Wire.allCases)
    func eachRequestStartsWithTheBytesOfTheOneBefore(wire: Wire) async throws {
        let t = FakeHTTPTransport(replies: Self.replies(wire).map { FakeHTTPTransport.Reply(text: $0, maxChunk: 29) })
        let model = Self.model(wire, t)
        let queue = try DatabaseQueue(path: ":memory:")
        var migrator = Migrator()
        ConversationStore.registerMigrations(into: &migrator)
        try queue.migrate(migrator)
        let store = ConversationStore(queue: queue)
        // 2026-11-29 23:58:30 UTC.
        let clock = VirtualClock(epoch: 1_795_996_710)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        let utc = calendar
        let notes = Mutex<[String]>([])
        var configuration = AgentConfiguration(systemPrompt: "You keep a food journal. Use the tools for every number.", jitter: { 0.5 },
                                               costEstimator: ModelCatalog.costEstimator)
        configuration.contextNote = {
            let c = utc.dateComponents([.weekday, .year, .month, .day, .hour, .minute], from: Date(timeIntervalSince1970: clock.now()))
            let weekday = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"][((c.weekday ?? 1) - 1) % 7]
            let note = "[context] Now: " + String(format: "%@ %04d-%02d-%02d, %02d:%02d UTC.", weekday, c.year ?? 0, c.month ?? 0, c.day ?? 0,
                                                           c.hour ?? 0, c.minute ?? 0)
            notes.withLock { $0.append(note) }
            return note
        }
        let settings = ContextSettings(limits: { _, _ in ModelLimits(contextWindow: 200_000, maxOutputTokens: 4_096) })
        let runner = AgentRunner(store: store, model: model, tools: ToolRegistry([LookupTool()]), approvals: ScriptedApprovalGate(fallback: .deny),
                                 clock: clock, ids: CountingIDSource(prefix: "run-"), diagnostics: NoDiagnostics(), configuration: configuration,
                                 assembler: CompactingAssembler(store: store, settings: settings, clock: clock), faults: nil)
        for (text, advance) in [("log 2 eggs", 0.0), ("and tomorrow?", 40), ("what about today?", 60)] {
            clock.advance(by: advance)
            let h = try runner.submit(threadID: "t1", text: text)
            let outcome = try #require(await runner.outcome(of: h.runID))
            #expect(outcome.phase == .completed, "\(String(describing: outcome.error))")
        }
        let sent = notes.withLock { $0 }
        try #require(t.requests.count == 4 && sent.count == 4)
        // A tool turn in one minute, the next message in the next minute, the last on the next day.
        #expect(sent[0] == sent[1] && sent[0].hasSuffix("Sunday 2026-11-29, 23:58 UTC."))
        #expect(sent[2].hasSuffix("Sunday 2026-11-29, 23:59 UTC."))
        #expect(sent[3].hasSuffix("Monday 2026-11-30, 00:00 UTC."))

        var previous: [UInt8]?
        for k in 0..<4 {
            let body = try requestJSON(t, k)
            let (bytes, tail) = try Self.prefix(wire, body, note: sent[k])
            #expect(tail == sent[k], "request \(k) ends with its note")
            // The note is nowhere else: not in the system prompt, not in earlier turns.
            #expect(body.serialized.components(separatedBy: "[context] Now:").count == 2, "request \(k)")
            if let previous {
                #expect(bytes.count > previous.count)
                let shared = zip(bytes, previous).prefix { $0 == $1 }.count
                let around = String(decoding: previous.dropFirst(max(0, shared - 40)).prefix(120), as: UTF8.self)
                #expect(shared == previous.count, "\(wire) request \(k) leaves request \(k - 1)'s prefix after byte \(shared): \(around)")
            }
            previous = bytes
        }

        // The provider's cached-token counts are kept with each round (for /usage and ask --json).
        let rows = try store.usage(threadID: "t1")
        #expect(rows.count == 4)
        #expect(rows.allSatisfy { $0.usage.cachedInputTokens > 0 }, "\(rows.map(\.usage))")
    }
}
