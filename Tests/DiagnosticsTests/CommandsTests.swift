// `diag status|flush|export`: text, exit codes, CSV with keyset paging, safe file writing.
import Foundation
import TestSupport
import Testing
@testable import Diagnostics

@Suite struct CommandsTests {
    func setup(configured: Bool = true) throws -> (FakeTurso, DiagnosticsOutbox, DiagnosticsCommands) {
        let fake = try FakeTurso(token: "sk-test-SECRET123456")
        let outbox = try Fixtures.outbox()
        let flusher = configured ? DiagnosticsFlusher(outbox: outbox, sink: try Fixtures.sink(fake, token: "sk-test-SECRET123456"), appVersion: "0.1.0") : nil
        return (fake, outbox, DiagnosticsCommands(outbox: outbox, flusher: flusher))
    }

    @Test func statusWhenNotConfigured() async throws {
        let (_, outbox, commands) = try setup(configured: false)
        try outbox.enqueue(Fixtures.event(1))
        let out = await commands.run(["status"])
        #expect(out.exitCode == 0)
        #expect(out.stdout.contains("not configured"))
        #expect(out.stdout.contains("pending: 1"))
        #expect(out.stdout.contains("delivered: 0"))
        #expect(out.stdout.contains("dropped: 0"))
        #expect(out.stdout.contains("last error: none"))
        let flush = await commands.run(["flush"])
        #expect(flush.exitCode == 1)
        #expect(flush.stderr.contains("TURSO_DATABASE_URL"))
    }

    @Test func flushThenStatus() async throws {
        let (fake, outbox, commands) = try setup()
        for i in 1...3 { try outbox.enqueue(Fixtures.event(i)) }
        let flush = await commands.run(["flush"])
        #expect(flush.exitCode == 0)
        #expect(flush.stdout == "delivered 3, pending 0\n")
        fake.mode = .status(503, "busy")
        try outbox.enqueue(Fixtures.event(4))
        let failed = await commands.run(["flush"])
        #expect(failed.exitCode == 1)
        #expect(failed.stderr.contains("HTTP 503"))
        let status = await commands.run(["status"])
        #expect(status.stdout.contains("diagnostics: configured (with token)"))
        #expect(status.stdout.contains("pending: 1"))
        #expect(status.stdout.contains("delivered: 3"))
        #expect(status.stdout.contains("last error: the diagnostics database failed (HTTP 503)"))
        #expect(!status.stdout.contains("SECRET"))
    }

    @Test func exportPagesEverythingOnceInOrder() async throws {
        let (fake, outbox, commands) = try setup()
        let now = Date().timeIntervalSince1970
        for i in 1...12 { try outbox.enqueue(Fixtures.event(i, at: now - Double(13 - i))) }
        let out = await commands.export(to: nil, pageSize: 5)
        #expect(out.exitCode == 0, "\(out.stderr)")
        let lines = out.stdout.split(separator: "\r\n").map(String.init)
        #expect(lines.first == TursoSink.exportColumns.joined(separator: ","))
        #expect(lines.count == 13)
        #expect(lines.dropFirst().map { String($0.prefix(36)) } == (1...12).map { Fixtures.event($0).id })
        // Pages of 5: three SELECTs, the later ones with the keyset condition.
        let selects = fake.sent.filter { $0.body.contains("SELECT id, occurred_at") }
        #expect(selects.count == 3)
        #expect(selects.dropFirst().allSatisfy { $0.body.contains("(occurred_at, id) > (?, ?)") })
    }

    @Test func exportStopsWhenTheSinkIgnoresTheCursor() async throws {
        let (fake, outbox, commands) = try setup()
        let now = Date().timeIntervalSince1970
        for i in 1...12 { try outbox.enqueue(Fixtures.event(i, at: now - Double(13 - i))) }
        fake.ignoresCursor = true
        let dir = TempDirectory(prefix: "ofj-export")
        let out = await commands.export(to: dir.file("out.csv"), pageSize: 5)
        #expect(out.exitCode == 1)
        #expect(out.stderr == "ofj: export failed: the diagnostics sink sent the same events again instead of the next page (it ignores the paging cursor); check the TURSO_DATABASE_URL server\n")
        // Before: the same page was asked for again and again, without end.
        #expect(fake.sent.filter { $0.body.contains("SELECT id, occurred_at") }.count == 2)
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.csv")))
    }

    @Test func exportIsCappedInRowsAndBytesAndSaysSo() async throws {
        let (_, outbox, commands) = try setup()
        let now = Date().timeIntervalSince1970
        for i in 1...12 { try outbox.enqueue(Fixtures.event(i, at: now - Double(13 - i))) }
        let byRows = await commands.export(to: nil, pageSize: 5, maxRows: 7)
        #expect(byRows.exitCode == 0)
        #expect(byRows.stdout.split(separator: "\r\n").count == 8) // header + 7
        #expect(byRows.stderr.contains("export stopped at 7 events, the most one export holds; use --since for a shorter span"))
        let header = CSV.line(TursoSink.exportColumns).utf8.count
        let all = await commands.export(to: nil, pageSize: 5)
        let rowBytes = all.stdout.utf8.count - header
        let byBytes = await commands.export(to: nil, pageSize: 5, maxBytes: header + rowBytes / 2)
        #expect(byBytes.exitCode == 0)
        #expect(byBytes.stdout.utf8.count <= header + rowBytes / 2)
        #expect(byBytes.stderr.contains("export stopped at"))
        #expect(all.stderr.isEmpty)
    }

    @Test func exportHonoursSince() async throws {
        let (_, outbox, commands) = try setup()
        let now = Date().timeIntervalSince1970
        try outbox.enqueue(Fixtures.event(1, at: now - 3 * 3600))
        try outbox.enqueue(Fixtures.event(2, at: now - 60))
        let out = await commands.run(["export", "--since", "1h"])
        #expect(out.exitCode == 0)
        #expect(!out.stdout.contains(Fixtures.event(1).id))
        #expect(out.stdout.contains(Fixtures.event(2).id))
        #expect(await commands.run(["export", "--since", "soon"]).exitCode == 2)
        #expect(await commands.run(["export", "--bogus"]).exitCode == 2)
        #expect(await commands.run(["nope"]).exitCode == 2)
        #expect(await commands.run([]).exitCode == 2)
    }

    @Test func exportWritesFilesAtomicallyAndNeverClobbers() async throws {
        let (_, outbox, commands) = try setup()
        try outbox.enqueue(Fixtures.event(1))
        let dir = TempDirectory()
        let path = dir.file("diag.csv")
        let first = await commands.run(["export", "-o", path])
        #expect(first.exitCode == 0)
        #expect(first.stdout == "exported 1 events to \(path)\n")
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written.contains(Fixtures.event(1).id))
        // Owner-only whatever the umask (it was 0644 before).
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o600)

        try "keep me".write(toFile: path, atomically: true, encoding: .utf8)
        let refused = await commands.run(["export", "-o", path])
        #expect(refused.exitCode == 1)
        #expect(refused.stderr.contains("already exists"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "keep me")

        let forced = await commands.run(["export", "-o", path, "--force"])
        #expect(forced.exitCode == 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains(Fixtures.event(1).id))
        // No temporary files are left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["diag.csv"])

        let missingDir = await commands.run(["export", "-o", dir.file("no/such/dir.csv")])
        #expect(missingDir.exitCode == 1)
    }

    @Test func exportFailsClearlyWhenTheSinkIsDown() async throws {
        let (fake, outbox, commands) = try setup()
        try outbox.enqueue(Fixtures.event(1))
        fake.mode = .down("Connection refused")
        let out = await commands.run(["export"])
        #expect(out.exitCode == 1)
        #expect(out.stderr.contains("export failed"))
        #expect(out.stderr.split(separator: "\n").count == 1, "one line: what happened and what to do")
        #expect(out.stderr.contains("retry later"))
        #expect(try outbox.status().pending == 1)
    }

    @Test func exportRowsCarryTheEventFields() async throws {
        let (_, outbox, commands) = try setup()
        var d = Fixtures.diagnostic(.retry, status: "retrying")
        d.httpStatus = 503
        d.errorMessage = "server overloaded, retry later"
        d.retryCount = 2
        let time = Date().timeIntervalSince1970 - 10
        try outbox.enqueue(DiagnosticEvent(d, id: "csv-1", occurredAt: time, appVersion: "9.9.9"))
        let out = await commands.export(to: nil)
        let lines = out.stdout.split(separator: "\r\n").map(String.init)
        #expect(lines.count == 2)
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        // The message contains a comma, so it is quoted; split on the quoted field first.
        let row = try #require(lines.last)
        #expect(row.contains("\"server overloaded, retry later\""))
        let plain = row.replacingOccurrences(of: "\"server overloaded, retry later\"", with: "MSG")
            .split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(plain.count == header.count)
        let field = Dictionary(uniqueKeysWithValues: zip(header, plain))
        #expect(field["id"] == "csv-1")
        #expect(field["occurred_at"] == ISOTime.format(time))
        #expect(field["expires_at"] == ISOTime.format(time + 14 * 86_400))
        #expect(field["operation"] == "retry")
        #expect(field["status"] == "retrying")
        #expect(field["http_status"] == "503")
        #expect(field["retry_count"] == "2")
        #expect(field["input_tokens"] == "100")
        #expect(field["error_message"] == "MSG")
        #expect(field["app_version"] == "9.9.9")
        #expect(field["tool_name"] == "")
    }

    // Sink rows come from outside (anyone holding the token can write them): an export shown in
    // a terminal must not clear the screen, set the clipboard (OSC 52) or reorder text.
    @Test func exportSanitisesHostileSinkRows() async throws {
        let (fake, outbox, commands) = try setup()
        try outbox.enqueue(Fixtures.event(1, at: Date().timeIntervalSince1970 - 10))
        #expect(await commands.run(["flush"]).exitCode == 0)
        try fake.db.write { db in
            try db.execute("UPDATE \(TursoSink.table) SET error_message = ?, tool_name = ?, status = ?, operation = ?",
                           ["boom\u{1B}]52;c;ZXZpbA==\u{07}\u{1B}[2J\u{1B}[H now", "\ttool", "\u{9B}31mok\u{202E}dlrow",
                            "\r=HYPERLINK(\"x\")\nsecond line"])
        }
        for out in [await commands.export(to: nil), await commands.export(to: nil, pageSize: 1)] {
            #expect(out.exitCode == 0, "\(out.stderr)")
            let controls = out.stdout.unicodeScalars.filter {
                ($0.value < 0x20 && $0 != "\r" && $0 != "\n") || (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value)
            }
            #expect(controls.isEmpty, "\(controls.map { String($0.value, radix: 16) })")
            #expect(out.stdout.contains("boom now"))
            #expect(out.stdout.contains(",' tool,"))
            #expect(out.stdout.contains("okdlrow"))
            #expect(out.stdout.contains("\"'=HYPERLINK(\"\"x\"\") second line\""))
            // Rows still end in CRLF and nothing else: one header and one row.
            #expect(out.stdout.components(separatedBy: "\r\n").count == 3)
        }
        // Cells that start with a tab or CR are neutralised like formulas.
        #expect(CSV.cell(.text("\t=1")) == "' =1")
        #expect(CSV.cell(.text("\r-1")) == "'-1")
    }

    @Test func csvQuotingAndFormulaNeutralising() {
        #expect(CSV.quote("a,b") == "\"a,b\"")
        #expect(CSV.quote("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(CSV.cell(.text("=SUM(A1)")) == "'=SUM(A1)")
        #expect(CSV.cell(.integer(-3)) == "-3")
        #expect(CSV.cell(.null) == "")
    }

    @Test func durations() {
        #expect(DiagnosticsCommands.parseDuration("14d") == Double(14 * 86_400))
        #expect(DiagnosticsCommands.parseDuration("48h") == Double(48 * 3600))
        #expect(DiagnosticsCommands.parseDuration("30m") == 1800.0)
        #expect(DiagnosticsCommands.parseDuration("2w") == Double(14 * 86_400))
        #expect(DiagnosticsCommands.parseDuration("d") == nil)
        #expect(DiagnosticsCommands.parseDuration("-1d") == nil)
    }
}
