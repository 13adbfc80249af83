// `ofj mcp [--allow-writes]`: the journal's tools and resources for MCP clients, over stdin/stdout.
import Agent
import CommandLineKit
import Diagnostics
import Foundation
import Journal
import MCP
import NutritionTools
import REPL
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

extension OfjCommands {
    static func mcp(_ ctx: CLIContext) -> CommandSpec {
        CommandSpec("mcp", summary: "serve the journal's tools and resources to an MCP client (Claude Code, Codex, Claude Desktop, …) over stdin/stdout; reads always, changes only with --allow-writes, each shown for approval",
                    options: [.flag("--allow-writes", "let the client propose changes (each previewed and approved, written exactly once)")],
                    // Even without --allow-writes a session records its runs and diagnostics.
                    access: .write,
                    action: .async { inv in try await MCPCommand.run(inv, ctx) })
    }
}

enum MCPCommand {
    /// Runs the server until the client closes stdin. Never reads provider keys or the credentials
    /// file: it opens the database and reads config.json's `meals` and `approvals.rules` only
    /// (docs/MCP.md); only the packaged-food tools use the network. Logs go to stderr only;
    /// stdout is the protocol.
    static func run(_ inv: CommandInvocation, _ ctx: CLIContext) async throws -> Int32 {
        let p = inv.arguments
        let paths = ctx.paths, version = ctx.version
        let queue = try OfjCommands.openDatabase(ctx, inv)
        let journal = JournalStore(queue: queue, timeZone: .current, mealSchedule: MealConfig.load(configPath: paths.configPath).schedule)
            .with(customMeals: MealConfig.customMeals(configPath: paths.configPath))
        let store = ConversationStore(queue: queue)
        // MCP clients' models do not get ofj's requests, so the standing notes are a tool and a resource there.
        let tools = ToolRegistry(Toolbox.registry(journal: journal, attachments: false).tools + [PersonTools.standingNotes(journal: journal)])
        Toolbox.warmUp()
        let recorder = OutboxRecorder(outbox: DiagnosticsOutbox(queue: queue), appVersion: version, allowedToolNames: Set(tools.tools.map(\.name)))
        var configuration = MCPConfiguration(
            serverName: "ofj", serverTitle: "OpenFoodJournal", serverVersion: version,
            instructions: """
                ofj is the person's nutrition journal and Food Bank. Use the tools for every number; never guess nutrient values or ids. \
                Before logging, look the food up (search_food_bank, then search_reference_foods). Each change is shown to the person for approval; \
                if they decline, do not repeat it unless they ask.
                """,
            allowWrites: p.has("--allow-writes"), resources: resources, annotations: annotations,
            sessionRunID: "mcp-session-" + UUIDSource().next())
        // The same standing approval rules as the REPL and `ofj ask` (config.json, re-read on change).
        configuration.approvalRules = Toolbox.ruleBook(path: paths.configPath, tools: tools, journal: journal)
        let server = MCPServer(configuration: configuration, tools: tools, store: store, clock: SystemClock(), diagnostics: recorder,
                               output: StdoutLines.write, log: { Console.err("ofj mcp: \($0)\n") })
        Console.err("ofj mcp: serving the journal over stdio (writes \(p.has("--allow-writes") ? "allowed, each one asked about" : "off; --allow-writes enables them"))\n")
        await server.serve(StdinFrames.stream())
        return 0
    }

    static let resources = [
        MCPResource(uri: "ofj://journal/today", name: "today", title: "Today's journal",
                    description: "Everything logged today by meal, with totals and progress against the goals.",
                    toolName: "get_journal_day", arguments: ["date": "today"]),
        MCPResource(uri: "ofj://goals", name: "goals", title: "Daily goals",
                    description: "The daily goals (calories, macros, any nutrient), whether each is a target or a limit, and where each comes from: fda_default (the FDA label Daily Value), profile (the DRIs of the person's life-stage group, with the source) or person.",
                    toolName: "get_goals"),
        MCPResource(uri: "ofj://notes", name: "notes", title: "Standing notes",
                    description: "What the person wants the assistant always to know: allergies, diet, usual portions.",
                    toolName: "get_standing_notes"),
        MCPResource(uri: "ofj://foodbank", name: "foodbank", title: "Food Bank",
                    description: "The saved foods in use (the first 30 by name), with their ids and nutrients per serving.",
                    toolName: "search_food_bank", arguments: ["limit": 30]),
    ]

    /// Writes that only add (a new entry or food) are not destructive; writes that change or remove
    /// what is there are. Idempotent: the same call again changes nothing more.
    static let additiveWrites: Set<String> = ["log_food", "log_saved_food", "log_reference_food", "log_calculator_build",
                                              "log_packaged_food", "save_packaged_food", "log_weight"]
    static let idempotentWrites: Set<String> = ["update_journal_entry", "move_journal_entry", "delete_journal_entry", "set_food_archived",
                                                "set_food_on_shelf", "rename_brand", "set_goals"]

    @Sendable static func annotations(_ tool: any Tool) -> MCPToolAnnotations {
        guard tool.effect == .write else { return MCPToolAnnotations(readOnly: true, destructive: false, idempotent: true) }
        return MCPToolAnnotations(readOnly: false, destructive: !additiveWrites.contains(tool.name), idempotent: idempotentWrites.contains(tool.name))
    }
}

/// Protocol lines to stdout, whole lines at a time from any task. A client that went away (EPIPE)
/// ends the writes quietly; the input's end then ends the server.
enum StdoutLines {
    private static let lock = Mutex(())

    @Sendable static func write(_ line: String) {
        lock.withLock { _ in Console.out(line + "\n") }
    }
}

/// stdin as frames, read on a thread of its own (a blocking read must not hold a task's thread).
enum StdinFrames {
    static func stream() -> AsyncStream<Frame> {
        let (stream, continuation) = AsyncStream<Frame>.makeStream()
        let thread = Thread {
            var framer = LineFramer()
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                for frame in framer.feed(buffer[0..<n]) { continuation.yield(frame) }
            }
            if let last = framer.finish() { continuation.yield(last) }
            continuation.finish()
        }
        thread.start()
        return stream
    }
}
