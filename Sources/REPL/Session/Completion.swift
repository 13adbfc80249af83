// Tab completion: slash commands, their arguments (thread ids, model names) and Food Bank names.
import Agent
import Journal

enum Completion {
    static func candidates(before: String, store: ConversationStore, journal: JournalStore, models: [String]) -> [String] {
        let words = before.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        let current = words.last ?? ""
        if words.count == 1 {
            if current.hasPrefix("/") {
                return SlashCommands.completions(prefix: String(current.dropFirst())).map { "/" + $0 }
            }
            return foodNames(prefix: current, journal: journal)
        }
        if let first = words.first, first.hasPrefix("/") {
            switch String(first.dropFirst()) {
            case "open", "delete":
                let threads = (try? store.listThreads(limit: 200)) ?? []
                return threads.map(\.id).filter { $0.hasPrefix(current) }
            case "model":
                return models.filter { $0.hasPrefix(current) }
            case "provider":
                return ["offline", "gemini", "openai", "openrouter", "azure", "anthropic", "ollama", "llamacpp", "vllm", "lmstudio"]
                    .filter { $0.hasPrefix(current) }
            case "foods":
                return foodNames(prefix: current, journal: journal)
            default:
                return []
            }
        }
        return foodNames(prefix: current, journal: journal)
    }

    /// Food Bank names whose words start with the prefix (only single-word completion here).
    static func foodNames(prefix: String, journal: JournalStore) -> [String] {
        guard prefix.count >= 2 else { return [] }
        let items = (try? journal.searchFoods(prefix, limit: 20)) ?? []
        var out: [String] = []
        for item in items {
            for word in item.food.name.split(separator: " ") where word.lowercased().hasPrefix(prefix.lowercased()) {
                let w = Terminal.sanitize(String(word), keepNewlines: false)
                if !out.contains(w) { out.append(w) }
            }
        }
        return out.sorted()
    }
}
