// The undo log: every journal write records what it changed (the rows before and after) in the
// same transaction as the change, so every path that writes through JournalStore — the
// assistant's tools, `ofj mcp`, the CLI — can be undone, and an undo is itself a recorded write.
import Base
import Foundation
import Nutrition
import OutputSafety
import SQLiteKit

/// One stored column value of a row image (typed, so a restore writes back exactly what was there).
enum UndoCell: Codable, Hashable {
    case null, integer(Int64), real(Double), text(String)

    init(_ v: DatabaseValue) {
        switch v {
        case .null, .blob: self = .null
        case .integer(let i): self = .integer(i)
        case .real(let d): self = .real(d)
        case .text(let t): self = .text(t)
        }
    }

    var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .integer(let i): return .integer(i)
        case .real(let d): return .real(d)
        case .text(let t): return .text(t)
        }
    }

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null; return }
        if let t = try? c.decode(String.self) { self = .text(t); return }
        let o = try c.decode([String: Double].self)
        if let i = o["i"] { self = .integer(Int64(i)) } else if let r = o["r"] { self = .real(r) } else { self = .null }
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .integer(let i): try c.encode(["i": Double(i)])
        case .real(let d): try c.encode(["r": d])
        case .text(let t): try c.encode(t)
        }
    }

    var text: String? { if case .text(let t) = self { return t } else { return nil } }
    var number: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .real(let d): return d
        default: return nil
        }
    }
}

/// A row as it was (an entry with its per-serving nutrients, a saved food, the goals setting).
struct UndoImage: Codable, Hashable {
    var row: [String: UndoCell]
    var nutrients: [String: Double]?

    /// The stored form: what `JSONEncoder` with sorted keys writes for it, written directly because
    /// every journal write records one (Foundation's encoder doubled the cost of logging an entry).
    /// Strings go through the one JSON string writer (`JSONValue.writeString`).
    var json: String {
        var out = "{"
        if let nutrients {
            out += "\"nutrients\":{"
            for (i, k) in nutrients.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(k, to: &out)
                out += ":" + Self.number(nutrients[k] ?? 0)
            }
            out += "},"
        }
        out += "\"row\":{"
        for (i, k) in row.keys.sorted().enumerated() {
            if i > 0 { out += "," }
            JSONValue.writeString(k, to: &out)
            out += ":"
            switch row[k] ?? .null {
            case .null: out += "null"
            case .integer(let v): out += "{\"i\":\(v)}"
            case .real(let v): out += "{\"r\":" + Self.number(v) + "}"
            case .text(let t): JSONValue.writeString(t, to: &out)
            }
        }
        return out + "}}"
    }

    /// Swift's shortest round-trip form is valid JSON for every finite value.
    static func number(_ d: Double) -> String { d.isFinite ? "\(d)" : "null" }
}

/// What an undo log change is about.
public enum UndoKind: String, Sendable, Codable {
    case entry, food, goals, profile, weight
}

/// One recorded change: an object before and after a write (nil = did not exist).
public struct UndoChange: Sendable, Hashable {
    public var kind: UndoKind
    public var objectID: String
    var before: UndoImage?
    var after: UndoImage?

    /// "logged Oatmeal — 1 serving, 150 kcal, to breakfast on 2026-11-29".
    public var what: String { UndoText.what(self) }
    /// What undoing it does: "removes it", "puts it back", "sets servings back to 1".
    public var restores: String { UndoText.restores(self) }
}

/// One write as the undo log has it (newest first in lists).
public struct UndoStep: Sendable, Hashable {
    public var id: Int64
    public var at: Date
    /// The writes this step undid, when it is an undo.
    public var undoes: [Int64]
    public var changes: [UndoChange]
}

/// What `undo` would do now: the steps, and why it cannot (what changed since), if it cannot.
public struct UndoPlan: Sendable {
    public var steps: [UndoStep]
    /// One line per object changed since the write (empty when the undo can be applied).
    public var conflicts: [String]

    /// The lines shown before asking: each write, what it did, what undoing restores (times in `timeZone`).
    public func lines(in timeZone: TimeZone) -> [String] {
        var out: [String] = []
        for (i, step) in steps.enumerated() {
            let kind = step.undoes.isEmpty ? "change" : "change (an undo)"
            let head = steps.count > 1 ? "\(i + 1). The \(kind) at \(UndoText.time(step.at, timeZone))" : "The last \(kind), at \(UndoText.time(step.at, timeZone))"
            out.append(head + ":")
            for c in step.changes {
                out.append("  did: \(c.what)")
                out.append("  undo \(c.restores)")
            }
        }
        return out
    }
}

extension JournalStore {
    /// Steps older than this many are dropped from the log when a new one is recorded.
    public static let undoLogLength: Int64 = 1_000

    static func registerUndoMigration(into migrator: inout Migrator) {
        migrator.register("rules-1-journal-undo-log", sql: """
            CREATE TABLE journal_undo_steps (
                id INTEGER PRIMARY KEY,
                at INTEGER NOT NULL,
                undoes TEXT,
                undone_by INTEGER
            );
            CREATE TABLE journal_undo_changes (
                step_id INTEGER NOT NULL,
                ordinal INTEGER NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('entry', 'food', 'goals')),
                object_id TEXT NOT NULL,
                before TEXT,
                after TEXT,
                PRIMARY KEY (step_id, kind, object_id)
            ) WITHOUT ROWID;
            """)
    }

    // MARK: - Recording (called by every write, inside its transaction)

    /// The row as it is now (nil when absent).
    func image(_ kind: UndoKind, _ id: String, in db: Database) throws -> UndoImage? {
        switch kind {
        case .entry:
            guard let r = try db.row("SELECT * FROM journal_entries WHERE id = ?", [id]) else { return nil }
            var row: [String: UndoCell] = [:]
            var seq: Int64?
            for (c, v) in zip(r.columns, r.values) {
                if c == "seq" { seq = v.int64; continue }
                row[c] = UndoCell(v)
            }
            var nutrients: [String: Double] = [:]
            for n in try db.rows("SELECT nutrient, amount FROM journal_entry_nutrients WHERE entry_seq = ?", [seq ?? -1]) {
                if let k = n[0].string, let a = n[1].double { nutrients[k] = a }
            }
            return UndoImage(row: row, nutrients: nutrients)
        case .food:
            guard let r = try db.row("SELECT * FROM journal_saved_foods WHERE id = ?", [id]) else { return nil }
            return UndoImage(row: Dictionary(uniqueKeysWithValues: zip(r.columns, r.values.map(UndoCell.init))), nutrients: nil)
        case .goals:
            // "goals" and "goal_sources" (where each goal came from) are both goals settings rows.
            guard let v = try db.row("SELECT value FROM journal_settings WHERE key = ?", [id]) else { return nil }
            return UndoImage(row: ["value": UndoCell(v[0])], nutrients: nil)
        case .profile:
            guard let v = try db.row("SELECT value FROM journal_settings WHERE key = ?", [id]) else { return nil }
            return UndoImage(row: ["value": UndoCell(v[0])], nutrients: nil)
        case .weight:
            guard let r = try db.row("SELECT * FROM journal_weights WHERE id = ?", [id]) else { return nil }
            return UndoImage(row: Dictionary(uniqueKeysWithValues: zip(r.columns, r.values.map(UndoCell.init))), nutrients: nil)
        }
    }

    /// Records that the object changed from `before` to what it is now, in the step of the
    /// current transaction (made on its first change). A second change of the same object in
    /// one transaction updates the first one's after-image (a change back to where it was drops it).
    func recordUndo(_ kind: UndoKind, _ id: String, before: UndoImage?, in db: Database) throws {
        guard db.transactionScratch[Self.offKey] == nil else { return }
        let after = try image(kind, id, in: db)
        guard before != after else { return }
        let step = try currentUndoStep(in: db)
        func text(_ i: UndoImage?) -> String? { i.map(\.json) }
        if let earlier = try db.row("SELECT before FROM journal_undo_changes WHERE step_id = ? AND kind = ? AND object_id = ?",
                                    [step, kind.rawValue, id]) {
            if earlier[0].string == (text(after)) {
                try db.execute("DELETE FROM journal_undo_changes WHERE step_id = ? AND kind = ? AND object_id = ?", [step, kind.rawValue, id])
            } else {
                try db.execute("UPDATE journal_undo_changes SET after = ? WHERE step_id = ? AND kind = ? AND object_id = ?",
                               [text(after), step, kind.rawValue, id])
            }
            return
        }
        let ordinal = (db.transactionScratch[Self.ordinalKey] ?? 0) + 1
        db.transactionScratch[Self.ordinalKey] = ordinal
        try db.execute("INSERT INTO journal_undo_changes (step_id, ordinal, kind, object_id, before, after) VALUES (?, ?, ?, ?, ?, ?)",
                       [step, ordinal, kind.rawValue, id, text(before), text(after)])
    }

    /// Runs `body` (one write) and records what it did to the object.
    func recording<T>(_ kind: UndoKind, _ id: String, in db: Database, _ body: () throws -> T) throws -> T {
        guard db.transactionScratch[Self.offKey] == nil else { return try body() }
        let before = try image(kind, id, in: db)
        let result = try body()
        try recordUndo(kind, id, before: before, in: db)
        return result
    }

    private static let stepKey = "journal.undo.step"
    private static let offKey = "journal.undo.off"

    /// The writes of the rest of the transaction `db` is in are not recorded in the undo log (a bulk
    /// import that would otherwise hold a before/after image of every row it adds). Must be called
    /// inside a transaction; the next transaction records again.
    public func skipUndoLog(in db: Database) {
        precondition(db.isInTransaction, "skipUndoLog needs a transaction")
        db.transactionScratch[Self.offKey] = 1
    }
    private static let ordinalKey = "journal.undo.ordinal"

    private func currentUndoStep(in db: Database) throws -> Int64 {
        // A step made earlier in this transaction, unless a savepoint rolled it back.
        if let id = db.transactionScratch[Self.stepKey], try db.row("SELECT 1 FROM journal_undo_steps WHERE id = ?", [id]) != nil {
            return id
        }
        try db.execute("INSERT INTO journal_undo_steps (at) VALUES (?)", [now().milliseconds])
        let id = db.lastInsertRowID
        db.transactionScratch[Self.stepKey] = id
        db.transactionScratch[Self.ordinalKey] = 0
        let oldest = id - Self.undoLogLength
        if oldest > 0 && id % 50 == 0 {
            try db.execute("DELETE FROM journal_undo_changes WHERE step_id <= ?", [oldest])
            try db.execute("DELETE FROM journal_undo_steps WHERE id <= ?", [oldest])
        }
        return id
    }

    // MARK: - Reading the log

    /// The last `count` writes, newest first.
    public func undoSteps(last count: Int, in db: Database) throws -> [UndoStep] {
        let decoder = JournalJSON.decoder
        func image(_ v: DatabaseValue) throws -> UndoImage? {
            guard let t = v.string else { return nil }
            do { return try decoder.decode(UndoImage.self, from: Data(t.utf8)) } catch { throw JournalError.corruptRow("undo log change") }
        }
        return try db.rows("SELECT id, at, undoes FROM journal_undo_steps ORDER BY id DESC LIMIT ?", [max(0, count)]).map { r in
            let id = r[0].int64 ?? 0
            let changes = try db.rows("SELECT kind, object_id, before, after FROM journal_undo_changes WHERE step_id = ? ORDER BY ordinal", [id]).map {
                guard let kind = $0[0].string.flatMap(UndoKind.init(rawValue:)), let object = $0[1].string else {
                    throw JournalError.corruptRow("undo log change")
                }
                return UndoChange(kind: kind, objectID: object, before: try image($0[2]), after: try image($0[3]))
            }
            let undoes = (r[2].string ?? "").split(separator: ",").compactMap { Int64($0) }
            return UndoStep(id: id, at: Date(milliseconds: r[1].int64 ?? 0), undoes: undoes, changes: changes)
        }
    }

    /// What undoing the last `count` writes would do, and what changed since them (which refuses it).
    public func undoPlan(last count: Int, in db: Database) throws -> UndoPlan {
        guard count >= 1 else { throw JournalError.invalid(field: "N", reason: "must be 1 or more") }
        let steps = try undoSteps(last: count, in: db)
        var conflicts: [String] = []
        for (object, expected) in Self.finalImages(steps) {
            let now = try image(object.kind, object.id, in: db)
            if object.kind == .goals, object.id == Self.goalSourcesKey {
                if expected != now { conflicts.append("where the goals come from was changed since") }
            } else if let line = UndoText.changedSince(object.kind, expected: expected, now: now) { conflicts.append(line) }
        }
        return UndoPlan(steps: steps, conflicts: conflicts.sorted())
    }

    public func undoPlan(last count: Int) throws -> UndoPlan { try queue.read { try undoPlan(last: count, in: $0) } }

    /// Undoes the last `count` writes, which must still be `expected` (the steps that were shown):
    /// restores every object they changed to what it was before them, as one new recorded write.
    /// Refuses, writing nothing, when another write came since they were shown or an object
    /// changed after them.
    @discardableResult
    public func undo(last count: Int, expected: [Int64], in db: Database) throws -> UndoStep {
        try db.transaction { db in
            let plan = try undoPlan(last: count, in: db)
            guard !plan.steps.isEmpty else { throw JournalError.invalid(field: "undo", reason: "has nothing to undo: no write has been recorded yet") }
            guard plan.steps.map(\.id) == expected else {
                throw JournalError.invalid(field: "undo", reason: "refused: another write was made since these were shown; nothing was undone. Run undo again to see it")
            }
            if let first = plan.conflicts.first {
                let more = plan.conflicts.count > 1 ? " (and \(plan.conflicts.count - 1) more)" : ""
                throw JournalError.invalid(field: "undo", reason: "refused: \(first)\(more); nothing was undone")
            }
            // Newest first: each object goes back to its image before the oldest step that touched it.
            var restored: [String: UndoImage?] = [:]
            var order: [(UndoKind, String)] = []
            for step in plan.steps {
                for c in step.changes.reversed() {
                    let key = "\(c.kind.rawValue):\(c.objectID)"
                    if restored[key] == nil { order.append((c.kind, c.objectID)) }
                    restored[key] = .some(c.before)
                }
            }
            // Removals first (entries before the foods they name), then the rest (foods before entries).
            let removals = order.filter { (restored["\($0.0.rawValue):\($0.1)"] ?? nil) == nil }
            let others = order.filter { (restored["\($0.0.rawValue):\($0.1)"] ?? nil) != nil }
            let rank: [UndoKind: Int] = [.food: 0, .entry: 1, .goals: 2, .profile: 3, .weight: 4]
            let sorted = removals.sorted { rank[$0.0]! > rank[$1.0]! } + others.sorted { rank[$0.0]! < rank[$1.0]! }
            for (kind, id) in sorted {
                try restore(kind, id, to: restored["\(kind.rawValue):\(id)"] ?? nil, in: db)
            }
            let step = try currentUndoStep(in: db)
            try db.execute("UPDATE journal_undo_steps SET undoes = ? WHERE id = ?", [plan.steps.map { String($0.id) }.joined(separator: ","), step])
            try db.execute("UPDATE journal_undo_steps SET undone_by = ? WHERE id IN (\(plan.steps.map { String($0.id) }.joined(separator: ",")))", [step])
            guard let made = try undoSteps(last: 1, in: db).first else { throw JournalError.corruptRow("undo log step") }
            return made
        }
    }

    @discardableResult
    public func undo(last count: Int, expected: [Int64]) throws -> UndoStep {
        try queue.write { try undo(last: count, expected: expected, in: $0) }
    }

    /// Writes `image` back as the object's row (nil removes it), recorded like any write.
    private func restore(_ kind: UndoKind, _ id: String, to target: UndoImage?, in db: Database) throws {
        try recording(kind, id, in: db) {
            switch kind {
            case .entry:
                let oldDay = try db.row("SELECT day FROM journal_entries WHERE id = ?", [id])?[0].string
                if let seq = try db.scalar("SELECT seq FROM journal_entries WHERE id = ?", [id]).int64 {
                    try unindexEntry(seq: seq, in: db)
                    try db.execute("DELETE FROM journal_entry_nutrients WHERE entry_seq = ?", [seq])
                    try db.execute("DELETE FROM journal_entries WHERE seq = ?", [seq])
                }
                var days = Set([oldDay].compactMap { $0 })
                if let target {
                    let columns = target.row.keys.sorted()
                    try db.execute("INSERT INTO journal_entries (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                                   columns.map { target.row[$0]!.databaseValue })
                    let seq = db.lastInsertRowID
                    // The full-text index is kept in the same transaction as the rows it covers.
                    try indexEntry(seq: seq, name: target.row["name"]?.text ?? "", brand: target.row["brand"]?.text, in: db)
                    let day = target.row["day"]?.text ?? ""
                    let servings = target.row["servings"]?.number ?? 1
                    for (n, amount) in target.nutrients ?? [:] {
                        try db.execute("INSERT INTO journal_entry_nutrients (day, nutrient, entry_seq, amount, total) VALUES (?, ?, ?, ?, ?)",
                                       [day, n, seq, amount, amount * servings])
                    }
                    days.insert(day)
                }
                try refreshDayTotals(days.compactMap { try? CalendarDay(parsing: $0) }, in: db)
            case .food:
                if let target {
                    // Keep when it was last used: that is usage, not what the write changed.
                    var row = target.row
                    if let used = try db.row("SELECT last_used_at FROM journal_saved_foods WHERE id = ?", [id]) { row["last_used_at"] = UndoCell(used[0]) }
                    let columns = row.keys.sorted()
                    try db.execute("""
                        INSERT OR REPLACE INTO journal_saved_foods (\(columns.joined(separator: ", ")))
                        VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))
                        """, columns.map { row[$0]!.databaseValue })
                } else {
                    let uses = try db.scalar("SELECT count(*) FROM journal_entries WHERE saved_food_id = ?", [id]).int ?? 0
                    guard uses == 0 else {
                        throw JournalError.invalid(field: "undo", reason: "refused: the Food Bank food \(UndoText.name(try image(.food, id, in: db))) has \(uses) journal entr\(uses == 1 ? "y" : "ies") logged from it; nothing was undone")
                    }
                    try db.execute("DELETE FROM journal_saved_foods WHERE id = ?", [id])
                }
            case .goals:
                if let value = target?.row["value"]?.text {
                    try db.execute("INSERT INTO journal_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [id, value])
                } else {
                    try db.execute("DELETE FROM journal_settings WHERE key = ?", [id])
                }
            case .profile:
                if let value = target?.row["value"]?.text {
                    try db.execute("INSERT INTO journal_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [id, value])
                } else {
                    try db.execute("DELETE FROM journal_settings WHERE key = ?", [id])
                }
            case .weight:
                try db.execute("DELETE FROM journal_weights WHERE id = ?", [id])
                if let target {
                    let columns = target.row.keys.sorted()
                    try db.execute("INSERT INTO journal_weights (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                                   columns.map { target.row[$0]!.databaseValue })
                }
            }
        }
    }

    /// For each object the steps touched, the image the newest of them left.
    static func finalImages(_ newestFirst: [UndoStep]) -> [(key: (kind: UndoKind, id: String), image: UndoImage?)] {
        var seen: Set<String> = []
        var out: [(key: (kind: UndoKind, id: String), image: UndoImage?)] = []
        for step in newestFirst {
            for c in step.changes.reversed() where seen.insert("\(c.kind.rawValue):\(c.objectID)").inserted {
                out.append(((c.kind, c.objectID), c.after))
            }
        }
        return out
    }
}

/// The words for undo log changes (names from the journal pass `TerminalText`).
enum UndoText {
    /// Columns compared to decide whether an object changed since a write (usage stamps are not a change).
    static let ignored: Set<String> = ["last_used_at"]

    static func name(_ i: UndoImage?) -> String {
        guard let row = i?.row else { return "(unknown)" }
        let n = TerminalText.sanitize(row["name"]?.text ?? "?", keepNewlines: false)
        let short = n.count > 60 ? String(n.prefix(59)) + "…" : n
        if let b = row["brand"]?.text, !b.isEmpty { return "\(short) (\(TerminalText.sanitize(b, keepNewlines: false)))" }
        return short
    }

    static func amount(_ d: Double) -> String { d.formattedAmount }

    static func entrySummary(_ i: UndoImage) -> String {
        let r = i.row
        let servings = r["servings"]?.number ?? 1
        let q = (r["serving_quantity"]?.number ?? 1) * servings
        let unit = TerminalText.sanitize(r["serving_unit"]?.text ?? "serving", keepNewlines: false)
        var s = "\(name(i)) — \(amount(q)) \(unit)"
        if let kcal = i.nutrients?["energy_kcal"] { s += ", \(amount((kcal * servings).rounded())) kcal" }
        return s
    }

    /// "2026-12-02" of a day note's key `daynote:2026-12-02:ID`.
    static func noteDay(_ key: String) -> String { String(key.dropFirst(JournalStore.notePrefix.count).prefix(10)) }

    static func place(_ i: UndoImage) -> String { "\(i.row["meal_label"]?.text ?? i.row["meal"]?.text ?? "?") on \(i.row["day"]?.text ?? "?")" }

    static func what(_ c: UndoChange) -> String {
        switch (c.kind, c.before, c.after) {
        case (.entry, nil, let a?): return "logged \(entrySummary(a)) to \(place(a))"
        case (.entry, let b?, nil): return "deleted \(entrySummary(b)) from \(place(b))"
        case (.entry, let b?, let a?): return "changed the entry \(name(b)): " + differences(.entry, from: b, to: a).joined(separator: ", ")
        case (.food, nil, let a?): return "saved \(name(a)) to the Food Bank"
        case (.food, let b?, nil): return "removed \(name(b)) from the Food Bank"
        case (.food, let b?, let a?): return "changed the Food Bank food \(name(b)): " + differences(.food, from: b, to: a).joined(separator: ", ")
        case (.goals, _, _) where c.objectID == JournalStore.goalSourcesKey: return "set where the goals come from"
        case (.goals, let b, let a): return "set the goals: " + goalDifferences(from: b, to: a).joined(separator: ", ")
        case (.profile, nil, _?) where c.objectID.hasPrefix(JournalStore.notePrefix): return "added a note to \(noteDay(c.objectID))"
        case (.profile, _?, nil) where c.objectID.hasPrefix(JournalStore.notePrefix): return "removed a note from \(noteDay(c.objectID))"
        case (.profile, _, _) where c.objectID.hasPrefix(JournalStore.notePrefix): return "changed a note of \(noteDay(c.objectID))"
        case (.profile, let b, let a):
            if let day = JournalStore.markedDay(c.objectID) {
                return a.map { "marked \(day) \($0.row["value"]?.text ?? "?")" } ?? "removed the mark of \(day) (\(b?.row["value"]?.text ?? "?"))"
            }
            return c.objectID == "profile" ? "changed the profile" : "changed the standing notes"
        case (.weight, nil, let a?): return "logged a weigh-in of \(weighIn(a)) on \(a.row["day"]?.text ?? "?")"
        case (.weight, let b?, nil): return "deleted the weigh-in of \(weighIn(b)) on \(b.row["day"]?.text ?? "?")"
        case (.weight, let b?, _?): return "changed the weigh-in of \(weighIn(b)) on \(b.row["day"]?.text ?? "?")"
        default: return "changed nothing"
        }
    }

    static func restores(_ c: UndoChange) -> String {
        switch (c.kind, c.before, c.after) {
        case (.entry, nil, _): return "removes that entry"
        case (.entry, _?, nil): return "puts the entry back"
        case (.entry, let b?, let a?): return "sets it back: " + differences(.entry, from: a, to: b).joined(separator: ", ")
        case (.food, nil, _): return "removes that food from the Food Bank"
        case (.food, _?, nil): return "puts the food back"
        case (.food, let b?, let a?): return "sets it back: " + differences(.food, from: a, to: b).joined(separator: ", ")
        case (.goals, _, _) where c.objectID == JournalStore.goalSourcesKey: return "sets where the goals come from back"
        case (.goals, let b, let a): return "sets the goals back: " + goalDifferences(from: a, to: b).joined(separator: ", ")
        case (.profile, nil, _) where c.objectID.hasPrefix(JournalStore.notePrefix): return "removes that note"
        case (.profile, _?, nil) where c.objectID.hasPrefix(JournalStore.notePrefix): return "puts the note back"
        case (.profile, _, _) where c.objectID.hasPrefix(JournalStore.notePrefix): return "sets the note back"
        case (.profile, let b, _):
            if let day = JournalStore.markedDay(c.objectID) { return b.map { "marks \(day) \($0.row["value"]?.text ?? "?") again" } ?? "unmarks \(day)" }
            return c.objectID == "profile" ? "sets the profile back" : "sets the standing notes back"
        case (.weight, nil, _): return "removes that weigh-in"
        case (.weight, _?, nil): return "puts the weigh-in back"
        case (.weight, _?, _?): return "sets the weigh-in back"
        }
    }

    static func weighIn(_ i: UndoImage) -> String { "\((i.row["kg"]?.number ?? 0).rounded(places: 1).formattedAmount) kg" }

    static let labels: [String: String] = [
        "day": "date", "meal": "meal", "name": "name", "brand": "brand", "servings": "servings", "serving_quantity": "serving",
        "serving_unit": "serving unit", "serving_grams": "serving grams", "serving_ml": "serving mL", "is_archived": "archived",
        "is_on_shelf": "on the Shelf", "barcode": "barcode", "kind": "kind", "body": "ingredients or units",
    ]

    static func cell(_ c: UndoCell?, column: String) -> String {
        switch c {
        case nil, .null?: return "none"
        case .integer(let i)? where column.hasPrefix("is_"): return i == 0 ? "no" : "yes"
        case .integer(let i)?: return String(i)
        case .real(let d)?: return d.formattedAmount
        case .text(let t)?:
            let s = TerminalText.sanitize(t, keepNewlines: false)
            return s.count > 40 ? String(s.prefix(39)) + "…" : s
        }
    }

    /// "servings 1 → 2", one per field that differs (nutrients as one item).
    static func differences(_ kind: UndoKind, from a: UndoImage, to b: UndoImage) -> [String] {
        var out: [String] = []
        for column in Set(a.row.keys).union(b.row.keys).sorted() where a.row[column] != b.row[column] {
            guard let label = labels[column] else { continue }
            out.append("\(label) \(cell(a.row[column], column: column)) → \(cell(b.row[column], column: column))")
        }
        let an = a.nutrients ?? NutrientText.decode(a.row["nutrients"]?.text ?? "") ?? [:]
        let bn = b.nutrients ?? NutrientText.decode(b.row["nutrients"]?.text ?? "") ?? [:]
        if an != bn {
            if let x = an["energy_kcal"], let y = bn["energy_kcal"], x != y {
                out.append("energy per serving \(x.rounded(places: 1).formattedAmount) → \(y.rounded(places: 1).formattedAmount) kcal")
            } else {
                out.append("nutrients")
            }
        }
        return out.isEmpty ? ["details"] : out
    }

    static func goals(_ i: UndoImage?) -> [String: Double] {
        guard let t = i?.row["value"]?.text, let g = try? JournalJSON.decoder.decode(Goals.self, from: Data(t.utf8)) else {
            return Goals.fdaDefaults.values
        }
        return g.values
    }

    static func goalDifferences(from a: UndoImage?, to b: UndoImage?) -> [String] {
        let x = goals(a), y = goals(b)
        var out: [String] = []
        for id in Set(x.keys).union(y.keys).sorted() where x[id] != y[id] {
            out.append("\(id) \(x[id].map { $0.formattedAmount } ?? "none") → \(y[id].map { $0.formattedAmount } ?? "none")")
        }
        if b == nil { return ["back to the FDA Daily Values"] + out.prefix(3) }
        return out.isEmpty ? ["no values changed"] : out
    }

    /// One line when the object is no longer as the write left it; nil when it is.
    static func changedSince(_ kind: UndoKind, expected: UndoImage?, now: UndoImage?) -> String? {
        func strip(_ i: UndoImage?) -> UndoImage? {
            guard var i else { return nil }
            for c in ignored { i.row[c] = nil }
            return i
        }
        if strip(expected) == strip(now) { return nil }
        if kind == .profile { return "the profile, notes or day mark were changed since" }
        if kind == .weight { return "the weigh-in was changed since" }
        let thing = kind == .entry ? "the entry" : kind == .food ? "the Food Bank food" : "the goals"
        switch (expected, now) {
        case (let e?, nil): return "\(thing) \(kind == .goals ? "were reset" : name(e) + " was deleted") since"
        case (nil, let n?): return kind == .goals ? "the goals were set since" : "\(thing) \(name(n)) exists again since"
        case (let e?, let n?):
            if kind == .goals { return "the goals were changed since (" + goalDifferences(from: e, to: n).joined(separator: ", ") + ")" }
            return "\(thing) \(name(e)) was changed since (" + differences(kind, from: e, to: n).joined(separator: ", ") + ")"
        default: return nil
        }
    }

    /// "10:02 on 2026-12-01" in the journal's time zone.
    static func time(_ d: Date, _ timeZone: TimeZone) -> String {
        let s = JournalJSON.formatISO(d.addingTimeInterval(Double(timeZone.secondsFromGMT(for: d))))
        return "\(s.dropFirst(11).prefix(5)) on \(s.prefix(10))"
    }
}
