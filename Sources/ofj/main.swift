// ofj entry point: argument parsing and wiring only.
import Foundation
import Journal
import Nutrition
import OutputSafety
import REPL
import ReferenceFoods
#if canImport(Glibc)
import Glibc
#endif

let version = "0.1.0"

let help = """
    ofj \(version) — OpenFoodJournal for the terminal

    usage: ofj                      start the assistant (REPL)
           ofj --resume             reopen the last thread
           ofj ask TEXT [--yes] [--json] [--thread ID] [--provider NAME] [--model NAME]
           ofj day [DATE] [--json]  a day of the journal
           ofj log …                log an entry (ofj log --help)
           ofj foods [QUERY]        search your Food Bank
           ofj ref QUERY            search USDA reference foods
           ofj goals [set …]        show or set daily goals
           ofj backup export|import
           ofj export csv
           ofj diag status|flush|export
           ofj replay FILE… [--update]
           ofj doctor               check the configuration
           ofj --version | --help

    Data lives in $OFJ_HOME or ~/.local/share/ofj. NO_COLOR turns colour off.
    """

func writeOut(_ s: String) { Console.out((s + "\n")) }
/// Errors quote what was typed, names and messages from outside: sanitised like every such text.
func writeErr(_ s: String) { Console.err(("ofj: " + TerminalText.sanitize(s) + "\n")) }

let arguments = Array(CommandLine.arguments.dropFirst())
let environment = ProcessInfo.processInfo.environment
let paths = AppPaths(environment: environment)

func openJournal(salvage: Bool = false) throws -> JournalStore {
    try paths.ensureDataDirectory()
    let queue = try salvage ? OfjDatabase.openForSalvage(path: paths.databasePath) : OfjDatabase.open(path: paths.databasePath)
    return JournalStore(queue: queue, timeZone: .current)
}

func runJournalCommand(_ name: String, _ args: [String]) throws {
    let helpText: String
    switch name {
    case "day": helpText = JournalCommands.dayHelp
    case "log": helpText = JournalCommands.logHelp
    case "foods": helpText = JournalCommands.foodsHelp
    case "ref": helpText = JournalCommands.refHelp
    case "goals": helpText = JournalCommands.goalsHelp
    case "backup": helpText = JournalCommands.backupHelp
    default: helpText = JournalCommands.exportHelp
    }
    if args.contains("--help") || args.contains("-h") {
        writeOut(helpText)
        return
    }
    // Only `ref` and `log --ref` read the bundled reference foods; other commands do not even
    // locate the resource bundle (it shows in their start-up time).
    let needsReference = name == "ref" || (name == "log" && args.contains("--ref"))
    let reference = needsReference ? ReferenceDatabase.shared : nil
    if let reference {
        do { try reference.load() } catch { throw CLIError("the bundled reference foods could not be read (\(error)); reinstall ofj") }
    }
    let salvage = name == "backup" && args.first == "export" && args.contains("--salvage")
    let commands = JournalCommands(journal: try openJournal(salvage: salvage), reference: reference, out: writeOut)
    switch name {
    case "day": try commands.day(args)
    case "log": try commands.log(args)
    case "foods": try commands.foods(args)
    case "ref": try commands.ref(args)
    case "goals": try commands.goals(args)
    case "backup": try commands.backup(args)
    default: try commands.export(args)
    }
}

/// Commands that need no concurrency run on the plain main thread: the async runtime is started
/// only for the assistant, replay and diagnostics (it shows in `ofj day`'s start-up time).
func runSynchronously() -> Int32? {
    do {
        switch arguments.first {
        case "--version", "-V":
            writeOut("ofj \(version)")
        case "--help", "-h", "help":
            writeOut(help)
        case "day", "log", "foods", "ref", "goals", "backup", "export":
            try runJournalCommand(arguments[0], Array(arguments.dropFirst()))
        default:
            return nil
        }
        return 0
    } catch {
        return report(error)
    }
}

/// One line on stderr and the exit status for an error.
func report(_ error: any Error) -> Int32 {
    switch error {
    case let e as CLIError:
        writeErr(e.description)
        return e.status
    case let e as UsageError:
        writeErr("\(e.message) (see ofj --help)")
        return 2
    case let e as JournalError:
        // Invalid input is a usage error (exit 2); other journal failures are runtime ones.
        writeErr(Terminal.sanitize(e.description, keepNewlines: false))
        if case .invalid = e { return 2 }
        if case .nutrition = e { return 2 }
        return 1
    case let e as NutritionError:
        // Every nutrition error is about input: a unit, amount, name or date that cannot be used.
        writeErr(Terminal.sanitize(e.description, keepNewlines: false))
        return 2
    default:
        writeErr(Terminal.sanitize("\(error)", keepNewlines: false))
        return 1
    }
}

// A closed pipe is an error return from write, not a signal that kills a half-done command.
signal(SIGPIPE, SIG_IGN)
if let status = runSynchronously() { exit(status) }
// Everything else runs in a task; the main queue serves the REPL's main actor meanwhile.
let launcher = Launcher(arguments: arguments, environment: environment, paths: paths, version: version)
Task { @MainActor in exit(await launcher.run()) }
dispatchMain()
