import Foundation
import Testing
@testable import Transcripts

@Suite struct TranscriptFileTests {
    let sample = """
    # Logging eggs with approval
    @clock 2026-11-29 08:30 Europe/Berlin
    @provider scripted test-model
    @seed sql
      INSERT INTO goals VALUES ('energy_kcal', 2200);

    > log 2 eggs
    model: call c1 log_food {"name":"Egg","energy_kcal":140}
    model: usage in=120 out=30
    model: end
    approve: y
    model: text Logged 2 eggs.\\nDone.
    model: end
    | logging Egg
    | Logged 2 eggs.
    |
    sql: SELECT count(*) FROM entries
    | 1
    crash
    restart
    inspect: ledger
    """

    @Test func parsesSetupStepsAndExpectations() throws {
        let f = try TranscriptFile.parse(sample)
        #expect(f.setup.count == 3)
        #expect(f.setup[2].directive == .setup(name: "seed", argument: "sql", block: ["INSERT INTO goals VALUES ('energy_kcal', 2200);"]))
        #expect(f.steps.count == 8)
        #expect(f.steps[0].directive == .input("log 2 eggs"))
        #expect(f.steps[0].expected == ["logging Egg", "Logged 2 eggs.", ""])
        #expect(f.steps[1].directive == .modelTurn([.call(id: "c1", name: "log_food", arguments: #"{"name":"Egg","energy_kcal":140}"#),
                                                     .usage(input: 120, output: 30, cached: 0, reasoning: 0)]))
        #expect(f.steps[2].directive == .approve("y"))
        #expect(f.steps[3].directive == .modelTurn([.text("Logged 2 eggs.\nDone.")]))
        #expect(f.steps[4].directive == .sql("SELECT count(*) FROM entries"))
        #expect(f.steps[4].expected == ["1"])
    }

    /// A transcript saved with CRLF line ends (a Windows editor) was one Swift Character per
    /// "\r\n", so splitting on "\n" left the whole file as a single comment line: it parsed to
    /// no steps and replayed as passing.
    @Test func crlfLineEndsParseLikeLF() throws {
        let lf = try TranscriptFile.parse(sample)
        let crlf = try TranscriptFile.parse(sample.replacingOccurrences(of: "\n", with: "\r\n"))
        #expect(crlf.steps.count == lf.steps.count)
        #expect(crlf.steps.map(\.directive) == lf.steps.map(\.directive))
        #expect(crlf.steps.map(\.expected) == lf.steps.map(\.expected))
        #expect(crlf.setup.map(\.directive) == lf.setup.map(\.directive))
    }

    @Test func faultStepsNameAKnownFaultAndDoNotTakeThePreviousOutput() throws {
        let f = try TranscriptFile.parse("> hi\n| shown\nfault: disk-full\n> again\nfault: none\n")
        #expect(f.steps.map(\.directive) == [.input("hi"), .fault("disk-full"), .input("again"), .fault("none")])
        #expect(f.steps[0].anchor == 0)
        #expect(throws: TranscriptFile.ParseError.self) { try TranscriptFile.parse("fault: rm -rf /\n") }
        #expect(throws: TranscriptFile.ParseError.self) { try TranscriptFile.parse("fault: ATTACH DATABASE 'x' AS y\n") }
    }

    /// Found by tools/fuzz.sh (transcript target): a line ending in a lone CR was rewritten with
    /// "\n" after it, the CR and LF became one "\r\n" Character, and the re-parsed set-up argument
    /// kept it ("y\r\n" instead of "y").
    @Test func rewritingKeepsStepsOfALineEndingInCR() throws {
        let file = try TranscriptFile.parse("\n@*eo y\r")
        let again = try TranscriptFile.parse(file.rewritten(actual: [:]))
        #expect(file.setup.map(\.directive) == [.setup(name: "*eo", argument: "y", block: [])])
        #expect(again.setup.map(\.directive) == file.setup.map(\.directive))
        #expect(again.steps.map(\.directive) == file.steps.map(\.directive))
    }

    /// Found by tools/fuzz.sh after the CRLF fix: an expected line ending in a CR at the end of the
    /// file kept the CR, which the rewrite turned into a CRLF line end, so the expectation changed.
    @Test func rewritingKeepsExpectedLineEndingInCR() throws {
        let file = try TranscriptFile.parse("> hi\n|   0 toke\u{FFFD}\u{FFFD}\r")
        let again = try TranscriptFile.parse(file.rewritten(actual: [:]))
        #expect(file.steps.map(\.expected) == [["  0 toke\u{FFFD}\u{FFFD}"]])
        #expect(again.steps.map(\.expected) == file.steps.map(\.expected))
        // The next one it found: several CRs before the end of the file.
        let input = try TranscriptFile.parse("> tt@**\r \r\r")
        #expect(input.steps.map(\.directive) == [.input("tt@**\r ")])
        #expect(try TranscriptFile.parse(input.rewritten(actual: [:])).steps.map(\.directive) == input.steps.map(\.directive))
    }

    @Test func outputAfterModelTurnBelongsToTheInput() throws {
        // Output lines after the model turns of an input are that input's output.
        let f = try TranscriptFile.parse("> hi\nmodel: text Hello\nmodel: end\n| Hello\n")
        #expect(f.steps[0].expected == ["Hello"])
    }

    @Test func rewritesExpectedOutputInPlace() throws {
        let f = try TranscriptFile.parse("> hi\nmodel: text Hello\nmodel: end\n| Old\n| Lines\nsql: SELECT 1\n| 1\n")
        let text = f.rewritten(actual: [0: ["New", ""], 2: ["1"]])
        #expect(text == "> hi\nmodel: text Hello\nmodel: end\n| New\n|\nsql: SELECT 1\n| 1\n")
        // Rewriting is stable: parsing the result and rewriting with the same output changes nothing.
        let again = try TranscriptFile.parse(text)
        #expect(again.steps[0].expected == ["New", ""])
        #expect(again.rewritten(actual: [0: ["New", ""], 2: ["1"]]) == text)
    }

    @Test(arguments: [
        ("> x\nmodel: text hi\n", "model turn not ended"),
        ("bogus line", "unknown line"),
        ("| orphan", "expected output"),
        ("> x\n@clock 1", "set-up lines"),
        ("> x\nmodel: error nonsense\n", "error kind must be"),
        ("> x\nmodel: usage in=abc\n", "usage takes"),
        ("inspect: everything", "inspect: takes"),
    ])
    func reportsErrorsWithLineNumbers(_ text: String, _ fragment: String) {
        do {
            _ = try TranscriptFile.parse(text, path: "t.ofjt")
            Issue.record("expected a parse error")
        } catch let e as TranscriptFile.ParseError {
            #expect(e.description.hasPrefix("t.ofjt:"))
            #expect(e.description.contains(fragment))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func parsesErrorsDelaysAndInterrupts() throws {
        let f = try TranscriptFile.parse("> x\nmodel: delay 11s\nmodel: error rate_limited retry_after=2.5 slow down\nmodel: text par\nmodel: interrupt\n")
        #expect(f.steps[1].directive == .modelTurn([.delay(seconds: 11), .error(kind: "rate_limited", retryAfter: 2.5, message: "slow down")]))
        #expect(f.steps[2].directive == .modelTurn([.text("par"), .interrupt]))
    }
}
