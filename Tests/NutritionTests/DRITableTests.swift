// dri.tsv checked cell by cell against a second transcription of the NASEM DRI summary tables,
// laid out as they are printed (one row per life-stage group, the tables' own units, "*" for an AI,
// ND for "not determinable"), so a typo in either transcription shows as a mismatch.
import Testing
@testable import Nutrition

/// The printed tables, in their row order: group, then one cell per column.
private struct PrintedTable {
    let name: String
    /// Nutrient id and the factor from the printed unit to ofj's unit, per column.
    let columns: [(id: String, factor: Double)]
    /// Whether the cells are limits (UL, CDRR) rather than intakes.
    let limits: Bool
    let rows: String

    var cells: [(group: String, id: String, text: String, factor: Double)] {
        var out: [(String, String, String, Double)] = []
        for line in rows.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard parts.count == columns.count + 1 else {
                Issue.record("\(name): row \(parts.first ?? "?") has \(parts.count - 1) cells, not \(columns.count)")
                continue
            }
            for (i, c) in columns.enumerated() { out.append((parts[0], c.id, parts[i + 1], c.factor)) }
        }
        return out
    }
}

private let vitamins = PrintedTable(
    name: "Vitamins RDA/AI",
    columns: [("vitamin_a_mcg", 1), ("vitamin_c_mg", 1), ("vitamin_d_mcg", 1), ("vitamin_e_mg", 1), ("vitamin_k_mcg", 1),
              ("thiamin_mg", 1), ("riboflavin_mg", 1), ("niacin_mg", 1), ("vitamin_b6_mg", 1), ("folate_mcg", 1),
              ("vitamin_b12_mcg", 1), ("pantothenic_acid_mg", 1), ("biotin_mcg", 1), ("choline_mg", 1)],
    limits: false,
    rows: """
        infant_0_6mo     400*  40* 10* 4*  2.0* 0.2* 0.3* 2*  0.1* 65*  0.4* 1.7* 5*  125*
        infant_7_12mo    500*  50* 10* 5*  2.5* 0.3* 0.4* 4*  0.3* 80*  0.5* 1.8* 6*  150*
        child_1_3        300   15  15  6   30*  0.5  0.5  6   0.5  150  0.9  2*   8*  200*
        child_4_8        400   25  15  7   55*  0.6  0.6  8   0.6  200  1.2  3*   12* 250*
        male_9_13        600   45  15  11  60*  0.9  0.9  12  1.0  300  1.8  4*   20* 375*
        male_14_18       900   75  15  15  75*  1.2  1.3  16  1.3  400  2.4  5*   25* 550*
        male_19_30       900   90  15  15  120* 1.2  1.3  16  1.3  400  2.4  5*   30* 550*
        male_31_50       900   90  15  15  120* 1.2  1.3  16  1.3  400  2.4  5*   30* 550*
        male_51_70       900   90  15  15  120* 1.2  1.3  16  1.7  400  2.4  5*   30* 550*
        male_71_plus     900   90  20  15  120* 1.2  1.3  16  1.7  400  2.4  5*   30* 550*
        female_9_13      600   45  15  11  60*  0.9  0.9  12  1.0  300  1.8  4*   20* 375*
        female_14_18     700   65  15  15  75*  1.0  1.0  14  1.2  400  2.4  5*   25* 400*
        female_19_30     700   75  15  15  90*  1.1  1.1  14  1.3  400  2.4  5*   30* 425*
        female_31_50     700   75  15  15  90*  1.1  1.1  14  1.3  400  2.4  5*   30* 425*
        female_51_70     700   75  15  15  90*  1.1  1.1  14  1.5  400  2.4  5*   30* 425*
        female_71_plus   700   75  20  15  90*  1.1  1.1  14  1.5  400  2.4  5*   30* 425*
        pregnancy_14_18  750   80  15  15  75*  1.4  1.4  18  1.9  600  2.6  6*   30* 450*
        pregnancy_19_30  770   85  15  15  90*  1.4  1.4  18  1.9  600  2.6  6*   30* 450*
        pregnancy_31_50  770   85  15  15  90*  1.4  1.4  18  1.9  600  2.6  6*   30* 450*
        lactation_14_18  1200  115 15  19  75*  1.4  1.6  17  2.0  500  2.8  7*   35* 550*
        lactation_19_30  1300  120 15  19  90*  1.4  1.6  17  2.0  500  2.8  7*   35* 550*
        lactation_31_50  1300  120 15  19  90*  1.4  1.6  17  2.0  500  2.8  7*   35* 550*
        """)

// Chromium, copper, iodine, molybdenum, selenium in µg; chloride in g; fluoride left out (ofj has no target for it).
private let elements = PrintedTable(
    name: "Elements RDA/AI",
    columns: [("calcium_mg", 1), ("chromium_mcg", 1), ("copper_mg", 0.001), ("iodine_mcg", 1), ("iron_mg", 1), ("magnesium_mg", 1),
              ("manganese_mg", 1), ("molybdenum_mcg", 1), ("phosphorus_mg", 1), ("selenium_mcg", 1), ("zinc_mg", 1),
              ("potassium_mg", 1), ("sodium_mg", 1), ("chloride_mg", 1000)],
    limits: false,
    rows: """
        infant_0_6mo     200*  0.2* 200* 110* 0.27* 30* 0.003* 2*  100* 15* 2*  400*  110*  0.18*
        infant_7_12mo    260*  5.5* 220* 130* 11    75* 0.6*   3*  275* 20* 3   860*  370*  0.57*
        child_1_3        700   11*  340  90   7     80  1.2*   17  460  20  3   2000* 800*  1.5*
        child_4_8        1000  15*  440  90   10    130 1.5*   22  500  30  5   2300* 1000* 1.9*
        male_9_13        1300  25*  700  120  8     240 1.9*   34  1250 40  8   2500* 1200* 2.3*
        male_14_18       1300  35*  890  150  11    410 2.2*   43  1250 55  11  3000* 1500* 2.3*
        male_19_30       1000  35*  900  150  8     400 2.3*   45  700  55  11  3400* 1500* 2.3*
        male_31_50       1000  35*  900  150  8     420 2.3*   45  700  55  11  3400* 1500* 2.3*
        male_51_70       1000  30*  900  150  8     420 2.3*   45  700  55  11  3400* 1500* 2.0*
        male_71_plus     1200  30*  900  150  8     420 2.3*   45  700  55  11  3400* 1500* 1.8*
        female_9_13      1300  21*  700  120  8     240 1.6*   34  1250 40  8   2300* 1200* 2.3*
        female_14_18     1300  24*  890  150  15    360 1.6*   43  1250 55  9   2300* 1500* 2.3*
        female_19_30     1000  25*  900  150  18    310 1.8*   45  700  55  8   2600* 1500* 2.3*
        female_31_50     1000  25*  900  150  18    320 1.8*   45  700  55  8   2600* 1500* 2.3*
        female_51_70     1200  20*  900  150  8     320 1.8*   45  700  55  8   2600* 1500* 2.0*
        female_71_plus   1200  20*  900  150  8     320 1.8*   45  700  55  8   2600* 1500* 1.8*
        pregnancy_14_18  1300  29*  1000 220  27    400 2.0*   50  1250 60  12  2600* 1500* 2.3*
        pregnancy_19_30  1000  30*  1000 220  27    350 2.0*   50  700  60  11  2900* 1500* 2.3*
        pregnancy_31_50  1000  30*  1000 220  27    360 2.0*   50  700  60  11  2900* 1500* 2.3*
        lactation_14_18  1300  44*  1300 290  10    360 2.6*   50  1250 70  13  2500* 1500* 2.3*
        lactation_19_30  1000  45*  1300 290  9     310 2.6*   50  700  70  12  2800* 1500* 2.3*
        lactation_31_50  1000  45*  1300 290  9     320 2.6*   50  700  70  12  2800* 1500* 2.3*
        """)

private let macronutrients = PrintedTable(
    name: "Total Water and Macronutrients RDA/AI",
    columns: [("carbohydrate_g", 1), ("fiber_g", 1), ("fat_g", 1), ("protein_g", 1)],
    limits: false,
    rows: """
        infant_0_6mo     60*  ND   31* 9.1*
        infant_7_12mo    95*  ND   30* 11.0
        child_1_3        130  19*  ND  13
        child_4_8        130  25*  ND  19
        male_9_13        130  31*  ND  34
        male_14_18       130  38*  ND  52
        male_19_30       130  38*  ND  56
        male_31_50       130  38*  ND  56
        male_51_70       130  30*  ND  56
        male_71_plus     130  30*  ND  56
        female_9_13      130  26*  ND  34
        female_14_18     130  26*  ND  46
        female_19_30     130  25*  ND  46
        female_31_50     130  25*  ND  46
        female_51_70     130  21*  ND  46
        female_71_plus   130  21*  ND  46
        pregnancy_14_18  175  28*  ND  71
        pregnancy_19_30  175  28*  ND  71
        pregnancy_31_50  175  28*  ND  71
        lactation_14_18  210  29*  ND  71
        lactation_19_30  210  29*  ND  71
        lactation_31_50  210  29*  ND  71
        """)

// Choline in g. Vitamin K, thiamin, riboflavin, B12, pantothenic acid and biotin have no UL (ND) throughout.
private let vitaminULs = PrintedTable(
    name: "Vitamins UL",
    columns: [("vitamin_a_mcg", 1), ("vitamin_c_mg", 1), ("vitamin_d_mcg", 1), ("vitamin_e_mg", 1), ("niacin_mg", 1),
              ("vitamin_b6_mg", 1), ("folate_mcg", 1), ("choline_mg", 1000),
              ("vitamin_k_mcg", 1), ("thiamin_mg", 1), ("riboflavin_mg", 1), ("vitamin_b12_mcg", 1), ("pantothenic_acid_mg", 1), ("biotin_mcg", 1)],
    limits: true,
    rows: """
        infant_0_6mo     600  ND   25  ND   ND ND  ND   ND   ND ND ND ND ND ND
        infant_7_12mo    600  ND   38  ND   ND ND  ND   ND   ND ND ND ND ND ND
        child_1_3        600  400  63  200  10 30  300  1.0  ND ND ND ND ND ND
        child_4_8        900  650  75  300  15 40  400  1.0  ND ND ND ND ND ND
        male_9_13        1700 1200 100 600  20 60  600  2.0  ND ND ND ND ND ND
        male_14_18       2800 1800 100 800  30 80  800  3.0  ND ND ND ND ND ND
        male_19_30       3000 2000 100 1000 35 100 1000 3.5  ND ND ND ND ND ND
        male_31_50       3000 2000 100 1000 35 100 1000 3.5  ND ND ND ND ND ND
        male_51_70       3000 2000 100 1000 35 100 1000 3.5  ND ND ND ND ND ND
        male_71_plus     3000 2000 100 1000 35 100 1000 3.5  ND ND ND ND ND ND
        female_9_13      1700 1200 100 600  20 60  600  2.0  ND ND ND ND ND ND
        female_14_18     2800 1800 100 800  30 80  800  3.0  ND ND ND ND ND ND
        female_19_30     3000 2000 100 1000 35 100 1000 3.5  ND ND ND ND ND ND
        female_31_50     3000 2000 100 1000 35 100 1000 3.5  ND ND ND ND ND ND
        female_51_70     3000 2000 100 1000 35 100 1000 3.5  ND ND ND ND ND ND
        female_71_plus   3000 2000 100 1000 35 100 1000 3.5  ND ND ND ND ND ND
        pregnancy_14_18  2800 1800 100 800  30 80  800  3.0  ND ND ND ND ND ND
        pregnancy_19_30  3000 2000 100 1000 35 100 1000 3.5  ND ND ND ND ND ND
        pregnancy_31_50  3000 2000 100 1000 35 100 1000 3.5  ND ND ND ND ND ND
        lactation_14_18  2800 1800 100 800  30 80  800  3.0  ND ND ND ND ND ND
        lactation_19_30  3000 2000 100 1000 35 100 1000 3.5  ND ND ND ND ND ND
        lactation_31_50  3000 2000 100 1000 35 100 1000 3.5  ND ND ND ND ND ND
        """)

// Copper in µg; phosphorus and chloride in g. Chromium and potassium have no UL. Sodium's column is
// the 2019 CDRR (the report replaced the sodium UL with it).
private let elementULs = PrintedTable(
    name: "Elements UL and sodium CDRR",
    columns: [("calcium_mg", 1), ("copper_mg", 0.001), ("iodine_mcg", 1), ("iron_mg", 1), ("magnesium_mg", 1), ("manganese_mg", 1),
              ("molybdenum_mcg", 1), ("phosphorus_mg", 1000), ("selenium_mcg", 1), ("zinc_mg", 1), ("chloride_mg", 1000),
              ("chromium_mcg", 1), ("potassium_mg", 1), ("sodium_mg", 1)],
    limits: true,
    rows: """
        infant_0_6mo     1000 ND    ND   40 ND  ND ND   ND  45  4  ND  ND ND ND
        infant_7_12mo    1500 ND    ND   40 ND  ND ND   ND  60  5  ND  ND ND ND
        child_1_3        2500 1000  200  40 65  2  300  3   90  7  2.3 ND ND 1200
        child_4_8        2500 3000  300  40 110 3  600  3   150 12 2.9 ND ND 1500
        male_9_13        3000 5000  600  40 350 6  1100 4   280 23 3.4 ND ND 1800
        male_14_18       3000 8000  900  45 350 9  1700 4   400 34 3.6 ND ND 2300
        male_19_30       2500 10000 1100 45 350 11 2000 4   400 40 3.6 ND ND 2300
        male_31_50       2500 10000 1100 45 350 11 2000 4   400 40 3.6 ND ND 2300
        male_51_70       2000 10000 1100 45 350 11 2000 4   400 40 3.6 ND ND 2300
        male_71_plus     2000 10000 1100 45 350 11 2000 3   400 40 3.6 ND ND 2300
        female_9_13      3000 5000  600  40 350 6  1100 4   280 23 3.4 ND ND 1800
        female_14_18     3000 8000  900  45 350 9  1700 4   400 34 3.6 ND ND 2300
        female_19_30     2500 10000 1100 45 350 11 2000 4   400 40 3.6 ND ND 2300
        female_31_50     2500 10000 1100 45 350 11 2000 4   400 40 3.6 ND ND 2300
        female_51_70     2000 10000 1100 45 350 11 2000 4   400 40 3.6 ND ND 2300
        female_71_plus   2000 10000 1100 45 350 11 2000 3   400 40 3.6 ND ND 2300
        pregnancy_14_18  3000 8000  900  45 350 9  1700 3.5 400 34 3.6 ND ND 2300
        pregnancy_19_30  2500 10000 1100 45 350 11 2000 3.5 400 40 3.6 ND ND 2300
        pregnancy_31_50  2500 10000 1100 45 350 11 2000 3.5 400 40 3.6 ND ND 2300
        lactation_14_18  3000 8000  900  45 350 9  1700 4   400 34 3.6 ND ND 2300
        lactation_19_30  2500 10000 1100 45 350 11 2000 4   400 40 3.6 ND ND 2300
        lactation_31_50  2500 10000 1100 45 350 11 2000 4   400 40 3.6 ND ND 2300
        """)

/// Nutrients with a Daily Value that no DRI table gives an intake or a limit for.
private let noDRI = ["energy_kcal", "added_sugars_g", "saturated_fat_g", "cholesterol_mg"]

@Suite struct DRITableTests {
    let table: DRITable

    init() throws { table = try DRITable.bundled() }

    @Test func everyIntakeCellMatchesThePrintedTables() throws {
        var checked = 0
        for printed in [vitamins, elements, macronutrients] {
            for cell in printed.cells {
                let group = try #require(DRIGroup(rawValue: cell.group), "\(printed.name): unknown group \(cell.group)")
                let v = try #require(table.value(group, cell.id), "\(printed.name): no row for \(cell.group) \(cell.id)")
                if cell.text == "ND" {
                    #expect(v.intakeKind == .none && v.intake == nil, "\(printed.name) \(cell.group) \(cell.id): the table has none")
                } else {
                    let ai = cell.text.hasSuffix("*")
                    let number = try #require(Double(cell.text.replacingOccurrences(of: "*", with: "")))
                    #expect(v.intakeKind == (ai ? .ai : .rda), "\(printed.name) \(cell.group) \(cell.id): kind")
                    #expect(abs((v.intake ?? -1) - number * cell.factor) < 1e-9, "\(printed.name) \(cell.group) \(cell.id): \(v.intake ?? -1) ≠ \(number * cell.factor)")
                }
                #expect(v.intakeSource.hasPrefix("DRI summary tables, "), "\(cell.group) \(cell.id) names its table")
                checked += 1
            }
        }
        #expect(checked == 22 * (14 + 14 + 4))
    }

    @Test func everyLimitCellMatchesThePrintedTables() throws {
        var checked = 0
        for printed in [vitaminULs, elementULs] {
            for cell in printed.cells {
                let group = try #require(DRIGroup(rawValue: cell.group))
                let v = try #require(table.value(group, cell.id), "\(printed.name): no row for \(cell.group) \(cell.id)")
                if cell.text == "ND" {
                    #expect(v.limitKind == .none && v.limit == nil, "\(printed.name) \(cell.group) \(cell.id): the table has none")
                } else {
                    let number = try #require(Double(cell.text))
                    #expect(v.limitKind == (cell.id == "sodium_mg" ? .cdrr : .ul), "\(printed.name) \(cell.group) \(cell.id): kind")
                    #expect(abs((v.limit ?? -1) - number * cell.factor) < 1e-9, "\(printed.name) \(cell.group) \(cell.id): \(v.limit ?? -1) ≠ \(number * cell.factor)")
                    #expect(v.limitSource.hasPrefix("DRI summary tables, "), "\(cell.group) \(cell.id) names its limit's table")
                }
                checked += 1
            }
        }
        #expect(checked == 22 * 28)
    }

    @Test func everyGroupHasEveryNutrientWithATargetOrAnExplicitNoDRI() throws {
        let targets = NutrientCatalog.all.filter { $0.dailyValue != nil }.map(\.id)
        #expect(table.nutrients == targets)
        #expect(table.values.count == DRIGroup.allCases.count * targets.count)
        for group in DRIGroup.allCases {
            for id in targets {
                let v = try #require(table.value(group, id), "\(group.rawValue) has no row for \(id)")
                #expect((v.intakeKind == .none) == (v.intake == nil))
                if noDRI.contains(id) {
                    #expect(v.intakeKind == .none && v.limitKind == .none, "\(group.rawValue) \(id) has no DRI")
                    #expect(!v.caveat.isEmpty, "\(id) says why there is no DRI")
                }
            }
        }
        // Every cell of the printed tables plus the four without a DRI covers every target.
        let printedIDs = Set([vitamins, elements, macronutrients].flatMap { $0.columns.map(\.id) })
        #expect(printedIDs.union(noDRI) == Set(targets))
    }

    @Test func theCaveatsSayWhichFormTheFiguresAreIn() throws {
        let adult = DRIGroup.female31to50
        var caveat: [String: String] = [:]
        for id in ["vitamin_a_mcg", "folate_mcg", "vitamin_e_mg", "niacin_mg", "magnesium_mg", "sodium_mg"] {
            caveat[id] = try #require(table.value(adult, id)).caveat
        }
        #expect(caveat["vitamin_a_mcg"]?.contains("RAE") == true && caveat["vitamin_a_mcg"]?.contains("preformed") == true)
        #expect(caveat["folate_mcg"]?.contains("DFE") == true && caveat["folate_mcg"]?.contains("folic acid") == true)
        #expect(caveat["vitamin_e_mg"]?.contains("alpha-tocopherol") == true)
        #expect(caveat["niacin_mg"]?.contains("niacin equivalents") == true)
        #expect(caveat["magnesium_mg"]?.contains("supplemental magnesium") == true)
        #expect(caveat["sodium_mg"]?.contains("CDRR") == true)
        #expect(table.value(adult, "sodium_mg")?.limitSource.contains("2019") == true)
    }

    @Test func peopleFallIntoTheirLifeStageGroup() {
        #expect(DRIGroup.group(sex: .female, ageYears: 35, ageMonths: 420, lifeStage: nil) == .female31to50)
        #expect(DRIGroup.group(sex: .male, ageYears: 75, ageMonths: 900, lifeStage: nil) == .male71plus)
        #expect(DRIGroup.group(sex: .male, ageYears: 8, ageMonths: 96, lifeStage: nil) == .child4to8)
        #expect(DRIGroup.group(sex: .female, ageYears: 28, ageMonths: 336, lifeStage: .pregnant) == .pregnancy19to30)
        #expect(DRIGroup.group(sex: .female, ageYears: 17, ageMonths: 204, lifeStage: .lactating) == .lactation14to18)
        #expect(DRIGroup.group(sex: .female, ageYears: 0, ageMonths: 3, lifeStage: nil) == .infant0to6mo)
        #expect(DRIGroup.group(sex: .male, ageYears: 0, ageMonths: 9, lifeStage: nil) == .infant7to12mo)
        #expect(DRIGroup.group(sex: .male, ageYears: 50, ageMonths: 600, lifeStage: nil) == .male31to50)
        #expect(DRIGroup.group(sex: .male, ageYears: 51, ageMonths: 612, lifeStage: nil) == .male51to70)
        #expect(DRIGroup.pregnancy14to18.label == "pregnancy ≤18 y")
        #expect(DRIGroup.male71plus.label == "males >70 y")
        #expect(DRIGroup.infant7to12mo.label == "infants 7–12 mo")
    }

    @Test func aMalformedTableIsRefusedWithItsLine() {
        let header = "group\tnutrient\tunit\tintake_kind\tintake\tlimit_kind\tlimit\tintake_source\tlimit_source\tcaveat\n"
        #expect(throws: DRIDataError.self) { try DRITable.parse(header + "female_31_50\tiron_mg\tmcg\tRDA\t18\tnone\t\ts\t\t\n") }
        #expect(throws: DRIDataError.self) { try DRITable.parse(header + "female_31_50\tiron_mg\tmg\tRDA\t\tnone\t\ts\t\t\n") }
        #expect(throws: DRIDataError.self) { try DRITable.parse(header + "women\tiron_mg\tmg\tRDA\t18\tnone\t\ts\t\t\n") }
    }
}
