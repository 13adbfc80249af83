// Issue 34 §8 and §9: what the fuller diary adds travels with the kinds that already sync: an
// entry's eaten-at time and meal of one's own (entry), water (an entry) and day notes (setting).
import Foundation
import Journal
import Nutrition
import SQLiteKit
import TestSupport
import Testing
@testable import Sync

@Suite(.serialized) struct DiarySyncTests {
    @Test func timesOwnMealsWaterAndNotesReachTheOtherMachine() async throws {
        let server = try await Remote.start()
        let a = try Machine(url: server.url), b = try Machine(url: server.url)
        let today = a.journal.today()
        let at = a.journal.date(on: today, minute: 7 * 60 + 45)
        let e = try a.journal.logEntry(EntryDraft(name: "Shake", nutrients: try NutrientAmounts(["energy_kcal": 200]), eatenAt: at, mealLabel: "Pre-workout"))
        try a.journal.queue.write { _ = try a.journal.logWater(milliliters: 500, in: $0) }
        let note = try a.journal.addNote("felt bloated", day: today)
        let pushed = try await a.sync()
        #expect(pushed.pushed == 3) // two entries, one note
        #expect(try await b.sync().applied == 3)
        #expect(try a.dump() == b.dump())
        let there = try #require(try b.journal.entry(e.id))
        #expect(there.eatenAt == at && there.mealLabel == "Pre-workout" && there.meal == .snack)
        #expect(try b.journal.notes(on: today) == [note])
        #expect(try b.journal.queue.read { try b.journal.waterLogged(on: today, in: $0) } == 500)
        #expect(try b.journal.searchNotes("bloated").count == 1)
        await server.shutdown()
    }
}
