// `ofj log --ref` of a food whose vitamin D USDA reports only in IU logs an entry marked
// derived, and `ofj day --json` shows the mark on the entry and on the totals (golden).
import Foundation
import Testing
import TestSupport

@Suite struct DerivedMarkCLITests {
    let home = TempDirectory(prefix: "ofj-derived-mark")
    var env: [String: String] { ["OFJ_HOME": home.file("data"), "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "OFJ_PROVIDER": "offline"] }

    /// Ids and clock times vary between runs; everything else is pinned.
    static func normalized(_ s: String) -> String {
        var s = s.replacingOccurrences(of: "[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}", with: "<id>", options: .regularExpression)
        s = s.replacingOccurrences(of: "\"20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z\"", with: "\"<time>\"", options: .regularExpression)
        return s
    }

    @Test func logRefMarksDerivedVitaminDAndDayJSONShowsIt() async throws {
        // 16613 reports vitamin D only in IU.
        let log = try await OfjBinary.run(["log", "--ref", "16613", "--grams", "100", "--date", "2026-01-05", "--meal", "lunch", "--json"],
                                          environment: env)
        #expect(log.status == 0, "\(log.stderr)")
        #expect(log.stdout.contains("\"derived\" : [\n    \"vitamin_d_mcg\"\n  ]"))
        let day = try await OfjBinary.run(["day", "2026-01-05", "--json"], environment: env)
        #expect(day.status == 0, "\(day.stderr)")
        let text = Self.normalized(day.stdout)
        let path = OfjBinary.repositoryRoot + "/Tests/Golden/cli/day-derived.json"
        if ProcessInfo.processInfo.environment["OFJ_UPDATE_GOLDEN"] == "1" { try Data(text.utf8).write(to: URL(fileURLWithPath: path)) }
        let expected = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == expected, "day-derived.json differs from its golden file; run with OFJ_UPDATE_GOLDEN=1 and review the diff")
    }
}
