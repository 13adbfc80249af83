// /attach: Tab completes file and folder names; shell-like words split paths with spaces.
import Foundation
import Testing
import TestSupport
@testable import REPL

@Suite struct AttachCompletionTests {
    @Test func tabCompletesPathsAfterAttach() throws {
        let dir = TempDirectory()
        _ = FileManager.default.createFile(atPath: dir.path + "/label.jpg", contents: Data([1]))
        _ = FileManager.default.createFile(atPath: dir.path + "/lamb.png", contents: Data([1]))
        _ = FileManager.default.createFile(atPath: dir.path + "/.hidden.png", contents: Data([1]))
        try FileManager.default.createDirectory(atPath: dir.path + "/labels", withIntermediateDirectories: true)
        let c = Completion.paths(dir.path + "/la")
        #expect(c.replacing == (dir.path + "/la").count)
        #expect(c.candidates == [dir.path + "/label.jpg", dir.path + "/labels/", dir.path + "/lamb.png"])
        #expect(!Completion.paths(dir.path + "/").candidates.contains { $0.hasSuffix(".hidden.png") })
        #expect(Completion.paths(dir.path + "/.h").candidates == [dir.path + "/.hidden.png"])
    }

    @MainActor @Test func attachArgumentsSplitLikeAShell() {
        #expect(REPLSession.words("a.jpg 'my label.png' b\\ c.pdf \"d e.gif\"") == ["a.jpg", "my label.png", "b c.pdf", "d e.gif"])
        #expect(REPLSession.words("   ") == [])
        #expect(REPLSession.words(REPLSession.quoted("/tmp/it's here.png")) == ["/tmp/it's here.png"])
    }
}
