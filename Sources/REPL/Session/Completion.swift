// Tab completion: slash commands, their arguments as each command declares them (thread ids and
// titles, model names, budgets, export formats, paths) and whole Food Bank names, the foods
// logged at this time of day first.
import Agent
import Foundation
import Journal
import Views

enum Completion {
    /// Typed words a Food Bank name may replace at most ("greek yo" → "Greek yogurt, plain").
    static let maxNameWords = 5

    static func candidates(before: String, store: ConversationStore, journal: JournalStore, models: [String]) -> Completions {
        let words = before.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        let current = words.last ?? ""
        let simple = { (list: [String]) in Completions(replacing: current.count, candidates: list) }
        if words.count == 1 {
            if current.hasPrefix("/") {
                return simple(SlashCommands.completions(prefix: String(current.dropFirst())).map { "/" + $0 })
            }
            return foodNames(before: before, journal: journal)
        }
        if let first = words.first, first.hasPrefix("/") {
            let argument = String(before.dropFirst(first.count + 1))
            // What each command's arguments are is declared in its entry of SlashCommands.all.
            switch SlashCommands.command(named: String(first.dropFirst()))?.completes ?? .freeText {
            case .threads:
                return threads(argument: argument, store: store)
            case .models:
                return simple(models.filter { $0.hasPrefix(current) })
            case .foodNames:
                return foodNames(before: argument, journal: journal)
            case .files:
                return paths(current)
            case .words(let list, let firstOnly) where !firstOnly || words.count == 2:
                return simple(list.filter { $0.hasPrefix(current) })
            case .words, .freeText:
                return .none
            }
        }
        return foodNames(before: before, journal: journal)
    }

    /// File and folder names completing the path being typed (folders end in "/"); hidden ones
    /// only when the typed name starts with ".".
    static func paths(_ typed: String) -> Completions {
        var expanded = typed
        var home = ""
        if typed.hasPrefix("~/"), let h = ProcessInfo.processInfo.environment["HOME"] {
            home = h
            expanded = h + typed.dropFirst(1)
        }
        let slash = expanded.lastIndex(of: "/")
        let dir = slash.map { String(expanded[...$0]) } ?? ""
        let prefix = slash.map { String(expanded[expanded.index(after: $0)...]) } ?? expanded
        let listed = (try? FileManager.default.contentsOfDirectory(atPath: dir.isEmpty ? "." : dir)) ?? []
        var out: [String] = []
        for name in listed.sorted() where name.hasPrefix(prefix) && (prefix.hasPrefix(".") || !name.hasPrefix(".")) {
            var isDir: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: dir + name, isDirectory: &isDir)
            var full = dir + name + (isDir.boolValue ? "/" : "")
            if !home.isEmpty { full = "~" + full.dropFirst(home.count) }
            out.append(full)
        }
        return Completions(replacing: typed.count, candidates: Array(out.prefix(200)))
    }

    /// Thread ids starting with the argument, and thread titles starting with it (ignoring case);
    /// the whole argument (several words for a title) is replaced.
    static func threads(argument: String, store: ConversationStore) -> Completions {
        let threads = (try? store.listThreads(limit: 200)) ?? []
        let key = argument.lowercased()
        var out: [String] = []
        for t in threads where t.id.hasPrefix(argument) && !argument.contains(" ") { out.append(t.id) }
        if !key.isEmpty {
            for t in threads {
                let title = Terminal.sanitize(t.title, keepNewlines: false)
                if title.lowercased().hasPrefix(key), !out.contains(title) { out.append(title) }
            }
        }
        return Completions(replacing: argument.count, candidates: out)
    }

    /// Whole Food Bank names for the last words typed: the longest run of last words (up to
    /// `maxNameWords`) that starts a name, or else the last word starting any word of a name.
    static func foodNames(before: String, journal: JournalStore) -> Completions {
        let words = before.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard let last = words.last else { return .none }
        for n in stride(from: min(maxNameWords, words.count), through: 1, by: -1) {
            // May end with a space ("Greek " after a first Tab completed the common part).
            let typed = words.suffix(n).joined(separator: " ")
            let query = typed.trimmingCharacters(in: .whitespaces)
            guard !typed.hasPrefix(" "), query.count >= 2 else { continue }
            let names = names(matching: query, journal: journal).filter { $0.lowercased().hasPrefix(typed.lowercased()) }
            if !names.isEmpty { return Completions(replacing: typed.count, candidates: names) }
        }
        guard last.count >= 2 else { return .none }
        // "yog" → "Greek yogurt": a word inside a name.
        let inside = names(matching: last, journal: journal).filter { name in
            name.lowercased().split(separator: " ").contains { $0.hasPrefix(last.lowercased()) }
        }
        return Completions(replacing: last.count, candidates: inside)
    }

    private static func names(matching text: String, journal: JournalStore) -> [String] {
        let items = (try? journal.searchFoods(text, limit: 20)) ?? []
        var out: [String] = []
        for item in items {
            let name = Terminal.sanitize(item.food.name, keepNewlines: false)
            if !out.contains(name) { out.append(name) }
        }
        // The foods logged at this time of day in the last weeks first (issue 34 §2), in their ranking.
        let recent = ((try? journal.recentFoods(limit: 50)) ?? []).filter { $0.savedFoodID != nil }
            .map { Terminal.sanitize($0.name, keepNewlines: false) }
        func rank(_ name: String) -> Int { recent.firstIndex(of: name) ?? Int.max }
        return out.sorted { (rank($0), $0) < (rank($1), $1) }
    }
}
