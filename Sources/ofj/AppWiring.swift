// The composition root: one database, the stores, tools, model, runner and diagnostics.
import Agent
import CommandLineKit
import Diagnostics
import Foundation
import HTTP
import Hrana
import Journal
import Providers
import Research
import REPL
import ReferenceFoods
import Settings
import SQLiteKit

/// Everything a running ofj needs, built once at start-up.
struct App {
    let paths: AppPaths
    let environment: [String: String]
    let queue: DatabaseQueue
    let journal: JournalStore
    let store: ConversationStore
    let tools: ToolRegistry
    /// Web pages fetch_url read, per thread (`/sources`, read_conversation_source).
    let sources: SourceStore
    let transport: any HTTPTransport
    let fileConfig: ProviderFileConfig?
    let credentials: [String: String]
    /// Why the credentials file was refused (e.g. its mode is not 0600), for a precise error.
    let credentialsProblem: String?
    let outbox: DiagnosticsOutbox
    let recorder: OutboxRecorder
    /// Delivers diagnostics to Turso when TURSO_DATABASE_URL is set; nil otherwise.
    let flusher: DiagnosticsFlusher?
    /// The `research` setting: OFJ_RESEARCH (environment, then credentials file), then config.json.
    let researchSetting: String?
    /// The approval rules of config.json (re-read when the file changes).
    let rules: ApprovalRuleBook
    /// Each model's context window: config.json, else read from a local server, else the catalog.
    let windows: ContextWindows

    /// `access` is what the command's spec declares: `.read` opens the database read-only.
    init(paths: AppPaths, environment: [String: String], appVersion: String, access: DataAccess) throws {
        self.paths = paths
        self.environment = environment
        try paths.ensureDataDirectory()
        queue = try OfjDatabase.open(path: paths.databasePath, access: access)
        journal = JournalStore(queue: queue, timeZone: .current, mealSchedule: MealConfig.load(configPath: paths.configPath).schedule)
            .with(customMeals: MealConfig.customMeals(configPath: paths.configPath))
        store = ConversationStore(queue: queue)
        transport = CurlTransport()
        // A broken config.json stops start-up with its own message; a refused credentials file is
        // reported when a key from it is needed, so the environment's keys keep working.
        let files = ProviderFiles.load(environment: environment)
        if let problem = files.problems.first(where: { $0 != files.credentialsProblem }) { throw CLIError(problem) }
        fileConfig = files.file
        windows = ContextWindows(transport: transport, file: files.file)
        credentials = files.credentials
        credentialsProblem = files.credentialsProblem
        sources = SourceStore(queue: queue)
        let setting = App.researchSetting(environment: environment, credentials: credentials, file: files.file)
        researchSetting = setting
        // web_search is built when Tavily or Parallel could be chosen; a runner offers it only when
        // its model's research choice is that backend (`makeRunner`).
        let search = SearchConfiguration.from(research: setting, settings: credentials.merging(environment) { _, env in env })
        let relay = DiagnosticsRelay()
        tools = Toolbox.registry(journal: journal, fetchURL: environment["OFJ_FETCH_URL"]?.lowercased() != "off", sources: sources,
                                 search: search, diagnostics: relay)
        rules = Toolbox.ruleBook(path: paths.configPath, tools: tools, journal: journal)
        outbox = DiagnosticsOutbox(queue: queue)
        recorder = OutboxRecorder(outbox: outbox, appVersion: appVersion, allowedToolNames: tools.callableNames)
        relay.connect(recorder)
        let turso: TursoConfiguration?
        do {
            turso = try TursoConfiguration.from(databaseURL: environment["TURSO_DATABASE_URL"] ?? credentials["TURSO_DATABASE_URL"],
                                                authToken: environment["TURSO_AUTH_TOKEN"] ?? credentials["TURSO_AUTH_TOKEN"])
        } catch {
            throw CLIError("\(error)")
        }
        let transport = self.transport
        let outbox = self.outbox
        flusher = turso.map { DiagnosticsFlusher(outbox: outbox, sink: TursoSink(client: HranaClient(configuration: $0, transport: transport)),
                                                 appVersion: appVersion) }
    }

    var diagnosticsCommands: DiagnosticsCommands { DiagnosticsCommands(outbox: outbox, flusher: flusher) }

    /// Builds a runner for `model` with this app's stores, tools and diagnostics.
    func makeRunner(model: any ChatModel, approvals: any ApprovalGate) throws -> AgentRunner {
        let mode = research(for: model).mode
        let offered = mode == .tavily || mode == .parallel ? tools : ToolRegistry(tools.tools.filter { $0.name != "web_search" })
        return AgentRunner(store: store, model: model, tools: offered, approvals: approvals, clock: SystemClock(), diagnostics: recorder,
                    configuration: configuration(for: model), assembler: makeAssembler(), faults: try KillAtFault.fromEnvironment(environment))
    }

    /// The context manager: budgets from the model catalog, checkpoints validated against the journal.
    func makeAssembler() -> CompactingAssembler {
        CompactingAssembler(store: store, settings: App.contextSettings(journal: journal, windows: windows), clock: SystemClock(), diagnostics: recorder)
    }

    /// Context budgets from config.json, the local server or the model catalog (`ContextWindows`);
    /// checkpoint ids are checked against the journal.
    static func contextSettings(journal: JournalStore, windows: ContextWindows) -> ContextSettings {
        var settings = ContextSettings(
            defaultBudget: .k200,
            limits: { provider, model in windows.limits(provider: provider, model: model) },
            idExists: { id in
                // A failed lookup counts as "unknown": the summary is then refused, never trusted.
                guard let uuid = UUID(uuidString: id) else { return false }
                return ((try? journal.entry(uuid)) ?? nil) != nil || ((try? journal.food(uuid)) ?? nil) != nil
            },
            costEstimator: { provider, model, usage in
                provider == "offline" ? 0 : ModelCatalog.costEstimator(provider, model, usage)
            },
            summarises: { $0 != "offline" })
        settings.prepare = { provider, model in await windows.discover(provider: provider, model: model) }
        settings.raiseAdvice = { provider, tokens in ContextWindows.advice(provider: provider, tokens: tokens) }
        return settings
    }

    /// Resolves provider and model (flags > environment > config.json) and builds the model.
    func makeModel(provider: String?, model: String?) throws -> any ChatModel {
        let resolved: ResolvedProvider
        do {
            resolved = try ProviderResolver.resolve(flags: ProviderFlags(provider: provider, model: model), environment: environment,
                                                    file: fileConfig, credentials: credentials, credentialsProblem: credentialsProblem)
        } catch let e as ProviderConfigError {
            throw CLIError(e.description + " (ofj doctor shows what is configured)")
        }
        if resolved.wire == .offline { return Toolbox.offlineAssistant(timeZone: journal.timeZone) }
        let native = resolved.research(setting: researchSetting, settings: searchSettings).mode == .native
        guard let m = resolved.makeModel(transport: transport, nativeWebSearch: native) else { throw CLIError("cannot build a model for \(resolved.provider)") }
        windows.register(resolved)
        return m
    }

    /// Search keys and settings: the credentials file, overridden by the environment.
    var searchSettings: [String: String] { credentials.merging(environment) { _, env in env } }

    static func researchSetting(environment: [String: String], credentials: [String: String], file: ProviderFileConfig?) -> String? {
        [environment["OFJ_RESEARCH"], credentials["OFJ_RESEARCH"], file?.research].compactMap { $0 }.first { !$0.isEmpty }
    }

    /// The research choice for a model built by `makeModel`.
    func research(for model: any ChatModel) -> ResearchChoice {
        guard model.provider != "offline",
              let resolved = try? ProviderResolver.resolve(flags: ProviderFlags(provider: model.provider, model: model.model),
                                                           environment: environment, file: fileConfig, credentials: credentials) else {
            return ResearchChoice.resolve(setting: researchSetting, provider: "offline", wire: .offline, model: "offline", settings: searchSettings)
        }
        return resolved.research(setting: researchSetting, settings: searchSettings)
    }

    func policy(for model: any ChatModel) -> Agent.DeadlinePolicy {
        let resolved = try? ProviderResolver.resolve(flags: ProviderFlags(provider: model.provider, model: model.model),
                                                     environment: environment, file: fileConfig, credentials: credentials)
        return resolved?.policy == .patient ? .patient : .fast
    }

    func configuration(for model: any ChatModel) -> AgentConfiguration {
        // The label-scan guidance only for a model that can see attachments (every request carries it).
        let sees = ModelCatalog.attachmentSupport(provider: model.provider, model: model.model, family: model.continuationFamily)
        var configuration = AgentConfiguration(systemPrompt: Toolbox.systemPrompt(attachments: sees.images || sees.pdfs),
                                               policy: policy(for: model),
                           costEstimator: { provider, model, usage in
                               // The offline assistant runs here and costs nothing.
                               provider == "offline" ? 0 : ModelCatalog.costEstimator(provider, model, usage)
                           })
        configuration.approvalRules = rules
        configuration.contextNote = { [journal] in Toolbox.contextNote(journal: journal) }
        // For benchmarks (tools/stream-growth.sh): a larger cap on one answer's text, 1–1024 MB.
        if let mb = environment["OFJ_MAX_ANSWER_MB"].flatMap(Int.init), (1...1024).contains(mb) {
            configuration.limits.maxTextBytes = mb << 20
        }
        return configuration
    }

    static let configureHint = "set OFJ_PROVIDER and its key (e.g. OFJ_PROVIDER=gemini GEMINI_API_KEY=…); ofj doctor checks the setup"
}
