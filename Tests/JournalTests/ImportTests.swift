// Issue 23 §4: import from Cronometer, MyFitnessPal and any CSV — the documented export formats
// (fixtures in Tests/data/import), idempotence, and the bad input of the issue: a BOM, CRLF,
// semicolons, decimal commas, several date formats, a repeated header, a truncated last line and
// 1,000,000 rows read with bounded memory.
import Foundation
import Nutrition
import SQLiteKit
import Testing
import TestSupport
@testable import Journal

@Suite struct ImportTests {
    let dir = TempDirectory(prefix: "ofj-import")
    static let fixtures = OfjBinary.repositoryRoot + "/Tests/data/import/"

    func write(_ name: String, _ text: String, bom: Bool = false) throws -> String {
        let path = dir.file(name)
        try Data((bom ? [0xEF, 0xBB, 0xBF] : []) + Array(text.utf8)).write(to: URL(fileURLWithPath: path))
        return path
    }

    func entries(_ store: JournalStore) throws -> [Entry] {
        try store.entries(from: day("2000-01-01"), to: day("2100-01-01"))
    }

    @Test func cronometerServingsExportImportsOnceWithUnitsConverted() throws {
        let (store, _) = try makeStore()
        let file = Self.fixtures + "cronometer-servings.csv"
        let first = try store.importFile(file, options: ImportOptions(format: .cronometer))
        #expect(first.rowsRead == 7 && first.added == 7 && first.skipped == 0, "\(first)")
        let all = try entries(store)
        #expect(all.count == 7)
        let oats = try #require(all.first { $0.name == "Oats, Rolled, Dry" })
        #expect(oats.meal == .breakfast && oats.day == day("2026-01-05") && oats.source == .import)
        #expect(oats.serving.unit == .mass(.g) && oats.serving.quantity == 40 && oats.serving.grams == 40)
        #expect(oats.totalNutrients["energy_kcal"] == 151.6 && oats.totalNutrients["thiamin_mg"] == 0.18)
        // Vitamin D in IU becomes µg (USDA: 1 µg = 40 IU); B12 in µg stays µg.
        let milk = try #require(all.first { $0.name == "Milk, 2%" })
        #expect(milk.totalNutrients["vitamin_d_mcg"] == 3 && milk.totalNutrients["vitamin_b12_mcg"] == 1.1)
        #expect(milk.serving.unit == .volume(.cup))
        // Two identical rows are two bananas, not a duplicate.
        #expect(all.filter { $0.name == "Banana" }.count == 2)
        // "Uncategorized" is not a meal: a snack, and said so.
        #expect(all.first { $0.name == "Water" }?.meal == .snack && first.otherMeals["Uncategorized"] == 1)
        // Columns ofj does not track are listed, not dropped silently.
        #expect(first.unmappedNutrients.map(\.column).contains("Omega-3 (g)"))
        // Every nutrient ofj stores is imported with its unit (issue 30 §7): alcohol and starch too.
        #expect(!first.unmappedNutrients.map(\.column).contains("Alcohol (g)") && !first.unmappedNutrients.map(\.column).contains("Starch (g)"))
        #expect(first.mappedColumns["Alcohol (g)"] == "alcohol_g" && first.mappedColumns["Starch (g)"] == "starch_g")
        #expect(oats.totalNutrients["starch_g"] == 22.4 && oats.totalNutrients["alcohol_g"] == 0)
        let second = try store.importFile(file, options: ImportOptions(format: .cronometer))
        #expect(second.added == 0 && second.alreadyImported == 7)
        #expect(try entries(store).count == 7)
        #expect(try count(store, "journal_import_rows") == 7)
    }

    // Issue 33 §3: weigh-ins from Cronometer's biometrics and MyFitnessPal's progress exports.
    @Test func cronometerBiometricsImportWeighInsInOneUndoStepAndOnlyOnce() throws {
        let (store, _) = try makeStore()
        let file = Self.fixtures + "cronometer-biometrics.csv"
        let dry = try store.importFile(file, options: ImportOptions(format: .cronometer, dryRun: true))
        let afterDry = try count(store, "journal_weights")
        #expect(dry.weighIns && dry.added == 4 && dry.weightPreview.count == 4 && afterDry == 0)
        let stepsBefore = try store.queue.read { try store.undoSteps(last: 100, in: $0) }.count
        let r = try store.importFile(file, options: ImportOptions(format: .cronometer))
        #expect(r.weighIns && r.rowsRead == 6 && r.added == 4 && r.skipped == 0, "\(r)")
        #expect(r.otherMeasurements == ["Body Fat": 1, "Blood Pressure": 1])
        #expect(r.firstDay == day("2026-01-05") && r.lastDay == day("2026-01-08"))
        let w = try store.weighIns()
        #expect(w.map(\.kg) == [81.4, 81.1, 80.83, 80.9] && w.allSatisfy { $0.source == "import:cronometer" })
        #expect(try count(store, "journal_entries") == 0)
        let steps = try store.queue.read { try store.undoSteps(last: 100, in: $0) }
        #expect(steps.count == stepsBefore + 1 && steps[0].changes.count == 4)
        // Again: the same day and kg is already there.
        let again = try store.importFile(file, options: ImportOptions(format: .cronometer))
        let afterAgain = try count(store, "journal_weights")
        #expect(again.added == 0 && again.alreadyImported == 4 && afterAgain == 4)
        // One undo takes the whole import back.
        _ = try store.undo(last: 1, expected: [steps[0].id])
        #expect(try count(store, "journal_weights") == 0)
    }

    @Test func myFitnessPalProgressExportsReadTheUnitFromHeaderOrValue() throws {
        let (store, _) = try makeStore()
        let r = try store.importFile(Self.fixtures + "mfp-progress-weight.csv", options: ImportOptions(format: .myFitnessPal))
        #expect(r.weighIns && r.added == 4 && r.unitAssumed == nil, "\(r)")
        let mw = try store.weighIns()
        #expect(mw.first?.kg == 81.647 && mw.allSatisfy { $0.source == "import:myfitnesspal" })
        let m = try store.importFile(Self.fixtures + "mfp-measurements.csv", options: ImportOptions(format: .myFitnessPal))
        #expect(m.added == 2 && m.otherMeasurements == ["Waist": 1], "\(m)")
        #expect(try store.weighIns(from: day("2026-01-09"), to: day("2026-01-09")).map(\.kg) == [81.2])
        // Unit-less weights are read in the profile's units, and said so.
        let plain = try write("plain.csv", "Date,Weight\n2026-02-01,80.5\n2026-02-01,80.5\n")
        let p = try store.importFile(plain, options: ImportOptions(format: .myFitnessPal))
        #expect(p.added == 1 && p.alreadyImported == 1 && p.unitAssumed == "kg")
    }

    @Test func aWeightThatIsNotANumberIsReportedWithItsLineAndTheRestImported() throws {
        let (store, _) = try makeStore()
        let path = try write("bio.csv", """
            Day,Group,Metric,Unit,Amount
            2026-01-05,Default,Weight,kg,81.4
            2026-01-06,Default,Weight,kg,eighty
            2026-01-07,Default,Weight,furlongs,80
            2026-01-08,Default,Weight,kg,8000
            2026-01-09,Default,Weight,kg,80.9

            """)
        let r = try store.importFile(path, options: ImportOptions(format: .cronometer))
        #expect(r.added == 2 && r.skipped == 3, "\(r)")
        #expect(r.skippedRows.map(\.line) == [3, 4, 5])
        #expect(r.skippedRows[0].reason == "line 3: \"eighty\" is not a weight")
        #expect(r.skippedByReason == ["bad weight": 1, "bad unit": 1, "out of range": 1])
        #expect(try store.weighIns().map(\.day) == [day("2026-01-05"), day("2026-01-09")])
    }

    @Test func myFitnessPalSummaryIsOneEntryPerMealAndPercentColumnsAreListed() throws {
        let (store, _) = try makeStore()
        let r = try store.importFile(Self.fixtures + "mfp-nutrition-summary.csv", options: ImportOptions(format: .myFitnessPal))
        #expect(r.added == 4 && r.skipped == 0)
        let lunch = try #require(try entries(store).first { $0.name == "Lunch (MyFitnessPal)" })
        // "1,050.0" in a comma file is one thousand and fifty.
        #expect(lunch.totalNutrients["energy_kcal"] == 1050 && lunch.totalNutrients["sodium_mg"] == 1820)
        #expect(lunch.totalNutrients["cholesterol_mg"] == 160 && lunch.totalNutrients["potassium_mg"] == 900)
        #expect(lunch.totalNutrients["vitamin_c_mg"] == nil && lunch.totalNutrients["iron_mg"] == nil)
        #expect(Set(r.unmappedNutrients.map(\.column)) == ["Vitamin A", "Vitamin C", "Calcium", "Iron"])
        #expect(try store.importFile(Self.fixtures + "mfp-nutrition-summary.csv", options: ImportOptions(format: .myFitnessPal)).added == 0)
    }

    @Test func bomAndCRLFAreRead() throws {
        let (store, _) = try makeStore()
        let path = try write("bom.csv", "Date,Meal,Calories,Protein (g)\r\n2026-01-05,Breakfast,400,20\r\n2026-01-05,Dinner,600,30\r\n", bom: true)
        let r = try store.importFile(path, options: ImportOptions(format: .myFitnessPal))
        #expect(r.added == 2 && r.skipped == 0, "\(r)")
        #expect(try entries(store).map(\.meal).sorted() == [.breakfast, .dinner])
        #expect(try entries(store).allSatisfy { !$0.name.contains("\r") })
    }

    @Test func semicolonsAndDecimalCommasWithAColumnMap() throws {
        let (store, _) = try makeStore()
        let path = try write("de.csv", "Datum;Mahlzeit;Lebensmittel;Menge;Energie (kcal);Eiweiß\n05.01.2026;Frühstück;Brot;\"1,5 slice\";250,5;8,25\n06.01.2026;lunch;Käse;30 g;\"1.120,5\";7\n")
        let map = ["date": "Datum", "meal": "Mahlzeit", "name": "Lebensmittel", "amount": "Menge", "energy_kcal": "Energie (kcal)", "protein_g": "Eiweiß"]
        let r = try store.importFile(path, options: ImportOptions(format: .csv(map)))
        #expect(r.added == 2, "\(r)")
        let all = try entries(store)
        let bread = try #require(all.first { $0.name == "Brot" })
        #expect(bread.totalNutrients["energy_kcal"] == 250.5 && bread.totalNutrients["protein_g"] == 8.25)
        #expect(bread.day == day("2026-01-05") && bread.serving.quantity == 1.5)
        // "Frühstück" is no meal ofj knows: a snack, listed.
        #expect(bread.meal == .snack && r.otherMeals["Frühstück"] == 1)
        let cheese = try #require(all.first { $0.name == "Käse" })
        #expect(cheese.totalNutrients["energy_kcal"] == 1120.5 && cheese.serving.grams == 30 && cheese.meal == .lunch)
    }

    @Test func datesInSeveralFormats() throws {
        let expected = day("2026-03-04")
        for text in ["2026-03-04", "2026/03/04", "2026-03-04 08:15", "2026-03-04T08:15:00Z", "03/04/2026", "3/4/2026", "04.03.2026",
                     "4.3.26", "04-03-2026"] {
            #expect(ImportValues.day(text) == expected, "\(text)")
        }
        #expect(ImportValues.day("04/03/2026", dayFirst: true) == expected)
        #expect(ImportValues.day("25/12/2026") == day("2026-12-25"), "a first number over 12 is the day")
        for bad in ["", "Totals", "2026-13-01", "2026-02-30", "1/2", "12345678901"] { #expect(ImportValues.day(bad) == nil, "\(bad)") }
        // In a file: each format imports; an unreadable date is skipped with its line.
        let (store, _) = try makeStore()
        let path = try write("dates.csv", "Date,Meal,Calories\n2026-03-04,Breakfast,1\n03/04/2026,Lunch,2\n04.03.2026,Dinner,3\nyesterday,Snacks,4\n")
        let r = try store.importFile(path, options: ImportOptions(format: .myFitnessPal))
        #expect(r.added == 3 && r.skipped == 1 && r.skippedRows.first?.line == 5, "\(r)")
        #expect(try entries(store).allSatisfy { $0.day == expected })
    }

    @Test func numbersAsAppsWriteThem() {
        #expect(ImportValues.number("12.5") == 12.5)
        #expect(ImportValues.number("12,5") == 12.5)
        #expect(ImportValues.number("1,050") == 1050)
        #expect(ImportValues.number("1,050", separator: UInt8(ascii: ";")) == 1.05)
        #expect(ImportValues.number("1.050,5") == 1050.5)
        #expect(ImportValues.number("1,234,567.8") == 1_234_567.8)
        #expect(ImportValues.number(" 7 ") == 7)
        for bad in ["", "abc", "1,2,3", "inf", "nan", "1e400", "--1"] { #expect(ImportValues.number(bad) == nil, "\(bad)") }
    }

    @Test func aRepeatedHeaderIsSkippedAndTheRowsAfterItImport() throws {
        let (store, _) = try makeStore()
        let header = "Date,Meal,Calories,Protein (g)"
        let path = try write("twice.csv", "\(header)\n2026-01-05,Breakfast,400,20\n\(header)\n2026-01-06,Lunch,500,25\n")
        let r = try store.importFile(path, options: ImportOptions(format: .myFitnessPal))
        #expect(r.rowsRead == 3 && r.added == 2 && r.skipped == 1 && r.skippedByReason["repeated header"] == 1, "\(r)")
        #expect(r.skippedRows.first?.line == 3)
        // A header that names one column twice: the first is read, the second listed.
        let dup = try write("dupcol.csv", "Date,Meal,Calories,Calories\n2026-01-07,Dinner,300,999\n")
        let d = try store.importFile(dup, options: ImportOptions(format: .myFitnessPal))
        #expect(d.added == 1 && d.unknownColumns.contains { $0.hasPrefix("Calories (a second column") })
        #expect(try entries(store).first { $0.day == day("2026-01-07") }?.totalNutrients["energy_kcal"] == 300)
    }

    @Test func aTruncatedLastLineIsSkippedAndNamed() throws {
        let (store, _) = try makeStore()
        // Cut in the middle of a quoted name, and (another file) after a few columns.
        let quoted = try write("cut1.csv", "Day,Group,Food Name,Energy (kcal)\n2026-01-05,Breakfast,Egg,70\n2026-01-05,Lunch,\"Chicken, gri")
        let r1 = try store.importFile(quoted, options: ImportOptions(format: .cronometer))
        #expect(r1.added == 1 && r1.skippedByReason["cut short"] == 1 && r1.skippedRows.first?.line == 3, "\(r1)")
        let short = try write("cut2.csv", "Day,Group,Food Name,Energy (kcal)\n2026-01-06,Breakfast,Toast,80\n2026-01-06,Lunch")
        let r2 = try store.importFile(short, options: ImportOptions(format: .cronometer))
        #expect(r2.added == 1 && r2.skippedByReason["cut short"] == 1, "\(r2)")
        // Importing the complete file later adds only the row that was cut.
        let whole = try write("cut3.csv", "Day,Group,Food Name,Energy (kcal)\n2026-01-06,Breakfast,Toast,80\n2026-01-06,Lunch,Soup,150\n")
        let r3 = try store.importFile(whole, options: ImportOptions(format: .cronometer))
        #expect(r3.added == 1 && r3.alreadyImported == 1, "\(r3)")
    }

    @Test func dryRunWritesNothingAndSaysWhatItWouldAdd() throws {
        let (store, _) = try makeStore()
        let file = Self.fixtures + "cronometer-servings.csv"
        let r = try store.importFile(file, options: ImportOptions(format: .cronometer, dryRun: true, previewLimit: 3))
        #expect(r.dryRun && r.added == 7 && r.preview.count == 3)
        #expect(try entries(store).isEmpty && count(store, "journal_import_rows") == 0)
    }

    @Test func columnMapProblemsAreOneLineEach() throws {
        let (store, _) = try makeStore()
        let path = try write("m.csv", "When,What,kcal,Fibre (g),Colour\n2026-01-05,Apple,52,2.4,red\n")
        func problem(_ map: [String: String]) -> String {
            do { _ = try store.importFile(path, options: ImportOptions(format: .csv(map))); return "" } catch { return "\(error)" }
        }
        #expect(problem(["date": "When", "name": "What", "energy_kcal": "Calories"]).contains("the file has no column \"Calories\""))
        #expect(problem(["date": "When", "name": "What", "vitamin_q": "kcal"]).contains("not a field or nutrient id"))
        #expect(problem(["date": "When", "energy_kcal": "kcal"]).contains("needs date=COLUMN and name=COLUMN"))
        let r = try store.importFile(path, options: ImportOptions(format: .csv(["date": "When", "name": "What", "energy_kcal": "kcal"])))
        #expect(r.added == 1)
        // A nutrient column left out of the map is named with the map entry that would read it;
        // a column that is no nutrient is listed as unknown.
        #expect(r.unmappedNutrients.contains { $0.column == "Fibre (g)" && $0.reason.contains("fiber_g=Fibre (g)") })
        #expect(r.unknownColumns == ["Colour"])
        #expect(throws: ImportFileError.self) { try store.importFile(dir.file("missing.csv"), options: ImportOptions(format: .cronometer)) }
        let utf16 = dir.file("u16.csv")
        try Data([0xFF, 0xFE, 0x44, 0x00]).write(to: URL(fileURLWithPath: utf16))
        #expect(throws: ImportFileError.self) { try store.importFile(utf16, options: ImportOptions(format: .cronometer)) }
    }

    @Test func badRowsAreSkippedWithReasonsAndTheRestImports() throws {
        let (store, _) = try makeStore()
        let path = try write("bad.csv", """
            Day,Group,Food Name,Amount,Energy (kcal),Protein (g)
            2026-01-05,Breakfast,,1 cup,100,1
            2026-01-05,Breakfast,Eggs,2 large,abc,12
            2026-01-05,Breakfast,Eggs,2 large,-5,12
            2026-01-05,Breakfast,Air,1 cup,,
            2026-01-05,Breakfast,Toast,2 slices,160,6,extra
            2026-01-05,Breakfast,Tea,a mug of,2,0
            2026-01-05,Lunch,\(String(repeating: "x", count: 300)),1,100,1

            """)
        let r = try store.importFile(path, options: ImportOptions(format: .cronometer))
        #expect(r.added == 1 && r.skipped == 6, "\(r)")
        #expect(Set(r.skippedByReason.keys) == ["no name", "bad number", "no nutrients", "too many columns", "invalid"])
        #expect(r.skippedRows.map(\.line) == [2, 3, 4, 5, 6, 8])
        // "a mug of" is a count the amount model reads as 1 "mug of"… or not: either way the tea is kept.
        #expect(try entries(store).map(\.name) == ["Tea"])
    }

    /// A write that fails part way (here a trigger standing in for a full disk) keeps the batches
    /// committed before it, writes nothing of the failed batch, and the same import run again
    /// adds exactly the rest.
    @Test func aFailedBatchKeepsEarlierBatchesAndARerunAddsTheRest() throws {
        let (store, _) = try makeStore()
        let file = Self.fixtures + "cronometer-servings.csv"
        try store.queue.write { db in
            try db.execute(batch: """
                CREATE TRIGGER fail_third BEFORE INSERT ON journal_import_rows
                WHEN (SELECT count(*) FROM journal_import_rows) >= 3 BEGIN SELECT RAISE(ABORT, 'simulated full disk'); END;
                """)
        }
        #expect(throws: (any Error).self) { try store.importFile(file, options: ImportOptions(format: .cronometer, batchSize: 3)) }
        #expect(try entries(store).count == 3 && count(store, "journal_import_rows") == 3)
        try store.queue.write { try $0.execute(batch: "DROP TRIGGER fail_third") }
        let r = try store.importFile(file, options: ImportOptions(format: .cronometer, batchSize: 3))
        #expect(r.added == 4 && r.alreadyImported == 3)
        #expect(try entries(store).count == 7)
        #expect(try store.dayView(day("2026-01-05")).totals.amounts["energy_kcal"] == 151.6 + 122 + 625 + 105 + 105)
    }

    /// The bulk insert is the store's: the same validation (nothing written when one draft is
    /// bad), the same rows, the day totals refreshed.
    @Test func logEntriesValidatesAllThenInsertsAndRefreshesDayTotals() throws {
        let (store, _) = try makeStore()
        let good = EntryDraft(day: day("2026-01-05"), meal: .lunch, name: "Soup", nutrients: nutrients(["energy_kcal": 150]), source: .import)
        var bad = good
        bad.name = ""
        #expect(journalError { try store.queue.write { _ = try store.logEntries([good, bad], in: $0) } } != nil)
        #expect(try entries(store).isEmpty)
        var linked = good
        linked.savedFoodID = UUID()
        #expect(journalError { try store.queue.write { _ = try store.logEntries([linked], in: $0) } } != nil)
        try store.queue.write { _ = try store.logEntries([good, good], in: $0) }
        #expect(try store.dayView(day("2026-01-05")).totals.amounts["energy_kcal"] == 300)
        #expect(try entries(store).count == 2)
        // An id the caller brings that is taken: refused, the whole batch unwritten.
        var taken = good
        taken.id = try entries(store)[0].id
        #expect(journalError { try store.queue.write { _ = try store.logEntries([good, taken], in: $0) } } != nil)
        #expect(try entries(store).count == 2)
    }

    /// 1,000,000 rows stream through the reader: at most one 64 KiB chunk and one record are held,
    /// whatever the file's size.
    @Test func aMillionRowsStreamWithBoundedMemory() throws {
        let path = dir.file("million.csv")
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: Data("Day,Group,Food Name,Energy (kcal)\n".utf8))
        var chunk = ""
        for i in 0..<1_000_000 {
            chunk += "2026-01-\(i % 28 + 1 < 10 ? "0" : "")\(i % 28 + 1),Snacks,Food \(i),\(i % 900)\n"
            if i % 50_000 == 49_999 { try handle.write(contentsOf: Data(chunk.utf8)); chunk = "" }
        }
        try handle.close()
        let reader = try CSVReader(path: path)
        try reader.detectSeparator()
        _ = try reader.next()
        var rows = 0
        var last: CSVRecord?
        while let r = try reader.next() { rows += 1; last = r }
        #expect(rows == 1_000_000)
        #expect(last?.fields == ["2026-01-08", "Snacks", "Food 999999", "99"] && last?.line == 1_000_001)
        #expect(reader.peakBufferedBytes <= CSVReader.chunkSize * 2, "held \(reader.peakBufferedBytes) bytes")
    }
}
