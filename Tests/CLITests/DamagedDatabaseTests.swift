// A database damaged by byte flips (issue 25 §6): found at start-up after an unclean exit or an
// outside change, writes refused with one line, `ofj doctor` says so, and
// `ofj backup export --salvage` saves every readable row into a file that imports cleanly.
import Foundation
import Testing
import TestSupport
import SQLiteKit

@Suite struct DamagedDatabaseTests {
    let home = TempDirectory(prefix: "ofj-damage")
    func env(_ data: String = "data") -> [String: String] {
        ["OFJ_HOME": home.file(data), "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "OFJ_PROVIDER": "offline"]
    }
    var database: String { home.file("data/ofj.sqlite") }
    var state: String { database + ".state" }

    /// A journal of 600 entries with names that can be found in the file.
    func makeJournal() async throws {
        var entries: [[String: Any]] = []
        for i in 0..<600 {
            entries.append(["id": String(format: "00000000-0000-4000-8000-%012d", i + 1), "day": String(format: "2026-%02d-%02d", 1 + i % 11, 1 + i % 28),
                            "meal": "lunch", "name": String(format: "Marker-%05d ", i) + String(repeating: "x", count: 40),
                            "nutrients": ["energy_kcal": 100 + i, "protein_g": 5], "serving": ["quantity": 1, "unit": "serving"], "servings": 1,
                            "source": "manual", "created_at": "2026-11-01T10:00:00.000Z", "updated_at": "2026-11-01T10:00:00.000Z"])
        }
        let doc: [String: Any] = ["schema_version": 1, "exported_at": "2026-11-01T10:00:00.000Z", "foods": [Any](), "entries": entries]
        let file = home.file("seed.json")
        try JSONSerialization.data(withJSONObject: doc).write(to: URL(fileURLWithPath: file))
        let r = try await OfjBinary.run(["backup", "import", file], environment: env())
        #expect(r.status == 0, "\(r.stderr)")
    }

    /// Makes the `journal_entries` b-tree page holding `marker` unreadable (an invalid page type),
    /// as a flipped byte would. The row is found by its meal and name, stored next to each other
    /// ("lunchMarker-…"): the full-text index keeps a copy of the name on other pages.
    func damagePage(holding marker: String) throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: database))
        let range = try #require(bytes.range(of: Data(("lunch" + marker).utf8)))
        let pageStart = (range.lowerBound / 4096) * 4096
        #expect(pageStart > 0)
        bytes[pageStart] = 0xFF
        try bytes.write(to: URL(fileURLWithPath: database))
    }

    func stateText() -> String { (try? String(contentsOfFile: state, encoding: .utf8)) ?? "" }

    @Test func aNormalExitLeavesACleanStampAndNoOwner() async throws {
        try await makeJournal()
        let text = stateText()
        #expect(text.hasPrefix("clean "), "\(text)")
        #expect(!text.contains("open "))
        let attributes = try FileManager.default.attributesOfItem(atPath: state)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func processesStartingAndLeavingTogetherLeaveNoOwnerBehind() async throws {
        try await makeJournal()
        try await withThrowingTaskGroup(of: Int32.self) { group in
            for i in 0..<6 { group.addTask { try await OfjBinary.run(["log", "X\(i)", "--kcal", "5"], environment: env()).status } }
            for try await status in group { #expect(status == 0) }
        }
        let text = stateText()
        #expect(!text.contains("open ") && text.hasPrefix("clean "), "\(text)")
    }

    @Test func aDamagedFileRefusesWritesAndItsSalvageImportsIntoAFreshFile() async throws {
        try await makeJournal()
        try damagePage(holding: "Marker-00300")
        let before = try Data(contentsOf: URL(fileURLWithPath: database))

        // The file changed while no ofj had it open: checked; reads of undamaged rows still work
        // (2026-02-17 holds rows 100 and 408, far from the damaged page), with one warning.
        let day = try await OfjBinary.run(["day", "2026-02-17"], environment: env())
        #expect(day.status == 0, "\(day.stderr)")
        #expect(day.stderr.contains("the database file is damaged, so ofj will not write to it"), "\(day.stderr)")
        #expect(day.stdout.contains("Marker-00100"))

        // Writes are refused with the line that says what to do; the file is not touched.
        let log = try await OfjBinary.run(["log", "Apple", "--kcal", "50"], environment: env())
        #expect(log.status == 1)
        #expect(log.stderr.hasSuffix("ofj: the database file is damaged, so ofj will not write to it (what is undamaged can still be read): save what can be read with `ofj backup export --salvage -o rescue.json`, move the file aside, then `ofj backup import rescue.json`\n"), "\(log.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
        #expect(stateText().contains("damaged"))

        let doctor = try await OfjBinary.run(["doctor"], environment: env())
        #expect(doctor.status == 1)
        #expect(doctor.stdout.contains("database: DAMAGED"), "\(doctor.stdout)")

        // Salvage: every readable row; the unreadable ones are counted.
        let rescue = home.file("rescue.json")
        let salvage = try await OfjBinary.run(["backup", "export", "--salvage", "-o", rescue], environment: env())
        #expect(salvage.status == 0, "\(salvage.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: rescue))) as? [String: Any]
        let saved = (object?["entries"] as? [[String: Any]]) ?? []
        let names = Set(saved.compactMap { ($0["name"] as? String)?.prefix(12) }.map(String.init))
        #expect(!names.contains("Marker-00300"))
        #expect(names.contains("Marker-00000") && names.contains("Marker-00599"))
        let skipped = 600 - saved.count
        #expect(skipped > 0 && skipped < 60, "\(skipped)")
        #expect(salvage.stderr.contains("Salvaged \(saved.count) entries and 0 foods; could not read \(skipped) entries."), "\(salvage.stderr)")
        #expect(saved.allSatisfy { ($0["nutrients"] as? [String: Any])?["energy_kcal"] != nil })

        // The salvage imports cleanly into a fresh file, which is healthy.
        let imported = try await OfjBinary.run(["backup", "import", rescue], environment: env("fresh"))
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("Imported: \(saved.count) new"), "\(imported.stdout)")
        let fresh = try await OfjBinary.run(["log", "Apple", "--kcal", "50"], environment: env("fresh"))
        #expect(fresh.status == 0 && fresh.stderr.isEmpty, "\(fresh.stderr)")
        let freshDoctor = try await OfjBinary.run(["doctor"], environment: env("fresh"))
        #expect(freshDoctor.stdout.contains("database: ok (quick_check)"), "\(freshDoctor.stdout)")
    }

    /// Records `clean` for the file as it is now, as if the damage happened before a normal exit
    /// and nothing touched the file since (so the start-up check is skipped).
    func stampCleanNow(owners: [String] = []) throws {
        var st = stat()
        #expect(stat(database, &st) == 0)
        let mtime = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        try (owners.map { "open \($0)\n" }.joined() + "clean \(st.st_size) \(mtime)\n").write(toFile: state, atomically: true, encoding: .utf8)
    }

    @Test func damageMetWhileReadingStopsWritesAndIsRememberedForTheNextStart() async throws {
        try await makeJournal()
        try damagePage(holding: "Marker-00300")
        try stampCleanNow()
        // 2026-01-01 holds rows 0 and 308; row 308 is on the damaged page.
        let day = try await OfjBinary.run(["day", "2026-01-01"], environment: env())
        #expect(day.status == 1)
        #expect(day.stderr.contains("the database file is damaged, so ofj will not write to it"), "\(day.stderr)")
        #expect(stateText().contains("damaged"), "\(stateText())")
        let log = try await OfjBinary.run(["log", "Apple", "--kcal", "50"], environment: env())
        #expect(log.status == 1)
        #expect(log.stderr.contains("the database file is damaged"), "\(log.stderr)")
    }

    @Test func anUncleanExitMakesTheNextStartCheckTheFile() async throws {
        try await makeJournal()
        try damagePage(holding: "Marker-00300")
        // The damage happened while an ofj that then died (kill -9) had the file open: its stamp
        // still matches, but its `open` line was never removed.
        try stampCleanNow()
        let unchecked = try await OfjBinary.run(["day", "2026-02-17"], environment: env())
        #expect(!unchecked.stderr.contains("damaged"), "a clean exit and an untouched file are not checked")
        try stampCleanNow(owners: ["999999:1"])
        let checked = try await OfjBinary.run(["log", "Apple", "--kcal", "50"], environment: env())
        #expect(checked.status == 1)
        #expect(checked.stderr.contains("the database file is damaged"), "\(checked.stderr)")
    }
}
