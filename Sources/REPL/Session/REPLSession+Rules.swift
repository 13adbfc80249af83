// /undo and /permissions: undoing the last journal writes, and the standing approval rules.
import Agent
import Base
import Foundation
import Journal
import Views

extension REPLSession {
    /// `/undo [N]`: shows what the last write(s) did and what undoing restores, asks, then undoes
    /// them as one new write (so `/undo` again redoes them).
    func undo(_ argument: String) throws {
        let text = argument.trimmingCharacters(in: .whitespaces)
        guard let count = text.isEmpty ? 1 : Int(text), (1...JournalStore.undoLogLength).contains(Int64(count)) else {
            say("Usage: /undo [N] — N is how many of the last writes to undo (1 to \(JournalStore.undoLogLength)).")
            return
        }
        let plan = try services.journal.undoPlan(last: count)
        guard !plan.steps.isEmpty else { say("Nothing to undo: no change to the journal has been recorded yet."); return }
        sayView(plan.lines(in: services.journal.timeZone).joined(separator: "\n"))
        if plan.steps.count < count { say("(only \(plan.steps.count) write\(plan.steps.count == 1 ? " is" : "s are") recorded)") }
        guard plan.conflicts.isEmpty else {
            for line in plan.conflicts { say(style.yellow("✗ ") + "refused: " + line) }
            say("Nothing was undone.")
            return
        }
        guard case .line(let answer) = input.readAnswer(prompt: "Undo \(plan.steps.count == 1 ? "this" : "these \(plan.steps.count)")? [y/N] "),
              ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) else {
            say("Nothing was undone.")
            return
        }
        try services.journal.undo(last: count, expected: plan.steps.map(\.id))
        say(style.green("✓ ") + "Undone. /undo again redoes it.")
    }

    /// `/permissions` lists the rules; `/permissions add DECISION TOOL [FIELD [OP] VALUE]…` (or a
    /// rule as JSON) adds one; `/permissions remove N` removes rule N.
    func permissions(_ argument: String) throws {
        guard let book = services.ruleBook else { say("Approval rules are not available in this session."); return }
        let words = argument.split(whereSeparator: \.isWhitespace).map(String.init)
        switch words.first?.lowercased() {
        case nil, "list":
            switch book.load() {
            case .failure(let e):
                say(style.yellow("! ") + Terminal.sanitize(e.description, keepNewlines: false))
                say("No rule applies until config.json is fixed: every change is asked about.")
            case .success(let set):
                if set.rules.isEmpty {
                    say("No approval rules: every change is asked about. Add one with /permissions add, e.g.")
                    say("  /permissions add allow log_saved_food date today")
                    say("  /permissions add deny delete_journal_entry date before -7d")
                } else {
                    say("Approval rules (\(Terminal.sanitize(book.path, keepNewlines: false))); deny wins over ask, ask over allow:")
                    for rule in set.rules { say("  \(rule.number). \(Terminal.sanitize(rule.text, keepNewlines: false))") }
                    say("/permissions remove N removes one.")
                }
            }
        case "add":
            let rest = argument.trimmingCharacters(in: .whitespaces).dropFirst(3).trimmingCharacters(in: .whitespaces)
            switch Self.ruleFromText(rest).flatMap({ rule in Result { () throws(ApprovalRulesError) -> ApprovalRule in try book.add(rule) } }) {
            case .success(let added):
                say(style.green("✓ ") + "Rule \(added.number): \(Terminal.sanitize(added.text, keepNewlines: false))")
            case .failure(let e):
                say(style.yellow("! ") + "not added: " + Terminal.sanitize(e.description, keepNewlines: false))
            }
        case "remove", "rm", "delete":
            guard words.count == 2, let n = Int(words[1]) else { say("Usage: /permissions remove N (the number /permissions shows)"); return }
            switch Result(catching: { () throws(ApprovalRulesError) -> ApprovalRule in try book.remove(n) }) {
            case .success(let removed):
                say(style.green("✓ ") + "Removed rule \(n): \(Terminal.sanitize(removed.text, keepNewlines: false))")
            case .failure(let e):
                say(style.yellow("! ") + "not removed: " + Terminal.sanitize(e.description, keepNewlines: false))
            }
        default:
            say("Usage: /permissions, /permissions add DECISION TOOL [FIELD [OP] VALUE]…, /permissions remove N")
        }
    }

    /// "allow log_food energy_kcal lt 800 meal in lunch,dinner" (or the rule as JSON) → a rule object.
    /// A value alone means eq; `in` takes a comma list; numbers and true/false are typed.
    nonisolated static func ruleFromText(_ text: String) -> Result<JSONValue, ApprovalRulesError> {
        Result(catching: { () throws(ApprovalRulesError) -> JSONValue in try parseRule(text) })
    }

    nonisolated static func parseRule(_ text: String) throws(ApprovalRulesError) -> JSONValue {
        if text.hasPrefix("{") {
            do { return try JSONValue.parse(text) } catch { throw ApprovalRulesError(["the rule is not valid JSON (\(error))"]) }
        }
        let usage = "write a rule as DECISION TOOL [FIELD [OP] VALUE]…, e.g. /permissions add ask log_food energy_kcal gt 800"
        var words = text.split(whereSeparator: \.isWhitespace).map(String.init).filter { !["when", "and"].contains($0.lowercased()) }
        guard words.count >= 2 else { throw ApprovalRulesError([usage]) }
        let decision = words.removeFirst().lowercased()
        let tool = words.removeFirst()
        func value(_ w: String) -> JSONValue {
            if let d = Double(w), d.isFinite { return .number(d) }
            if w == "true" || w == "false" { return .bool(w == "true") }
            return .string(w)
        }
        var when: [String: JSONValue] = [:]
        while !words.isEmpty {
            let field = words.removeFirst()
            guard !words.isEmpty else { throw ApprovalRulesError(["\(field) needs a value; \(usage)"]) }
            if words.count >= 2, let op = RuleOperator(rawValue: words[0].lowercased()) {
                words.removeFirst()
                let v = words.removeFirst()
                let item: JSONValue = op == .in ? .array(v.split(separator: ",").map { value(String($0)) }) : value(v)
                var ops = when[field]?.objectValue ?? [:]
                ops[op.rawValue] = item
                when[field] = .object(ops)
            } else {
                when[field] = value(words.removeFirst())
            }
        }
        var rule: [String: JSONValue] = ["tool": .string(tool), "decision": .string(decision)]
        if !when.isEmpty { rule["when"] = .object(when) }
        return .object(rule)
    }
}
