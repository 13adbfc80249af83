// Issue 33 §4-5 through the binary: ofj expenditure before and after enough data, ofj day mark
// (and undo), ofj checkin refusing without a goal, showing its card without a terminal and
// setting the goal with --yes, and ofj trend weight.
import Foundation
import Testing
import TestSupport

@Suite(.serialized) struct ExpenditureCLITests {
    let home = TempDirectory(prefix: "ofj-expenditure")
    var env: [String: String] {
        ["OFJ_HOME": home.file("data"), "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "OFJ_PROVIDER": "offline", "TZ": "UTC"]
    }

    @discardableResult
    func ofj(_ args: [String], status: Int32 = 0) async throws -> OfjBinary.Result {
        let r = try await OfjBinary.run(args, environment: env)
        #expect(r.status == status, "\(args): \(r.status) \(r.stderr)")
        return r
    }

    func json(_ r: OfjBinary.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }

    @Test func theEstimateTheMarksAndTheCheckIn() async throws {
        let empty = try await ofj(["expenditure"])
        #expect(empty.stdout.contains("not enough data yet"))
        #expect(empty.stdout.contains("14 more logged days and 8 more weigh-ins"))
        // 20 days before today eating 2,000 kcal and losing 0.05 kg a day: 2,000 + 385 kcal.
        for i in 1...20 {
            try await ofj(["log", "Meals", "--kcal", "2000", "--date", "-\(i)"])
            try await ofj(["weight", String(format: "%.2f", 80 + 0.05 * Double(i)), "--date", "-\(i)", "--force"])
        }
        var e = try json(try await ofj(["expenditure", "--json"]))
        #expect(e["expenditure_kcal"] as? Double == 2_385)
        #expect(e["intake_days"] as? Double == 20 && e["weigh_ins"] as? Double == 20 && e["window_days"] as? Double == 21)
        let text = try await ofj(["expenditure"])
        #expect(text.stdout.contains("Expenditure on ") && text.stdout.contains("2,385 kcal a day"))
        #expect(text.stdout.contains("balance    2,000 − 7,700 kcal/kg × (−0.0500 kg a day) = 2,385 kcal a day"))

        let marked = try await ofj(["day", "mark", "incomplete", "-3"])
        #expect(marked.stdout.contains("incomplete: ofj expenditure leaves it out."))
        e = try json(try await ofj(["expenditure", "--json"]))
        #expect(e["intake_days"] as? Double == 19)
        #expect((e["left_out"] as? [String: Any])?["marked_incomplete"] as? Double == 1)
        #expect(try await ofj(["day", "-3"]).stdout.contains(" (marked incomplete)"))
        #expect(try json(try await ofj(["day", "-3", "--json"]))["mark"] as? String == "incomplete")
        try await ofj(["undo", "--yes"])
        e = try json(try await ofj(["expenditure", "--json"]))
        #expect(e["intake_days"] as? Double == 20)
        let future = try await ofj(["day", "mark", "complete", "2999-01-01"], status: 2)
        #expect(future.stderr.contains("is in the future"))

        let noGoal = try await ofj(["checkin"], status: 1)
        #expect(noGoal.stderr.contains("no weight goal: set one with ofj profile set goal=lose rate=0.5kg/week"))
        try await ofj(["profile", "set", "sex=male", "goal=lose", "rate=1lb/week"])
        // No terminal and no --yes: the reasoning and the card, and nothing written.
        let shown = try await ofj(["checkin"], status: 1)
        #expect(shown.stdout.contains("to lose 0.45 kg a week eat 499 kcal less (7,700 kcal per kg ÷ 7 days): 1,890 kcal."), "\(shown.stdout)")
        #expect(shown.stdout.contains("Calories: 2000 kcal → 1890 kcal"))
        #expect(shown.stderr.contains("add --yes"))
        var goals = try json(try await ofj(["goals", "--json"]))
        #expect(goals["energy_kcal"] as? Double == 2_000, "\(goals)")
        try await ofj(["checkin", "--yes"])
        goals = try json(try await ofj(["goals", "--json"]))
        #expect(goals["energy_kcal"] as? Double == 1_890, "\(goals)")

        let chart = try await ofj(["trend", "weight", "--days", "7"])
        #expect(chart.stdout.hasPrefix("Weight, kg"))
        #expect(chart.stdout.contains("no weigh-in"), "today has none")
    }
}
