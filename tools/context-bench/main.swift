// Request-assembly speed probe: a 10,000-message thread with checkpoints. Not built by default: to run it, add
// `.executableTarget(name: "ContextBench", dependencies: ["Agent", "SQLiteKit"], path: "tools/context-bench")`
// to Package.swift, then `swift build -c release --product ContextBench && .build/release/ContextBench`.
import Foundation
import Agent
import SQLiteKit

func median(_ xs: [Double]) -> Double { let s = xs.sorted(); return s[s.count / 2] }

/// Builds a thread of `count` messages (user, assistant with a tool call, tool result, assistant
/// answer, repeated) and a checkpoint leaving `tail` messages after it.
func makeThread(_ store: ConversationStore, id: String, count: Int, tail: Int) throws {
    try store.queue.write { db in
        try db.execute("INSERT INTO agent_threads (id, created_at, updated_at) VALUES (?, 0, 0)", [id])
        var seq = 0
        func insert(_ role: String, _ parts: [(String, String, String?, String?)]) throws {
            seq += 1
            try db.execute("INSERT INTO agent_messages (thread_id, seq, role, created_at) VALUES (?, ?, ?, 0)", [id, seq, role])
            let mid = db.lastInsertRowID
            for (i, p) in parts.enumerated() {
                try db.execute("INSERT INTO agent_message_parts (message_id, ordinal, kind, body, call_id, name) VALUES (?, ?, ?, ?, ?, ?)",
                               [mid, i, p.0, p.1, p.2, p.3])
            }
        }
        var turn = 0
        while seq < count {
            turn += 1
            try insert("user", [("text", "Log two eggs and a slice of toast for breakfast, turn \(turn).", nil, nil)])
            try insert("assistant", [("tool_call", #"{"query":"egg","limit":5}"#, "c\(turn)", "search_foods")])
            try insert("tool", [("tool_result", String(repeating: #"{"id":"x","name":"egg, whole, boiled","kcal":155},"#, count: 6), "c\(turn)", "search_foods")])
            try insert("assistant", [("text", "Logged 2 eggs (143 kcal) and toast (80 kcal) for breakfast.", nil, nil)])
        }
        // Checkpoints every 2,000 messages, the last one leaving `tail` messages.
        var to = 2_000
        while to < count - tail {
            try db.execute("INSERT INTO agent_checkpoints (thread_id, kind, from_seq, to_seq, summary, created_at) VALUES (?, 'summary', 1, ?, ?, 0)",
                           [id, to, String(repeating: "Earlier: breakfasts logged; re-read totals with tools. ", count: 20)])
            to += 2_000
        }
        let last = count - tail
        // The tail must start at a user message (a turn boundary): round down to one.
        let boundary = last - (last % 4)
        try db.execute("INSERT INTO agent_checkpoints (thread_id, kind, from_seq, to_seq, summary, created_at) VALUES (?, 'summary', 1, ?, ?, 0)",
                       [id, boundary, String(repeating: "Earlier: breakfasts logged; re-read totals with tools. ", count: 20)])
    }
}

let path = NSTemporaryDirectory() + "ofj-context-bench-\(getpid()).sqlite"
defer { try? FileManager.default.removeItem(atPath: path) }
let queue = try DatabaseQueue(path: path)
var migrator = Migrator()
ConversationStore.registerMigrations(into: &migrator)
try queue.migrate(migrator)
let store = ConversationStore(queue: queue)
let assembler = CompactingAssembler(store: store, settings: ContextSettings(
    defaultBudget: .k200, limits: { _, _ in ModelLimits(contextWindow: 1_048_576, maxOutputTokens: 65_536) }))
let model = ScriptedChatModel(clock: VirtualClock()) { _, _ in nil } // never asked: every case fits the budget
let tools = (0..<12).map { ToolSpec(name: "tool_\($0)", description: "A journal tool with a description of some length.",
                                    parameters: ["type": "object", "properties": ["query": ["type": "string"]]]) }
let system = String(repeating: "You are ofj's food-journal assistant. ", count: 60)

for (stored, tail) in [(10_000, 40), (10_000, 400), (1_000, 40), (1_000, 400)] {
    let id = "t-\(stored)-\(tail)"
    try makeThread(store, id: id, count: stored, tail: tail)
    let context = RequestContext(threadID: id, runID: "r", turn: 1, systemPrompt: system, tools: tools, maxOutputTokens: 4_000,
                                 store: store, model: model)
    var times: [Double] = []
    var sent = 0
    for _ in 0..<101 {
        let t = DispatchTime.now().uptimeNanoseconds
        let request = try await assembler.assemble(context)
        times.append(Double(DispatchTime.now().uptimeNanoseconds - t) / 1e6)
        sent = request.messages.count
    }
    print(String(format: "%6d stored, %4d sent: median %.3f ms", stored, sent, median(times)))
}
