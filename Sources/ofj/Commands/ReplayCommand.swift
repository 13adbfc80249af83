// `ofj replay FILE… [--update]`: runs transcripts and reports differences.
import Agent
import CommandLineKit
import Diagnostics
import Foundation
import HTTP
import PackagedFoods
import Providers
import Journal
import OutputSafety
import REPL
import Research
import SQLiteKit
import Transcripts

extension OfjCommands {
    static func replay(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("replay", summary: "replay transcripts (see docs/TRANSCRIPTS.md)",
                    arguments: [PositionalSpec("FILE", .file, variadic: true)],
                    options: [.flag("--update", "rewrite each file with what the replay shows"), .flag("--quiet", "print only failures and the total")],
                    action: .async { inv in await ReplayCommand(version: ctx.version).run(inv.arguments) })
    }
}

struct ReplayCommand {
    let version: String

    @MainActor
    func run(_ p: ParsedArguments) async -> Int32 {
        let environment = Self.environment(version: version)
        var failed = 0
        var passed = 0
        for path in p.positionals {
            guard let data = FileManager.default.contents(atPath: path) else {
                print("FAIL \(path): cannot read the file")
                failed += 1
                continue
            }
            let file: TranscriptFile
            do { file = try TranscriptFile.parse(String(decoding: data, as: UTF8.self), path: path) } catch {
                print("FAIL \(TerminalText.sanitize("\(error)"))") // a transcript is untrusted text
                failed += 1
                continue
            }
            // The replay's own folder (seeded journal data: 0700); nothing a transcript says can
            // name a file outside it.
            let dir = NSTemporaryDirectory() + "ofj-replay-" + UUID().uuidString
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let result = await Replayer(file: file, environment: environment, directory: dir).run()
            if p.has("--update") {
                do { try Data(result.updatedText.utf8).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
                    print("FAIL \(path): cannot write: \(error)")
                }
                print("updated \(path)")
                passed += 1
            } else if result.passed {
                if !p.has("--quiet") { print("ok   \(path)") }
                passed += 1
            } else {
                print("FAIL \(path)\n\(TerminalText.sanitize(result.report))")
                failed += 1
            }
        }
        print("transcripts: \(passed) passed, \(failed) failed")
        return failed == 0 ? 0 : 1
    }

    /// The product's tools, prompt, migrations and offline assistant for replays.
    static func environment(version: String) -> ReplayEnvironment {
        ReplayEnvironment(
            makeTools: { Toolbox.registry(journal: $0, packaged: false) },
            systemPrompt: { _ in Toolbox.systemPrompt(packaged: false) },
            contextNote: { Toolbox.contextNote(journal: $0) },
            // The executable's own composition, Sync's migrations included.
            registerMigrations: { OfjDatabase.registerMigrations(into: &$0) },
            makeModel: { provider, now, timeZone in
                provider == "offline" ? Toolbox.offlineAssistant(now: now, timeZone: timeZone) : nil
            },
            version: version,
            makeAssembler: { store, journal, clock, diagnostics, contextWindow in
                // Scripted models get a small window when the transcript asks for one, so that a
                // few turns cross the 80% line; the product's context manager does the rest.
                // No model of a replay is registered with `ContextWindows`, so no server is asked.
                var settings = App.contextSettings(journal: journal, windows: ContextWindows(transport: CurlTransport(), file: nil))
                if let contextWindow {
                    settings.defaultBudget = .modelMaximum
                    settings.limits = { _, _ in ModelLimits(contextWindow: contextWindow, maxOutputTokens: 256) }
                }
                return CompactingAssembler(store: store, settings: settings, clock: clock, diagnostics: diagnostics)
            },
            // The product's packaged tools and REPL scanner, with products from the replay's own cache
            // only: the client's transport refuses every request (a transcript never reaches the network).
            packaged: ReplayPackagedHooks(
                makeTools: { Toolbox.registry(journal: $0, foods: Replayer.packagedFoods(journal: $0, version: version)) },
                systemPrompt: { _ in Toolbox.systemPrompt() },
                makeScanner: { PackagedCommands.scanner(journal: $0, foods: Replayer.packagedFoods(journal: $0, version: version)) }),
            research: { journal, transport, diagnostics in
                // Tavily's shape over the seeded transport; the base URL is never dialled.
                let sources = SourceStore(queue: journal.queue)
                let search = SearchConfiguration(backend: .tavily, apiKey: "replay", baseURL: "http://replay.invalid")
                let tools = Toolbox.registry(journal: journal, packaged: false, sources: sources, search: search, searchTransport: transport,
                                             diagnostics: diagnostics)
                return ReplayResearch(tools: tools, sourcesReport: { try sources.report(threadID: $0) },
                                      sourceLinks: { try sources.footer(threadID: $0, runID: $1) },
                                      searchUsage: { try sources.usageLines(threadID: $0, now: $1, secondsFromGMT: $2) })
            })
    }

    /// Replays a just-recorded transcript offline and writes the screen the replay shows as its
    /// expected output, so the file replays cleanly (live timings differ from replayed ones).
    @MainActor
    static func settle(path: String, version: String) async -> Bool {
        guard let data = FileManager.default.contents(atPath: path),
              let file = try? TranscriptFile.parse(String(decoding: data, as: UTF8.self), path: path) else { return false }
        let dir = NSTemporaryDirectory() + "ofj-record-" + UUID().uuidString
        // 0700: the replay database holds a copy of the journal.
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let result = await Replayer(file: file, environment: environment(version: version), directory: dir).run()
        // Still owner-only: the recording holds the journal and what was typed.
        do { try PrivateFile.write(Array(result.updatedText.utf8), to: path, overwrite: true) } catch { return false }
        return true
    }
}
