// /checkin and the weekly offer of it: a new calorie goal from the expenditure estimate and the
// goal rate, shown on set_goals' own card and written only when the person says yes.
import Agent
import Base
import Foundation
import Journal
import Nutrition
import Views

extension REPLSession {
    /// The banner's line offering a check-in, once a week when there is a goal and an estimate
    /// (recorded as offered, so the next start does not offer it again).
    func weeklyCheckInLine() -> String? {
        guard services.goalTool != nil else { return nil }
        let journal = services.journal
        guard let due = try? journal.queue.read({ try journal.checkInDue(in: $0) }), let kcal = due.expenditureKcal else { return nil }
        try? journal.setLastCheckIn(journal.today())
        return "Weekly check-in: your expenditure is about \(CheckIn.grouped(kcal)) kcal a day; /checkin proposes a calorie goal from it."
    }

    /// `/checkin`: the proposal's reasoning, set_goals' card, a y/N question, then exactly that change.
    func checkIn() throws {
        guard let tool = services.goalTool else { say("Check-ins are not available in this session."); return }
        let journal = services.journal
        let (estimate, profile, goals) = try journal.queue.read { db in
            (try journal.expenditure(in: db), try journal.profile(in: db), try journal.goals(in: db))
        }
        let current = goals["energy_kcal"]
        let proposal: CheckInProposal
        do { proposal = try CheckIn.propose(estimate: estimate, profile: profile, currentGoalKcal: current) } catch let e as CheckInUnavailable {
            say("No check-in yet: " + e.description + ".")
            return
        }
        try? journal.setLastCheckIn(journal.today())
        say(Terminal.sanitize(proposal.reasoning, keepNewlines: false))
        if proposal.isNoChange {
            say("Your calorie goal of \(CheckIn.grouped(current ?? 0)) kcal already fits: nothing to change.")
            return
        }
        let context = ToolContext(threadID: threadID, runID: "checkin", callID: services.ids.next(),
                                  now: WallTime(secondsSince1970: journal.now().timeIntervalSince1970))
        let arguments: JSONValue = .object(["goals": .object(["energy_kcal": .number(proposal.targetKcal)])])
        let planned = try journal.queue.read { try tool.preview(arguments: arguments, context: context, database: $0) }
        var card = [style.bold("┌ Check-in: \(tool.name)")]
        for line in Terminal.sanitize(planned.card).split(separator: "\n", omittingEmptySubsequences: false) { card.append("│ " + line) }
        output.write(card.joined(separator: "\n") + "\n")
        input.discardTypedAhead()
        guard case .line(let answer) = input.readAnswer(prompt: "└ Set this goal? [y/N] "),
              ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) else {
            say("Not changed: your calorie goal stays " + (current.map { "\(CheckIn.grouped($0)) kcal" } ?? "unset") + "; /checkin proposes it again.")
            return
        }
        let result: ToolOutput
        do {
            result = try journal.queue.write { try tool.apply(planned, context: context, database: $0) }
        } catch let e as ChangeConflict {
            say(style.yellow("✗ ") + "nothing was changed: \(Terminal.sanitize(e.message, keepNewlines: false)); /checkin again")
            return
        }
        say((result.isError ? style.yellow("✗ ") : style.green("✓ ")) + Terminal.sanitize(result.summary, keepNewlines: false) + (result.isError ? "" : ". /undo sets it back."))
    }
}

extension REPLSession {
    /// `/notes` shows the standing notes, `/notes TEXT` replaces them, `/notes clear` removes them.
    func notes(_ argument: String) throws {
        let text = argument.trimmingCharacters(in: .whitespacesAndNewlines)
        let journal = services.journal
        if text.isEmpty {
            guard let notes = try journal.notes() else {
                say("No standing notes. Add what the assistant should always know: /notes allergic to peanuts; usual coffee 250 ml flat white")
                return
            }
            say("Standing notes (\(notes.count) characters; every request carries them):")
            sayView(Terminal.sanitize(notes))
            return
        }
        if text.lowercased() == "clear" {
            try journal.setNotes("")
            say(style.green("✓ ") + "Standing notes removed. /undo puts them back.")
            return
        }
        do { try journal.setNotes(text) } catch let e as JournalError {
            say(style.yellow("✗ ") + Terminal.sanitize("\(e)", keepNewlines: false))
            return
        }
        say(style.green("✓ ") + "Standing notes saved (\(text.count) characters); the assistant sees them with every message. /undo sets them back.")
    }

    /// `/context`'s line about the standing notes: their size, and where the request carries them.
    func notesSizeLine() throws -> String {
        guard let notes = try services.journal.notes() else { return "Standing notes: none (/notes adds them)." }
        let tokens = max(1, notes.utf8.count / 4)
        return "Standing notes: \(notes.count) characters (~\(tokens) tokens), sent after the stable prefix with the time note; /notes shows them."
    }
}
