// Issue 34 §2 and §8 on the command line: `ofj recent`, `--at` (validated, the schedule picks the
// meal), `ofj water`, `ofj note` (searchable, size limit), `ofj fasting`, `ofj day --pin`,
// `--nutrient` with `--food`, and the offline assistant's "same breakfast as yesterday".
import Foundation
import Testing
import TestSupport

@Suite struct DiaryCommandTests {
    let home = TempDirectory(prefix: "ofj-diary")
    var env: [String: String] { ["OFJ_HOME": home.file("data"), "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "OFJ_PROVIDER": "offline", "TZ": "UTC"] }

    @discardableResult
    func ofj(_ args: [String]) async throws -> OfjBinary.Result {
        let r = try await OfjBinary.run(args, environment: env)
        #expect(r.status == 0, "\(args): \(r.stderr)")
        return r
    }

    func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func entries(_ day: String) async throws -> [[String: Any]] {
        let view = try object(try await ofj(["day", day, "--json"]).stdout)
        return (view["meals"] as? [[String: Any]] ?? []).flatMap { ($0["entries"] as? [[String: Any]]) ?? [] }
    }

    @Test func atSetsTheTimeTheScheduleChoosesTheMealAndABadTimeIsOneLine() async throws {
        let e = try object(try await ofj(["log", "Pasta", "--kcal", "700", "--at", "19:30", "--json"]).stdout)
        #expect(e["meal"] as? String == "dinner")
        #expect((e["eaten_at"] as? String)?.contains("T19:30:00") == true, "\(e)")
        let kept = try object(try await ofj(["log", "Pasta", "--kcal", "700", "--at", "19:30", "--meal", "snack", "--json"]).stdout)
        #expect(kept["meal"] as? String == "snack")
        for bad in ["25:61", "7", "12:5", "noon"] {
            let r = try await OfjBinary.run(["log", "Toast", "--kcal", "80", "--at", bad], environment: env)
            #expect(r.status == 2)
            #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            #expect(r.stderr.contains("use HH:MM on a 24-hour clock"), "\(r.stderr)")
        }
        #expect(try await entries("today").count == 2)
    }

    @Test func waterAddsTowardTheGoalInEveryUnit() async throws {
        try await ofj(["goals", "set", "water_g=2000"])
        try await ofj(["water", "500ml"])
        try await ofj(["water", "0.25", "l"])
        try await ofj(["water", "8", "fl", "oz"])
        try await ofj(["water", "1", "cup"])
        try await ofj(["water", "0,25", "l"])  // a decimal comma
        let shown = try object(try await ofj(["water", "--json"]).stdout)
        #expect(abs((shown["water_ml"] as? Double ?? 0) - 1_476.6) < 0.05, "\(shown)")
        #expect(shown["goal_g"] as? Double == 2_000)
        let day = try await ofj(["day"]).stdout
        #expect(day.contains("  Water: 1,477 mL logged · goal 2,000 g (74%)"), "\(day)")
        let bad = try await OfjBinary.run(["water", "lots"], environment: env)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("is not an amount of water"))
        // The one decimal rule of every typed amount (issue 30): "1,000 ml" could be 1 or 1000.
        for refused in ["1,000 ml", "1.5,5 l", "5. ml"] {
            let r = try await OfjBinary.run(["water", refused], environment: env)
            #expect(r.status == 2 && r.stderr.contains("is not an amount of water"), "\(refused): \(r.stderr)")
        }
        // One undo step per water entry.
        try await ofj(["undo", "--yes"])
        #expect(try await entries("today").count == 4)
    }

    @Test func notesAreShownFoundAndLimited() async throws {
        try await ofj(["note", "felt bloated after lunch"])
        try await ofj(["note", "slept badly", "--date", "yesterday"])
        #expect(try await ofj(["day"]).stdout.contains("  Note: felt bloated after lunch"))
        let found = try await ofj(["search", "bloated", "--journal"]).stdout
        #expect(found.contains("note  felt bloated after lunch"), "\(found)")
        let json = try object(try await ofj(["search", "slept", "--json"]).stdout)
        #expect((json["results"] as? [[String: Any]])?.first?["type"] as? String == "note")
        let big = try await OfjBinary.run(["note", "-"], input: String(repeating: "a", count: 1 << 20), environment: env)
        #expect(big.status == 2)
        #expect(big.stderr == "ofj: the note has 1,048,576 characters; a note holds at most 2,000\n", "\(big.stderr)")
        let listed = try await ofj(["note", "--json"]).stdout
        #expect(listed.contains("felt bloated after lunch") && !listed.contains("slept"))
    }

    @Test func fastingShowsTheNightWindowsFromEntryTimes() async throws {
        try await ofj(["log", "Soup", "--kcal", "300", "--date", "-2", "--at", "20:00"])
        try await ofj(["log", "Oats", "--kcal", "300", "--date", "yesterday", "--at", "08:30"])
        try await ofj(["log", "Pizza", "--kcal", "900", "--date", "yesterday", "--at", "23:15"])
        try await ofj(["log", "Eggs", "--kcal", "150", "--at", "00:05"])
        try await ofj(["water", "300ml", "--at", "00:10"])
        let json = try object(try await ofj(["fasting", "--json"]).stdout)
        let windows = json["windows"] as? [[String: Any]] ?? []
        #expect(windows.map { $0["hours"] as? Double } == [12.5, 0.83], "\(windows)")
        #expect((json["last_entry"] as? [String: Any])?["name"] as? String == "Eggs")
        let text = try await ofj(["fasting"]).stdout
        #expect(text.contains("20:00 → 08:30  12 h 30 min"), "\(text)")
    }

    @Test func pinnedNutrientsComeFromConfigOrPin() async throws {
        try await ofj(["log", "Oatmeal", "--kcal", "300", "--protein", "10", "--nutrient", "fiber_g=8"])
        try await ofj(["water", "500ml"])
        let pinned = try await ofj(["day", "--pin", "kcal,fiber,water"]).stdout
        #expect(pinned.contains("  Total: 300 kcal · fiber 8 g* · water 500 g*\n  * not reported by 1 entry for fiber, 1 entry for water"), "\(pinned)")
        try FileManager.default.createDirectory(atPath: home.file("config") + "/ofj", withIntermediateDirectories: true)
        try Data(#"{"pinned": ["protein_g", "water_g"]}"#.utf8).write(to: URL(fileURLWithPath: home.file("config") + "/ofj/config.json"))
        let fromConfig = try await ofj(["day"]).stdout
        #expect(fromConfig.contains("  Total: protein 10 g · water 500 g*"), "\(fromConfig)")
        let bad = try await OfjBinary.run(["day", "--pin", "kcal,vibes"], environment: env)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("'vibes' is not a nutrient"))
    }

    @Test func recentRanksFoodsAndNutrientOverridesOneEntryOfASavedFood() async throws {
        for d in ["-3", "-2", "yesterday"] { try await ofj(["log", "Oats", "--kcal", "300", "--meal", "breakfast", "--date", d]) }
        try await ofj(["log", "Toast", "--kcal", "80", "--meal", "breakfast", "--date", "yesterday"])
        let json = try object(try await ofj(["recent", "--meal", "breakfast", "--json"]).stdout)
        let foods = json["foods"] as? [[String: Any]] ?? []
        #expect(foods.map { $0["name"] as? String } == ["Oats", "Toast"])
        #expect(foods.first?["count"] as? Double == 3)
        #expect(json["window_days"] as? Double == 28)
        let text = try await ofj(["recent", "--meal", "breakfast"]).stdout
        #expect(text.hasPrefix("Foods you log for breakfast (last 28 days), most often first:\n  1. Oats"), "\(text)")
    }

    @Test func theOfflineAssistantCopiesYesterdaysBreakfastOnOneCard() async throws {
        try await ofj(["log", "Oats", "--kcal", "300.5", "--protein", "10.25", "--meal", "breakfast", "--date", "yesterday", "--at", "07:30"])
        try await ofj(["log", "Coffee", "--kcal", "40", "--servings", "1.5", "--meal", "breakfast", "--date", "yesterday"])
        try await ofj(["log", "Soup", "--kcal", "200", "--meal", "dinner", "--date", "yesterday"])
        let r = try await ofj(["ask", "--yes", "same breakfast as yesterday"])
        #expect(r.stdout.contains("Copied 2 entries"), "\(r.stdout)")
        let originals = try await entries("yesterday").filter { $0["meal"] as? String == "breakfast" }
        let copies = try await entries("today")
        #expect(copies.count == 2)
        for (o, c) in zip(originals, copies) {
            #expect(c["meal"] as? String == "breakfast")
            #expect(c["nutrients"] as? [String: Double] == o["nutrients"] as? [String: Double])
            #expect(c["servings"] as? Double == o["servings"] as? Double)
        }
        try await ofj(["undo", "--yes"])
        #expect(try await entries("today").isEmpty)
    }

    @Test func nutrientOverridesOneEntryOfASavedFoodOnly() async throws {
        try await ofj(["foods", "add", "Granola", "--kcal", "200", "--protein", "5", "--nutrient", "fiber_g=2", "--serving", "50 g"])
        let e = try object(try await ofj(["log", "--food", "Granola", "--amount", "100 g", "--nutrient", "fiber_g=7.5", "--json"]).stdout)
        let n = e["nutrients"] as? [String: Double] ?? [:]
        #expect(n["fiber_g"] == 7.5 && n["energy_kcal"] == 400 && n["protein_g"] == 10, "\(n)")
        let again = try object(try await ofj(["log", "--food", "Granola", "--serving", "--json"]).stdout)
        #expect((again["nutrients"] as? [String: Double])?["fiber_g"] == 2)
        let bad = try await OfjBinary.run(["log", "--food", "Granola", "--nutrient", "vibes=1"], environment: env)
        #expect(bad.status == 2)
    }

    @Test func mealsOfYourOwnTakeEntriesAndRefuseBuiltInNames() async throws {
        try await ofj(["meals", "add", "Pre-workout", "--at", "16:30"])
        for name in ["Lunch", "snack", "Supper"] {
            let r = try await OfjBinary.run(["meals", "add", name, "--at", "10:00"], environment: env)
            #expect(r.status == 2)
            #expect(r.stderr.contains("is a built-in meal"), "\(r.stderr)")
        }
        let byName = try object(try await ofj(["log", "Shake", "--kcal", "200", "--meal", "pre-workout", "--json"]).stdout)
        #expect(byName["meal_label"] as? String == "Pre-workout" && byName["meal"] as? String == "snack")
        let byTime = try object(try await ofj(["log", "Bar", "--kcal", "150", "--at", "17:00", "--json"]).stdout)
        #expect(byTime["meal_label"] as? String == "Pre-workout")
        let after = try object(try await ofj(["log", "Pasta", "--kcal", "700", "--at", "19:00", "--json"]).stdout)
        #expect(after["meal"] as? String == "dinner" && after["meal_label"] == nil)
        let day = try await ofj(["day"]).stdout
        #expect(day.contains("  Pre-workout\n"), "\(day)")
        let unknown = try await OfjBinary.run(["log", "Tea", "--kcal", "2", "--meal", "elevenses"], environment: env)
        #expect(unknown.status == 2 && unknown.stderr.contains("or one of yours: Pre-workout"), "\(unknown.stderr)")
    }
}
