// Tab after a slash command offers what that command's entry in SlashCommands.all declares.
import Agent
import Journal
import SQLiteKit
import Testing
import TestSupport
@testable import REPL

@Suite struct SlashCompletionTests {
    let dir = TempDirectory()

    func complete(_ before: String, models: [String] = []) throws -> [String] {
        let queue = try DatabaseQueue(path: dir.path + "/ofj.sqlite")
        return Completion.candidates(before: before, store: ConversationStore(queue: queue), journal: JournalStore(queue: queue),
                                     models: models).candidates
    }

    @Test func eachCommandCompletesWhatItsEntryDeclares() throws {
        #expect(try complete("/budget ") == ContextBudgetChoice.allCases.map(\.rawValue))
        #expect(try complete("/export j") == ["json"])
        // An export's second word is a file name, not a format.
        #expect(try complete("/export md j").isEmpty)
        #expect(try complete("/provider o") == ["offline", "openai", "openrouter", "ollama"])
        #expect(try complete("/model gp", models: ["gpt-5", "gemini-2.5-pro", "gpt-4o"]) == ["gpt-5", "gpt-4o"])
        // Free-text arguments, aliases and unknown commands offer nothing.
        #expect(try complete("/title Br").isEmpty)
        #expect(try complete("/quit x").isEmpty)
        #expect(try complete("/nosuch x").isEmpty)
    }

    @Test func everyEntryIsNamedOnceAndHelpListsItsArguments() {
        let names = SlashCommands.all.flatMap { [$0.name] + $0.aliases }
        #expect(Set(names).count == names.count, "a name or alias is used twice")
        for c in SlashCommands.all where !c.arguments.isEmpty {
            #expect(SlashCommands.helpText.contains("/\(c.name) \(c.arguments)"))
        }
        #expect(SlashCommands.command(named: "quit")?.name == "exit")
    }
}
