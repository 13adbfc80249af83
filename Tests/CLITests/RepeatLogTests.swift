// Issue 34 §1 and §4: a food logged with no amount gets the amount it was last logged with (said
// so; --serving forces its own serving), and energy with no name is a "Quick add" entry.
import Foundation
import Testing
import TestSupport

@Suite struct RepeatLogTests {
    let home = TempDirectory(prefix: "ofj-repeat-log")
    var env: [String: String] { ["OFJ_HOME": home.file("data"), "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "OFJ_PROVIDER": "offline"] }

    func ofj(_ args: [String]) async throws -> OfjBinary.Result {
        let r = try await OfjBinary.run(args, environment: env)
        #expect(r.status == 0, "\(args): \(r.stderr)")
        return r
    }

    func json(_ args: [String]) async throws -> [String: Any] {
        let r = try await ofj(args + ["--json"])
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }

    @Test func aFoodBankFoodWithNoAmountIsLoggedAsLastTime() async throws {
        _ = try await ofj(["foods", "add", "Oats", "--kcal", "150", "--protein", "5", "--serving", "40 g"])
        _ = try await ofj(["log", "--food", "Oats", "--amount", "80 g"])
        let again = try await ofj(["log", "--food", "Oats"])
        #expect(again.stdout.contains("Oats — 80 g — 300 kcal"), "\(again.stdout)")
        #expect(again.stdout.hasSuffix("; same as last time: 80 g (--serving for one serving)\n"), "\(again.stdout)")
        let last = try await json(["log", "--food", "Oats"])
        #expect((last["nutrients"] as? [String: Double])?["energy_kcal"] == 300)
        #expect((last["serving"] as? [String: Any])?["quantity"] as? Double == 80)
        // --serving forces the food's own serving; --servings N is an amount too.
        let one = try await json(["log", "--food", "Oats", "--serving"])
        #expect(one["servings"] as? Double == 1)
        #expect((one["nutrients"] as? [String: Double])?["energy_kcal"] == 150)
        _ = try await ofj(["log", "--food", "Oats", "--servings", "2"])
        let two = try await ofj(["log", "--food", "Oats"])
        #expect(two.stdout.contains("same as last time: 2 servings (80 g)"), "\(two.stdout)")
    }

    @Test func aFoodNeverLoggedGetsItsServingAndSaysNothing() async throws {
        _ = try await ofj(["foods", "add", "Rice", "--kcal", "200", "--serving", "1 cup"])
        let r = try await ofj(["log", "--food", "Rice"])
        #expect(r.stdout.contains("Rice — 1 cup — 200 kcal"), "\(r.stdout)")
        #expect(!r.stdout.contains("same as last time"))
    }

    @Test func aReferenceFoodWithNoAmountIsLoggedAsLastTime() async throws {
        _ = try await ofj(["log", "--ref", "09040", "--portion", "1 large", "--servings", "2"])
        let again = try await json(["log", "--ref", "09040"])
        #expect(again["servings"] as? Double == 2)
        #expect((again["serving"] as? [String: Any])?["grams"] as? Double == 136)
        let text = try await ofj(["log", "--ref", "09040"])
        #expect(text.stdout.contains("same as last time: 2 × 1 large (136 g) (--serving for 100 g)"), "\(text.stdout)")
        let hundred = try await json(["log", "--ref", "09040", "--serving"])
        #expect((hundred["serving"] as? [String: Any])?["grams"] as? Double == 100)
    }

    @Test func energyWithNoNameIsAQuickAdd() async throws {
        let e = try await json(["log", "--kcal", "450", "--meal", "lunch"])
        #expect(e["name"] as? String == "Quick add")
        #expect(e["meal"] as? String == "lunch")
        #expect((e["nutrients"] as? [String: Double])?["energy_kcal"] == 450)
        let kj = try await json(["log", "--kj", "418.4"])
        #expect(kj["name"] as? String == "Quick add")
        // Without energy there is nothing to quick add: the usual line, nothing written.
        let r = try await OfjBinary.run(["log", "--protein", "20"], environment: env)
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("ofj: give the food's NAME (quote it), or --food / --ref"), "\(r.stderr)")
        let day = try await json(["day"])
        let meals = try #require(day["meals"] as? [[String: Any]])
        #expect(meals.flatMap { ($0["entries"] as? [Any]) ?? [] }.count == 2)
    }
}
