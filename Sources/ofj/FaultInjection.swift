// OFJ_FAULT=<point>: the process kills itself with SIGKILL when a run reaches that point, for the
// crash sweep in tools/crash-sweep.sh. Without the variable no injector exists.
import Agent
import Foundation
#if canImport(Glibc)
import Glibc
#endif

struct KillAtFault: FaultInjector {
    let point: FaultPoint

    /// The injector the environment asks for; a misspelt point is an error, not a silent no-op.
    static func fromEnvironment(_ environment: [String: String]) throws -> KillAtFault? {
        guard let name = environment["OFJ_FAULT"], !name.isEmpty else { return nil }
        guard let point = FaultPoint(rawValue: name) else {
            let names = FaultPoint.allCases.map(\.rawValue).joined(separator: ", ")
            throw CLIError("OFJ_FAULT=\(name) is not a fault point; use one of: \(names)", status: 2)
        }
        return KillAtFault(point: point)
    }

    func reached(_ point: FaultPoint, runID: String) throws {
        guard point == self.point else { return }
        kill(getpid(), SIGKILL)
    }
}
