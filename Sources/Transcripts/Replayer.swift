// Runs a transcript through the real REPL session, agent runner, tools and database; only the
// model is scripted. Compares what was seen with what the file expects.
import Agent
import Base
import CommandLineKit
import Diagnostics
import Foundation
import HTTP
import Journal
import REPL
import SQLiteKit
import Synchronization
import Views

public struct ReplayResult: Sendable {
    public var path: String
    public var passed: Bool
    /// A readable diff of every mismatch (empty when passed).
    public var report: String
    /// The file rewritten with the actual output (for --update).
    public var updatedText: String
}

/// Builds what a replayed process needs around its database (tools, system prompt, extra
/// inspections); the `ofj` executable supplies the product's toolbox.
public struct ReplayEnvironment: Sendable {
    public var makeTools: @Sendable (JournalStore) -> ToolRegistry
    public var systemPrompt: @Sendable (JournalStore) -> String
    /// The volatile tail of each request (the journal clock's date and time), as the product sends it.
    public var contextNote: @Sendable (JournalStore) -> String
    public var registerMigrations: @Sendable (inout Migrator) -> Void
    /// Models other than "scripted" (e.g. the offline assistant), by provider name.
    public var makeModel: @Sendable (_ provider: String, _ journalClock: @escaping @Sendable () -> Date, _ timeZone: TimeZone) -> (any ChatModel)?
    public var version: String
    /// The context manager for a replayed process; `contextWindow` comes from `@config context=N`.
    public var makeAssembler: @Sendable (_ store: ConversationStore, _ journal: JournalStore, _ clock: any AgentClock,
                                         _ diagnostics: any DiagnosticsRecorder, _ contextWindow: Int?) -> any RequestAssembler
    /// Packaged foods (issue 18) as `ofj` wires them, over a client with no network.
    public var packaged: ReplayPackagedHooks?
    /// Web research (`@config research=on`): the tools over a seeded search transport.
    public var research: (@Sendable (_ journal: JournalStore, _ search: any HTTPTransport, _ diagnostics: any DiagnosticsRecorder) -> ReplayResearch)? = nil
    public init(makeTools: @escaping @Sendable (JournalStore) -> ToolRegistry, systemPrompt: @escaping @Sendable (JournalStore) -> String,
                contextNote: @escaping @Sendable (JournalStore) -> String = { _ in "" },
                registerMigrations: @escaping @Sendable (inout Migrator) -> Void,
                makeModel: @escaping @Sendable (String, @escaping @Sendable () -> Date, TimeZone) -> (any ChatModel)?, version: String,
                makeAssembler: @escaping @Sendable (ConversationStore, JournalStore, any AgentClock, any DiagnosticsRecorder, Int?) -> any RequestAssembler,
                packaged: ReplayPackagedHooks? = nil,
                research: (@Sendable (JournalStore, any HTTPTransport, any DiagnosticsRecorder) -> ReplayResearch)? = nil) {
        self.research = research
        self.makeAssembler = makeAssembler
        self.packaged = packaged
        self.makeTools = makeTools
        self.systemPrompt = systemPrompt
        self.contextNote = contextNote
        self.registerMigrations = registerMigrations
        self.makeModel = makeModel
        self.version = version
    }
}

@MainActor
public final class Replayer {
    let file: TranscriptFile
    let environment: ReplayEnvironment
    let directory: String
    let databasePath: String
    var timeZone = TimeZone(identifier: "UTC") ?? .current
    var epoch: Double = 1_796_000_000
    var provider = "scripted"
    var modelName = "scripted-1"
    var policy = DeadlinePolicy.fast
    var contextWindow: Int?
    /// `@config packaged=on`: the model also gets the packaged-food tools and their prompt rule.
    var packagedTools = false
    /// `@config research=on`: web_search over the `@seed web` responses, read_conversation_source.
    var researchOn = false
    /// `@seed web` bodies (Tavily search responses).
    var webSeeds: [String] = []
    /// Approval rules (`@config rules=[…]`), as config.json's `approvals.rules`.
    var rulesJSON: String?
    /// `@seed attachment NAME`: the only files `/attach` can read in a replay, by name. A name
    /// seeded more than once (a file changed between two reads while recording) gives its
    /// versions in order, one per read; the last one to any further read.
    var attachmentFiles: [String: [[UInt8]]] = [:]
    /// Reads of each seeded name so far, across restarts (a restart does not start the versions over).
    let attachmentReads = AttachmentReads()
    var process: ReplayProcess?
    var transcriptModel: TranscriptModel?
    let crashes = InterruptFlag()
    /// Set by `fault:` steps; shared by every simulated process of this replay.
    let storageFault = TranscriptStorageFault()
    let ids = CountingIDSource(prefix: "id-")
    let diagnosticIDs = CountingIDSource(prefix: "diag-")

    public init(file: TranscriptFile, environment: ReplayEnvironment, directory: String) {
        self.file = file
        self.environment = environment
        self.directory = directory
        self.databasePath = directory + "/ofj.sqlite"
    }

    public struct SetupError: Error, CustomStringConvertible {
        public let description: String
    }

    // MARK: - Set-up

    func applySetup() throws {
        var seeds: [(line: Int, sql: String)] = []
        var backups: [(line: Int, json: String)] = []
        var products: [(line: Int, json: String)] = []
        for step in file.setup {
            guard case .setup(let name, let argument, let block) = step.directive else { continue }
            func fail(_ m: String) -> SetupError { SetupError(description: "\(file.path):\(step.line): \(m)") }
            switch name {
            case "clock":
                // @clock YYYY-MM-DD HH:MM ZONE
                let parts = argument.split(separator: " ").map(String.init)
                guard parts.count == 3, let tz = TimeZone(identifier: parts[2]) else { throw fail("@clock takes YYYY-MM-DD HH:MM ZONE, e.g. 2026-11-29 08:30 Europe/Berlin") }
                let f = DateFormatter()
                f.locale = Locale(identifier: "en_US_POSIX")
                f.timeZone = tz
                f.dateFormat = "yyyy-MM-dd HH:mm"
                guard let date = f.date(from: parts[0] + " " + parts[1]) else { throw fail("@clock: cannot read the date and time") }
                timeZone = tz
                epoch = date.timeIntervalSince1970
            case "provider":
                let parts = argument.split(separator: " ").map(String.init)
                guard let p = parts.first else { throw fail("@provider takes scripted [MODEL] or offline") }
                provider = p
                if parts.count > 1 { modelName = parts[1] }
            case "config":
                for pair in argument.split(separator: " ") {
                    let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
                    guard kv.count == 2 else { throw fail("@config takes key=value pairs") }
                    switch kv[0] {
                    case "policy":
                        guard kv[1] == "fast" || kv[1] == "patient" else { throw fail("policy is fast or patient") }
                        policy = kv[1] == "fast" ? .fast : .patient
                    case "context":
                        guard let n = Int(kv[1]), n >= 1_000 else { throw fail("context takes a token count of 1000 or more") }
                        contextWindow = n
                    case "packaged":
                        guard kv[1] == "on" || kv[1] == "off" else { throw fail("packaged is on or off") }
                        packagedTools = kv[1] == "on"
                    case "research":
                        guard kv[1] == "on" || kv[1] == "off" else { throw fail("research is on or off") }
                        researchOn = kv[1] == "on"
                    case "rules":
                        // config.json's approvals.rules, as JSON without spaces.
                        guard (try? JSONValue.parse(kv[1]))?.arrayValue != nil else { throw fail("rules takes a JSON list of rules without spaces") }
                        rulesJSON = kv[1]
                    default:
                        throw fail("unknown @config key \(kv[0]); known: policy, context, packaged, research, rules")
                    }
                }
            case "seed":
                switch argument {
                case "sql": seeds.append((step.line - block.count, block.joined(separator: "\n")))  // the @seed line
                case "backup": backups.append((step.line, block.joined(separator: "\n")))
                case "packaged": products.append((step.line - block.count, block.joined(separator: "\n")))  // the @seed line
                case "web": webSeeds.append(block.joined(separator: "\n"))
                case let a where a.hasPrefix("attachment "):
                    let name = String(a.dropFirst("attachment ".count)).trimmingCharacters(in: .whitespaces)
                    guard !name.isEmpty, let data = Data(base64Encoded: block.joined().filter { !$0.isWhitespace }) else {
                        throw fail("@seed attachment NAME takes the file's bytes as base64 on the indented lines below it")
                    }
                    attachmentFiles[name, default: []].append([UInt8](data))
                default: throw fail("@seed takes sql, backup, packaged, web or attachment NAME, followed by indented lines (SQL, an ofj backup's JSON, an Open Food Facts product's JSON, a Tavily search response, or a file's base64)")
                }
            default:
                throw fail("unknown set-up line @\(name); expected @clock, @provider, @config or @seed")
            }
        }
        // Migrate, then seed. The migrations are ofj's own SQL on the fresh file, run before any
        // of the transcript's; they create FTS5 tables, which a confined connection refuses.
        var migrator = Migrator()
        environment.registerMigrations(&migrator)
        try DatabaseQueue(path: databasePath).migrate(migrator)
        let queue = try Self.openConfined(databasePath)
        let journal = JournalStore(queue: queue, timeZone: timeZone, now: { [epoch] in Date(timeIntervalSince1970: epoch) })
        for (line, json) in backups {
            do { _ = try journal.importBackup(Data(json.utf8)) } catch {
                throw SetupError(description: "\(file.path):\(line): @seed backup: \(error)")
            }
        }
        // Packaged products go to the replay's own cache, as if fetched at the replay's clock.
        for (line, json) in products {
            do { try Self.seedPackaged(json, journal: journal) } catch {
                throw SetupError(description: "\(file.path):\(line): \(error)")
            }
        }
        // A transcript's SQL runs on a connection of its own, confined to the replay's database:
        // seeding may write there, but never attach, copy out or open anything else.
        for (line, sql) in seeds {
            do {
                let db = try Database(path: databasePath)
                try db.confine(.ownFile)
                try db.execute(batch: sql)
            } catch let e as DatabaseError where e.isRefusal {
                throw SetupError(description: "\(file.path):\(line): @seed sql refused: \(e.message) (\(Self.trustNote))")
            } catch let e as DatabaseError {
                throw SetupError(description: "\(file.path):\(line): @seed sql failed: \(e.message)")
            }
        }
    }

    /// Why SQL in a transcript is refused: see "Trust" in docs/TRANSCRIPTS.md.
    static let trustNote = "a transcript can only read and change its own temporary database"

    /// A connection of a replayed process: the product's own SQL, but the file may hold a schema a
    /// transcript seeded (triggers, views), so the same confinement applies.
    static func openConfined(_ path: String) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: path)
        try queue.read { try $0.confine(.ownFile) }
        return queue
    }

    // MARK: - Running

    public func run() async -> ReplayResult {
        var actual: [Int: [String]] = [:]
        var mismatches: [String] = []
        do {
            try applySetup()
        } catch {
            return ReplayResult(path: file.path, passed: false, report: "\(error)", updatedText: file.lines.joined(separator: "\n") + "\n")
        }
        let turns = file.steps.compactMap { step -> [ScriptedEvent]? in
            if case .modelTurn(let t) = step.directive { return t }
            return nil
        }
        let clock = VirtualClock(epoch: epoch)
        let model = TranscriptModel(model: modelName, turns: turns, clock: clock,
                                    onInterrupt: { [weak self] in Task { @MainActor in self?.process?.interrupts.raise() } },
                                    onCrash: { [crashes] in crashes.raise() })
        transcriptModel = model
        do {
            process = try startProcess(clock: clock)
        } catch {
            return ReplayResult(path: file.path, passed: false, report: "\(file.path): cannot start: \(error)", updatedText: file.lines.joined(separator: "\n") + "\n")
        }
        for step in file.steps where !step.directive.isModelTurn {
            if case .approve(let answer) = step.directive { process?.input.enqueueAnswer(answer) }
        }

        for (index, step) in file.steps.enumerated() {
            var lines: [String]? = nil
            switch step.directive {
            case .modelTurn, .approve:
                continue
            case .input(let text):
                lines = await input(text)
            case .sql(let query):
                lines = runSQL(query)
            case .inspect(let what):
                lines = inspect(what)
            case .clock(let change):
                advanceClock(change)
            case .fault(let kind):
                storageFault.set(kind)
            case .crash:
                process = nil
            case .restart:
                let previous = process?.clock ?? clock
                do {
                    let p = try startProcess(clock: VirtualClock(epoch: previous.now()))
                    process = p
                    lines = p.startupLines
                } catch {
                    lines = ["cannot restart: \(error)"]
                }
            case .setup:
                continue
            }
            if let lines {
                actual[index] = lines
                if lines != step.expected {
                    mismatches.append(Self.diff(path: file.path, step: step, expected: step.expected, actual: lines))
                }
            }
        }
        if let m = transcriptModel, m.remainingTurns > 0 {
            mismatches.append("\(file.path): \(m.remainingTurns) scripted model turn(s) were never requested")
        }
        if let p = process, p.input.unusedAnswers > 0 {
            mismatches.append("\(file.path): \(p.input.unusedAnswers) approve: answer(s) were never asked for")
        }
        return ReplayResult(path: file.path, passed: mismatches.isEmpty, report: mismatches.joined(separator: "\n\n"),
                            updatedText: file.rewritten(actual: actual))
    }

    func startProcess(clock: VirtualClock) throws -> ReplayProcess {
        transcriptModel?.clock.withLock { $0 = clock }
        return try ReplayProcess(replayer: self, clock: clock)
    }

    /// Types a line and waits until the prompt is back, or the process crashes.
    func input(_ text: String) async -> [String] {
        guard let process else { return ["(no process is running: add 'restart' after 'crash')"] }
        let crashBaseline = crashes.value
        let finished = InterruptFlag()
        Task { @MainActor in
            await process.session.handle(text)
            finished.raise()
        }
        // The session returns when the turn ends; a scripted crash freezes it instead, and the
        // frozen process is abandoned as a killed one would be.
        while finished.value == 0 {
            if crashes.value != crashBaseline {
                // What was already emitted reaches the screen before the process dies, as it
                // would have on a terminal: wait until the output stops growing.
                var last = -1
                var stableChecks = 0
                while stableChecks < 5 {
                    try? await Task.sleep(nanoseconds: 20_000_000)
                    let now = process.output.text.utf8.count
                    stableChecks = now == last ? stableChecks + 1 : 0
                    last = now
                }
                self.process = nil
                break
            }
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        return Self.screenLines(process.output.take())
    }

    static func screenLines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0).trimmingTrailingWhitespace() }
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// A `sql:` step: one statement that only reads, on a read-only confined connection.
    func runSQL(_ query: String) -> [String] {
        do {
            let db = try Database(path: databasePath, options: .init(readOnly: true))
            try db.confine(.readOnly)
            guard try db.prepare(query).isReadOnly else {
                return ["refused: only reading is allowed in a sql: step (\(Self.trustNote))"]
            }
            return try db.rows(query).map { row in
                row.values.map { v -> String in
                    switch v {
                    case .null: return "NULL"
                    case .integer(let i): return String(i)
                    case .real(let d): return JSONValue.format((d * 1e6).rounded() / 1e6)
                    case .text(let s): return s
                    case .blob(let b): return "<\(b.count) bytes>"
                    }
                }.joined(separator: "|")
            }
        } catch let e as DatabaseError where e.isRefusal {
            return ["refused: \(e.message) (\(Self.trustNote))"]
        } catch {
            return ["error: \(error)"]
        }
    }

    /// An `expect ledger|threads|runs|usage|diag` step: what the owning stores hold, one line per
    /// row in the order written (NULL shown as nothing), read on a read-only connection.
    func inspect(_ what: String) -> [String] {
        func line(_ fields: [String?]) -> String { fields.map { $0 ?? "" }.joined(separator: "|") }
        do {
            let db = try Database(path: databasePath, options: .init(readOnly: true))
            switch what {
            case "ledger":
                return try ConversationStore.ledgerInWriteOrder(db).map {
                    line([$0.runID, String($0.turn), $0.callID, $0.toolName, $0.outcome.rawValue, $0.decision])
                }
            case "threads":
                return try ConversationStore.threadsInCreationOrder(db).map { line([$0.id, $0.title, $0.provider, $0.model]) }
            case "runs":
                return try ConversationStore.runsInCreationOrder(db).map {
                    line([$0.id, $0.threadID, $0.phase.rawValue, String($0.turnsUsed), $0.errorClass])
                }
            case "usage":
                return try ConversationStore.usageInWriteOrder(db).map { u in
                    line([u.runID, String(u.turn), String(u.usage.inputTokens), String(u.usage.outputTokens),
                          String(u.usage.cachedInputTokens), String(u.usage.reasoningTokens)])
                }
            case "diag":
                // Every field an event carries except ids, times and the app version, so a leak would show.
                return try DiagnosticsOutbox.payloadsWithoutIDsOrTimes(db)
            default:
                return ["unknown inspection \(what)"]
            }
        } catch {
            return ["error: \(error)"]
        }
    }

    func advanceClock(_ change: String) {
        guard let clock = process?.clock else { return }
        if change.hasPrefix("+"), let seconds = Double(change.dropFirst().replacingOccurrences(of: "s", with: "")) {
            clock.advance(by: seconds)
        }
    }

    static func diff(path: String, step: TranscriptStep, expected: [String], actual: [String]) -> String {
        var out = ["\(path):\(step.line): output differs (- expected, + actual)"]
        let n = max(expected.count, actual.count)
        for i in 0..<n {
            let e = i < expected.count ? expected[i] : nil
            let a = i < actual.count ? actual[i] : nil
            if e == a { out.append("  | \(e ?? "")"); continue }
            if let e { out.append("- | \(e)") }
            if let a { out.append("+ | \(a)") }
        }
        return out.joined(separator: "\n")
    }
}

extension TranscriptDirective {
    var isModelTurn: Bool { if case .modelTurn = self { return true } else { return false } }
}

/// One simulated ofj process: database connection, stores, runner, session.
@MainActor
final class ReplayProcess {
    let clock: VirtualClock
    let output = CapturedOutput()
    let input: ReplayInput
    let session: REPLSession
    let runner: AgentRunner
    let interrupts = InterruptFlag()
    var startupLines: [String] = []

    init(replayer: Replayer, clock: VirtualClock) throws {
        self.clock = clock
        let queue = try Replayer.openConfined(replayer.databasePath)
        let epochClock: @Sendable () -> Date = { Date(timeIntervalSince1970: clock.now()) }
        let journal = JournalStore(queue: queue, timeZone: replayer.timeZone, now: epochClock)
        let store = ConversationStore(queue: queue)
        let packaged = replayer.packagedTools ? replayer.environment.packaged : nil
        let relay = ReplayDiagnosticsRelay()
        var research: ReplayResearch?
        if replayer.researchOn {
            guard let make = replayer.environment.research else { throw Replayer.SetupError(description: "this build cannot replay research") }
            research = make(journal, try SeededSearchTransport(seeds: replayer.webSeeds), relay)
        }
        let tools = research?.tools ?? packaged?.makeTools(journal) ?? replayer.environment.makeTools(journal)
        let approvals = ApprovalBroker()
        let model: any ChatModel
        if replayer.provider == "scripted" {
            guard let m = replayer.transcriptModel else { throw Replayer.SetupError(description: "no model") }
            model = m
        } else if let m = replayer.environment.makeModel(replayer.provider, epochClock, replayer.timeZone) {
            model = m
        } else {
            throw Replayer.SetupError(description: "unknown provider \(replayer.provider) for replay; use scripted or offline")
        }
        var ruled = AgentConfiguration(systemPrompt: packaged?.systemPrompt(journal) ?? replayer.environment.systemPrompt(journal), policy: replayer.policy, jitter: { 0.5 },
                                               costEstimator: { _, _, _ in 0 })
        let noteOf = replayer.environment.contextNote
        ruled.contextNote = { noteOf(journal) }
        if let text = replayer.rulesJSON {
            do {
                let set = try ApprovalRuleSet.parse(try JSONValue.parse(text), vocabulary: RuleVocabulary(registry: tools))
                ruled.approvalRules = FixedApprovalRules(set, today: { journal.today().description })
            } catch {
                throw Replayer.SetupError(description: "@config rules: \(error)")
            }
        }
        let configuration = ruled
        // Diagnostics go to the outbox as in the product, with ids and times from the replay.
        let outbox = DiagnosticsOutbox(queue: queue, now: { clock.now() })
        let diagnosticIDs = replayer.diagnosticIDs
        let recorder = OutboxRecorder(outbox: outbox, appVersion: replayer.environment.version, allowedToolNames: tools.callableNames,
                                      makeID: { diagnosticIDs.next() }, now: { clock.now() })
        relay.connect(recorder)
        let assembler = replayer.environment.makeAssembler(store, journal, clock, recorder, replayer.contextWindow)
        runner = AgentRunner(store: store, model: model, tools: tools, approvals: approvals, clock: clock, ids: replayer.ids,
                             diagnostics: recorder, configuration: configuration, assembler: assembler, faults: replayer.storageFault)
        let recovered = (try? runner.recoverInterruptedRuns()) ?? []
        input = ReplayInput(output: output, clock: clock)
        var services = SessionServices(
            runner: runner, store: store, journal: journal, approvals: approvals, clock: clock, ids: replayer.ids,
            model: { model },
            switchModel: { _, _ in throw UsageError("switching models is not available in a replay") },
            configureHint: "set OFJ_PROVIDER and a key to use a real model",
            knownModels: { [] }, diagnosticsStatus: { "Diagnostics: not configured." },
            contextReport: { threadID in
                guard let a = assembler as? CompactingAssembler else { return "Context details are not available." }
                let groups = try store.enabledToolGroups(threadID: threadID)
                let report = try a.report(threadID: threadID, model: model, systemPrompt: configuration.systemPrompt,
                                          contextNote: configuration.contextNote(), tools: tools.specs(groups: groups),
                                          maxOutputTokens: configuration.maxOutputTokens)
                return tools.groupsLine(enabled: groups).map { report + "\n" + $0 } ?? report
            },
            compact: { threadID, focus in
                guard let a = assembler as? CompactingAssembler else { return "Compaction is not available." }
                return try await a.compact(threadID: threadID, focus: focus, model: model, systemPrompt: configuration.systemPrompt,
                                           contextNote: configuration.contextNote(),
                                           tools: tools.specs(groups: try store.enabledToolGroups(threadID: threadID)), maxOutputTokens: configuration.maxOutputTokens)
            },
            version: replayer.environment.version,
            isWriteTool: { tools.tool(named: $0)?.effect == .write })
        services.goalTool = tools.tool(named: "set_goals") as? any WriteTool
        // The REPL's scanner is always there, as in the product.
        services.scanBarcode = replayer.environment.packaged?.makeScanner(journal)
        // Transcripts are UTF-8 whatever the locale of the machine replaying them.
        services.unicodeCharts = true
        if let research {
            services.sourcesReport = research.sourcesReport
            services.sourceLinks = research.sourceLinks
            services.searchUsage = research.searchUsage
        }
        // /attach reads only the files the transcript seeded (a transcript names no real file).
        let files = replayer.attachmentFiles
        let reads = replayer.attachmentReads
        services.loadAttachment = { name in
            guard let versions = files[name], !versions.isEmpty else {
                throw AttachmentError("No such file; a replay attaches only files its transcript seeds with @seed attachment NAME.")
            }
            let n = reads.counts.withLock { r in defer { r[name, default: 0] += 1 }; return r[name, default: 0] }
            let bytes = versions[min(n, versions.count - 1)]
            // An empty version: a read that failed while the session was recorded.
            if bytes.isEmpty { throw AttachmentError("That file could not be read when this session was recorded.") }
            return try LoadedAttachment.checked(name: (name as NSString).lastPathComponent, bytes: bytes)
        }
        services.attachablePath = { line in files[line.trimmingCharacters(in: .whitespaces)] != nil && line.contains("/") ? line.trimmingCharacters(in: .whitespaces) : nil }
        // Resume the most recently updated thread, as `ofj --resume` would.
        let lastThread = try? store.listThreads(limit: 1).first?.id
        session = REPLSession(services: services, input: input, output: output, style: Style(enabled: false), width: 0,
                              interrupts: interrupts, terminations: InterruptFlag(), threadID: lastThread ?? nil)
        startupLines = Replayer.screenLines(session.banner())
        if !recovered.isEmpty {
            startupLines.append("(\(recovered.count) interrupted run\(recovered.count == 1 ? "" : "s") found after the restart)")
        }
    }
}

/// How many times each seeded attachment name was read in a replay.
final class AttachmentReads: Sendable {
    let counts = Mutex<[String: Int]>([:])
}
