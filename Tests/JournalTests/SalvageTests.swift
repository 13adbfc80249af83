// `salvageBackup`: every readable row of a damaged file, in a backup that imports cleanly.
import Testing
import Foundation
import Nutrition
import SQLiteKit
import TestSupport
@testable import Journal

@Suite struct SalvageTests {
    /// 300 foods and one entry logged from each, on a file; returns its path.
    func journalFile(_ dir: TempDirectory) throws -> String {
        let path = dir.file("j.sqlite")
        let clock = ManualClock("2026-03-01T12:00:00Z")
        let store = try JournalStore.openStandalone(queue: try DatabaseQueue(path: path), timeZone: testZone, now: { clock.now() })
        for i in 0..<300 {
            let food = try store.createFood(FoodDraft(name: String(format: "Food-%05d ", i) + String(repeating: "y", count: 50),
                                                      serving: ServingSize(quantity: 1, unit: .count("piece")),
                                                      nutrients: nutrients(["energy_kcal": Double(10 + i)])))
            try store.logFood(food.id, amount: .servings(1))
        }
        return path
    }

    func damagePage(_ path: String, holding marker: String) throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let at = try #require(bytes.range(of: Data(marker.utf8))).lowerBound
        bytes[(at / 4096) * 4096] = 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
    }

    func openDamaged(_ path: String) throws -> JournalStore {
        let clock = ManualClock("2026-03-02T12:00:00Z")
        return JournalStore(queue: try DatabaseQueue(path: path, options: .init(walMode: false)), timeZone: testZone, now: { clock.now() })
    }

    @Test func aHealthyFileSalvagesEverything() throws {
        let dir = TempDirectory()
        let store = try openDamaged(try journalFile(dir))
        let (backup, report) = try store.queue.read { store.salvageBackup(in: $0) }
        #expect(report.entriesSaved == 300 && report.foodsSaved == 300)
        #expect(report.entriesSkipped == 0 && report.foodsSkipped == 0 && report.entriesUnlinked == 0)
        #expect(backup.entries.count == 300)
    }

    /// A saved food's barcode survives a salvage, so a scan after restoring still finds the food.
    @Test func barcodesAreSalvagedWithTheirFoods() throws {
        let dir = TempDirectory()
        let path = try journalFile(dir)
        let clock = ManualClock("2026-03-01T13:00:00Z")
        let writer = try JournalStore.openStandalone(queue: try DatabaseQueue(path: path), timeZone: testZone, now: { clock.now() })
        let scanned = try writer.createFood(FoodDraft(name: "Oat drink", serving: ServingSize(quantity: 250, unit: .volume(.ml)),
                                                      nutrients: nutrients(["energy_kcal": 110])), barcode: "7394376616037")
        let store = try openDamaged(path)
        let (backup, _) = try store.queue.read { store.salvageBackup(in: $0) }
        #expect(backup.foodBarcodes?.values.sorted() == ["7394376616037"])

        let (fresh, _) = try makeStore(ManualClock("2026-03-02T12:00:00Z"))
        _ = try fresh.importBackup(try JournalJSON.encoder.encode(backup))
        #expect(try fresh.food(barcode: "7394376616037")?.id == scanned.id)
    }

    /// A salvage runs no migration: a file from before `derived_nutrients` existed still salvages its entries.
    @Test func aFileWithoutTheDerivedColumnSalvagesEveryEntry() throws {
        let dir = TempDirectory()
        let path = try journalFile(dir)
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute("ALTER TABLE journal_entries DROP COLUMN derived_nutrients")
            try db.execute("DELETE FROM schema_migrations WHERE identifier = 'journal-entry-derived-nutrients'")
        }
        let store = try openDamaged(path)
        let (backup, report) = try store.queue.read { store.salvageBackup(in: $0) }
        #expect(report.entriesSaved == 300 && report.entriesSkipped == 0)
        #expect(backup.entries.allSatisfy { $0.derivedNutrients == nil })
    }

    @Test func entriesOfAnUnreadableFoodAreKeptWithoutTheLinkAndTheSalvageImports() throws {
        let dir = TempDirectory()
        let path = try journalFile(dir)
        // Only the foods table keeps nutrients as text ("energy_kcal=160;…", food 150): the page
        // that holds it is a foods page.
        try damagePage(path, holding: "energy_kcal=160")
        let store = try openDamaged(path)
        let (backup, report) = try store.queue.read { store.salvageBackup(in: $0) }
        #expect(report.foodsSkipped > 0 && report.foodsSaved + report.foodsSkipped == 300)
        #expect(report.entriesSaved == 300 && report.entriesSkipped == 0)
        #expect(report.entriesUnlinked == report.foodsSkipped) // one entry per lost food keeps its nutrients
        let foodIDs = Set(backup.foods.map(\.id))
        #expect(backup.entries.allSatisfy { $0.savedFoodID.map(foodIDs.contains) ?? true })

        let (fresh, _) = try makeStore(ManualClock("2026-03-02T12:00:00Z"))
        let imported = try fresh.importBackup(try JournalJSON.encoder.encode(backup))
        #expect(imported.entriesInserted == report.entriesSaved && imported.foodsInserted == report.foodsSaved)
    }

    @Test func aRowWithAnImpossibleValueIsSkippedSoTheSalvageStillImports() throws {
        let dir = TempDirectory()
        let path = try journalFile(dir)
        let db = try Database(path: path)
        try db.execute("UPDATE journal_entries SET updated_at = 32503680000000 WHERE seq = 7") // year 3000
        try db.execute("UPDATE journal_entries SET day = '1066-10-14' WHERE seq = 8")
        let store = try openDamaged(path)
        let (backup, report) = try store.queue.read { store.salvageBackup(in: $0) }
        #expect(report.entriesSaved == 298 && report.entriesSkipped == 2)
        let (fresh, _) = try makeStore(ManualClock("2026-03-02T12:00:00Z"))
        #expect(try fresh.importBackup(try JournalJSON.encoder.encode(backup)).entriesInserted == 298)
    }
}
