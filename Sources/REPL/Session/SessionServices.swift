// What the REPL session works with, gathered by the composition root (the `ofj` executable or
// the transcript replayer).
import Agent
import Foundation
import Journal
import Views

public struct SessionServices: Sendable {
    public var runner: AgentRunner
    public var store: ConversationStore
    public var journal: JournalStore
    public var approvals: ApprovalBroker
    public var clock: any AgentClock
    public var ids: any IDSource
    /// The model used for new turns, and how to switch it (`/model`, `/provider`).
    public var model: @Sendable () -> any ChatModel
    public var switchModel: @Sendable (_ provider: String?, _ model: String?) throws -> any ChatModel
    /// One line telling how to configure a real model, shown with the offline assistant.
    public var configureHint: String
    /// Model names known for completion.
    public var knownModels: @Sendable () -> [String]
    /// `/diag` text.
    public var diagnosticsStatus: @Sendable () -> String
    /// `/sync`: one sync now and its result; nil shows how to set sync up.
    public var syncNow: (@Sendable () async -> String)? = nil
    /// `/context` and `/compact` (context management); nil when unavailable.
    public var contextReport: (@Sendable (_ threadID: String) throws -> String)?
    public var compact: (@Sendable (_ threadID: String, _ focus: String) async throws -> String)?
    /// `/sources`: the web sources kept for a thread; nil when research is not wired.
    public var sourcesReport: (@Sendable (_ threadID: String) throws -> String)? = nil
    /// The numbered links an answer used ("Sources:" lines), shown under it; nil when it used none.
    public var sourceLinks: (@Sendable (_ threadID: String, _ runID: String) throws -> String?)? = nil
    /// `/usage`'s web search lines (Tavily credits, Parallel estimate) for a thread and the day of `now`.
    public var searchUsage: (@Sendable (_ threadID: String, _ now: Double, _ secondsFromGMT: Int) throws -> [String])? = nil
    public var version: String
    /// The goal-setting write tool (`set_goals`), whose card and apply `/checkin` uses; nil: no check-ins.
    public var goalTool: (any WriteTool)? = nil
    /// Whether a tool changes data (its success is confirmed on screen).
    public var isWriteTool: @Sendable (String) -> Bool
    /// Looks up a line that is only a barcode (what a USB scanner types) and offers to log it;
    /// nil sends such a line to the assistant like any other.
    public var scanBarcode: (@Sendable (_ code: String) async -> BarcodeScanOffer)?
    /// The nutrients `/week` shows (config.json's "pinned"); nil: calories, protein, carbs, fat.
    public var pinned: [String]? = nil
    /// Charts (/week, /month) in Unicode blocks, else ASCII: whether the locale is UTF-8.
    public var unicodeCharts: Bool = ChartOptions.localeIsUTF8(ProcessInfo.processInfo.environment)
    /// Writes `/export … FILE` (0600, never over an existing file); nil where a session must not
    /// write files (a replayed transcript is untrusted input), so `/export` only shows the thread.
    public var writeExport: (@Sendable (_ text: String, _ path: String) throws -> Void)? = nil
    /// The approval rules of config.json (`/permissions`, and the card's "always (saves a rule)");
    /// nil when this session has none to edit.
    public var ruleBook: ApprovalRuleBook? = nil
    /// Reads a file for `/attach` (throws `AttachmentError`); a replay reads only files its transcript seeded.
    public var loadAttachment: @Sendable (_ path: String) throws -> LoadedAttachment = { try AttachmentFile.load(path: $0) }
    /// The path a pasted line names when it is an existing image or PDF (to offer attaching it).
    public var attachablePath: @Sendable (_ line: String) -> String? = { AttachmentFile.looksAttachable($0) }

    public init(runner: AgentRunner, store: ConversationStore, journal: JournalStore, approvals: ApprovalBroker,
                clock: any AgentClock, ids: any IDSource, model: @escaping @Sendable () -> any ChatModel,
                switchModel: @escaping @Sendable (String?, String?) throws -> any ChatModel, configureHint: String,
                knownModels: @escaping @Sendable () -> [String], diagnosticsStatus: @escaping @Sendable () -> String,
                contextReport: (@Sendable (String) throws -> String)? = nil,
                compact: (@Sendable (String, String) async throws -> String)? = nil, version: String,
                isWriteTool: @escaping @Sendable (String) -> Bool) {
        self.isWriteTool = isWriteTool
        self.runner = runner
        self.store = store
        self.journal = journal
        self.approvals = approvals
        self.clock = clock
        self.ids = ids
        self.model = model
        self.switchModel = switchModel
        self.configureHint = configureHint
        self.knownModels = knownModels
        self.diagnosticsStatus = diagnosticsStatus
        self.contextReport = contextReport
        self.compact = compact
        self.version = version
    }
}
