// The set of tools a runner offers, and the checks every call passes before a tool runs.
import Base

/// Tools by name, in registration order (the order the model sees them).
public struct ToolRegistry: Sendable {
    /// Largest tool result the model receives, in UTF-8 bytes; longer results are truncated with a note.
    public static let defaultResultLimit = 16 * 1024

    public private(set) var tools: [any Tool] = []
    private var index: [String: Int] = [:]
    public var resultLimit: Int

    public init(_ tools: [any Tool] = [], resultLimit: Int = ToolRegistry.defaultResultLimit) {
        self.resultLimit = resultLimit
        for tool in tools { register(tool) }
    }

    /// Adds a tool; a later tool with the same name replaces the earlier one.
    public mutating func register(_ tool: any Tool) {
        if let i = index[tool.name] {
            tools[i] = tool
        } else {
            index[tool.name] = tools.count
            tools.append(tool)
        }
    }

    /// The registered tool called `name`, or `enable_tools` when the registry has groups beyond
    /// everyday (built from them, so it always names the tools really offered).
    public func tool(named name: String) -> (any Tool)? {
        if let i = index[name] { return tools[i] }
        return name == EnableToolsTool.toolName ? groupSwitch : nil
    }

    /// Every name a call may use: the registered tools and, when there are groups, `enable_tools`.
    public var callableNames: Set<String> {
        Set(tools.map(\.name)).union(groupSwitch == nil ? [] : [EnableToolsTool.toolName])
    }

    /// Every registered tool's spec, groups ignored (what an MCP client lists; tests of schemas).
    public var specs: [ToolSpec] { tools.map(Self.spec) }

    /// What a request tells the model it may call: the everyday tools in registration order, then
    /// `enable_tools` (when there are other groups), then the tools of each group in `enabled`
    /// (names, in the order the thread enabled them; unknown names are skipped). Enabling a group
    /// only appends, so the requests of a thread keep their prefix byte for byte.
    public func specs(groups enabled: [String]) -> [ToolSpec] {
        var out = tools.filter { $0.group == .everyday }.map(Self.spec)
        if let groupSwitch { out.append(Self.spec(groupSwitch)) }
        var seen: Set<String> = [ToolGroup.everyday.name]
        for name in enabled where seen.insert(name).inserted {
            out += tools.filter { $0.group.name == name }.map(Self.spec)
        }
        return out
    }

    /// The groups of the registered tools other than everyday, in the order their first tool was
    /// registered, each with its tools' names.
    public var groups: [(group: ToolGroup, tools: [String])] {
        var out: [(group: ToolGroup, tools: [String])] = []
        for tool in tools where tool.group != .everyday {
            if let i = out.firstIndex(where: { $0.group == tool.group }) { out[i].tools.append(tool.name) } else { out.append((tool.group, [tool.name])) }
        }
        return out
    }

    /// The groups a call enables for its thread: the group of the tool it calls (when not
    /// everyday), or what `enable_tools` was asked for. Empty for an unknown tool.
    public func groupsEnabled(by call: ToolCall) -> [String] {
        guard let tool = tool(named: call.name) else { return [] }
        if let groupSwitch = tool as? any ToolGroupSwitch {
            guard let arguments = try? call.parsedArguments() else { return [] }
            return groupSwitch.groupsEnabled(by: arguments)
        }
        return tool.group == .everyday ? [] : [tool.group.name]
    }

    /// `/context`'s line on the tool groups a thread sends (nil when the registry has no groups).
    public func groupsLine(enabled: [String]) -> String? {
        let all = groups.map(\.group.name)
        guard !all.isEmpty else { return nil }
        let on = enabled.filter { all.contains($0) }
        let off = all.filter { !on.contains($0) }
        var line = "Tool groups: everyday" + on.map { ", " + $0 }.joined()
        if !off.isEmpty { line += "; enable_tools can add " + off.joined(separator: ", ") }
        return line + "."
    }

    private var groupSwitch: EnableToolsTool? {
        let groups = self.groups
        return groups.isEmpty ? nil : EnableToolsTool(catalog: groups)
    }

    private static func spec(_ tool: any Tool) -> ToolSpec {
        ToolSpec(name: tool.name, description: tool.description, parameters: tool.parameters)
    }

    /// A call that passed every check: the tool and its parsed arguments.
    public struct Resolved: Sendable {
        public var tool: any Tool
        public var arguments: JSONValue
    }

    /// Resolves a call to its tool and validated arguments, or the precise error result the model
    /// should see instead (unknown tool, bad JSON, schema violation). Never throws.
    public func resolve(_ call: ToolCall) -> Result<Resolved, ToolRejection> {
        // Refused while it streamed (over a size cap, too many calls, a repeated id).
        if let reason = RejectedCall.reason(call) { return .failure(ToolRejection(message: reason)) }
        guard let tool = tool(named: call.name) else {
            let names = tools.map(\.name).joined(separator: ", ")
            return .failure(ToolRejection(message: "unknown tool '\(call.name)'; available tools: \(names.isEmpty ? "none" : names)"))
        }
        let arguments: JSONValue
        do {
            arguments = try call.parsedArguments()
        } catch let error as JSONValue.ParseError {
            return .failure(ToolRejection(message: "arguments for '\(call.name)' are not valid JSON (\(error.description)); send one JSON object"))
        } catch {
            return .failure(ToolRejection(message: "arguments for '\(call.name)' could not be read; send one JSON object"))
        }
        guard case .object = arguments else {
            return .failure(ToolRejection(message: "arguments for '\(call.name)' must be a JSON object, got \(arguments.typeName)"))
        }
        if let violation = SchemaValidator.firstViolation(of: arguments, against: tool.parameters) {
            return .failure(ToolRejection(message: "invalid arguments for '\(call.name)': \(violation)"))
        }
        return .success(Resolved(tool: tool, arguments: arguments))
    }

    /// Bounds a result for the model. Content over `resultLimit` bytes is cut; a JSON object
    /// stays valid JSON: its longest list loses items from the end and a `truncated` field says
    /// how many were left out and how to get them with the arguments `toolName` really has.
    /// Other text is cut at a character boundary with a note. The summary is kept to one short line.
    public func bounded(_ output: ToolOutput, toolName: String? = nil) -> ToolOutput {
        var out = output
        out.summary = ToolRegistry.oneLine(output.summary)
        let size = output.content.utf8.count
        guard size > resultLimit else { return out }
        if let json = boundedJSON(output.content, size: size, toolName: toolName) {
            out.content = json
            return out
        }
        let note = "\n[truncated: the result was \(size) bytes; only the first part is shown. Ask for less, e.g. a narrower query or a smaller limit.]"
        let budget = max(0, resultLimit - note.utf8.count)
        let utf8 = output.content.utf8
        var end = utf8.index(utf8.startIndex, offsetBy: budget)
        // Step back to a character boundary so no character is cut in half.
        while end > utf8.startIndex && String.Index(end, within: output.content) == nil {
            end = utf8.index(before: end)
        }
        out.content = String(output.content[..<end]) + note
        return out
    }

    /// How to ask for the rest, naming only arguments the tool has.
    func continuationHint(toolName: String?, shown: Int) -> String {
        guard let name = toolName, let tool = tool(named: name) else {
            return "ask for less, e.g. a narrower query or a shorter period"
        }
        let properties = tool.parameters["properties"]?.objectValue ?? [:]
        if properties["offset"] != nil { return "call \(name) again with the same arguments and offset \(shown)" }
        let narrowing = ["limit", "nutrients", "query", "text", "from", "to"].filter { properties[$0] != nil }
        if narrowing.isEmpty { return "\(name) has no argument to ask for less; answer from what is shown" }
        return "call \(name) again asking for less (its arguments: \(narrowing.joined(separator: ", ")))"
    }

    /// A JSON object cut to fit: the longest top-level list keeps as many leading items as fit.
    /// Nil when the content is not a JSON object.
    private func boundedJSON(_ content: String, size: Int, toolName: String?) -> String? {
        guard case .object(var object)? = try? JSONValue.parse(content) else { return nil }
        let lists = object.compactMap { key, value -> (String, [JSONValue])? in
            if case .array(let items) = value { return (key, items) }
            return nil
        }
        func marker(_ detail: String) -> JSONValue {
            ["original_bytes": .number(Double(size)), "note": .string(detail)]
        }
        if let (key, items) = lists.max(by: { $0.1.count < $1.1.count }), !items.isEmpty {
            var keep = items.count
            while keep > 0 {
                keep = keep * 3 / 4
                object[key] = .array(Array(items.prefix(keep)))
                object["truncated"] = marker("only the first \(keep) of \(items.count) items of \(key) are shown; "
                    + continuationHint(toolName: toolName, shown: keep))
                let text = JSONValue.object(object).serialized
                if text.utf8.count <= resultLimit { return text }
            }
        }
        let minimal: JSONValue = ["truncated": marker("the result was too long to show; " + continuationHint(toolName: toolName, shown: 0))]
        return minimal.serialized
    }

    /// One display line: newlines become spaces, at most 200 characters.
    static func oneLine(_ text: String) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return flat.count <= 200 ? flat : String(flat.prefix(199)) + "…"
    }
}

/// Why a call was not executed; becomes an error tool result.
public struct ToolRejection: Error, Sendable, Hashable {
    public var message: String
    public var output: ToolOutput { .error(message) }
}
