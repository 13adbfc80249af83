// Tests for migrations shared with other modules, JSON shapes, timestamps and storage codecs.
import Testing
import Foundation
import Nutrition
import SQLiteKit
@testable import Journal

@Suite struct MiscTests {
    @Test func migrationsJoinASharedMigrator() throws {
        let db = try Database(path: ":memory:")
        var migrator = Migrator()
        migrator.register("agent-1-threads", sql: "CREATE TABLE threads (id TEXT PRIMARY KEY)")
        JournalStore.registerMigrations(into: &migrator)
        try migrator.migrate(db)
        try migrator.migrate(db) // idempotent
        let applied = try migrator.appliedIdentifiers(db)
        #expect(applied.contains("agent-1-threads"))
        #expect(applied.filter { $0.hasPrefix("journal-") } == ["journal-1-tables", "journal-saved-food-barcode", "journal-entry-derived-nutrients", "journal-2-person", "journal-3-diary-eaten-at", "journal-3-diary-meal-label"])
        // A database migrated by a newer build is refused, not modified.
        try db.execute("INSERT INTO schema_migrations (identifier) VALUES ('journal-99-future')")
        #expect(throws: Migrator.MigrationError.self) { try migrator.migrate(db) }
    }

    @Test func customMealScheduleDrivesTheDefaultMeal() throws {
        let clock = ManualClock("2024-05-01T15:30:00Z") // 10:30 at UTC-5
        let schedule = try MealSchedule(breakfastStart: TimeOfDay(parsing: "05:00"), lunchStart: TimeOfDay(parsing: "10:00"),
                                        dinnerStart: TimeOfDay(parsing: "16:00"))
        let store = try JournalStore.openStandalone(queue: try DatabaseQueue.inMemory(), timeZone: testZone, mealSchedule: schedule,
                                                    now: { clock.now() })
        #expect(try store.logEntry(EntryDraft(name: "Early lunch")).meal == .lunch)
        clock.set("2024-05-01T09:59:00Z") // 04:59
        #expect(try store.logEntry(EntryDraft(name: "Very late dinner")).meal == .dinner)
    }

    @Test func entryJSONUsesSnakeCaseAndISOTimestamps() throws {
        let (store, _) = try makeStore()
        let e = try store.logEntry(EntryDraft(name: "Tea", serving: ServingSize(quantity: 1, unit: .volume(.cup)),
                                              nutrients: nutrients(["caffeine_mg": 47])))
        let json = String(decoding: try JournalJSON.encoder.encode(e), as: UTF8.self)
        for key in ["\"created_at\" : \"2024-05-01T13:00:00.000Z\"", "\"serving\"", "\"unit\" : \"cup\"",
                    "\"ml\" : 236.5882365", "\"caffeine_mg\" : 47", "\"source\" : \"manual\"", "\"day\" : \"2024-05-01\""] {
            #expect(json.contains(key), "\(key)")
        }
        #expect(!json.contains("savedFoodID"))
        let back = try JournalJSON.decoder.decode(Entry.self, from: Data(json.utf8))
        #expect(back == e)
    }

    @Test func isoTimestampsRoundTripAtMillisecondPrecision() {
        for ms: Int64 in [0, 1, 999, 86_399_999, 1_714_568_400_250, -1, -86_400_001, 253_402_300_799_999] {
            let d = Date(milliseconds: ms)
            let text = JournalJSON.formatISO(d)
            #expect(JournalJSON.parseISO(text)?.milliseconds == ms, "\(text)")
        }
        #expect(JournalJSON.formatISO(Date(milliseconds: -1)) == "1969-12-31T23:59:59.999Z")
        #expect(JournalJSON.parseISO("2024-05-01T12:00:00Z")?.milliseconds == 1_714_564_800_000)
        #expect(JournalJSON.parseISO("2024-05-01T14:00:00+02:00")?.milliseconds == 1_714_564_800_000)
        for bad in ["", "2024-05-01", "2024-13-01T00:00:00Z", "2024-05-01T25:00:00Z", "yesterday"] {
            #expect(JournalJSON.parseISO(bad) == nil, "\(bad)")
        }
    }

    @Test func nutrientTextRoundTripsExactly() throws {
        let values: [String: Double] = ["a_g": 0, "b_mg": 0.1, "c_mcg": 1e-9, "d_kcal": 123456.789, "e_g": 1e16, "f_g": 1.0 / 3]
        let text = NutrientText.encode(NutrientAmounts(storedCanonical: values))
        #expect(NutrientText.decode(text) == values)
        #expect(NutrientText.decode("") == [:])
        #expect(NutrientText.decode("a=1;b") == nil)
        #expect(NutrientText.decode("a=x") == nil)
    }

    @Test func backupImportMapsLegacyNamesAndKeepsUnknownIDs() throws {
        let (store, _) = try makeStore()
        let id = UUID()
        let json = """
            {"schema_version": 1, "exported_at": "2024-05-01T00:00:00Z", "foods": [], "entries": [
              {"id": "\(id.uuidString)", "day": "2024-04-01", "meal": "lunch", "name": "Imported", "servings": 1,
               "serving": {"quantity": 1, "unit": "serving"}, "source": "import",
               "nutrients": {"Saturated Fat": 3, "Sodium": 200, "omega_3_mg": 12},
               "created_at": "2024-04-01T12:00:00Z", "updated_at": "2024-04-01T12:00:00Z"}]}
            """
        let report = try store.importBackup(Data(json.utf8))
        #expect(report.entriesInserted == 1 && !report.goalsChanged)
        let e = try #require(try store.entry(id))
        #expect(e.nutrients.values == ["saturated_fat_g": 3, "sodium_mg": 200, "omega_3_mg": 12])
        #expect(e.source == .import)
        #expect(try store.importBackup(Data(json.utf8)).changedNothing)
        // Unknown enum values and bad types are rejected with the path.
        let badMeal = json.replacingOccurrences(of: "\"lunch\"", with: "\"brunch\"")
        #expect(journalError { try store.importBackup(Data(badMeal.utf8)) }?.description.contains("meal") == true)
        let badNumber = json.replacingOccurrences(of: "\"Sodium\": 200", with: "\"Sodium\": \"lots\"")
        #expect(journalError { try store.importBackup(Data(badNumber.utf8)) } != nil)
        let badUnit = json.replacingOccurrences(of: "\"unit\": \"serving\"", with: "\"unit\": \"\"")
        #expect(journalError { try store.importBackup(Data(badUnit.utf8)) } != nil)
    }
}

@Suite struct DaylightSavingTests {
    @Test func dayAndMealFollowTheLocalClockAcrossTheSpringForwardGap() throws {
        let tz = try #require(TimeZone(identifier: "America/New_York"))
        let clock = ManualClock("2024-03-10T06:30:00Z") // 01:30 EST
        let store = try JournalStore.openStandalone(queue: try DatabaseQueue.inMemory(), timeZone: tz, now: { clock.now() })
        #expect(store.today() == day("2024-03-10"))
        #expect(store.defaultMeal() == .dinner)
        clock.set("2024-03-10T07:30:00Z") // 03:30 EDT: the clock skipped 02:00-03:00
        #expect(store.defaultMeal() == .breakfast)
        clock.set("2024-11-03T04:30:00Z") // 00:30 EDT on the fall-back day
        #expect(store.today() == day("2024-11-03"))
        clock.set("2024-11-04T04:30:00Z") // 23:30 EST, still Nov 3
        #expect(store.today() == day("2024-11-03"))
    }
}
