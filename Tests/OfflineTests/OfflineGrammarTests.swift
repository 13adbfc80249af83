import Testing
import Foundation
@testable import Offline

@Suite struct OfflineGrammarTests {
    @Test(arguments: [
        ("log 2 eggs for breakfast", OfflineIntent.log(food: "eggs", quantity: 2, unit: nil, meal: "breakfast", usual: false)),
        ("I had a banana", .log(food: "banana", quantity: 1, unit: nil, meal: nil, usual: false)),
        ("log 150g greek yogurt as a snack", .log(food: "greek yogurt", quantity: 150, unit: "g", meal: "snack", usual: false)),
        ("log my usual oatmeal", .log(food: "oatmeal", quantity: 1, unit: nil, meal: nil, usual: true)),
        ("I ate 1/2 cup of rice for dinner", .log(food: "rice", quantity: 0.5, unit: "cup", meal: "dinner", usual: false)),
        ("had two slices of toast for lunch", .log(food: "toast", quantity: 2, unit: "slice", meal: "lunch", usual: false)),
        ("what did I eat today", .showDay(.today)),
        ("What did I eat yesterday?", .showDay(.yesterday)),
        ("show last week", .showRange(.lastDays(7))),
        ("how much protein did I have this week", .nutrientTotal(nutrient: "protein_g", period: .lastDays(7))),
        ("how much sodium today", .nutrientTotal(nutrient: "sodium_mg", period: .today)),
        ("which foods gave me the most sugar this month", .topFoods(nutrient: "sugars_g", period: .thisMonth)),
        ("set my calorie goal to 2200", .setGoal(nutrient: "energy_kcal", amount: 2200)),
        ("set protein goal to 140g", .setGoal(nutrient: "protein_g", amount: 140)),
        ("delete the last thing I logged", .deleteLast),
        ("move my coffee to breakfast", .move(food: "coffee", meal: "breakfast")),
        ("what can I eat tonight", .recommend),
        ("find oat milk in my food bank", .searchFoodBank("oat milk")),
        ("help", .help),
        ("write me a poem about kale", .unknown),
        ("log", .unknown),
        ("how much wisdom today", .unknown),
    ])
    func understands(_ utterance: String, _ expected: OfflineIntent) {
        #expect(OfflineGrammar.parse(utterance) == expected)
    }
}

@Suite struct OfflineGrammarRefusals {
    @Test(arguments: [
        ("how much protein did I have last month", OfflineIntent.nutrientTotal(nutrient: "protein_g", period: .lastDays(30))),
        ("log -2 eggs", .unknown),
        ("log 2 eggs the day after", .unknown),
        ("log 2 eggs on 2026-02-30", .unknown),
        ("how much protein did I have in 1999", .unknown),
    ])
    func doesNotGuess(_ utterance: String, _ expected: OfflineIntent) {
        #expect(OfflineGrammar.parse(utterance) == expected)
    }
}

@Suite struct OfflinePhrasingTests {
    @Test(arguments: [
        ("what did I eat yesterday", OfflineIntent.showDay(.yesterday)),
        ("what did i eat tomorrow", .showDay(.tomorrow)),
        ("what did I eat last monday", .showDay(.weekday(1))),
        ("what did I have on friday", .showDay(.weekday(5))),
        ("what did I eat on the 3rd", .showDay(.dayOfMonth(3))),
        ("show me 2026-11-03", .showDay(.date("2026-11-03"))),
        ("what did I eat on 2026-11-03", .showDay(.date("2026-11-03"))),
        ("how much protein yesterday", .nutrientTotal(nutrient: "protein_g", period: .yesterday)),
        ("how much sodium did i have last monday", .nutrientTotal(nutrient: "sodium_mg", period: .weekday(1))),
        ("how many calories left today", .remaining(nutrient: "energy_kcal")),
        ("how many calories do I have left", .remaining(nutrient: "energy_kcal")),
        ("how much protein is left", .remaining(nutrient: "protein_g")),
        ("what's my protein goal", .goal(nutrient: "protein_g")),
        ("what is my calorie goal", .goal(nutrient: "energy_kcal")),
        ("delete the eggs", .deleteFood("eggs")),
        ("remove my coffee", .deleteFood("coffee")),
        ("delete the last thing I logged", .deleteLast),
        ("log 2 eggs yesterday", .dated(.log(food: "eggs", quantity: 2, unit: nil, meal: nil, usual: false), .yesterday)),
        ("log 2 eggs for dinner yesterday", .dated(.log(food: "eggs", quantity: 2, unit: nil, meal: "dinner", usual: false), .yesterday)),
        ("log 2 eggs yesterday for dinner", .dated(.log(food: "eggs", quantity: 2, unit: nil, meal: "dinner", usual: false), .yesterday)),
        ("log toast on the 3rd", .dated(.log(food: "toast", quantity: 1, unit: nil, meal: nil, usual: false), .dayOfMonth(3))),
        ("log 1 apple on 2026-11-03", .dated(.log(food: "apple", quantity: 1, unit: nil, meal: nil, usual: false), .date("2026-11-03"))),
        ("log 2 eggs last monday", .dated(.log(food: "eggs", quantity: 2, unit: nil, meal: nil, usual: false), .weekday(1))),
        ("log 2 eggs today", .log(food: "eggs", quantity: 2, unit: nil, meal: nil, usual: false)),
        ("add toast to dinner", .log(food: "toast", quantity: 1, unit: nil, meal: "dinner", usual: false)),
        ("log coffee to breakfast", .log(food: "coffee", quantity: 1, unit: nil, meal: "breakfast", usual: false)),
        ("log a banana for snack", .log(food: "banana", quantity: 1, unit: nil, meal: "snack", usual: false)),
        ("log a banana for a snack", .log(food: "banana", quantity: 1, unit: nil, meal: "snack", usual: false)),
        ("log oatmeal for my breakfast", .log(food: "oatmeal", quantity: 1, unit: nil, meal: "breakfast", usual: false)),
        ("for lunch I had a sandwich", .unknown),
        ("log 2 egs for brekfast", .log(food: "egs", quantity: 2, unit: nil, meal: "breakfast", usual: false)),
        ("what did I eat tday", .showDay(.today)),
        ("what did I eat yesterdy", .showDay(.yesterday)),
        ("how much protien today", .nutrientTotal(nutrient: "protein_g", period: .today)),
        ("log goat cheese", .log(food: "goat cheese", quantity: 1, unit: nil, meal: nil, usual: false)),
        ("log malt", .log(food: "malt", quantity: 1, unit: nil, meal: nil, usual: false)),
        ("2", .choose(2)),
        ("the second", .choose(2)),
        ("the first one", .choose(1)),
        ("#3", .choose(3)),
    ])
    func understands(_ utterance: String, _ expected: OfflineIntent) {
        #expect(OfflineGrammar.parse(utterance) == expected)
    }

    @Test func typosAreReadWithinEditDistanceTwoOfAKnownWord() {
        #expect(OfflineGrammar.corrected("brekfast") == "breakfast")
        #expect(OfflineGrammar.corrected("brkfast") == "breakfast")
        #expect(OfflineGrammar.corrected("tday") == "today")
        #expect(OfflineGrammar.corrected("dinr") == "dinr")     // two edits on a short word is too far
        #expect(OfflineGrammar.corrected("oats") == "oats")
    }

    /// A word that is one edit from a meal or day word is part of the food unless the grammar
    /// expects a meal or day there.
    @Test(arguments: [
        ("I had fruit punch", OfflineIntent.log(food: "fruit punch", quantity: 1, unit: nil, meal: nil, usual: false)),
        ("log a hot toddy", .log(food: "hot toddy", quantity: 1, unit: nil, meal: nil, usual: false)),
        ("log fruit punch for lunh", .log(food: "fruit punch", quantity: 1, unit: nil, meal: "lunch", usual: false)),
        ("log 2 eggs yesterdy", .dated(.log(food: "eggs", quantity: 2, unit: nil, meal: nil, usual: false), .yesterday)),
        ("log toast on tuesdy", .dated(.log(food: "toast", quantity: 1, unit: nil, meal: nil, usual: false), .weekday(2))),
    ])
    func typosAreCorrectedOnlyWhereTheGrammarExpectsAKeyword(_ utterance: String, _ expected: OfflineIntent) {
        #expect(OfflineGrammar.parse(utterance) == expected)
    }

    /// "the 31st" is the newest 31st on or before today, skipping months without one.
    @Test func aDayOfMonthSkipsMonthsThatAreTooShort() {
        let utc = TimeZone(identifier: "UTC")!
        let dec1 = 1_796_083_200.0  // 2026-12-01T00:00:00Z
        let calendar = OfflineCalendar(timeZone: utc, now: dec1 + 3_600)
        #expect(calendar.string(calendar.today) == "2026-12-01")
        #expect(calendar.string(calendar.range(.dayOfMonth(31)).0) == "2026-10-31")
        #expect(calendar.string(calendar.range(.dayOfMonth(30)).0) == "2026-11-30")
        #expect(calendar.string(calendar.range(.dayOfMonth(1)).0) == "2026-12-01")
        let mar1 = calendar.today + 90  // 2027-03-01: February has no 30th
        let march = OfflineCalendar(timeZone: utc, now: Double(mar1) * 86_400 + 3_600)
        #expect(march.string(march.range(.dayOfMonth(30)).0) == "2027-01-30")
    }
}

@Suite struct OfflineSeveralFoodsTests {
    @Test(arguments: [
        ("log 3 eggs and toast", OfflineIntent.logEach([.log(food: "eggs", quantity: 3, unit: nil, meal: nil, usual: false),
                                                        .log(food: "toast", quantity: 1, unit: nil, meal: nil, usual: false)])),
        ("log 3 eggs and toast for breakfast", .logEach([.log(food: "eggs", quantity: 3, unit: nil, meal: "breakfast", usual: false),
                                                          .log(food: "toast", quantity: 1, unit: nil, meal: "breakfast", usual: false)])),
        ("I had a banana and an apple", .logEach([.log(food: "banana", quantity: 1, unit: nil, meal: nil, usual: false),
                                                   .log(food: "apple", quantity: 1, unit: nil, meal: nil, usual: false)])),
        ("log 1 cup of mac and cheese", .log(food: "mac and cheese", quantity: 1, unit: "cup", meal: nil, usual: false)),
        ("log macaroni and cheese", .log(food: "macaroni and cheese", quantity: 1, unit: nil, meal: nil, usual: false)),
    ])
    func severalFoods(_ utterance: String, _ expected: OfflineIntent) {
        #expect(OfflineGrammar.parse(utterance) == expected)
    }
}

/// Amounts follow the one decimal rule (`TypedNumber`): a decimal comma is a number, never part
/// of the food's name, and a number the rule refuses logs nothing and says what to type.
@Suite struct OfflineDecimalCommaTests {
    @Test(arguments: [
        ("log 1,5 cups milk", OfflineIntent.log(food: "milk", quantity: 1.5, unit: "cup", meal: nil, usual: false)),
        ("log 1.5 cups milk", .log(food: "milk", quantity: 1.5, unit: "cup", meal: nil, usual: false)),
        ("log 0,5 l orange juice", .log(food: "orange juice", quantity: 0.5, unit: "l", meal: nil, usual: false)),
        ("log 1000 g of rice", .log(food: "rice", quantity: 1000, unit: "g", meal: nil, usual: false)),
        ("set my calorie goal to 2200", .setGoal(nutrient: "energy_kcal", amount: 2200)),
        ("set my alcohol goal to 14", .setGoal(nutrient: "alcohol_g", amount: 14)),
        ("log 2,5 eggs and toast", .logEach([.log(food: "eggs", quantity: 2.5, unit: nil, meal: nil, usual: false),
                                             .log(food: "toast", quantity: 1, unit: nil, meal: nil, usual: false)])),
    ])
    func decimalCommasAreNumbers(_ utterance: String, _ expected: OfflineIntent) {
        #expect(OfflineGrammar.parse(utterance) == expected)
    }

    @Test(arguments: ["log 1.5,5 cups milk", "log 1/0 cup rice", "log 1,5,5 g cheese", "log 2.5.1 cups milk and toast",
                       "log 1,000 g of rice"])
    func refusedNumbersLogNothingAndSayWhatToType(_ utterance: String) {
        guard case .badAmount(let line) = OfflineGrammar.parse(utterance) else {
            Issue.record("\(utterance) was not refused: \(OfflineGrammar.parse(utterance))")
            return
        }
        #expect(line.contains("nothing was logged") && line.contains("type"), "\(line)")
        #expect(!line.contains("\n"))
    }
}
