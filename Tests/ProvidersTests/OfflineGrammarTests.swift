import Testing
@testable import Providers

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
        ("log 2 eggs yesterday", .unknown),
        ("log 2 eggs on 2026-02-30", .unknown),
        ("how much protein did I have in 1999", .unknown),
    ])
    func doesNotGuess(_ utterance: String, _ expected: OfflineIntent) {
        #expect(OfflineGrammar.parse(utterance) == expected)
    }
}
