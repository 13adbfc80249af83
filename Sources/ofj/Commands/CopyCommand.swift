// `ofj copy DATE [MEAL] [--to DATE [MEAL]]` (issue 34 §2): a meal or a whole day logged again,
// in one transaction (one undo step), each copy with its original's nutrients.
import CommandLineKit
import Foundation
import Journal
import Nutrition
import OutputSafety
import Views

extension OfjCommands {
    static func copy(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("copy", summary: "log a meal or a whole day again: ofj copy yesterday breakfast [--to today lunch]; one undo step",
                    details: """
                        Copies the entries of DATE (only MEAL's when given) to --to (default today), each to its own meal
                        or to TO_MEAL. The copies have the originals' amounts and nutrients. When the day already has
                        the same entries it asks on a terminal (--yes copies them again without asking).
                        """,
                    arguments: [PositionalSpec("DATE", .date), PositionalSpec("MEAL", .suggestions(mealNames), optional: true),
                                PositionalSpec("TO_MEAL", .suggestions(mealNames), optional: true)],
                    options: [.value("--to", "DATE", .date, "the day to copy to", default: "today"), .yes, .json],
                    access: .write,
                    action: journal(ctx) { c, inv in try c.copy(inv.arguments) })
    }
}

extension JournalCommands {
    func copy(_ p: ParsedArguments) throws {
        func meal(_ text: String) throws -> Meal {
            do { return try Meal(parsing: text) } catch { throw CLIError("invalid meal '\(text.prefix(40))': use breakfast, lunch, dinner or snack", status: 2) }
        }
        let from = try parseDay(p.positionals.first)
        let fromMeal = try p.positionals.dropFirst().first.map(meal)
        let toMeal = try p.positionals.dropFirst(2).first.map(meal)
        let to = try p.value("--to").map { try parseDay($0) } ?? journal.today()
        if from == to && (toMeal ?? fromMeal) == fromMeal { throw CLIError("that copies \(from) onto itself; give --to DATE or another meal", status: 2) }
        let entries = try journal.queue.read { try journal.entriesToCopy(from: from, meal: fromMeal, in: $0) }
        guard !entries.isEmpty else { throw CLIError("nothing is logged \(fromMeal.map { "at \($0.rawValue) " } ?? "")on \(from); nothing was copied") }
        let twins = try journal.queue.read { try journal.copiesAlreadyThere(entries, to: to, meal: toMeal, in: $0) }
        if twins > 0 && !p.has("--yes") {
            let which = twins == entries.count ? (twins == 1 ? "this entry" : "these \(twins) entries") : "\(twins) of these \(entries.count) entries"
            let question = "\(to) already has \(which); copy \(entries.count == 1 ? "it" : "them") again? [y/N] "
            switch JournalOps.terminalAsk(question) {
            case nil: throw CLIError("\(to) already has \(which); add --yes to copy again", status: 1)
            case false?: throw CLIError("nothing was copied", status: 1)
            case true?: break
            }
        }
        let copies = try journal.queue.write { try journal.copyEntries(entries, to: to, meal: toMeal, in: $0) }
        if p.has("--json") { try json(copies); return }
        var lines = ["Copied \(copies.count) entr\(copies.count == 1 ? "y" : "ies") from \(from)\(fromMeal.map { " " + $0.rawValue } ?? "") to \(to)\(toMeal.map { " " + $0.rawValue } ?? ""):"]
        for e in copies { lines.append("  \(JournalStore.shortID(e.id))  \(TerminalText.sanitize(e.mealName, keepNewlines: false)): " + TerminalText.sanitize(JournalViews.entryLine(e))) }
        lines.append("Undo it in one step with `ofj undo`.")
        out(lines.joined(separator: "\n"))
    }
}
