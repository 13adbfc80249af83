// Issue 34 §2 and §8: the offline assistant's phrasings for copying a meal or a day, water and
// day notes; the note keeps the person's own words and case.
import Testing
import Foundation
@testable import Offline

@Suite struct OfflineDiaryGrammarTests {
    @Test(arguments: [
        ("same breakfast as yesterday", OfflineIntent.copyMeal(from: .yesterday, meal: "breakfast", to: nil, toMeal: nil)),
        ("Same breakfast as yesterday!", .copyMeal(from: .yesterday, meal: "breakfast", to: nil, toMeal: nil)),
        ("I had the same lunch as yesterday", .copyMeal(from: .yesterday, meal: "lunch", to: nil, toMeal: nil)),
        ("the same dinner as on monday", .copyMeal(from: .weekday(1), meal: "dinner", to: nil, toMeal: nil)),
        ("same breakfast as yesterday for lunch", .copyMeal(from: .yesterday, meal: "breakfast", to: nil, toMeal: "lunch")),
        ("copy yesterday's lunch", .copyMeal(from: .yesterday, meal: "lunch", to: nil, toMeal: nil)),
        ("copy yesterday’s lunch to dinner", .copyMeal(from: .yesterday, meal: "lunch", to: nil, toMeal: "dinner")),
        ("repeat breakfast from yesterday", .copyMeal(from: .yesterday, meal: "breakfast", to: nil, toMeal: nil)),
        ("copy lunch from 2026-11-28 to tomorrow", .copyMeal(from: .date("2026-11-28"), meal: "lunch", to: .tomorrow, toMeal: nil)),
        ("copy yesterday", .copyMeal(from: .yesterday, meal: nil, to: nil, toMeal: nil)),
        ("same as yesterday", .copyMeal(from: .yesterday, meal: nil, to: nil, toMeal: nil)),
        ("yesterday's breakfast again", .copyMeal(from: .yesterday, meal: "breakfast", to: nil, toMeal: nil)),
        ("copy yesterday's supper to today's lunch", .copyMeal(from: .yesterday, meal: "dinner", to: .today, toMeal: "lunch")),
        ("I drank 500 ml of water", .water(milliliters: 500)),
        ("drank 2 glasses of water", .water(milliliters: 480)),
        ("log 0.5 l water", .water(milliliters: 500)),
        ("had a cup of water", .water(milliliters: 240)),
        ("water 16 fl oz", .water(milliliters: 16 * 29.5735)),
        ("note: felt bloated", .note("felt bloated")),
        ("Note: Felt BLOATED after lunch.", .note("Felt BLOATED after lunch.")),
        ("add a note that I slept badly", .note("I slept badly")),
        ("make a note: headache in the afternoon", .note("headache in the afternoon")),
        ("what do I usually have for breakfast", .recentFoods(meal: "breakfast")),
        ("what do I usually eat", .recentFoods(meal: nil)),
        ("my recent foods", .recentFoods(meal: nil)),
        ("how long have I been fasting?", .fasting),
        ("when did I last eat", .fasting),
        ("my fasting window", .fasting),
    ])
    func understands(_ utterance: String, _ expected: OfflineIntent) {
        #expect(OfflineGrammar.parse(utterance) == expected)
    }

    @Test(arguments: [
        ("log 2 eggs for breakfast", OfflineIntent.log(food: "eggs", quantity: 2, unit: nil, meal: "breakfast", usual: false)),
        ("I drank 300 ml of milk", .log(food: "milk", quantity: 300, unit: "ml", meal: nil, usual: false)),
        ("copy the thing", .unknown),
        ("same breakfast as the day after", .unknown),
    ])
    func leavesOtherSentencesAlone(_ utterance: String, _ expected: OfflineIntent) {
        #expect(OfflineGrammar.parse(utterance) == expected)
    }
}
