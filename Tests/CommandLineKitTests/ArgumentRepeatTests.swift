// An option given twice is refused instead of the second value silently winning; a repeatable one keeps every value.
import Testing
import CommandLineKit

@Suite struct ArgumentRepeatTests {
    let table = CommandTable(root: CommandSpec("tool", summary: "root", subcommands: [
        CommandSpec("log", summary: "log", arguments: [PositionalSpec("WORD", optional: true, variadic: true)],
                    options: [.flag("--json", "json"), .value("--grams", "G", .number, "grams"),
                              .value("--nutrient", "ID=VALUE", .text, "nutrient", repeatable: true)],
                    action: .sync { _ in 0 }),
    ]), program: "tool")

    func parse(_ args: [String]) throws -> ParsedArguments {
        guard case .run(_, let inv) = try table.parse(["log"] + args) else { throw UsageError("no command") }
        return inv.arguments
    }

    @Test func twiceIsAUsageErrorUnlessRepeatable() throws {
        for args in [["--grams", "1", "--grams", "2"], ["--grams=1", "--grams", "2"], ["--json", "--json"]] {
            #expect(throws: UsageError.self) { try parse(args) }
        }
        let p = try parse(["--nutrient", "a=1", "--nutrient=b=2", "--grams", "5"])
        #expect(p.values("--nutrient") == ["a=1", "b=2"])
        #expect(p.value("--grams") == "5" && p.values("--grams") == ["5"])
        #expect(p.given == ["--nutrient", "--grams"])
    }

    @Test func negativeNumbersAreArgumentsNotOptions() throws {
        let p = try parse(["2", "eggs", "--json", "-1.5"])
        #expect(p.positionals == ["2", "eggs", "-1.5"] && p.has("--json"))
    }
}
