// The product's tools, system prompt and offline assistant, in one place for every frontend.
import Agent
import Foundation
import Journal
import NutritionTools
import Providers
import ReferenceFoods
import Research

enum Toolbox {
    /// - Parameter fetchURL: offer fetch_url, which reaches only public internet addresses (see
    ///   the Research module). The app turns it on unless OFJ_FETCH_URL=off; replays leave it off
    ///   so the recorded transcripts keep their tool list.
    static func registry(journal: JournalStore, fetchURL: Bool = false, sources: SourceStore? = nil,
                         search: SearchConfiguration? = nil, diagnostics: any DiagnosticsRecorder = NoDiagnostics()) -> ToolRegistry {
        var extra: [any Tool] = []
        if let search {
            extra.append(WebSearchTool(client: WebSearchClient(configuration: search), sources: sources, diagnostics: diagnostics))
        }
        if fetchURL { extra.append(FetchURLTool(sources: sources)) }
        var tools = NutritionToolbox.makeTools(journal: journal, reference: ReferenceDatabase.shared)
        if let sources, fetchURL || search != nil {
            extra.append(ReadConversationSourceTool(sources: sources))
            // A write proposed after reading the web names the sources on its approval card.
            tools = tools.map { tool in (tool as? any WriteTool).map { SourceCitingWriteTool($0, sources: sources) } ?? tool }
        }
        return ToolRegistry(tools + extra)
    }

    /// Loads the reference foods and their search index in the background while the person types,
    /// so the first lookup answers within the 1 s read deadline.
    static func warmUp() {
        Thread { try? ReferenceDatabase.shared.prepareSearch() }.start()
    }

    static func systemPrompt(journal: JournalStore) -> String {
        NutritionToolbox.systemPrompt(now: journal.now(), timeZone: journal.timeZone)
    }

    static func offlineAssistant(now: @escaping @Sendable () -> Date = { Date() }, timeZone: TimeZone = .current) -> any ChatModel {
        OfflineAssistant(timeZone: timeZone, now: { now().timeIntervalSince1970 })
    }
}
