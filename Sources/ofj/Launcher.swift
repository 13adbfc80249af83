// Starts the interactive assistant, `ask`, `replay`, `diag` and `doctor`.
import Agent
import Diagnostics
import Foundation
import Journal
import OutputSafety
import Providers
import REPL
import Transcripts
#if canImport(Glibc)
import Glibc
#endif

struct Launcher {
    let arguments: [String]
    let environment: [String: String]
    let paths: AppPaths
    let version: String

    func run() async -> Int32 {
        do {
            switch arguments.first {
            case "ask": return try await ask(Array(arguments.dropFirst()))
            case "doctor": return try doctor()
            case "diag": return try await diag(Array(arguments.dropFirst()))
            case "replay": return await ReplayCommand(version: version).run(Array(arguments.dropFirst()))
            case nil: return try await repl([])
            case let first? where first.hasPrefix("-"): return try await repl(arguments)
            case let other?:
                throw CLIError("unknown command '\(Terminal.sanitize(other, keepNewlines: false).prefix(30))' (see ofj --help)", status: 2)
            }
        } catch let e as CLIError {
            Console.err("ofj: \(TerminalText.sanitize(e.description))\n")
            return e.status
        } catch let e as UsageError {
            Console.err("ofj: \(TerminalText.sanitize(e.message, keepNewlines: false)) (see ofj --help)\n")
            return 2
        } catch {
            Console.err("ofj: \(Terminal.sanitize("\(error)", keepNewlines: false))\n")
            return 1
        }
    }

    // MARK: - REPL

    @MainActor
    func repl(_ args: [String]) async throws -> Int32 {
        let p = try ArgumentSpec(flags: ["--resume"], options: ["--provider", "--model", "--thread", "--record"]).parse(args)
        guard p.positionals.isEmpty else { throw CLIError("unexpected '\(p.positionals[0].prefix(30))'; to ask one question use: ofj ask \"…\"", status: 2) }
        let app = try App(paths: paths, environment: environment, appVersion: version)
        let recorder = try p.value("--record").map { try startRecording(to: $0, app: app, model: p.value("--model") ?? "recorded") }
        let record: @Sendable (any ChatModel) -> any ChatModel = { m in recorder.map { RecordingChatModel(m, recorder: $0) } ?? m }
        let model = record(try app.makeModel(provider: p.value("--provider"), model: p.value("--model")))
        Toolbox.warmUp()
        let approvals = ApprovalBroker()
        let clock = SystemClock()
        let runner = try app.makeRunner(model: model, approvals: approvals)
        await app.flusher?.start()
        _ = try? runner.recoverInterruptedRuns()
        let modelBox = ModelBox(model)
        let tools = app.tools
        let assembler = app.makeAssembler()
        var services = SessionServices(
            runner: runner, store: app.store, journal: app.journal, approvals: approvals, clock: clock, ids: UUIDSource(),
            model: { modelBox.value },
            switchModel: { provider, name in
                let current = modelBox.value
                let m = record(try app.makeModel(provider: provider ?? (name == nil ? nil : current.provider), model: name))
                modelBox.value = m
                return m
            },
            configureHint: App.configureHint,
            knownModels: { ModelCatalog.known.map(\.model) },
            diagnosticsStatus: { app.diagnosticsCommands.status().stdout.trimmingCharacters(in: .newlines) },
            contextReport: { threadID in
                let m = modelBox.value
                let c = app.configuration(for: m)
                return try assembler.report(threadID: threadID, model: m, systemPrompt: c.systemPrompt, tools: tools.specs, maxOutputTokens: c.maxOutputTokens)
            },
            compact: { threadID, focus in
                let m = modelBox.value
                let c = app.configuration(for: m)
                return try await assembler.compact(threadID: threadID, focus: focus, model: m, systemPrompt: c.systemPrompt, tools: tools.specs,
                                                   maxOutputTokens: c.maxOutputTokens)
            },
            version: version,
            isWriteTool: { tools.tool(named: $0)?.effect == .write })
        services.sourcesReport = { [sources = app.sources] threadID in try sources.report(threadID: threadID) }
        var threadID = p.value("--thread")
        if p.has("--resume") && threadID == nil { threadID = try app.store.listThreads(limit: 1).first?.id }
        let isTTY = Terminal.isTTY(STDIN_FILENO) && Terminal.isTTY(STDOUT_FILENO)
        let reader: any LineReader
        if isTTY, let editor = LibEditLineReader(historyPath: paths.historyPath) {
            reader = editor
        } else {
            reader = PlainLineReader()
        }
        Signals.install()
        let style = Style.detect(environment: environment)
        var input: any SessionInput = LineReaderInput(reader: reader)
        var output: any Output = StandardOutput()
        if let recorder {
            input = RecordingInput(input, recorder: recorder)
            output = RecordingOutput(output, recorder: recorder)
        }
        let session = REPLSession(services: services, input: input, output: output, style: style,
                                  width: isTTY ? Terminal.width() : 0, interrupts: Signals.interrupts,
                                  terminations: Signals.terminations, threadID: threadID)
        let status = await session.runInteractive()
        runner.interruptAll()
        _ = await app.flusher?.shutdown(timeout: 2)
        if let recorder { try await finishRecording(recorder) }
        return status
    }

    // MARK: - recording

    func startRecording(to path: String, app: App, model: String) throws -> SessionRecorder {
        if FileManager.default.fileExists(atPath: path) {
            throw CLIError("\(path) already exists; choose another file for the recording", status: 2)
        }
        Console.err("ofj: recording to \(path); it will contain your journal and what you type (never keys), so review it before sharing\n")
        let backup = String(decoding: try app.journal.exportBackup(), as: UTF8.self)
        return SessionRecorder(path: path, model: model, startedAt: app.journal.now(), timeZone: app.journal.timeZone, backupJSON: backup)
    }

    @MainActor
    func finishRecording(_ recorder: SessionRecorder) async throws {
        do { try recorder.write() } catch { throw CLIError("could not write the recording \(recorder.path): check the folder is writable") }
        if !(await ReplayCommand.settle(path: recorder.path, version: version)) {
            Console.err("ofj: the recording could not be replayed offline; it is kept as recorded\n")
        }
        Console.err("ofj: recorded \(recorder.path); replay it with: ofj replay \(recorder.path)\n")
    }

    // MARK: - ask

    func ask(_ args: [String]) async throws -> Int32 {
        let p = try ArgumentSpec(flags: ["--yes", "--json"], options: ["--thread", "--provider", "--model", "--record"]).parse(args)
        let text = p.positionals.joined(separator: " ")
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw CLIError("usage: ofj ask \"your question\" [--yes] [--json]", status: 2) }
        let app = try App(paths: paths, environment: environment, appVersion: version)
        let recorder = try p.value("--record").map { try startRecording(to: $0, app: app, model: p.value("--model") ?? "recorded") }
        var model = try app.makeModel(provider: p.value("--provider"), model: p.value("--model"))
        if let recorder {
            model = RecordingChatModel(model, recorder: recorder)
            recorder.input(text)
        }
        Toolbox.warmUp()
        let runner = try app.makeRunner(model: model, approvals: FixedApprovals(p.has("--yes") ? .allowOnce : .deny))
        _ = try? runner.recoverInterruptedRuns()
        if let given = p.value("--thread"), try app.store.thread(given) == nil {
            throw CLIError("no thread with id \(Terminal.sanitize(String(given.prefix(40)), keepNewlines: false)); leave out --thread to start a new one", status: 2)
        }
        let threadID = p.value("--thread") ?? UUIDSource().next()
        Signals.install()
        let handle = try runner.submit(threadID: threadID, text: text, model: model)
        var outcome: RunOutcome?
        var refusedWrites = 0
        // Whether stdout ends mid-line (streamed text), so a write's line starts on its own.
        var midLine = false
        let tools = app.tools
        let watcher = Task.detached {
            let base = Signals.interrupts.value
            let termBase = Signals.terminations.value
            while !Task.isCancelled {
                if Signals.interrupts.value != base || Signals.terminations.value != termBase { runner.interrupt(threadID: threadID); return }
                try? await Task.sleep(nanoseconds: 20_000_000)
            }
        }
        defer { watcher.cancel() }
        // Model text is sanitised as a stream (a sequence split across deltas is removed whole);
        // any other event ends the text.
        var textFilter = TerminalText.StreamFilter()
        for await event in runner.events where event.runID == handle.runID {
            if case .textDelta = event.kind {} else { textFilter.reset() }
            if let recorder, case .approvalRequested = event.kind { recorder.answer(p.has("--yes") ? "y" : "n") }
            if case .approvalRequested = event.kind, !p.has("--yes") { refusedWrites += 1 }
            if p.has("--json") {
                Console.out((TerminalText.escapingJSON(event.jsonLine) + "\n"))
            } else {
                switch event.kind {
                case .textDelta(let t):
                    let shown = textFilter.feed(t)
                    Console.out(shown)
                    if !shown.isEmpty { midLine = !shown.hasSuffix("\n") }
                case .toolFinished(_, let name, .succeeded, let summary) where tools.tool(named: name)?.effect == .write:
                    // A committed write is shown as it happens (as in the REPL): if the answer
                    // fails afterwards, the person knows the change was made and does not ask for
                    // it again in a new thread.
                    Console.out((midLine ? "\n" : "") + "  ✓ " + Terminal.sanitize(summary, keepNewlines: false) + "\n")
                    midLine = false
                case .approvalRequested(let r) where !p.has("--yes"):
                    Console.err("ofj: refused \(TerminalText.sanitize(r.toolName, keepNewlines: false)) (writes need --yes in ofj ask)\n")
                case .error(let e): Console.err("ofj: \(hidingSecrets(TerminalText.sanitize(e.line, keepNewlines: false)))\n")
                default: break
                }
            }
            if case .finished(let o) = event.kind {
                outcome = o
                if o.phase == .suspended && !p.has("--json") {
                    // Ctrl-C or SIGTERM: say how to pick the answer up again (`/continue` alone is
                    // a REPL command, which `ask` users may not know).
                    if midLine { Console.out("\n") }
                    midLine = false
                    Console.err("ofj: Interrupted; what arrived is saved. To resume it: ofj --resume, then /continue\n")
                }
                break
            }
        }
        if !p.has("--json") { Console.out("\n") }
        _ = await app.flusher?.shutdown(timeout: 2)
        if let recorder { try await finishRecording(recorder) }
        guard let outcome else { return 1 }
        switch outcome.phase {
        case .completed where refusedWrites > 0:
            // The answer finished, but what was asked for was not done: scripts must be able to tell.
            return 1
        case .completed: return 0
        case .suspended, .cancelled: return 130
        default: return 1
        }
    }

    // MARK: - diag

    func diag(_ args: [String]) async throws -> Int32 {
        if args.contains("--help") || args.isEmpty {
            print(DiagnosticsCommands.usage)
            return args.isEmpty ? 2 : 0
        }
        let app = try App(paths: paths, environment: environment, appVersion: version)
        let result = await app.diagnosticsCommands.run(args)
        if !result.stdout.isEmpty { Console.out(result.stdout) }
        if !result.stderr.isEmpty { Console.err(result.stderr) }
        return result.exitCode
    }

    // MARK: - doctor

    func doctor() throws -> Int32 {
        // The same loader as start-up; the doctor reports a broken file instead of stopping at it.
        let files = ProviderFiles.load(environment: environment)
        let lines = ProviderDoctor.report(environment: environment, file: files.file, credentials: files.credentials,
                                          credentialsError: files.credentialsProblem)
        // Doctor output ends up in bug reports: credentials inside URLs (user:pass@, ?key=…) are
        // hidden and nothing from a file or the environment can send escape sequences.
        func show(_ line: String) { Console.out(URLCredentials.redact(TerminalText.sanitize(line)) + "\n") }
        show("ofj \(version)")
        show("data: \(paths.databasePath)")
        show("config: \(paths.configPath)\(FileManager.default.fileExists(atPath: paths.configPath) ? "" : " (none)")")
        for problem in files.problems where problem != files.credentialsProblem { show("-- \(problem)") }
        show(ProviderDoctor.render(lines))
        if let sink = environment["TURSO_DATABASE_URL"], !sink.isEmpty { show("diagnostics: delivered to \(sink)") }
        // A warning, not a failure (the exit status stays 0): the journal works, but other users
        // of this machine can read it.
        for warning in Self.permissionWarnings(paths) { show("warning: " + warning) }
        return 0
    }
}

extension Launcher {
    /// The data folder and database when group or others can read them (files ofj creates are
    /// 0600 and the folder 0700, but an existing OFJ_HOME may have been made by hand).
    static func permissionWarnings(_ paths: AppPaths) -> [String] {
        var warnings: [String] = []
        if PrivateFile.isReadableByOthers(paths.dataDirectory) == true, let mode = PrivateFile.permissions(paths.dataDirectory) {
            warnings.append("the data folder \(paths.dataDirectory) can be read by other users (mode \(String(mode, radix: 8))); "
                + "to fix: chmod 700 '\(paths.dataDirectory)'")
        }
        for file in [paths.databasePath, paths.databasePath + "-wal", paths.databasePath + "-shm"] {
            if PrivateFile.isReadableByOthers(file) == true, let mode = PrivateFile.permissions(file) {
                warnings.append("\(file) can be read by other users (mode \(String(mode, radix: 8))); to fix: chmod 600 '\(file)'")
            }
        }
        return warnings
    }
}

/// The model the REPL uses now; `/model` and `/provider` replace it.
final class ModelBox: @unchecked Sendable {
    private let lock = NSLock()
    private var model: any ChatModel
    init(_ model: any ChatModel) { self.model = model }
    var value: any ChatModel {
        get { lock.lock(); defer { lock.unlock() }; return model }
        set { lock.lock(); model = newValue; lock.unlock() }
    }
}
