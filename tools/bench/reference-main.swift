// Release-build timing loop for the reference foods: load (parse + index) and search medians.
// Built by tools/bench-reference.sh together with Sources/ReferenceFoods; not part of the package.
import Foundation

@main
struct ReferenceBench {
    static func milliseconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
    }

    /// CPU time of this thread, which other builders on a shared machine inflate less than wall time.
    static func cpuMilliseconds(_ body: () throws -> Void) rethrows -> Double {
        var start = timespec(), end = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
        try body()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
        return Double(end.tv_sec - start.tv_sec) * 1000 + Double(end.tv_nsec - start.tv_nsec) / 1_000_000
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    static func main() throws {
        let directory = CommandLine.arguments.dropFirst().first ?? "Sources/ReferenceFoods/Resources"
        let url = URL(fileURLWithPath: directory, isDirectory: true)
        var parse: [Double] = [], index: [Double] = [], full: [Double] = [], fullCPU: [Double] = [], firstSearch: [Double] = []
        for _ in 0..<15 {
            var data: ParsedReferenceData?
            parse.append(try cpuMilliseconds { data = try ResourceParser.load(directory: url) })
            if let foods = data?.foods { index.append(cpuMilliseconds { _ = SearchIndex(foods: foods) }) }
            let db = ReferenceDatabase(directoryPath: directory)
            full.append(try milliseconds { try db.load() })
            let again = ReferenceDatabase(directoryPath: directory)
            fullCPU.append(try cpuMilliseconds { try again.load() })
            firstSearch.append(cpuMilliseconds { _ = again.search("egg", limit: 20) })
        }
        print(String(format: "load (all %d foods, by id): median %.1f ms wall, %.1f ms CPU  [CPU alone: parse %.1f ms, word index %.1f ms]",
                     ReferenceDatabase(directoryPath: directory).count, median(full), median(fullCPU), median(parse), median(index)))
        print(String(format: "first search after load (builds the word index): median %.1f ms CPU", median(firstSearch)))
        let db = ReferenceDatabase(directoryPath: directory)
        try db.prepareSearch()
        let queries = ["egg", "greek yogurt", "banana", "2% milk", "chicken breast", "oatmeal", "apple", "rice", "salmon",
                       "almonds", "peanut butter", "broccoli", "avocado", "oat milk", "a", "chicken", "xyzzy",
                       "white rice cooked", "black coffee", "egs", "brocoli"]
        var worst = 0.0
        for query in queries {
            var runs: [Double] = []
            var cpu: [Double] = []
            for _ in 0..<200 {
                runs.append(milliseconds { _ = db.search(query, limit: 20) })
                cpu.append(cpuMilliseconds { _ = db.search(query, limit: 20) })
            }
            worst = max(worst, median(runs))
            print(String(format: "search %-16@ median %.3f ms wall (%.3f ms CPU), max %.3f ms  first: %@", "\"\(query)\"" as NSString,
                         median(runs), median(cpu), runs.max() ?? 0, db.search(query, limit: 1).first?.description ?? "-"))
        }
        print(String(format: "worst search median: %.3f ms", worst))
        // rankedSearch (the assistant's search tool: 40 hits, scores, clear winner, choices).
        for query in ["black beans", "rice", "egs"] {
            var runs: [Double] = []
            for _ in 0..<200 { runs.append(milliseconds { _ = db.rankedSearch(query, limit: 5) }) }
            print(String(format: "rankedSearch %-14@ median %.3f ms wall, max %.3f ms", "\"\(query)\"" as NSString, median(runs), runs.max() ?? 0))
        }
    }
}
