// Standing approval rules (config.json `approvals.rules`): allow, ask or deny a write tool, with
// optional conditions on its arguments and on the figures of the change it previews. Validated
// against each tool's schema when loaded; a file that fails is not used at all (never half-applied).
import Base
import Foundation
import Settings
import SQLiteKit

public enum RuleDecision: String, Sendable, Hashable, CaseIterable {
    case allow, ask, deny

    /// deny > ask > allow.
    var strength: Int { self == .deny ? 3 : self == .ask ? 2 : 1 }
}

public enum RuleOperator: String, Sendable, Hashable, CaseIterable {
    case eq, lt, le, gt, ge, `in`, before, after

    var symbol: String {
        switch self {
        case .eq: return "="
        case .lt: return "<"
        case .le: return "≤"
        case .gt: return ">"
        case .ge: return "≥"
        case .in: return "in"
        case .before: return "before"
        case .after: return "after"
        }
    }
}

/// What a condition's field holds, from the tool's schema or its figures.
public enum RuleFieldKind: String, Sendable, Hashable {
    case number, string, boolean, date

    var operators: [RuleOperator] {
        switch self {
        case .number: return [.eq, .lt, .le, .gt, .ge, .in]
        case .string, .boolean: return [.eq, .in]
        case .date: return [.eq, .in, .before, .after]
        }
    }
}

public struct RuleCondition: Sendable, Hashable {
    public var field: String
    public var op: RuleOperator
    /// A number, string, boolean or date text ("today", "-7d", "2026-11-29"), or a list of them for `in`.
    public var value: JSONValue

    var text: String {
        let shown: String
        if case .array(let items) = value {
            shown = "[" + items.map(Self.show).joined(separator: ", ") + "]"
        } else {
            shown = Self.show(value)
        }
        return "\(field) \(op.symbol) \(shown)"
    }

    static func show(_ v: JSONValue) -> String {
        switch v {
        case .string(let s): return s
        case .number(let n): return JSONValue.format(n)
        case .bool(let b): return b ? "true" : "false"
        default: return v.serialized
        }
    }
}

/// One rule; `number` is its 1-based position in `approvals.rules`.
public struct ApprovalRule: Sendable, Hashable {
    public var number: Int
    public var tool: String
    public var conditions: [RuleCondition]
    public var decision: RuleDecision
    /// The rule as written in config.json.
    public var json: JSONValue

    /// "allow log_food when energy_kcal < 800".
    public var text: String {
        let base = "\(decision.rawValue) \(tool)"
        return conditions.isEmpty ? base + " for every call" : base + " when " + conditions.map(\.text).joined(separator: " and ")
    }

    /// "rule 2 (allow log_food when energy_kcal < 800)", as recorded with a decision.
    public var label: String { "rule \(number) (\(text))" }
}

/// What a rule decided about one call.
public struct RuleVerdict: Sendable, Hashable {
    public var decision: RuleDecision
    public var rule: ApprovalRule
    /// A deny or ask rule whose other conditions hold but whose figure this change does not state
    /// (and ofj cannot work out): the call is asked about, naming the rule and the figure.
    public var unstated: String?

    public init(decision: RuleDecision, rule: ApprovalRule, unstated: String? = nil) {
        self.decision = decision
        self.rule = rule
        self.unstated = unstated
    }

    /// The line above a card this verdict asks about.
    public var askedLine: String {
        if let unstated { return "Asked because your approval \(rule.label) cannot be checked: this change does not state \(unstated)" }
        return "Asked because of your approval \(rule.label)"
    }

    /// The result the model sees for a write this rule denied: which rule, and that the person can change it.
    public var deniedOutput: ToolOutput {
        let message = "The person's approval \(rule.label) refuses this change; nothing was written. Do not retry it; tell the person, who can change their rules with /permissions or in config.json."
        return ToolOutput(content: JSONValue.object(["denied": .bool(true), "denied_by_rule": .string(rule.label), "message": .string(message)]).serialized,
                          summary: "denied by \(rule.label); nothing was written")
    }
}

/// A rule file that does not load: every line names the rule and what to do.
public struct ApprovalRulesError: Error, Sendable, CustomStringConvertible {
    public var problems: [String]
    public init(_ problems: [String]) { self.problems = problems }
    public var description: String { problems.first.map { problems.count > 1 ? "\($0) (and \(problems.count - 1) more)" : $0 } ?? "invalid approval rules" }
}

/// The tools rules may name, with their fields: a write tool's schema properties and its figures.
public struct RuleVocabulary: Sendable {
    public var tools: [String: @Sendable (String) -> RuleFieldKind?]
    public var readTools: Set<String>

    public init(tools: [String: @Sendable (String) -> RuleFieldKind?], readTools: Set<String> = []) {
        self.tools = tools
        self.readTools = readTools
    }

    /// From a registry: arguments from each write tool's schema, figures from `WriteTool.ruleFigureKind`.
    public init(registry: ToolRegistry) {
        var tools: [String: @Sendable (String) -> RuleFieldKind?] = [:]
        var reads: Set<String> = []
        for tool in registry.tools {
            // `effect` first: a failing `as? any WriteTool` scans every protocol conformance in
            // the binary (~0.25 M instructions per read tool, at every start; issue 39).
            guard tool.effect == .write, let write = tool as? any WriteTool else { reads.insert(tool.name); continue }
            let properties = tool.parameters["properties"]?.objectValue ?? [:]
            var fields: [String: RuleFieldKind] = [:]
            for (name, schema) in properties {
                if name == "date" || name.hasSuffix("_date") { fields[name] = .date; continue }
                switch schema["type"]?.stringValue {
                case "number", "integer": fields[name] = .number
                case "string": fields[name] = .string
                case "boolean": fields[name] = .boolean
                default: break
                }
            }
            let argumentFields = fields
            tools[tool.name] = { name in write.ruleFigureKind(name) ?? argumentFields[name] }
        }
        self.init(tools: tools, readTools: reads)
    }
}

/// A validated list of rules.
public struct ApprovalRuleSet: Sendable, Hashable {
    public var rules: [ApprovalRule]
    public init(rules: [ApprovalRule] = []) { self.rules = rules }

    public static func == (a: ApprovalRuleSet, b: ApprovalRuleSet) -> Bool { a.rules == b.rules }
    public func hash(into h: inout Hasher) { h.combine(rules) }

    /// Reads `approvals.rules` (the value of the `rules` key; nil = no rules). Every rule is checked;
    /// any problem rejects the whole list.
    public static func parse(_ value: JSONValue?, vocabulary: RuleVocabulary) throws(ApprovalRulesError) -> ApprovalRuleSet {
        guard let value, !value.isNull else { return ApprovalRuleSet() }
        guard let items = value.arrayValue else {
            throw ApprovalRulesError(["config.json approvals.rules must be a list of rules like {\"tool\": \"log_food\", \"decision\": \"ask\"}"])
        }
        var problems: [String] = []
        var rules: [ApprovalRule] = []
        for (i, item) in items.enumerated() {
            do { rules.append(try parseRule(item, number: i + 1, vocabulary: vocabulary)) } catch { problems.append(error.description) }
        }
        // The same calls given two different decisions: which one was meant cannot be guessed.
        for (i, a) in rules.enumerated() {
            for b in rules[(i + 1)...] where a.tool == b.tool && Set(a.conditions) == Set(b.conditions) && a.decision != b.decision {
                problems.append("config.json approvals rules \(a.number) and \(b.number) give the same calls of \(a.tool) different decisions (\(a.decision.rawValue), \(b.decision.rawValue)); remove one")
            }
        }
        guard problems.isEmpty else { throw ApprovalRulesError(problems) }
        return ApprovalRuleSet(rules: rules)
    }

    static func parseRule(_ item: JSONValue, number: Int, vocabulary: RuleVocabulary) throws(ApprovalRulesError) -> ApprovalRule {
        let at = "config.json approvals rule \(number)"
        guard let object = item.objectValue else { throw ApprovalRulesError(["\(at) must be an object like {\"tool\": \"log_food\", \"decision\": \"ask\"}"]) }
        for key in object.keys where !["tool", "when", "decision"].contains(key) {
            throw ApprovalRulesError(["\(at) has an unknown key \"\(key.prefix(40))\"; a rule has tool, when and decision"])
        }
        guard let tool = object["tool"]?.stringValue else { throw ApprovalRulesError(["\(at) needs \"tool\": the name of a tool that changes the journal"]) }
        guard let decisionText = object["decision"]?.stringValue, let decision = RuleDecision(rawValue: decisionText) else {
            throw ApprovalRulesError(["\(at) needs \"decision\": \"allow\", \"ask\" or \"deny\""])
        }
        if vocabulary.readTools.contains(tool) {
            throw ApprovalRulesError(["\(at): \(tool) only reads and is never asked about; rules are for tools that change the journal"])
        }
        guard let fieldKind = vocabulary.tools[tool] else {
            let names = vocabulary.tools.keys.sorted()
            let close = names.min { editDistance($0, tool) < editDistance($1, tool) }.flatMap { editDistance($0, tool) <= 3 ? " (did you mean \($0)?)" : nil } ?? ""
            throw ApprovalRulesError(["\(at): unknown tool \"\(tool.prefix(60))\"\(close); tools that change the journal: \(names.joined(separator: ", "))"])
        }
        var conditions: [RuleCondition] = []
        if let when = object["when"], !when.isNull {
            guard let fields = when.objectValue else { throw ApprovalRulesError(["\(at): \"when\" must be an object such as {\"date\": \"today\"}"]) }
            for field in fields.keys.sorted() {
                guard let kind = fieldKind(field) else {
                    throw ApprovalRulesError(["\(at): \(tool) has no argument or figure \"\(field.prefix(60))\"; use one of its arguments, date, meal or a nutrient id such as energy_kcal"])
                }
                let spec = fields[field] ?? .null
                if case .object(let ops) = spec {
                    guard !ops.isEmpty else { throw ApprovalRulesError(["\(at): \(field) needs an operator such as {\"lt\": 800}"]) }
                    for name in ops.keys.sorted() {
                        guard let op = RuleOperator(rawValue: name) else {
                            throw ApprovalRulesError(["\(at): unknown operator \"\(name.prefix(20))\" for \(field); use \(RuleOperator.allCases.map(\.rawValue).joined(separator: ", "))"])
                        }
                        conditions.append(try condition(field, kind: kind, op: op, value: ops[name] ?? .null, at: at))
                    }
                } else {
                    conditions.append(try condition(field, kind: kind, op: .eq, value: spec, at: at))
                }
            }
        }
        return ApprovalRule(number: number, tool: tool, conditions: conditions, decision: decision, json: item)
    }

    static func condition(_ field: String, kind: RuleFieldKind, op: RuleOperator, value: JSONValue, at: String) throws(ApprovalRulesError) -> RuleCondition {
        guard kind.operators.contains(op) else {
            throw ApprovalRulesError(["\(at): \(op.rawValue) does not apply to \(field) (a \(kind.rawValue)); use \(kind.operators.map(\.rawValue).joined(separator: ", "))"])
        }
        let values: [JSONValue]
        if op == .in {
            guard let list = value.arrayValue, !list.isEmpty else { throw ApprovalRulesError(["\(at): in needs a non-empty list for \(field), e.g. [\"lunch\", \"dinner\"]"]) }
            values = list
        } else {
            values = [value]
        }
        for v in values {
            let ok: Bool
            switch kind {
            case .number: ok = v.doubleValue.map { $0.isFinite } ?? false
            case .string: ok = v.stringValue != nil
            case .boolean: ok = v.boolValue != nil
            case .date: ok = v.stringValue.map { RuleDates.resolve($0, today: "2000-01-01") != nil } ?? false
            }
            guard ok else {
                let wanted = kind == .date ? "a date (today, yesterday, -7d, +1d or YYYY-MM-DD)" : "a \(kind.rawValue)"
                throw ApprovalRulesError(["\(at): \(field) \(op.rawValue) needs \(wanted), not \(CondText.short(v))"])
            }
        }
        return RuleCondition(field: field, op: op, value: value)
    }

    /// The rule that decides a call, or nil when none matches: deny > ask > allow; among rules of the
    /// deciding kind the most specific (most conditions) is the one named, then the first written.
    ///
    /// A figure may be a list of values (`.array`): the sides of a change, e.g. the date an entry
    /// has and the date it is moved to. A deny or ask condition holds when any side meets it (a
    /// move out of a protected day is as protected as a move into one); an allow condition only
    /// when every side does. A deny or ask rule whose other conditions hold but whose figure the
    /// change does not have becomes an ask naming the rule and the figure (`RuleVerdict.unstated`):
    /// a protective rule is never sidestepped by leaving a figure out.
    public func verdict(tool: String, figures: [String: JSONValue], today: String) -> RuleVerdict? {
        var matching: [RuleVerdict] = []
        for rule in rules where rule.tool == tool {
            var missing: String?
            var holds = true
            for c in rule.conditions {
                let sides = Self.sides(figures[c.field])
                if sides.isEmpty {
                    if missing == nil { missing = c.field }
                    continue
                }
                let met = rule.decision == .allow ? sides.allSatisfy { Self.holds(c, $0, today: today) }
                                                  : sides.contains { Self.holds(c, $0, today: today) }
                if !met { holds = false; break }
            }
            guard holds else { continue }
            if let missing {
                if rule.decision != .allow { matching.append(RuleVerdict(decision: .ask, rule: rule, unstated: missing)) }
            } else {
                matching.append(RuleVerdict(decision: rule.decision, rule: rule))
            }
        }
        return matching.min { a, b in
            if a.decision.strength != b.decision.strength { return a.decision.strength > b.decision.strength }
            // A rule that matched outright names the decision before one that could not be checked.
            if (a.unstated == nil) != (b.unstated == nil) { return a.unstated == nil }
            if a.rule.conditions.count != b.rule.conditions.count { return a.rule.conditions.count > b.rule.conditions.count }
            return a.rule.number < b.rule.number
        }
    }

    /// The values of a figure: none when missing, each element of a list of sides, else the value.
    static func sides(_ value: JSONValue?) -> [JSONValue] {
        guard let value, !value.isNull else { return [] }
        if case .array(let items) = value { return items.filter { !$0.isNull } }
        return [value]
    }

    /// Allow rules whose conditions are all on names (`name`, `brand`, `…_name`): they allow any
    /// amount of anything so named, in any case ("Water" is "WATER"), so `ofj doctor` warns.
    public var nameOnlyAllowWarnings: [String] {
        rules.filter { r in
            r.decision == .allow && !r.conditions.isEmpty && r.conditions.allSatisfy { c in c.field == "name" || c.field == "brand" || c.field.hasSuffix("_name") }
        }.map { r in
            let named = r.conditions.map(\.text).joined(separator: " and ")
            return "config.json approvals \(r.label) constrains only a name: any amount of anything with \(named) (in any case) is written without a card; "
                + "add a limit such as {\"energy_kcal\": {\"lt\": 50}}"
        }
    }

    /// Whether `value` (the call's argument or figure) meets the condition; a missing value never does.
    static func holds(_ c: RuleCondition, _ value: JSONValue?, today: String) -> Bool {
        guard let value, !value.isNull else { return false }
        func equal(_ want: JSONValue) -> Bool {
            if let a = value.doubleValue, let b = want.doubleValue { return abs(a - b) <= 1e-9 * max(1, abs(b)) }
            if let a = value.boolValue, let b = want.boolValue { return a == b }
            if let a = value.stringValue, let b = want.stringValue {
                if let x = RuleDates.resolve(a, today: today), let y = RuleDates.resolve(b, today: today) { return x == y }
                return a.lowercased() == b.lowercased()
            }
            return false
        }
        switch c.op {
        case .eq: return equal(c.value)
        case .in: return (c.value.arrayValue ?? []).contains(where: equal)
        case .lt, .le, .gt, .ge:
            guard let a = value.doubleValue, let b = c.value.doubleValue else { return false }
            switch c.op {
            case .lt: return a < b
            case .le: return a <= b
            case .gt: return a > b
            default: return a >= b
            }
        case .before, .after:
            guard let a = value.stringValue.flatMap({ RuleDates.resolve($0, today: today) }),
                  let b = c.value.stringValue.flatMap({ RuleDates.resolve($0, today: today) }) else { return false }
            return c.op == .before ? a < b : a > b
        }
    }
}

enum CondText {
    static func short(_ v: JSONValue) -> String {
        let s = v.serialized
        return s.count > 40 ? String(s.prefix(39)) + "…" : s
    }
}

/// Day texts in rules and figures: "today", "yesterday", "tomorrow", "-7d", "+1d", "YYYY-MM-DD".
public enum RuleDates {
    /// The day as YYYY-MM-DD (so days compare as text), or nil when it is not a day.
    public static func resolve(_ text: String, today: String) -> String? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let base = dayNumber(today) else { return nil }
        switch t {
        case "today": return format(base)
        case "yesterday": return format(base - 1)
        case "tomorrow": return format(base + 1)
        default: break
        }
        if (t.hasPrefix("-") || t.hasPrefix("+")), t.hasSuffix("d"), let n = Int(t.dropFirst().dropLast()), n <= 100_000 {
            return format(base + (t.hasPrefix("-") ? -n : n))
        }
        return dayNumber(t).map(format)
    }

    static func dayNumber(_ s: String) -> Int? { (try? CalendarDay(parsing: s))?.dayNumber }
    static func format(_ n: Int) -> String { CalendarDay.text(dayNumber: n) }
}

/// Where the runner (and `ofj mcp`) get the rules in force now.
public protocol ApprovalRuleSource: Sendable {
    /// The rules to apply now, today's date (YYYY-MM-DD, the journal's time zone) for relative
    /// dates, and why the configured rules are not used (nil when they are).
    func snapshot() -> ApprovalRuleSnapshot
}

public struct ApprovalRuleSnapshot: Sendable {
    public var rules: ApprovalRuleSet
    public var today: String
    public var problem: String?
    public init(rules: ApprovalRuleSet, today: String, problem: String? = nil) {
        self.rules = rules
        self.today = today
        self.problem = problem
    }
}

/// Fixed rules (tests, replay).
public struct FixedApprovalRules: ApprovalRuleSource {
    public var rules: ApprovalRuleSet
    public var today: @Sendable () -> String
    public init(_ rules: ApprovalRuleSet, today: @escaping @Sendable () -> String) {
        self.rules = rules
        self.today = today
    }
    public func snapshot() -> ApprovalRuleSnapshot { ApprovalRuleSnapshot(rules: rules, today: today()) }
}

extension ApprovalRuleSource {
    /// The verdict for a planned write, with the figures its tool reports. Nil when no rule decides.
    public func verdict(tool: any WriteTool, arguments: JSONValue, planned: PlannedChange, database: Database) -> (RuleVerdict?, problem: String?) {
        let snap = snapshot()
        guard !snap.rules.rules.isEmpty else { return (nil, snap.problem) }
        var figures = arguments.objectValue ?? [:]
        for (k, v) in tool.ruleFigures(planned, database: database) { figures[k] = v }
        return (snap.rules.verdict(tool: tool.name, figures: figures, today: snap.today), snap.problem)
    }
}

/// The rule set in config.json, re-read whenever the file changes (size, time or inode): a file
/// whose rules all validate replaces the rules in force at once; one that does not (bad JSON, a
/// type error, an unknown tool) is not used at all — no rule applies, so every change is asked
/// about — until it is fixed. `add`/`remove` rewrite the file (the rest of it kept).
public final class ApprovalRuleBook: ApprovalRuleSource, @unchecked Sendable {
    public let path: String
    private let vocabulary: RuleVocabulary
    private let today: @Sendable () -> String
    private let lock = NSLock()
    // Guarded by `lock`.
    private var stamp: [Int64]?
    private var loaded = ApprovalRuleSet()
    private var problem: String?

    public init(path: String, vocabulary: RuleVocabulary, today: @escaping @Sendable () -> String) {
        self.path = path
        self.vocabulary = vocabulary
        self.today = today
    }

    public func snapshot() -> ApprovalRuleSnapshot {
        lock.lock(); defer { lock.unlock() }
        refreshLocked()
        return ApprovalRuleSnapshot(rules: problem == nil ? loaded : ApprovalRuleSet(), today: today(), problem: problem)
    }

    /// The rules in config.json now, or why they cannot be used.
    public func load() -> Result<ApprovalRuleSet, ApprovalRulesError> {
        lock.lock(); defer { lock.unlock() }
        stamp = nil
        refreshLocked()
        if let problem { return .failure(ApprovalRulesError([problem])) }
        return .success(loaded)
    }

    /// Every problem of the file's rules (for `ofj doctor`); empty when they load.
    public func problems() -> [String] {
        switch Self.read(path: path, vocabulary: vocabulary) {
        case .success: return []
        case .failure(let e): return e.problems
        }
    }

    /// Rules that load but may not mean what they seem to (for `ofj doctor`): allow rules that
    /// constrain only a name.
    public func warnings() -> [String] {
        switch Self.read(path: path, vocabulary: vocabulary) {
        case .success(let set): return set.nameOnlyAllowWarnings
        case .failure: return []
        }
    }

    private func refreshLocked() {
        let now = Self.stamp(path)
        guard now != stamp else { return }
        stamp = now
        switch Self.read(path: path, vocabulary: vocabulary) {
        case .success(let set):
            loaded = set
            problem = nil
        case .failure(let e):
            loaded = ApprovalRuleSet()
            problem = e.description
        }
    }

    static func stamp(_ path: String) -> [Int64]? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return [Int64(st.st_size), Int64(st.st_mtim.tv_sec), Int64(st.st_mtim.tv_nsec), Int64(st.st_ino)]
    }

    static func document(path: String) throws(ApprovalRulesError) -> JSONValue? {
        do { return try ConfigFile(path: path).document() } catch {
            throw ApprovalRulesError(["\(error); fix it: no approval rule applies until it parses"])
        }
    }

    static func read(path: String, vocabulary: RuleVocabulary) -> Result<ApprovalRuleSet, ApprovalRulesError> {
        do {
            guard let doc = try document(path: path) else { return .success(ApprovalRuleSet()) }
            guard doc.objectValue != nil else { return .failure(ApprovalRulesError(["config.json must be a JSON object"])) }
            let approvals = doc["approvals"]
            if let approvals, !approvals.isNull, approvals.objectValue == nil {
                return .failure(ApprovalRulesError(["config.json approvals must be an object like {\"rules\": [...]}"]))
            }
            return .success(try ApprovalRuleSet.parse(approvals?["rules"], vocabulary: vocabulary))
        } catch {
            return .failure(error)
        }
    }

    /// Appends a rule to config.json; refused (file unchanged) when the file's rules do not load
    /// with it. Returns the rule as loaded.
    @discardableResult
    public func add(_ rule: JSONValue) throws(ApprovalRulesError) -> ApprovalRule {
        lock.lock(); defer { lock.unlock() }
        var doc = try Self.document(path: path)?.objectValue ?? [:]
        var approvals = doc["approvals"]?.objectValue ?? [:]
        var rules = approvals["rules"]?.arrayValue ?? []
        rules.append(rule)
        let set = try ApprovalRuleSet.parse(.array(rules), vocabulary: vocabulary)
        approvals["rules"] = .array(rules)
        doc["approvals"] = .object(approvals)
        try write(.object(doc))
        loaded = set
        problem = nil
        stamp = Self.stamp(path)
        return set.rules[set.rules.count - 1]
    }

    /// Removes rule `number` (1-based) from config.json; returns it.
    @discardableResult
    public func remove(_ number: Int) throws(ApprovalRulesError) -> ApprovalRule {
        lock.lock(); defer { lock.unlock() }
        var doc = try Self.document(path: path)?.objectValue ?? [:]
        var approvals = doc["approvals"]?.objectValue ?? [:]
        let current = try ApprovalRuleSet.parse(approvals["rules"], vocabulary: vocabulary)
        guard (1...max(1, current.rules.count)).contains(number), number <= current.rules.count else {
            throw ApprovalRulesError(["there is no rule \(number); /permissions lists them"])
        }
        var rules = approvals["rules"]?.arrayValue ?? []
        rules.remove(at: number - 1)
        let set = try ApprovalRuleSet.parse(.array(rules), vocabulary: vocabulary)
        approvals["rules"] = .array(rules)
        doc["approvals"] = .object(approvals)
        try write(.object(doc))
        loaded = set
        problem = nil
        stamp = Self.stamp(path)
        return current.rules[number - 1]
    }

    /// Writes the whole file at once (a temporary file renamed over it), 0600; rules stay one
    /// line each, as they are written by hand.
    private func write(_ doc: JSONValue) throws(ApprovalRulesError) {
        do { try ConfigFile(path: path).write(doc.objectValue ?? [:]) } catch { throw ApprovalRulesError([error.description]) }
    }
}
