// The offline assistant's body-weight phrases (issue 33 §3): a weigh-in in kg, lb or the profile's
// units, and the trend question; an age is not a weight.
import Testing
import Foundation
@testable import Offline

@Suite struct OfflineWeightTests {
    @Test(arguments: [
        ("I weigh 80.4 kg", OfflineIntent.logWeight(value: 80.4, unit: "kg")),
        ("i weighed 177 lbs this morning", .logWeight(value: 177, unit: "lb")),
        ("my weight is 80,4", .logWeight(value: 80.4, unit: nil)),
        ("log my weight 81.2kg", .logWeight(value: 81.2, unit: "kg")),
        ("I'm 82 kilos", .logWeight(value: 82, unit: "kg")),
        ("what's my weight trend", .weightTrend),
        ("how's my weight", .weightTrend),
        ("weight trend", .weightTrend),
        ("how much do i weigh", .weightTrend),
    ])
    func weightPhrases(_ text: String, _ intent: OfflineIntent) {
        #expect(OfflineGrammar.parse(text) == intent)
    }

    @Test func anAgeOrAFoodIsNotAWeight() {
        #expect(OfflineGrammar.parse("I'm 30") != .logWeight(value: 30, unit: nil))
        if case .logWeight = OfflineGrammar.parse("log 200 g chicken") { Issue.record("a food read as a weigh-in") }
    }
}
