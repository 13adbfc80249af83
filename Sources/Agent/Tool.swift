// The Tool port: typed tools with JSON Schemas, declared read or write.
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
    public init(threadID: String, runID: String, callID: String, now: WallTime) {
        self.threadID = threadID
        self.runID = runID
        self.callID = callID
        self.now = now
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
    /// One short line for the person while the tool runs ("searching your Food Bank for 'yogurt'").
    func activity(arguments: JSONValue) -> String
    /// Read tools: run and answer.
    func execute(arguments: JSONValue, context: ToolContext) async throws -> ToolOutput
}

/// The deadline class of a read tool: local reads are quick, web tools may take longer.
public enum ToolTiming: String, Sendable, Hashable {
    case localRead = "local_read", webSearch = "web_search", urlFetch = "url_fetch"
}

extension Tool {
    public var timing: ToolTiming { .localRead }
}

/// A tool that changes data. It never runs without approval, and it applies its change inside the
/// ledger transaction it is given, so the change and the ledger row commit together.
public protocol WriteTool: Tool {
    /// Exactly what will change, for the approval card. Throws ToolArgumentError for bad arguments.
    func preview(arguments: JSONValue, context: ToolContext, database: Database) throws -> String
    /// Applies the change inside the caller's transaction. Throws to roll everything back.
    func apply(arguments: JSONValue, context: ToolContext, database: Database) throws -> ToolOutput
}

extension WriteTool {
    public var effect: ToolEffect { .write }
    public func execute(arguments: JSONValue, context: ToolContext) async throws -> ToolOutput {
        throw ToolArgumentError("write tools run through the ledger, not execute()")
    }
}
