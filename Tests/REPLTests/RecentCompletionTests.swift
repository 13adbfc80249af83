// Issue 34 §2: Tab on a food name offers the foods logged at this time of day first, then the
// other matches A–Z.
import Agent
import Foundation
import Journal
import Nutrition
import SQLiteKit
import Testing
import TestSupport
@testable import REPL

@Suite struct RecentCompletionTests {
    @Test func foodsLoggedAtThisTimeOfDayComeFirst() throws {
        let queue = try DatabaseQueue.inMemory()
        let journal = try JournalStore.openStandalone(queue: queue, timeZone: TimeZone(secondsFromGMT: 0) ?? .gmt)
        for name in ["Greek yogurt, plain", "Granola", "Grapes"] {
            try journal.createFood(FoodDraft(name: name, nutrients: try NutrientAmounts(["energy_kcal": 100])))
        }
        let names = { (before: String) in
            Completion.candidates(before: before, store: ConversationStore(queue: queue), journal: journal, models: []).candidates
        }
        #expect(names("gr") == ["Granola", "Grapes", "Greek yogurt, plain"])
        // Grapes logged now (this time of day) twice, Greek yogurt once: they come first, in that order.
        let grapes = try #require(try journal.searchFoods("Grapes").first?.food)
        let yogurt = try #require(try journal.searchFoods("Greek").first?.food)
        try journal.logFood(grapes.id)
        try journal.logFood(grapes.id)
        try journal.logFood(yogurt.id)
        #expect(names("gr") == ["Grapes", "Greek yogurt, plain", "Granola"])
    }
}
