// The shipped SR28 data: counts, values kept verbatim, "not reported" kept absent, loading errors.
import Foundation
import Testing
@testable import ReferenceFoods

@Suite("Reference data")
struct ReferenceDataTests {
    let db = Fixtures.shipped

    @Test func loadsEveryFoodAndColumn() throws {
        try db.load()
        #expect(db.count == 8789)
        #expect(db.nutrientColumns.count == 65)
        #expect(db.nutrientColumns.first?.id == "energy_kcal")
        #expect(db.allFoods.map(\.portions.count).reduce(0, +) == 15438)
        let ids = db.allFoods.map(\.id)
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == ids.count)
    }

    @Test func everyColumnIsReportedExactlyAsOftenAsUSDASays() throws {
        // columns.tsv carries USDA's per-column counts; blanks must stay absent (not 0) for these to agree.
        var reported: [String: Int] = [:]
        for food in db.allFoods {
            for key in food.nutrientsPer100g.keys { reported[key, default: 0] += 1 }
        }
        for column in db.nutrientColumns {
            #expect(reported[column.id, default: 0] == column.foodsWithValue, "\(column.id)")
        }
        let fluoride = try #require(db.nutrientColumns.first { $0.id == "fluoride_mcg" })
        #expect(fluoride.foodsWithValue == 554)
    }

    @Test func nutrientKeysAreTheColumnIDs() throws {
        let ids = Set(db.nutrientColumns.map(\.id))
        for expected in ["energy_kcal", "protein_g", "sodium_mg", "vitamin_a_rae_mcg", "vitamin_k2_mk4_mcg"] {
            #expect(ids.contains(expected))
        }
        for food in db.allFoods.prefix(500) {
            #expect(Set(food.nutrientsPer100g.keys).isSubset(of: ids))
        }
    }

    @Test func eggMatchesPublishedSR28Values() throws {
        let egg = try #require(db.food(id: "01123"))
        #expect(egg.description == "Egg, whole, raw, fresh")
        #expect(egg.group == "Dairy and Egg Products")
        #expect(egg.fdcID == 171287)
        let n = egg.nutrientsPer100g
        #expect(n["energy_kcal"] == 143)
        #expect(n["protein_g"] == 12.56)
        #expect(n["fat_g"] == 9.51)
        #expect(n["cholesterol_mg"] == 372)
        #expect(n["sodium_mg"] == 142)
        #expect(egg.per100g("protein_g") == 12.56)
        #expect(egg.per100g("no_such_nutrient") == nil)
        #expect(db.food(id: "09040")?.per100g("energy_kcal") == 89)
        #expect(db.food(id: "20045")?.per100g("energy_kcal") == 130)
    }

    @Test func blankValuesAreAbsentAndZerosArePresent() throws {
        // Butter, salted: starch and menaquinone-4 (the last column) are blank; fiber is 0.0.
        let butter = try #require(db.food(id: "01001"))
        let n = butter.nutrientsPer100g
        #expect(n["starch_g"] == nil)
        #expect(n["vitamin_k2_mk4_mcg"] == nil)
        #expect(butter.per100g("starch_g") == nil)
        #expect(n["fiber_g"] == 0)
        #expect(n["water_g"] == 15.87)
        #expect(n["saturated_fat_g"] == 51.368)
        #expect(n.count == 63)
        // Blue cheese (01004) has no trans fat value.
        #expect(db.food(id: "01004")?.nutrientsPer100g["trans_fat_g"] == nil)
    }

    @Test func scalingKeepsMissingValuesMissing() throws {
        let egg = try #require(db.food(id: "01123"))
        let half = egg.nutrients(forGrams: 50)
        #expect(half["energy_kcal"] == 71.5)
        #expect(half["protein_g"] == 6.28)
        #expect(Set(half.keys) == Set(egg.nutrientsPer100g.keys))
        let butter = try #require(db.food(id: "01001"))
        #expect(butter.nutrients(forGrams: 14.2)["starch_g"] == nil)
        #expect(egg.nutrients(forGrams: 0)["energy_kcal"] == 0)
        #expect(egg.nutrients(forGrams: -1).isEmpty)
        #expect(egg.nutrients(forGrams: .nan).isEmpty)
        #expect(egg.nutrients(forGrams: .infinity).isEmpty)
    }

    @Test func portionsAreVerbatimAndInUSDAOrder() throws {
        let egg = try #require(db.food(id: "01123"))
        #expect(egg.portions.first == ReferencePortion(sequence: 1, amount: 1, measure: "large", gramWeight: 50))
        #expect(egg.portions.map(\.sequence) == egg.portions.map(\.sequence).sorted())
        #expect(egg.portions.contains { $0.measure == "cup (4.86 large eggs)" && $0.gramWeight == 243 })
        let butter = try #require(db.food(id: "01001"))
        #expect(butter.portions.first?.measure == "pat (1\" sq, 1/3\" high)")
        #expect(butter.portions.first?.label == "1 pat (1\" sq, 1/3\" high)")
        let peanutButter = try #require(db.food(id: "16098"))
        #expect(peanutButter.portions.first?.amount == 2)
        #expect(peanutButter.portions.first?.gramsPerMeasure == 16)
        #expect(peanutButter.portions.first?.label == "2 tbsp")
        #expect(peanutButter.fdcID == nil)
    }

    @Test func unknownIDsFindNothing() {
        #expect(db.food(id: "") == nil)
        #expect(db.food(id: "1123") == nil)
        #expect(db.food(id: "99999") == nil)
        #expect(db.food(id: "01123 ") == nil)
    }

    @Test func fastNumberParserAgreesWithDoubleParsingOnEveryShippedValue() throws {
        let url = ReferenceDatabase.bundledDirectory.appendingPathComponent("foods.tsv")
        let text = try String(contentsOf: url, encoding: .utf8)
        var checked = 0
        var mismatches: [String] = []
        for line in text.split(separator: "\n").dropFirst() {
            for cell in line.split(separator: "\t", omittingEmptySubsequences: false).dropFirst(5) where !cell.isEmpty {
                if ResourceParser.parseNumber(String(cell)) != Double(cell) { mismatches.append(String(cell)) }
                checked += 1
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
        #expect(checked > 400_000)
        #expect(ResourceParser.parseNumber("") == nil)
        #expect(ResourceParser.parseNumber("1.2.3") == nil)
        #expect(ResourceParser.parseNumber("-1") == nil)
        #expect(ResourceParser.parseNumber("1e3") == 1000)
        #expect(ResourceParser.parseNumber("nan") == nil)
    }

    @Test func concurrentFirstUseLoadsOnceAndAgrees() async throws {
        let scratch = try ScratchDirectory()
        let mini = try Fixtures.miniDatabase(in: scratch)
        let counts = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<16 { group.addTask { mini.search("widget", limit: 10).count + mini.count } }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(counts == Array(repeating: 5, count: 16))
    }
}

@Suite("Reference files from a directory")
struct ReferenceDirectoryTests {
    @Test func readsAHandWrittenDatabase() throws {
        let scratch = try ScratchDirectory()
        let db = try Fixtures.miniDatabase(in: scratch)
        try db.load()
        #expect(db.count == 3)
        let widget = try #require(db.food(id: "00001"))
        #expect(widget.nutrientsPer100g == ["energy_kcal": 50, "sodium_mg": 12.5])
        #expect(widget.fdcID == 100)
        #expect(widget.commonName == nil)
        #expect(widget.portions.count == 2)
        #expect(widget.portions[1].gramsPerMeasure == 120)
        let smoked = try #require(db.food(id: "00002"))
        #expect(smoked.nutrientsPer100g == ["energy_kcal": 80, "protein_g": 1.25])
        #expect(smoked.fdcID == nil)
        #expect(smoked.commonName == "gizmo")
        #expect(smoked.portions.isEmpty)
        #expect(db.food(id: "00003")?.nutrientsPer100g == ["energy_kcal": 0, "protein_g": 0, "sodium_mg": 0])
        #expect(db.search("gizmo", limit: 5).map(\.id) == ["00002"])
        #expect(db.search("creme", limit: 5).map(\.id) == ["00003"])
        #expect(db.search("widget", limit: 5).map(\.id) == ["00001", "00002"])
    }

    @Test func nothingIsReadUntilTheFirstLookup() throws {
        let scratch = try ScratchDirectory()
        let db = try Fixtures.miniDatabase(in: scratch)
        #expect(!db.isLoaded)
        // The file as it is at the first lookup is the one read: making the database read nothing.
        try scratch.write("foods.tsv", Fixtures.foodsHeader + "00009\t\tTest Group\tLate widget\t\t10\t1\t1\n")
        #expect(!db.isLoaded)
        #expect(db.food(id: "00009")?.description == "Late widget")
        #expect(db.isLoaded)
        #expect(db.count == 1)
    }

    @Test func missingDirectoryIsAClearError() throws {
        let db = ReferenceDatabase(directoryPath: "/nonexistent/ofj-reference")
        #expect(!db.isLoaded)
        #expect(throws: ReferenceDatabaseError.missingFile("columns.tsv")) { try db.load() }
        #expect(db.isLoaded) // tried once; not read again
        #expect(db.count == 0)
        #expect(db.search("egg", limit: 5).isEmpty)
        #expect(db.food(id: "01123") == nil)
        let message = String(describing: ReferenceDatabaseError.missingFile("foods.tsv"))
        #expect(!message.contains("\n"))
        #expect(message.contains("foods.tsv"))
    }

    @Test(arguments: [
        ("foods.tsv", Fixtures.foodsHeader + "00001\t100\tG\tWidget\t\t50\t1\n", 2, "fields"),
        ("foods.tsv", Fixtures.foodsHeader + "00001\t100\tG\tWidget\t\t50\tabc\t1\n", 2, "protein_g"),
        ("foods.tsv", Fixtures.foodsHeader + "00001\t100\tG\tWidget\t\t50\t-3\t1\n", 2, "protein_g"),
        ("foods.tsv", Fixtures.foodsHeader + "00001\tx\tG\tWidget\t\t50\t1\t1\n", 2, "fdc_id"),
        ("foods.tsv", Fixtures.foodsHeader + "\t\tG\tWidget\t\t50\t1\t1\n", 2, "ndb_no"),
        ("foods.tsv", "ndb_no\tdescription\n00001\tWidget\n", 1, "header"),
        ("foods.tsv", "", 1, "empty"),
        ("portions.tsv", Fixtures.portionsHeader + "00001\t1\t0\tcup\t30\n", 2, "amount"),
        ("portions.tsv", Fixtures.portionsHeader + "00001\tone\t1\tcup\t30\n", 2, "seq"),
        ("columns.tsv", Fixtures.columnsHeader + "energy_kcal\tkcal\t208\tEnergy\tmany\n", 2, "foods_with_value"),
    ])
    func damagedFilesAreRejectedWithTheLine(file: String, content: String, line: Int, problem: String) throws {
        let scratch = try ScratchDirectory()
        _ = try Fixtures.miniDatabase(in: scratch)
        try scratch.write(file, content)
        let db = ReferenceDatabase(directoryPath: scratch.path)
        do {
            try db.load()
            Issue.record("expected \(file) to be rejected")
        } catch let ReferenceDatabaseError.malformed(badFile, badLine, message) {
            #expect(badFile == file)
            #expect(badLine == line)
            #expect(message.contains(problem), "\(message)")
        }
        #expect(db.count == 0)
    }
}

@Suite("Shipped resource files")
struct ResourceFileTests {
    private func lines(_ name: String) throws -> [Substring] {
        let url = ReferenceDatabase.bundledDirectory.appendingPathComponent(name)
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.hasSuffix("\n"), "\(name) ends with a newline")
        #expect(!text.contains("\r"), "\(name) has LF line endings only")
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    }

    @Test func filesAreSortedAndCanonicalSoRegenerationDiffsCleanly() throws {
        let foods = try lines("foods.tsv")
        #expect(foods.count == 8790)
        let ids = foods.dropFirst().map { $0.prefix { $0 != "\t" } }
        #expect(ids == ids.sorted())
        let portions = try lines("portions.tsv")
        #expect(portions.count == 15439)
        let keys = portions.dropFirst().map { line -> (String, Int) in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            return (String(fields[0]), Int(fields[1]) ?? -1)
        }
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 })
        let columns = try lines("columns.tsv")
        #expect(columns.count == 66)
        let padded = (foods + portions + columns).filter {
            $0.contains(" \t") || $0.contains("\t ") || $0.hasPrefix(" ") || $0.hasSuffix(" ")
        }
        #expect(padded.isEmpty, "fields are trimmed: \(padded.prefix(3))")
    }
}
