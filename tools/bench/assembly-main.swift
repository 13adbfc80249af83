// Request assembly for long threads, in-process: loads a stored thread, normalises it and builds the
// Chat Completions HTTP body, as one `ofj ask --thread` turn does; run through tools/bench/assembly.sh.
import Agent
import Foundation
import HTTP
import Providers
import SQLiteKit

func milliseconds(since start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 }
func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: assembly-bench DB THREAD_ID...\n".utf8))
    exit(2)
}
let queue = try DatabaseQueue(path: arguments[1])
let store = ConversationStore(queue: queue)
let model = ChatCompletionsModel(config: AdapterConfig(provider: "openai", baseURL: "http://127.0.0.1:9/v1", apiKey: "bench-not-a-key",
                                                       model: "bench-model"), transport: CurlTransport())
let runs = 15
for thread in arguments.dropFirst(2) {
    var load: [Double] = [], normalize: [Double] = [], body: [Double] = [], total: [Double] = []
    var messageCount = 0, bytes = 0
    for _ in 0..<runs {
        let t0 = DispatchTime.now().uptimeNanoseconds
        let messages = try store.transcript(threadID: thread).map(\.message)
        let t1 = DispatchTime.now().uptimeNanoseconds
        let normalized = RequestNormalizer.normalize(messages, continuationFamily: model.continuationFamily)
        let t2 = DispatchTime.now().uptimeNanoseconds
        let request = model.httpRequest(ChatRequest(system: "You are ofj.", messages: normalized, tools: []))
        load.append(Double(t1 - t0) / 1e6)
        normalize.append(Double(t2 - t1) / 1e6)
        body.append(milliseconds(since: t2))
        total.append(milliseconds(since: t0))
        messageCount = normalized.count
        bytes = request.body.count
    }
    print(thread.padding(toLength: 20, withPad: " ", startingAt: 0)
          + String(format: "%6d messages %9d B body | median total %8.2f ms = load %7.2f + normalise %6.2f + body %7.2f ms (%d runs)",
                   messageCount, bytes, median(total), median(load), median(normalize), median(body), runs))
}
