// Starts the interactive assistant, `ask`, `replay`, `diag` and `doctor`.
import Agent
import Foundation
import Journal
import REPL

struct Launcher {
    let arguments: [String]
    let environment: [String: String]
    let paths: AppPaths
    let version: String

    func run() async -> Int32 {
        FileHandle.standardError.write(Data("ofj: unknown command '\(arguments.first ?? "")' (see ofj --help)\n".utf8))
        return 2
    }
}
