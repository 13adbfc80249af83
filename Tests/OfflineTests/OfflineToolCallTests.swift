// The offline assistant asks for tools by their published names: the first calls of a few requests.
import Agent
import NutritionTools
import Testing
@testable import Offline

@Suite struct OfflineToolCallTests {
    func firstCalls(_ utterance: String) -> [String] {
        OfflineAssistant(timeZone: .gmt, now: { 1_800_000_000 }).respond(to: [.user(utterance)]).compactMap {
            if case .toolCall(let call) = $0 { return call.name } else { return nil }
        }
    }

    @Test(arguments: [
        ("log 2 eggs for breakfast", [NutritionToolName.searchFoodBank, .searchReferenceFoods]),
        ("what did I eat today", [.getJournalDay]),
        ("set my calorie goal to 2200", [.setGoals]),
        ("scan 3017620422003", [.lookupBarcode]),
        ("delete the last thing I logged", [.searchJournal]),
        ("what can I eat tonight", [.recommendShelfFoods]),
    ])
    func requestsCallPublishedTools(utterance: String, tools: [NutritionToolName]) {
        let names = firstCalls(utterance)
        #expect(names == tools.map(\.rawValue), "\(utterance)")
        #expect(names.allSatisfy { NutritionToolName(rawValue: $0) != nil })
    }

    @Test func anAnswerWithoutToolsCallsNone() {
        #expect(firstCalls("help").isEmpty)
    }
}
