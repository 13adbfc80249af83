// Where the journal syncs: OFJ_SYNC_URL / OFJ_SYNC_TOKEN, or `sync` in config.json.
import Base
import Hrana
import Foundation

public struct SyncConfiguration: Sendable, Hashable, CustomStringConvertible {
    public enum Mode: String, Sendable { case sync, push }
    public let turso: TursoConfiguration
    /// `push`: mirror this machine's journal to the database and never pull (the original app's setup).
    public let mode: Mode
    /// Conversation threads sync too (default on).
    public let threads: Bool

    public init(turso: TursoConfiguration, mode: Mode = .sync, threads: Bool = true) {
        self.turso = turso
        self.mode = mode
        self.threads = threads
    }

    public struct Problem: Error, CustomStringConvertible, Sendable { public let description: String }

    /// Environment first (OFJ_SYNC_URL, OFJ_SYNC_TOKEN, OFJ_SYNC_MODE, OFJ_SYNC_THREADS), then the
    /// credentials file for the token and URL, then config.json's `sync` object
    /// (`{"sync": {"url": "libsql://…", "mode": "push", "threads": false}}`). nil when no URL is set.
    public static func resolve(environment: [String: String], credentials: [String: String] = [:],
                               configJSON: String? = nil) throws -> SyncConfiguration? {
        var file: [String: JSONValue] = [:]
        if let configJSON, !configJSON.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            guard let root = (try? JSONValue.parse(configJSON))?.objectValue else {
                throw Problem(description: "config.json is not valid JSON; fix or remove it")
            }
            if let sync = root["sync"] {
                guard let object = sync.objectValue else { throw Problem(description: "config.json: \"sync\" must be an object like {\"url\": \"libsql://…\"}") }
                file = object
            }
        }
        if file["token"] != nil {
            throw Problem(description: "config.json: keep the sync token out of config.json; put OFJ_SYNC_TOKEN in the credentials file or the environment")
        }
        let url = nonEmpty(environment["OFJ_SYNC_URL"]) ?? nonEmpty(credentials["OFJ_SYNC_URL"]) ?? file["url"]?.stringValue
        guard let url = nonEmpty(url) else { return nil }
        let token = nonEmpty(environment["OFJ_SYNC_TOKEN"]) ?? nonEmpty(credentials["OFJ_SYNC_TOKEN"])
        let turso: TursoConfiguration
        do { turso = try TursoConfiguration(databaseURL: url, authToken: token) } catch {
            throw Problem(description: "OFJ_SYNC_URL must start with libsql://, https:// or http://; fix it or unset it")
        }
        let modeText = nonEmpty(environment["OFJ_SYNC_MODE"]) ?? file["mode"]?.stringValue ?? "sync"
        guard let mode = Mode(rawValue: modeText.lowercased()) else {
            throw Problem(description: "sync mode \"\(modeText.prefix(20))\" is not known; use \"sync\" (push and pull) or \"push\" (mirror only)")
        }
        var threads = file["threads"]?.boolValue ?? true
        if let t = nonEmpty(environment["OFJ_SYNC_THREADS"])?.lowercased() {
            switch t {
            case "on", "1", "true", "yes": threads = true
            case "off", "0", "false", "no": threads = false
            default: throw Problem(description: "OFJ_SYNC_THREADS must be on or off")
            }
        }
        return SyncConfiguration(turso: turso, mode: mode, threads: threads)
    }

    static func nonEmpty(_ s: String?) -> String? {
        guard let t = s?.trimmingCharacters(in: .whitespacesAndNewlines), !t.isEmpty else { return nil }
        return t
    }

    /// Never shows the token.
    public var description: String { "\(turso.baseURL) (\(mode.rawValue)\(threads ? ", threads" : ""))" }
}
