// The product's tools and offline assistant (NutritionTools and Providers/Offline), in one place.
import Agent
import Foundation
import Journal

enum Toolbox {
    static func registry(journal: JournalStore) -> ToolRegistry { ToolRegistry() }
    static func systemPrompt(journal: JournalStore) -> String {
        "You are ofj, a nutrition journal assistant. Use the tools; never guess numbers."
    }
    static func offlineAssistant(now: @escaping @Sendable () -> Date = { Date() }, timeZone: TimeZone = .current) -> any ChatModel {
        ScriptedChatModel(turns: [], clock: SystemClock(), provider: "offline", model: "offline", continuationFamily: "offline")
    }
}
