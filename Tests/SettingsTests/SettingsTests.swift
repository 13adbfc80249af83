// The one resolver of ofj's paths (XDG rules, OFJ_HOME) and config.json read and written whole.
import Base
import Foundation
import Settings
import Testing
import TestSupport

@Suite struct AppPathsTests {
    @Test func absoluteXDGFoldersAreUsedAndTheDatabaseFollowsOFJHome() {
        let paths = AppPaths(environment: ["HOME": "/h", "XDG_DATA_HOME": "/d", "XDG_CONFIG_HOME": "/c", "XDG_STATE_HOME": "/s"])
        #expect(paths.databasePath == "/d/ofj/ofj.sqlite")
        #expect(paths.configPath == "/c/ofj/config.json")
        #expect(paths.credentialsPath == "/c/ofj/credentials")
        #expect(paths.historyPath == "/s/ofj/history")
        let home = AppPaths(environment: ["HOME": "/h", "OFJ_HOME": "/journal", "XDG_DATA_HOME": "/d"])
        #expect(home.databasePath == "/journal/ofj.sqlite")
        #expect(home.configPath == "/h/.config/ofj/config.json")
    }

    /// The XDG Base Directory specification: a relative path in XDG_* is invalid and ignored.
    @Test func relativeOrEmptyXDGFoldersAreIgnored() {
        for value in ["relative/config", "", "./c", "~/c"] {
            let paths = AppPaths(environment: ["HOME": "/h", "XDG_DATA_HOME": value, "XDG_CONFIG_HOME": value, "XDG_STATE_HOME": value])
            #expect(paths.databasePath == "/h/.local/share/ofj/ofj.sqlite", "XDG_DATA_HOME=\(value)")
            #expect(paths.configPath == "/h/.config/ofj/config.json", "XDG_CONFIG_HOME=\(value)")
            #expect(paths.credentialsPath == "/h/.config/ofj/credentials", "XDG_CONFIG_HOME=\(value)")
            #expect(paths.historyPath == "/h/.local/state/ofj/history", "XDG_STATE_HOME=\(value)")
        }
    }
}

@Suite struct ConfigFileTests {
    @Test func aMissingFileIsNoDocumentAndAnEmptyObject() throws {
        let dir = TempDirectory()
        let file = ConfigFile(path: dir.file("ofj/config.json"))
        #expect(file.text() == nil)
        #expect(try file.document() == nil)
        #expect(try file.object().isEmpty)
    }

    @Test func writingOneSectionKeepsTheOthersAndTheFileIsPrivate() throws {
        let dir = TempDirectory()
        let path = dir.file("new-folder/config.json")
        let file = ConfigFile(path: path)
        try file.write(["provider": "gemini", "approvals": ["rules": [["tool": "log_food", "decision": "allow"]]]])
        var root = try file.object()
        root["meals"] = ["breakfast": "06:30"]
        try file.write(root)
        let read = try #require(try file.document())
        #expect(read["provider"]?.stringValue == "gemini")
        #expect(read["meals"]?["breakfast"]?.stringValue == "06:30")
        #expect(read["approvals"]?["rules"]?.arrayValue?.count == 1)
        // A rule stays one line, as people write them.
        #expect(file.text()?.split(separator: "\n").contains { $0.contains("log_food") && $0.contains("allow") } == true)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test func aFileThatIsNotJSONOrNotAnObjectIsAnErrorNotAnEmptyFile() throws {
        let dir = TempDirectory()
        let path = dir.file("config.json")
        try "{broken".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: ConfigFileError.self) { try ConfigFile(path: path).object() }
        do {
            _ = try ConfigFile(path: path).document()
            Issue.record("parsed broken JSON")
        } catch {
            #expect(error.description.hasPrefix("config.json is not valid JSON ("))
        }
        try "[1, 2]".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: ConfigFileError.notAnObject) { try ConfigFile(path: path).object() }
        #expect(try ConfigFile(path: path).document() == [1, 2])
    }
}
