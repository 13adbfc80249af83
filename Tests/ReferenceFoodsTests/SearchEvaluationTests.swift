// The search's first hit over a labelled set of everyday queries (Tests/data/search-eval.tsv): how
// often the top result is a food a reasonable person typing the query means. Prints the figure and
// every miss. The target is 95% and the ranker meets it (210 of 221, 95.0%, at this commit): the
// test fails when the figure drops below it. OFJ_EVAL_DEBUG=1 also prints each miss's top hits
// with scores and where the acceptable foods rank.
import Foundation
import Testing
@testable import ReferenceFoods

@Suite("Reference search evaluation")
struct SearchEvaluationTests {
    struct Case {
        let query: String
        let acceptable: Set<String>
    }

    static func cases() throws -> [Case] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("data/search-eval.tsv")
        let text = try String(contentsOf: url, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let fields = line.split(separator: "\t")
            guard fields.count == 2 else { return nil }
            return Case(query: String(fields[0]), acceptable: Set(fields[1].split(separator: " ").map(String.init)))
        }
    }

    @Test func everyLabelIsARealFood() throws {
        let cases = try Self.cases()
        #expect(cases.count >= 150)
        for item in cases {
            #expect(!item.acceptable.isEmpty, "\(item.query) has no acceptable food")
            for id in item.acceptable {
                #expect(Fixtures.shipped.food(id: id) != nil, "\(item.query): \(id) is not an SR28 food")
            }
        }
    }

    static let target = 95.0
    static let floor = 95.0

    @Test func firstHitRateNeverDropsAndIsReported() throws {
        let cases = try Self.cases()
        var misses: [String] = []
        var details: [String] = []
        for item in cases {
            let first = Fixtures.shipped.search(item.query, limit: 1).first
            if let first, item.acceptable.contains(first.id) { continue }
            misses.append("  \(item.query) → \(first.map { "\($0.id) \($0.description)" } ?? "(no hit)")")
            if ProcessInfo.processInfo.environment["OFJ_EVAL_DEBUG"] != nil {
                let ranked = Fixtures.shipped.rankedSearch(item.query, limit: 40).hits
                for (rank, hit) in ranked.enumerated() where rank < 3 || item.acceptable.contains(hit.food.id) {
                    details.append("    [\(item.query)] #\(rank + 1) \(hit.score) \(item.acceptable.contains(hit.food.id) ? "OK " : "") \(hit.food.id) \(hit.food.description) [\(hit.food.group)] p\(hit.food.portions.count)")
                    if rank >= 3 { break }
                }
            }
        }
        let rate = Double(cases.count - misses.count) / Double(cases.count) * 100
        let figure = String(format: "%.1f", rate)
        print("Search evaluation: first hit acceptable for \(cases.count - misses.count) of \(cases.count) queries (\(figure)%; target \(Int(Self.target))%)")
        for miss in misses { print(miss) }
        for line in details { print(line) }
        #expect(rate >= Self.floor, "first-hit rate \(figure)% fell below \(Self.floor)%:\n\(misses.joined(separator: "\n"))")
    }
}
