// Where ofj keeps its files: the one resolver of every path (XDG base directories, OFJ_HOME
// override). An XDG_* variable that is not an absolute path is ignored, as the XDG Base Directory
// specification says; config.json and the credentials file share the config folder.
import Foundation

public struct AppPaths: Sendable {
    public let dataDirectory: String
    public let configDirectory: String
    public let stateDirectory: String

    public init(environment: [String: String]) {
        let home = environment["HOME"] ?? NSHomeDirectory()
        func xdg(_ name: String, _ fallback: String) -> String {
            if let v = environment[name], v.hasPrefix("/") { return v }
            return home + "/" + fallback
        }
        if let ofjHome = environment["OFJ_HOME"], !ofjHome.isEmpty {
            dataDirectory = ofjHome
        } else {
            dataDirectory = xdg("XDG_DATA_HOME", ".local/share") + "/ofj"
        }
        configDirectory = xdg("XDG_CONFIG_HOME", ".config") + "/ofj"
        stateDirectory = xdg("XDG_STATE_HOME", ".local/state") + "/ofj"
    }

    public var databasePath: String { dataDirectory + "/ofj.sqlite" }
    public var configPath: String { configDirectory + "/config.json" }
    /// KEY=VALUE lines, mode 0600 only (Providers' CredentialsFile reads it).
    public var credentialsPath: String { configDirectory + "/credentials" }
    public var historyPath: String { stateDirectory + "/history" }

    /// Creates the data directory (mode 0700: it holds health data).
    public func ensureDataDirectory() throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: dataDirectory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw DataFolderError(description: "the data folder \(dataDirectory) is a file; set OFJ_HOME to a folder")
            }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw DataFolderError(description: "cannot create the data folder \(dataDirectory); set OFJ_HOME to a folder you can write")
        }
    }
}

/// The data folder cannot be used; the message says what to change.
public struct DataFolderError: Error, CustomStringConvertible, Sendable {
    public let description: String
}
