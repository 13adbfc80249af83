// `ofj status`: one line for tmux, starship, a shell prompt or Claude Code's status line. Read-only,
// no network, and it never waits: a journal that is busy (or missing its tables) shows "?" fields.
import CommandLineKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Journal
import SQLiteKit
import Views

extension OfjCommands {
    static func status(_ ctx: CLIContext) -> CommandSpec {
        let fields = StatusLine.fields.map { "  {\($0.name)}  \($0.meaning)" }.joined(separator: "\n")
        return CommandSpec("status", summary: "one line for a prompt or status bar: today's energy and protein against goals, time since the last entry",
                           details: "Reads the journal only, never the network, and never waits for a lock: when the journal is busy\n"
                               + "every field shows \"?\". Claude Code's status-line JSON on stdin is read and ignored.\n"
                               + "Fields ({{ and }} are literal braces):\n" + fields,
                           options: [.value("--format", "TEXT", .text, "the line, with fields in braces (default: \(StatusLine.defaultFormat))")],
                           access: .read,
                           action: .sync { inv in try StatusCommand.run(inv, ctx) })
    }
}

enum StatusCommand {
    static func run(_ inv: CommandInvocation, _ ctx: CLIContext) throws -> Int32 {
        let pieces: [StatusLine.Piece]
        do { pieces = try StatusLine.parse(inv.arguments.value("--format") ?? StatusLine.defaultFormat) } catch let e as StatusLine.FormatError {
            throw CLIError(e.description, status: 2)
        }
        drainStandardInput()
        let now = Date()
        writeOut(StatusLine.render(pieces, figures: figures(path: ctx.paths.databasePath, now: now), now: now))
        return 0
    }

    /// Today's figures, or nil when the journal cannot be read at once. No file is created: with
    /// no journal yet, nothing is logged (the goals are the defaults).
    static func figures(path: String, now: Date) -> StatusFigures? {
        guard FileManager.default.fileExists(atPath: path) else { return StatusFigures() }
        // No busy timeout: a lock held by a writer answers SQLITE_BUSY at once instead of waiting.
        let queue: DatabaseQueue
        do { queue = try DatabaseQueue(path: path, options: Database.Options(readOnly: true, busyTimeoutMilliseconds: 0)) } catch let e as DatabaseError
            where e.code == 8 /* SQLITE_READONLY */ || e.code == 14 /* SQLITE_CANTOPEN */ {
            // A WAL database in a folder this user cannot write: read the file as it is. (Never
            // for a busy one: an immutable open ignores locks and could read a half-written file.)
            guard let q = try? DatabaseQueue(path: path, options: Database.Options(readOnly: true, busyTimeoutMilliseconds: 0, immutable: true)) else {
                return nil
            }
            queue = q
        } catch {
            return nil
        }
        let journal = JournalStore(queue: queue, timeZone: .current)
        return try? queue.read { db in try journal.statusFigures(on: journal.today(), now: now, in: db) }
    }

    /// Claude Code pipes a JSON object describing its session; nothing in it is needed, but it is
    /// read so the writer never meets a full pipe. Waits at most 10 ms for it to start and 10 ms
    /// between pieces, reads at most 1 MiB; a terminal or an idle pipe is left alone.
    static func drainStandardInput() {
        guard isatty(STDIN_FILENO) == 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var total = 0
        while total < 1 << 20 {
            var fds = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            let ready = poll(&fds, 1, 10)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return }
            let n = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            total += n
        }
    }
}
