// Which process runs a run, so that start-up recovery only suspends runs whose process is gone.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Identifies the process that owns an active run: "pid:start" where start is the process's
/// start time from /proc (so a recycled pid is not mistaken for the owner). Stored in
/// `agent_runs.owner` when a run is queued.
public enum RunOwner {
    /// This process.
    public static let current: String = identity(pid: getpid()) ?? "\(getpid()):0"

    /// "pid:start" of a live process, nil when it does not exist (or is a zombie).
    static func identity(pid: Int32) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // After "pid (comm)": state is field 3, starttime field 22.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19 else { return nil }
        if fields[0] == "Z" || fields[0] == "X" { return nil }
        return "\(pid):\(fields[19])"
    }

    /// Whether the process that wrote `owner` still runs. A malformed owner counts as gone.
    public static func isAlive(_ owner: String) -> Bool {
        guard let pid = owner.split(separator: ":").first.flatMap({ Int32($0) }), pid > 0 else { return false }
        if let id = identity(pid: pid) { return id == owner }
        // No /proc entry: fall back to asking the kernel whether the pid exists at all.
        if FileManager.default.fileExists(atPath: "/proc/self/stat") { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// Whether a run with this owner was abandoned: no owner recorded (older rows), a process
    /// that is gone, or — when `includingThisProcess` — this very process (a run that is not the
    /// current runner's, i.e. one left by a simulated restart in tests and replay).
    static func isOrphaned(_ owner: String?, includingThisProcess: Bool) -> Bool {
        guard let owner else { return true }
        if owner == current { return includingThisProcess }
        return !isAlive(owner)
    }
}
