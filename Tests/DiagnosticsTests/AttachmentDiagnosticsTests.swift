// Issue 19 §6: a run whose message carried attachments is recorded with their count, total bytes
// and media types only; the file names and anything inside the files never reach the outbox.
import Agent
import Foundation
import SQLiteKit
import Testing
@testable import Diagnostics

@Suite struct AttachmentDiagnosticsTests {
    /// A PNG whose tEXt chunk (where cameras and editors put metadata) carries a planted string.
    static func plantedPNG() -> [UInt8] {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let text = Array("Comment\0PLANTED-EXIF-8812 Blueberry Oatmeal 9137 kcal".utf8)
        png += [0, 0, 0, UInt8(text.count)] + Array("tEXt".utf8) + text + [0, 0, 0, 0]
        png += [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
        return png
    }
    static let pdf = Array("%PDF-1.4\n(PLANTED-PDF-TEXT-5531)\n%%EOF\n".utf8)

    @Test func aRunWithAttachmentsRecordsCountSizeAndTypesButNoNameOrBytes() async throws {
        let queue = try DatabaseQueue(path: ":memory:")
        var migrator = Migrator()
        ConversationStore.registerMigrations(into: &migrator)
        DiagnosticsOutbox.registerMigrations(into: &migrator)
        try queue.migrate(migrator)
        let outbox = DiagnosticsOutbox(queue: queue)
        let model = ScriptedChatModel(clock: SystemClock())
        model.enqueue(.text("a label"), .text("plain"))
        let runner = AgentRunner(store: ConversationStore(queue: queue), model: model, tools: ToolRegistry([]),
                                 approvals: ScriptedApprovalGate(fallback: .deny), clock: SystemClock(), ids: CountingIDSource(prefix: "run-"),
                                 diagnostics: OutboxRecorder(outbox: outbox, appVersion: "9.9.9"),
                                 configuration: AgentConfiguration(systemPrompt: "s"), assembler: FullTranscriptAssembler(), faults: nil)
        let png = Self.plantedPNG()
        let attachments = [
            AttachmentRef(name: "PLANTED-NAME-label.png", format: .png, byteCount: png.count, sha256: SHA256Hasher.hex(png),
                          source: MemoryAttachmentSource(png)),
            AttachmentRef(name: "PLANTED-NAME-menu.pdf", format: .pdf, byteCount: Self.pdf.count, sha256: SHA256Hasher.hex(Self.pdf),
                          source: MemoryAttachmentSource(Self.pdf)),
        ]
        let first = try runner.submit(threadID: "t1", text: "log this", attachments: attachments)
        _ = await runner.outcome(of: first.runID)
        let second = try runner.submit(threadID: "t1", text: "thanks")
        _ = await runner.outcome(of: second.runID)

        let runs = try outbox.allPending().filter { $0.operation == "run" }
        let withFiles = try #require(runs.first { $0.runID == first.runID })
        #expect(withFiles.attachmentCount == 2)
        #expect(withFiles.attachmentBytes == png.count + Self.pdf.count)
        #expect(withFiles.attachmentTypes == "image/png,application/pdf")
        #expect(withFiles.columns.contains { $0.name == "attachment_types" && $0.value == .text("image/png,application/pdf") })
        let plain = try #require(runs.first { $0.runID == second.runID })
        #expect(plain.attachmentCount == nil && plain.attachmentTypes == nil, "an earlier message's files are not counted again")

        // Every stored byte of the outbox, and the columns the sink would insert.
        let rows = try queue.read { db in try db.rows("SELECT * FROM diagnostics_outbox") }
        let dump = rows.map { row in row.values.map { "\($0.string ?? $0.double.map { String($0) } ?? "")" }.joined(separator: "|") }
            .joined(separator: "\n") + "\n" + runs.flatMap(\.columns).map { "\($0.value)" }.joined(separator: "|")
        #expect(dump.contains("image/png,application/pdf"))
        for needle in ["PLANTED", "label.png", "menu.pdf", "Blueberry", "9137", "Comment"] {
            #expect(!dump.contains(needle), "diagnostics hold \(needle)")
        }
    }

    @Test func typesOtherThanAttachmentMediaTypesCannotPass() {
        var d = AgentDiagnostic(operation: .run, status: "completed")
        d.attachmentTypes = "image/png,PLANTED-NAME.png,application/pdf,text/html"
        d.attachmentCount = -3
        let event = DiagnosticEvent(d, id: "e1", occurredAt: 1, appVersion: "1")
        #expect(event.attachmentTypes == "image/png,application/pdf")
        #expect(event.attachmentCount == nil)
        d.attachmentTypes = "PLANTED-NAME.png"
        #expect(DiagnosticEvent(d, id: "e2", occurredAt: 1, appVersion: "1").attachmentTypes == nil)
        // The outbox encoding round-trips the three fields.
        var ok = AgentDiagnostic(operation: .run, status: "completed")
        ok.attachmentCount = 1; ok.attachmentBytes = 42; ok.attachmentTypes = "image/jpeg"
        let decoded = DiagnosticEvent(json: DiagnosticEvent(ok, id: "e3", occurredAt: 1, appVersion: "1").json)
        #expect(decoded?.attachmentCount == 1 && decoded?.attachmentBytes == 42 && decoded?.attachmentTypes == "image/jpeg")
    }
}
