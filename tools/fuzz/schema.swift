// libFuzzer target: tool-argument checking with the real NutritionTools schemas. Byte 0 picks the
// tool; the rest is the arguments text a model sent. It goes through ToolRegistry.resolve (JSON
// parse, SchemaValidator) and, when accepted, the tool's activity line and (writes) the approval
// card preview, on an empty in-memory journal.
import Agent
import Journal
import NutritionTools
import ReferenceFoods
import SQLiteKit

struct Setup: Sendable {
    let queue: DatabaseQueue
    let registry: ToolRegistry
}

let setup: Setup = {
    let queue = try! DatabaseQueue.inMemory()
    var migrator = Migrator()
    ConversationStore.registerMigrations(into: &migrator)
    JournalStore.registerMigrations(into: &migrator)
    try! queue.migrate(migrator)
    let journal = JournalStore(queue: queue)
    return Setup(queue: queue, registry: NutritionToolbox.makeRegistry(journal: journal, reference: ReferenceDatabase(directoryPath: "/nonexistent/ofj-fuzz")))
}()

let context = ToolContext(threadID: "thread-1", runID: "run-1", callID: "call-1", now: WallTime(secondsSince1970: 1_795_000_000))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzToolArguments(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size > 0, let data else { return 0 }
    let tools = setup.registry.tools
    let tool = tools[Int(data[0]) % tools.count]
    let arguments = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    switch setup.registry.resolve(ToolCall(id: "call-1", name: tool.name, arguments: arguments)) {
    case .failure(let rejection):
        _ = rejection.output
    case .success(let resolved):
        _ = resolved.tool.activity(arguments: resolved.arguments)
        if let write = resolved.tool as? any WriteTool {
            _ = try? setup.queue.read { try write.preview(arguments: resolved.arguments, context: context, database: $0) }
        }
    }
    return 0
}
