// A thread out of ofj: Markdown to read or share, JSON for programs (`ofj threads export`,
// `/export`). What leaves is the conversation itself: text, tool activity and approvals. Never
// provider data (continuations, request ids), never a key: URLs have credentials and key-like
// query values hidden, as `ofj doctor` prints them.
import Agent
import Base
import Foundation
import OutputSafety

public enum ThreadExport {
    public enum Format: String, Sendable, CaseIterable { case md, json }

    /// One tool call as it happened: the record, and the person's decisions about it.
    struct Activity {
        var record: ToolRecord?
        var approvals: [ApprovalRecord]
    }

    public static func render(_ thread: ThreadSummary, format: Format, store: ConversationStore, timeZone: TimeZone) throws -> String {
        let messages = try store.transcript(threadID: thread.id)
        var records: [String: ToolRecord] = [:]
        for r in try store.toolRecords(threadID: thread.id) { records[key(r.runID, r.turn, r.callID)] = r }
        var decisions: [String: [ApprovalRecord]] = [:]
        for runID in Set(messages.compactMap(\.runID)).sorted() {
            for a in try store.approvalRecords(runID: runID) {
                // Approvals are stored per (run, call id); a turn is not needed to tell calls apart
                // within a run's messages, since call ids are unique in a run.
                decisions[runID + "/" + a.callID, default: []].append(a)
            }
        }
        let untrusted = try store.untrustedReads(threadID: thread.id)
        func activity(_ m: StoredMessage, _ call: ToolCall) -> Activity {
            let runID = m.runID ?? ""
            return Activity(record: records[key(runID, m.turn ?? 0, call.id)], approvals: decisions[runID + "/" + call.id] ?? [])
        }
        switch format {
        case .md: return markdown(thread, messages, activity, timeZone, untrusted: untrusted)
        case .json: return json(thread, messages, activity, timeZone, untrusted: untrusted)
        }
    }

    /// Writes `text` owner-only (0600); an existing file is replaced only with `force`
    /// (`forceHint` names the option that allows it, when there is one).
    public static func write(_ text: String, to path: String, force: Bool, forceHint: String? = nil) throws {
        let shown = Terminal.sanitize(path, keepNewlines: false)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw ExportError("\(shown) is a folder; give a file name") }
            if !force { throw ExportError("\(shown) already exists; choose another name" + (forceHint.map { " or add \($0) to replace it" } ?? "")) }
        }
        do { try PrivateFile.write(Array(text.utf8), to: path, overwrite: force) } catch {
            throw ExportError("cannot write \(shown): \(error)")
        }
    }

    /// A file that cannot be written, in one line that says what to do.
    public struct ExportError: Error, CustomStringConvertible, Sendable {
        public let description: String
        init(_ d: String) { description = d }
    }

    static func key(_ run: String, _ turn: Int, _ call: String) -> String { "\(run)/\(turn)/\(call)" }

    static func clean(_ s: String) -> String { URLCredentials.redact(s) }

    // MARK: - Markdown

    static func markdown(_ t: ThreadSummary, _ messages: [StoredMessage], _ activity: (StoredMessage, ToolCall) -> Activity,
                         _ zone: TimeZone, untrusted: [UntrustedReadRecord] = []) -> String {
        var out = "# \(oneLine(t.title))\n\n"
        var meta = ["Thread \(t.id)", "started \(SearchViews.dateLabel(t.createdAt, zone))", "last message \(SearchViews.dateLabel(t.updatedAt, zone))"]
        if let p = t.provider { meta.append("provider \(oneLine(p))" + (t.model.map { " · model \(oneLine($0))" } ?? "")) }
        out += "_" + meta.joined(separator: " · ") + "_\n"
        for m in messages {
            switch m.message.role {
            case .user, .assistant:
                let text = m.forModel.parts.compactMap { if case .text(let s) = $0 { return s } else { return nil } }.joined()
                let calls = m.message.parts.compactMap { if case .toolCall(let c) = $0 { return c } else { return nil } }
                let hasText = !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
                if hasText || !m.message.attachments.isEmpty {
                    out += "\n**\(m.message.role == .user ? "You" : "Assistant")** · \(SearchViews.dateLabel(m.createdAt, zone))"
                        + (m.state == .complete ? "" : " (\(m.state.rawValue))") + "\n\n"
                }
                if hasText {
                    out += quoted(clean(Terminal.sanitize(text).trimmingCharacters(in: .whitespacesAndNewlines))) + "\n"
                }
                if !m.message.attachments.isEmpty {
                    // Files (a line each); one whose bytes stayed on another machine says so.
                    out += (hasText ? "\n" : "") + m.message.attachments.map { "📎 " + oneLine($0.listLine) + "\n" }.joined()
                }
                if !calls.isEmpty { out += "\n" }
                for call in calls {
                    let a = activity(m, call)
                    var line = "> tool \(oneLine(call.name))"
                    if let r = a.record {
                        line += " (\(r.status.rawValue))"
                        if let s = r.summary, !s.isEmpty { line += ": " + oneLine(s) }
                    }
                    out += line + "\n"
                    for d in a.approvals {
                        out += "> approval: \(decisionText(d.decision)) \(sourceText(d.source))"
                            + (d.rule.map { " " + oneLine($0) } ?? "") + "\n"
                        if !d.untrusted.isEmpty {
                            out += "> decided after untrusted content was read: \(oneLine(UntrustedContent.list(d.untrusted)))"
                                + (d.standingNotUsed.map { "; your \(oneLine($0)) was not used" } ?? "") + "\n"
                        }
                    }
                }
            case .tool:
                continue  // results are summarised on the tool lines above
            }
        }
        if !untrusted.isEmpty {
            out += "\n## Untrusted content read in this thread\n\n"
            for r in untrusted {
                out += "- \(oneLine(r.read.text))"
                    + (r.clearedAt == nil ? " · **stands** (grants and allow rules wait for your next message)" : " · cleared by your next message") + "\n"
            }
        }
        out += "\n---\n\n_\(JournalViews.medicalNote)_\n"
        return out
    }

    /// Message text as it can never pass for ofj's own lines: a line that starts like one (a quote
    /// `>` such as "> tool set_goals (succeeded)" or "> approval: …", a heading, a speaker line
    /// `**You**`, a file line, a rule) gets a backslash first, so Markdown shows it as text.
    static func quoted(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let bare = line.drop { $0 == " " || $0 == "\t" }
            let looksOurs = [">", "#", "**", "📎", "---", "___", "***", "_Not medical"].contains { bare.hasPrefix($0) }
            return looksOurs ? String(line[..<bare.startIndex]) + "\\" + bare : String(line)
        }.joined(separator: "\n")
    }

    static func decisionText(_ raw: String) -> String {
        switch raw {
        case ApprovalDecision.allowOnce.rawValue: return "allowed once"
        case ApprovalDecision.alwaysAllow.rawValue: return "always allowed in this thread"
        case ApprovalDecision.deny.rawValue: return "denied"
        default: return oneLine(raw)
        }
    }

    static func sourceText(_ raw: String) -> String {
        switch raw {
        case "person": return "by you"
        case "person_edited": return "by you, after editing the call"
        case "thread_grant": return "(you allowed this tool for the thread)"
        default: return "(\(oneLine(raw)))"
        }
    }

    static func oneLine(_ s: String) -> String { clean(Terminal.sanitize(s, keepNewlines: false)) }

    // MARK: - JSON

    static func json(_ t: ThreadSummary, _ messages: [StoredMessage], _ activity: (StoredMessage, ToolCall) -> Activity,
                     _ zone: TimeZone, untrusted: [UntrustedReadRecord] = []) -> String {
        var items: [JSONValue] = []
        for m in messages {
            var o: [String: JSONValue] = ["seq": .number(Double(m.seq)), "role": .string(m.message.role.rawValue),
                                          "at": .string(SearchViews.isoTime(m.createdAt, zone))]
            if m.state != .complete { o["state"] = .string(m.state.rawValue) }
            // Pulled by sync: written on another machine, not typed on this one.
            if m.pulled { o["from_another_machine"] = .bool(true) }
            let text = m.message.parts.compactMap { if case .text(let s) = $0 { return s } else { return nil } }.joined()
            if !text.isEmpty { o["text"] = .string(clean(text)) }
            var calls: [JSONValue] = []
            var results: [JSONValue] = []
            for part in m.message.parts {
                switch part {
                case .toolCall(let c):
                    let a = activity(m, c)
                    var call: [String: JSONValue] = ["id": .string(c.id), "name": .string(c.name),
                                                     "arguments": (try? JSONValue.parse(clean(c.arguments))) ?? .string(clean(c.arguments))]
                    if let r = a.record {
                        call["status"] = .string(r.status.rawValue)
                        if let s = r.summary { call["summary"] = .string(clean(s)) }
                    }
                    if !a.approvals.isEmpty {
                        call["approvals"] = .array(a.approvals.map { d in
                            var o: [String: JSONValue] = ["decision": .string(d.decision), "source": .string(d.source)]
                            if let rule = d.rule { o["rule"] = .string(clean(rule)) }
                            if !d.untrusted.isEmpty {
                                o["untrusted"] = .array(d.untrusted.map { ["kind": .string($0.kind.rawValue), "label": .string(clean($0.label))] })
                            }
                            if let s = d.standingNotUsed { o["standing_approval_not_used"] = .string(clean(s)) }
                            return .object(o)
                        })
                    }
                    calls.append(.object(call))
                case .toolResult(let r):
                    results.append(["call_id": .string(r.callID), "name": .string(r.name), "is_error": .bool(r.isError),
                                    "content": (try? JSONValue.parse(clean(r.content))) ?? .string(clean(r.content))])
                case .text, .continuation:
                    break  // provider continuation data stays in ofj
                }
            }
            if !calls.isEmpty { o["tool_calls"] = .array(calls) }
            if !m.message.attachments.isEmpty {
                // `here: false`: metadata synced from another machine; the bytes are not on this one.
                o["attachments"] = .array(m.message.attachments.map { a in
                    ["id": .string(a.id), "name": .string(clean(a.name)), "type": .string(a.format.mediaType),
                     "bytes": .number(Double(a.byteCount)), "here": .bool(a.absence == nil)]
                })
            }
            if !results.isEmpty { o["tool_results"] = .array(results) }
            items.append(.object(o))
        }
        var thread: [String: JSONValue] = ["id": .string(t.id), "title": .string(clean(t.title)),
                                           "created_at": .string(SearchViews.isoTime(t.createdAt, zone)),
                                           "updated_at": .string(SearchViews.isoTime(t.updatedAt, zone))]
        if let p = t.provider { thread["provider"] = .string(p) }
        if let m = t.model { thread["model"] = .string(m) }
        var doc: [String: JSONValue] = ["format": "ofj-thread", "version": 1, "thread": .object(thread), "messages": .array(items),
                                        "note": .string(JournalViews.medicalNote)]
        if !untrusted.isEmpty {
            doc["untrusted_content"] = .array(untrusted.map { r in
                // No times: a pulled message's read is stamped by the database's clock, not the run's.
                ["kind": .string(r.read.kind.rawValue), "label": .string(clean(r.read.label)), "stands": .bool(r.clearedAt == nil)]
            })
        }
        return TerminalText.escapingJSON(PrettyJSON.format(.object(doc)))
    }
}
