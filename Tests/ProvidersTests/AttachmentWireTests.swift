// Attachments on every wire: the request bodies real clients sent with an image (recorded in the
// fantasy image-upload cassettes), and the PDF and Responses shapes the providers document.
import Base
import Foundation
import Offline
import Testing
import Agent
import HTTP
import Providers
import TestSupport

@Suite struct AttachmentWireTests {
    static let prompt = "Describe the image briefly in English."

    /// The recorded request, and the image it carried as an attachment of the user message.
    func recorded(_ file: String, data: (JSONValue) -> String?) throws -> (interaction: ProviderFixtures.Interaction, body: JSONValue, request: ChatRequest, bytes: [UInt8]) {
        let cassette = try ProviderFixtures.cassette(file)
        let body = try json(cassette[0].requestBody)
        let base64 = try #require(data(body))
        let bytes = [UInt8](try #require(Data(base64Encoded: base64)))
        let ref = AttachmentRef(id: "a1", name: "image.png", format: try #require(AttachmentFormat.sniff(bytes)), byteCount: bytes.count,
                                sha256: SHA256Hasher.hex(bytes), source: MemoryAttachmentSource(bytes))
        let request = ChatRequest(system: "You are a helpful assistant",
                                  messages: [Message(role: .user, parts: [.text(Self.prompt)], attachments: [ref])], tools: [], maxOutputTokens: 4000)
        return (cassette[0], body, request, bytes)
    }

    @Test func anthropicImageBlockMatchesTheRecordedRequest() async throws {
        let r = try recorded("anthropic/fantasy__TestImageUploadAgentStreaming__anthropic-claude-sonnet-4-stream.cassette.json") {
            $0["messages"]?[0]?["content"]?[1]?["source"]?["data"]?.stringValue
        }
        let t = transport(r.interaction.responseBody)
        let model = AnthropicModel(config: config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-sonnet-4-20250514"), transport: t)
        let turn = await runTurn(model, r.request)
        #expect(turn.error == nil)
        #expect(!turn.text.isEmpty)
        let sent = try requestJSON(t)
        #expect(withoutCacheMarkers(sent["messages"]) == r.body["messages"])
        #expect(withoutCacheMarkers(sent["system"]) == r.body["system"])
        #expect(sent["model"] == r.body["model"])
        #expect(sent["max_tokens"] == r.body["max_tokens"])
    }

    @Test func geminiInlineDataMatchesTheRecordedRequest() async throws {
        let r = try recorded("gemini/fantasy__TestImageUploadAgentStreaming__gemini-2.5-pro-stream.cassette.json") {
            $0["contents"]?[0]?["parts"]?[1]?["inlineData"]?["data"]?.stringValue
        }
        let t = transport(r.interaction.responseBody)
        let model = GeminiModel(config: config("gemini", base: "https://generativelanguage.googleapis.com/v1beta", model: "gemini-2.5-pro"), transport: t)
        let turn = await runTurn(model, r.request)
        #expect(turn.error == nil)
        #expect(!turn.text.isEmpty)
        let sent = try requestJSON(t)
        #expect(sent["contents"] == r.body["contents"])
        #expect(sent["systemInstruction"] == r.body["systemInstruction"])
        #expect(sent["generationConfig"] == r.body["generationConfig"])
        #expect(t.requests[0].url == r.interaction.url)
    }

    @Test func chatCompletionsImageURLMatchesTheRecordedRequest() async throws {
        let r = try recorded("openai-chat/fantasy__TestImageUploadAgentStreaming__openai-gpt-5-stream.cassette.json") {
            $0["messages"]?[1]?["content"]?[1]?["image_url"]?["url"]?.stringValue.map { String($0.dropFirst("data:image/png;base64,".count)) }
        }
        let t = transport(r.interaction.responseBody)
        let model = ChatCompletionsModel(config: config("openai", base: "https://api.openai.com/v1", model: "gpt-5"), transport: t)
        let turn = await runTurn(model, r.request)
        #expect(turn.error == nil)
        #expect(!turn.text.isEmpty)
        let sent = try requestJSON(t)
        #expect(sent["messages"] == r.body["messages"])
        #expect(sent["model"] == r.body["model"])
    }

    /// The base64 in the sent body is byte-for-byte the recorded one (not only equal after parsing).
    @Test func splicedBase64IsTheRecordedText() async throws {
        let r = try recorded("anthropic/fantasy__TestImageUploadAgentStreaming__anthropic-claude-sonnet-4-stream.cassette.json") {
            $0["messages"]?[0]?["content"]?[1]?["source"]?["data"]?.stringValue
        }
        let t = transport(r.interaction.responseBody)
        _ = await runTurn(AnthropicModel(config: config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-sonnet-4-20250514"), transport: t), r.request)
        let sentText = String(decoding: t.requests[0].body, as: UTF8.self)
        let recordedData = try #require(r.body["messages"]?[0]?["content"]?[1]?["source"]?["data"]?.stringValue)
        #expect(sentText.contains("\"data\":\"\(recordedData)\""))
        #expect(!sentText.contains("@@ofj-attachment"))
        #expect(Base64Appender.encode(r.bytes) == recordedData)
    }

    // MARK: - PDFs and the Responses wire (no recorded request bodies: shapes as documented)

    func pdfRequest() -> (ChatRequest, [UInt8]) {
        let pdf = Array("%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n".utf8)
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]
        let refs = [AttachmentRef(id: "a1", name: "menu.pdf", format: .pdf, byteCount: pdf.count, sha256: SHA256Hasher.hex(pdf), source: MemoryAttachmentSource(pdf)),
                    AttachmentRef(id: "a2", name: "plate.png", format: .png, byteCount: png.count, sha256: SHA256Hasher.hex(png), source: MemoryAttachmentSource(png))]
        return (ChatRequest(system: "s", messages: [Message(role: .user, parts: [.text("read these")], attachments: refs)], tools: []), pdf)
    }

    @Test func responsesSendsInputFileAndInputImage() async throws {
        let (request, pdf) = pdfRequest()
        let t = transport("")
        _ = await runTurn(ResponsesModel(config: config("openai", base: "https://api.openai.com/v1", model: "gpt-4.1"), transport: t), request)
        let sent = try requestJSON(t)
        let content = try #require(sent["input"]?[1]?["content"])
        #expect(content[0] == ["type": "input_text", "text": "read these"])
        #expect(content[1] == ["type": "input_file", "filename": "a1.pdf", "file_data": .string("data:application/pdf;base64," + Base64Appender.encode(pdf))])
        // `detail` is required by the spec (vLLM answers 400 without it).
        #expect(content[2] == ["type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgoBAgM=", "detail": "auto"])
    }

    @Test func anthropicSendsADocumentBlock() async throws {
        let (request, pdf) = pdfRequest()
        let t = transport("")
        _ = await runTurn(AnthropicModel(config: config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-sonnet-4"), transport: t), request)
        let content = try #require(try requestJSON(t)["messages"]?[0]?["content"])
        #expect(content[1] == ["type": "document", "source": ["type": "base64", "media_type": "application/pdf", "data": .string(Base64Appender.encode(pdf))]])
        #expect(content[2]?["type"] == "image")
    }

    @Test func chatCompletionsSendsAFilePart() async throws {
        let (request, pdf) = pdfRequest()
        let t = transport("")
        _ = await runTurn(ChatCompletionsModel(config: config("openai", base: "https://api.openai.com/v1", model: "gpt-4.1"), transport: t), request)
        let content = try #require(try requestJSON(t)["messages"]?[1]?["content"])
        #expect(content[1] == ["type": "file", "file": ["filename": "a1.pdf", "file_data": .string("data:application/pdf;base64," + Base64Appender.encode(pdf))]])
    }

    @Test func geminiSendsPDFAsInlineData() async throws {
        let (request, pdf) = pdfRequest()
        let t = transport("")
        _ = await runTurn(GeminiModel(config: config("gemini", base: "https://generativelanguage.googleapis.com/v1beta", model: "gemini-2.5-flash"), transport: t), request)
        let parts = try #require(try requestJSON(t)["contents"]?[0]?["parts"])
        #expect(parts[1] == ["inlineData": ["data": .string(Base64Appender.encode(pdf)), "mimeType": "application/pdf"]])
    }

    /// A file just read (not hashed yet: a pending key) is spliced like a stored one on every wire.
    @Test func aFileJustReadIsSplicedOnEveryWire() async throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]
        let pending = LoadedAttachment(name: "plate.png", format: .png, bytes: png).ref
        #expect(pending.isPending)
        let request = ChatRequest(system: "s", messages: [Message(role: .user, parts: [.text("what is this")], attachments: [pending])], tools: [])
        let models: [(FakeHTTPTransport) -> any ChatModel] = [
            { AnthropicModel(config: config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-sonnet-4"), transport: $0) },
            { ChatCompletionsModel(config: config("openai", base: "https://api.openai.com/v1", model: "gpt-4.1"), transport: $0) },
            { ResponsesModel(config: config("openai", base: "https://api.openai.com/v1", model: "gpt-4.1"), transport: $0) },
            { GeminiModel(config: config("gemini", base: "https://generativelanguage.googleapis.com/v1beta", model: "gemini-2.5-flash"), transport: $0) },
        ]
        for make in models {
            let t = transport("")
            _ = await runTurn(make(t), request)
            let sent = String(decoding: try #require(t.requests.first).body, as: UTF8.self)
            #expect(sent.contains(Base64Appender.encode(png)))
            #expect(!sent.contains("@@ofj-attachment"))
        }
    }

    /// An attachment whose place the body lacks stops the request before anything is sent.
    @Test func anAttachmentWithoutItsPlaceIsNotSent() throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]
        let ref = AttachmentRef(name: "p.png", format: .png, byteCount: png.count, sha256: SHA256Hasher.hex(png), source: MemoryAttachmentSource(png))
        #expect(throws: AgentError.self) { try AttachmentSplicer.splice(Array("{\"x\":1}".utf8), [ref]) }
    }

    /// A user's text that looks like a marker of another process is sent as written.
    @Test func textThatLooksLikeAMarkerIsNotReplaced() async throws {
        let (request, _) = pdfRequest()
        var r = request
        let fake = "@@ofj-attachment-zzz-\(String(repeating: "0", count: 64))@@"
        r.messages[0].parts = [.text(fake)]
        let t = transport("")
        _ = await runTurn(AnthropicModel(config: config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-sonnet-4"), transport: t), r)
        #expect(try requestJSON(t)["messages"]?[0]?["content"]?[0]?["text"]?.stringValue == fake)
    }
}

@Suite struct AttachmentLimitTests {
    func image(_ bytes: Int, format: AttachmentFormat = .jpeg) -> AttachmentRef {
        AttachmentRef(name: "x", format: format, byteCount: bytes, sha256: String(repeating: "a", count: 64), source: MemoryAttachmentSource([]))
    }
    func model(_ provider: String, _ name: String, family: String) -> any ChatModel {
        ScriptedChatModel(clock: VirtualClock(), provider: provider, model: name, continuationFamily: family) { _, _ in nil }
    }

    @Test func refusedBeforeSendingWithTheReasonAndWhatWorks() {
        let offline = OfflineAssistant(timeZone: .current, now: { 0 })
        #expect(ModelCatalog.attachmentRefusal([image(1_000)], model: offline)?.contains("offline assistant cannot see images") == true)
        let local = model("ollama", "llama3.1", family: "openai-chat")
        #expect(ModelCatalog.attachmentRefusal([image(1_000)], model: local)?.contains("--provider gemini") == true)
        let claude = model("anthropic", "claude-sonnet-4-5", family: "anthropic")
        #expect(ModelCatalog.attachmentRefusal([image(3_000_000)], model: claude) == nil)
        #expect(ModelCatalog.attachmentRefusal([image(4_500_000)], model: claude)?.contains("limit") == true) // 6 MB of base64
        let gemini = model("gemini", "gemini-2.5-flash", family: "gemini")
        #expect(ModelCatalog.attachmentRefusal([image(9_000_000), image(9_000_000, format: .pdf)], model: gemini)?.contains("in one message") == true)
        #expect(ModelCatalog.attachmentRefusal([image(9_000_000)], model: gemini) == nil)
        let lmstudioKnown = model("openai", "gpt-4.1", family: "openai-chat")
        #expect(ModelCatalog.attachmentRefusal([image(100, format: .pdf)], model: lmstudioKnown) == nil)
        let otherChat = model("deepseek", "deepseek-chat", family: "openai-chat")
        #expect(ModelCatalog.attachmentRefusal([image(100, format: .pdf)], model: otherChat)?.contains("PDF") == true)
        #expect(ModelCatalog.attachmentRefusal([], model: offline) == nil)
    }

    @Test func countsPerMessage() {
        var refs: [AttachmentRef] = []
        for _ in 0..<4 { #expect(AttachmentRules.refusal(adding: .png, to: refs) == nil); refs.append(image(1, format: .png)) }
        #expect(AttachmentRules.refusal(adding: .png, to: refs)?.contains("at most 4 images") == true)
        #expect(AttachmentRules.refusal(adding: .pdf, to: refs) == nil)
        refs.append(image(1, format: .pdf))
        #expect(AttachmentRules.refusal(adding: .pdf, to: refs)?.contains("at most 1 PDF") == true)
    }
}
