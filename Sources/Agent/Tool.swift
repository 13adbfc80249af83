// The Tool port: typed tools with JSON Schemas, declared read or write.
import Base
import SQLiteKit

public enum ToolEffect: String, Sendable, Hashable {
    case read, write
}

/// A tool's answer. `content` is compact JSON (or text) for the model; `summary` is one line for
/// the person ("logged 2 eggs to breakfast"); `isError` marks a precise error result.
public struct ToolOutput: Sendable, Hashable {
    public var content: String
    public var summary: String
    public var isError: Bool
    public init(content: String, summary: String, isError: Bool = false) {
        self.content = content
        self.summary = summary
        self.isError = isError
    }
    public static func error(_ message: String) -> ToolOutput {
        ToolOutput(content: JSONValue.object(["error": .string(message)]).serialized, summary: message, isError: true)
    }
}

/// An error a tool throws for bad arguments; becomes an error result the model sees.
public struct ToolArgumentError: Error, Sendable, CustomStringConvertible {
    public var field: String?
    public var message: String
    public init(field: String? = nil, _ message: String) {
        self.field = field
        self.message = message
    }
    public var description: String { field.map { "\($0): \(message)" } ?? message }
}

/// Context passed to every tool execution.
public struct ToolContext: Sendable {
    public var threadID: String
    public var runID: String
    public var callID: String
    public var now: WallTime
    /// The model the run talks to (nil outside a run, e.g. MCP or the CLI): a tool whose result
    /// carries an attachment checks that the model can see it.
    public var model: (any ChatModel)?
    public init(threadID: String, runID: String, callID: String, now: WallTime, model: (any ChatModel)? = nil) {
        self.threadID = threadID
        self.runID = runID
        self.callID = callID
        self.now = now
        self.model = model
    }
}

/// Wall-clock time as seconds since 1970 (the Clock port supplies it, so tests can fix it).
public struct WallTime: Sendable, Hashable {
    public var secondsSince1970: Double
    public init(secondsSince1970: Double) { self.secondsSince1970 = secondsSince1970 }
}

/// A tool the model may call.
public protocol Tool: Sendable {
    var name: String { get }
    /// Model-facing description: says when to use the tool.
    var description: String { get }
    /// JSON Schema of the arguments object.
    var parameters: JSONValue { get }
    var effect: ToolEffect { get }
    /// Which deadline of the policy bounds one execution (default: a local read, 1 s when fast).
    var timing: ToolTiming { get }
    /// Which group the tool is offered in (default `.everyday`: every request carries it). The
    /// other groups reach the model when it enables them (`enable_tools`) or calls one of their
    /// tools; see `ToolRegistry.specs(groups:)`.
    var group: ToolGroup { get }
    /// One short line for the person while the tool runs ("searching your Food Bank for 'yogurt'").
    func activity(arguments: JSONValue) -> String
    /// One-time set-up the tool needs before it can answer, such as loading data it ships with
    /// on first use; cheap once done. The runner calls it before a read's deadline starts, so
    /// the deadline bounds the read, not the set-up (default: none).
    func prepare() async
    /// Read tools: run and answer.
    func execute(arguments: JSONValue, context: ToolContext) async throws -> ToolOutput
    /// What content from outside the person this call's result brought into the conversation
    /// (web pages, search results, packaged-food text; default none). The runner records it
    /// after every read: it marks the thread until the person's next message (UntrustedContent.swift).
    func untrustedReads(arguments: JSONValue, output: ToolOutput) -> [UntrustedRead]
}

/// The deadline class of a read tool: local reads are quick, web tools may take longer.
public enum ToolTiming: String, Sendable, Hashable {
    case localRead = "local_read", webSearch = "web_search", urlFetch = "url_fetch"
}

extension Tool {
    public var timing: ToolTiming { .localRead }
    public var group: ToolGroup { .everyday }
    public func prepare() async {}
    public func untrustedReads(arguments: JSONValue, output: ToolOutput) -> [UntrustedRead] { [] }
}

/// The exact change a write will make, resolved when the card is drawn: the card text the person
/// approves, the change itself (every default, amount, nutrient and id filled in), and the versions
/// of the data it was computed from. The approval and the ledger store it; `apply` writes it and
/// nothing else, and refuses with `ChangeConflict` when what it depends on changed meanwhile.
public struct PlannedChange: Sendable, Hashable {
    /// What the approval card shows.
    public var card: String
    /// The resolved change, as JSON the tool can apply without planning again.
    public var change: JSONValue
    /// What the change depends on (e.g. `{"saved_food": {"<id>": updated_at}}`); checked by apply.
    public var preconditions: JSONValue

    public init(card: String, change: JSONValue, preconditions: JSONValue = .object([:])) {
        self.card = card
        self.change = change
        self.preconditions = preconditions
    }

    /// The stored form (in `agent_approvals.change` and `agent_ledger.change`).
    public var serialized: String {
        JSONValue.object(["card": .string(card), "change": change, "preconditions": preconditions]).serialized
    }

    /// Reads the stored form back; nil when it is not one.
    public init?(serialized text: String) {
        guard let json = try? JSONValue.parse(text), let card = json["card"]?.stringValue, let change = json["change"] else { return nil }
        self.init(card: card, change: change, preconditions: json["preconditions"] ?? .object([:]))
    }
}

/// Thrown by `WriteTool.apply` when the data an approved change depends on changed after the card
/// was drawn (another process edited the food, the entry was changed). Nothing was written; the
/// runner plans the change again and asks the person about the new card.
public struct ChangeConflict: Error, Sendable, CustomStringConvertible {
    /// One line for the person: what changed ("the Food Bank food Oatmeal was changed").
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A tool that changes data. It never runs without approval, and it applies its change inside the
/// ledger transaction it is given, so the change and the ledger row commit together.
public protocol WriteTool: Tool {
    /// Resolves the call into the exact change, for the approval card and the ledger. Throws
    /// ToolArgumentError for bad arguments.
    func preview(arguments: JSONValue, context: ToolContext, database: Database) throws -> PlannedChange
    /// Writes `change` (as previewed and approved) inside the caller's transaction, and nothing
    /// else. Throws `ChangeConflict` when its preconditions no longer hold; throws to roll back.
    func apply(_ change: PlannedChange, context: ToolContext, database: Database) throws -> ToolOutput
    /// What an approval rule may test beyond the tool's arguments: the kind of the figure `name`
    /// of this tool's previews (e.g. `energy_kcal` of the entry written), nil when it has none.
    func ruleFigureKind(_ name: String) -> RuleFieldKind?
    /// The figures of `planned` that rules test (arguments as resolved, nutrients written, the
    /// date of the entry changed). Default: the resolved arguments (`change.arguments`).
    func ruleFigures(_ planned: PlannedChange, database: Database) -> [String: JSONValue]
}

extension WriteTool {
    public var effect: ToolEffect { .write }
    public func ruleFigureKind(_ name: String) -> RuleFieldKind? { nil }
    public func ruleFigures(_ planned: PlannedChange, database: Database) -> [String: JSONValue] {
        planned.change["arguments"]?.objectValue ?? [:]
    }
    public func execute(arguments: JSONValue, context: ToolContext) async throws -> ToolOutput {
        throw ToolArgumentError("write tools run through the ledger, not execute()")
    }
}
