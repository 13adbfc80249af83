// `ofj sync`, `ofj sync status`, `ofj sync conflicts`, and the REPL's background sync.
import CommandLineKit
import Foundation
import HTTP
import Providers
import REPL
import SQLiteKit
import Sync
#if canImport(Glibc)
import Glibc
import Settings
#endif

extension OfjCommands {
    static func sync(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("sync", summary: "sync the journal with a Turso (libSQL) database: push local changes, then pull the other machines' (OFJ_SYNC_URL, OFJ_SYNC_TOKEN)",
                    subcommands: [
                        CommandSpec("status", summary: "last success, pending local changes, remote position, conflicts resolved", access: .read,
                                    action: .sync { inv in try SyncCommand.status(ctx, inv) }),
                        CommandSpec("conflicts", summary: "local edits a newer edit from another machine replaced", access: .read,
                                    action: .sync { inv in try SyncCommand.conflicts(ctx, inv) }),
                        CommandSpec("quarantine", summary: "changes from the sync database kept aside because they break the journal's rules (kind, id, reason; never their content)",
                                    access: .read, action: .sync { inv in try SyncCommand.quarantine(ctx, inv) }),
                    ],
                    access: .write,
                    action: .async { inv in try await SyncCommand.run(ctx, inv) })
    }
}

enum SyncCommand {
    /// The sync configuration from the environment, the credentials file and config.json.
    /// The database to push after a one-shot command changed it: nil when sync is not configured
    /// (the common case costs one read of config.json) or the file cannot be opened.
    static func queueToSyncAtExit(paths: AppPaths, environment: [String: String]) -> DatabaseQueue? {
        guard (try? configuration(environment: environment)) != nil else { return nil }
        return try? OfjDatabase.open(path: paths.databasePath, access: .write)
    }

    static func configuration(environment: [String: String]) throws -> SyncConfiguration? {
        let files = ProviderFiles.load(environment: environment)
        let config = ConfigFile(AppPaths(environment: environment)).text()
        do {
            return try SyncConfiguration.resolve(environment: environment, credentials: files.credentials, configJSON: config)
        } catch let e as SyncConfiguration.Problem {
            throw CLIError(e.description)
        }
    }

    static func engine(queue: DatabaseQueue, configuration: SyncConfiguration, version: String) -> SyncEngine {
        SyncEngine(local: SyncLocal(queue: queue), configuration: configuration, transport: CurlTransport(), appVersion: version)
    }

    /// `ofj sync`: push then pull, a progress line on a terminal, the counts at the end.
    static func run(_ ctx: CLIContext, _ inv: CommandInvocation) async throws -> Int32 {
        let environment = ctx.environment
        guard let configuration = try configuration(environment: environment) else {
            throw CLIError("sync is not set up: set OFJ_SYNC_URL (libsql://… or https://…) and OFJ_SYNC_TOKEN, or \"sync\": {\"url\": …} in config.json (README, \"One journal on several machines\")")
        }
        let queue = try OfjCommands.openDatabase(ctx, inv)
        var engine = engine(queue: queue, configuration: configuration, version: ctx.version)
        // OFJ_SYNC_FAULT=<phase>: SIGKILL at that phase, for the crash sweep (tests, tools/sync-crash-sweep.sh).
        if let fault = environment["OFJ_SYNC_FAULT"], !fault.isEmpty {
            guard SyncEngine.phases.contains(fault) else {
                throw CLIError("OFJ_SYNC_FAULT=\(fault) is not a sync phase; use one of: \(SyncEngine.phases.joined(separator: ", "))", status: 2)
            }
            engine.phase = { if $0 == fault { kill(getpid(), SIGKILL) } }
        }
        if isatty(STDERR_FILENO) == 1 {
            engine.progress = { r in Console.err("\r\u{1B}[2K" + SyncText.line(r)) }
        }
        let report = await engine.run()
        if engine.progress != nil { Console.err("\r\u{1B}[2K") }
        if let error = report.error {
            if report.pushed + report.pulled > 0 { Console.out(SyncText.line(report) + "\n") }
            throw CLIError(error)
        }
        Console.out(SyncText.line(report) + "\n")
        return 0
    }

    static func status(_ ctx: CLIContext, _ inv: CommandInvocation) throws -> Int32 {
        var problem: String?
        var configuration: SyncConfiguration?
        do { configuration = try self.configuration(environment: ctx.environment) } catch { problem = "\(error)" }
        let queue = try OfjCommands.openDatabase(ctx, inv)
        Console.out(SyncText.status(try SyncLocal(queue: queue).status(threads: configuration?.threads ?? true), configuration: configuration, problem: problem))
        return 0
    }

    static func conflicts(_ ctx: CLIContext, _ inv: CommandInvocation) throws -> Int32 {
        let queue = try OfjCommands.openDatabase(ctx, inv)
        let local = SyncLocal(queue: queue)
        Console.out(SyncText.conflicts(try local.conflicts()))
        let quarantined = try local.status().quarantined
        if quarantined > 0 { Console.out("\(quarantined) change\(quarantined == 1 ? "" : "s") from other machines quarantined, not applied: ofj sync quarantine lists them\n") }
        return 0
    }

    static func quarantine(_ ctx: CLIContext, _ inv: CommandInvocation) throws -> Int32 {
        let queue = try OfjCommands.openDatabase(ctx, inv)
        Console.out(SyncText.quarantine(try SyncLocal(queue: queue).quarantined()))
        return 0
    }

    /// The REPL's background sync, nil when sync is not configured (or misconfigured: `/sync` says why).
    static func background(queue: DatabaseQueue, environment: [String: String], version: String) -> SyncBackground? {
        guard let configuration = try? configuration(environment: environment) else { return nil }
        return SyncBackground(engine: engine(queue: queue, configuration: configuration, version: version))
    }

    /// `/sync`: one sync now, then the status.
    static func slash(_ background: SyncBackground?, queue: DatabaseQueue, environment: [String: String]) async -> String {
        guard let background else {
            do { _ = try configuration(environment: environment) } catch { return "Sync is misconfigured: \(error)" }
            return "Sync is off: set OFJ_SYNC_URL and OFJ_SYNC_TOKEN (README, \"One journal on several machines\")."
        }
        let report = await background.runOnce()
        var text = SyncText.line(report)
        if let e = report.error { text += "\n✗ " + e }
        if let s = try? SyncLocal(queue: queue).status(threads: background.engine.configuration.threads) {
            text += "\npending local changes: \(s.pending), conflicts resolved: \(s.conflicts)\(s.conflicts > 0 ? " (ofj sync conflicts)" : "")"
            if s.quarantined > 0 { text += ", quarantined: \(s.quarantined) (ofj sync quarantine)" }
        }
        return text
    }
}
