// `ofj diag status|flush|export` as library functions: they return text and an exit code, never print.
import Foundation
import Hrana
import OutputSafety

/// The output of one diag command; the CLI prints `stdout`/`stderr` and exits with `exitCode`.
public struct CommandOutput: Sendable, Hashable {
    public var exitCode: Int32
    public var stdout: String
    public var stderr: String
    public init(exitCode: Int32 = 0, stdout: String = "", stderr: String = "") {
        self.exitCode = exitCode
        self.stdout = stdout
        self.stderr = stderr
    }
    static func failure(_ message: String, code: Int32 = 1) -> CommandOutput {
        CommandOutput(exitCode: code, stderr: "ofj: " + message + "\n")
    }
}

/// `diag status`, `diag flush`, `diag export`. `flusher` is nil when TURSO_DATABASE_URL is not set.
public struct DiagnosticsCommands: Sendable {
    public let outbox: DiagnosticsOutbox
    public let flusher: DiagnosticsFlusher?
    /// Set when TURSO_DATABASE_URL is present but unusable (shown by `status`).
    public let configurationProblem: String?
    let now: @Sendable () -> Double

    public init(outbox: DiagnosticsOutbox, flusher: DiagnosticsFlusher?, configurationProblem: String? = nil,
                now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.outbox = outbox
        self.flusher = flusher
        self.configurationProblem = configurationProblem
        self.now = now
    }

    public static let usage = "usage: ofj diag status | flush | export [--since 14d | --local] [-o FILE] [--force]"

    /// Parses and runs `diag` arguments (the words after `diag`).
    public func run(_ arguments: [String]) async -> CommandOutput {
        guard let command = arguments.first else { return .failure(Self.usage, code: 2) }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "status":
            guard rest.isEmpty else { return .failure(Self.usage, code: 2) }
            return status()
        case "flush":
            guard rest.isEmpty else { return .failure(Self.usage, code: 2) }
            return await flush()
        case "export":
            var since: String?
            var output: String?
            var force = false
            var i = 0
            while i < rest.count {
                switch rest[i] {
                case "--since" where i + 1 < rest.count: since = rest[i + 1]; i += 2
                case "-o", "--output":
                    guard i + 1 < rest.count else { return .failure(Self.usage, code: 2) }
                    output = rest[i + 1]; i += 2
                case "--force": force = true; i += 1
                default:
                    if rest[i].hasPrefix("--since=") { since = String(rest[i].dropFirst("--since=".count)); i += 1 }
                    else { return .failure("unknown option \(Redactor.redact(rest[i])) for diag export; \(Self.usage)", code: 2) }
                }
            }
            var seconds = TursoSink.retention
            if let since {
                guard let parsed = Self.parseDuration(since) else {
                    return .failure("--since takes a duration like 14d, 48h or 30m", code: 2)
                }
                seconds = parsed
            }
            return await export(since: seconds, to: output, overwrite: force)
        default:
            return .failure(Self.usage, code: 2)
        }
    }

    /// "14d", "48h", "30m", "90s", "2w" → seconds.
    public static func parseDuration(_ text: String) -> Double? {
        guard let unit = text.last, let value = Double(text.dropLast()), value.isFinite, value >= 0 else { return nil }
        switch unit {
        case "s": return value
        case "m": return value * 60
        case "h": return value * 3600
        case "d": return value * 86_400
        case "w": return value * 7 * 86_400
        default: return nil
        }
    }

    // MARK: - status

    public func status() -> CommandOutput {
        let s: DiagnosticsOutbox.Status
        do { s = try outbox.status() } catch {
            return .failure("could not read the diagnostics outbox (\(Redactor.redact(String(describing: error)))); run `ofj doctor`")
        }
        var lines: [String] = []
        if let flusher {
            lines.append("diagnostics: configured (\(flusher.sink.client.configuration.hasToken ? "with token" : "no token"))")
        } else if let configurationProblem {
            lines.append("diagnostics: misconfigured: \(configurationProblem); events stay local")
        } else {
            lines.append("diagnostics: not configured (set TURSO_DATABASE_URL and TURSO_AUTH_TOKEN to deliver); events stay local")
        }
        lines.append("pending: \(s.pending) (\(s.pendingBytes) bytes)")
        lines.append("delivered: \(s.delivered)")
        lines.append("dropped: \(s.dropped)")
        if s.unconfirmed > 0 {
            lines.append("unconfirmed: \(s.unconfirmed) (sent, then removed by the outbox bound before an answer; checked with the sink on the next delivery)")
        }
        lines.append("last success: \(s.lastSuccessAt.map(ISOTime.format) ?? "never")")
        if let error = s.lastError {
            lines.append("last error: \(TerminalText.sanitize(error, keepNewlines: false))\(s.lastErrorAt.map { " (at \(ISOTime.format($0)))" } ?? "")")
        } else {
            lines.append("last error: none")
        }
        return CommandOutput(stdout: lines.joined(separator: "\n") + "\n")
    }

    // MARK: - flush

    public func flush() async -> CommandOutput {
        guard let flusher else {
            return .failure("diagnostics are not configured; set TURSO_DATABASE_URL (and TURSO_AUTH_TOKEN) to deliver them")
        }
        let report = await flusher.flush()
        if let error = report.error {
            return CommandOutput(exitCode: 1, stdout: "delivered \(report.delivered), pending \(report.remaining)\n",
                                 stderr: "ofj: \(TerminalText.sanitize(error, keepNewlines: false))\n")
        }
        return CommandOutput(stdout: "delivered \(report.delivered), pending \(report.remaining)\n")
    }

    // MARK: - export

    /// Most events one export holds, and most bytes of CSV: a sink that keeps answering must not
    /// fill the memory or the disk.
    public static let exportRowLimit = 100_000
    public static let exportByteLimit = 64 << 20

    /// Flushes, then writes the remote events of the last `since` seconds as CSV: to `path`
    /// (atomically, refusing to replace an existing file unless `overwrite`) or to stdout.
    /// Stops at `maxRows` events or `maxBytes` of CSV (saying so), and when a page does not move
    /// past the previous one (a sink that ignores the paging cursor would repeat it forever).
    public func export(since: Double = TursoSink.retention, to path: String?, overwrite: Bool = false, pageSize: Int = 500,
                       maxRows: Int = DiagnosticsCommands.exportRowLimit, maxBytes: Int = DiagnosticsCommands.exportByteLimit) async -> CommandOutput {
        guard let flusher else {
            return .failure("diagnostics are not configured; set TURSO_DATABASE_URL (and TURSO_AUTH_TOKEN) to export them")
        }
        if let path, !overwrite, FileManager.default.fileExists(atPath: path) {
            return .failure("\(path) already exists; choose another file or pass --force to replace it")
        }
        var notes = ""
        let report = await flusher.flush()
        if let error = report.error {
            notes += "ofj: warning: flush failed, exporting what the sink has (\(TerminalText.sanitize(error, keepNewlines: false)))\n"
        }
        var csv = CSV.line(TursoSink.exportColumns)
        var count = 0
        var cursor: (occurredAt: String, id: String)?
        let cutoff = now() - since
        var brokenPaging = false
        do {
            paging: while true {
                let page = try await flusher.sink.page(since: cutoff, after: cursor, limit: pageSize)
                let occurredIndex = page.columns.firstIndex(of: "occurred_at"), idIndex = page.columns.firstIndex(of: "id")
                func key(_ row: [HranaValue]) -> (String, String)? {
                    guard let occurredIndex, let idIndex, row.count > max(occurredIndex, idIndex),
                          let occurred = row[occurredIndex].text, let id = row[idIndex].text else { return nil }
                    return (occurred, id)
                }
                for row in page.rows {
                    // Every row must come after the cursor: one that does not is a page repeated.
                    if let cursor, let k = key(row), !(k > cursor) {
                        brokenPaging = true
                        break paging
                    }
                    if count >= maxRows {
                        notes += "ofj: warning: export stopped at \(count) events, the most one export holds; use --since for a shorter span\n"
                        break paging
                    }
                    let line = CSV.line(row.map(CSV.cell))
                    if csv.utf8.count + line.utf8.count > maxBytes {
                        notes += "ofj: warning: export stopped at \(count) events (\(maxBytes >= 1 << 20 ? "\(maxBytes >> 20) MB" : "\(maxBytes) bytes") of CSV, the most one export holds); use --since for a shorter span\n"
                        break paging
                    }
                    csv += line
                    count += 1
                }
                guard page.rows.count == pageSize, let last = page.rows.last, let next = key(last) else { break }
                cursor = next
            }
        } catch {
            return .failure("export failed: \(TerminalText.sanitize(Redactor.redact(DiagnosticsFlusher.describe(error)), keepNewlines: false))")
        }
        if brokenPaging {
            // Nothing is written: an export that may hold repeated rows is not one to keep.
            return .failure("export failed: the diagnostics sink sent the same events again instead of the next page (it ignores the paging cursor); check the TURSO_DATABASE_URL server")
        }
        guard let path else {
            return CommandOutput(stdout: csv, stderr: notes)
        }
        do {
            try AtomicFile.write(Array(csv.utf8), to: path, overwrite: overwrite)
        } catch {
            return .failure("could not write \(path) (\(error)); check the directory exists and is writable")
        }
        return CommandOutput(stdout: "exported \(count) events to \(path)\n", stderr: notes)
    }
}

extension DiagnosticsCommands {
    /// `diag export --local`: the outbox's pending events as CSV, with the columns and values the
    /// sink would store (no sink needed, nothing sent or changed).
    public func exportLocal(to path: String?, overwrite: Bool = false) -> CommandOutput {
        if let path, !overwrite, FileManager.default.fileExists(atPath: path) {
            return .failure("\(path) already exists; choose another file or pass --force to replace it")
        }
        let events: [DiagnosticEvent]
        do { events = try outbox.allPending() } catch {
            return .failure("could not read the diagnostics outbox (\(Redactor.redact(String(describing: error)))); run `ofj doctor`")
        }
        var csv = CSV.line(TursoSink.exportColumns)
        for event in events { csv += CSV.line(TursoSink.exportRow(event).map(CSV.cell)) }
        guard let path else { return CommandOutput(stdout: csv) }
        do {
            try AtomicFile.write(Array(csv.utf8), to: path, overwrite: overwrite)
        } catch {
            return .failure("could not write \(path) (\(error)); check the directory exists and is writable")
        }
        return CommandOutput(stdout: "exported \(events.count) pending events to \(path)\n")
    }
}

/// RFC 4180 CSV with spreadsheet-formula neutralising for text cells.
enum CSV {
    static func line(_ cells: [String]) -> String {
        cells.map(quote).joined(separator: ",") + "\r\n"
    }

    static func cell(_ value: HranaValue) -> String {
        switch value {
        case .null: return ""
        case .integer(let v): return String(v)
        case .float(let d): return String(d)
        case .text(let text):
            // Sink rows come from outside: no escape sequence or control reaches a terminal that
            // shows the export. A cell starting with = + - @, a tab or CR runs as a formula in
            // spreadsheets.
            let s = TerminalText.sanitize(text, keepNewlines: false)
            let risky = "=+-@\t\r".unicodeScalars
            if let first = text.unicodeScalars.first, risky.contains(first) { return "'" + s }
            if let first = s.unicodeScalars.first, risky.contains(first) { return "'" + s }
            return s
        case .blob(let b): return Data(b).base64EncodedString()
        }
    }

    static func quote(_ cell: String) -> String {
        guard cell.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return cell }
        return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// Writes a file atomically: a temporary file in the same directory, then a rename (or a
/// hard link when the destination must not be replaced, which fails if it appeared meanwhile).
enum AtomicFile {
    struct WriteError: Error, CustomStringConvertible {
        let description: String
    }

    /// Mode 0600 (an export lists what the person did and when); see `PrivateFile.write`.
    static func write(_ bytes: [UInt8], to path: String, overwrite: Bool) throws {
        do {
            try PrivateFile.write(bytes, to: path, overwrite: overwrite)
        } catch let e as PrivateFile.WriteError {
            throw WriteError(description: e.description)
        }
    }
}
