// The typed row decoder: values as the schema promises them, and a thrown error naming the
// column (never a default) for NULL where a value belongs, another type, an unknown word.
import Testing
@testable import SQLiteKit

@Suite struct RowDecodingTests {
    enum Phase: String { case queued, done }

    func row(_ sql: String) throws -> Row {
        let db = try Database(path: ":memory:")
        return try #require(try db.row(sql))
    }

    @Test func valuesDecodeAsTheirTypes() throws {
        let r = try row("SELECT 7 AS n, 2.5 AS x, 3 AS whole, 'hi' AS s, 1 AS flag, 0 AS off, NULL AS missing, 'done' AS phase")
        #expect(try r.decode("n", as: Int.self) == 7)
        #expect(try r.decode(0, as: Int64.self) == 7)
        #expect(try r.decode("x", as: Double.self) == 2.5)
        #expect(try r.decode("whole", as: Double.self) == 3) // an integer is a number too
        #expect(try r.decode("s", as: String.self) == "hi")
        #expect(try r.decode("flag", as: Bool.self) && !(try r.decode("off", as: Bool.self)))
        #expect(try r.decodeIfPresent("missing", as: String.self) == nil)
        #expect(try r.decodeIfPresent("s", as: String.self) == "hi")
        #expect(try r.decode("phase", as: Phase.self) == .done)
    }

    @Test func aBadValueIsAnErrorNamingItsColumn() throws {
        let r = try row("SELECT NULL AS turns_used, 'abc' AS created_at, 'maybe' AS phase, 2.5 AS seq, x'00' AS title")
        #expect(throws: RowDecodingError(column: "turns_used", expected: "an integer", found: "NULL")) { try r.decode("turns_used", as: Int.self) }
        #expect(throws: RowDecodingError(column: "created_at", expected: "a number", found: "text")) { try r.decode(1, as: Double.self) }
        #expect(throws: RowDecodingError(column: "phase", expected: "a known Phase", found: "another value")) { try r.decode("phase", as: Phase.self) }
        #expect(throws: RowDecodingError(column: "seq", expected: "an integer", found: "a real")) { try r.decode("seq", as: Int.self) }
        #expect(throws: RowDecodingError(column: "title", expected: "text", found: "a blob")) { try r.decodeIfPresent("title", as: String.self) }
        #expect(throws: RowDecodingError(column: "nope", expected: "text", found: "no such column")) { try r.decode("nope", as: String.self) }
        #expect(throws: RowDecodingError.self) { try r.decode(9, as: String.self) }
        let e = RowDecodingError(column: "turns_used", expected: "an integer", found: "NULL")
        #expect(e.description.contains("column turns_used") && e.description.contains("run ofj doctor") && !e.description.contains("\n"))
    }

    @Test func aStatementDecodesItsCurrentRow() throws {
        let db = try Database(path: ":memory:")
        var seen: [(Int, String?)] = []
        try db.forEachRow("SELECT 1 AS a, 'x' AS b UNION ALL SELECT 2, NULL") { s in
            seen.append((try s.decode("a"), try s.decodeIfPresent(1)))
        }
        #expect(seen.map(\.0) == [1, 2] && seen.map(\.1) == ["x", nil])
        #expect(throws: RowDecodingError(column: "b", expected: "text", found: "NULL")) {
            try db.forEachRow("SELECT NULL AS b") { s in _ = try s.decode(0, as: String.self) }
        }
    }
}
