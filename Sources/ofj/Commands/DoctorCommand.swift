// `ofj doctor`: which providers are usable and why not, config.json's problems, the database file
// (quick_check) and its permissions, research and sync settings; never a key.
import CommandLineKit
import Foundation
import HTTP
import OutputSafety
import Providers
import Research
import REPL
import Settings

extension OfjCommands {
    static func doctor(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("doctor", summary: "which providers are usable, and why not (never prints a key, nor credentials inside URLs); warns when the data folder is readable by other users; checks the database file (quick_check) and names journal rows that break the journal's rules, with what to do; exit 1 when config.json has a problem, the database is damaged or such rows exist",
                    // Reads the file for quick_check through its own open (DatabaseHealth.doctorLine),
                    // which neither migrates nor writes, so that a damaged file can be checked.
                    access: .read,
                    action: .async { _ in try await Launcher(ctx).doctor() })
    }
}

extension Launcher {
    func doctor() async throws -> Int32 {
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
        // A config.json naming an unknown provider or model, or with a malformed field, is a problem (exit 1).
        let configProblems = ProviderFiles.configProblems(environment: environment)
            + [MealConfig.load(configPath: paths.configPath).problem].compactMap { $0 }
        for problem in files.problems where problem != files.credentialsProblem { show("-- \(problem)") }
        for problem in configProblems { show("-- \(problem)") }
        // Approval rules are checked against every tool's schema; a file that fails is not used at all.
        let ruleProblems = Toolbox.ruleProblems(path: paths.configPath)
        for problem in ruleProblems { show("-- \(problem) (no approval rule applies until this is fixed)") }
        // Rules that load but allow more than they seem to (a warning: exit status unchanged).
        for warning in Toolbox.ruleWarnings(path: paths.configPath) { show("-- warning: \(warning)") }
        let (databaseLine, damaged) = DatabaseHealth.doctorLine(paths.databasePath)
        show(databaseLine)
        // Rows the views cannot read (written by another libSQL client, or by an older sync): named, with what to do.
        let rowProblems = damaged ? [] : DatabaseHealth.journalRowProblems(paths.databasePath)
        for line in rowProblems { show("-- " + line) }
        show(ProviderDoctor.render(lines))
        // The selected model's context window (a local server is asked for it, and llama.cpp for
        // tool support): where the figure comes from matters as much as the figure.
        if let resolved = try? ProviderResolver.resolve(environment: environment, file: files.file, credentials: files.credentials),
           resolved.wire != .offline {
            for line in await ContextWindows(transport: CurlTransport(), file: files.file).doctorLines(resolved, model: resolved.model) { show(line) }
        }
        // Which web search the selected provider gets (config.json "research", OFJ_RESEARCH).
        let setting = App.researchSetting(environment: environment, credentials: files.credentials, file: files.file)
        let settings = files.credentials.merging(environment) { _, env in env }
        let research = (try? ProviderResolver.resolve(environment: environment, file: files.file, credentials: files.credentials))
            .map { $0.research(setting: setting, settings: settings) }
            ?? ResearchChoice.resolve(setting: setting, provider: "offline", wire: .offline, model: "offline", settings: settings)
        show(research.doctorLine)
        if let sink = environment["TURSO_DATABASE_URL"], !sink.isEmpty { show("diagnostics: delivered to \(sink)") }
        var syncProblem = false
        do {
            if let sync = try SyncCommand.configuration(environment: environment) { show("sync: \(sync) (ofj sync status)") }
        } catch {
            show("-- sync: \(error)")
            syncProblem = true
        }
        // A warning, not a failure (the exit status stays 0): the journal works, but other users
        // of this machine can read it.
        for warning in Self.permissionWarnings(paths) { show("warning: " + warning) }
        return files.problems.contains { $0 != files.credentialsProblem } || !configProblems.isEmpty || !ruleProblems.isEmpty || damaged || syncProblem || !rowProblems.isEmpty ? 1 : 0
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
