// The offline assistant: a deterministic ChatModel that answers a small grammar of requests
// through the same nutrition tool calls, approvals and ledger as a real model, with no network.
import Agent
import Base
import Foundation
import NutritionTools

/// Reads the transcript, parses the newest user message with `OfflineGrammar`, and on each turn
/// either asks for the next tool calls or writes a short answer from the tool results it got.
/// It knows the nutrition tools only by their published names (`NutritionToolName`) and JSON
/// shapes, like any other model. It never
/// states a number that did not come from a tool result.
public struct OfflineAssistant: ChatModel {
    public let provider = "offline"
    public let model = "offline"
    public let continuationFamily = "offline"

    let timeZone: TimeZone
    let now: @Sendable () -> Double

    /// - Parameters:
    ///   - timeZone: the person's zone; decides "today" and the ranges of "this week" and "this month".
    ///   - now: wall time in seconds since 1970 (tests pass a virtual clock's `now`).
    public init(timeZone: TimeZone = .current, now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.timeZone = timeZone
        self.now = now
    }

    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        let events = respond(to: request.messages)
        return AsyncThrowingStream { continuation in
            for event in events { continuation.yield(event) }
            continuation.finish()
        }
    }

    /// The events of one turn for this transcript (exposed for tests).
    public func respond(to messages: [Message]) -> [ChatEvent] {
        let state = OfflineState(messages: messages)
        let step = OfflinePlanner(state: state, calendar: OfflineCalendar(timeZone: timeZone, now: now())).next()
        var events: [ChatEvent] = []
        switch step {
        case .calls(let calls):
            for (i, call) in calls.enumerated() {
                let id = "offline-\(state.userNumber)-\(state.calls.count + i + 1)"
                events.append(.toolCall(ToolCall(id: id, name: call.name.rawValue, arguments: call.arguments.serialized)))
            }
            events.append(.usage(.zero))
            events.append(.finish(.toolCalls))
        case .answer(let text):
            events.append(.textDelta(text))
            events.append(.usage(.zero))
            events.append(.finish(.stop))
        }
        return events
    }

    /// What the offline assistant understands, for help and for requests it cannot parse.
    public static let capabilities = """
        - log food: "log 2 eggs for breakfast", "I had a banana", "log 150g greek yogurt as a snack", "log my usual oatmeal"
        - review: "what did I eat today", "what did I eat yesterday", "show last week"
        - nutrients: "how much protein did I have this week", "how much sodium today", "which foods gave me the most sugar this month"
        - goals: "set my calorie goal to 2200", "set protein goal to 140g"
        - body weight: "I weigh 80.4 kg", "what's my weight trend"
        - fix the journal: "delete the last thing I logged", "move my coffee to breakfast"
        - repeat and diary: "same breakfast as yesterday", "copy yesterday's lunch", "I drank 500 ml of water", "note: felt bloated"
        - habits: "what do I usually have for breakfast", "how long have I been fasting"
        - when a food could be one of several, I list up to 3 numbered choices: reply "2" or "the second" to log that one
        - Food Bank and Shelf: "find oat milk in my food bank", "what can I eat tonight"
        """
}

// MARK: - Transcript state

/// What happened since the newest user message: the calls made and their results.
struct OfflineState {
    struct Done {
        var name: String
        var arguments: JSONValue
        var content: JSONValue?
        var isError: Bool
        var errorText: String?
        var denied: Bool

        func `is`(_ tool: NutritionToolName) -> Bool { name == tool.rawValue }
    }

    let utterance: String
    /// 1-based number of the newest user message in the thread (call ids derive from it).
    let userNumber: Int
    var calls: [Done]
    /// The exchange before the newest user message: what the person asked and the answer they
    /// got (for "2" after a list of choices). Nothing older is read.
    var previousUtterance: String?
    var previousAnswer: String?

    init(messages: [Message]) {
        let userIndices = messages.indices.filter { messages[$0].role == .user && !messages[$0].text.isEmpty }
        guard let last = userIndices.last else {
            utterance = ""; userNumber = 0; calls = []
            return
        }
        utterance = messages[last].text
        userNumber = userIndices.count
        if userIndices.count >= 2 {
            let before = userIndices[userIndices.count - 2]
            previousUtterance = messages[before].text
            previousAnswer = messages[(before + 1)..<last].last { $0.role == .assistant && !$0.text.isEmpty }?.text
        }
        var results: [String: ToolResult] = [:]
        for m in messages[(last + 1)...] { for r in m.toolResults { results[r.callID] = r } }
        var done: [Done] = []
        for m in messages[(last + 1)...] where m.role == .assistant {
            for c in m.toolCalls {
                let result = results[c.id]
                let content = result.flatMap { try? JSONValue.parse($0.content) }
                let error = content?["error"]?.stringValue ?? (result?.isError == true ? result?.content : nil)
                done.append(Done(name: c.name, arguments: (try? c.parsedArguments()) ?? .object([:]), content: content,
                                 isError: result?.isError ?? false, errorText: error, denied: content?["denied"]?.boolValue ?? false))
            }
        }
        calls = done
    }

    func last(_ tool: NutritionToolName) -> Done? { calls.last { $0.is(tool) } }
}

// MARK: - Dates

/// The local calendar for the offline assistant (day numbers through Base's `CalendarDay`).
struct OfflineCalendar {
    let today: Int // days since 1970-01-01, local

    init(timeZone: TimeZone, now: Double) {
        let offset = Double(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: now)))
        today = Int(((now + offset) / 86_400).rounded(.down))
    }

    func string(_ dayNumber: Int) -> String {
        CalendarDay.text(dayNumber: dayNumber)
    }

    /// First day of the current month.
    var monthStart: Int {
        let (_, _, d) = CalendarDay.civil(today)
        return today - (d - 1)
    }

    /// (from, to) of a period, as day numbers.
    func range(_ p: Period) -> (Int, Int) {
        switch p {
        case .today: return (today, today)
        case .yesterday: return (today - 1, today - 1)
        case .lastDays(let n): return (today - max(1, n) + 1, today)
        case .thisMonth: return (monthStart, today)
        case .date(let s):
            let n = (try? CalendarDay(parsing: s))?.dayNumber ?? today
            return (n, n)
        case .tomorrow: return (today + 1, today + 1)
        case .weekday(let w):
            // Day 0 (1970-01-01) was a Thursday (ISO 4); the latest such weekday before today.
            let todayISO = ((today % 7) + 7 + 3) % 7 + 1
            var back = (todayISO - w + 7) % 7
            if back == 0 { back = 7 }
            return (today - back, today - back)
        case .dayOfMonth(let d):
            // The latest day numbered `d` on or before today: this month's if it has passed,
            // else the newest earlier month that has one ("the 31st" on 1 December is 31 October).
            let (y, m, day) = CalendarDay.civil(today)
            var (year, month) = (y, m)
            if d > day { (year, month) = m == 1 ? (y - 1, 12) : (y, m - 1) }
            for _ in 0..<3 {
                let date = String(format: "%04d-%02d-%02d", year, month, d)
                if let n = (try? CalendarDay(parsing: date))?.dayNumber { return (n, n) }
                (year, month) = month == 1 ? (year - 1, 12) : (year, month - 1)
            }
            return (today, today)
        }
    }

    func describe(_ p: Period) -> String {
        let (from, to) = range(p)
        switch p {
        case .today: return "today (\(string(today)))"
        case .yesterday: return "yesterday (\(string(today - 1)))"
        case .lastDays(let n): return "the last \(n) days (\(string(from)) to \(string(to)))"
        case .thisMonth: return "this month (\(string(from)) to \(string(to)))"
        case .date, .weekday, .dayOfMonth: return "on \(string(from))"
        case .tomorrow: return "tomorrow (\(string(from)))"
        }
    }
}
