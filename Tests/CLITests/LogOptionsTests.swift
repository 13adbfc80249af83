// `ofj log` honours or refuses every option: each bad input is exit 2 with its exact line and
// nothing written (which options go with which mode is declared in the command table); the amounts that used to go wrong now log what was typed.
import Foundation
import Journal
import Nutrition
import SQLiteKit
import Testing
import TestSupport

@Suite struct LogOptionsTests {
    let home = TempDirectory(prefix: "ofj-log-options")
    var env: [String: String] { ["OFJ_HOME": home.file("data"), "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "OFJ_PROVIDER": "offline"] }

    static let refusals: [([String], String)] = [
        (["log", "--ref", "01077", "--amount", "200 ml"],
         "ofj: --amount does not apply to --ref: with --ref give the amount as --portion TEXT (\"2 large\", \"1 cup\", \"8 fl oz\") or --grams G (see ofj log --help)"),
        (["log", "--food", "oatmeal", "--portion", "1 cup"],
         "ofj: --portion does not apply to --food: with --food give the amount as --amount QTY [UNIT], --grams G or --servings N (see ofj log --help)"),
        (["log", "Toast", "--kcal", "80", "--grams", "30"],
         "ofj: --grams does not apply to a manual entry: a manual entry takes NAME with --kcal/--kj, --protein, --carbs, --fat, --nutrient, --brand (see ofj log --help)"),
        (["log", "--ref", "01123", "--kcal", "80"],
         "ofj: --kcal does not apply to --ref: with --ref give the amount as --portion TEXT (\"2 large\", \"1 cup\", \"8 fl oz\") or --grams G (see ofj log --help)"),
        (["log", "--ref", "01123", "--grams", "50", "--grams", "60"], "ofj: --grams is given twice; give it once (see ofj log --help)"),
        (["log", "--ref", "01123", "--servings", "2", "--servings=3"], "ofj: --servings is given twice; give it once (see ofj log --help)"),
        (["log", "Toast", "--kcal", "80", "--json", "--json"], "ofj: --json is given twice; give it once (see ofj log --help)"),
        (["log", "--ref", "01123", "--portion", "1 large", "--grams", "50"], "ofj: give --portion or --grams, not both (see ofj log --help)"),
        (["log", "--food", "oatmeal", "--ref", "01123"], "ofj: give --food or --ref, not both (see ofj log --help)"),
        (["log", "--ref", "01123", "--portion", "100 large"],
         "ofj: this entry would be 7150 kcal, more than one entry usually is; check the amount, or add --force to log it anyway"),
        (["log", "--ref", "01123", "--grams", "6000"],
         "ofj: this entry would be 8580 kcal and 6 kg, more than one entry usually is; check the amount, or add --force to log it anyway"),
        (["log", "Feast", "--kcal", "2000", "--servings", "3"],
         "ofj: this entry would be 6000 kcal, more than one entry usually is; check the amount, or add --force to log it anyway"),
        (["log", "--ref", "01123", "--portion", "200 ml", "--servings", "0"], "ofj: --servings must be a number above zero, not '0'"),
        (["log", "--ref", "11090", "--portion", "1 wheel"],
         "ofj: portion \"wheel\" is not a measure of this food; give grams or one of: 1 cup chopped, 1 bunch, 1 spear (about 5\" long), 1 stalk, 0.5 cup, chopped or diced, 1 NLEA serving; or g, oz"),
        (["log", "--ref", "05062", "--portion", "1 cup"],
         "ofj: portion \"1 cup\" is a volume and USDA gives this food no cup, tbsp, tsp or fl oz measure; give its weight (g, oz) or one of: 1 piece, 1 package; or g, oz"),
        (["log", "--ref", "05062", "--portion", "2"],
         "ofj: portion needs a unit or measure after the number, e.g. \"2 large\", \"1 cup\" or \"150 g\"; this food lists: 1 piece, 1 package; or g, oz"),
        (["log", "Soup", "--kcal", "100", "--kj", "418"], "ofj: give --kcal or --kj, not both (see ofj log --help)"),
    ]

    @Test func everyRefusalIsExitTwoWithItsLineAndWritesNothing() async throws {
        for (args, line) in Self.refusals {
            let r = try await OfjBinary.run(args, environment: env)
            #expect(r.status == 2, "\(args): \(r.stderr)")
            #expect(r.stderr == line + "\n", "\(args)")
            #expect(r.stdout.isEmpty, "\(args)")
        }
        let day = try await OfjBinary.run(["day"], environment: env)
        #expect(day.stdout.contains("Nothing logged"))
    }

    func loggedJSON(_ args: [String]) async throws -> [String: Any] {
        let r = try await OfjBinary.run(args + ["--json"], environment: env)
        #expect(r.status == 0, "\(args): \(r.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }

    @Test func amountsThatUsedToGoWrongLogWhatWasTyped() async throws {
        // An energy drink listed as "1 can 8.4 fl oz" = 258 g: 8 fl oz is not 8 cans.
        let drink = try await loggedJSON(["log", "--ref", "14154", "--portion", "8 fl oz"])
        let drinkServing = try #require(drink["serving"] as? [String: Any])
        #expect(abs((drinkServing["grams"] as? Double ?? 0) - 8 * 258 / 8.4) < 0.001)
        #expect(drinkServing["unit"] as? String == "fl oz")
        // 200 mL of milk through its cup weight (244 g).
        let milk = try await loggedJSON(["log", "--ref", "01077", "--portion", "200 ml"])
        let milkServing = try #require(milk["serving"] as? [String: Any])
        #expect(abs((milkServing["grams"] as? Double ?? 0) - 206.27) < 0.01)
        // --servings multiplies a reference entry.
        let eggs = try await loggedJSON(["log", "--ref", "01123", "--portion", "2 large", "--servings", "3"])
        #expect(eggs["servings"] as? Double == 3)
        // kJ are stored as kcal; --force lets a large entry through.
        let soup = try await loggedJSON(["log", "Soup", "--kj", "418.4"])
        #expect((soup["nutrients"] as? [String: Double])?["energy_kcal"] == 100)
        _ = try await loggedJSON(["log", "--ref", "01123", "--portion", "100 large", "--force"])
        // --nutrient may be repeated and every value is kept.
        let manual = try await loggedJSON(["log", "Broth", "--kcal", "10", "--nutrient", "sodium_mg=800", "--nutrient", "potassium_mg=50"])
        let n = try #require(manual["nutrients"] as? [String: Double])
        #expect(n["sodium_mg"] == 800 && n["potassium_mg"] == 50)
    }

    @Test func dayJSONShowsNullForAGoalNutrientNoEntryReported() async throws {
        _ = try await loggedJSON(["log", "Soup", "--kcal", "300"])
        let r = try await OfjBinary.run(["day", "--json"], environment: env)
        let view = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let goals = try #require(view["goals"] as? [[String: Any]])
        let fiber = try #require(goals.first { $0["id"] as? String == "fiber_g" })
        #expect(fiber["consumed"] is NSNull && fiber["remaining"] is NSNull && fiber["not_reported_count"] as? Int == 1)
        #expect(goals.first { $0["id"] as? String == "energy_kcal" }?["consumed"] as? Double == 300)
    }

    /// Puts an oatmeal food (1 cup = 240 g, 160 kcal) in the Food Bank through a backup import.
    func importOatmeal() async throws {
        let store = try JournalStore.openStandalone(queue: try DatabaseQueue.inMemory())
        try store.createFood(FoodDraft(name: "Oatmeal", serving: ServingSize(quantity: 1, unit: .volume(.cup), grams: 240),
                                       nutrients: try NutrientAmounts(["energy_kcal": 160, "protein_g": 6])))
        let file = home.file("oatmeal-backup.json")
        try store.exportBackup().write(to: URL(fileURLWithPath: file))
        let r = try await OfjBinary.run(["backup", "import", file], environment: env)
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test func foodBankOptionsAreHonoured() async throws {
        try await importOatmeal()
        // --grams with --food used to log 1 cup.
        let grams = try await loggedJSON(["log", "--food", "oatmeal", "--grams", "40"])
        #expect((grams["serving"] as? [String: Any])?["grams"] as? Double == 40)
        #expect(abs(((grams["nutrients"] as? [String: Double])?["energy_kcal"] ?? 0) - 160.0 * 40 / 240) < 1e-5)
        // --servings multiplies an --amount too.
        let twice = try await loggedJSON(["log", "--food", "oatmeal", "--amount", "1/2 cup", "--servings", "2"])
        #expect((twice["serving"] as? [String: Any])?["grams"] as? Double == 240)
        // A volume through the food's own cup weight.
        let ml = try await loggedJSON(["log", "--food", "oatmeal", "--amount", "100 ml"])
        let g = (ml["serving"] as? [String: Any])?["grams"] as? Double ?? 0
        #expect(abs(g - 100 * 240 / 236.5882365) < 1e-6)
        let both = try await OfjBinary.run(["log", "--food", "oatmeal", "--grams", "40", "--amount", "1 cup"], environment: env)
        #expect(both.status == 2 && both.stderr == "ofj: give --amount or --grams, not both (see ofj log --help)\n")
        let unit = try await OfjBinary.run(["log", "--food", "oatmeal", "--unit", "cup"], environment: env)
        #expect(unit.status == 2 && unit.stderr == "ofj: --unit goes with --amount (see ofj log --help)\n")
        let big = try await OfjBinary.run(["log", "--food", "oatmeal", "--servings", "40"], environment: env)
        #expect(big.status == 2 && big.stderr == "ofj: this entry would be 6400 kcal and 9.6 kg, more than one entry usually is; check the amount, or add --force to log it anyway\n")
        let day = try await OfjBinary.run(["day", "--json"], environment: env)
        let view = try #require(try JSONSerialization.jsonObject(with: Data(day.stdout.utf8)) as? [String: Any])
        let entries = (view["meals"] as? [[String: Any]] ?? []).flatMap { $0["entries"] as? [[String: Any]] ?? [] }
        #expect(entries.count == 3)
    }
}
