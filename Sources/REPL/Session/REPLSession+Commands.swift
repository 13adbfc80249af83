// The REPL's slash commands: running one from the list (Commands/SlashCommands.swift), and the
// handlers too long to sit in it.
import Agent
import Base
import CommandLineKit
import Foundation
import Journal
import Nutrition
import SQLiteKit
import Views

extension REPLSession {
    /// Runs a slash command from `SlashCommands.all`; an unknown name gets the closest one.
    func command(_ name: String, _ argument: String) async {
        guard let command = SlashCommands.command(named: name) else {
            let hint = SlashCommands.suggestion(for: name).map { " Did you mean /\($0)?" } ?? ""
            say("Unknown command /\(Terminal.sanitize(name, keepNewlines: false)).\(hint) Type /help for the list.")
            return
        }
        do {
            try await command.action(self, argument)
        } catch {
            say(style.red("✗ ") + Terminal.sanitize("\(error)", keepNewlines: false))
        }
    }

    func showHelp() {
        say("Talk about what you eat (\"log 2 eggs for breakfast\", \"how much protein this week?\"), or use a command:")
        say(SlashCommands.helpText)
        say(style.dim(JournalViews.medicalNote))
    }

    /// `/title TEXT`: renames the current thread.
    func rename(_ argument: String) throws {
        guard !argument.isEmpty else { say("Usage: /title TEXT"); return }
        guard try services.store.thread(threadID) != nil else { say("This thread has no messages yet; send one first."); return }
        try services.store.renameThread(threadID, title: argument)
        say("Renamed to “\(Terminal.sanitize(argument, keepNewlines: false))”.")
    }

    /// `/continue`: resumes the thread's suspended run.
    func continueRun() async throws {
        let started = services.clock.monotonic()
        let handle = try services.runner.continueRun(threadID: threadID, model: currentModel)
        await follow(handle, started: started)
    }

    /// `/week`: the last 7 days, then their calorie bars.
    func showWeek() throws {
        let today = services.journal.today()
        sayView(JournalViews.range(try services.journal.rangeSummary(from: try today.adding(days: -6), to: today), pinned: services.pinned))
        if let bars = try Charts.week(of: services.journal, options: chartOptions) {
            say("")
            say(bars)
        }
    }

    /// `/model [NAME]`: shows the model, or switches to NAME.
    func chooseModel(_ argument: String) throws {
        if argument.isEmpty {
            say("Model: \(currentModel.model) (provider \(currentModel.provider)). /model NAME switches.")
        } else if currentModel.provider == "offline" {
            say("The offline assistant has no models to choose from; /provider NAME picks a provider first.")
        } else {
            setModel(try services.switchModel(nil, argument))
        }
    }

    /// `/provider [NAME]`: shows the provider, or switches to NAME.
    func chooseProvider(_ argument: String) throws {
        if argument.isEmpty {
            say("Provider: \(currentModel.provider). /provider NAME switches (offline, gemini, openai, openrouter, azure, anthropic, ollama, …).")
        } else {
            setModel(try services.switchModel(argument, nil))
        }
    }

    /// A multi-line view (/day, /week, /foods, /goals, /context): on a terminal each line wraps at
    /// word boundaries to its current width, continuation lines indented under the line's start.
    func sayView(_ text: String) {
        guard writer.width > 0 else { say(text); return }
        let columns = max(20, Terminal.width())
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard TerminalTextWidth.columns(String(line)) > columns else { lines.append(String(line)); continue }
            let lead = String(line.prefix { $0 == " " })
            for (i, part) in Inline.wrapPlain(String(line), width: columns, indent: 2).enumerated() {
                lines.append(i == 0 ? part : lead + "  " + part.dropFirst(lead.count))
            }
        }
        say(lines.joined(separator: "\n"))
    }

    func setModel(_ model: any ChatModel) {
        currentModel = model
        say(model.provider == "offline" ? "Using the offline assistant." : "Using \(model.provider) · \(model.model).")
    }

    func listThreads(query: String) throws {
        let threads = query.isEmpty ? try services.store.listThreads(limit: 30) : try services.store.searchThreads(query, limit: 30)
        guard !threads.isEmpty else {
            say(query.isEmpty ? "No threads yet." : "No threads match '\(Terminal.sanitize(query, keepNewlines: false))'.")
            return
        }
        for t in threads {
            let marker = t.id == threadID ? "*" : " "
            say("\(marker) \(t.id.prefix(8))  \(Self.dateLabel(t.updatedAt))  \(Terminal.sanitize(t.title, keepNewlines: false))")
        }
    }

    static func dateLabel(_ seconds: Double) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy-MM-dd HH:mm"
        return f.string(from: Date(timeIntervalSince1970: seconds))
    }

    /// A thread by full id or unique id prefix.
    func resolveThread(_ text: String) throws -> ThreadSummary {
        let key = text.trimmingCharacters(in: .whitespaces)
        guard !key.isEmpty else { throw UsageError("give a thread id (see /threads)") }
        switch try services.store.findThread(idPrefix: key) {
        case .found(let t): return t
        case .ambiguous(let matches): throw UsageError(Terminal.sanitize(ThreadMatch.ambiguityMessage(key, matches), keepNewlines: false))
        case .none: break
        }
        // A title (as Tab completes it): exact first, then a unique start, ignoring case.
        let all = try services.store.listThreads(limit: 10_000)
        let lower = key.lowercased()
        let titled = { (t: ThreadSummary) in Terminal.sanitize(t.title, keepNewlines: false).lowercased() }
        var matches = all.filter { titled($0) == lower }
        if matches.isEmpty { matches = all.filter { titled($0).hasPrefix(lower) } }
        guard !matches.isEmpty else { throw UsageError("no thread with id \(UsageError.quote(key)), nor a title starting so; /threads lists them") }
        guard matches.count == 1 else { throw UsageError("\(matches.count) thread titles start with \(UsageError.quote(key)); type more of the id or title") }
        return matches[0]
    }

    func search(_ argument: String) throws {
        guard !argument.isEmpty else { say("Usage: /search TEXT (words from messages, titles, tool activity or journal entries)"); return }
        let results = try SearchViews.search(argument, scope: .all, store: services.store, journal: services.journal)
        lastSearch = results
        sayView(SearchViews.text(results, query: argument, timeZone: services.journal.timeZone, highlight: { style.bold($0) }))
    }

    func open(_ argument: String) throws {
        let key = argument.trimmingCharacters(in: .whitespaces)
        // "/open 3" after a /search: the thread of result 3 (a larger number is taken as an id prefix).
        if let n = Int(key), n >= 1, n <= lastSearch.count {
            guard let id = lastSearch[n - 1].threadID else {
                let day = { if case .entry(let e) = lastSearch[n - 1] { return " \(e.day)" } else { return "" } }()
                throw UsageError("result \(n) is a journal entry, not a thread; /day\(day) shows its day")
            }
            return try open(id)
        }
        let t = try resolveThread(argument)
        threadIDChanged(to: t.id)
        say("Opened “\(Terminal.sanitize(t.title, keepNewlines: false))”.")
        for line in recap(threadID: t.id) { say(line) }
        if let run = try services.store.runs(threadID: t.id).last, run.phase == .suspended {
            say(style.yellow("Its last answer was interrupted. Type /continue to resume it."))
        }
    }

    /// `/export md|json [FILE]`: this thread as Markdown or JSON, to FILE (0600, never over an
    /// existing file) or on screen.
    func export(_ argument: String) throws {
        let words = argument.split(separator: " ", maxSplits: 1).map(String.init)
        guard let format = words.first.flatMap({ ThreadExport.Format(rawValue: $0.lowercased()) }) else {
            say("Usage: /export md|json [FILE]"); return
        }
        guard let thread = try services.store.thread(threadID) else { say("This thread has no messages yet; nothing to export."); return }
        let text = try ThreadExport.render(thread, format: format, store: services.store, timeZone: services.journal.timeZone)
        guard words.count == 2 else { sayView(Terminal.sanitize(text).trimmingCharacters(in: .newlines)); return }
        guard let write = services.writeExport else {
            say("Writing files is not available here; /export \(format.rawValue) without FILE shows the thread.")
            return
        }
        let path = (words[1].trimmingCharacters(in: .whitespaces) as NSString).expandingTildeInPath
        try write(text, path)
        say("Wrote \(Terminal.sanitize(path, keepNewlines: false)) (\(format.rawValue), \(text.utf8.count) bytes).")
    }

    /// `/budget 50k|200k|max`: the context budget of this thread.
    func budget(_ argument: String) throws {
        let key = argument.trimmingCharacters(in: .whitespaces).lowercased()
        if key.isEmpty {
            let current = try services.store.contextBudget(threadID: threadID)
            say("Context budget: \(current?.rawValue ?? "default"). /budget 50k|200k|max changes it for this thread.")
            return
        }
        guard let choice = ContextBudgetChoice(rawValue: key) else { say("Usage: /budget 50k|200k|max"); return }
        guard try services.store.thread(threadID) != nil else { say("This thread has no messages yet; send one first, then /budget."); return }
        try services.store.setContextBudget(choice, threadID: threadID, now: services.clock.now())
        say("Context budget for this thread: \(choice.rawValue)\(choice == .modelMaximum ? " (the model's window)" : " tokens"). /context shows it.")
    }

    func delete(_ argument: String) throws {
        let t = try resolveThread(argument)
        let count = try services.store.messageCount(threadID: t.id)
        let question = "Delete “\(Terminal.sanitize(t.title, keepNewlines: false))” and its \(count) messages? This cannot be undone. [y/N] "
        guard case .line(let answer) = input.readAnswer(prompt: question),
              ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) else {
            say("Kept.")
            return
        }
        try services.store.deleteThread(t.id)
        say("Deleted.")
        if t.id == threadID { threadIDChanged(to: services.ids.next()) }
    }

    /// Replaces the last answer with a new one for the same message; the earlier answer is kept
    /// as a previous version (not sent to the model again). Each /retry makes another version.
    func retry() async throws {
        // Only the last user message is read: /retry on a 100,000-message thread stays instant.
        guard let text = try services.store.lastUserText(threadID: threadID) else {
            say("Nothing to retry in this thread yet.")
            return
        }
        let started = services.clock.monotonic()
        let (handle, versions) = try services.runner.regenerate(threadID: threadID, model: currentModel)
        let kept = versions == 1 ? "the previous answer is kept" : "\(versions) earlier answers are kept"
        say(style.dim("Answering again: \(Terminal.sanitize(String(text.prefix(80)), keepNewlines: false)) (\(kept))"))
        await follow(handle, started: started)
    }

    func showDay(_ argument: String) throws {
        let today = services.journal.today()
        let day: CalendarDay
        switch argument.lowercased() {
        case "", "today": day = today
        case "yesterday": day = try today.adding(days: -1)
        default:
            if let offset = Int(argument), offset <= 0 {
                day = try today.adding(days: offset)
            } else {
                day = try CalendarDay(parsing: argument)
            }
        }
        sayView(JournalViews.day(try services.journal.dayView(day), today: today))
    }

    /// Charts fit the terminal (80 columns when not one), colour as the session's style, Unicode
    /// when the locale is UTF-8.
    var chartOptions: ChartOptions {
        ChartOptions(width: writer.width > 0 ? Terminal.width() : 80, color: style.enabled,
                     unicode: services.unicodeCharts)
    }

    func showMonth(_ argument: String) throws {
        let today = services.journal.today()
        var year = today.year, month = today.month
        if !argument.isEmpty {
            let parts = argument.split(separator: "-")
            guard parts.count == 2, parts[0].count == 4, let y = Int(parts[0]), let m = Int(parts[1]), (1900...2200).contains(y), (1...12).contains(m) else {
                say("Usage: /month [YYYY-MM], e.g. /month \(today.description.prefix(7))")
                return
            }
            year = y; month = m
        }
        say(try Charts.month(of: services.journal, year: year, month: month, options: chartOptions))
    }

    func showUsage() throws {
        let thread = try services.store.usageTotals(threadID: threadID)
        let now = services.journal.now()
        let day = try services.store.usageTotals(dayContaining: now.timeIntervalSince1970,
                                                 secondsFromGMT: services.journal.timeZone.secondsFromGMT(for: now))
        say("This thread: \(thread.rounds) model rounds · " + Self.usageLine(thread))
        say("Today, all threads: \(day.rounds) model rounds · " + Self.usageLine(day))
        for line in try services.searchUsage?(threadID, now.timeIntervalSince1970, services.journal.timeZone.secondsFromGMT(for: now)) ?? [] {
            say(line)
        }
        say(style.dim("Costs are estimates from ofj's price table."))
    }

    static func usageLine(_ t: UsageTotals) -> String {
        let n = { (v: Int) in JournalViews.number(Double(v), places: 0) }
        let u = t.usage
        let cost = t.costUSD == 0 ? "$0.00" : String(format: "$%.4f", t.costUSD)
        let unknown = t.roundsWithoutCost > 0 ? " (+\(t.roundsWithoutCost) rounds of unknown cost)" : ""
        return "input \(n(u.inputTokens)) (cached \(n(u.cachedInputTokens))) · output \(n(u.outputTokens)) (reasoning \(n(u.reasoningTokens))) · "
            + cost + unknown
    }
}
