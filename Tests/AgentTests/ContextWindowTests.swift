// A window too small for the fixed part (system prompt + tool specs) is said before sending, with
// how to raise it and the size ofj needs; /context says where the window figure came from.
import Testing
import SQLiteKit
@testable import Agent

@Suite struct ContextWindowTests {
    static let bigTools = (0..<30).map { i in
        LookupTool(name: "lookup_\(i)", description: String(repeating: "Looks up one kind of thing in the journal. ", count: 7))
    }

    @Test func aServerWindowTooSmallForTheFixedPartFailsBeforeSendingWithTheFlag() async throws {
        let f = try ContextFixture(tools: Self.bigTools, source: .server("/props n_ctx"))
        let (_, outcome) = try await f.harness.ask(ContextFixture.question(0))
        #expect(outcome.phase == .failed)
        let line = try #require(outcome.error?.line)
        #expect(outcome.error?.kind == .contextOverflow)
        #expect(line.contains("4,000 tokens, read from the server (/props n_ctx)"), "\(line)")
        #expect(line.contains("too small for ofj's fixed prompt alone"))
        #expect(line.contains("ofj needs at least"))
        #expect(!line.contains("\n"))
        // The size it names is the sum of the parts it names: fixed part, the answer's room,
        // 2,048 for the conversation, over the 90% left after tool results' tenth.
        let figures = Self.figures(line, after: ["prompt alone (~", "; with ", "needs at least "])
        #expect(figures.count == 3, "\(line)")
        if figures.count == 3 {
            #expect(figures[2] == Int((Double(figures[0] + figures[1] + 2_048) / 0.9).rounded(.up)), "\(line)")
        }
        #expect(f.ordinaryRequests.isEmpty) // nothing was sent
        #expect(f.script.summaries == 0)
    }

    /// The whole number (digits and thousands commas) right after each marker in the line.
    static func figures(_ line: String, after markers: [String]) -> [Int] {
        markers.compactMap { marker in
            guard let r = line.range(of: marker) else { return nil }
            return Int(line[r.upperBound...].prefix { $0.isNumber || $0 == "," }.filter(\.isNumber))
        }
    }

    @Test func anAssumedWindowIsWarnedAboutOnceAndTheRequestStillGoes() async throws {
        let f = try ContextFixture(tools: Self.bigTools, source: .assumed)
        let outcomes = try await f.talk(0..<2)
        #expect(outcomes.allSatisfy { $0.phase == .completed })
        #expect(f.ordinaryRequests.count == 2)
        let warnings = f.harness.events.compactMap { if case .error(let e) = $0.kind { return e.line } else { return nil } }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("assumed") == true)
    }

    @Test func contextReportNamesTheSourceAndTheShortfall() throws {
        let f = try ContextFixture(tools: Self.bigTools, source: .config)
        let report = try f.assembler.report(threadID: "t1", model: f.model, systemPrompt: "You are a test assistant.",
                                            tools: ToolRegistry(Self.bigTools).specs, maxOutputTokens: 500)
        #expect(report.contains("4,000-token window, from config.json context_window"), "\(report)")
        #expect(report.contains("too small for ofj's fixed prompt alone"))
        let fits = try ContextFixture(window: 1_000_000, source: .server("/props n_ctx"))
        let ok = try fits.assembler.report(threadID: "t1", model: fits.model, systemPrompt: "s", tools: [], maxOutputTokens: 500)
        #expect(ok.contains("read from the server (/props n_ctx)"))
        #expect(!ok.contains("too small"))
    }
}
