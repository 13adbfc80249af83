// Reading the repository itself for the tests of its map: files, the manifest, folders.
import Foundation
import TestSupport

struct RepositoryError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func repositoryText(_ path: String) throws -> String {
    try String(contentsOfFile: OfjBinary.repositoryRoot + "/" + path, encoding: .utf8)
}

/// The Swift files under Sources/<module>, as paths relative to that folder, sorted.
func sourceFiles(of module: String) throws -> [String] {
    let root = OfjBinary.repositoryRoot + "/Sources/" + module
    guard let walker = FileManager.default.enumerator(atPath: root) else {
        throw RepositoryError("no folder Sources/\(module)")
    }
    return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted()
}

/// Package.swift's targets (test targets too when `tests`) and their dependencies, read from the
/// manifest's text.
func packageTargets(_ manifest: String, tests: Bool = false) throws -> [String: [String]] {
    let kinds = tests ? "target|executableTarget|systemLibrary|testTarget" : "target|executableTarget|systemLibrary"
    let pattern = try NSRegularExpression(
        pattern: #"\.("# + kinds + #")\(name: "(\w+)"(?:, dependencies: \[([^\]]*)\])?"#)
    var targets: [String: [String]] = [:]
    let range = NSRange(manifest.startIndex..., in: manifest)
    for match in pattern.matches(in: manifest, range: range) {
        let name = String(manifest[Range(match.range(at: 2), in: manifest)!])
        var dependencies: [String] = []
        if let list = Range(match.range(at: 3), in: manifest) {
            dependencies = manifest[list].split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
                .filter { !$0.isEmpty }
        }
        targets[name] = dependencies
    }
    return targets
}
