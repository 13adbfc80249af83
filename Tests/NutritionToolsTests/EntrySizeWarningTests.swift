// The approval card warns about an entry over 5,000 kcal or 5 kg, and only then.
import Testing
@testable import NutritionTools

@Suite struct EntrySizeWarningTests {
    @Test func aLargeEntryShowsAWarningLineOnTheCard() throws {
        let f = try Fixture()
        let big = try f.preview("log_reference_food", ["reference_id": "01123", "portion": "large", "quantity": 100])
        #expect(big.split(separator: "\n").last == "Warning: this entry is 7150 kcal, more than one entry usually is; check the amount before approving.")
        let heavy = try f.preview("log_reference_food", ["reference_id": "01077", "grams": 6000])
        #expect(heavy.hasSuffix("\nWarning: this entry is 6 kg, more than one entry usually is; check the amount before approving."))
        let manual = try f.preview("log_food", ["name": "Feast", "nutrients": ["energy_kcal": 5200]])
        #expect(manual.contains("Warning: this entry is 5200 kcal"))
        let ordinary = try f.preview("log_reference_food", ["reference_id": "01123", "portion": "large", "quantity": 2])
        #expect(!ordinary.contains("Warning"))
    }

    @Test func volumesAndFluidOuncesResolveThroughTheAmountModel() throws {
        let f = try Fixture()
        let drink = try f.preview("log_reference_food", ["reference_id": "14154", "portion": "8 fl oz"])
        #expect(drink.contains("— 8 fl oz (245.71 g)"))
        let milk = try f.preview("log_reference_food", ["reference_id": "01077", "portion": "ml", "quantity": 200])
        #expect(milk.contains("— 200 mL (206.27 g)"))
        let oz = try f.preview("log_reference_food", ["reference_id": "01077", "portion": "oz", "quantity": 8])
        #expect(oz.contains("— 8 oz (226.8 g)"))
    }

    @Test func theCardSaysWhichValuesAreDerived() throws {
        let f = try Fixture()
        let derived = try f.preview("log_reference_food", ["reference_id": "16613", "grams": 100])
        #expect(derived.hasSuffix("\nDerived by USDA's rules, not reported directly: Vitamin D = vitamin D IU ÷ 40 (USDA: 1 µg = 40 IU)"))
        let reported = try f.preview("log_reference_food", ["reference_id": "01077", "grams": 100])
        #expect(!reported.contains("Derived"))
    }

    @Test func readToolsKeepNotReportedAsNull() async throws {
        let f = try Fixture()
        // The day's totals list the macros unless other nutrients are asked for: ask for every goal's.
        // (at most 20 at a time, as the tool's schema says).
        let first = try await f.read("get_journal_day", ["date": "2026-11-29"])
        let ids = (first["goals"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        #expect(!ids.isEmpty)
        for chunk in stride(from: 0, to: ids.count, by: 20).map({ Array(ids[$0..<min($0 + 20, ids.count)]) }) {
            let day = try await f.read("get_journal_day", ["date": "2026-11-29", "nutrients": .array(chunk.map { .string($0) })])
            let totals = day["totals"]?["nutrients"]
            let goals = (day["goals"]?.arrayValue ?? []).filter { chunk.contains($0["id"]?.stringValue ?? "") }
            for g in goals {
                let id = g["id"]?.stringValue ?? ""
                // consumed is null exactly when no entry reported the nutrient, never 0 in its place.
                #expect((g["consumed"] == .null) == (totals?[id] == nil), "\(id)")
                #expect((g["remaining"] == .null) == (totals?[id] == nil), "\(id)")
            }
        }
    }

    @Test func energyInKilojoulesIsLoggedAsKilocalories() throws {
        let f = try Fixture()
        let preview = try f.preview("log_food", ["name": "Soup", "nutrients": ["kJ": 836.8, "protein_g": 5]])
        #expect(preview.contains("200 kcal"))
        #expect(!preview.lowercased().contains("kj"))
    }

    @Test func changingAnEntryToAHugeAmountWarnsToo() throws {
        let f = try Fixture()
        let huge = try f.preview("update_journal_entry", ["entry_id": .string(f.seed.toast.uuidString), "servings": 200])
        #expect(huge.split(separator: "\n").last?.hasPrefix("Warning: this entry is ") == true)
        let rename = try f.preview("update_journal_entry", ["entry_id": .string(f.seed.toast.uuidString), "name": "Rye toast"])
        #expect(!rename.contains("Warning"))
    }
}
