// Approval cards on a real terminal: keys typed before a card is drawn never answer it.
import Foundation
import Testing
import TestSupport
import SQLiteKit

@Suite(.serialized) struct ApprovalCardTerminalTests {
    let home = TempDirectory(prefix: "ofj-card")

    static let logApple = """
        data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"log_food","arguments":""}}]}}]}

        data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"name\\":\\"Apple\\",\\"meal\\":\\"lunch\\",\\"nutrients\\":{\\"energy_kcal\\":95}}"}}]}}]}

        data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

        data: [DONE]


        """

    static let done = """
        data: {"id":"c2","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"OK."}}]}

        data: {"id":"c2","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}

        data: [DONE]


        """

    func environment(_ server: LoopbackHTTPServer) -> [String: String] {
        ["OFJ_HOME": home.file("data"), "XDG_STATE_HOME": home.file("state"), "XDG_CONFIG_HOME": home.file("config"),
         "HOME": home.path, "TERM": "xterm", "LANG": "C.UTF-8", "OFJ_PROVIDER": "openai", "OFJ_MODEL": "test-model",
         "OPENAI_BASE_URL": server.url("/v1"), "OPENAI_API_KEY": "sk-test-NOT-A-REAL-KEY-123456"]
    }

    func scalar(_ sql: String) throws -> String {
        let db = try Database(path: home.file("data/ofj.sqlite"))
        let value = try db.scalar(sql)
        return value.string ?? value.int.map(String.init) ?? "\(value)"
    }

    @Test func keysTypedBeforeTheCardNeverAnswerIt() async throws {
        let server = try LoopbackHTTPServer()
        // The model takes 4 s to answer; meanwhile the person types "y" and Enter.
        server.enqueue(.init(status: 200, headers: [("Content-Type", "text/event-stream")], body: Array(Self.logApple.utf8),
                             framing: .chunked, delayBeforeHead: 4))
        server.enqueue(.eventStream(Self.done))
        let binary = try #require(OfjBinary.path, "build ofj first (swift build)")
        let p = try PTYProcess(executable: binary, arguments: [], environment: environment(server))
        #expect(await p.read(until: "/help for commands") != nil)
        _ = await p.read(timeout: 0.3)
        p.send("log an apple\r")
        // Typed once the request reached the model, so surely before the card (4 s later), even on a busy machine.
        #expect(await server.waitUntil(timeout: 20) { $0.requests.count >= 1 || $0.openConnections >= 1 })
        p.send("y\r") // typed ahead, before any card exists
        let card = await p.read(until: "[a]lways (this thread or a rule): ")
        if card == nil { Issue.record("no card: \(await p.read(timeout: 0.5).debugDescription)") }
        // The typed-ahead "y" did not answer the card: it is still waiting, nothing was written.
        let meanwhile = await p.read(timeout: 1.0)
        #expect(!meanwhile.contains("logged"), "\(meanwhile)")
        #expect(try scalar("SELECT count(*) FROM journal_entries") == "0")
        // Only y, n, e or a answer; any other key asks again.
        p.send("x")
        #expect(await p.read(until: "Please answer y, n, e or a.") != nil)
        p.send("n\r")
        // One read: the denial line and the answer after it may arrive together.
        let after = await p.read(until: "OK.")
        #expect(after?.contains("not done: declined") == true, "\(after ?? "")")
        #expect(try scalar("SELECT count(*) FROM journal_entries") == "0")
        #expect(try scalar("SELECT group_concat(decision) FROM agent_approvals") == "deny")
        p.send("/exit\r")
        #expect(await p.waitForExit() == 0)
    }

    /// Issue 17, defect 1: Ctrl-C at a card, `/continue`, the card again, `y` — was recorded as a
    /// denial (3 of 3 tries) and the model was told the person declined.
    @Test func yAtTheCardShownAgainAfterCtrlCIsRecordedAsYes() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.eventStream(Self.logApple))
        server.enqueue(.eventStream(Self.done))
        let binary = try #require(OfjBinary.path, "build ofj first (swift build)")
        let p = try PTYProcess(executable: binary, arguments: [], environment: environment(server))
        #expect(await p.read(until: "/help for commands") != nil)
        _ = await p.read(timeout: 0.3)
        p.send("log an apple\r")
        #expect(await p.read(until: "[a]lways (this thread or a rule): ") != nil)
        _ = await p.read(timeout: 0.5) // the person reads the card
        p.send("\u{03}")
        #expect(await p.read(until: "Type /continue to resume") != nil)
        _ = await p.read(timeout: 0.3)
        p.send("/continue\r")
        #expect(await p.read(until: "[a]lways (this thread or a rule): ") != nil)
        _ = await p.read(timeout: 0.5)
        p.send("y\r")
        let after = await p.read(until: "OK.")
        if after == nil { Issue.record("screen: \(await p.read(timeout: 0.5).debugDescription)") }
        #expect(after?.contains("✓") == true && after?.contains("logged Apple") == true, "\(after ?? "")")
        #expect(after?.contains("declined") == false)
        #expect(try scalar("SELECT count(*) FROM journal_entries") == "1")
        #expect(try scalar("SELECT group_concat(decision) FROM agent_approvals") == "allow_once")
        // The model was told the change was made, not that the person declined.
        let last = try #require(server.requests.last)
        let body = String(decoding: last.body, as: UTF8.self)
        #expect(body.contains("logged") && !body.contains("declined"))
        p.send("/exit\r")
        #expect(await p.waitForExit() == 0)
    }

    /// Issue 25 §2: a card showing "Oatmeal — 150 kcal" wrote 1,500 kcal because another process
    /// changed the food while the card was open. Now nothing is written and a new card shows the
    /// change as it is now.
    @Test func aFoodChangedByAnotherProcessWhileTheCardIsOpenIsNotWritten() async throws {
        let backup = home.file("foods.json")
        try #"""
            {"schema_version": 1, "exported_at": "2026-11-29T10:00:00.000Z", "entries": [],
             "foods": [{"id": "11111111-1111-1111-1111-111111111111", "kind": "single", "name": "Oatmeal",
                        "serving": {"quantity": 40, "unit": "g", "grams": 40}, "mappings": [], "nutrients": {"energy_kcal": 150},
                        "ingredients": [], "recipe_servings": 1, "calculator_ingredients": [], "is_on_shelf": false,
                        "is_manually_archived": false, "created_at": "2026-11-01T08:00:00.000Z", "updated_at": "2026-11-01T08:00:00.000Z"}]}
            """#.write(toFile: backup, atomically: true, encoding: .utf8)
        let server = try LoopbackHTTPServer()
        let imported = try await OfjBinary.run(["backup", "import", backup], environment: environment(server))
        #expect(imported.status == 0, "\(imported.stderr)")
        let call = Self.logApple.replacingOccurrences(of: "log_food", with: "log_saved_food")
            .replacingOccurrences(of: #"{\"name\":\"Apple\",\"meal\":\"lunch\",\"nutrients\":{\"energy_kcal\":95}}"#,
                                  with: #"{\"food_id\":\"11111111-1111-1111-1111-111111111111\",\"meal\":\"lunch\"}"#)
        #expect(call.contains("11111111-1111"))
        server.enqueue(.eventStream(call))
        server.enqueue(.eventStream(Self.done))
        let binary = try #require(OfjBinary.path, "build ofj first (swift build)")
        let p = try PTYProcess(executable: binary, arguments: [], environment: environment(server))
        #expect(await p.read(until: "/help for commands") != nil)
        _ = await p.read(timeout: 0.3)
        p.send("log my oatmeal\r")
        let first = await p.read(until: "[a]lways (this thread or a rule): ")
        #expect(first?.contains("Nutrients: 150 kcal") == true, "\(first ?? "")")
        // Another process changes the food while the card is open.
        do {
            let db = try Database(path: home.file("data/ofj.sqlite"))
            try db.execute("UPDATE journal_saved_foods SET nutrients = 'energy_kcal=1500', updated_at = updated_at + 5000")
        }
        p.send("y\r")
        let second = await p.read(until: "[a]lways (this thread or a rule): ")
        if second == nil { Issue.record("no second card: \(await p.read(timeout: 0.5).debugDescription)") }
        #expect(second?.contains("Changed since the card you approved: the Food Bank food Oatmeal was changed; nothing was written.") == true,
                "\(second ?? "")")
        #expect(second?.contains("Nutrients: 1500 kcal") == true)
        #expect(try scalar("SELECT count(*) FROM journal_entries") == "0")
        p.send("n\r")
        #expect(await p.read(until: "OK.") != nil)
        #expect(try scalar("SELECT count(*) FROM journal_entries") == "0")
        p.send("/exit\r")
        #expect(await p.waitForExit() == 0)
    }

    // MARK: - Issue 17 §REPL 6: single keys and editing the arguments

    /// `y` alone answers (no Enter needed); the next message is read normally, with no stray
    /// empty prompt from the missing Enter.
    @Test func aSingleKeyAnswersWithoutEnter() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.eventStream(Self.logApple))
        server.enqueue(.eventStream(Self.done))
        server.enqueue(.eventStream(Self.done))
        let binary = try #require(OfjBinary.path, "build ofj first (swift build)")
        let p = try PTYProcess(executable: binary, arguments: [], environment: environment(server))
        #expect(await p.read(until: "/help for commands") != nil)
        _ = await p.read(timeout: 0.3)
        p.send("log an apple\r")
        let card = await p.read(until: "└ [y]es / [n]o / [e]dit / [a]lways (this thread or a rule): ").map(stripANSI)
        // The activity line carried the spinner while the tool prepared, then stayed as plain text.
        #expect(card?.contains("  · preparing to log Apple ⠋ 0s · Ctrl-C to stop") == true, "\(card ?? "")")
        #expect(card?.contains("  · preparing to log Apple\n┌ Approve: log_food") == true, "\(card ?? "")")
        p.send("y")
        let after = await p.read(until: "OK.")
        // The key is echoed after the question (which the read above consumed).
        #expect(after.map(stripANSI)?.hasPrefix("y\n") == true, "\(after ?? "")")
        #expect(after?.contains("logged Apple") == true)
        #expect(try scalar("SELECT count(*) FROM journal_entries") == "1")
        _ = await p.read(timeout: 0.5)
        p.send("thanks\r")
        let next = await p.read(until: "OK.").map(stripANSI)
        #expect(next != nil)
        #expect(next?.contains("› \n›") == false, "\(next ?? "")")
        #expect(server.requests.count == 3)
        p.send("/exit\r")
        #expect(await p.waitForExit() == 0)
    }

    /// `e` opens the arguments as JSON in $EDITOR; an invalid edit is refused with the reason and
    /// the card stays as it was; a valid edit shows a new card, and the edited arguments are what
    /// is written, recorded in the ledger and reported to the model.
    @Test func eEditsTheArgumentsAndTheEditIsWhatIsWritten() async throws {
        let editor = home.file("editor.sh")
        // First run: invalid (energy as text); second run: Apple → Pear, 95 → 57.
        try """
            #!/bin/sh
            if [ ! -f "\(home.file("edited-once"))" ]; then
              touch "\(home.file("edited-once"))"
              sed -i 's/"energy_kcal": 95/"energy_kcal": "lots"/' "$1"
            else
              sed -i 's/Apple/Pear/; s/95/57/' "$1"
            fi
            """.write(toFile: editor, atomically: true, encoding: .utf8)
        chmod(editor, 0o755)
        let server = try LoopbackHTTPServer()
        server.enqueue(.eventStream(Self.logApple))
        server.enqueue(.eventStream(Self.done))
        var env = environment(server)
        env["EDITOR"] = editor
        let binary = try #require(OfjBinary.path, "build ofj first (swift build)")
        let p = try PTYProcess(executable: binary, arguments: [], environment: env)
        #expect(await p.read(until: "/help for commands") != nil)
        _ = await p.read(timeout: 0.3)
        p.send("log an apple\r")
        #expect(await p.read(until: "[e]dit / [a]lways (this thread or a rule): ") != nil)
        p.send("e")
        let refused = await p.read(until: "[e]dit / [a]lways (this thread or a rule): ").map(stripANSI)
        #expect(refused?.contains("Your edit was not used (invalid arguments for 'log_food'") == true, "\(refused ?? "")")
        #expect(refused?.contains("Apple") == true)
        p.send("e")
        let card = await p.read(until: "[e]dit / [a]lways (this thread or a rule): ").map(stripANSI)
        #expect(card?.contains("Edited by you; the change is now:") == true, "\(card ?? "")")
        #expect(card?.contains("Pear") == true && card?.contains("57 kcal") == true, "\(card ?? "")")
        #expect(try scalar("SELECT count(*) FROM journal_entries") == "0")
        p.send("y")
        #expect(await p.read(until: "OK.") != nil)
        #expect(try scalar("SELECT name FROM journal_entries") == "Pear")
        #expect(try scalar("SELECT group_concat(decision || ':' || source) FROM agent_approvals") == "allow_once:person_edited")
        #expect(try scalar("SELECT arguments FROM agent_ledger").contains("Pear"))
        let body = String(decoding: try #require(server.requests.last).body, as: UTF8.self)
        #expect(body.contains("arguments_edited_by_person") && body.contains("Pear"), "\(body)")
        p.send("/exit\r")
        #expect(await p.waitForExit() == 0)
    }

    /// Piped input keeps line mode: the answer is a line and the question is printed with it.
    @Test func pipedAnswersAreLinesAndTheQuestionIsPrinted() async throws {
        let server = try LoopbackHTTPServer()
        server.enqueue(.eventStream(Self.logApple))
        server.enqueue(.eventStream(Self.done))
        let r = try await OfjBinary.run([], input: "log an apple\ny\n", environment: environment(server))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("└ [y]es / [n]o / [a]lways (this thread or a rule): y\n"), "\(r.stdout)")
        #expect(!r.stdout.contains("[e]dit"))
        #expect(try scalar("SELECT count(*) FROM journal_entries") == "1")
    }
}
