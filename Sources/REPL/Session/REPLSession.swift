// The REPL: reads messages and slash commands, runs turns, renders the agent's events,
// shows approval cards, and handles Ctrl-C.
import Agent
import Base
import Foundation
import Journal
import Nutrition
import OutputSafety
import Providers
import Views

@MainActor
public final class REPLSession {
    let services: SessionServices
    let input: any SessionInput
    let output: any Output
    let style: Style
    let interrupts: InterruptFlag
    let terminations: InterruptFlag
    let writer: StreamWriter
    /// The spinner line (terminal only).
    let live: LiveLine
    /// Model text rendered as Markdown, wrapped to the terminal (terminal with styling only;
    /// piped and NO_COLOR output stays the model's plain text, wrapped by `writer`).
    var markdown: MarkdownStream?
    /// The current thread; created in the store on the first message.
    public internal(set) var threadID: String
    private var events: AsyncStream<AgentEvent>.Iterator
    var currentModel: any ChatModel
    /// The results of the last `/search`, for `/open N`.
    var lastSearch: [SearchResult] = []
    /// Images and PDFs the next message carries (`/attach`); cleared once it is sent.
    var pendingAttachments: [AttachmentRef] = []
    /// Set when the person asked to leave (/exit, Ctrl-D, a second Ctrl-C).
    public private(set) var exitRequested = false

    public init(services: SessionServices, input: any SessionInput, output: any Output, style: Style, width: Int,
                interrupts: InterruptFlag, terminations: InterruptFlag, threadID: String? = nil) {
        self.services = services
        self.input = input
        self.output = output
        self.style = style
        self.interrupts = interrupts
        self.terminations = terminations
        self.writer = StreamWriter(output: output, width: width)
        // A sign of life only on a terminal with styling on (not piped, not NO_COLOR, not replay).
        self.live = LiveLine(output: output, clock: services.clock, style: style, enabled: style.enabled && width > 0,
                             width: { Terminal.width() })
        if style.enabled && width > 0 { self.markdown = MarkdownStream(style: style, width: { Terminal.width() }) }
        self.threadID = threadID ?? services.ids.next()
        self.events = services.runner.events.makeAsyncIterator()
        self.currentModel = services.model()
        let store = services.store
        let journal = services.journal
        let knownModels = services.knownModels
        input.completer = { before in Completion.candidates(before: before, store: store, journal: journal, models: knownModels()) }
    }

    func threadIDChanged(to id: String) { threadID = id }
    func requestExit() { exitRequested = true }

    func say(_ line: String = "") { endText(); output.write(line + "\n") }

    /// Ends streamed text: the Markdown renderer's last line and table, the writer's line.
    func endText() {
        if let rest = markdown?.finish(), !rest.isEmpty { output.write(rest) }
        writer.finishLine()
    }

    // MARK: - Start-up

    /// The one-line banner (plus a line about a suspended run, when there is one).
    public func banner() -> String {
        var lines: [String] = []
        let model = currentModel
        let who = model.provider == "offline" ? "offline assistant" : "\(model.provider) · \(model.model)"
        let title = (try? services.store.thread(threadID))?.map { "thread “\(Terminal.sanitize($0.title, keepNewlines: false))”" } ?? "new thread"
        lines.append("ofj \(services.version) · \(who) · \(title) · /help for commands")
        lines.append(style.dim(JournalViews.medicalNote))
        if model.provider == "offline" {
            lines.append(style.dim("No AI provider is configured, so the built-in offline assistant answers; to use a real model, \(services.configureHint)."))
        }
        if let offer = weeklyCheckInLine() { lines.append(offer) }
        if let run = (try? services.store.runs(threadID: threadID))?.last, run.phase == .suspended {
            lines.append(style.yellow("An answer in this thread was interrupted. Type /continue to resume it, or send a new message."))
        } else if let suspended = try? services.store.suspendedRuns(), let other = suspended.first(where: { $0.threadID != threadID }) {
            let t = (try? services.store.thread(other.threadID))??.title ?? other.threadID
            lines.append(style.yellow("An answer in thread “\(Terminal.sanitize(t, keepNewlines: false))” was interrupted: /open \(other.threadID.prefix(8)) then /continue."))
        }
        // On a terminal the hint lines wrap at word boundaries, like answers (the colour codes
        // wrap whole lines, so a line's words never split).
        let columns = writer.width > 0 ? Terminal.width() : 0
        return lines.map { columns >= 40 ? wrapText($0, width: columns) : $0 }.joined(separator: "\n")
    }

    // MARK: - The interactive loop

    /// Reads and handles input until the person leaves; returns the exit status.
    public func runInteractive() async -> Int32 {
        say(banner())
        // Opened on an existing thread (`--resume`, `--thread`): where the conversation was.
        for line in recap(threadID: threadID) { say(line) }
        var lastInterruptAt: Double?
        var seenInterrupts = interrupts.value
        while !exitRequested {
            if terminations.value > 0 { break }
            // A Ctrl-C that arrived as a signal between reads counts like one typed at the prompt.
            let signalled = interrupts.value != seenInterrupts
            seenInterrupts = interrupts.value
            switch signalled ? .interrupt : input.readMessage(prompt: "› ") {
            case .eof:
                exitRequested = true
            case .interrupt:
                let now = services.clock.monotonic()
                if let last = lastInterruptAt, now - last < 2 {
                    exitRequested = true
                } else {
                    lastInterruptAt = now
                    say(style.dim("(Ctrl-C again or Ctrl-D to exit)"))
                }
            case .line(let line):
                lastInterruptAt = nil
                let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
                if trimmed.isEmpty { continue }
                input.remember(line)
                await handle(line)
                seenInterrupts = interrupts.value
            }
        }
        return 0
    }

    // MARK: - One input

    /// Handles one line: a slash command or a message for the assistant.
    public func handle(_ line: String) async {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return }
        // A pasted or dropped path ("/home/…/label.jpg") is a file to attach, not a slash command.
        if offerToAttach(trimmed) { return }
        if trimmed.hasPrefix("/"), let (name, argument) = SlashCommands.parse(trimmed) {
            await command(name, argument)
            return
        }
        if let scan = services.scanBarcode, REPLSession.isScan(trimmed) {
            await scanned(trimmed, scan)
            return
        }
        do {
            let started = services.clock.monotonic()
            if let refusal = ModelCatalog.attachmentRefusal(pendingAttachments, model: currentModel) {
                say(style.red("✗ ") + refusal + " /detach removes the attachments.")
                return
            }
            let handle = try services.runner.submit(threadID: threadID, text: line, attachments: pendingAttachments, model: currentModel)
            pendingAttachments = []
            await follow(handle, started: started)
        } catch {
            say(style.red("✗ ") + Terminal.sanitize("\(error)", keepNewlines: false))
        }
    }

    // MARK: - Following a run

    /// Renders the run's events until it finishes. Ctrl-C (or SIGTERM) interrupts it.
    /// `started` is read before the run was submitted: the run may be well under way (or done)
    /// by the time this is called.
    func follow(_ handle: RunHandle, started: Double) async {
        var total = Usage.zero
        var cost = 0.0
        var costKnown = true
        var printedError: String?
        let runner = services.runner
        let threadID = handle.threadID
        // Ctrl-C lands in a counter; this watcher turns it into a stop within a few tens of ms.
        // It is a thread of its own: a stream arriving at full speed can keep the task pool busy.
        let watcher = SignalWatch(interrupts: interrupts, terminations: terminations) { runner.interrupt(threadID: threadID) }
        defer { watcher.cancel() }
        let live = self.live
        let ticker: Task<Void, Never>? = live.enabled ? Task.detached {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 100_000_000)
                live.tick()
            }
        } : nil
        defer {
            ticker?.cancel()
            live.end()
        }
        // Plain wrapping follows a resized terminal from one answer to the next.
        if writer.width > 0 && writer.column == 0 { writer.width = Terminal.width() }
        if writer.column == 0 { live.start(label: "waiting for the model") }

        var iterator = events
        defer { events = iterator }
        // Model text is sanitised as a stream: an escape sequence split across deltas is removed
        // whole. Any other event ends the text, so a sequence left open cannot swallow later text.
        var textFilter = TerminalText.StreamFilter()
        while let event = await iterator.next(isolation: #isolation) {
            guard event.runID == handle.runID else { continue }
            if case .textDelta = event.kind {} else { textFilter.reset() }
            switch event.kind {
            case .phase, .usage, .approvalDecided, .textDelta: break
            default: live.end() // anything shown ends the spinner line first
            }
            switch event.kind {
            case .phase(let phase):
                if phase == .waitingForProvider && writer.column == 0 && !live.isActive { live.start(label: "waiting for the model") }
            case .textDelta(let text):
                let clean = textFilter.feed(text)
                // The spinner stays until text is actually shown (Markdown waits for whole lines).
                if markdown != nil, let lines = markdown?.feed(clean) {
                    if !lines.isEmpty { live.end(); output.write(lines) }
                } else {
                    if !clean.isEmpty { live.end() }
                    writer.write(clean)
                }
            case .toolStarted(_, _, let activity):
                endText()
                let line = style.dim("  · " + Terminal.sanitize(activity, keepNewlines: false))
                // On a terminal the activity line shows the spinner while the tool runs.
                if live.enabled { live.start(base: line, label: "") } else { output.write(line + "\n") }
            case .toolFinished(_, let name, let status, let summary):
                let line = Terminal.sanitize(summary, keepNewlines: false)
                switch status {
                case .succeeded:
                    if isWrite(name) { say(style.green("  ✓ ") + style.dim(line)) }
                case .denied:
                    say(style.yellow("  ✗ ") + style.dim("not done: \(line)"))
                case .failed, .rejected:
                    say(style.yellow("  ! ") + style.dim(line))
                case .cancelled, .interrupted, .running:
                    break
                }
            case .approvalRequested(let request):
                await approve(request)
            case .approvalDecided:
                break
            case .ruleDecided(_, _, let decision, let line):
                // Every automatic decision is one line, so nothing is written unseen.
                let shown = Terminal.sanitize(line, keepNewlines: false)
                switch decision {
                case .allow?: say(style.green("  ✓ ") + style.dim(shown))
                case .deny?: break // the tool's "not done: denied by rule N …" line says it
                case .ask?: break
                case nil: say(style.yellow("  ! ") + style.dim(shown))
                }
            case .usage(_, let usage, _, _, let c):
                total = total + usage
                if let c { cost += c } else { costKnown = false }
            case .retrying(let operation, let delay):
                let what = operation.hasPrefix("tool:") ? "a lookup (\(operation.dropFirst(5))) was slow" : "the request to the model failed"
                say(style.dim("  (\(what); trying again in \(JournalViews.number(delay, places: 1)) s)"))
            case .compaction(let line):
                say(style.dim("  · " + Terminal.sanitize(line, keepNewlines: false)))
            case .error(let error):
                printedError = error.line
                say(style.red("✗ ") + hidingSecrets(Terminal.sanitize(error.line, keepNewlines: false)))
            case .finished(let outcome):
                endText()
                if outcome.phase == .completed && outcome.error == nil && outcome.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    say(style.yellow("! ") + AgentError.emptyAnswerLine)
                }
                if let e = outcome.error, e.line != printedError {
                    say((outcome.phase == .failed ? style.red("✗ ") : style.yellow("⏸ ")) + hidingSecrets(Terminal.sanitize(e.line, keepNewlines: false)))
                }
                // The web sources the answer used, as numbered links under it.
                if let links = try? services.sourceLinks?(threadID, handle.runID) {
                    say(Terminal.sanitize(links))
                }
                let seconds = services.clock.monotonic() - started
                say(style.dim("  " + Self.footer(usage: total, cost: costKnown ? cost : nil, seconds: seconds)))
                return
            }
        }
    }

    static func footer(usage: Usage, cost: Double?, seconds: Double) -> String {
        let tokens = usage.inputTokens + usage.outputTokens
        let costText = cost.map { $0 == 0 ? "$0.00" : ($0 < 0.01 ? String(format: "$%.4f", $0) : String(format: "$%.2f", $0)) } ?? "cost unknown"
        return "\(JournalViews.number(Double(tokens), places: 0)) tokens · \(costText) · \(String(format: "%.1f", seconds))s"
    }

    /// The approval card already named the change; a ✓ line confirms it was made.
    func isWrite(_ toolName: String) -> Bool { services.isWriteTool(toolName) }

    // MARK: - Approval card

    /// The card's `a`: for this thread (a grant), or always (a rule saved in config.json). Without a
    /// rule book (replays) it is for this thread.
    func alwaysAllow(_ request: ApprovalRequest) {
        guard let book = services.ruleBook else { services.approvals.resolve(request, .alwaysAllow); return }
        let tool = Terminal.sanitize(request.toolName, keepNewlines: false)
        while true {
            switch input.readChoice(prompt: "  always: [t]his thread / [s]ave a rule (every \(tool), config.json): ") {
            case .line(let answer):
                switch answer.trimmingCharacters(in: .whitespaces).lowercased() {
                case "t":
                    services.approvals.resolve(request, .alwaysAllow)
                    return
                case "s":
                    let rule = JSONValue.object(["tool": .string(request.toolName), "decision": "allow"])
                    switch Result(catching: { () throws(ApprovalRulesError) -> ApprovalRule in try book.add(rule) }) {
                    case .success(let saved):
                        say(style.dim("  saved rule \(saved.number): \(Terminal.sanitize(saved.text, keepNewlines: false)); /permissions lists or removes it"))
                    case .failure(let e):
                        say(style.yellow("  ! ") + "the rule was not saved (\(Terminal.sanitize(e.description, keepNewlines: false))); allowed for this thread instead")
                    }
                    services.approvals.resolve(request, .alwaysAllow)
                    return
                default:
                    say("Please answer t or s.")
                }
            case .interrupt, .eof:
                return stopAtCard(request)
            }
        }
    }

    /// Ctrl-C (or end of input) at a card stops the answer; nothing is recorded for this card,
    /// and /continue asks again with a new card (an answer only ever answers its own card).
    func stopAtCard(_ request: ApprovalRequest) {
        say(style.yellow("Stopped; nothing was written. /continue shows this card again."))
        services.runner.interrupt(threadID: request.threadID)
        services.approvals.resolve(request, .deny)
    }

    func approve(_ request: ApprovalRequest) async {
        endText()
        let preview = Terminal.sanitize(request.preview)
        // On a terminal the card wraps to its current width, continuation lines indented.
        let columns = writer.width > 0 ? Terminal.width() : 0
        var card = [style.bold("┌ Approve: \(Terminal.sanitize(request.toolName, keepNewlines: false))")]
        for line in preview.split(separator: "\n", omittingEmptySubsequences: false) {
            guard columns >= 20 else { card.append("│ " + line); continue }
            for (i, part) in Inline.wrapPlain(String(line), width: columns - 2, indent: 2).enumerated() {
                card.append((i == 0 ? "│ " : "│   ") + part)
            }
        }
        output.write(card.joined(separator: "\n") + "\n")
        // Keys typed before the card was drawn were not typed at it.
        input.discardTypedAhead()
        let canEdit = input.canEdit
        // A narrow terminal gets the short form of the question, so that it stays on one line.
        let narrow = columns > 0 && columns < 70
        // With a rule book, "always" is for this thread or a saved rule (asked after `a`).
        let always = services.ruleBook == nil ? "[a]lways for this tool in this thread: " : "[a]lways (this thread or a rule): "
        let prompt = narrow ? (canEdit ? "└ [y]es/[n]o/[e]dit/[a]lways: " : "└ [y]es/[n]o/[a]lways: ")
            : canEdit ? "└ [y]es / [n]o / [e]dit / " + always
            : "└ [y]es / [n]o / " + always
        let keys = canEdit ? "y, n, e or a" : "y, n or a"
        while true {
            switch input.readChoice(prompt: prompt) {
            case .line(let answer):
                // Only a single key answers: "yesterday…" typed at the wrong moment is not a yes.
                switch answer.trimmingCharacters(in: .whitespaces).lowercased() {
                case "y":
                    services.approvals.resolve(request, .allowOnce)
                    return
                case "n":
                    services.approvals.resolve(request, .deny)
                    return
                case "a":
                    alwaysAllow(request)
                    return
                case "e" where canEdit:
                    // The runner checks the edited arguments against the tool's schema and shows a new card.
                    switch input.edit(PrettyJSON.format(request.arguments)) {
                    case .edited(let text):
                        services.approvals.resolve(request, editedArguments: text)
                        return
                    case .unchanged:
                        say("The arguments were not changed; answer \(keys).")
                    case .failed(let why):
                        say(style.yellow("! ") + why + "; answer \(keys).")
                    }
                case "e":
                    say("Editing needs a terminal; answer \(keys).")
                default:
                    say("Please answer \(keys).")
                }
            case .interrupt, .eof:
                return stopAtCard(request)
            }
        }
    }
}
