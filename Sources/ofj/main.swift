// ofj entry point: the command table (Commands/OfjCommands.swift) parses; this file runs the handler.
import Base
import CommandLineKit
import Foundation
import Journal
import Nutrition
import OutputSafety
import REPL
import Views
#if canImport(Glibc)
import Glibc
import Settings
#endif

let version = "0.1.0"

func writeOut(_ s: String, newline: Bool = true) { Console.out(newline ? s + "\n" : s) }
/// Errors quote what was typed, names and messages from outside: sanitised like every such text.
func writeErr(_ s: String) { Console.err(("ofj: " + TerminalText.sanitize(s) + "\n")) }

/// One line on stderr and the exit status for an error.
func report(_ error: any Error) -> Int32 {
    switch error {
    case let e as CLIError:
        writeErr(capped(e.description))
        return e.status
    case let e as UsageError:
        writeErr(capped(e.message) + " (see \(e.command ?? "ofj") --help)")
        return 2
    case let e as JournalError:
        // Invalid input is a usage error (exit 2); other journal failures are runtime ones.
        writeErr(capped(Terminal.sanitize(OfjDatabase.explain(e.description), keepNewlines: false)))
        if case .invalid = e { return 2 }
        if case .nutrition = e { return 2 }
        return 1
    case let e as NutritionError:
        // Every nutrition error is about input: a unit, amount, name or date that cannot be used.
        writeErr(capped(Terminal.sanitize(e.description, keepNewlines: false)))
        return 2
    case let e as InvalidDate:
        writeErr(capped(Terminal.sanitize(e.description, keepNewlines: false)))
        return 2
    default:
        writeErr(capped(Terminal.sanitize(OfjDatabase.explain("\(error)"), keepNewlines: false)))
        return 1
    }
}

/// An error line never repeats a huge argument whole (a 100 KB value is cut, the line stays readable).
func capped(_ message: String) -> String {
    message.split(separator: "\n", omittingEmptySubsequences: false)
        .map { $0.count > 300 ? String($0.prefix(300)) + "…" : String($0) }.joined(separator: "\n")
}

let arguments = Array(CommandLine.arguments.dropFirst())
// `ofj --version` alone answers before the environment is read and the command table is built
// (two thirds of the rest of its start-up; issue 39). With other arguments the table decides.
if arguments == ["--version"] || arguments == ["-V"] {
    writeOut("ofj \(version)")
    exit(0)
}
let environment = ProcessInfo.processInfo.environment
let context = CLIContext(paths: AppPaths(environment: environment), environment: environment, version: version)

// A closed pipe is an error return from write, not a signal that kills a half-done command.
signal(SIGPIPE, SIG_IGN)
let outcome: ParseOutcome
do { outcome = try OfjCommands.table(context).parse(arguments) } catch { exit(report(error)) }
switch outcome {
case .help(let text):
    writeOut(text)
    exit(0)
case .run(_, let invocation) where invocation.path.isEmpty && invocation.arguments.has("--version"):
    writeOut("ofj \(version)")
    exit(0)
case .run(let command, let invocation):
    // A mode may run its own handler (`ofj log --barcode` asks the network).
    switch command.action(for: invocation.arguments) {
    case .sync(let run)?:
        // Commands that need no concurrency run on the plain main thread: the async runtime is
        // started only for the assistant, replay and diagnostics (it shows in `ofj day`'s start-up time).
        let status: Int32
        do { status = try run(invocation) } catch { exit(report(error)) }
        // A change made by a one-shot command reaches the other machines now, as after `ofj ask`
        // (at most 2 s; skipped while the sync database is backing off; what is not sent stays
        // pending for the next sync).
        if status == 0, invocation.access == .write, invocation.path.first != "sync",
           let queue = SyncCommand.queueToSyncAtExit(paths: context.paths, environment: environment) {
            Task {
                await SyncCommand.background(queue: queue, environment: environment, version: version)?.shutdown(timeout: 2)
                exit(status)
            }
            dispatchMain()
        }
        exit(status)
    case .async(let run)?:
        // The main queue serves the REPL's main actor meanwhile.
        Task { @MainActor in
            do { exit(try await run(invocation)) } catch { exit(report(error)) }
        }
        dispatchMain()
    case nil:
        exit(2)
    }
}
