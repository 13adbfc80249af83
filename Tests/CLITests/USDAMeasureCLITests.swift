// `ofj log --ref --portion` with USDA's own measures (issue 30 §1), as a person sees it: the line
// names the USDA row a weight comes from when the food's rows disagree, words after a unit pick
// their row or are refused, and decimal commas follow the one rule; refusals log nothing (golden).
import Foundation
import Testing
import TestSupport

@Suite struct USDAMeasureCLITests {
    let home = TempDirectory(prefix: "ofj-usda-measure")
    var env: [String: String] { ["OFJ_HOME": home.file("data"), "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "OFJ_PROVIDER": "offline"] }

    static let runs: [[String]] = [
        ["--ref", "01053", "--portion", "1 cup"],
        ["--ref", "01053", "--portion", "1 tbsp"],
        ["--ref", "01053", "--portion", "100 ml"],
        ["--ref", "01056", "--portion", "1 tsp"],
        ["--ref", "11124", "--portion", "1 cup sliced"],
        ["--ref", "09316", "--portion", "1 pint"],
        ["--ref", "01077", "--portion", "1,5 cups"],
        ["--ref", "20044", "--portion", "1 cup cooked"],
        ["--ref", "11124", "--portion", "100 ml"],
        ["--ref", "01077", "--portion", "1.5,5 cups"],
        ["--ref", "01077", "--portion", "1/0 cup"],
        ["--ref", "01077", "--portion", "1,000 g"],
        ["--ref", "01077", "--grams", "1.5,5"],
    ]

    @Test func logLinesNameTheUSDARowAndRefusalsSayWhatToType() async throws {
        var transcript = ""
        var logged = 0
        for args in Self.runs {
            let r = try await OfjBinary.run(["log"] + args + ["--date", "2026-01-05", "--meal", "lunch"], environment: env)
            let shown = args.map { $0.contains(" ") ? "\"\($0)\"" : $0 }.joined(separator: " ")
            let line = (r.status == 0 ? r.stdout : r.stderr).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(!line.contains("\n"), "\(shown): \(line)")
            if r.status == 0 { logged += 1 }
            transcript += "$ ofj log \(shown)\n[\(r.status)] " + line.replacingOccurrences(of: #"\(id [0-9a-f]+\)"#, with: "(id <id>)", options: .regularExpression) + "\n"
        }
        let path = OfjBinary.repositoryRoot + "/Tests/Golden/cli/log-usda-measures.txt"
        if ProcessInfo.processInfo.environment["OFJ_UPDATE_GOLDEN"] == "1" { try Data(transcript.utf8).write(to: URL(fileURLWithPath: path)) }
        let expected = try String(contentsOfFile: path, encoding: .utf8)
        #expect(transcript == expected, "log-usda-measures.txt differs from its golden file; run with OFJ_UPDATE_GOLDEN=1 and review the diff")
        // Every refusal logged nothing: the day has exactly the entries that were logged.
        let day = try await OfjBinary.run(["day", "2026-01-05", "--json"], environment: env)
        #expect(day.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(day.stdout.utf8)) as? [String: Any])
        let entries = (json["entries"] as? [Any]) ?? (json["meals"] as? [[String: Any]])?.flatMap { ($0["entries"] as? [Any]) ?? [] } ?? []
        #expect(entries.count == logged, "\(day.stdout.prefix(400))")
        #expect(logged == 7)
    }

    /// Every nutrient ofj stores can be typed with its unit (issue 30 §7).
    @Test func alcoholAndStarchCanBeTyped() async throws {
        let r = try await OfjBinary.run(["log", "Wine", "--kcal", "120", "--nutrient", "alcohol_g=14", "--nutrient", "starch_g=0,5", "--json"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\"alcohol_g\" : 14") && r.stdout.contains("\"starch_g\" : 0.5"), "\(r.stdout)")
    }
}
