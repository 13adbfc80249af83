// A write proposed in a run that read web sources names them on its approval card, so the person
// sees which page a number came from before approving it.
import Agent
import Base
import Foundation
import SQLiteKit

public struct SourceCitingWriteTool: WriteTool {
    let inner: any WriteTool
    let sources: SourceStore

    public init(_ inner: any WriteTool, sources: SourceStore) {
        self.inner = inner
        self.sources = sources
    }

    public var name: String { inner.name }
    public var description: String { inner.description }
    public var parameters: JSONValue { inner.parameters }
    public var timing: ToolTiming { inner.timing }
    public var group: ToolGroup { inner.group }
    public func activity(arguments: JSONValue) -> String { inner.activity(arguments: arguments) }

    public func preview(arguments: JSONValue, context: ToolContext, database: Database) throws -> PlannedChange {
        var change = try inner.preview(arguments: arguments, context: context, database: database)
        // Reading the sources is best effort: a card without them is still exact about the change.
        // The provider's own search in this run is kept as sources first, so the card names it too.
        try? SourceStore.harvest(threadID: context.threadID, runID: context.runID, in: database)
        if let used = try? SourceStore.sources(threadID: context.threadID, runID: context.runID, in: database), !used.isEmpty {
            change.card += "\n" + Self.citation(used)
        }
        return change
    }

    /// The inner tool checks that what it would write is still what its card showed: it gets its
    /// own card back, without the sources line this wrapper added.
    public func apply(_ change: PlannedChange, context: ToolContext, database: Database) throws -> ToolOutput {
        try inner.apply(Self.withoutCitation(change), context: context, database: database)
    }

    static func withoutCitation(_ change: PlannedChange) -> PlannedChange {
        var change = change
        if let r = change.card.range(of: "\nBased on web source", options: .backwards) { change.card = String(change.card[..<r.lowerBound]) }
        return change
    }

    public func ruleFigureKind(_ name: String) -> RuleFieldKind? { inner.ruleFigureKind(name) }
    public func ruleFigures(_ planned: PlannedChange, database: Database) -> [String: JSONValue] {
        inner.ruleFigures(planned, database: database)
    }

    /// "Based on web source [3] Title — https://…" (at most three, then "and N more").
    static func citation(_ used: [ResearchSource]) -> String {
        let shown = used.suffix(3).map { s -> String in
            let title = s.title.isEmpty ? "" : "\(s.title.prefix(60)) — "
            let url = s.kind == "search" ? "web search results" : String(s.url.prefix(120))
            return "[\(s.id)] \(title)\(url)"
        }
        let more = used.count > 3 ? " and \(used.count - 3) more (/sources)" : ""
        let label = used.count == 1 ? "Based on web source" : "Based on web sources"
        return "\(label) \(shown.joined(separator: "; "))\(more) — untrusted; check the numbers."
    }
}
