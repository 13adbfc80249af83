// Each hosted request is valid by its provider's own specification (issue 32): one test per rule,
// on every wire it applies to, built through the real adapter and checked on the JSON body.
// Rules and error texts: staging/providers/NOTES.md (Google tool combination and multimodal
// function responses, OpenAI's InputImageContent, OpenRouter's ChatRequest, Anthropic caching).
import Foundation
import Testing
import Agent
import HTTP
import Providers
import SQLiteKit
import TestSupport

@Suite struct SpecConformanceTests {
    func native(_ c: AdapterConfig) -> AdapterConfig {
        var c = c
        c.nativeWebSearch = true
        return c
    }

    let lookup = ToolSpec(name: "search_foods", description: "d", parameters: ["type": "object", "properties": ["q": ["type": "string"]]])
    let none = FakeHTTPTransport(replies: [])

    func gemini(_ model: String, native on: Bool = true, _ t: FakeHTTPTransport? = nil) -> GeminiModel {
        let c = config("gemini", base: "https://generativelanguage.googleapis.com/v1beta", model: model)
        return GeminiModel(config: on ? native(c) : c, transport: t ?? none)
    }

    static let geminiAnswer = """
        data: {"candidates": [{"content": {"role": "model","parts": [{"text": "ok"}]},"finishReason": "STOP"}],"responseId": "r2"}


        """

    static func image(_ format: AttachmentFormat, id: String, bytes: [UInt8] = [1, 2, 3]) -> AttachmentRef {
        AttachmentRef(id: id, name: "file-\(id)", format: format, byteCount: bytes.count, sha256: SHA256Hasher.hex(bytes + Array(id.utf8)),
                      source: MemoryAttachmentSource(bytes))
    }

    // MARK: Gemini 3: Google's tools beside function declarations

    @Test func gemini3CombinesGoogleSearchWithFunctionsUnderTheFlagInValidatedMode() throws {
        let body = gemini("gemini-3-pro-preview").requestBody(ChatRequest(system: "s", messages: [.user("x")], tools: [lookup]))
        #expect(body["toolConfig"] == ["functionCallingConfig": ["mode": "VALIDATED"], "includeServerSideToolInvocations": true])
        let tools = try #require(body["tools"]?.arrayValue)
        #expect(tools.map { $0.objectValue?.keys.sorted() ?? [] } == [["functionDeclarations"], ["google_search"], ["url_context"]])
        // Without Google's tools the function calls stay in AUTO and the flag is not sent.
        let plain = gemini("gemini-3-pro-preview", native: false).requestBody(ChatRequest(system: "s", messages: [.user("x")], tools: [lookup]))
        #expect(plain["toolConfig"] == ["functionCallingConfig": ["mode": "AUTO"]])
    }

    /// Gemini 2.x refuses built-in tools beside function declarations: the function tools go alone.
    @Test(arguments: ["gemini-2.5-flash", "models/gemini-2.5-pro", "gemini-2.0-flash"])
    func olderGeminiGetsFunctionToolsOnly(model: String) throws {
        let body = gemini(model).requestBody(ChatRequest(system: "s", messages: [.user("x")], tools: [lookup]))
        #expect(body["tools"]?.arrayValue?.count == 1)
        #expect(body["tools"]?[0]?["functionDeclarations"] != nil)
        #expect(body["toolConfig"] == ["functionCallingConfig": ["mode": "AUTO"]])
        #expect(!body.serialized.contains("google_search"))
        // And ofj's research setting says so instead of promising search.
        let choice = ResearchChoice.resolve(setting: "native", provider: "gemini", wire: .gemini, model: model, settings: [:])
        #expect(choice.mode == .off)
        #expect(choice.hint?.contains("only Gemini 3") == true)
    }

    @Test func aRefusedCombinationIsRetriedOnceWithoutSearchAndSaidOnce() async throws {
        let refusal = #"{"error":{"code":400,"message":"Please enable tool_config.include_server_side_tool_invocations to use Built-in tools with Function calling.","status":"INVALID_ARGUMENT"}}"#
        let t = FakeHTTPTransport(replies: [
            FakeHTTPTransport.Reply(status: 400, headers: [HTTPHeader("Content-Type", "application/json")], text: refusal),
            FakeHTTPTransport.Reply(text: Self.geminiAnswer),
        ])
        let model = gemini("gemini-3-flash-preview", t)
        let request = ChatRequest(system: "s", messages: [.user("x")], tools: [lookup])
        let turn = await runTurn(model, request)
        #expect(turn.error == nil)
        #expect(turn.text == "ok")
        #expect(turn.events.filter { if case .notice = $0 { return true } else { return false } } == [.notice(GeminiModel.combinationNotice)])
        #expect(t.requests.count == 2)
        #expect(try requestJSON(t, 0).serialized.contains("google_search"))
        let retried = try requestJSON(t, 1)
        #expect(!retried.serialized.contains("google_search") && retried["toolConfig"] == ["functionCallingConfig": ["mode": "AUTO"]])
        // Later turns of the session go without, and nothing more is said.
        let next = await runTurn(model, request)
        #expect(next.error == nil)
        #expect(!next.events.contains { if case .notice = $0 { return true } else { return false } })
        #expect(t.requests.count == 3)
        #expect(!(try requestJSON(t, 2)).serialized.contains("google_search"))
    }

    @Test func anotherRefusalIsNotRetried() async throws {
        let refusal = #"{"error":{"code":400,"message":"Invalid JSON payload received.","status":"INVALID_ARGUMENT"}}"#
        let t = FakeHTTPTransport(replies: [FakeHTTPTransport.Reply(status: 400, headers: [HTTPHeader("Content-Type", "application/json")], text: refusal),
                                            FakeHTTPTransport.Reply(text: Self.geminiAnswer)])
        let turn = await runTurn(gemini("gemini-3-pro-preview", t), ChatRequest(system: "s", messages: [.user("x")], tools: [lookup]))
        #expect(turn.error?.httpStatus == 400)
        #expect(t.requests.count == 1)
    }

    /// Google's own toolCall/toolResponse parts go back exactly as received with their
    /// signatures, as a pair; a pair missing a signature (or half of it) is left out whole.
    @Test func googleToolPartsReplayAsSignedPairsOrNotAtAll() async throws {
        let stream = """
            data: {"candidates": [{"content": {"role": "model","parts": [{"thoughtSignature": "sigA","toolCall": {"toolType": "GOOGLE_SEARCH_WEB","args": {"queries": ["oat milk protein"]},"id": "a7b3k9p2"}},{"thoughtSignature": "sigB","toolResponse": {"toolType": "GOOGLE_SEARCH_WEB","response": {"search_suggestions": "oat"},"id": "a7b3k9p2"}},{"toolCall": {"toolType": "URL_CONTEXT","args": {"urls": ["https://x.test"]},"id": "u1"}},{"thoughtSignature": "sigD","toolResponse": {"toolType": "URL_CONTEXT","response": {},"id": "u1"}},{"text": "About 1 g per cup."}]},"finishReason": "STOP"}],"responseId": "r1"}


            """
        let model = gemini("gemini-3-pro-preview", transport(stream))
        let turn = await runTurn(model, ChatRequest(system: "s", messages: [.user("x")], tools: [lookup]))
        #expect(turn.error == nil)
        #expect(turn.toolCalls.isEmpty, "Google's tool calls are never ofj's to run")
        #expect(turn.text == "About 1 g per cup.")
        #expect(turn.continuations.filter { $0.kind == "server_part" }.count == 4)
        let body = model.requestBody(ChatRequest(system: "s", messages: [.user("x"), turn.assistantMessage, .user("and soy?")], tools: [lookup]))
        let parts = try #require(body["contents"]?[1]?["parts"]?.arrayValue)
        #expect(parts.count == 3)
        #expect(parts[0] == ["thoughtSignature": "sigA", "toolCall": ["toolType": "GOOGLE_SEARCH_WEB", "args": ["queries": ["oat milk protein"]], "id": "a7b3k9p2"]])
        #expect(parts[1]["toolResponse"]?["id"] == "a7b3k9p2" && parts[1]["thoughtSignature"] == "sigB")
        #expect(parts[2] == ["text": "About 1 g per cup."])
        // To another model (another origin) neither part goes.
        let other = gemini("gemini-3-flash-preview").requestBody(ChatRequest(system: "s", messages: [.user("x"), turn.assistantMessage, .user("y")], tools: []))
        #expect(!other.serialized.contains("toolCall") && !other.serialized.contains("toolResponse"))
    }

    // MARK: Gemini function responses stand alone

    /// Two parallel results, one of them read_attachment: the image goes inside its
    /// functionResponse on Gemini 3; on Gemini 2.x the responses' content stays alone and the
    /// image follows in a user content of its own. Never extra parts beside function responses.
    @Test(arguments: ["gemini-3-pro-preview", "gemini-2.5-flash"])
    func mediaForAToolResultNeverSharesTheFunctionResponsesContent(model: String) throws {
        let image = Self.image(.png, id: "a4")
        let calls = [ToolCall(id: "c1", name: "read_attachment", arguments: #"{"id":"a4"}"#), ToolCall(id: "c2", name: "get_goals", arguments: "{}")]
        let stored = [
            Message(role: .user, parts: [.text("what does the label say?")]),
            Message(role: .assistant, parts: calls.map { .toolCall($0) }),
            Message(role: .tool, parts: [
                .toolResult(ToolResult(callID: "c1", name: "read_attachment", content: #"{"attachment_id":"a4","note":"The attachment follows this result."}"#)),
                .toolResult(ToolResult(callID: "c2", name: "get_goals", content: #"{"energy_kcal":2000}"#)),
            ]),
        ]
        // What the runner sends: the attachment window shows a4 after the results.
        let messages = AttachmentWindow.apply(stored) { $0 == "a4" ? image : nil }
        let body = gemini(model, native: false).requestBody(ChatRequest(system: "s", messages: messages, tools: [lookup], contextNote: "NOTE"))
        let contents = try #require(body["contents"]?.arrayValue)
        for content in contents where content.serialized.contains("functionResponse") {
            #expect(content["parts"]?.arrayValue?.allSatisfy { $0["functionResponse"] != nil } == true, "\(content.serialized.prefix(300))")
        }
        let responses = try #require(contents[2]["parts"]?.arrayValue)
        #expect(responses.count == 2)
        if model.contains("gemini-3") {
            #expect(responses[0]["functionResponse"]?["parts"] ==
                    [["inlineData": ["data": .string(AttachmentSplicer.marker(image)), "mimeType": "image/png", "displayName": "a4.png"]]])
            #expect(responses[1]["functionResponse"]?["parts"] == nil)
            #expect(contents.count == 4) // the note follows in a user content of its own
        } else {
            #expect(!responses.contains { $0["functionResponse"]?["parts"] != nil })
            let shown = try #require(contents[3]["parts"]?.arrayValue)
            #expect(contents[3]["role"] == "user")
            #expect(shown.contains { $0["inlineData"]?["mimeType"] == "image/png" })
            #expect(shown.last == ["text": "NOTE"])
        }
        #expect(contents.last?["parts"]?.arrayValue?.last == ["text": "NOTE"])
    }

    // MARK: Image types each wire takes

    @Test func gifIsRefusedBeforeGeminiAndNeverSentInline() throws {
        let gif = Self.image(.gif, id: "a2", bytes: Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0, 0x3B])
        let onGemini = gemini("gemini-3-pro-preview")
        let refusal = try #require(ModelCatalog.attachmentRefusal([gif], model: onGemini))
        #expect(refusal.hasPrefix("Not sent: Gemini does not take GIF images"))
        #expect(refusal.contains("PNG") && refusal.contains("--provider anthropic"))
        #expect(!refusal.contains("file-a2"), "no file name in the line")
        for other in [AttachmentFormat.png, .jpeg, .webp] { #expect(ModelCatalog.attachmentRefusal([Self.image(other, id: "a3")], model: onGemini) == nil) }
        // Anthropic, OpenAI and OpenRouter take a still GIF.
        let claude = AnthropicModel(config: config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-sonnet-4-5"), transport: none)
        let responses = ResponsesModel(config: config("openai", base: "https://api.openai.com/v1", model: "gpt-4.1"), transport: none)
        let router = ChatCompletionsModel(config: config("openrouter", base: "https://openrouter.ai/api/v1", model: "openai/gpt-4o"), transport: none)
        for model in [claude, responses, router] as [any ChatModel] { #expect(ModelCatalog.attachmentRefusal([gif], model: model) == nil) }
        // A GIF that reached a request anyway (a thread moved from another provider) is a line, not inline data.
        let body = onGemini.requestBody(ChatRequest(system: "", messages: [Message(role: .user, parts: [.text("see")], attachments: [gif])], tools: []))
        #expect(!body.serialized.contains("image/gif"))
        #expect(body["contents"]?[0]?["parts"]?[1]?["text"]?.stringValue?.contains("not sent: Gemini does not take GIF images") == true)
    }

    /// read_attachment after a switch to Gemini refuses a GIF attached earlier (the tool's refusal
    /// is the product's `ModelCatalog.attachmentRefusal`, as Toolbox wires it).
    @Test func readAttachmentAfterASwitchToGeminiRefusesTheGIF() async throws {
        let queue = try DatabaseQueue(path: ":memory:")
        var migrator = Migrator()
        ConversationStore.registerMigrations(into: &migrator)
        try queue.migrate(migrator)
        let store = ConversationStore(queue: queue)
        // The GIF was attached while the thread ran on a model that takes it.
        let clock = VirtualClock()
        let first = ScriptedChatModel(turns: [.text("a spinning label")], clock: clock, provider: "anthropic", model: "claude-sonnet-4-5",
                                      continuationFamily: "anthropic")
        let runner = AgentRunner(store: store, model: first, tools: ToolRegistry([]), approvals: ScriptedApprovalGate(fallback: .deny), clock: clock,
                                 ids: CountingIDSource(prefix: "run-"), configuration: AgentConfiguration(systemPrompt: "s"))
        let bytes = Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0, 0x3B]
        let gif = AttachmentRef(name: "anim.gif", format: .gif, byteCount: bytes.count, sha256: SHA256Hasher.hex(bytes), source: MemoryAttachmentSource(bytes))
        let h = try runner.submit(threadID: "t1", text: "what is this?", attachments: [gif])
        #expect(await runner.outcome(of: h.runID)?.phase == .completed)
        let id = try #require(try store.attachments(threadID: "t1").first?.id)
        let tool = ReadAttachmentTool(store: store, refusal: { ref, model in ModelCatalog.attachmentRefusal([ref], model: model) })
        func context(_ model: any ChatModel) -> ToolContext {
            ToolContext(threadID: "t1", runID: "r2", callID: "c1", now: WallTime(secondsSince1970: 0), model: model)
        }
        let out = try await tool.execute(arguments: ["id": .string(id)], context: context(gemini("gemini-3-pro-preview")))
        #expect(out.isError)
        #expect(out.content.contains("Gemini does not take GIF images"))
        let claude = AnthropicModel(config: config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-sonnet-4-5"), transport: none)
        #expect(!(try await tool.execute(arguments: ["id": .string(id)], context: context(claude))).isError)
    }

    /// OpenAI takes "non-animated GIF" only: a GIF with two frames is refused, one frame is not.
    @Test func animatedGIFIsRefusedBeforeOpenAI() throws {
        func gif(frames: Int) -> [UInt8] {
            var b = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255] // 2-color global table
            b += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0] // looping extension
            for _ in 0..<frames {
                b += [0x21, 0xF9, 4, 0, 10, 0, 0, 0] // graphic control
                b += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x4C, 0x01, 0] // 1x1 image
            }
            return b + [0x3B]
        }
        let responses = ResponsesModel(config: config("openai", base: "https://api.openai.com/v1", model: "gpt-4.1"), transport: none)
        let azure = ResponsesModel(config: config("azure", base: "https://r.openai.azure.com", model: "dep"), flavor: .azure, transport: none)
        let chat = ChatCompletionsModel(config: config("openai", base: "https://api.openai.com/v1", model: "gpt-4o"), transport: none)
        for model in [responses, azure, chat] as [any ChatModel] {
            #expect(ModelCatalog.attachmentRefusal([Self.image(.gif, id: "a1", bytes: gif(frames: 1))], model: model) == nil)
            let refusal = ModelCatalog.attachmentRefusal([Self.image(.gif, id: "a1", bytes: gif(frames: 2))], model: model)
            #expect(refusal?.contains("does not take animated GIF images") == true, "\(model.provider)")
        }
        let claude = AnthropicModel(config: config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-sonnet-4-5"), transport: none)
        #expect(ModelCatalog.attachmentRefusal([Self.image(.gif, id: "a1", bytes: gif(frames: 2))], model: claude) == nil)
    }

    // MARK: Responses images carry detail

    @Test(arguments: [ResponsesModel.Flavor.openAI, .azure])
    func responsesImagesAlwaysCarryDetail(flavor: ResponsesModel.Flavor) throws {
        let base = flavor == .azure ? "https://r.openai.azure.com" : "https://api.openai.com/v1"
        let model = ResponsesModel(config: config(flavor == .azure ? "azure" : "openai", base: base, model: "gpt-4.1"), flavor: flavor, transport: none)
        let images = [Self.image(.png, id: "a1"), Self.image(.jpeg, id: "a2"), Self.image(.webp, id: "a3"), Self.image(.gif, id: "a4")]
        let body = model.requestBody(ChatRequest(system: "", messages: [Message(role: .user, parts: [.text("x")], attachments: images)], tools: []))
        let parts = try #require(body["input"]?[0]?["content"]?.arrayValue).filter { $0["type"] == "input_image" }
        #expect(parts.count == 4)
        #expect(parts.allSatisfy { $0["detail"] == "auto" })
    }

    // MARK: The summary request carries no tools

    @Test func aSummaryRequestCarriesNoToolsOnAnyWire() throws {
        let summary = ChatRequest(system: "summarise", messages: [.user("messages…")], tools: [], contextNote: "", purpose: .summary)
        let answer = ChatRequest(system: "s", messages: [.user("x")], tools: [lookup])
        let claude = AnthropicModel(config: native(config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-sonnet-4-5")), transport: none)
        let responses = ResponsesModel(config: native(config("openai", base: "https://api.openai.com/v1", model: "gpt-5")), transport: none)
        let router = ChatCompletionsModel(config: native(config("openrouter", base: "https://openrouter.ai/api/v1", model: "x/y")), transport: none)
        let google = gemini("gemini-3-pro-preview")
        let bodies = [claude.requestBody(summary), responses.requestBody(summary), router.requestBody(summary), google.requestBody(summary)]
        for body in bodies {
            #expect(body["tools"] == nil && body["tool_choice"] == nil && body["toolConfig"] == nil && body["plugins"] == nil, "\(body.serialized)")
            #expect(!body.serialized.contains("web_search") && !body.serialized.contains("google_search"))
            #expect(cacheMarkerPaths(body).isEmpty)
        }
        #expect(!claude.httpRequest(summary).headers.contains { $0.name == "anthropic-beta" })
        // The same adapters still declare search for an answer.
        #expect(claude.requestBody(answer)["tools"]?.arrayValue?.count == 3)
        #expect(responses.requestBody(answer).serialized.contains("web_search"))
        #expect(router.requestBody(answer)["plugins"] != nil)
        #expect(google.requestBody(answer).serialized.contains("google_search"))
    }

    // MARK: OpenRouter's usage field

    @Test func openRouterSendsNoUsageFieldAndStillGetsUsage() async throws {
        let cassette = try ProviderFixtures.cassette("openai-chat/fantasy__openrouter-anthropic__tool_streaming.cassette.json")
        let t = transport(cassette[0].responseBody)
        let router = ChatCompletionsModel(config: config("openrouter", base: "https://openrouter.ai/api/v1", model: "anthropic/claude-sonnet-4"), transport: t)
        let turn = await runTurn(router, ChatRequest(system: "s", messages: [.user("x")], tools: [lookup]))
        let body = try requestJSON(t)
        #expect(body["usage"] == nil)
        #expect(body["stream_options"] == ["include_usage": true])
        #expect((turn.usage?.inputTokens ?? 0) > 0)
    }

    // MARK: Anthropic cache breakpoints

    @Test func anthropicMarksAtMostFourCacheBreakpointsBeforeTheNote() throws {
        let claude = AnthropicModel(config: native(config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-sonnet-4-5")), transport: none)
        let thinking = ContinuationItem(provider: "anthropic", kind: "thinking", payload: #"{"type":"thinking","thinking":"t","signature":"s"}"#,
                                        origin: claude.continuationOrigin)
        let call = ToolCall(id: "toolu_1", name: "search_foods", arguments: #"{"q":"egg"}"#)
        let messages = [
            Message.user("first"),
            Message(role: .assistant, parts: [.text("one")]),
            Message.user("log eggs"),
            Message(role: .assistant, parts: [.continuation(thinking), .toolCall(call)]),
            Message(role: .tool, parts: [.toolResult(ToolResult(callID: "toolu_1", name: "search_foods", content: "egg, 72 kcal"))]),
        ]
        let body = claude.requestBody(ChatRequest(system: "rules", messages: messages, tools: [lookup], contextNote: "Now: 12:00"))
        #expect(cacheMarkerPaths(body) == ["messages[2].content[0]", "messages[4].content[0]", "system[0]", "tools[2]"])
        let last = try #require(body["messages"]?[4]?["content"]?.arrayValue)
        #expect(last.last == ["type": "text", "text": "Now: 12:00"], "the note comes after every breakpoint")
        // A turn that ends in thinking (a paused turn sent back) is never marked on the thinking block.
        let paused = claude.requestBody(ChatRequest(system: "", messages: [.user("x"), Message(role: .assistant, parts: [.continuation(thinking)])],
                                                    tools: []))
        #expect(!cacheMarkerPaths(paused).contains { $0.hasPrefix("messages[1]") })
    }
}
