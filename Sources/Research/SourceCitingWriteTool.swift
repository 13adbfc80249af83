// A write proposed in a run that read web sources names them on its approval card, so the person
// sees which page a number came from before approving it.
import Agent
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
    public func activity(arguments: JSONValue) -> String { inner.activity(arguments: arguments) }

    public func preview(arguments: JSONValue, context: ToolContext, database: Database) throws -> PlannedChange {
        var change = try inner.preview(arguments: arguments, context: context, database: database)
        // Reading the sources is best effort: a card without them is still exact about the change.
        if let used = try? SourceStore.sources(threadID: context.threadID, runID: context.runID, in: database), !used.isEmpty {
            change.card += "\n" + Self.citation(used)
        }
        return change
    }

    /// Applies the change as the inner tool planned it, without the citation this wrapper added:
    /// journal tools compare the approved card with their own plan, and would otherwise refuse.
    public func apply(_ change: PlannedChange, context: ToolContext, database: Database) throws -> ToolOutput {
        var own = change
        if let used = try? SourceStore.sources(threadID: context.threadID, runID: context.runID, in: database), !used.isEmpty {
            let citation = "\n" + Self.citation(used)
            if own.card.contains(citation) { own.card = own.card.replacingOccurrences(of: citation, with: "") }
        }
        return try inner.apply(own, context: context, database: database)
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
