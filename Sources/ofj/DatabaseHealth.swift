// Start-up health check of the database file: `PRAGMA quick_check` after an unclean exit or when
// the file changed while no ofj had it open; a damaged file is opened for reading only.
import Agent
import Foundation
import Journal
import SQLiteKit
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The sidecar `ofj.sqlite.state` next to the database, one fact per line:
/// `open PID:START` for each ofj that has the file open (removed at a normal exit), `clean SIZE
/// MTIME_NS` written by the last one to leave, `damaged` once a check found damage. A process
/// killed with -9 leaves its `open` line behind; a file edited or truncated while no ofj ran no
/// longer matches `clean`. Either way the next start runs `PRAGMA quick_check`. A missing sidecar
/// next to an existing database (older ofj, deleted) also means "check".
enum DatabaseHealth {
    struct State: Equatable {
        var owners: [String] = []
        var clean: Stamp?
        var damaged = false

        init() {}
        init(text: String) {
            for line in text.split(separator: "\n") {
                let f = line.split(separator: " ").map(String.init)
                switch f.first {
                case "open" where f.count == 2: owners.append(f[1])
                case "clean" where f.count == 3: clean = Int64(f[1]).flatMap { size in Int64(f[2]).map { Stamp(size: size, mtime: $0) } }
                case "damaged": damaged = true
                default: break
                }
            }
        }
        var text: String {
            var lines = owners.map { "open \($0)" }
            if let clean { lines.append("clean \(clean.size) \(clean.mtime)") }
            if damaged { lines.append("damaged") }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    struct Stamp: Equatable {
        var size: Int64
        var mtime: Int64
    }

    static func statePath(_ databasePath: String) -> String { databasePath + ".state" }

    /// Size and modification time (ns) of the file, nil when it does not exist.
    static func stamp(_ path: String) -> Stamp? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Stamp(size: Int64(st.st_size), mtime: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))
    }

    /// Reads and (when `body` changes it) rewrites the sidecar under an exclusive `flock`, so two
    /// ofj starting or leaving at once do not lose each other's lines. The sidecar is 0600 and
    /// rewritten in place (a rename would give the next process another inode to lock). Losing it
    /// only costs a check at the next start, so failures here are not errors; nil when it cannot
    /// be opened at all.
    @discardableResult
    static func update<T>(_ databasePath: String, _ body: (inout State?) -> T) -> T? {
        let fd = open(statePath(databasePath), O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        defer { close(fd) } // also releases the flock
        guard flock(fd, LOCK_EX) == 0 else { return nil }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n > 0 { bytes += buffer[0..<n]; continue }
            if n < 0 && errno == EINTR { continue }
            break
        }
        let text = String(decoding: bytes, as: UTF8.self)
        var state: State? = text.isEmpty ? nil : State(text: text)
        let before = state
        let result = body(&state)
        if let state, state != before {
            let out = Array(state.text.utf8)
            if ftruncate(fd, 0) == 0 {
                _ = out.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
            }
        }
        return result
    }

    /// The sidecar as it is (tests, doctor); nil when missing or empty.
    static func read(_ databasePath: String) -> State? {
        guard let text = try? String(contentsOfFile: statePath(databasePath), encoding: .utf8), !text.isEmpty else { return nil }
        return State(text: text)
    }

    /// Whether the file must be checked before use: it has content, and either no sidecar, a
    /// recorded damage, an ofj that died with it open, or (no ofj has it open) it changed since the
    /// last one left.
    static func needsCheck(_ state: State?, file now: Stamp?, isAlive: (String) -> Bool = RunOwner.isAlive) -> Bool {
        guard let now, now.size > 0 else { return false }
        guard let state else { return true }
        if state.damaged { return true }
        let live = state.owners.filter(isAlive)
        if live.count < state.owners.count { return true } // an ofj exited without closing it
        if !live.isEmpty { return false } // another ofj has it open and checked it when it started
        return state.clean != now
    }

    /// Before opening: records this process as having the file open (dropping owners that are
    /// gone) and says whether the file must be checked first.
    static func begin(_ databasePath: String) -> Bool {
        registerExitHook(databasePath)
        let mustCheck = update(databasePath) { state -> Bool in
            let must = needsCheck(state, file: stamp(databasePath))
            var s = state ?? State()
            s.owners = s.owners.filter(RunOwner.isAlive).filter { $0 != RunOwner.current } + [RunOwner.current]
            state = s
            return must
        }
        return mustCheck ?? true
    }

    /// After the check (or after damage was met): records whether the file is damaged, and has
    /// the queue report damage it meets later.
    static func checked(_ databasePath: String, queue: DatabaseQueue, damaged: Bool) {
        queue.onDamage { _ in DatabaseHealth.damageSeen.store(true, ordering: .relaxed) }
        update(databasePath) { state in
            var s = state ?? State()
            s.damaged = damaged
            state = s
        }
    }

    /// A normal exit: this process no longer has the file open; the last one out records the
    /// file's size and time, so the next start can skip the check when nothing touched it.
    /// Damage SQLite met while running (the queue then refused writes) is recorded, so the next
    /// start checks the file instead of trusting the stamp.
    static func closed(_ databasePath: String) {
        update(databasePath) { state in
            var s = state ?? State()
            if damageSeen.load(ordering: .relaxed) { s.damaged = true }
            s.owners = s.owners.filter { $0 != RunOwner.current && RunOwner.isAlive($0) }
            if s.owners.isEmpty && !s.damaged { s.clean = stamp(databasePath) }
            state = s
        }
    }

    /// Runs `PRAGMA quick_check`; nil when healthy, else a short description of the damage.
    static func check(_ queue: DatabaseQueue) -> String? {
        do {
            let lines = try queue.read { try $0.quickCheck() }
            return lines == ["ok"] ? nil : "\(lines.count) problem\(lines.count == 1 ? "" : "s") found by quick_check"
        } catch let e as DatabaseError {
            return "quick_check could not read it (\(e.message))"
        } catch {
            return "quick_check failed"
        }
    }

    /// `ofj doctor` always checks the file (without migrating or writing it) and records damage,
    /// so the next start refuses writes. Returns the line to print and whether it is damaged.
    static func doctorLine(_ databasePath: String) -> (String, Bool) {
        guard let now = stamp(databasePath), now.size > 0 else { return ("database: none yet (created on first use)", false) }
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: databasePath, options: Database.Options(walMode: false))
        } catch let e as DatabaseError where e.isBusy {
            return ("database: not checked, another ofj is writing it (\(e.message)); run ofj doctor again when it is done", false)
        } catch let e as DatabaseError {
            return ("database: DAMAGED, cannot be opened (\(e.message)): move it aside and import your latest backup", true)
        } catch {
            return ("database: not checked (\(error)); check the file and its folder are readable, then run ofj doctor again", false)
        }
        guard let damage = check(queue) else { return ("database: ok (quick_check)", false) }
        update(databasePath) { state in
            var s = state ?? State()
            s.damaged = true
            state = s
        }
        return ("database: DAMAGED (\(damage)): \(DatabaseError.damagedLine)", true)
    }

    /// Journal rows that break the journal's rules (what `ofj day`, `goals`, exports and backups
    /// would fail or trip on), one line each with what to do; empty when there are none or the
    /// journal tables are not there yet. Ids are shown, content never.
    static func journalRowProblems(_ databasePath: String) -> [String] {
        // No file yet: nothing to check, and opening it would create an empty one.
        guard let now = stamp(databasePath), now.size > 0 else { return [] }
        guard let queue = try? DatabaseQueue(path: databasePath, options: Database.Options(walMode: false)) else { return [] }
        let journal = JournalStore(queue: queue)
        guard let (problems, total) = try? queue.read({ db -> ([StoredRowProblem], Int)? in
            guard try db.row("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'journal_entries'") != nil else { return nil }
            return try journal.storedRowProblems(limit: 10, in: db)
        }) ?? nil, total > 0 else { return [] }
        var lines = problems.map { p -> String in
            let id = p.id.count > 60 ? String(p.id.prefix(60)) + "…" : p.id
            let fix: String
            switch p.table {
            case "entry": fix = "ofj entry delete '\(id)' removes it"
            case "food": fix = "fix or delete it with a libSQL/SQLite client, or restore a backup"
            default: fix = p.id == "goals" ? "ofj goals reset replaces it" : "delete it with a libSQL/SQLite client"
            }
            return "journal: \(p.table) \(id) breaks the journal's rules (\(p.reason)), so views and exports may not read it; \(fix)"
        }
        if total > problems.count { lines.append("journal: \(total - problems.count) more rows like these") }
        return lines
    }

    // MARK: - Exit

    nonisolated(unsafe) private static var exitPath: String?
    private static let damageSeen = Atomic<Bool>(false)

    private static func registerExitHook(_ databasePath: String) {
        guard exitPath == nil else { return }
        exitPath = databasePath
        atexit {
            if let path = DatabaseHealth.exitPath { DatabaseHealth.closed(path) }
        }
    }
}
