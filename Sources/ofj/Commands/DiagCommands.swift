// `ofj diag status|flush|export`: the diagnostics outbox and its delivery to a Turso sink.
import CommandLineKit
import Diagnostics
import Foundation

extension OfjCommands {
    static func diag(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("diag", summary: "diagnostics delivery",
                    subcommands: [
                        CommandSpec("status", summary: "what is pending, delivered and dropped", access: .read,
                                    action: .async { inv in try await Launcher(ctx).diag(.status, inv) }),
                        CommandSpec("flush", summary: "deliver pending events now", access: .write,
                                    action: .async { inv in try await Launcher(ctx).diag(.flush, inv) }),
                        CommandSpec("export", summary: "the sink's events as CSV (--local: the outbox's pending events, no sink needed)",
                                    options: [.value("--since", "DURATION", .duration, "how far back (e.g. 14d, 48h, 30m)", default: "14d",
                                                     excludes: ["--local"]),
                                              .flag("--local", "export the outbox's pending events instead of the sink's"),
                                              .output, .force],
                                    // The sink's export records its delivery state; the outbox's only reads.
                                    modes: [ModeSpec("local export", selector: "--local", options: [], takesArguments: true,
                                                     hint: "--local exports the outbox's pending events", access: .read)],
                                    access: .write,
                                    action: .async { inv in try await Launcher(ctx).diag(.export, inv) }),
                    ])
    }
}

extension Launcher {
    enum DiagCommand { case status, flush, export }

    func diag(_ command: DiagCommand, _ inv: CommandInvocation) async throws -> Int32 {
        let result: CommandOutput
        switch command {
        case .status:
            result = try App(paths: paths, environment: environment, appVersion: version, access: inv.access).diagnosticsCommands.status()
        case .flush:
            result = try await App(paths: paths, environment: environment, appVersion: version, access: inv.access).diagnosticsCommands.flush()
        case .export:
            let p = inv.arguments
            var since = TursoSink.retention
            if let text = p.value("--since") {
                guard let seconds = DiagnosticsCommands.parseDuration(text) else {
                    throw UsageError("--since takes a duration like 14d, 48h or 30m", command: "ofj diag export")
                }
                since = seconds
            }
            let app = try App(paths: paths, environment: environment, appVersion: version, access: inv.access)
            let output = p.value("--output")
            result = p.has("--local") ? app.diagnosticsCommands.exportLocal(to: output, overwrite: p.has("--force"))
                : await app.diagnosticsCommands.export(since: since, to: output, overwrite: p.has("--force"))
        }
        if !result.stdout.isEmpty { Console.out(result.stdout) }
        if !result.stderr.isEmpty { Console.err(result.stderr) }
        return result.exitCode
    }
}
