// Locates and loads the shared provider recordings (../shared/fixtures/providers beside the repository).
import Foundation

public enum ProviderFixtures {
    /// The fixtures folder: `shared/` is a sibling of the repository root in CI and in /work/main;
    /// helper worktrees sit one level deeper, so the nearest ancestor holding
    /// `shared/fixtures/providers` wins. `filePath` is the caller's `#filePath`.
    public static func directory(filePath: String = #filePath) -> URL? {
        var dir = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        while dir.path != "/" && !dir.path.isEmpty {
            let candidate = dir.appendingPathComponent("shared/fixtures/providers")
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDir), isDir.boolValue { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    public struct MissingFixture: Error, CustomStringConvertible {
        public var name: String
        public var description: String { "provider fixture not found: \(name) (expected ../shared/fixtures/providers beside the repository)" }
    }

    /// Raw bytes of a fixture file, e.g. "gemini/vercel__google-text.chunks.txt".
    public static func bytes(_ name: String, filePath: String = #filePath) throws -> [UInt8] {
        guard let dir = directory(filePath: filePath) else { throw MissingFixture(name: name) }
        return [UInt8](try Data(contentsOf: dir.appendingPathComponent(name)))
    }

    /// One recorded interaction of a cassette (.cassette.json).
    public struct Interaction: Sendable {
        public var url: String
        public var requestBody: String
        public var responseBody: String
        public var status: Int
    }

    public static func cassette(_ name: String, filePath: String = #filePath) throws -> [Interaction] {
        let data = Data(try bytes(name, filePath: filePath))
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let interactions = json["interactions"] as? [[String: Any]] else { throw MissingFixture(name: name) }
        return interactions.map { it in
            let request = it["request"] as? [String: Any] ?? [:]
            let response = it["response"] as? [String: Any] ?? [:]
            return Interaction(url: request["url"] as? String ?? "", requestBody: request["body"] as? String ?? "",
                               responseBody: response["body"] as? String ?? "", status: response["status"] as? Int ?? 200)
        }
    }

    /// A `.chunks.txt` file (one JSON payload per line, framing stripped) re-framed as SSE.
    /// `named` adds `event:` lines from each payload's "type" (Responses, Anthropic).
    public static func chunksAsSSE(_ name: String, named: Bool = false, filePath: String = #filePath) throws -> String {
        let text = String(decoding: try bytes(name, filePath: filePath), as: UTF8.self)
        var out = ""
        for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            if named, let data = line.data(using: .utf8),
               let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let type = obj["type"] as? String {
                out += "event: \(type)\n"
            }
            out += "data: \(line)\n\n"
        }
        return out
    }
}
