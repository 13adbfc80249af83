// Issue 17, REPL 2 and 3: answers and approval cards on real terminals of 40, 80 and 120 columns.
import Foundation
import Testing
import TestSupport
@testable import REPL

@Suite(.serialized) struct WrapTerminalTests {
    let home = TempDirectory(prefix: "ofj-wrap")

    func environment(_ server: LoopbackHTTPServer) -> [String: String] {
        ["OFJ_HOME": home.file("data"), "XDG_STATE_HOME": home.file("state"), "XDG_CONFIG_HOME": home.file("config"),
         "HOME": home.path, "TERM": "xterm", "LANG": "C.UTF-8", "OFJ_PROVIDER": "openai", "OFJ_MODEL": "test-model",
         "OPENAI_BASE_URL": server.url("/v1"), "OPENAI_API_KEY": "sk-test-NOT-A-REAL-KEY-123456"]
    }

    /// The answer streamed in 7-character deltas, as a Chat Completions stream.
    static func stream(_ text: String) -> String {
        var events = ""
        var rest = Substring(text)
        while !rest.isEmpty {
            let piece = String(rest.prefix(7))
            rest = rest.dropFirst(7)
            let json = String(decoding: try! JSONSerialization.data(withJSONObject: ["content": piece]), as: UTF8.self)
            events += #"data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":\#(json)}]}"# + "\n\n"
        }
        events += #"data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"# + "\n\n"
        return events + "data: [DONE]\n\n"
    }

    @Test(arguments: [(40, MarkdownStreamTests.golden40), (80, MarkdownStreamTests.golden80), (120, MarkdownStreamTests.golden120)])
    func answersWrapToTheTerminal(columns: Int, golden: String) async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.eventStream(Self.stream(MarkdownStreamTests.answer)))
        let binary = try #require(OfjBinary.path, "build ofj first (swift build)")
        let p = try PTYProcess(executable: binary, arguments: [], environment: environment(server), columns: UInt16(columns))
        #expect(await p.read(until: "/help for commands") != nil)
        _ = await p.read(timeout: 0.3)
        p.send("how was my day?\r")
        let screen = stripANSI(try #require(await p.read(until: " tokens · ")))
        // The first line follows the erased spinner on the same line; the rest is exactly the golden screen.
        let expected = golden.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().joined(separator: "\n")
        #expect(screen.contains("Your day so far\n" + expected), "\(screen)")
        p.send("/exit\r")
        #expect(await p.waitForExit() == 0)
    }

    /// The offline assistant's start-up hint wraps at word boundaries (it once split OFJ_PROVIDER).
    @Test func theStartUpHintWrapsAtWords() async throws {
        let binary = try #require(OfjBinary.path, "build ofj first (swift build)")
        let env = ["OFJ_HOME": home.file("data"), "XDG_STATE_HOME": home.file("state"), "XDG_CONFIG_HOME": home.file("config"),
                   "HOME": home.path, "TERM": "xterm", "LANG": "C.UTF-8"]
        let p = try PTYProcess(executable: binary, arguments: [], environment: env, columns: 100)
        let seen = await p.read(until: "/help for commands")
        let rest = await p.read(timeout: 1.0)
        let screen = stripANSI((seen ?? "") + rest).replacingOccurrences(of: "\r\n", with: "\n")
        #expect(screen.contains("to use a real model,\nset OFJ_PROVIDER and its key"), "\(screen.debugDescription)")
        p.send("/exit\r")
        #expect(await p.waitForExit() == 0)
    }

    /// A terminal narrowed between two answers: the second wraps to the new width.
    @Test func aResizedTerminalIsFollowed() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.eventStream(Self.stream(MarkdownStreamTests.answer)))
        server.enqueue(.eventStream(Self.stream(MarkdownStreamTests.answer)))
        let binary = try #require(OfjBinary.path, "build ofj first (swift build)")
        let p = try PTYProcess(executable: binary, arguments: [], environment: environment(server), columns: 120)
        #expect(await p.read(until: "/help for commands") != nil)
        _ = await p.read(timeout: 0.3)
        p.send("how was my day?\r")
        let wide = stripANSI(try #require(await p.read(until: " tokens · ")))
        #expect(wide.contains("You had 2 eggs for breakfast and a large latte with oat milk, which comes to about 420 kcal and 25 g of protein; that\n"))
        p.resize(columns: 40)
        _ = await p.read(timeout: 0.3)
        p.send("and now?\r")
        let narrow = stripANSI(try #require(await p.read(until: " tokens · ")))
        let expected = MarkdownStreamTests.golden40.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().joined(separator: "\n")
        #expect(narrow.contains(expected), "\(narrow)")
        p.send("/exit\r")
        #expect(await p.waitForExit() == 0)
    }

    /// Journal views (/day, /goals) wrap at word boundaries too, continuation lines indented.
    @Test(arguments: [40, 80])
    func journalViewsWrapToTheTerminal(columns: Int) async throws {
        let server = try LoopbackHTTPServer()
        let binary = try #require(OfjBinary.path, "build ofj first (swift build)")
        let p = try PTYProcess(executable: binary, arguments: [], environment: environment(server), columns: UInt16(columns))
        #expect(await p.read(until: "/help for commands") != nil)
        _ = await p.read(timeout: 0.3)
        p.send("/day\r")
        // At 40 columns the last "g" wraps onto a line of its own: read up to it, then the rest.
        let head = try #require(await p.read(until: "fat 0 g/78"))
        let screen = stripANSI(head + (await p.read(timeout: 0.5)))
        let view = screen.split(separator: "\n").drop { !$0.hasPrefix("Today") }
        #expect(view.count >= 3, "\(screen)")
        for line in view { #expect(TerminalTextWidth.columns(String(line)) <= columns, "\(line)") }
        if columns == 40 {
            #expect(view.joined(separator: "\n").contains("""
                  Goals (FDA defaults): calories 0
                    kcal/2,000 kcal · protein 0 g/50 g ·
                    carbohydrate 0 g/275 g · fat 0 g/78
                    g
                """), "\(screen)")
        } else {
            #expect(view.joined(separator: "\n").contains("""
                  Goals (FDA defaults): calories 0 kcal/2,000 kcal · protein 0 g/50 g ·
                    carbohydrate 0 g/275 g · fat 0 g/78 g
                """), "\(screen)")
        }
        p.send("/exit\r")
        #expect(await p.waitForExit() == 0)
    }

    static let longLog = """
        data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"log_food","arguments":"{\\"name\\":\\"Grilled chicken breast with roasted vegetables and quinoa\\",\\"meal\\":\\"dinner\\",\\"nutrients\\":{\\"energy_kcal\\":540,\\"protein_g\\":45,\\"fat_g\\":14,\\"carbohydrate_g\\":52,\\"fiber_g\\":8}}"}}]}}]}

        data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

        data: [DONE]


        """

    @Test(arguments: [40, 80, 120])
    func approvalCardsWrapToTheTerminal(columns: Int) async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.eventStream(Self.longLog))
        server.enqueue(.eventStream(ApprovalCardTerminalTests.done))
        let binary = try #require(OfjBinary.path, "build ofj first (swift build)")
        let p = try PTYProcess(executable: binary, arguments: [], environment: environment(server), columns: UInt16(columns))
        #expect(await p.read(until: "/help for commands") != nil)
        _ = await p.read(timeout: 0.3)
        p.send("log my dinner\r")
        let screen = stripANSI(try #require(await p.read(until: "[a]lways")))
        let card = screen.split(separator: "\n").drop { !$0.hasPrefix("┌ Approve") }
        #expect(card.count >= 4, "\(screen)")
        for line in card { #expect(TerminalTextWidth.columns(String(line)) <= columns, "\(line)") }
        let text = card.joined(separator: "\n")
        switch columns {
        case 40:
            #expect(text.contains("""
                ┌ Approve: log_food
                │ Log to the journal: Grilled chicken
                │   breast with roasted vegetables and
                │   quinoa — 1 serving
                """), "\(text)")
            #expect(text.contains("""
                │ Nutrients: 540 kcal, protein 45 g,
                │   carbohydrate 52 g, fat 14 g
                │ Also: fiber 8 g
                └ [y]es/[n]o/[e]dit/[a]lways:
                """), "\(text)")
        case 80:
            #expect(text.contains("""
                │ Log to the journal: Grilled chicken breast with roasted vegetables and quinoa
                │   — 1 serving
                """), "\(text)")
            #expect(text.hasSuffix("└ [y]es / [n]o / [e]dit / [a]lways (this thread or a rule): "))
        default:
            #expect(text.contains("│ Log to the journal: Grilled chicken breast with roasted vegetables and quinoa — 1 serving\n"), "\(text)")
            #expect(text.contains("│ Nutrients: 540 kcal, protein 45 g, carbohydrate 52 g, fat 14 g\n"))
        }
        p.send("n")
        #expect(await p.read(until: "OK.") != nil)
        p.send("/exit\r")
        #expect(await p.waitForExit() == 0)
    }
}
