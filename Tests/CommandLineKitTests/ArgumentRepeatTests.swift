// An option given twice is refused instead of the second value silently winning; a repeatable one keeps every value.
import Testing
import CommandLineKit

@Suite struct ArgumentRepeatTests {
    @Test func twiceIsAUsageErrorUnlessRepeatable() throws {
        let spec = ArgumentSpec(flags: ["--json"], options: ["--grams"], repeatable: ["--nutrient"])
        for args in [["--grams", "1", "--grams", "2"], ["--grams=1", "--grams", "2"], ["--json", "--json"]] {
            #expect(throws: UsageError.self) { try spec.parse(args) }
        }
        let p = try spec.parse(["--nutrient", "a=1", "--nutrient=b=2", "--grams", "5"])
        #expect(p.values("--nutrient") == ["a=1", "b=2"])
        #expect(p.value("--grams") == "5" && p.values("--grams") == ["5"])
        #expect(p.given == ["--nutrient", "--grams"])
    }
}
