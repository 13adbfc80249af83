// A write tool's approval card naming the attached files its values were read from (the domain
// that offers it says which tools and what their descriptions add).
import Base
import Foundation
import SQLiteKit

/// A write tool whose card says which attached files the values were read from ("Read from
/// label.jpg"), when the run's message carried attachments.
public struct AttachmentCitingWriteTool: WriteTool {
    let inner: any WriteTool
    let descriptionAddendum: String

    /// - Parameter descriptionAddendum: appended to the inner tool's description (what the model
    ///   should do with values read from an attachment).
    public init(_ inner: any WriteTool, descriptionAddendum: String = "") {
        self.inner = inner
        self.descriptionAddendum = descriptionAddendum
    }

    public var name: String { inner.name }
    public var description: String { inner.description + descriptionAddendum }
    public var parameters: JSONValue { inner.parameters }
    public var timing: ToolTiming { inner.timing }
    public var group: ToolGroup { inner.group }
    public func activity(arguments: JSONValue) -> String { inner.activity(arguments: arguments) }

    public func preview(arguments: JSONValue, context: ToolContext, database: Database) throws -> PlannedChange {
        var change = try inner.preview(arguments: arguments, context: context, database: database)
        // Best effort: a card without the file name is still exact about the change.
        if let names = try? Self.attachmentNames(runID: context.runID, database: database), !names.isEmpty {
            change.card += "\n" + Self.line(names)
        }
        return change
    }

    /// Applies the change as the inner tool planned it: without the line this wrapper added
    /// (the inner tool compares the approved card with its own plan).
    public func apply(_ change: PlannedChange, context: ToolContext, database: Database) throws -> ToolOutput {
        var own = change
        if let names = try? Self.attachmentNames(runID: context.runID, database: database), !names.isEmpty {
            own.card = own.card.replacingOccurrences(of: "\n" + Self.line(names), with: "")
        }
        return try inner.apply(own, context: context, database: database)
    }

    // A wrapper forwards what rules test, or a rule on log_food would find no figures to test.
    public func ruleFigureKind(_ name: String) -> RuleFieldKind? { inner.ruleFigureKind(name) }
    public func ruleFigures(_ planned: PlannedChange, database: Database) -> [String: JSONValue] {
        inner.ruleFigures(planned, database: database)
    }

    static func line(_ names: [String]) -> String {
        "Read from \(names.joined(separator: ", ")) — check every value against it."
    }

    /// The names of the files attached to the user message that started `runID`, for a card.
    static func attachmentNames(runID: String, database: Database) throws -> [String] {
        try ConversationStore.attachmentNames(runID: runID, in: database).map(Self.printable)
    }

    /// A file name as one short line for a card (controls and newlines removed).
    static func printable(_ name: String) -> String {
        let cleaned = String(String.UnicodeScalarView(name.unicodeScalars.filter {
            !($0.value < 0x20 || (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value))
        }))
        return cleaned.count > 80 ? String(cleaned.prefix(77)) + "…" : cleaned
    }
}
