// A damaged file: quick_check finds it, and a queue that meets a damaged page stops writing.
import Testing
import Foundation
@testable import SQLiteKit
import TestSupport

@Suite struct DamageTests {
    /// A file with 400 rows, then the page holding row 200 made unreadable (invalid page type).
    func damagedFile(_ dir: TempDirectory) throws -> String {
        let path = dir.file("t.sqlite")
        do {
            let db = try Database(path: path, options: .init(walMode: false))
            try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
            try db.transaction { db in
                for i in 0..<400 { try db.execute("INSERT INTO t (name) VALUES (?)", [String(format: "row-%05d ", i) + String(repeating: "x", count: 60)]) }
            }
        }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let at = try #require(bytes.range(of: Data("row-00200".utf8))).lowerBound
        bytes[(at / 4096) * 4096] = 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func quickCheckReportsDamage() throws {
        let dir = TempDirectory()
        let db = try Database(path: try damagedFile(dir), options: .init(walMode: false))
        let problems: [String]
        do { problems = try db.quickCheck() } catch let e as DatabaseError { problems = [e.message] }
        #expect(problems != ["ok"])
        let healthy = try Database(path: ":memory:")
        #expect(try healthy.quickCheck() == ["ok"])
    }

    @Test func aQueueThatMeetsADamagedPageRefusesWritesButStillReads() throws {
        let dir = TempDirectory()
        let queue = try DatabaseQueue(path: try damagedFile(dir), options: .init(walMode: false))
        let seen = Counter()
        queue.onDamage { _ in seen.increment() }
        try queue.write { try $0.execute("INSERT INTO t (name) VALUES ('before')") } // nothing damaged met yet
        #expect(throws: DatabaseError.self) { try queue.read { try $0.rows("SELECT name FROM t") } }
        #expect(seen.count == 1)
        do {
            try queue.write { try $0.execute("INSERT INTO t (name) VALUES ('after')") }
            Issue.record("the write was accepted")
        } catch let e as DatabaseError {
            #expect(e.isDamaged)
            #expect(e.description == DatabaseError.damagedLine)
        }
        // A write through `unrestricted` is refused too (query_only), and undamaged rows still read.
        #expect(throws: DatabaseError.self) { try queue.unrestricted { try $0.execute("INSERT INTO t (name) VALUES ('sneaky')") } }
        #expect(try queue.read { try $0.scalar("SELECT name FROM t WHERE id = 1").string }?.hasPrefix("row-00000") == true)
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func increment() { lock.lock(); value += 1; lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return value }
}
