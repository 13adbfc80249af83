// `ofj sync`, `ofj sync status`, `ofj sync conflicts` and `/sync`: text for the terminal.
import Foundation
import OutputSafety

public enum SyncText {
    /// The one progress/result line of a sync ("pulled": changes from other machines applied here).
    public static func line(_ r: SyncReport) -> String {
        var parts = ["pushed \(r.pushed)", "pulled \(r.applied)"]
        if r.conflicts > 0 { parts.append("\(r.conflicts) conflict\(r.conflicts == 1 ? "" : "s") resolved (ofj sync conflicts)") }
        if r.quarantined > 0 {
            parts.append("\(r.quarantined) remote change\(r.quarantined == 1 ? "" : "s") quarantined (they break the journal's rules; ofj sync quarantine)")
        }
        if r.skipped > 0 { parts.append("\(r.skipped) remote change\(r.skipped == 1 ? "" : "s") skipped (a kind this ofj does not know)") }
        if r.tooLarge > 0 {
            parts.append("\(r.tooLarge) local change\(r.tooLarge == 1 ? "" : "s") too large to send (over 5 MiB; kept here)")
        }
        if let stopped = r.stopped { parts.append(stopped) }
        return "sync: " + parts.joined(separator: ", ")
    }

    public static func time(_ t: Double?) -> String {
        guard let t else { return "never" }
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: Date(timeIntervalSince1970: t))
    }

    /// `ofj sync status`: configuration, last success, pending local changes, remote position, conflicts.
    public static func status(_ s: SyncLocalStatus, configuration: SyncConfiguration?, problem: String?) -> String {
        var lines: [String] = []
        if let problem {
            lines.append("sync: misconfigured — \(problem)")
        } else if let c = configuration {
            // A URL may carry user:password@ or a token in its query: never shown.
            let url = TerminalText.sanitize(URLCredentials.redact(c.turso.baseURL), keepNewlines: false)
            lines.append("sync: \(c.mode == .push ? "push only (mirror)" : "push and pull") with \(url)\(c.threads ? "" : " (threads stay on this machine)")")
        } else {
            lines.append("sync: off (set OFJ_SYNC_URL and OFJ_SYNC_TOKEN, or \"sync\" in config.json)")
        }
        lines.append("last success: \(time(s.lastSuccess))")
        lines.append("pending local changes: \(s.pending)")
        lines.append("remote position: \(s.remotePosition)")
        lines.append("conflicts resolved: \(s.conflicts)\(s.conflicts > 0 ? " (ofj sync conflicts shows them)" : "")")
        if s.quarantined > 0 { lines.append("remote changes quarantined: \(s.quarantined) (they break the journal's rules and were not applied; ofj sync quarantine lists them)") }
        if s.skipped > 0 { lines.append("remote changes skipped: \(s.skipped) (a kind this ofj does not know; a newer ofj may read them)") }
        if let e = s.lastError { lines.append("last error: " + TerminalText.sanitize(e, keepNewlines: false)) }
        lines.append("device: \(s.device)")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `ofj sync conflicts`: the local versions that lost, newest first.
    public static func conflicts(_ list: [SyncConflict]) -> String {
        guard !list.isEmpty else { return "no conflicts: no local edit has been replaced by a newer one from another machine\n" }
        var out = "Local versions replaced by a newer version from another machine (newest first):\n"
        for c in list {
            // Kinds, ids and payloads come from other machines through the remote: one sanitised line each.
            out += TerminalText.sanitize("\(time(c.resolvedAt))  \(c.kind) \(c.recordID)  kept: \(summary(c.localPayload))", keepNewlines: false) + "\n"
        }
        return out
    }

    /// `ofj sync quarantine`: pulled rows kept aside because they break a rule, newest first.
    /// Only kind, id, position, size and reason: never the payload's content.
    public static func quarantine(_ list: [SyncQuarantined]) -> String {
        guard !list.isEmpty else { return "no quarantined changes: every change pulled from other machines passed the journal's rules\n" }
        var out = "Changes from the sync database kept aside, not applied (newest first):\n"
        for q in list {
            let id = q.recordID.count > 60 ? String(q.recordID.prefix(60)) + "…" : q.recordID
            out += TerminalText.sanitize("\(time(q.at))  \(q.kind.isEmpty ? "?" : String(q.kind.prefix(20))) \(id.isEmpty ? "?" : id)  position \(q.position), \(q.payloadBytes) bytes: \(q.reason)",
                                         keepNewlines: false) + "\n"
        }
        out += "They stay here until a valid version of the same record arrives; fix them where they were written (or with any libSQL client) and sync again.\n"
        return out
    }

    /// A short description of a losing payload (name/day/meal or key/value), one line.
    static func summary(_ payload: String?) -> String {
        guard let payload, let data = payload.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return "(deleted here)" }
        var parts: [String] = []
        for key in ["day", "meal", "name", "servings", "key", "title"] {
            if let v = object[key] { parts.append("\(key)=\(v)") }
        }
        return parts.isEmpty ? "(record)" : parts.joined(separator: " ")
    }
}
