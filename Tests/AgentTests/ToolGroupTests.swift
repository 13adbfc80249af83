// Tool groups: a request carries the everyday tools; other groups are enabled per thread, appended.
import Base
import Testing
import TestSupport
@testable import Agent

/// A read tool of a chosen group.
private struct GroupedTool: Tool {
    var name: String
    var group: ToolGroup
    var description: String { "The \(name) tool." }
    var parameters: JSONValue { ["type": "object", "properties": ["x": ["type": "integer"]], "additionalProperties": false] }
    var effect: ToolEffect { .read }
    func activity(arguments: JSONValue) -> String { "running \(name)" }
    func execute(arguments: JSONValue, context: ToolContext) async throws -> ToolOutput {
        ToolOutput(content: #"{"ran":"\#(name)"}"#, summary: "ran \(name)")
    }
}

@Suite struct ToolGroupTests {
    static let tools: [any Tool] = [
        GroupedTool(name: "day", group: .everyday), GroupedTool(name: "barcode", group: .packaged),
        GroupedTool(name: "range", group: .trends), GroupedTool(name: "log", group: .everyday),
        GroupedTool(name: "search_products", group: .packaged),
    ]

    @Test func defaultSpecsAreTheEverydayToolsInOrderThenTheSwitch() throws {
        let registry = ToolRegistry(Self.tools)
        #expect(registry.specs(groups: []).map(\.name) == ["day", "log", "enable_tools"])
        // The switch lists each group once, in registry order, with its summary.
        let spec = try #require(registry.specs(groups: []).last)
        #expect(spec.parameters["properties"]?["group"]?["enum"] == ["packaged", "trends"])
        #expect(spec.description.contains("packaged (\(ToolGroup.packaged.summary))"))
        #expect(spec.description.contains("trends (\(ToolGroup.trends.summary))"))
        // Groups are listed with their tools; `specs` (MCP, schema tests) stays every tool.
        #expect(registry.groups.map(\.group.name) == ["packaged", "trends"])
        #expect(registry.groups.first?.tools == ["barcode", "search_products"])
        #expect(registry.specs.map(\.name) == ["day", "barcode", "range", "log", "search_products"])
        // Without other groups there is no switch at all.
        #expect(ToolRegistry([GroupedTool(name: "day", group: .everyday)]).specs(groups: []).map(\.name) == ["day"])
        #expect(ToolRegistry([GroupedTool(name: "day", group: .everyday)]).tool(named: "enable_tools") == nil)
        // Diagnostics keep the names a call may use; enable_tools is one when there are groups.
        #expect(registry.callableNames == ["day", "barcode", "range", "log", "search_products", "enable_tools"])
        #expect(ToolRegistry([GroupedTool(name: "day", group: .everyday)]).callableNames == ["day"])
        // /context names the groups a thread sends and those it could add.
        #expect(registry.groupsLine(enabled: []) == "Tool groups: everyday; enable_tools can add packaged, trends.")
        #expect(registry.groupsLine(enabled: ["trends", "gone"]) == "Tool groups: everyday, trends; enable_tools can add packaged.")
        #expect(registry.groupsLine(enabled: ["trends", "packaged"]) == "Tool groups: everyday, trends, packaged.")
        #expect(ToolRegistry([GroupedTool(name: "day", group: .everyday)]).groupsLine(enabled: []) == nil)
    }

    @Test func enablingAGroupAppendsItSoThePrefixStaysTheSame() {
        let registry = ToolRegistry(Self.tools)
        let before = registry.specs(groups: [])
        let one = registry.specs(groups: ["trends"])
        let two = registry.specs(groups: ["trends", "packaged"])
        #expect(one.map(\.name) == ["day", "log", "enable_tools", "range"])
        #expect(two.map(\.name) == ["day", "log", "enable_tools", "range", "barcode", "search_products"])
        #expect(Array(one.prefix(before.count)) == before)
        #expect(Array(two.prefix(one.count)) == one)
        // Unknown and repeated names are skipped.
        #expect(registry.specs(groups: ["nope", "trends", "trends", "everyday"]).map(\.name) == one.map(\.name))
    }

    @Test func aCallEnablesTheGroupOfItsTool() {
        let registry = ToolRegistry(Self.tools)
        #expect(registry.groupsEnabled(by: ToolCall(id: "1", name: "barcode", arguments: "{}")) == ["packaged"])
        #expect(registry.groupsEnabled(by: ToolCall(id: "2", name: "day", arguments: "{}")).isEmpty)
        #expect(registry.groupsEnabled(by: ToolCall(id: "3", name: "enable_tools", arguments: #"{"group":"trends"}"#)) == ["trends"])
        #expect(registry.groupsEnabled(by: ToolCall(id: "4", name: "enable_tools", arguments: #"{"group":"goals"}"#)).isEmpty)
        #expect(registry.groupsEnabled(by: ToolCall(id: "5", name: "unknown", arguments: "{}")).isEmpty)
    }

    @Test func enabledGroupsArePersistedPerThreadInOrder() throws {
        let store = ConversationStore(queue: try openDatabase())
        try store.createThread(id: "a", now: 1)
        try store.createThread(id: "b", now: 1)
        try store.enableToolGroups(["trends"], threadID: "a", now: 2)
        try store.enableToolGroups(["packaged", "trends"], threadID: "a", now: 3)
        #expect(try store.enabledToolGroups(threadID: "a") == ["trends", "packaged"])
        #expect(try store.enabledToolGroups(threadID: "b").isEmpty)
        // A thread that does not exist gets nothing (and no error).
        try store.enableToolGroups(["trends"], threadID: "missing", now: 4)
        #expect(try store.enabledToolGroups(threadID: "missing").isEmpty)
        // Deleting the thread deletes its groups.
        try store.deleteThread("a")
        #expect(try count(store.queue, "SELECT COUNT(*) FROM agent_thread_tool_groups") == 0)
    }

    @Test func enableToolsAddsTheGroupToTheNextRequestAndTheThreadKeepsIt() async throws {
        let h = try Harness(tools: Self.tools)
        h.model.enqueue(.calls(("c1", "enable_tools", #"{"group":"trends"}"#)), .text("Enabled."), .text("Again."))
        let (_, outcome) = try await h.ask("show my month")
        #expect(outcome.phase == .completed)
        let requests = h.model.requests
        #expect(requests.count == 2)
        #expect(requests[0].tools.map(\.name) == ["day", "log", "enable_tools"])
        #expect(requests[1].tools.map(\.name) == ["day", "log", "enable_tools", "range"])
        let result = try #require(requests[1].messages.last?.parts.compactMap { part -> ToolResult? in
            if case .toolResult(let r) = part { return r } else { return nil }
        }.first)
        #expect(!result.isError)
        #expect(try JSONValue.parse(result.content)["tools"] == ["range"])
        // The next message of the thread starts with the group on.
        _ = try await h.ask("and last week")
        #expect(h.model.requests.last?.tools.map(\.name) == ["day", "log", "enable_tools", "range"])
        // Another thread starts with everyday only.
        h.model.enqueue(.text("Hi."))
        _ = try await h.ask("hello", thread: "t2")
        #expect(h.model.requests.last?.tools.map(\.name) == ["day", "log", "enable_tools"])
    }

    @Test func aToolOfAGroupNotEnabledStillRunsAndEnablesItsGroup() async throws {
        let h = try Harness(tools: Self.tools)
        // The model calls a tool it saw in an earlier thread (or made up from the prompt).
        h.model.enqueue(.calls(("c1", "barcode", #"{"x":1}"#)), .text("Found it."))
        let (_, outcome) = try await h.ask("scan this")
        #expect(outcome.phase == .completed)
        let records = try h.store.toolRecords(threadID: "t1")
        #expect(records.map(\.status) == [.succeeded])
        #expect(h.model.requests[1].tools.map(\.name) == ["day", "log", "enable_tools", "barcode", "search_products"])
        #expect(try h.store.enabledToolGroups(threadID: "t1") == ["packaged"])
        // A call with bad arguments is rejected, but its group comes on, so the model sees the schema.
        h.model.enqueue(.calls(("c2", "range", #"{"x":"many"}"#)), .text("Sorry."))
        _ = try await h.ask("my month")
        #expect(try h.store.enabledToolGroups(threadID: "t1") == ["packaged", "trends"])
    }
}
