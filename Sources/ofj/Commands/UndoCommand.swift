// `ofj undo [N] [--yes]`: shows what the last journal write(s) did and what undoing restores,
// asks y/n on a terminal (`--yes` for scripts), then undoes them through the journal store as one
// new recorded write, so `ofj undo` again redoes them.
import CommandLineKit
import Foundation
import Journal
import OutputSafety
import REPL
import Views

extension OfjCommands {
    static func undo(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("undo", summary: "undo the last change to the journal (or the last N), after showing what it did and what undoing restores; asks y/n on a terminal (--yes for scripts); undo again redoes it",
                    details: "Every change to the journal, Food Bank and goals is recorded with what it replaced, whoever made it (the assistant, ofj mcp, a command).\nUndo refuses, changing nothing, when what the change wrote was changed since.",
                    arguments: [PositionalSpec("N", .integer(1...1000), optional: true)],
                    options: [.flag("--yes", "undo without asking (for scripts)")],
                    access: .write,
                    action: .sync { inv in
                        let journal = try openJournal(ctx, inv)
                        let count = inv.arguments.positionals.first.flatMap { Int($0) } ?? 1
                        return try UndoCommand.run(journal: journal, count: count, yes: inv.arguments.has("--yes"), ask: UndoCommand.terminalAsk,
                                                   killInside: ctx.environment["OFJ_FAULT"] == "inside_undo_transaction", out: { writeOut($0) })
                    })
    }
}

enum UndoCommand {
    /// - Parameters:
    ///   - ask: reads the answer to the question on a terminal; nil when stdin is not one.
    /// - Parameters:
    ///   - killInside: the process SIGKILLs itself inside the undo's transaction, before COMMIT
    ///     (`OFJ_FAULT=inside_undo_transaction`, for tools/crash-sweep.sh only).
    static func run(journal: JournalStore, count: Int, yes: Bool, ask: ((String) -> String?)?, killInside: Bool = false,
                    out: (String) -> Void) throws -> Int32 {
        let plan = try journal.undoPlan(last: count)
        guard !plan.steps.isEmpty else { throw CLIError("nothing to undo: no change to the journal has been recorded yet") }
        out(plan.lines(in: journal.timeZone).joined(separator: "\n"))
        if plan.steps.count < count { out("(only \(plan.steps.count) write\(plan.steps.count == 1 ? " is" : "s are") recorded)") }
        if let first = plan.conflicts.first {
            for line in plan.conflicts.dropFirst() { out("refused: " + line) }
            throw CLIError("refused: \(first); nothing was undone")
        }
        if !yes {
            guard let ask else {
                throw CLIError("ofj undo asks before undoing and stdin is not a terminal; add --yes to undo without asking", status: 2)
            }
            let answer = ask("Undo \(plan.steps.count == 1 ? "this" : "these \(plan.steps.count)")? [y/N] ")?.trimmingCharacters(in: .whitespaces).lowercased()
            guard answer == "y" || answer == "yes" else {
                out("Nothing was undone.")
                return 1
            }
        }
        if killInside {
            try journal.queue.write { db in
                try journal.undo(last: count, expected: plan.steps.map(\.id), in: db)
                kill(getpid(), SIGKILL)
            }
        }
        try journal.undo(last: count, expected: plan.steps.map(\.id))
        out("✓ Undone. `ofj undo` again redoes it.")
        return 0
    }

    /// The question on the terminal, the answer from it; nil when stdin is not a terminal.
    static var terminalAsk: ((String) -> String?)? {
        guard Terminal.isTTY(STDIN_FILENO) else { return nil }
        return { question in
            FileHandle.standardError.write(Data(question.utf8))
            return readLine(strippingNewline: true)
        }
    }
}
