// Full-text search speed on a 100,000-message thread, in-process; run through tools/bench-search.sh.
import Agent
import Foundation
import SQLiteKit

/// Median wall milliseconds of `runs` runs (after one warm-up run).
func measure(_ label: String, runs: Int = 51, _ body: () throws -> Int) rethrows {
    var walls: [Double] = []
    var found = try body()
    for _ in 0..<runs {
        let w = DispatchTime.now().uptimeNanoseconds
        found = try body()
        walls.append(Double(DispatchTime.now().uptimeNanoseconds - w) / 1e6)
    }
    let s = walls.sorted()
    print(label.padding(toLength: 46, withPad: " ", startingAt: 0)
          + String(format: "median %7.3f ms   min %7.3f   max %7.3f   (%d results)", s[s.count / 2], s[0], s[s.count - 1], found))
}

let path = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "/tmp/ofj-search-bench.sqlite"
try? FileManager.default.removeItem(atPath: path)
let queue = try DatabaseQueue(path: path)
var migrator = Migrator()
ConversationStore.registerMigrations(into: &migrator)
try queue.migrate(migrator)
let store = ConversationStore(queue: queue)

// A thread of 100,000 messages: user and assistant turns about food, each with its own word
// ("w" + seq), written in SQL; then the index is built by the fts-2 migration, as on an
// existing database.
let sentences = [
    "I had oatmeal with blueberries and a coffee for breakfast",
    "Logged Oatmeal, cooked — 1 cup, 166 kcal to breakfast",
    "How much protein did I have this week compared with my goal",
    "This week you averaged 92 g of protein a day against a goal of 120 g",
    "Log a chicken salad sandwich for lunch and an apple as a snack",
    "Logged Chicken salad sandwich, 420 kcal, and Apple, 95 kcal",
    "What can I eat tonight to stay under my sodium limit",
    "Grilled salmon with rice and steamed broccoli keeps you around 400 mg of sodium",
]
let n = 100_000
let start = DispatchTime.now().uptimeNanoseconds
try queue.write { db in
    try db.execute("INSERT INTO agent_threads (id, title, created_at, updated_at) VALUES ('big', 'Breakfast and protein', 1.7e9, 1.7e9)")
    for seq in 1...n {
        try db.execute("INSERT INTO agent_messages (id, thread_id, seq, role, state, created_at) VALUES (?, 'big', ?, ?, 'complete', ?)",
                       [seq, seq, seq % 2 == 1 ? "user" : "assistant", 1.7e9 + Double(seq)])
        try db.execute("INSERT INTO agent_message_parts (message_id, ordinal, kind, body) VALUES (?, 0, 'text', ?)",
                       [seq, sentences[(seq - 1) % sentences.count] + " w\(seq)"])
    }
    try db.execute(batch: """
        DROP TABLE agent_messages_fts; DROP TABLE agent_tools_fts; DROP TABLE agent_titles_fts;
        DELETE FROM schema_migrations WHERE identifier = 'fts-2-threads';
        """)
}
let built = DispatchTime.now().uptimeNanoseconds
try queue.migrate(migrator)
let indexed = DispatchTime.now().uptimeNanoseconds
print(String(format: "generated %d messages in %.1f s; fts-2 migration indexed them in %.1f s; database %d MB",
             n, Double(built - start) / 1e9, Double(indexed - built) / 1e9,
             ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) / 1_048_576))

func q(_ text: String) -> FullTextQuery { FullTextQuery(text)! }
try measure("one message by its word (w73457)") { try store.searchThreads(matching: q("w73457"), limit: 20).count }
try measure("word in 1/8 of messages (blueberries)") { try store.searchThreads(matching: q("blueberries"), limit: 20).count }
try measure("word in 1/4 of messages (kcal)") { try store.searchThreads(matching: q("kcal"), limit: 20).count }
try measure("two words, prefix (chick sand)") { try store.searchThreads(matching: q("chick sand"), limit: 20).count }
try measure("no match (kumquat)") { try store.searchThreads(matching: q("kumquat"), limit: 20).count }
try measure("/threads QUERY list search (oatmeal)") { try store.searchThreads("oatmeal").count }
