// `ofj log "2 eggs and toast for breakfast"` (issue 34 §3): plain words read by the offline
// assistant (no model, no thread), whose tool calls run here as `ofj entry edit` runs its tool:
// each write's card, a y/n question on a terminal (--yes for scripts), then exactly that change.
import Agent
import Base
import CommandLineKit
import Foundation
import Journal
import NutritionTools
import Offline
import OutputSafety
import ReferenceFoods
import Views

struct PlainWordsLog {
    let journal: JournalStore
    let out: (String) -> Void
    let ask: @Sendable (String) -> Bool?

    /// Whether the words are food to log, as the offline assistant reads them.
    static func isLog(_ intent: OfflineIntent) -> Bool {
        switch intent {
        case .log, .logEach, .dated(.log, _), .dated(.logEach, _): return true
        default: return false
        }
    }

    /// Logs what `words` say; the calls' meal and date are replaced by --meal and --date when given.
    func run(_ words: String, yes: Bool, json: Bool, meal: String?, date: String?) throws {
        var text = words
        let read = OfflineGrammar.parse(text)
        if !Self.isLog(read) {
            // "banana" alone is food; "what did I eat today" is a question.
            guard read == .unknown, Self.isLog(OfflineGrammar.parse("log " + text)) else {
                throw CLIError("ofj log read \"\(JournalViews.safeName(String(words.prefix(60))))\" as something other than food to log; ask it with `ofj ask`, or log by hand: ofj log NAME --kcal N", status: 2)
            }
            text = "log " + text
        }
        let registry = ToolRegistry(NutritionToolbox.makeTools(journal: journal, reference: ReferenceDatabase.shared))
        let model = OfflineAssistant(timeZone: journal.timeZone, now: { [journal] in journal.now().timeIntervalSince1970 })
        var messages: [Message] = [.user(text)]
        var logged: [JSONValue] = []
        var answer = ""
        for _ in 0..<64 {
            let events = model.respond(to: messages)
            let calls = events.compactMap { if case .toolCall(let c) = $0 { return c } else { return nil } }
            guard !calls.isEmpty else {
                answer = events.compactMap { if case .textDelta(let t) = $0 { return t } else { return nil } }.joined()
                break
            }
            messages.append(Message(role: .assistant, parts: calls.map { .toolCall($0) }))
            var results: [MessagePart] = []
            for call in calls {
                let output = try perform(call, registry: registry, yes: yes, json: json, meal: meal, date: date)
                if registry.tool(named: call.name)?.effect == .write, !output.isError,
                   let content = try? JSONValue.parse(output.content), content["denied"] == nil {
                    logged.append(content)
                }
                results.append(.toolResult(ToolResult(callID: call.id, name: call.name, content: output.content, isError: output.isError)))
            }
            messages.append(Message(role: .user, parts: results))
        }
        if json {
            out(TerminalText.escapingJSON(JSONValue.object(["logged": .array(logged), "answer": .string(answer)]).serialized))
        } else if logged.isEmpty || answer.contains("nothing") || answer.contains("could be one of") {
            // The cards and ✓ lines said the rest; what was not logged is said here.
            out(TerminalText.sanitize(answer))
        }
        guard !logged.isEmpty else {
            let listed = answer.range(of: #"\[ref [0-9]{5}\]"#, options: .regularExpression).map { answer[$0].dropFirst(5).dropLast() }
            let next = listed.map { "log one of them by its id, e.g. ofj log --ref \($0) --portion \"1 cup\"" }
                ?? "find it with `ofj ref WORDS` and log it with `ofj log --ref ID`, or by hand: ofj log NAME --kcal N"
            throw CLIError("nothing was logged; \(next)")
        }
    }

    /// One tool call: a read runs as it is; a write shows its card and is applied once approved.
    func perform(_ call: ToolCall, registry: ToolRegistry, yes: Bool, json: Bool, meal: String?, date: String?) throws -> ToolOutput {
        guard let tool = registry.tool(named: call.name) else { return .error("unknown tool \(call.name)") }
        var arguments = (try? JSONValue.parse(call.arguments)) ?? .object([:])
        let context = ToolContext(threadID: "cli", runID: "cli", callID: call.id,
                                  now: WallTime(secondsSince1970: journal.now().timeIntervalSince1970))
        guard let write = tool as? any WriteTool else {
            let read = arguments
            return try Self.blocking { await tool.prepare(); return try await tool.execute(arguments: read, context: context) }
        }
        if case .object(var fields) = arguments {
            if let meal { fields["meal"] = .string(meal) }
            if let date { fields["date"] = .string(date) }
            arguments = .object(fields)
        }
        var asking: ((String) -> Bool?)?
        if !yes { asking = { [ask] in ask($0) } }
        do {
            let output = try JournalOps.confirmAndApply(write, arguments: arguments, context: context, journal: journal,
                                                        ask: asking, question: "Log this? [y/N] ", command: "ofj log",
                                                        json: json, out: out)
            return output ?? ToolOutput(content: #"{"denied":true,"message":"The person declined this change; nothing was written."}"#, summary: "declined")
        } catch let e as ToolArgumentError {
            return .error(e.description)
        }
    }

    /// Runs an async tool from this synchronous command (read tools only; they do not need the main thread).
    static func blocking(_ body: @escaping @Sendable () async throws -> ToolOutput) throws -> ToolOutput {
        final class Box: @unchecked Sendable { var result: Result<ToolOutput, any Error> = .success(.error("not run")) }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
            done.signal()
        }
        done.wait()
        return try box.result.get()
    }
}
