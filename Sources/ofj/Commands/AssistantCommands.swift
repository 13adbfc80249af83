// `ofj` (the interactive assistant) and `ofj ask` (one turn without the REPL): their specs, and the
// launcher that starts them (session recording included).
import Agent
import Base
import CommandLineKit
import Diagnostics
import Foundation
import HTTP
import Journal
import NutritionTools
import OutputSafety
import PackagedFoods
import Providers
import REPL
import Sync
import Transcripts
import Views
#if canImport(Glibc)
import Glibc
import Settings
#endif

extension OfjCommands {
    /// The root: `ofj` alone starts the REPL.
    static func assistant(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("ofj", summary: "start the assistant (REPL); --resume reopens the last thread; --record FILE saves the session as a transcript for a bug report (contains your journal and attached files, never keys)",
                    details: """
                        ofj \(ctx.version) — OpenFoodJournal for the terminal.
                        Data lives in $OFJ_HOME or ~/.local/share/ofj. NO_COLOR turns colour off.
                        Exit status: 0 success, 1 failure, 2 usage error, 130 interrupted, 143 terminated.
                        """,
                    options: [
                        .flag("--resume", "reopen the last thread", excludes: ["--thread"]),
                        .thread, .provider, .model, .record,
                        .flag("--version", short: "-V", "print the version"),
                    ],
                    access: .write,
                    action: .async { inv in try await Launcher(ctx).repl(inv) })
    }

    static func ask(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("ask", summary: "one turn without the REPL; writes are refused unless --yes or an allow rule in config.json (an \"always\" for a thread given in the REPL does not count; a deny rule refuses even with --yes), and each write made is shown as a ✓ line (also when the answer fails afterwards); --json prints the event stream as JSON lines; TEXT from stdin when piped or `-`",
                    details: """
                        Asks one question and prints the answer. Each write made is shown as it happens.
                        Without TEXT (stdin not a terminal) or with `-`, the message is read from stdin:
                          echo "what did I eat today" | ofj ask
                        --attach sends an image or PDF with the message (the type is read from the file):
                          ofj ask "save this to my food bank" --attach label.jpg
                        Exit status 1 when a write was refused.
                        """,
                    arguments: [PositionalSpec("TEXT", optional: true, variadic: true)],
                    options: [.flag("--yes", "allow the assistant's writes"), .flag("--json", "print the run's events as JSON lines"),
                              .value("--attach", "FILE", .file, "attach an image (JPEG, PNG, WebP, GIF) or a PDF; up to 4 images and 1 PDF", repeatable: true),
                              .thread, .provider, .model, .record],
                    access: .write,
                    action: .async { inv in try await Launcher(ctx).ask(inv) })
    }
}

extension Launcher {
    init(_ ctx: CLIContext) { self.init(environment: ctx.environment, paths: ctx.paths, version: ctx.version) }
}

struct Launcher {
    let environment: [String: String]
    let paths: AppPaths
    let version: String

    // MARK: - REPL

    @MainActor
    func repl(_ inv: CommandInvocation) async throws -> Int32 {
        let p = inv.arguments
        let app = try App(paths: paths, environment: environment, appVersion: version, access: inv.access)
        let recorder = try p.value("--record").map { try startRecording(to: $0, app: app, model: p.value("--model") ?? "recorded") }
        let record: @Sendable (any ChatModel) -> any ChatModel = { m in recorder.map { RecordingChatModel(m, recorder: $0) } ?? m }
        let model = record(try app.makeModel(provider: p.value("--provider"), model: p.value("--model")))
        let approvals = ApprovalBroker()
        let clock = SystemClock()
        let runner = try app.makeRunner(model: model, approvals: approvals)
        await app.flusher?.start()
        // Sync at start and soon after each committed change, in the background (never blocks the prompt).
        let sync = SyncCommand.background(queue: app.queue, environment: environment, version: version)
        await sync?.start()
        _ = try? runner.recoverInterruptedRuns()
        let modelBox = ModelBox(model)
        let tools = app.tools
        let assembler = app.makeAssembler()
        // A local server's context window is read now, so /context shows the real figure.
        Task { [model] in await assembler.prepareLimits(model: model) }
        var services = SessionServices(
            runner: runner, store: app.store, journal: app.journal, approvals: approvals, clock: clock, ids: UUIDSource(),
            model: { modelBox.value },
            switchModel: { provider, name in
                let current = modelBox.value
                let m = record(try app.makeModel(provider: provider ?? (name == nil ? nil : current.provider), model: name))
                modelBox.value = m
                Task { await assembler.prepareLimits(model: m) }
                return m
            },
            configureHint: App.configureHint,
            knownModels: { ModelCatalog.known.map(\.model) },
            diagnosticsStatus: { app.diagnosticsCommands.status().stdout.trimmingCharacters(in: .newlines) },
            contextReport: { threadID in
                let m = modelBox.value
                let c = app.configuration(for: m)
                let groups = try app.store.enabledToolGroups(threadID: threadID)
                let report = try assembler.report(threadID: threadID, model: m, systemPrompt: c.systemPrompt, contextNote: c.contextNote(),
                                                  tools: tools.specs(groups: groups), maxOutputTokens: c.maxOutputTokens)
                return tools.groupsLine(enabled: groups).map { report + "\n" + $0 } ?? report
            },
            compact: { threadID, focus in
                let m = modelBox.value
                let c = app.configuration(for: m)
                return try await assembler.compact(threadID: threadID, focus: focus, model: m, systemPrompt: c.systemPrompt, contextNote: c.contextNote(),
                                                   tools: tools.specs(groups: try app.store.enabledToolGroups(threadID: threadID)),
                                                   maxOutputTokens: c.maxOutputTokens)
            },
            version: version,
            isWriteTool: { tools.tool(named: $0)?.effect == .write })
        services.pinned = try? PinnedNutrients.load(configPath: paths.configPath)
        // The packaged-food client is made on the first scanned barcode, not at start (issue 39).
        let packaged = Toolbox.packagedClient(queue: app.journal.queue, environment: environment)
        services.scanBarcode = { [journal = app.journal] code in await PackagedCommands.scanner(journal: journal, foods: packaged.value)(code) }
        services.goalTool = tools.tool(named: NutritionToolName.setGoals.rawValue) as? any WriteTool
        services.sourcesReport = { [sources = app.sources] threadID in try sources.report(threadID: threadID) }
        services.writeExport = { text, path in try ThreadExport.write(text, to: path, force: false) }
        services.sourceLinks = { [sources = app.sources] threadID, runID in try sources.footer(threadID: threadID, runID: runID) }
        services.searchUsage = { [sources = app.sources] threadID, now, offset in try sources.usageLines(threadID: threadID, now: now, secondsFromGMT: offset) }
        services.syncNow = { [queue = app.queue, environment] in await SyncCommand.slash(sync, queue: queue, environment: environment) }
        services.ruleBook = app.rules
        if let recorder {
            // Attached files go into the recording, so that its replay attaches the same bytes.
            let load = services.loadAttachment
            services.loadAttachment = { name in
                do {
                    let loaded = try load(name)
                    recorder.attachment(name: name, bytes: loaded.bytes)
                    return loaded
                } catch {
                    // A failed read is a version too (no bytes), so later reads keep their place.
                    recorder.attachment(name: name, bytes: [])
                    throw error
                }
            }
        }
        // Said at the start too, not only at the first change: a rule file that does not load is not used at all.
        if case .failure(let e) = app.rules.load() {
            Console.err("ofj: approval rules not used: \(TerminalText.sanitize(e.description)); every change is asked about until it is fixed (ofj doctor lists every problem)\n")
        }
        // An id no thread starts with opens a new thread with that id, as before prefixes.
        var threadID = try p.value("--thread").map { try resolveThread($0, store: app.store, newIfNone: true) }
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
        // A file attached just before the end is stored (or the person is told it was not).
        if let lost = await AttachmentSaving.waitForAll() { Console.err("ofj: \(lost)\n") }
        _ = await app.flusher?.shutdown(timeout: 2)
        await sync?.shutdown(timeout: 2)
        if let recorder { try await finishRecording(recorder) }
        // A session ended by SIGTERM or SIGHUP says so to its parent (143 / 129), like `ofj ask`.
        // (Any termination since start counts, as the session's own loop does: one held by a
        // blocked mask until `install` is delivered there.)
        return Signals.terminations.value > 0 ? Signals.terminationStatus : status
    }

    // MARK: - recording

    func startRecording(to path: String, app: App, model: String) throws -> SessionRecorder {
        if FileManager.default.fileExists(atPath: path) {
            throw CLIError("\(path) already exists; choose another file for the recording", status: 2)
        }
        Console.err("ofj: recording to \(path); it will contain your journal, what you type and the files you attach (never keys), so review it before sharing\n")
        let backup = String(decoding: try app.journal.exportBackup(), as: UTF8.self)
        var rules: String?
        if case .success(let set) = app.rules.load(), !set.rules.isEmpty { rules = JSONValue.array(set.rules.map(\.json)).serialized }
        return SessionRecorder(path: path, model: model, startedAt: app.journal.now(), timeZone: app.journal.timeZone, backupJSON: backup,
                               rulesJSON: rules)
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

    func ask(_ inv: CommandInvocation) async throws -> Int32 {
        let p = inv.arguments
        // Counts taken before the handlers go in: a SIGTERM that came while ofj was starting (held
        // by a parent's blocked mask until `install` unblocks it) is a termination too.
        let terminationsBefore = Signals.terminations.value
        let interruptsBefore = Signals.interrupts.value
        Signals.install()
        let text = try Self.askText(p.positionals)
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw UsageError("ofj ask needs TEXT: ofj ask \"your question\", or the question on stdin", command: "ofj ask")
        }
        // Files are read and checked before anything is opened or sent.
        var attachments = try Self.loadAttachments(p.values("--attach"))
        let app = try App(paths: paths, environment: environment, appVersion: version, access: inv.access)
        let recorder = try p.value("--record").map { try startRecording(to: $0, app: app, model: p.value("--model") ?? "recorded") }
        var model = try app.makeModel(provider: p.value("--provider"), model: p.value("--model"))
        if let refusal = ModelCatalog.attachmentRefusal(attachments, model: model) { throw CLIError(refusal, status: 2) }
        if let recorder {
            model = RecordingChatModel(model, recorder: recorder)
            // A replay is a REPL session: the files are attached with /attach, then the message.
            for (path, a) in zip(p.values("--attach"), attachments) {
                guard let memory = a.source as? MemoryAttachmentSource else { continue }
                recorder.attachment(name: path, bytes: memory.bytes)
                recorder.input("/attach " + Self.quotedForREPL(path))
            }
            recorder.input(text)
        }
        let runner = try app.makeRunner(model: model, approvals: FixedApprovals(p.has("--yes") ? .allowOnce : .deny))
        _ = try? runner.recoverInterruptedRuns()
        let threadID = try p.value("--thread").map { try resolveThread($0, store: app.store) } ?? UUIDSource().next()
        let handle = try runner.submit(threadID: threadID, text: text, attachments: attachments, model: model)
        attachments = [] // the runner holds the bytes until they are stored, then lets them go
        var outcome: RunOutcome?
        var refusedWrites = 0
        // Whether stdout ends mid-line (streamed text), so a write's line starts on its own.
        var midLine = false
        let tools = app.tools
        // Counted from before the run started: a SIGTERM that arrives while this thread is still
        // getting here (a busy machine) is a termination too.
        let termBase = terminationsBefore
        var terminated: Bool { Signals.terminations.value != termBase }
        // On its own thread: a stream arriving at full speed can keep every task thread busy.
        let watcher = SignalWatch(since: (interruptsBefore, terminationsBefore)) {
            runner.interrupt(threadID: threadID)
            // SIGTERM must end the process within a second whatever the stream does; the clean
            // path below takes milliseconds, this is the backstop (SQLite keeps every commit whole).
            if Signals.terminations.value != termBase {
                usleep(900_000)
                _exit(Signals.terminationStatus)
            }
        }
        defer { watcher.cancel() }
        // Model text is sanitised as a stream (a sequence split across deltas is removed whole);
        // any other event ends the text.
        var textFilter = TerminalText.StreamFilter()
        for await event in runner.events where event.runID == handle.runID {
            // After SIGTERM nothing more is shown: what is still queued is saved already.
            if terminated, case .textDelta = event.kind { continue }
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
                case .ruleDecided(_, _, let decision, let line):
                    // A rule's decision is shown as it happens, so nothing is written unseen.
                    let shown = Terminal.sanitize(line, keepNewlines: false)
                    if decision == .allow {
                        Console.out((midLine ? "\n" : "") + "  ✓ " + shown + "\n")
                        midLine = false
                    } else {
                        Console.err("ofj: \(shown)\n")
                    }
                case .approvalRequested(let r):
                    let line = UntrustedContent.askLine(r, yes: p.has("--yes"))
                    if !line.isEmpty { Console.err("ofj: " + TerminalText.sanitize(line, keepNewlines: false) + "\n") }
                case .error(let e): Console.err("ofj: \(hidingSecrets(TerminalText.sanitize(e.line, keepNewlines: false)))\n")
                case .compaction(let line): Console.err("ofj: \(TerminalText.sanitize(line, keepNewlines: false))\n")
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
        // A file the database refused to store during the run gets one more try.
        let lostFiles = terminated ? nil : await AttachmentSaving.waitForAll()
        if let lostFiles { Console.err("ofj: \(lostFiles)\n") }
        // End the streamed answer's line; a failure that printed nothing leaves stdout empty.
        if midLine && !p.has("--json") { Console.out("\n") }
        // The web sources the answer used, as numbered links under it.
        if !p.has("--json"), !terminated, let links = try? app.sources.footer(threadID: threadID, runID: handle.runID) {
            Console.out(TerminalText.sanitize(links) + "\n")
        }
        _ = await app.flusher?.shutdown(timeout: terminated ? 0.3 : 2)
        // A write the answer made reaches the other machines now (at most 2 s; skipped while the
        // sync database is backing off; what is not sent stays pending).
        if !terminated { await SyncCommand.background(queue: app.queue, environment: environment, version: version)?.shutdown(timeout: 2) }
        if let recorder { try await finishRecording(recorder) }
        guard let outcome else { return terminated ? Signals.terminationStatus : 1 }
        if terminated && outcome.phase != .completed { return Signals.terminationStatus }
        switch outcome.phase {
        case .completed where outcome.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty && !terminated:
            // Nothing to show is not a success: scripts must be able to tell.
            Console.err("ofj: \(AgentError.emptyAnswerLine)\n")
            return 1
        case .completed where refusedWrites > 0 || lostFiles != nil:
            // The answer finished, but what was asked for was not done (or an attached file could
            // not be kept): scripts must be able to tell.
            return 1
        case .completed: return 0
        case .suspended, .cancelled:
            // SIGTERM exits as terminated (128 + 15), Ctrl-C as interrupted (128 + 2).
            return Signals.terminations.value != terminationsBefore ? 143 : 130
        default: return 1
        }
    }
}

extension Launcher {
    /// The message of `ofj ask`: the arguments, with `-` (or no arguments and a piped stdin) read
    /// from stdin, as `llm` does.
    /// `--attach` files, read and checked (type, completeness, counts); each refusal is one line
    /// saying which `--attach` it is (by position, never the file name) and what to do.
    static func loadAttachments(_ paths: [String]) throws -> [AttachmentRef] {
        var out: [AttachmentRef] = []
        for (i, path) in paths.enumerated() {
            let which = paths.count > 1 ? "--attach #\(i + 1)" : "--attach"
            do {
                let loaded = try AttachmentFile.load(path: path)
                if let refusal = AttachmentRules.refusal(adding: loaded.format, to: out, remedy: "ask about the others in another ofj ask") {
                    throw AttachmentError(refusal)
                }
                out.append(loaded.ref)
            } catch let error as AttachmentError {
                throw CLIError("\(which): \(error.line)", status: 2)
            }
        }
        return out
    }

    /// `path` as one word of a REPL `/attach` line: as is, or in double quotes when it holds a
    /// space, a quote or a backslash.
    static func quotedForREPL(_ path: String) -> String {
        guard path.contains(where: { " \t'\"\\".contains($0) }) else { return path }
        return "\"" + path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    static func askText(_ positionals: [String]) throws -> String {
        let fromStdin = positionals.contains("-") || (positionals.isEmpty && !Terminal.isTTY(STDIN_FILENO))
        guard fromStdin else { return positionals.joined(separator: " ") }
        let limit = 1 << 20
        var data = Data()
        while data.count <= limit {
            guard let chunk = try FileHandle.standardInput.read(upToCount: 65_536), !chunk.isEmpty else { break }
            data.append(chunk)
        }
        guard data.count <= limit else { throw UsageError("the message on stdin is over 1 MB; shorten it", command: "ofj ask") }
        let piped = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if positionals.isEmpty { return piped }
        return positionals.map { $0 == "-" ? piped : $0 }.joined(separator: " ")
    }

    /// A thread by full id or any unique prefix; an ambiguous prefix lists the matches.
    func resolveThread(_ given: String, store: ConversationStore, newIfNone: Bool = false) throws -> String {
        switch try store.findThread(idPrefix: given) {
        case .found(let t): return t.id
        case .none where newIfNone && !given.trimmingCharacters(in: .whitespaces).isEmpty: return given
        case .none:
            throw CLIError("no thread with id \(UsageError.quote(given)); leave out --thread to start a new one", status: 2)
        case .ambiguous(let matches):
            throw CLIError(Terminal.sanitize(ThreadMatch.ambiguityMessage(given, matches), keepNewlines: false), status: 2)
        }
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
