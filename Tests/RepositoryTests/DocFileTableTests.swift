// Every source file of a documented module is listed in its doc's file table, and every file a
// table names exists: the tables are the map a newcomer reads before opening a file.
import Foundation
import Testing
import TestSupport

/// Which doc's file table lists which module's files. A module with a doc of its own belongs here.
let moduleDocs: [(module: String, doc: String)] = [
    ("Agent", "docs/AGENT.md"),
    ("MCP", "docs/MCP.md"),
    ("Journal", "docs/JOURNAL.md"),
    ("Nutrition", "docs/JOURNAL.md"),
    ("Sync", "docs/SYNC.md"),
    ("Diagnostics", "docs/DIAGNOSTICS.md"),
    ("PackagedFoods", "docs/PACKAGED.md"),
    ("Providers", "docs/PROVIDERS.md"),
    ("Research", "docs/RESEARCH.md"),
    ("Transcripts", "docs/TRANSCRIPTS.md"),
]

/// The backticked `….swift` names in a Markdown file's table rows (lines starting with "|").
func fileTableNames(_ markdown: String) -> Set<String> {
    var names = Set<String>()
    for line in markdown.split(separator: "\n") where line.hasPrefix("|") {
        let pieces = line.split(separator: "`", omittingEmptySubsequences: false)
        for (index, piece) in pieces.enumerated() where index % 2 == 1 && piece.hasSuffix(".swift") {
            names.insert(String(piece))
        }
    }
    return names
}

@Suite struct DocFileTableTests {
    @Test(arguments: moduleDocs.map(\.module))
    func everySourceFileOfTheModuleIsInItsDocsFileTable(module: String) throws {
        let doc = try #require(moduleDocs.first { $0.module == module }).doc
        let names = fileTableNames(try repositoryText(doc))
        let files = try sourceFiles(of: module)
        #expect(!files.isEmpty)
        let missing = files.filter { !names.contains($0) && !names.contains("Sources/\(module)/\($0)") }
        #expect(missing.isEmpty, "\(doc)'s file table does not list \(missing.joined(separator: ", ")) of Sources/\(module)")
    }

    @Test(arguments: Set(moduleDocs.map(\.doc)).sorted())
    func everyFileATableNamesExists(doc: String) throws {
        let modules = moduleDocs.filter { $0.doc == doc }.map(\.module)
        let names = fileTableNames(try repositoryText(doc))
        #expect(!names.isEmpty, "\(doc) has no file table")
        let root = OfjBinary.repositoryRoot
        let stale = names.filter { name in
            let candidates = [root + "/" + name] + modules.map { root + "/Sources/\($0)/" + name }
            return !candidates.contains { FileManager.default.fileExists(atPath: $0) }
        }
        #expect(stale.isEmpty, "\(doc)'s file table names files that do not exist: \(stale.sorted().joined(separator: ", "))")
    }

    @Test func theTableReaderFindsBacktickedFilesInTableRowsOnly() {
        let markdown = """
            Prose naming `Prose.swift` is not a table.
            | File | What it is |
            | --- | --- |
            | `A.swift`, `Sub/B.swift` | two files; `notafile` is not one |
            """
        #expect(fileTableNames(markdown) == ["A.swift", "Sub/B.swift"])
    }
}
