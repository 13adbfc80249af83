// `ofj replay FILE… [--update]`: runs transcripts and reports differences.
import Agent
import Diagnostics
import Foundation
import Journal
import REPL
import SQLiteKit
import Transcripts

struct ReplayCommand {
    let version: String

    @MainActor
    func run(_ args: [String]) async -> Int32 {
        let p: ParsedArguments
        do { p = try ArgumentSpec(flags: ["--update", "--quiet"]).parse(args) } catch {
            FileHandle.standardError.write(Data("ofj: \(error)\n".utf8))
            return 2
        }
        guard !p.positionals.isEmpty else {
            FileHandle.standardError.write(Data("ofj: usage: ofj replay FILE… [--update]\n".utf8))
            return 2
        }
        let environment = ReplayEnvironment(
            makeTools: { Toolbox.registry(journal: $0) },
            systemPrompt: { Toolbox.systemPrompt(journal: $0) },
            registerMigrations: { m in
                JournalStore.registerMigrations(into: &m)
                ConversationStore.registerMigrations(into: &m)
                DiagnosticsOutbox.registerMigrations(into: &m)
            },
            makeModel: { provider, now, timeZone in
                provider == "offline" ? Toolbox.offlineAssistant(now: now, timeZone: timeZone) : nil
            },
            version: version)
        var failed = 0
        var passed = 0
        for path in p.positionals {
            guard let data = FileManager.default.contents(atPath: path) else {
                print("FAIL \(path): cannot read the file")
                failed += 1
                continue
            }
            let file: TranscriptFile
            do { file = try TranscriptFile.parse(String(decoding: data, as: UTF8.self), path: path) } catch {
                print("FAIL \(error)")
                failed += 1
                continue
            }
            let dir = NSTemporaryDirectory() + "ofj-replay-" + UUID().uuidString
            try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let result = await Replayer(file: file, environment: environment, directory: dir).run()
            if p.has("--update") {
                do { try Data(result.updatedText.utf8).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
                    print("FAIL \(path): cannot write: \(error)")
                }
                print("updated \(path)")
                passed += 1
            } else if result.passed {
                if !p.has("--quiet") { print("ok   \(path)") }
                passed += 1
            } else {
                print("FAIL \(path)\n\(result.report)")
                failed += 1
            }
        }
        print("transcripts: \(passed) passed, \(failed) failed")
        return failed == 0 ? 0 : 1
    }
}
