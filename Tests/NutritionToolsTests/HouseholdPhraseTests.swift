// The labelled household phrases (Tests/data/household/phrases.tsv, issue 30 §2) through the
// offline assistant: the food a person means (NDB id) and its grams. Prints the hit rate and
// every miss; the floor is the rate measured when the set was committed, so it can only rise.
import Foundation
import Testing
import Journal
@testable import NutritionTools

@Suite struct HouseholdPhraseTests {
    struct Phrase { var text: String; var ndb: String; var grams: Double; var why: String }

    static func phrases() throws -> [Phrase] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("Tests/data/household/phrases.tsv"), encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let f = line.split(separator: "\t").map(String.init)
            guard f.count == 4, let g = Double(f[2]) else { return nil }
            return Phrase(text: f[0], ndb: f[1], grams: g, why: f[3])
        }
    }

    @Test func householdPhrasesLogTheFoodAndWeightMeant() async throws {
        let phrases = try Self.phrases()
        #expect(phrases.count >= 40)
        var hits = 0
        var misses: [String] = []
        for p in phrases {
            let h = try OfflineHarness()
            let r = try await h.ask("log \(p.text)")
            // "water": logged as water toward the water goal (a Water entry with water_g), not as a food.
            if p.ndb == "water" {
                let e = try h.journal.lastEntry()
                if let e, e.name == "Water", let w = e.nutrients["water_g"], abs(w - p.grams) <= 0.01 * p.grams {
                    hits += 1
                } else {
                    misses.append("\(p.text): \(e.map { "logged \($0.name) \($0.nutrients["water_g"] ?? 0) g of water" } ?? "nothing logged"); meant \(p.grams) g of water")
                }
                continue
            }
            guard let id = r.arguments("log_reference_food")?["reference_id"]?.stringValue, let e = try h.journal.lastEntry(),
                  e.source == .reference || e.source == .assistant else {
                misses.append("\(p.text): nothing logged (\(r.text.split(separator: "\n").first ?? ""))")
                continue
            }
            let grams = (e.serving.grams ?? 0) * e.servings
            if p.ndb.split(separator: "|").contains(Substring(id)) && abs(grams - p.grams) <= 0.01 * p.grams {
                hits += 1
            } else {
                misses.append("\(p.text): logged \(id) \(e.name.prefix(50)) \(grams.rounded(places: 1)) g; meant \(p.ndb) \(p.grams) g (\(p.why))")
            }
        }
        print("household phrases: \(hits) of \(phrases.count) hit (food and grams within 1%)")
        for m in misses { print("  miss: \(m)") }
        // 33 of 47 when committed; the misses are food choices (search defaults, "could be one of these").
        #expect(hits >= 33)
    }
}
