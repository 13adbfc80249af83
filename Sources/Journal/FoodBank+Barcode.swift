// Saved foods' barcodes: at most one saved food per barcode, so a second scan is answered
// from the Food Bank without a network request.
import Foundation
import Nutrition
import SQLiteKit

extension JournalStore {
    /// The migration adding `journal_saved_foods.barcode` (unique when set).
    static func registerBarcodeMigration(into migrator: inout Migrator) {
        migrator.register("journal-saved-food-barcode", sql: """
            ALTER TABLE journal_saved_foods ADD COLUMN barcode TEXT;
            CREATE UNIQUE INDEX journal_saved_foods_barcode ON journal_saved_foods (barcode) WHERE barcode IS NOT NULL;
            """)
    }

    /// The saved food with this barcode, if any.
    public func food(barcode: String, in db: Database) throws -> SavedFood? {
        try db.row("SELECT \(JournalStore.foodColumns) FROM journal_saved_foods WHERE barcode = ?", [barcode]).map(decodeFood)
    }

    public func food(barcode: String) throws -> SavedFood? { try queue.read { try food(barcode: barcode, in: $0) } }

    /// The barcode of a saved food, if it has one.
    public func barcode(ofFood id: UUID, in db: Database) throws -> String? {
        try db.row("SELECT barcode FROM journal_saved_foods WHERE id = ?", [id.uuidString])?[0].string
    }

    /// Creates a saved food carrying `barcode`. Refuses a barcode another saved food has.
    @discardableResult
    public func createFood(_ draft: FoodDraft, barcode: String, id: UUID? = nil, in db: Database) throws -> SavedFood {
        // The same rule backup import applies, so a journal's own backup always imports.
        guard (8...14).contains(barcode.count), barcode.allSatisfy(\.isASCII), barcode.allSatisfy(\.isNumber) else {
            throw JournalError.invalid(field: "barcode", reason: "must be 8 to 14 digits")
        }
        return try db.transaction { db in
            if let existing = try food(barcode: barcode, in: db) {
                throw JournalError.invalid(field: "barcode", reason: "\(barcode) is already saved in the Food Bank (food \(existing.id.uuidString)); log that food instead")
            }
            let food = try createFood(draft, id: id, in: db)
            try recording(.food, food.id.uuidString, in: db) {
                try db.execute("UPDATE journal_saved_foods SET barcode = ? WHERE id = ?", [barcode, food.id.uuidString])
            }
            return food
        }
    }

    @discardableResult
    public func createFood(_ draft: FoodDraft, barcode: String, id: UUID? = nil) throws -> SavedFood {
        try queue.write { try createFood(draft, barcode: barcode, id: id, in: $0) }
    }
}
