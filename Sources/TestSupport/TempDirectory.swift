// Temporary directories and databases for tests; removed when released.
import Foundation
import SQLiteKit

public final class TempDirectory: @unchecked Sendable {
    public let path: String
    public init(prefix: String = "ofj-test") {
        let base = FileManager.default.temporaryDirectory.path
        let template = "\(base)/\(prefix)-XXXXXX"
        var bytes = Array(template.utf8CString)
        let made = bytes.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = made.map { String(cString: $0) } ?? "\(base)/\(prefix)-\(UUID().uuidString)"
        if made == nil { try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    }
    public func file(_ name: String) -> String { "\(path)/\(name)" }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}
