import Foundation
import Testing
import TestSupport

/// Issue 23 §3 and §4 end to end through the binary: `ofj entry …`, `ofj foods add|edit|archive|
/// unarchive|shelf`, `ofj import …`. Human output is compared with golden files (ids of foods
/// created during the test are masked); the journal starts from a backup with fixed ids.
@Suite struct JournalOpsCLITests {
    let home = TempDirectory(prefix: "ofj-ops")
    var env: [String: String] {
        ["OFJ_HOME": home.file("data"), "HOME": home.path, "XDG_CONFIG_HOME": home.file("config"), "OFJ_PROVIDER": "offline", "TZ": "UTC"]
    }
    static let data = OfjBinary.repositoryRoot + "/Tests/data/import/"
    static let golden = OfjBinary.repositoryRoot + "/Tests/Golden/cli/ops/"

    func expectGolden(_ text: String, _ name: String) throws {
        // Ids made during the test are random: masked, keeping their shape.
        // (The fixture's own ids, …-4000-8000-0000000000NN, stay.)
        let regex = try NSRegularExpression(pattern: "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
        var masked = text
        for m in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).reversed() {
            guard let r = Range(m.range, in: masked), !masked[r].contains("-4000-8000-0000000000") else { continue }
            masked.replaceSubrange(r, with: "<id>")
        }
        // Short ids listed first on a line, likewise.
        let short = try NSRegularExpression(pattern: "(?m)^ +([0-9a-f]{8})  ")
        for m in short.matches(in: masked, range: NSRange(masked.startIndex..., in: masked)).reversed() {
            guard let r = Range(m.range(at: 1), in: masked), !["3f2a9c1b", "7b11d2e4", "a1b2c3d4", "e5f60718"].contains(String(masked[r])) else { continue }
            masked.replaceSubrange(r, with: "<short>")
        }
        let path = Self.golden + name
        if ProcessInfo.processInfo.environment["OFJ_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(atPath: Self.golden, withIntermediateDirectories: true)
            try Data(masked.utf8).write(to: URL(fileURLWithPath: path))
        }
        let expected = try String(contentsOfFile: path, encoding: .utf8)
        #expect(masked == expected, "\(name) differs from its golden file; run with OFJ_UPDATE_GOLDEN=1 and review the diff")
    }

    @discardableResult
    func ofj(_ args: [String], input: String = "", status: Int32 = 0) async throws -> OfjBinary.Result {
        let r = try await OfjBinary.run(args, input: input, environment: env)
        #expect(r.status == status, "\(args): \(r.status) \(r.stderr)")
        return r
    }

    func seeded() async throws {
        try await ofj(["backup", "import", Self.data + "journal-ops-backup.json"])
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    // MARK: - entry

    @Test func entryShowEditMoveDeleteByShortIdWithGoldenOutput() async throws {
        try await seeded()
        var transcript = ""
        func record(_ args: [String], _ r: OfjBinary.Result) { transcript += "$ ofj \(args.map { $0.contains(" ") ? "\"\($0)\"" : $0 }.joined(separator: " "))\n\(r.stdout)\(r.stderr.isEmpty ? "" : "[stderr] " + r.stderr)\n" }
        for args in [["day", "2026-01-05"], ["entry", "show", "7b11"], ["entry", "edit", "7b11", "--servings", "1.5", "--name", "Chicken salad, large", "--yes"],
                     ["entry", "edit", "3F2A9C1B-0000", "--amount", "80 g", "--yes"], ["entry", "edit", "7b11", "--protein", "60", "--yes"],
                     ["entry", "move", "7b11", "--meal", "dinner", "--date", "2026-01-06", "--yes"], ["entry", "delete", "3f2a9c1b-1", "--yes"],
                     ["day", "2026-01-05"], ["day", "2026-01-06"]] {
            record(args, try await ofj(args))
        }
        try expectGolden(transcript, "entry.txt")
        // The amount went through the Food Bank food's measures: 80 g of a 40 g serving is 2 servings.
        let oats = try json(try await ofj(["entry", "show", "3f2a9c1b-0", "--json"]).stdout)
        #expect(oats["servings"] as? Double == 2)
        // Editing a nutrient keeps the others (the whole entry's amounts, merged).
        let salad = try json(try await ofj(["entry", "show", "7b11", "--json"]).stdout)
        let n = try #require(salad["nutrients"] as? [String: Double])
        #expect(n["protein_g"].map { ($0 * 1.5 * 1000).rounded() / 1000 } == 60 && n["sodium_mg"] == 820)
        #expect(salad["meal"] as? String == "dinner" && salad["day"] as? String == "2026-01-06")
    }

    @Test func anAmbiguousOrUnknownIdSaysWhatToDo() async throws {
        try await seeded()
        let ambiguous = try await ofj(["entry", "show", "3f2a"], status: 1)
        #expect(ambiguous.stderr == "ofj: '3f2a' matches 2 entries: 3f2a9c1b-0000-4000-8000-000000000001 Oats (2026-01-05), 3f2a9c1b-1111-4000-8000-000000000002 Coffee (2026-01-05); type more of the id\n")
        let none = try await ofj(["entry", "delete", "ffff", "--yes"], status: 1)
        #expect(none.stderr == "ofj: no entry has an id starting with 'ffff'; `ofj day` shows the ids\n")
        let foods = try await ofj(["foods", "archive", "a1b2", "--yes"], status: 1)
        #expect(foods.stderr.hasPrefix("ofj: 'a1b2' matches 2 foods: a1b2c3d4-0000-4000-8000-000000000001 Oats"))
        let nothing = try await ofj(["entry", "edit", "7b11", "--yes"], status: 2)
        #expect(nothing.stderr.contains("give what to change"))
        let badMeal = try await ofj(["entry", "move", "7b11", "--meal", "brunch", "--yes"], status: 2)
        #expect(badMeal.stderr.contains("invalid meal 'brunch'"))
        // A unit one letter from grams is asked about, not saved as a countable "gramz".
        let typo = try await ofj(["foods", "add", "Rye", "--kcal", "80", "--serving", "40 gramz"], status: 2)
        #expect(typo.stderr.contains("'gramz' is not a unit ofj knows (did you mean grams?)"))
        // The tool's own validation answers, in the command line's words.
        let emptyName = try await ofj(["entry", "edit", "7b11", "--name", " ", "--yes"], status: 2)
        #expect(emptyName.stderr.hasPrefix("ofj: NAME: "), "\(emptyName.stderr)")
        let hugeFood = try await ofj(["foods", "add", "Brick", "--kcal", "20000000"], status: 2)
        #expect(hugeFood.stderr.hasPrefix("ofj: energy_kcal: must be"), "\(hugeFood.stderr)")
        let badUnit = try await ofj(["entry", "edit", "7b11", "--amount", "2 cups", "--yes"], status: 2)
        #expect(badUnit.stderr.contains("does not convert to this entry's serving (1 bowl)"), "\(badUnit.stderr)")
    }

    /// Without a terminal and without --yes a destructive command refuses in one line and changes nothing.
    @Test func destructiveWithoutTerminalOrYesRefuses() async throws {
        try await seeded()
        for args in [["entry", "delete", "7b11"], ["entry", "edit", "7b11", "--servings", "2"], ["entry", "move", "7b11", "--meal", "snack"],
                     ["foods", "archive", "e5f6"], ["foods", "edit", "e5f6", "--kcal", "200"], ["foods", "shelf", "e5f6"]] {
            let r = try await ofj(args, input: "y\n", status: 1)
            #expect(r.stderr.hasSuffix("changes your journal and there is no terminal to ask on; add --yes to do it without asking\n"), "\(args): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1)
        }
        let day = try await ofj(["entry", "show", "7b11", "--json"])
        #expect(try json(day.stdout)["servings"] as? Double == 1)
        let shelf = try JSONSerialization.jsonObject(with: Data(try await ofj(["foods", "shelf", "--json"]).stdout.utf8)) as? [[String: Any]]
        #expect(shelf?.map { $0["name"] as? String } == ["Milk"], "only Milk is on the Shelf")
    }

    /// On a terminal the card is shown and y/n asked: n changes nothing, y applies.
    @Test func aTerminalIsAskedFirst() async throws {
        try await seeded()
        let binary = try #require(OfjBinary.path)
        let no = try PTYProcess(executable: binary, arguments: ["entry", "delete", "7b11"], environment: env)
        let card = await no.read(until: "Go ahead? [y/N]")
        #expect(card?.contains("Delete journal entry: Chicken salad") == true, "\(card ?? "")")
        no.send("n\r")
        #expect(await no.waitForExit() == 1)
        #expect(try await ofj(["entry", "show", "7b11"]).stdout.contains("Chicken salad"))
        let yes = try PTYProcess(executable: binary, arguments: ["entry", "delete", "7b11"], environment: env)
        _ = await yes.read(until: "Go ahead? [y/N]")
        yes.send("y\r")
        let rest = await yes.read(until: "✓ deleted")
        #expect(rest != nil)
        #expect(await yes.waitForExit() == 0)
        try await ofj(["entry", "show", "7b11"], status: 1)
    }

    // MARK: - foods

    @Test func foodsAddEditArchiveShelfWithGoldenOutput() async throws {
        try await seeded()
        var transcript = ""
        func record(_ args: [String], _ r: OfjBinary.Result) { transcript += "$ ofj \(args.map { $0.contains(" ") ? "\"\($0)\"" : $0 }.joined(separator: " "))\n\(r.stdout)\(r.stderr.isEmpty ? "" : "[stderr] " + r.stderr)\n" }
        for args in [["foods", "add", "Granola", "--kcal", "489", "--protein", "10", "--carbs", "64", "--fat", "20", "--serving", "1/2 cup", "--grams", "55", "--brand", "Nature Valley", "--nutrient", "sodium_mg=130"],
                     ["foods", "add", "Yogurt", "--kj", "250", "--protein", "10", "--serving", "150 g"],
                     ["foods", "add", "Overnight oats", "--ingredient", "oats=80 g", "--ingredient", "a1b2c3d4-0000-4000-8000-000000000002=1", "--ingredient", "Peanut butter=1 tbsp", "--recipe-servings", "2", "--shelf"],
                     ["foods", "edit", "e5f6", "--name", "Peanut butter, crunchy", "--kcal", "200", "--yes"],
                     ["foods", "archive", "e5f6", "--yes"], ["foods", "peanut"], ["foods", "unarchive", "e5f6", "--yes"],
                     ["foods", "shelf", "e5f6", "--yes"], ["foods", "shelf", "a1b2c3d4-0000-4000-8000-000000000002", "--off", "--yes"], ["foods", "shelf"]] {
            record(args, try await ofj(args))
        }
        try expectGolden(transcript, "foods.txt")
        let bad = try await ofj(["foods", "add", "Nothing"], status: 2)
        #expect(bad.stderr.contains("nutrients"), "\(bad.stderr)")
        let badIngredient = try await ofj(["foods", "add", "Mix", "--ingredient", "oats"], status: 2)
        #expect(badIngredient.stderr.contains("--ingredient takes FOOD=AMOUNT"))
        let json = try await ofj(["foods", "add", "Rice", "--kcal", "130", "--serving", "100 g", "--json"])
        let food = try self.json(json.stdout)
        #expect(food["name"] as? String == "Rice" && (food["serving"] as? [String: Any])?["grams"] as? Double == 100)
        // kJ is stored as kcal: 250 kJ = 59.75 kcal.
        let yogurt = try await ofj(["foods", "yogurt", "--json"])
        #expect(yogurt.stdout.contains("59.75"))
    }

    /// Issue 34 §6: a composite of a reference food and a Food Bank food, cooked as a batch.
    @Test func cookedCompositeFromReferenceAndFoodBankIngredients() async throws {
        try await seeded()
        let made = try await ofj(["foods", "add", "Cheesy oats", "--ingredient", "ref:01009=200 g", "--ingredient", "oats=80 g",
                                  "--cooked-weight", "1.2kg", "--recipe-servings", "4", "--json"])
        let food = try json(made.stdout)
        #expect(food["cooked_grams"] as? Double == 1200)
        #expect((food["serving"] as? [String: Any])?["grams"] as? Double == 300)
        let ingredients = try #require(food["ingredients"] as? [[String: Any]])
        #expect(ingredients.count == 2 && ingredients[0]["reference_id"] as? String == "01009")
        let refNutrients = try #require(ingredients[0]["nutrients"] as? [String: Double])
        // The ingredient carries exactly what logging the same amount of the reference food does.
        for args in [["log", "--ref", "01009", "--grams", "200", "--json"], ["log", "--ref", "01009", "--portion", "200 g", "--json"]] {
            let logged = try json(try await ofj(args).stdout)
            #expect(logged["nutrients"] as? [String: Double] == refNutrients, "\(args)")
        }
        // Grams of the cooked dish: that share of the ingredient sum, exactly.
        var sum: [String: Double] = [:]
        for i in ingredients { for (k, v) in try #require(i["nutrients"] as? [String: Double]) { sum[k, default: 0] += v } }
        func share(_ grams: Double) -> [String: Double] { sum.mapValues { (($0 * (grams / 1200)) * 1e6).rounded() / 1e6 } }
        for args in [["--grams", "250"], ["--amount", "250 g"], ["--amount", "0.25", "--unit", "kg"]] {
            let e = try json(try await ofj(["log", "--food", "Cheesy oats"] + args + ["--json"]).stdout)
            #expect(e["nutrients"] as? [String: Double] == share(250), "\(args)")
        }
        // One serving is a quarter of the batch.
        let serving = try json(try await ofj(["log", "--food", "Cheesy oats", "--servings", "1", "--json"]).stdout)
        let perServing = try #require(serving["nutrients"] as? [String: Double])
        #expect(abs((perServing["energy_kcal"] ?? 0) - (sum["energy_kcal"] ?? 0) / 4) < 1e-6)

        // Bad input: one clear line, nothing saved.
        let foodsBefore = try await ofj(["foods", "--json"]).stdout
        for (args, says) in [(["--ingredient", "ref:99999=200 g"], "no reference food has that id"),
                             (["--ingredient", "ref:01009=3 bananas"], "is not a measure of this food"),
                             (["--ingredient", "ref:01009=2"], "give the amount with a unit"),
                             (["--ingredient", "oats=1 cup"], "--ingredient"),
                             (["--ingredient", "oats=80 g", "--cooked-weight", "0"], "between 1 g and 100 kg"),
                             (["--ingredient", "oats=80 g", "--cooked-weight", "900 kg"], "between 1 g and 100 kg"),
                             (["--ingredient", "oats=80 g", "--cooked-weight", "2 cups"], "what the whole cooked batch weighs"),
                             (["--kcal", "100", "--cooked-weight", "1kg"], "--cooked-weight is for a cooked dish")] {
            let r = try await OfjBinary.run(["foods", "add", "Bad dish"] + args, environment: env)
            #expect(r.status != 0, "\(args)")
            #expect(r.stderr.contains(says), "\(args): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
        }
        #expect(try await ofj(["foods", "--json"]).stdout == foodsBefore)

        // A packaged product in the Food Bank is an ingredient by its barcode.
        var backup = try json(try await ofj(["backup", "export"]).stdout)
        backup["food_barcodes"] = ["A1B2C3D4-0000-4000-8000-000000000001": "5000159484695"]
        let file = home.file("with-barcode.json")
        try JSONSerialization.data(withJSONObject: backup).write(to: URL(fileURLWithPath: file))
        try await ofj(["backup", "import", file])
        let byCode = try json(try await ofj(["foods", "add", "Oat pot", "--ingredient", "barcode:5000159484695=80 g", "--json"]).stdout)
        let byName = try json(try await ofj(["foods", "add", "Oat pot 2", "--ingredient", "oats=80 g", "--json"]).stdout)
        #expect(byCode["nutrients"] as? [String: Double] != nil && byCode["nutrients"] as? [String: Double] == byName["nutrients"] as? [String: Double])
        let unknownCode = try await ofj(["foods", "add", "Bad dish", "--ingredient", "barcode:4006381333931=1"], status: 2)
        #expect(unknownCode.stderr.contains("no Food Bank food has that barcode"))
    }

    // MARK: - import

    @Test func importGoldenOutputDryRunThenOnceThenNothing() async throws {
        var transcript = ""
        func record(_ args: [String], _ r: OfjBinary.Result) {
            transcript += "$ ofj \(args.map { $0.hasPrefix("/") ? ($0 as NSString).lastPathComponent : $0.contains(" ") ? "\"\($0)\"" : $0 }.joined(separator: " "))\n\(r.stdout)\(r.stderr.isEmpty ? "" : "[stderr] " + r.stderr)\n"
        }
        let cron = Self.data + "cronometer-servings.csv", mfp = Self.data + "mfp-nutrition-summary.csv"
        for args in [["import", "cronometer", cron, "--dry-run"], ["import", "cronometer", cron], ["import", "cronometer", cron],
                     ["import", "myfitnesspal", mfp], ["day", "2026-01-06"]] {
            record(args, try await ofj(args))
        }
        let csv = home.file("other.csv")
        try Data("when;food;kcal;prot;fibre (g);note\n05/01/2026;Brot;250,5;8;3;x\n06/01/2026;Käse;110;7;0;\n".utf8).write(to: URL(fileURLWithPath: csv))
        let map = ["import", "csv", csv, "--map", "date=when,name=food,energy_kcal=kcal,protein_g=prot", "--day-first"]
        record(map, try await ofj(map))
        try expectGolden(transcript, "import.txt")
        let json = try await ofj(["import", "csv", csv, "--map", "date=when,name=food,energy_kcal=kcal", "--day-first", "--json"])
        let report = try self.json(json.stdout)
        #expect(report["added"] as? Int == 0 && report["already_imported"] as? Int == 2)
        let notCron = try await ofj(["import", "cronometer", mfp], status: 1)
        #expect(notCron.stderr.contains("not a Cronometer servings or biometrics export"))
        let noMap = try await ofj(["import", "csv", csv], status: 2)
        #expect(noMap.stderr.contains("needs --map"))
        let missing = try await ofj(["import", "myfitnesspal", home.file("nope.csv")], status: 1)
        #expect(missing.stderr == "ofj: cannot read \(home.file("nope.csv")): no such file\n")
    }

    /// Issue 33 §3: `ofj import cronometer|myfitnesspal` sees a biometrics or progress export and imports weigh-ins.
    @Test func importOfWeightExportsGoldenDryRunThenOnceThenNothing() async throws {
        var transcript = ""
        func record(_ args: [String], _ r: OfjBinary.Result) {
            transcript += "$ ofj \(args.map { $0.hasPrefix("/") ? ($0 as NSString).lastPathComponent : $0 }.joined(separator: " "))\n\(r.stdout)\(r.stderr.isEmpty ? "" : "[stderr] " + r.stderr)\n"
        }
        let bio = Self.data + "cronometer-biometrics.csv", progress = Self.data + "mfp-progress-weight.csv"
        for args in [["import", "cronometer", bio, "--dry-run"], ["import", "cronometer", bio], ["import", "cronometer", bio],
                     ["import", progress], ["weight", "--days", "3650"]] {
            record(args, try await ofj(args))
        }
        try expectGolden(transcript, "import-weights.txt")
        let json = try self.json(try await ofj(["import", "myfitnesspal", progress, "--json"]).stdout)
        #expect(json["weigh_ins"] as? Bool == true && json["added"] as? Int == 0 && json["already_imported"] as? Int == 4)
        // `ofj import FILE` also tells the food exports apart, and names what it cannot tell.
        let servings = try self.json(try await ofj(["import", Self.data + "cronometer-servings.csv", "--dry-run", "--json"]).stdout)
        #expect(servings["format"] as? String == "cronometer" && servings["weigh_ins"] as? Bool == false && servings["added"] as? Int == 7)
        let summary = try self.json(try await ofj(["import", Self.data + "mfp-nutrition-summary.csv", "--dry-run", "--json"]).stdout)
        #expect(summary["format"] as? String == "myfitnesspal" && summary["added"] as? Int == 4)
        let other = home.file("other.csv")
        try Data("when,food,kcal\n2026-01-05,Bread,250\n".utf8).write(to: URL(fileURLWithPath: other))
        let unknown = try await ofj(["import", other], status: 1)
        #expect(unknown.stderr.contains("cannot tell which app's export this is") && unknown.stderr.contains("ofj import csv FILE --map"), "\(unknown.stderr)")
        let none = try await ofj(["import"], status: 2)
        #expect(none.stderr.contains("needs a FILE"), "\(none.stderr)")
    }

}
