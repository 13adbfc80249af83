// Issue #22 end to end through the ofj binary: `ofj trend`, `ofj month`, `ofj report`, `ofj gaps`
// (pipes get plain text, the locale picks Unicode or ASCII, COLUMNS widens, errors are one line).
import Foundation
import Testing
import TestSupport

@Suite struct ChartCLITests {
    let home = TempDirectory(prefix: "ofj-charts")
    var env: [String: String] {
        ["OFJ_HOME": home.file("data"), "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "OFJ_PROVIDER": "offline",
         "LANG": "C.UTF-8"]
    }

    func seed() async throws {
        for (date, kcal) in [("-6", "1800"), ("-5", "2600"), ("-3", "1500"), ("-1", "2000"), ("0", "900")] {
            let r = try await OfjBinary.run(["log", "Meal", "--kcal", kcal, "--protein", "60", "--nutrient", "iron_mg=4", "--date", date], environment: env)
            #expect(r.status == 0, "\(r.stderr)")
        }
        // A logged day that does not report protein.
        _ = try await OfjBinary.run(["log", "Juice", "--kcal", "120", "--date", "-2"], environment: env)
    }

    @Test func trendOnAPipeIsPlainAndFitsTheWidth() async throws {
        try await seed()
        let r = try await OfjBinary.run(["trend", "--days", "7"], environment: env.merging(["TERM": "xterm-256color"]) { $1 })
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stdout.contains("\u{1B}"), "a pipe gets no escape sequences")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count >= 9)
        #expect(lines.allSatisfy { $0.count <= 80 })
        #expect(lines.contains { $0.hasSuffix("no entries") }, "the day without entries is a gap: \(r.stdout)")
        #expect(r.stdout.contains("│ goal 2,000 kcal") && r.stdout.contains("█"))
        #expect(r.stdout.contains("130%"), "2,600 kcal is 130% of the goal")

        let wide = try await OfjBinary.run(["trend", "--days", "7"], environment: env.merging(["COLUMNS": "120"]) { $1 })
        let wideLines = wide.stdout.split(separator: "\n")
        #expect(wideLines.contains { $0.count > 80 } && wideLines.allSatisfy { $0.count <= 120 })

        let ascii = try await OfjBinary.run(["trend", "protein", "--days", "7"], environment: env.merging(["LANG": "C"]) { $1 })
        #expect(ascii.status == 0)
        #expect(ascii.stdout.unicodeScalars.allSatisfy { $0.isASCII }, "\(ascii.stdout)")
        #expect(ascii.stdout.contains("not reported") && ascii.stdout.contains("#") && ascii.stdout.contains("| goal 50 g"))
    }

    /// On a terminal: colour, the terminal's width; NO_COLOR takes the colour away, not the symbols.
    @Test func trendOnATerminalIsColouredUnlessNoColor() async throws {
        try await seed()
        let binary = try #require(OfjBinary.path, "build ofj first (swift build)")
        for (noColor, columns) in [(false, UInt16(100)), (true, UInt16(100))] {
            var e = env.merging(["TERM": "xterm-256color"]) { $1 }
            if noColor { e["NO_COLOR"] = "1" }
            let p = try PTYProcess(executable: binary, arguments: ["trend", "--days", "7"], environment: e, columns: columns)
            let text = try #require(await p.read(until: "Average:"), "ofj trend on a terminal")
            _ = await p.waitForExit()
            #expect(text.contains("\u{1B}[") != noColor, "NO_COLOR=\(noColor): \(text)")
            let plain = stripANSI(text)
            #expect(plain.contains("│ goal 2,000 kcal") && plain.contains("130%") && plain.contains("no entries"))
            let rows = plain.split(whereSeparator: \.isNewline).filter { $0.contains("█") }
            #expect(rows.allSatisfy { $0.count <= 100 } && rows.contains { $0.count > 80 }, "uses the terminal's 100 columns")
        }
    }

    @Test func trendJSONAndWeeksAndMonths() async throws {
        try await seed()
        let r = try await OfjBinary.run(["trend", "protein_g", "--days", "7", "--json"], environment: env)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let bars = try #require(json["bars"] as? [[String: Any]])
        #expect(bars.count == 7)
        #expect(bars.filter { $0["value"] is NSNull }.count == 2, "a day without entries (-4), one without protein (-2)")
        #expect(json["reporting_days"] as? Int == 5 && json["logged_days"] as? Int == 6)
        let two = try await OfjBinary.run(["trend", "energy", "fat", "--weeks", "2", "--json"], environment: env)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(two.stdout.utf8)) as? [[String: Any]])
        #expect(list.map { $0["nutrient"] as? String } == ["energy_kcal", "fat_g"])
        #expect(list.allSatisfy { $0["period"] as? String == "week" })
        let months = try await OfjBinary.run(["trend", "--months", "3"], environment: env)
        #expect(months.status == 0 && months.stdout.contains("each bar: average a day over its days that report it"))
    }

    @Test func badInputIsOneLineWithTheFix() async throws {
        let both = try await OfjBinary.run(["trend", "--days", "7", "--weeks", "2"], environment: env)
        #expect(both.status == 2 && both.stderr.contains("give --days or --weeks, not both"), "\(both.stderr)")
        let unknown = try await OfjBinary.run(["trend", "protien"], environment: env)
        #expect(unknown.status == 2 && unknown.stderr.contains("did you mean protein_g"), "\(unknown.stderr)")
        let month = try await OfjBinary.run(["month", "2026-13"], environment: env)
        #expect(month.status == 2 && month.stderr.contains("use YYYY-MM"), "\(month.stderr)")
        let report = try await OfjBinary.run(["report"], environment: env)
        #expect(report.status == 2 && report.stderr.contains("-o"), "\(report.stderr)")
        let range = try await OfjBinary.run(["report", "--from", "2026-11-10", "--to", "2026-11-01", "-o", home.file("r.html")], environment: env)
        #expect(range.status == 2 && range.stderr.contains("is after"), "\(range.stderr)")
    }

    @Test func monthShowsTheCalendar() async throws {
        try await seed()
        let r = try await OfjBinary.run(["month"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Mon        Tue        Wed"))
        #expect(r.stdout.contains("% of the 2,000 kcal goal"))
        #expect(r.stdout.contains("◆"), "today is marked")
        let ascii = try await OfjBinary.run(["month", "2026-02"], environment: env.merging(["LANG": "POSIX"]) { $1 })
        #expect(ascii.stdout.hasPrefix("February 2026") && ascii.stdout.unicodeScalars.allSatisfy { $0.isASCII })
    }

    @Test func reportRefusesToOverwriteWithoutForce() async throws {
        try await seed()
        let file = home.file("report.html")
        let r = try await OfjBinary.run(["report", "-o", file], environment: env)
        #expect(r.status == 0 && r.stdout.contains("Wrote"), "\(r.stderr)")
        let html = try String(contentsOfFile: file, encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.contains("Not medical advice") && !html.contains("<script"))
        let attrs = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attrs[.posixPermissions] as? Int) == 0o600, "the report holds the journal: owner-only")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: file))
        let again = try await OfjBinary.run(["report", "-o", file], environment: env)
        #expect(again.status == 1 && again.stderr.contains("already exists") && again.stderr.contains("--force"), "\(again.stderr)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep me")
        let forced = try await OfjBinary.run(["report", "-o", file, "--force"], environment: env)
        #expect(forced.status == 0)
        #expect(try String(contentsOfFile: file, encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        let folder = try await OfjBinary.run(["report", "-o", home.path, "--force"], environment: env)
        #expect(folder.status == 2 && folder.stderr.contains("is a folder"), "\(folder.stderr)")
        let stdout = try await OfjBinary.run(["report", "--from", "-6", "-o", "-"], environment: env)
        #expect(stdout.stdout.contains("<svg") && stdout.stdout.contains("</html>"))
        #expect(!stdout.stdout.contains("<h2>Weight</h2>"), "no weigh-ins: no weight section")
        // With weigh-ins in the range the report shows their trend (issue 33 §3).
        for (d, kg) in [("-6", "81.4"), ("-1", "80.9")] {
            let w = try await OfjBinary.run(["weight", kg, "--date", d, "--force"], environment: env)
            #expect(w.status == 0, "\(w.stderr)")
        }
        let weighed = try await OfjBinary.run(["report", "--from", "-6", "-o", "-"], environment: env)
        #expect(weighed.stdout.contains("<h2>Weight</h2>") && weighed.stdout.contains(" kg on ") && weighed.stdout.contains("2 weigh-ins"), "\(weighed.stdout.suffix(800))")
    }

    @Test func gapsListsShortNutrientsWithFoods() async throws {
        try await seed()
        let r = try await OfjBinary.run(["gaps", "--days", "7"], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Iron: 4 mg a day, 22% of 18 mg (reported on 5 of 6 logged days)"), "\(r.stdout)")
        #expect(r.stdout.contains("[USDA "), "reference foods are suggested")
        #expect(r.stdout.contains("Not reported by any entry (unknown, not zero):"))
        let json = try await OfjBinary.run(["gaps", "--json"], environment: env)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let gaps = try #require(doc["gaps"] as? [[String: Any]])
        let iron = try #require(gaps.first { $0["nutrient"] as? String == "iron_mg" })
        #expect((iron["foods"] as? [Any])?.count == 3)
    }
}
