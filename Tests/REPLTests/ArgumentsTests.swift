import Testing
@testable import REPL

@Suite struct ArgumentsTests {
    let spec = ArgumentSpec(flags: ["--json", "--yes"], options: ["--meal", "--date"])

    @Test func parsesMixedArguments() throws {
        let p = try spec.parse(["2", "eggs", "--meal", "breakfast", "--json", "--date=2026-11-28", "-1.5"])
        #expect(p.positionals == ["2", "eggs", "-1.5"])
        #expect(p.value("--meal") == "breakfast")
        #expect(p.value("--date") == "2026-11-28")
        #expect(p.has("--json"))
    }

    @Test func rejectsUnknownAndMissingValues() {
        #expect(throws: UsageError.self) { try spec.parse(["--jsno"]) }
        #expect(throws: UsageError.self) { try spec.parse(["--meal"]) }
        #expect(throws: UsageError.self) { try spec.parse(["--json=1"]) }
        do { _ = try spec.parse(["--jsno"]) } catch { #expect("\(error)".contains("did you mean --json")) }
    }

    @Test func doubleDashEndsOptions() throws {
        #expect(try spec.parse(["--", "--json"]).positionals == ["--json"])
    }
}
