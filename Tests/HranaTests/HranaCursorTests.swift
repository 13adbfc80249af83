// /v3/cursor answers: rows per step, step errors, and cut-off answers refused.
import Testing
@testable import Hrana

@Suite struct HranaCursorTests {
    func bytes(_ lines: [String], newline: Bool = true) -> [UInt8] { Array((lines.joined(separator: "\n") + (newline ? "\n" : "")).utf8) }

    @Test func rowsAndErrorsLandOnTheirSteps() throws {
        let body = bytes([
            #"{"baton":null,"base_url":null}"#,
            #"{"type":"step_begin","step":0,"cols":[{"name":"a"}]}"#,
            #"{"type":"row","row":[{"type":"integer","value":"7"}]}"#,
            #"{"type":"row","row":[{"type":"text","value":"x"}]}"#,
            #"{"type":"step_end","affected_row_count":0,"last_insert_rowid":null}"#,
            #"{"type":"step_error","step":1,"error":{"message":"no such table: t","code":"SQLITE_ERROR"}}"#,
        ])
        let r = try HranaClient.decodeCursor(body, steps: 3)
        #expect(r.stepResults[0]?.columns == ["a"])
        #expect(r.stepResults[0]?.rows == [[.integer(7)], [.text("x")]])
        #expect(r.stepErrors[1]?.message == "no such table: t")
        #expect(r.stepResults[2] == nil && r.stepErrors[2] == nil)
    }

    @Test func cutOffAnswersAreErrorsNotShortResults() {
        let begun = [#"{"baton":null}"#, #"{"type":"step_begin","step":0,"cols":[]}"#, #"{"type":"row","row":[]}"#]
        #expect(throws: HranaError.self) { try HranaClient.decodeCursor(self.bytes(begun), steps: 1) }              // no step_end
        #expect(throws: HranaError.self) { try HranaClient.decodeCursor(self.bytes(begun, newline: false), steps: 1) } // no final newline
        #expect(throws: HranaError.self) { try HranaClient.decodeCursor(Array("<html>502</html>\n".utf8), steps: 1) }
        #expect(throws: HranaError.self) { try HranaClient.decodeCursor(self.bytes([#"{"baton":null}"#, #"{"type":"row","row":[]}"#]), steps: 1) }
    }
}
