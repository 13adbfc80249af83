// Attachment benchmark (issue 19), built -O -wmo by tools/bench/attach.sh: one `ask`-like run
// against a loopback Chat Completions server, with or without a 10 MB image attached.
// Prints: mode, milliseconds from "attach" to the moment the request is handed to libcurl
// (reading and checking the file, saving the message, assembling and base64-splicing the body;
// the file's SHA-256 and its storage run in the background meanwhile, AttachmentSaving.swift),
// peak RSS in KB (the run ends after the file is stored, so the peak includes that too).
import Agent
import Foundation
import HTTP
import Providers
import SQLiteKit
import Glibc

/// Records when the body is handed to the transport, and its size.
final class TimingTransport: HTTPTransport, @unchecked Sendable {
    let inner: any HTTPTransport
    var sentAt: Double = 0
    var bodyBytes = 0
    init(_ inner: any HTTPTransport) { self.inner = inner }
    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        sentAt = Date().timeIntervalSince1970
        bodyBytes = request.sharedBody?.count ?? request.body.count
        return try await inner.send(request)
    }
}

func maxRSSKB() -> Int {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return usage.ru_maxrss
}

@main struct AttachBench {
    static func main() async throws {
        let args = CommandLine.arguments
        guard args.count == 5 else { print("usage: attach-bench MODE(none|attach) FILE DB PORT"); exit(2) }
        let (mode, file, dbPath, port) = (args[1], args[2], args[3], args[4])
        let queue = try DatabaseQueue(path: dbPath)
        var migrator = Migrator()
        ConversationStore.registerMigrations(into: &migrator)
        try queue.migrate(migrator)
        // Experiment switch: ATTACH_BENCH_NO_AUTOCHECKPOINT=1 turns SQLite's WAL auto-checkpoint off for
        // this connection, to see how much of the store time is the checkpoint after the commit.
        if ProcessInfo.processInfo.environment["ATTACH_BENCH_NO_AUTOCHECKPOINT"] == "1" {
            try queue.write { try $0.execute("PRAGMA wal_autocheckpoint = 0") }
        }
        let store = ConversationStore(queue: queue)
        let transport = TimingTransport(CurlTransport())
        let model = ChatCompletionsModel(config: AdapterConfig(provider: "openai", baseURL: "http://127.0.0.1:\(port)/v1", apiKey: "k",
                                                               model: "gpt-4.1", keyVariable: "OPENAI_API_KEY"), transport: transport)
        let runner = AgentRunner(store: store, model: model, tools: ToolRegistry([]), approvals: ScriptedApprovalGate(fallback: .deny),
                                 configuration: AgentConfiguration(systemPrompt: "You read labels."))
        let rssBefore = maxRSSKB()
        let start = Date().timeIntervalSince1970
        var attachments: [AttachmentRef] = []
        if mode == "attach" {
            let loaded = try AttachmentFile.load(path: file)
            if let refusal = ModelCatalog.attachmentRefusal([loaded.ref], model: model) { print(refusal); exit(1) }
            attachments = [loaded.ref]
        }
        let loadedAt = Date().timeIntervalSince1970
        let handle = try runner.submit(threadID: UUID().uuidString, text: "log this", attachments: attachments, model: model)
        let storedAt = Date().timeIntervalSince1970
        let expectedBase64 = attachments.first?.base64Count ?? 0
        attachments = [] // as ofj ask does: the runner holds the bytes until they are stored
        let outcome = await runner.outcome(of: handle.runID)
        guard case .completed? = outcome?.phase else { print("run did not complete: \(String(describing: outcome))"); exit(1) }
        guard transport.bodyBytes >= expectedBase64 else { print("the request body does not carry the file"); exit(1) }
        let ms = (transport.sentAt - start) * 1000
        func f(_ x: Double) -> String { String(format: "%.1f", x * 1000) }
        print("\(mode) \(String(format: "%.1f", ms)) ms_to_send \(transport.bodyBytes) body_bytes \(maxRSSKB()) peak_rss_kb \(rssBefore) rss_before_kb"
              + " read \(f(loadedAt - start)) submit \(f(storedAt - loadedAt)) assemble+encode \(f(transport.sentAt - storedAt))")
    }
}
