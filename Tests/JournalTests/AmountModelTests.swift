// The one amount model over every SR28 food: mass exact, volume units agree through one density,
// a fluid ounce is never a container, and counts use USDA's own measures.
import Testing
import Foundation
import Nutrition
import ReferenceFoods
@testable import Journal

@Suite struct AmountModelTests {
    let reference = ReferenceDatabase.shared

    func grams(_ text: String, _ food: ReferenceFood) throws -> Double {
        try ReferenceAmounts.resolve(text, of: food).grams
    }

    @Test func everyMassUnitIsExactOnEveryFood() throws {
        let foods = reference.allFoods
        #expect(foods.count > 7000)
        for food in foods {
            // USDA's own "oz" rows are never used: some are wrong in the data.
            #expect(try grams("3 oz", food) == 3 * 28.349523125, "\(food.id)")
            #expect(try grams("1 lb", food) == 453.59237, "\(food.id)")
            #expect(try grams("150 g", food) == 150, "\(food.id)")
            #expect(try grams("0.2 kg", food) == 200, "\(food.id)")
            #expect(try grams("500 mg", food) == 0.5, "\(food.id)")
        }
    }

    /// Grams per mL of every USDA volume measure of the food (and of containers that state
    /// their volume): the only densities a volume may be weighed by.
    static func rowDensities(_ food: ReferenceFood) -> [Double] {
        food.portions.compactMap { p -> Double? in
            guard p.amount > 0, p.gramWeight > 0 else { return nil }
            switch ReferenceAmounts.kind(p) {
            case .volume(let u): return p.gramWeight / (p.amount * u.milliliters)
            case .count: return ReferenceAmounts.statedVolume(p.measure).map { p.gramWeight / (p.amount * $0) }
            case .mass: return nil
            }
        }
    }

    @Test func everyVolumeIsAUSDARowScaledNeverAMadeUpDensity() throws {
        var checked = 0
        let units: [(String, Double)] = [("1 cup", 236.5882365), ("1 tbsp", 14.78676478125), ("1 tsp", 4.92892159375),
                                         ("1 fl oz", 29.5735295625), ("100 ml", 100), ("1 l", 1000), ("1 pint", 473.176473), ("1 quart", 946.352946)]
        for food in reference.allFoods {
            let densities = Self.rowDensities(food)
            for (text, ml) in units {
                guard let g = try? grams(text, food) else {
                    // Refused only when the food has no measure that keeps its state to weigh it by.
                    #expect(ReferenceAmounts.density(of: food) == nil, "\(food.id) \(text) refused")
                    continue
                }
                checked += 1
                #expect(densities.contains { abs(g / ml - $0) / $0 < 1e-9 }, "\(food.id) \(text): \(g) g is no USDA row's density")
            }
            if densities.isEmpty { #expect(throws: JournalError.self) { try grams("1 cup", food) } }
        }
        #expect(checked > 25_000)  // 3,700 SR28 foods have a volume measure
    }

    @Test func fluidOuncesAreNeverContainers() throws {
        var containers = 0
        for food in reference.allFoods {
            let containerRows = food.portions.filter {
                ReferenceAmounts.kind($0) == .count && $0.measure.lowercased().contains("fl oz")
            }
            guard !containerRows.isEmpty, ReferenceAmounts.density(of: food) != nil else { continue }
            containers += 1
            let g = try grams("8 fl oz", food)
            #expect(Self.rowDensities(food).contains { abs(g / (8 * 29.5735295625) - $0) / $0 < 1e-9 }, "\(food.id): \(g) g")
            for c in containerRows where c.amount == 1 { #expect(abs(g - 8 * c.gramWeight) > 1e-6, "\(food.id): 8 fl oz are 8 × \(c.measure)") }
        }
        #expect(containers > 100)
    }

    @Test func theEnergyDrinkCanIsACanAndEightFluidOuncesAreNot() throws {
        let drink = try #require(reference.food(id: "14154"))  // "1 can 8.4 fl oz" = 258 g
        let eight = try ReferenceAmounts.resolve("8 fl oz", of: drink)
        #expect(abs(eight.grams - 8 * 258 / 8.4) < 1e-9)
        #expect(eight.serving.unit == .volume(.flOz) && eight.serving.quantity == 8)
        let can = try ReferenceAmounts.resolve("1 can", of: drink)
        #expect(can.grams == 258 && can.serving.unit == .count("can 8.4 fl oz"))
    }

    @Test func millilitresOfMilkUseItsCupWeight() throws {
        let milk = try #require(reference.food(id: "01077"))  // 1 cup = 244 g
        #expect(abs(try grams("200 ml", milk) - 200 * 244 / 236.5882365) < 1e-9)
        #expect(try grams("1 cup", milk) == 244)
        #expect(try grams("2 cups", milk) == 488)
        #expect(try grams("1/2 cup", milk) == 122)
        // "oz" is mass even for a drink that lists "fl oz".
        #expect(try grams("8 oz", milk) == 8 * 28.349523125)
    }

    @Test func countsUseUSDAsMeasuresAndNeverMatchAnotherKind() throws {
        let egg = try #require(reference.food(id: "01123"))
        #expect(try grams("2 large", egg) == 100)
        #expect(try grams("1 medium", egg) == 44)
        #expect(try grams("3 large eggs", egg) == 150)
        #expect(try grams("1 cup", egg) == 243)
        let bread = try #require(reference.food(id: "18069"))
        let slice = try #require(bread.portions.first { $0.measure.lowercased().hasPrefix("slice") })
        #expect(try grams("3 slices", bread) == 3 * slice.gramsPerMeasure)
        // A USDA label with an amount other than 1 ("2 slices" = 2 × one slice) counts that amount.
        for food in reference.allFoods {
            for p in food.portions where p.amount != 1 && ReferenceAmounts.kind(p) == .count && p.gramWeight > 0 && p.amount > 0 {
                #expect(abs(try grams(p.label, food) - p.gramWeight) < 1e-9, "\(food.id) \(p.label)")
            }
        }
        #expect(throws: JournalError.self) { try grams("2 wheels", egg) }
        #expect(throws: JournalError.self) { try grams("0 large", egg) }
        #expect(throws: JournalError.self) { try grams("3", egg) }
    }

    @Test func aVolumeWithoutAVolumeMeasureIsRefusedWithALine() throws {
        let food = try #require(reference.allFoods.first { ReferenceAmounts.volumeRows(of: $0).isEmpty && !$0.portions.isEmpty })
        do {
            _ = try ReferenceAmounts.resolve("200 ml", of: food)
            Issue.record("a volume was guessed for \(food.id)")
        } catch let JournalError.invalid(field, reason) {
            #expect(field == "portion")
            #expect(reason.contains("is a volume") && reason.contains("give its weight"))
            #expect(!reason.contains("\n"))
        }
    }

    @Test func amountTextParsesWhatPeopleType() throws {
        let cases: [(String, Double, String, ServingUnit?)] = [
            ("2 large", 2, "large", nil), ("1 1/2 cups", 1.5, "cups", .volume(.cup)), ("½ cup", 0.5, "cup", .volume(.cup)),
            ("1½ tbsp", 1.5, "tbsp", .volume(.tbsp)), ("200ml", 200, "ml", .volume(.ml)), ("8 fl oz", 8, "fl oz", .volume(.flOz)),
            ("a cup", 1, "cup", .volume(.cup)), ("3 oz", 3, "oz", .mass(.oz)), ("1 pint", 1, "pint", .volume(.pint)),
            ("1 cup, chopped", 1, "cup, chopped", .volume(.cup)), ("500 mg", 500, "mg", .mass(.mg)), ("slice", 1, "slice", nil),
        ]
        for (text, q, unitText, measure) in cases {
            let a = try #require(AmountText.parse(text), "\(text)")
            #expect(a.quantity == q && a.unitText == unitText && a.measure == measure, "\(text): \(a)")
        }
        for bad in ["0 cup", "-1 cup", "1/0 cup", "inf g", String(repeating: "9", count: 300)] {
            #expect(AmountText.parse(bad) == nil || AmountText.parse(bad)?.measure == nil, "\(bad)")
        }
        #expect(AmountText.parse("0 cup") == nil && AmountText.parse("1/0 cup") == nil)
    }

    @Test func kilojoulesAreStoredAsKilocalories() throws {
        let n = try NutrientAmounts(["energy_kj": 418.4, "protein_g": 3])
        #expect(n["energy_kcal"] == 100 && n["energy_kj"] == nil)
        #expect(try NutrientAmounts(["kJ": 4184])["energy_kcal"] == 1000)
        // Both given: kcal wins and kJ is not kept as a second energy.
        let both = try NutrientAmounts(["energy_kcal": 90, "energy_kj": 418.4])
        #expect(both["energy_kcal"] == 90 && both["energy_kj"] == nil)
    }

    @Test func servingsMultiplyAReferenceEntry() throws {
        let (store, _) = try makeStore()
        let e = try store.logReferenceFood(id: "01123", portion: "2 large", servings: 3, from: reference)
        #expect(e.servings == 3 && e.serving.grams == 100)
        #expect(e.totalNutrients["energy_kcal"] == 429)
    }

    @Test func aFoodBankFoodSavedFromAReferenceFoodKeepsItsDensity() throws {
        let (store, _) = try makeStore()
        let drink = try #require(reference.food(id: "14154"))
        let saved = try store.createFood(fromReference: drink)
        let e = try store.logFood(saved.id, amount: .quantity(8, .volume(.flOz)))
        let expected = try ReferenceAmounts.resolve("8 fl oz", of: drink).grams
        #expect(abs((e.serving.grams ?? 0) - expected) < 1e-4)  // the saved density is rounded to 6 places
        #expect(abs((e.totalNutrients["energy_kcal"] ?? 0) - (try ReferenceAmounts.resolve("8 fl oz", of: drink).grams) * (drink.per100g("energy_kcal") ?? 0) / 100) < 1e-3)
        // Mass stays exact on the Food Bank path too.
        let oz = try store.logFood(saved.id, amount: .quantity(2, .mass(.oz)))
        #expect(oz.serving.grams == 2 * 28.349523125)
    }
}
