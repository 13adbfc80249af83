// "Where you were": the last few exchanges of a thread, shown by `--resume` and `/open`.
import Agent
import Foundation
import Views

extension REPLSession {
    /// How many exchanges (a message and its answer) the recap shows.
    static let recapExchanges = 3
    /// Lines of one answer shown before it is cut with "…".
    static let recapAnswerLines = 4

    /// The recap lines, or none for a thread without messages.
    func recap(threadID: String) -> [String] {
        // One exchange more than shown is read, to know whether there are earlier ones.
        guard var messages = try? services.store.recentMessages(threadID: threadID, exchanges: Self.recapExchanges + 1),
              !messages.isEmpty else { return [] }
        let userIndexes = messages.indices.filter { messages[$0].message.role == .user }
        let more = userIndexes.count > Self.recapExchanges
        if more { messages.removeFirst(userIndexes[1]) }
        // One line per tool call, from its record (the summary the person saw when it ran).
        var summaries: [String: ToolRecord] = [:]
        for runID in Set(messages.compactMap(\.runID)) {
            for r in (try? services.store.toolRecords(runID: runID)) ?? [] { summaries[r.callID] = r }
        }
        var lines: [String] = []
        lines.append(style.dim(more ? "── earlier in this thread (the last \(Self.recapExchanges) exchanges) ──" : "── earlier in this thread ──"))
        let limit = max(40, writer.width > 0 ? writer.width : 100) - 4
        for stored in messages {
            // A message pulled from another machine starts with the line saying so.
            let m = stored.forModel
            switch m.role {
            case .user:
                let text = m.parts.compactMap { if case .text(let t) = $0 { return t } else { return nil } }.joined()
                guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { continue }
                lines.append(style.bold("› ") + Self.clip(Terminal.sanitize(text, keepNewlines: false), to: limit))
            case .assistant:
                for part in m.parts {
                    switch part {
                    case .toolCall(let call):
                        lines.append(style.dim("  · " + Self.clip(toolLine(call, record: summaries[call.id]), to: limit)))
                    case .text(let t):
                        let text = Terminal.sanitize(t).trimmingCharacters(in: .whitespacesAndNewlines)
                        guard !text.isEmpty else { continue }
                        let all = text.split(separator: "\n", omittingEmptySubsequences: true)
                        for line in all.prefix(Self.recapAnswerLines) { lines.append("  " + Self.clip(String(line), to: limit)) }
                        if all.count > Self.recapAnswerLines { lines.append(style.dim("  …")) }
                        if stored.state != .complete { lines.append(style.dim("  (interrupted)")) }
                    default:
                        break
                    }
                }
            case .tool:
                break
            }
        }
        lines.append(style.dim("──"))
        return lines
    }

    /// "log_food: logged Apple to lunch ✓", "delete_journal_entry: not done: declined".
    private func toolLine(_ call: ToolCall, record: ToolRecord?) -> String {
        let name = Terminal.sanitize(call.name, keepNewlines: false)
        guard let record else { return name }
        let summary = Terminal.sanitize(record.summary ?? "", keepNewlines: false)
        switch record.status {
        case .succeeded: return summary.isEmpty ? name : "\(name): \(summary)"
        case .denied: return "\(name): not done: \(summary)"
        case .failed, .rejected: return "\(name): failed: \(summary)"
        case .cancelled, .interrupted, .running: return "\(name): stopped before it finished"
        }
    }

    /// One line at most `width` characters, cut with "…".
    static func clip(_ text: String, to width: Int) -> String {
        text.count <= width ? text : String(text.prefix(max(1, width - 1))) + "…"
    }
}
