// Package.swift declares exactly what each target imports. SwiftPM's
// --explicit-target-dependency-import-check (tools/test) only refuses an import from outside a
// target's dependency closure; this test also refuses one that works only transitively, and a
// declared dependency nothing imports.
import Foundation
import Testing
import TestSupport

/// The package targets a target's Swift files import (`import X`, `@testable import X`, …).
func importedTargets(folder root: String, among targets: Set<String>) throws -> Set<String> {
    guard let walker = FileManager.default.enumerator(atPath: root) else { throw RepositoryError("no folder \(root)") }
    var imported = Set<String>()
    for case let file as String in walker where file.hasSuffix(".swift") {
        let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
            guard words.first == "import", words.count >= 2 else { continue }
            // `import struct Module.Name` names its module after the kind.
            let name = String((words.count >= 3 ? words[2] : words[1]).split(separator: ".")[0])
            if targets.contains(name) { imported.insert(name) }
        }
    }
    return imported
}

/// Where a target's sources are: Tests/<name> for test targets, Sources/<name> otherwise.
func targetFolder(_ name: String, manifest: String) -> String {
    OfjBinary.repositoryRoot + (manifest.contains(".testTarget(name: \"\(name)\"") ? "/Tests/" : "/Sources/") + name
}

@Suite struct ImportTests {
    @Test func everyTargetDeclaresExactlyWhatItImports() throws {
        let manifest = try repositoryText("Package.swift")
        let targets = try packageTargets(manifest, tests: true)
        let names = Set(targets.keys)
        #expect(names.contains("ofj") && names.contains("BaseTests"))
        let systemLibraries = ["CSQLite", "CCurl", "CEditLine"]
        for (target, declared) in targets.sorted(by: { $0.key < $1.key }) where !systemLibraries.contains(target) {
            let imported = try importedTargets(folder: targetFolder(target, manifest: manifest), among: names)
            let undeclared = imported.subtracting(declared).sorted()
            let unused = Set(declared).subtracting(imported).sorted()
            #expect(undeclared.isEmpty, "\(target) imports \(undeclared) without declaring them in Package.swift")
            #expect(unused.isEmpty, "\(target) declares \(unused) in Package.swift but imports none of them")
        }
    }

    @Test func theImportReaderSkipsAttributesAndKinds() throws {
        let dir = TempDirectory()
        try "@testable import Agent\nimport struct Journal.Entry\n#if canImport(Glibc)\nimport Glibc\n#endif\n// import Views\nlet importance = 1\n"
            .write(toFile: dir.file("A.swift"), atomically: true, encoding: .utf8)
        let found = try importedTargets(folder: dir.path, among: ["Agent", "Journal", "Views", "Glibc"])
        #expect(found == ["Agent", "Journal", "Glibc"])
    }
}
