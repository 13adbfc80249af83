// USDA's own measure first (issue 30 §1): a plain tbsp/tsp/fl oz/cup weighs exactly the food's
// row, a volume the food does not list goes through the state-keeping row closest in size, and
// words after a unit choose a row or are refused, never dropped.
import Testing
import Foundation
import Nutrition
import ReferenceFoods
@testable import Journal

@Suite struct USDAMeasureTests {
    let reference = ReferenceDatabase.shared

    func grams(_ text: String, _ food: ReferenceFood) throws -> Double {
        try ReferenceAmounts.resolve(text, of: food).grams
    }

    func food(_ id: String) throws -> ReferenceFood { try #require(reference.food(id: id)) }

    /// The unit a row is written in when its measure is only that unit ("tbsp", "cup (8 fl oz)"
    /// with the parenthesis set aside), read without ofj's own amount model.
    static func plainUnit(_ p: ReferencePortion) -> ServingUnit.VolumeUnit? {
        let main = p.measure.prefix { $0 != "(" }.trimmingCharacters(in: .whitespaces).lowercased()
        switch main {
        case "tbsp", "tablespoon", "tablespoons": return .tbsp
        case "tsp", "teaspoon", "teaspoons": return .tsp
        case "fl oz": return .flOz
        case "cup", "cups": return .cup
        default: return nil
        }
    }

    @Test func everyPlainVolumeRowWeighsExactlyWhatUSDASaysAndMillilitresAgreeWithIt() throws {
        var rows = 0, derived = 0, offByMoreThan1Percent: [String] = []
        for food in reference.allFoods {
            var firstOfUnit: [ServingUnit.VolumeUnit: ReferencePortion] = [:]
            for p in food.portions where p.amount > 0 && p.gramWeight > 0 {
                guard let u = Self.plainUnit(p), firstOfUnit[u] == nil else { continue }
                firstOfUnit[u] = p
            }
            for (u, p) in firstOfUnit {
                rows += 1
                let one = try grams("1 \(u.rawValue)", food)
                #expect(abs(one - p.gramWeight / p.amount) <= 1e-9 * p.gramWeight, "\(food.id) 1 \(u.rawValue): \(one) g, USDA \(p.label) = \(p.gramWeight) g")
                // The same volume typed in mL goes through a density, and still lands on the row
                // (unless USDA lists the food by the mL too: then that row is scaled).
                let ml = p.amount * u.milliliters
                let viaDensity = try grams("\(ml) ml", food)
                if let mlRow = food.portions.first(where: { ReferenceAmounts.kind($0) == .volume(.ml) }) {
                    #expect(abs(viaDensity - ml * mlRow.gramsPerMeasure) < 1e-9 * viaDensity, "\(food.id)")
                    continue
                }
                derived += 1
                if abs(viaDensity - p.gramWeight) / p.gramWeight > 0.01 {
                    offByMoreThan1Percent.append("\(food.id) \(p.label): \(viaDensity) g for \(ml) mL, USDA \(p.gramWeight) g")
                }
            }
        }
        print("USDA measure sweep: \(rows) plain tbsp/tsp/fl oz/cup rows weighed exactly; \(derived - offByMoreThan1Percent.count) of \(derived) mL volumes within 1% of the row")
        for miss in offByMoreThan1Percent { print("  off by more than 1%: \(miss)") }
        #expect(rows > 1300)
        #expect(offByMoreThan1Percent.isEmpty)
    }

    @Test func heavyCreamIsMeasuredFluidNotWhipped() throws {
        let cream = try food("01053")  // cup, whipped 120 g; cup, fluid 238 g; tbsp 15 g; fl oz 29.8 g
        #expect(try grams("1 tbsp", cream) == 15)
        // The tbsp agrees with the fluid cup: nothing to name.
        #expect(try ReferenceAmounts.resolve("1 tbsp", of: cream).note == nil)
        #expect(try grams("1 fl oz", cream) == 29.8)
        let cup = try ReferenceAmounts.resolve("1 cup", of: cream)
        #expect(cup.grams == 238)
        // The food's cup rows disagree by half: the card names the row used.
        #expect(cup.note?.contains("cup, fluid") == true && cup.label.contains("cup, fluid"), "\(cup.label)")
        #expect(try grams("1 cup whipped", cream) == 120)
        let ml = try grams("100 ml", cream)
        #expect(abs(ml - 100 * 238 / 236.5882365) < 1e-9, "\(ml)")  // the fluid cup is the closest in size
    }

    @Test func rowsThatDisagreeAreEachUsedForTheirOwnSize() throws {
        let sour = try food("01056")  // tbsp 12 g, cup 230 g: 20% apart
        #expect(try grams("1 tbsp", sour) == 12)
        #expect(try grams("2 tbsp", sour) == 24)
        #expect(try grams("1 cup", sour) == 230)
        #expect(abs(try grams("1 tsp", sour) - 4) < 1e-9)  // tbsp ÷ 3, not cup ÷ 48
        let tsp = try ReferenceAmounts.resolve("1 tsp", of: sour)
        #expect(tsp.note?.contains("tbsp") == true, "\(tsp.label)")
        let agave = try food("19912")  // tsp 6.9 g, 1/4 cup 55 g
        #expect(try grams("1 tsp", agave) == 6.9)
        #expect(try grams("1 cup", agave) == 220)
        let soy = try food("16124")
        #expect(try grams("1 tbsp", soy) == 18)
        let dryMilk = try food("01091")  // 1/4 cup 30 g, cup 120 g, 5 tbsp 23 g
        #expect(abs(try grams("1 tbsp", dryMilk) - 23.0 / 5) < 1e-9)
        #expect(try grams("1 cup", dryMilk) == 120)
    }

    @Test func aPintOfStrawberriesIsUSDAsPintAsPurchased() throws {
        let berries = try food("09316")
        #expect(try grams("1 pint", berries) == 357)
        #expect(try grams("1 cup sliced", berries) == 166)
        #expect(try grams("1 cup halves", berries) == 152)
        let cup = try ReferenceAmounts.resolve("1 cup", of: berries)
        #expect(cup.grams == 152 && cup.label.contains("cup, halves"), "\(cup.label)")
    }

    @Test func descriptorWordsChooseTheirRowOrAreRefusedWithTheRowsThatExist() throws {
        let carrots = try food("11124")  // cup chopped 128, cup grated 110, cup strips or slices 122
        #expect(try grams("1 cup sliced", carrots) == 122)
        #expect(try grams("1 cup chopped", carrots) == 128)
        #expect(try grams("1 cup, grated", carrots) == 110)
        #expect(abs(try grams("2 tbsp grated", carrots) - 110.0 / 8) < 1e-9)
        let rice = try food("20044")  // raw: 1 cup 185 g
        do {
            _ = try grams("1 cup cooked", rice)
            Issue.record("\"1 cup cooked\" of raw rice was logged")
        } catch let JournalError.invalid(field, reason) {
            #expect(field == "portion")
            #expect(reason.contains("\"cooked\"") && reason.contains("1 cup (185 g)") && reason.contains("nothing logged"), "\(reason)")
            #expect(!reason.contains("\n"))
        }
        #expect(throws: JournalError.self) { try grams("1 cup diced", carrots) }
        #expect(throws: JournalError.self) { try grams("100 g cooked", rice) }
        // Words that name the food itself are not descriptors.
        #expect(try grams("1 cup rice", rice) == 185)
        #expect(try grams("100 g of rice", rice) == 100)
        let cooked = try food("20045")
        #expect(try grams("1 cup cooked", cooked) == 158)
    }

    @Test func aVolumeOfAFoodMeasuredOnlyInAnotherStateIsRefused() throws {
        let carrots = try food("11124")
        do {
            _ = try grams("100 ml", carrots)
            Issue.record("100 mL of carrots was given a density")
        } catch let JournalError.invalid(_, reason) {
            #expect(reason.contains("cup chopped") && !reason.contains("\n"), "\(reason)")
        }
        // A plain cup uses USDA's first cup row and says which.
        let cup = try ReferenceAmounts.resolve("1 cup", of: carrots)
        #expect(cup.grams == 128 && cup.label.contains("cup chopped"), "\(cup.label)")
    }

    @Test func decimalCommasAndRefusedNumbersThroughThePortion() throws {
        let milk = try food("01077")  // cup 244 g
        #expect(try grams("1,5 cups", milk) == 366)
        #expect(try grams("12,500,000 g", milk) == 12_500_000)
        for bad in ["1.5,5 cups", "1/0 cup", "1,5,5 cups", "1,000 g"] {
            do {
                _ = try grams(bad, milk)
                Issue.record("\(bad) was read")
            } catch let JournalError.invalid(field, reason) {
                #expect(field == "portion" && reason.contains("type") && reason.contains("nothing logged"), "\(reason)")
            }
        }
    }

    @Test func householdMeasuresComeFromTheFoodsRowOrTheDocumentedTable() throws {
        #expect(HouseholdMeasures.all.map(\.word).sorted() == ["bowl", "glass", "glass", "mug"])
        // A glass of wine is a standard pour (5 fl oz), USDA's own serving size for it.
        let wine = try ReferenceAmounts.resolve("1 glass", of: try food("14096"))
        #expect(abs(wine.grams - 147) < 0.5 && wine.note?.contains("NIAAA") == true, "\(wine.label)")
        for m in HouseholdMeasures.all { #expect(!m.source.isEmpty && m.milliliters > 0, "\(m.word)") }
        let milk = try food("01077")  // cup 244 g
        let glass = try ReferenceAmounts.resolve("1 glass", of: milk)
        #expect(abs(glass.grams - 240 * 244 / 236.5882365) < 1e-9)
        #expect(glass.serving.unit == .count("glass") && glass.serving.milliliters == 240)
        #expect(glass.note?.contains("household measure: a glass = 240 mL (FDA reference amount") == true, "\(glass.label)")
        #expect(abs(try grams("2 glasses", milk) - 2 * 240 * 244 / 236.5882365) < 1e-9)
        #expect(try grams("1 bowl", try food("20045")) == 158)  // cooked rice: one cup
        do {
            _ = try grams("a glass", try food("20045"))
            Issue.record("a glass of rice was logged")
        } catch let JournalError.invalid(_, reason) {
            #expect(reason.contains("is a drink measure") && reason.contains("nothing logged") && !reason.contains("\n"), "\(reason)")
        }
        // The food's own row wins over the table: bread's "slice" is USDA's.
        #expect(try grams("1 slice", try food("18069")) == 29)
    }

    @Test func aFoodBankCopyMeasuresByTheSameRows() throws {
        let (store, _) = try makeStore()
        let saved = try store.createFood(fromReference: try food("01053"))
        let cup = try store.logFood(saved.id, amount: .quantity(1, .volume(.cup)))
        #expect(cup.serving.grams == 238)  // the fluid cup, not the whipped one (120 g)
    }
}
