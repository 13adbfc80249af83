// Starts the interactive assistant, `ask`, `replay`, `diag` and `doctor`.
import Agent
import Diagnostics
import Foundation
import Journal
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
            Console.err("ofj: \(e.description)\n")
            return e.status
        } catch let e as UsageError {
            Console.err("ofj: \(e.message) (see ofj --help)\n")
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
        let services = SessionServices(
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
        let termBase = Signals.terminations.value
        var terminated: Bool { Signals.terminations.value != termBase }
        // On its own thread: a stream arriving at full speed can keep every task thread busy.
        let watcher = SignalWatch {
            runner.interrupt(threadID: threadID)
            // SIGTERM must end the process within a second whatever the stream does; the clean
            // path below takes milliseconds, this is the backstop (SQLite keeps every commit whole).
            if Signals.terminations.value != termBase {
                usleep(900_000)
                _exit(Signals.terminationStatus)
            }
        }
        defer { watcher.cancel() }
        for await event in runner.events where event.runID == handle.runID {
            // After SIGTERM nothing more is shown: what is still queued is saved already.
            if terminated, case .textDelta = event.kind { continue }
            if let recorder, case .approvalRequested = event.kind { recorder.answer(p.has("--yes") ? "y" : "n") }
            if case .approvalRequested = event.kind, !p.has("--yes") { refusedWrites += 1 }
            if p.has("--json") {
                Console.out((event.jsonLine + "\n"))
            } else {
                switch event.kind {
                case .textDelta(let t):
                    let shown = Terminal.sanitize(t)
                    Console.out(shown)
                    if !shown.isEmpty { midLine = !shown.hasSuffix("\n") }
                case .toolFinished(_, let name, .succeeded, let summary) where tools.tool(named: name)?.effect == .write:
                    // A committed write is shown as it happens (as in the REPL): if the answer
                    // fails afterwards, the person knows the change was made and does not ask for
                    // it again in a new thread.
                    Console.out((midLine ? "\n" : "") + "  ✓ " + Terminal.sanitize(summary, keepNewlines: false) + "\n")
                    midLine = false
                case .approvalRequested(let r) where !p.has("--yes"):
                    Console.err("ofj: refused \(r.toolName) (writes need --yes in ofj ask)\n")
                case .error(let e): Console.err("ofj: \(e.line)\n")
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
        _ = await app.flusher?.shutdown(timeout: terminated ? 0.3 : 2)
        if let recorder { try await finishRecording(recorder) }
        guard let outcome else { return 1 }
        if terminated && outcome.phase != .completed { return Signals.terminationStatus }
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
        print("ofj \(version)")
        print("data: \(paths.databasePath)")
        print("config: \(paths.configPath)\(FileManager.default.fileExists(atPath: paths.configPath) ? "" : " (none)")")
        for problem in files.problems where problem != files.credentialsProblem { print("-- \(problem)") }
        print(ProviderDoctor.render(lines))
        return 0
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
