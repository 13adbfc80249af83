// Tool groups: every request carries the everyday tools; the rest come on demand (enable_tools).
import Base

/// A named set of tools offered together. Every request carries `.everyday`; another group's
/// tools reach the model once the thread enables it (the model calls `enable_tools`, or calls
/// one of its tools it saw earlier), and stay for the rest of the thread. The names and one-line
/// summaries are declared here so every module that offers tools uses the same ones.
public struct ToolGroup: Sendable, Hashable {
    /// The id the model passes to `enable_tools` ("packaged").
    public let name: String
    /// What the group is for, one short line (the enable tool's description lists it).
    public let summary: String

    public init(_ name: String, summary: String) {
        self.name = name
        self.summary = summary
    }

    public static func == (a: ToolGroup, b: ToolGroup) -> Bool { a.name == b.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// What people do most: log, look up, read a day, fix an entry.
    public static let everyday = ToolGroup("everyday", summary: "logging, lookups, a day's journal, fixing entries")
    /// Weeks and months: ranges, averages, top sources of a nutrient, gaps.
    public static let trends = ToolGroup("trends", summary: "ranges, averages, top sources, gaps, moving entries")
    /// Managing saved foods.
    public static let foodBank = ToolGroup("food_bank", summary: "save, edit, archive foods; Shelf; brands; calculators")
    /// Reading the goals in full and setting them.
    public static let goals = ToolGroup("goals", summary: "read or set daily goals")
    /// The diary beyond single entries: copying a meal or a day, day notes, eating times.
    public static let diary = ToolGroup("diary", summary: "copy meals, day notes, eating times")
    /// The person's body weight: weigh-ins and the trend.
    public static let person = ToolGroup("person", summary: "weigh-ins, weight trend")
    /// Barcodes and branded products online.
    public static let packaged = ToolGroup("packaged", summary: "barcodes and branded products")
    /// The web: pages, search, sources read earlier.
    public static let web = ToolGroup("web", summary: "fetch a page, re-read sources")
}

/// A tool that enables groups for the thread when called (`enable_tools`).
public protocol ToolGroupSwitch: Tool {
    /// The groups a call with `arguments` enables (names of the registry's groups).
    func groupsEnabled(by arguments: JSONValue) -> [String]
}

/// `enable_tools`: adds a group of tools to this thread. The registry builds it from its own
/// groups (`ToolRegistry.tool(named:)`), so its list always names the tools really offered.
public struct EnableToolsTool: ToolGroupSwitch {
    public static let toolName = "enable_tools"
    /// The registry's groups other than everyday, each with its tools' names, in registry order.
    public let catalog: [(group: ToolGroup, tools: [String])]

    public var name: String { Self.toolName }
    public var effect: ToolEffect { .read }
    public var description: String {
        "Adds a group of tools to this conversation: "
            + catalog.map { "\($0.group.name) (\($0.group.summary))" }.joined(separator: "; ")
            + "."
    }
    public var parameters: JSONValue {
        ["type": "object",
         "properties": ["group": ["type": "string", "enum": .array(catalog.map { .string($0.group.name) })]],
         "required": ["group"], "additionalProperties": false]
    }
    public func activity(arguments: JSONValue) -> String {
        "adding the \(String((arguments["group"]?.stringValue ?? "").prefix(30))) tools"
    }
    public func groupsEnabled(by arguments: JSONValue) -> [String] {
        guard let name = arguments["group"]?.stringValue, catalog.contains(where: { $0.group.name == name }) else { return [] }
        return [name]
    }
    public func execute(arguments: JSONValue, context: ToolContext) async throws -> ToolOutput {
        let name = arguments["group"]?.stringValue ?? ""
        guard let entry = catalog.first(where: { $0.group.name == name }) else {
            throw ToolArgumentError(field: "group", "no group \"\(String(name.prefix(30)))\"; groups: \(catalog.map(\.group.name).joined(separator: ", "))")
        }
        let json: JSONValue = ["enabled": .string(name), "tools": .array(entry.tools.map { .string($0) }),
                               "note": "These tools are now offered; call them as needed."]
        return ToolOutput(content: json.serialized, summary: "added the \(name) tools")
    }
}
