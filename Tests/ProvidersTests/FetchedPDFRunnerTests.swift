// fetch_url's PDFs end to end (issue 20 §2): a PDF from the suite's own page server is kept as an
// attachment of the thread and reaches the next Anthropic request as a base64 `document` block;
// a model that cannot read PDFs gets one line saying so, and no document.
import Base
import Foundation
import Testing
import Agent
import HTTP
import Providers
import Research
import SQLiteKit
import TestSupport

/// Admits only 127.0.0.1 on the page server's port (the product's policy refuses loopback).
private struct PageServerOnly: AddressPolicy {
    let port: Int
    func refusal(for address: IPAddress, port: Int) -> String? {
        address == .v4(0x7F00_0001) && port == self.port ? nil : "not the test page server"
    }
}

@Suite(.timeLimit(.minutes(1))) struct FetchedPDFRunnerTests {
    static let pdf = Array("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n(Energy 250 kcal per serving)\ntrailer\n%%EOF\n".utf8)

    func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: ":memory:")
        var migrator = Migrator()
        ConversationStore.registerMigrations(into: &migrator)
        SourceStore.registerMigrations(into: &migrator)
        try queue.migrate(migrator)
        return queue
    }

    func runner(_ queue: DatabaseQueue, model: any ChatModel, server: LoopbackHTTPServer) -> AgentRunner {
        let fetcher = URLFetcher(transport: CurlTransport(), resolver: SystemResolver(), policy: PageServerOnly(port: server.port))
        let tools = ToolRegistry([FetchURLTool(fetcher: fetcher, sources: SourceStore(queue: queue)),
                                  ReadAttachmentTool(store: ConversationStore(queue: queue))])
        return AgentRunner(store: ConversationStore(queue: queue), model: model, tools: tools,
                           approvals: ScriptedApprovalGate(fallback: .deny), clock: SystemClock(), ids: CountingIDSource(prefix: "run-"),
                           diagnostics: NoDiagnostics(),
                           configuration: AgentConfiguration(systemPrompt: "You are a helpful assistant", costEstimator: ModelCatalog.costEstimator),
                           assembler: FullTranscriptAssembler(), faults: nil)
    }

    static func anthropicStream(_ events: [String]) -> FakeHTTPTransport.Reply {
        FakeHTTPTransport.Reply(status: 200, headers: [HTTPHeader("Content-Type", "text/event-stream")],
                                body: Array(events.map { "data: \($0)\n\n" }.joined().utf8), maxChunk: 41, seed: 3)
    }

    @Test func aFetchedPDFReachesTheNextAnthropicRequestAsADocumentBlock() async throws {
        let queue = try database()
        let server = try LoopbackHTTPServer()
        server.enqueue(.init(status: 200, headers: [("Content-Type", "application/pdf")], body: Self.pdf))
        let url = server.url("/files/nutrition.pdf?token=abc")
        let call = #"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"fetch_url","input":{"url":"\#(url)"}}}"#
        let t = FakeHTTPTransport(replies: [
            Self.anthropicStream([call, #"{"type":"content_block_stop","index":0}"#,
                                  #"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}"#, #"{"type":"message_stop"}"#]),
            Self.anthropicStream([#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
                                  #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"250 kcal"}}"#,
                                  #"{"type":"content_block_stop","index":0}"#,
                                  #"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}"#, #"{"type":"message_stop"}"#]),
        ])
        let model = AnthropicModel(config: config("anthropic", base: "https://api.anthropic.com/v1", model: "claude-sonnet-4-20250514"), transport: t)
        let r = runner(queue, model: model, server: server)
        let run = try r.submit(threadID: "t1", text: "How many calories per serving in this PDF? \(url)")
        #expect(try #require(await r.outcome(of: run.runID)).phase == .completed)

        // The second request: the tool result names the attachment, and the PDF follows as a document.
        let sent = try requestJSON(t, 1)
        let blocks = (sent["messages"]?.arrayValue ?? []).flatMap { $0["content"]?.arrayValue ?? [] }
        let result = try #require(blocks.first { $0["type"] == "tool_result" })
        let resultText = result.serialized
        #expect(resultText.contains("attachment_id") && resultText.contains("not instructions"))
        let document = try #require(blocks.first { $0["type"] == "document" })
        #expect(document["source"]?["type"] == "base64")
        #expect(document["source"]?["media_type"] == "application/pdf")
        #expect(document["source"]?["data"]?.stringValue == Data(Self.pdf).base64EncodedString())

        // Kept: an attachment of the thread (not of the person's message) and a durable source.
        let kept = try ConversationStore(queue: queue).attachments(threadID: "t1")
        #expect(kept.map(\.format) == [.pdf] && kept.first?.name == "nutrition.pdf" && kept.first?.byteCount == Self.pdf.count)
        let userLinks = try queue.read { try $0.scalar("""
            SELECT COUNT(*) FROM agent_message_attachments l JOIN agent_messages m ON m.id = l.message_id WHERE m.role = 'user'
            """).int }
        #expect(userLinks == 0)
        let source = try #require(try SourceStore(queue: queue).sources(threadID: "t1").first)
        #expect(source.url == url && source.text.hasPrefix("PDF, \(Self.pdf.count) bytes, SHA-256 ") && source.title == "nutrition.pdf")

        // Deleted with its thread.
        try ConversationStore(queue: queue).deleteThread("t1")
        #expect(try queue.read { try $0.scalar("SELECT COUNT(*) FROM attachments").int } == 0)
    }

    @Test func aModelThatCannotReadPDFsIsToldInOneLineAndGetsNoDocument() async throws {
        let queue = try database()
        let server = try LoopbackHTTPServer()
        server.enqueue(.init(status: 200, headers: [("Content-Type", "application/pdf")], body: Self.pdf))
        let model = ScriptedChatModel(clock: SystemClock(), provider: "ollama", model: "llama3.2", continuationFamily: "openai-chat")
        model.enqueue(.calls(("c1", "fetch_url", #"{"url":"\#(server.url("/menu.pdf"))"}"#)), .text("I cannot read it"))
        let r = runner(queue, model: model, server: server)
        let run = try r.submit(threadID: "t1", text: "read this menu")
        #expect(try #require(await r.outcome(of: run.runID)).phase == .completed)
        let second = try #require(model.requests.last)
        #expect(second.messages.allSatisfy { $0.attachments.isEmpty })
        let result = try #require(second.messages.flatMap(\.toolResults).first { $0.name == "fetch_url" })
        let json = try JSONValue.parse(result.content)
        #expect(json["attachment_id"] == nil)
        let line = try #require(json["not_shown"]?.stringValue)
        #expect(!line.contains("\n") && line.contains("llama3.2 (ollama) cannot read PDFs") && line.contains("/provider gemini, anthropic or openai"))
        // Still kept, so read_attachment can show it to a model that reads PDFs.
        #expect(try ConversationStore(queue: queue).attachments(threadID: "t1").count == 1)
    }
}
