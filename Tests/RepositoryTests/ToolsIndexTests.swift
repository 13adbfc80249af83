// tools/README.md names every script and folder in tools/, so none is found only by listing the folder.
import Foundation
import Testing
import TestSupport

@Suite struct ToolsIndexTests {
    @Test func everyEntryOfToolsIsInToolsReadme() throws {
        let readme = try repositoryText("tools/README.md")
        let entries = try FileManager.default.contentsOfDirectory(atPath: OfjBinary.repositoryRoot + "/tools")
            .filter { $0 != "README.md" && !$0.hasPrefix(".") && $0 != "__pycache__" }
        #expect(entries.count > 10)
        let missing = entries.filter { entry in
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: OfjBinary.repositoryRoot + "/tools/" + entry, isDirectory: &isDirectory)
            return !readme.contains("`\(entry)\(isDirectory.boolValue ? "/" : "")")
        }
        #expect(missing.isEmpty, "tools/README.md does not list \(missing.sorted().joined(separator: ", "))")
    }
}
