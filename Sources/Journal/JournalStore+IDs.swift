// Entries and saved foods by a unique prefix of their id (`ofj entry show 3f2a9c1b`): people type
// the short id the command line shows; an ambiguous prefix lists the candidates.
import Foundation
import Nutrition
import SQLiteKit

/// What an id prefix matched.
public enum IDMatch<T: Sendable>: Sendable {
    case one(T)
    case none
    /// Several: the first few (by id) and how many there are in all.
    case several([T], total: Int)
}

extension JournalStore {
    /// The short id shown in human output: the first 8 hex digits, lowercase.
    public static func shortID(_ id: UUID) -> String { String(id.uuidString.prefix(8)).lowercased() }

    /// Normalises a typed id or prefix (case, surrounding space); nil when it holds anything
    /// but hex digits and dashes, or is longer than a UUID.
    static func idPrefix(_ text: String) -> String? {
        let t = text.trimmingCharacters(in: .whitespaces).uppercased()
        guard !t.isEmpty, t.count <= 36, t.allSatisfy({ $0 == "-" || $0.isHexDigit }) else { return nil }
        return t
    }

    /// The entry whose id starts with `prefix` (any case).
    public func entry(idPrefix prefix: String, in db: Database) throws -> IDMatch<Entry> {
        guard let p = JournalStore.idPrefix(prefix) else { return .none }
        let total = try db.scalar("SELECT count(*) FROM journal_entries WHERE substr(id, 1, ?) = ?", [p.count, p]).int ?? 0
        let found = try loadEntries(where: "substr(id, 1, ?) = ?", [p.count, p], order: "id", limit: 5, in: db)
        switch (total, found.first) {
        case (0, _), (_, nil): return .none
        case (1, let e?): return .one(e)
        default: return .several(found, total: total)
        }
    }

    public func entry(idPrefix prefix: String) throws -> IDMatch<Entry> { try queue.read { try entry(idPrefix: prefix, in: $0) } }

    /// The saved food whose id starts with `prefix` (any case).
    public func food(idPrefix prefix: String, in db: Database) throws -> IDMatch<SavedFood> {
        guard let p = JournalStore.idPrefix(prefix) else { return .none }
        let total = try db.scalar("SELECT count(*) FROM journal_saved_foods WHERE substr(id, 1, ?) = ?", [p.count, p]).int ?? 0
        let found = try db.rows("SELECT \(JournalStore.foodColumns) FROM journal_saved_foods WHERE substr(id, 1, ?) = ? ORDER BY id LIMIT 5",
                                [p.count, p]).map(decodeFood)
        switch (total, found.first) {
        case (0, _), (_, nil): return .none
        case (1, let f?): return .one(f)
        default: return .several(found, total: total)
        }
    }

    public func food(idPrefix prefix: String) throws -> IDMatch<SavedFood> { try queue.read { try food(idPrefix: prefix, in: $0) } }
}

extension FoodBankItem {
    /// A row for a food read by other means (the Shelf list of `ofj foods shelf`).
    public init(listing food: SavedFood, status: FoodStatus) { self.init(food: food, status: status) }
}
