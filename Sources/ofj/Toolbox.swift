// The product's tools, system prompt and offline assistant, in one place for every frontend.
import Agent
import Foundation
import HTTP
import Journal
import NutritionTools
import Offline
import PackagedFoods
import Providers
import ReferenceFoods
import Research
import SQLiteKit

enum Toolbox {
    /// - Parameters:
    ///   - packaged: offer the packaged-food tools of issue 18; `foods` replaces the real network
    ///     client (replay passes one with no network).
    ///   - fetchURL: offer fetch_url, which reaches only public internet addresses (see the Research
    ///     module). The app turns it on unless OFJ_FETCH_URL=off; replays leave it off so the
    ///     recorded transcripts keep their tool list.
    static func registry(journal: JournalStore, packaged: Bool = true, foods: PackagedFoods? = nil, fetchURL: Bool = false,
                         sources: SourceStore? = nil, search: SearchConfiguration? = nil, searchTransport: (any HTTPTransport)? = nil,
                         diagnostics: any DiagnosticsRecorder = NoDiagnostics(), attachments: Bool = true) -> ToolRegistry {
        var extra: [any Tool] = []
        if let search {
            let client = searchTransport.map { WebSearchClient(configuration: search, transport: $0) } ?? WebSearchClient(configuration: search)
            extra.append(WebSearchTool(client: client, sources: sources, diagnostics: diagnostics))
        }
        if fetchURL { extra.append(FetchURLTool(sources: sources)) }
        var tools = NutritionToolbox.makeTools(journal: journal, reference: ReferenceDatabase.shared) + PersonTools.make(journal: journal)
            + (packaged ? packagedTools(journal: journal, foods: foods) : [])
        if let sources, fetchURL || search != nil {
            extra.append(ReadConversationSourceTool(sources: sources))
            // A write proposed after reading the web names the sources on its approval card.
            // (`effect` first: a failing `as? any WriteTool` scans every protocol conformance in
            // the binary, 7 M instructions for the read tools at each start; issue 39.)
            tools = tools.map { tool in
                guard tool.effect == .write, let write = tool as? any WriteTool else { return tool }
                return SourceCitingWriteTool(write, sources: sources)
            }
        }
        // Label scan (issue 19): cards of log_food/save_food name the attached file the values came from.
        if attachments {
            tools = LabelScan.citingAttachments(tools)
            extra.append(ReadAttachmentTool(store: ConversationStore(queue: journal.queue),
                                                refusal: { ref, model in ModelCatalog.attachmentRefusal([ref], model: model) }))
        }
        return ToolRegistry(tools + extra)
    }

    /// lookup_barcode, search_packaged_foods, log_packaged_food, save_packaged_food (issue 18),
    /// over the journal's database (cache, rate limits) and the real network unless `foods` is given.
    /// The network client is made on the first lookup or search that needs it (issue 39).
    static func packagedTools(journal: JournalStore, foods: PackagedFoods? = nil) -> [any Tool] {
        if let foods { return PackagedTools.make(journal: journal, foods: foods) }
        return PackagedTools.make(journal: journal, foods: packagedClient(queue: journal.queue))
    }

    /// The Open Food Facts / FoodData Central client over `queue` (cache, rate limits), made on first use.
    /// (Reading the environment costs 0.5 M instructions, so it too waits for the first use.)
    static func packagedClient(queue: DatabaseQueue, environment: [String: String]? = nil) -> OnFirstUse<PackagedFoods> {
        OnFirstUse {
            PackagedFoods(transport: CurlTransport(), config: PackagedConfig.fromEnvironment(environment ?? ProcessInfo.processInfo.environment, version: version),
                          store: PackagedStore(queue: queue))
        }
    }

    /// The approval rules of config.json at `path`, checked against `tools`' schemas; relative
    /// dates ("today", "-7d") are days of the journal's time zone.
    static func ruleBook(path: String, tools: ToolRegistry, journal: JournalStore) -> ApprovalRuleBook {
        ApprovalRuleBook(path: path, vocabulary: RuleVocabulary(registry: tools), today: { journal.today().description })
    }

    /// The rule problems of config.json (for `ofj doctor`), checked against every tool ofj has.
    static func ruleProblems(path: String) -> [String] {
        guard let queue = try? SQLiteKit.DatabaseQueue.inMemory() else { return [] }
        let journal = JournalStore(queue: queue)
        return ruleBook(path: path, tools: registry(journal: journal, fetchURL: true, sources: SourceStore(queue: queue)), journal: journal).problems()
    }

    /// Rules of config.json that load but may not mean what they seem (for `ofj doctor`).
    static func ruleWarnings(path: String) -> [String] {
        guard let queue = try? SQLiteKit.DatabaseQueue.inMemory() else { return [] }
        let journal = JournalStore(queue: queue)
        return ruleBook(path: path, tools: registry(journal: journal, fetchURL: true, sources: SourceStore(queue: queue)), journal: journal).warnings()
    }

    /// Loads the reference foods and their search index in the background, so a long-running
    /// server's first lookup is as fast as the rest (`ofj mcp`). The REPL and `ofj ask` do not:
    /// a text-only turn never reads them, and a reference tool loads them on its first call,
    /// before its read deadline starts (`Tool.prepare`).
    static func warmUp() {
        Thread { try? ReferenceDatabase.shared.prepareSearch() }.start()
    }

    /// The same bytes for every request (no clock in it): the stable prefix providers cache.
    static func systemPrompt(packaged: Bool = true, attachments: Bool = true) -> String {
        NutritionToolbox.systemPrompt + (packaged ? "\n" + PackagedTools.promptRule : "")
            + (attachments ? "\n" + LabelScan.prompt : "")
    }

    /// What each request says after the stable prefix: the person's standing notes, then the
    /// journal clock's date and time (last: it changes every minute).
    static func contextNote(journal: JournalStore) -> String {
        // Unreadable notes must not stop the assistant: the time line still goes.
        let notes = (try? journal.notes()) ?? nil
        return NutritionToolbox.contextNote(now: journal.now(), timeZone: journal.timeZone, notes: notes)
    }

    static func offlineAssistant(now: @escaping @Sendable () -> Date = { Date() }, timeZone: TimeZone = .current) -> any ChatModel {
        OfflineAssistant(timeZone: timeZone, now: { now().timeIntervalSince1970 })
    }
}
