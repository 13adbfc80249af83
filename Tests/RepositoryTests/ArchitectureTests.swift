// docs/ARCHITECTURE.md's module tree is Package.swift's graph: the same modules, each with exactly
// the dependencies Package.swift declares, every dependency drawn below the module that uses it.
import Foundation
import Testing
import TestSupport

/// The module tree in ARCHITECTURE.md's "## Modules" code block: `Name ← A, B,` lines (continued
/// on lines that start with spaces and end with a comma), in the order drawn.
func architectureTree(_ markdown: String) throws -> [(module: String, dependencies: [String])] {
    guard let section = markdown.range(of: "\n## Modules\n"),
          let open = markdown.range(of: "\n```\n", range: section.upperBound..<markdown.endIndex),
          let close = markdown.range(of: "\n```\n", range: open.upperBound..<markdown.endIndex) else {
        throw RepositoryError("docs/ARCHITECTURE.md has no code block under \"## Modules\"")
    }
    var tree: [(module: String, dependencies: [String])] = []
    var continuing = false
    for line in markdown[open.upperBound..<close.lowerBound].split(separator: "\n") {
        var list: Substring
        if let arrow = line.range(of: "←"), !line.hasPrefix(" ") {
            let name = line[..<arrow.lowerBound].trimmingCharacters(in: .whitespaces)
            tree.append((name, []))
            list = line[arrow.upperBound...]
        } else if continuing {
            list = line[...]
        } else {
            continue
        }
        let trimmed = list.trimmingCharacters(in: .whitespaces)
        continuing = trimmed.hasSuffix(",")
        let names = trimmed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && $0 != "—" }
        tree[tree.count - 1].dependencies += names
    }
    return tree
}

@Suite struct ArchitectureTests {
    @Test func theModuleTreeIsPackageSwiftsGraph() throws {
        let targets = try packageTargets(try repositoryText("Package.swift"))
        let tree = try architectureTree(try repositoryText("docs/ARCHITECTURE.md"))
        #expect(targets.count > 20)
        #expect(Set(tree.map(\.module)) == Set(targets.keys), "ARCHITECTURE.md's modules differ from Package.swift's targets")
        #expect(tree.count == Set(tree.map(\.module)).count, "a module is drawn twice")
        for (module, dependencies) in tree {
            guard let declared = targets[module] else { continue }
            #expect(Set(dependencies) == Set(declared), "\(module): ARCHITECTURE.md says ← \(dependencies.sorted()), Package.swift \(declared.sorted())")
            #expect(dependencies.count == Set(dependencies).count, "\(module) lists a dependency twice")
        }
    }

    @Test func everyDependencyIsDrawnBelowTheModuleThatUsesIt() throws {
        let tree = try architectureTree(try repositoryText("docs/ARCHITECTURE.md"))
        let position = Dictionary(uniqueKeysWithValues: tree.enumerated().map { ($0.element.module, $0.offset) })
        for (index, entry) in tree.enumerated() {
            let above = entry.dependencies.filter { (position[$0] ?? Int.max) <= index }
            #expect(above.isEmpty, "\(entry.module) depends on \(above) drawn above it")
        }
    }

    @Test func theReadersFollowContinuationLinesAndManifestLists() throws {
        let markdown = "x\n## Modules\n\n```\nA   ← B,\n      C\n    holds things, like this\nB   ← —\nC   ← —\n```\n"
        let tree = try architectureTree(markdown)
        #expect(tree.map(\.module) == ["A", "B", "C"])
        #expect(tree[0].dependencies == ["B", "C"])
        #expect(tree[1].dependencies.isEmpty)
        let manifest = #".target(name: "A", dependencies: ["B", "C"], x), .systemLibrary(name: "C", path: "p"), .testTarget(name: "T", dependencies: ["A"])"#
        let targets = try packageTargets(manifest)
        #expect(targets == ["A": ["B", "C"], "C": []])
    }
}
