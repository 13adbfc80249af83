// The read-only USDA SR28 reference database shipped with ofj: lookup by NDB number and word search.
import Foundation
import Synchronization

/// The ~8,800 USDA SR28 foods that ship inside ofj (offline). Loads its resource files lazily,
/// once, on first use; safe to share between tasks.
public final class ReferenceDatabase: Sendable {
    /// The database built into ofj (the ReferenceFoods target's resources). Creating it reads
    /// nothing and does not even locate the resource bundle: a command that never looks a food
    /// up (a text-only turn, `ofj day`) never pays for the 2.8 MB of TSV.
    public static let shared = ReferenceDatabase(locate: { ReferenceDatabase.bundledDirectory })

    /// Where the resource files are, asked on the first load.
    private let locate: @Sendable () -> URL
    private let state = Mutex<LoadState>(.notLoaded)

    private enum LoadState: Sendable {
        case notLoaded
        case loaded(Catalog)
        case failed(ReferenceDatabaseError)
    }

    /// Everything parsed from the resource files. The word index is built on the first search,
    /// so looking foods up by id (logging, `ofj day`) never pays for it.
    private final class Catalog: Sendable {
        let columns: [ReferenceNutrientColumn]
        let foods: [ReferenceFood]
        let indexByID: [String: Int]
        private let searchIndex = Mutex<SearchIndex?>(nil)

        init(_ data: ParsedReferenceData) {
            columns = data.columns
            foods = data.foods
            var indexByID: [String: Int] = [:]
            indexByID.reserveCapacity(data.foods.count)
            for (index, food) in data.foods.enumerated() { indexByID[food.id] = index }
            self.indexByID = indexByID
        }

        /// The word index, built once; searches then run outside the lock on their own copy.
        var search: SearchIndex {
            searchIndex.withLock { index in
                if let index { return index }
                let built = SearchIndex(foods: foods)
                index = built
                return built
            }
        }
    }

    /// A database read from `directoryPath` (a folder holding columns.tsv, foods.tsv and
    /// portions.tsv as written by tools/build-reference.py). Nothing is read until first use.
    public convenience init(directoryPath: String) {
        let directory = URL(fileURLWithPath: directoryPath, isDirectory: true)
        self.init(locate: { directory })
    }

    private init(locate: @escaping @Sendable () -> URL) {
        self.locate = locate
    }

    /// The folder holding the shipped TSV files. SwiftPM copies "Resources" into the bundle;
    /// Foundation may report the bundle's resource URL as the bundle itself or as its
    /// "Resources" folder depending on platform, so ask for the file and take its folder.
    static var bundledDirectory: URL {
        let bundle = Bundle.module
        if let file = bundle.url(forResource: "foods", withExtension: "tsv", subdirectory: "Resources")
            ?? bundle.url(forResource: "foods", withExtension: "tsv") {
            return file.deletingLastPathComponent()
        }
        return bundle.bundleURL.appendingPathComponent("Resources", isDirectory: true)
    }

    // MARK: - Loading

    /// Loads the foods now (if not yet loaded) and reports why they cannot be used. The lookups
    /// below treat a database that failed to load as empty, so call this once where an error
    /// can be shown (e.g. before `ofj ref`).
    public func load() throws {
        if case .failed(let error) = loadState() { throw error }
    }

    /// Loads the foods and builds the word index now, so the first `search` is as fast as the
    /// rest (e.g. at REPL start-up, off the critical path).
    public func prepareSearch() throws {
        try load()
        _ = catalog()?.search
    }

    /// Whether the resource files have been read (successfully or not). False until the first
    /// lookup, search, count or `load()`.
    public var isLoaded: Bool {
        state.withLock { state in
            if case .notLoaded = state { return false }
            return true
        }
    }

    private func catalog() -> Catalog? {
        if case .loaded(let catalog) = loadState() { return catalog }
        return nil
    }

    private func loadState() -> LoadState {
        state.withLock { state in
            if case .notLoaded = state {
                let directory = locate()
                do {
                    state = .loaded(Catalog(try ResourceParser.load(directory: directory)))
                } catch let error as ReferenceDatabaseError {
                    state = .failed(error)
                } catch {
                    state = .failed(.missingFile(directory.lastPathComponent))
                }
            }
            return state
        }
    }

    // MARK: - Queries

    /// Number of foods (0 if the data could not be loaded).
    public var count: Int { catalog()?.foods.count ?? 0 }

    /// The nutrient columns, in file order (energy first), with units and USDA names.
    public var nutrientColumns: [ReferenceNutrientColumn] { catalog()?.columns ?? [] }

    /// All foods in NDB-number order.
    public var allFoods: [ReferenceFood] { catalog()?.foods ?? [] }

    /// The food with SR28 NDB number `id` (e.g. "01123"), or nil.
    public func food(id: String) -> ReferenceFood? {
        guard let catalog = catalog(), let index = catalog.indexByID[id] else { return nil }
        return catalog.foods[index]
    }

    /// Foods whose description (or USDA common name) contains every query word as a word
    /// prefix, best match first (see SearchIndex for the ranking). Case, accents, punctuation
    /// and plurals are ignored; an empty query, one with no letters or digits, or one with more
    /// than 24 distinct words returns nothing.
    public func search(_ query: String, limit: Int = 20) -> [ReferenceFood] {
        guard let catalog = catalog() else { return [] }
        return catalog.search.search(query, limit: limit).map { catalog.foods[$0] }
    }

    /// The same search with each food's score (higher is better), whether the first food is a
    /// clear winner, and the foods to offer when it is not. The first food is clear unless a food
    /// scoring close to it differs materially (energy per 100 g apart by over 30%: brewed vs
    /// instant coffee), or the query does not say dry or cooked and a grain or legume ranks
    /// near the top in both forms ("rice": cooked or raw).
    public func rankedSearch(_ query: String, limit: Int = 5) -> RankedSearch {
        guard let catalog = catalog() else { return RankedSearch(hits: [], clearWinner: false, choices: []) }
        let all = catalog.search.scoredSearch(query, limit: max(limit, 40)).map { (food: catalog.foods[$0.index], score: Int($0.score)) }
        guard let first = all.first else { return RankedSearch(hits: [], clearWinner: false, choices: []) }
        let energy = { (food: ReferenceFood) in food.per100g("energy_kcal") }
        func differs(_ a: ReferenceFood, _ b: ReferenceFood) -> Bool {
            guard let x = energy(a), let y = energy(b) else { return false }
            return abs(x - y) > max(20, 0.3 * max(x, y))
        }
        let close = all.dropFirst().filter { first.score - $0.score < RankedSearch.clearMargin }
        let saysForm = !Set(SearchText.terms(query)).isDisjoint(with: RankedSearch.formWords)
        let near = all.filter { first.score - $0.score < RankedSearch.formMargin }.map(\.food)
        let bothForms = !saysForm && near.contains(where: RankedSearch.isDryForm)
            && near.contains(where: { SearchIndex.cookedStapleGroups.contains($0.group) && !RankedSearch.isDryForm($0) })
        let clear = !bothForms && !close.contains(where: { differs($0.food, first.food) })
        // Choices: the first food, then foods that differ from every one already chosen.
        var choices = [first.food]
        for hit in all.dropFirst() where choices.count < 3 && first.score - hit.score < RankedSearch.formMargin {
            if choices.allSatisfy({ differs($0, hit.food) || RankedSearch.isDryForm($0) != RankedSearch.isDryForm(hit.food) }) {
                choices.append(hit.food)
            }
        }
        // The hits, plus any choice ranked below them (a dry form far down the list).
        var hits = Array(all.prefix(limit))
        if !clear { for food in choices where !hits.contains(where: { $0.food.id == food.id }) { hits += all.filter { $0.food.id == food.id } } }
        return RankedSearch(hits: hits, clearWinner: clear, choices: clear ? [] : choices.map(\.id))
    }
}

/// Search results with scores, for choosing or asking.
public struct RankedSearch: Sendable {
    public let hits: [(food: ReferenceFood, score: Int)]
    public let clearWinner: Bool
    /// Up to 3 reference ids that differ from each other, to ask about; empty when clear.
    public let choices: [String]

    /// Foods scoring within this of the first are close to it.
    public static let clearMargin = 25
    /// How far down a dry or cooked form of a grain or legume still counts as a choice.
    public static let formMargin = 120
    /// Words that pin down a dry or a cooked form.
    static let formWords: Set<String> = ["raw", "dry", "dried", "uncooked", "cooked", "boiled", "canned", "baked", "steamed",
                                         "fried", "roasted", "prepared", "instant"]

    /// A grain or legume in its dry form (little water).
    static func isDryForm(_ food: ReferenceFood) -> Bool {
        SearchIndex.cookedStapleGroups.contains(food.group) && (food.per100g("water_g") ?? 100) < SearchIndex.dryWaterLimit
    }
}
