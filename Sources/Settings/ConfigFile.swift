// config.json, read and written in one place: the file's JSON as each section's owner reads it,
// and whole-file writes (0600, a temporary file renamed over it) that keep the other sections.
// The sections' meaning stays with their modules: approvals (Agent), meals (ofj), providers,
// model, policy and research (Providers), sync (Sync).
import Base
import Foundation
import OutputSafety

public struct ConfigFile: Sendable {
    public let path: String

    public init(path: String) { self.path = path }
    public init(_ paths: AppPaths) { self.path = paths.configPath }

    /// The file's text; nil when there is no file (or it cannot be read).
    public func text() -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The file's JSON; nil when there is no file. Throws when the text is not JSON.
    public func document() throws(ConfigFileError) -> JSONValue? {
        guard let text = text() else { return nil }
        do { return try JSONValue.parse(text) } catch { throw .invalidJSON(String(describing: error)) }
    }

    /// The file's top-level object for changing one section: empty when there is no file; throws
    /// when the file is not JSON or not an object (nothing should then be written over it).
    public func object() throws(ConfigFileError) -> [String: JSONValue] {
        guard let document = try document() else { return [:] }
        guard let object = document.objectValue else { throw .notAnObject }
        return object
    }

    /// Writes the whole file at once, 0600 whatever the umask, creating its folder. Objects inside
    /// arrays (approval rules) stay one line each, as people write them.
    public func write(_ root: [String: JSONValue]) throws(ConfigFileError) {
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try PrivateFile.write(Array(PrettyJSON.format(JSONValue.object(root), oneLineObjectsInArrays: true).utf8), to: path, overwrite: true)
        } catch {
            throw .cannotWrite(String(describing: error))
        }
    }
}

/// Why config.json could not be read or written; the owner of a section words it for the person.
public enum ConfigFileError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidJSON(String)
    case notAnObject
    case cannotWrite(String)

    public var description: String {
        switch self {
        case .invalidJSON(let reason): return "config.json is not valid JSON (\(reason))"
        case .notAnObject: return "config.json must be a JSON object"
        case .cannotWrite(let reason): return "cannot write config.json (\(reason)); check the folder's permissions"
        }
    }
}
