// Start-up health check of the database file: `PRAGMA quick_check` after an unclean exit or when
// the file changed while no ofj had it open; a damaged file is opened for reading only.
import Agent
import Foundation
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

    static func read(_ databasePath: String) -> State? {
        guard let text = try? String(contentsOfFile: statePath(databasePath), encoding: .utf8) else { return nil }
        return State(text: text)
    }

    /// Writes the sidecar (mode 0600). Losing it only costs a check at the next start, so a
    /// failure here is not an error.
    static func write(_ state: State, _ databasePath: String) {
        let path = statePath(databasePath)
        let tmp = path + ".tmp\(getpid())"
        guard FileManager.default.createFile(atPath: tmp, contents: Data(state.text.utf8), attributes: [.posixPermissions: 0o600]) else { return }
        if rename(tmp, path) != 0 { unlink(tmp) }
    }

    /// Whether the file must be checked before use: it has content, and either no sidecar, a
    /// recorded damage, an ofj that died with it open, or (no ofj has it open) it changed since the
    /// last one left.
    static func needsCheck(_ databasePath: String, isAlive: (String) -> Bool = RunOwner.isAlive) -> Bool {
        guard let now = stamp(databasePath), now.size > 0 else { return false }
        guard let state = read(databasePath) else { return true }
        if state.damaged { return true }
        let live = state.owners.filter(isAlive)
        if live.count < state.owners.count { return true } // an ofj exited without closing it
        if !live.isEmpty { return false } // another ofj has it open and checked it when it started
        return state.clean != now
    }

    /// Records this process as having the file open (dropping owners that are gone).
    static func opened(_ databasePath: String, queue: DatabaseQueue, damaged: Bool) {
        var state = read(databasePath) ?? State()
        state.owners = state.owners.filter(RunOwner.isAlive).filter { $0 != RunOwner.current } + [RunOwner.current]
        state.damaged = damaged
        write(state, databasePath)
        registerExitHook(databasePath, queue: queue)
    }

    /// A normal exit: this process no longer has the file open; the last one out records the
    /// file's size and time, so the next start can skip the check when nothing touched it.
    /// Damage SQLite met while running (the queue then refused writes) is recorded, so the next
    /// start checks the file instead of trusting the stamp.
    static func closed(_ databasePath: String) {
        var state = read(databasePath) ?? State()
        if damageSeen.load(ordering: .relaxed) { state.damaged = true }
        state.owners = state.owners.filter { $0 != RunOwner.current && RunOwner.isAlive($0) }
        if state.owners.isEmpty && !state.damaged { state.clean = stamp(databasePath) }
        write(state, databasePath)
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
            return ("database: not checked: \(e)", false)
        } catch let e as DatabaseError {
            return ("database: DAMAGED, cannot be opened (\(e.message)): move it aside and import your latest backup", true)
        } catch {
            return ("database: not checked (\(error))", false)
        }
        guard let damage = check(queue) else { return ("database: ok (quick_check)", false) }
        var state = read(databasePath) ?? State()
        state.damaged = true
        write(state, databasePath)
        return ("database: DAMAGED (\(damage)): \(DatabaseError.damagedLine)", true)
    }

    // MARK: - Exit

    nonisolated(unsafe) private static var exitPath: String?
    private static let damageSeen = Atomic<Bool>(false)

    private static func registerExitHook(_ databasePath: String, queue: DatabaseQueue) {
        queue.onDamage { _ in DatabaseHealth.damageSeen.store(true, ordering: .relaxed) }
        guard exitPath == nil else { return }
        exitPath = databasePath
        atexit {
            if let path = DatabaseHealth.exitPath { DatabaseHealth.closed(path) }
        }
    }
}
