// Word search over reference foods, ranked for how people type ("egg" → "Egg, whole, raw, fresh").
//
// Ranking, in integer points so ties are exact and the order is deterministic:
// - every query word must match a description or common-name word as a prefix ("ban" finds
//   bananas); a whole-word match scores more than a prefix match;
// - where the word matches matters: USDA descriptions put the main noun first and refine it
//   after commas ("Bread, oatmeal" is bread), so the first segment scores most. A leading
//   category such as "Fish," or "Nuts," is skipped ("Fish, salmon, …" is salmon);
// - a food whose main noun is exactly the query ("Egg" for "egg") beats "Egg substitute";
// - words the query did not ask for cost a little, so "Bananas, raw" beats longer names;
// - a prior prefers the plain, common form: raw / whole / plain / unprepared over prepared,
//   canned, substitute, branded, fast-food, restaurant, baby-food and deli items; foods with
//   more household measures (a sign of everyday use) get a small bonus.
// Ties fall back to the shorter description, then the lower NDB number.

struct SearchIndex: Sendable {
    /// Sorted, unique stemmed terms; a term id is its position, so prefix matches form a range.
    let vocabulary: [String]
    let foods: [IndexedFood]

    struct Token: Sendable {
        let term: Int32
        let weight: Int32
        let countsAsExtra: Bool
    }

    struct IndexedFood: Sendable {
        let tokens: [Token]
        let headTerms: [Int32]
        let commonNameSegments: [[Int32]]
        let prior: Int32
        let extraCount: Int32
        let descriptionLength: Int
    }

    // MARK: - Tunables (points)

    static let headWeight: Int32 = 300
    static let nextSegmentWeight: Int32 = 200
    static let laterSegmentWeight: Int32 = 150
    static let parentheticalWeight: Int32 = 100
    static let commonNameWeight: Int32 = 300
    static let prefixPercent: Int32 = 40
    static let pureHeadBonus: Int32 = 150
    static let extraWordPenalty: Int32 = 8
    static let brandPenalty: Int32 = 100
    static let portionBonus: Int32 = 4
    static let portionBonusCap = 6
    static let maximumQueryTerms = 24

    static let stopWords: Set<String> = ["and", "or", "with", "without", "not", "no", "in", "of", "to", "from", "by", "on", "the", "a", "an"]
    static let negations: Set<String> = ["not", "without", "no"]
    /// Leading segments that name a category rather than the food ("Fish, salmon").
    static let categoryPrefixes: Set<String> = ["fish", "nuts", "seeds", "cereals", "cereals ready-to-eat", "beverages", "spices",
                                                "babyfood", "candies", "snacks", "crustaceans", "mollusks", "game meat",
                                                "alcoholic beverage", "fast foods", "restaurant", "vegetables", "fruit"]
    /// Words that mark the plain, default form of a food.
    static let plainWords: [String: Int32] = ["raw": 40, "fresh": 30, "whole": 30, "plain": 30, "unprepared": 30, "white": 15,
                                              "regular": 10, "skinless": 15, "boneless": 15, "all": 10, "variety": 10,
                                              "commercial": 10, "smooth": 10, "original": 10]
    /// Words that mark a processed, prepared or stand-in form.
    static let processedWords: [String: Int32] = ["substitute": 100, "imitation": 100, "mix": 50, "evaporated": 50, "condensed": 50,
                                                  "breaded": 40, "prepared": 30, "recipe": 30, "flavored": 30, "sliced": 30,
                                                  "solution": 30, "fortified": 20, "reduced": 20, "canned": 20, "sweetened": 20,
                                                  "dehydrated": 20, "powder": 20, "cooked": 20, "roasted": 20, "fried": 20,
                                                  "grilled": 20, "baked": 20, "stewed": 20, "braised": 20, "broiled": 20,
                                                  "microwaved": 20, "heated": 20, "frozen": 10, "dry": 10, "dried": 10]
    static let groupPenalties: [String: Int32] = ["Baby Foods": 200, "Fast Foods": 150, "Restaurant Foods": 150,
                                                  "Sausages and Luncheon Meats": 150, "Meals, Entrees, and Side Dishes": 100,
                                                  "American Indian/Alaska Native Foods": 100, "Soups, Sauces, and Gravies": 50,
                                                  "Sweets": 50, "Snacks": 50]
    /// Upper-case words that are abbreviations, not brands.
    static let notBrands: Set<String> = ["USDA", "DHA", "ARA", "NFSMI", "WIC", "BBQ", "NS", "NFS"]
    /// How people type a food that USDA names differently; each query term also matches these.
    static let synonyms: [String: [String]] = ["yoghurt": ["yogurt"], "skim": ["nonfat"], "ketchup": ["catsup"],
                                               "hotdog": ["frankfurter"], "fry": ["fried"], "soda": ["carbonated"],
                                               "garbanzo": ["chickpea"], "chickpea": ["garbanzo"]]

    // MARK: - Building

    init(foods: [ReferenceFood]) {
        struct Draft {
            var tokens: [(term: String, weight: Int32, extra: Bool)] = []
            var head: [String] = []
            var common: [[String]] = []
            var prior: Int32 = 0
        }
        var drafts: [Draft] = []
        drafts.reserveCapacity(foods.count)
        var termSet = Set<String>()
        for food in foods {
            var draft = Draft()
            let segments = SearchText.segments(food.description)
            let skipsCategory = segments.count > 1
                && SearchIndex.categoryPrefixes.contains(String(decoding: SearchText.fold(String(segments[0])), as: UTF8.self))
            let headEnd = skipsCategory ? 2 : 1
            var quality = Set<String>()
            for (index, segment) in segments.enumerated() {
                let weight = index < headEnd ? SearchIndex.headWeight
                    : (index == headEnd ? SearchIndex.nextSegmentWeight : SearchIndex.laterSegmentWeight)
                let folded = SearchText.fold(String(segment))
                let isDetail = folded.starts(with: Array("with added".utf8)) || folded.starts(with: Array("without added".utf8))
                let isCategory = skipsCategory && index == 0
                for part in SearchIndex.parenthesisParts(folded) {
                    var negated = false
                    for term in SearchText.words(folded: part.bytes).map(SearchText.stem) {
                        let isStop = SearchIndex.stopWords.contains(term)
                        let startsWithDigit = term.utf8.first.map { $0 >= 0x30 && $0 <= 0x39 } ?? false
                        let extra = !isDetail && !part.inParentheses && !isStop && !startsWithDigit && !isCategory
                        draft.tokens.append((term, part.inParentheses ? SearchIndex.parentheticalWeight : weight, extra))
                        if !negated && !isDetail && !part.inParentheses { quality.insert(term) }
                        if index < headEnd && !isCategory && !part.inParentheses && !isStop { draft.head.append(term) }
                        termSet.insert(term)
                        negated = SearchIndex.negations.contains(term)
                    }
                }
            }
            if let common = food.commonName {
                for segment in SearchText.segments(common) {
                    let terms = SearchText.terms(String(segment))
                    for term in terms {
                        draft.tokens.append((term, SearchIndex.commonNameWeight, false))
                        termSet.insert(term)
                    }
                    let meaningful = terms.filter { !SearchIndex.stopWords.contains($0) }
                    if !meaningful.isEmpty { draft.common.append(meaningful) }
                }
            }
            var prior: Int32 = 0
            for word in quality {
                prior += SearchIndex.plainWords[word] ?? 0
                prior -= SearchIndex.processedWords[word] ?? 0
            }
            prior -= SearchIndex.groupPenalties[food.group] ?? 0
            if SearchIndex.looksBranded(food.description) { prior -= SearchIndex.brandPenalty }
            prior += SearchIndex.portionBonus * Int32(min(food.portions.count, SearchIndex.portionBonusCap))
            draft.prior = prior
            drafts.append(draft)
        }
        let vocabulary = termSet.sorted()
        var ids: [String: Int32] = [:]
        ids.reserveCapacity(vocabulary.count)
        for (index, term) in vocabulary.enumerated() { ids[term] = Int32(index) }
        func id(_ term: String) -> Int32 { ids[term] ?? -1 }  // every term was inserted above
        self.vocabulary = vocabulary
        self.foods = zip(foods, drafts).map { food, draft in
            IndexedFood(tokens: draft.tokens.map { Token(term: id($0.term), weight: $0.weight, countsAsExtra: $0.extra) },
                        headTerms: draft.head.map(id),
                        commonNameSegments: draft.common.map { $0.map(id) },
                        prior: draft.prior,
                        extraCount: Int32(draft.tokens.filter(\.extra).count),
                        descriptionLength: food.description.utf8.count)
        }
    }

    /// Splits folded bytes into the text outside and inside parentheses.
    static func parenthesisParts(_ bytes: [UInt8]) -> [(bytes: [UInt8], inParentheses: Bool)] {
        var parts: [(bytes: [UInt8], inParentheses: Bool)] = []
        var current: [UInt8] = []
        var depth = 0
        for byte in bytes {
            if byte == UInt8(ascii: "(") || byte == UInt8(ascii: ")") {
                parts.append((current, depth > 0))
                current = []
                depth = byte == UInt8(ascii: "(") ? depth + 1 : max(0, depth - 1)
            } else {
                current.append(byte)
            }
        }
        parts.append((current, depth > 0))
        return parts.filter { !$0.bytes.isEmpty }
    }

    /// True when the description has an all-capitals word of 3+ letters that is not a known
    /// abbreviation ("CHEERIOS", "KELLOGG'S"): USDA writes brand names that way.
    static func looksBranded(_ description: String) -> Bool {
        var run: [UInt8] = []
        func check() -> Bool {
            defer { run.removeAll(keepingCapacity: true) }
            let letters = run.filter { ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }
            guard letters.count >= 3, let first = run.first, first >= 0x41 && first <= 0x5A,
                  letters.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else { return false }
            return !notBrands.contains(String(decoding: run, as: UTF8.self))
        }
        for byte in description.utf8 {
            let isLetter = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            if isLetter || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "-") {
                run.append(byte)
            } else if !run.isEmpty, check() {
                return true
            }
        }
        return !run.isEmpty && check()
    }

    // MARK: - Querying

    /// One way a query word may match: the exact term id (if the vocabulary has it) and the id
    /// range of terms it is a prefix of.
    struct Alternative {
        let exact: Int32
        let prefixRange: Range<Int32>
    }

    /// Query words as alternatives; nil when the query has no usable word or too many.
    func queryWords(_ query: String) -> [[Alternative]]? {
        var terms = SearchText.terms(query)
        // "2 percent milk" → "2%", like "2% milk".
        var merged: [String] = []
        for term in terms {
            if term == "percent", let last = merged.last, last.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                merged[merged.count - 1] = last + "%"
            } else {
                merged.append(term)
            }
        }
        terms = merged
        let meaningful = terms.filter { !SearchIndex.stopWords.contains($0) }
        if !meaningful.isEmpty { terms = meaningful }
        var seen = Set<String>()
        terms = terms.filter { seen.insert($0).inserted }
        guard !terms.isEmpty, terms.count <= SearchIndex.maximumQueryTerms else { return nil }
        return terms.map { term in
            ([term] + (SearchIndex.synonyms[term] ?? [])).map(alternative)
        }
    }

    private func alternative(_ term: String) -> Alternative {
        let lower = lowerBound(term)
        let exact: Int32 = lower < vocabulary.count && vocabulary[lower] == term ? Int32(lower) : -1
        var low = lower
        var high = vocabulary.count
        while low < high {  // first term past the prefix block
            let middle = (low + high) / 2
            if vocabulary[middle].hasPrefix(term) { low = middle + 1 } else { high = middle }
        }
        return Alternative(exact: exact, prefixRange: Int32(lower)..<Int32(low))
    }

    private func lowerBound(_ term: String) -> Int {
        var low = 0
        var high = vocabulary.count
        while low < high {
            let middle = (low + high) / 2
            if vocabulary[middle] < term { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Score of one food, or nil when some query word does not match it.
    func score(_ food: IndexedFood, _ words: [[Alternative]]) -> Int32? {
        var total: Int32 = 0
        var matched: [Int32] = []
        matched.reserveCapacity(words.count)
        for alternatives in words {
            var best: Int32 = 0
            var bestTerm: Int32 = -1
            for token in food.tokens {
                for alternative in alternatives {
                    let points: Int32
                    if token.term == alternative.exact {
                        points = token.weight
                    } else if alternative.prefixRange.contains(token.term) {
                        points = token.weight * SearchIndex.prefixPercent / 100
                    } else {
                        continue
                    }
                    if points > best {
                        best = points
                        bestTerm = token.term
                    }
                }
            }
            if best == 0 { return nil }
            total += best
            matched.append(bestTerm)
        }
        func isQueryTerm(_ term: Int32) -> Bool {
            words.contains { $0.contains { $0.exact == term } }
        }
        let headIsQuery = !food.headTerms.isEmpty && food.headTerms.allSatisfy(isQueryTerm)
        if headIsQuery || food.commonNameSegments.contains(where: { $0.allSatisfy(isQueryTerm) }) {
            total += SearchIndex.pureHeadBonus
        }
        var unmatchedExtras = food.extraCount
        for token in food.tokens where token.countsAsExtra && matched.contains(token.term) {
            unmatchedExtras -= 1
        }
        total -= SearchIndex.extraWordPenalty * unmatchedExtras
        return total + food.prior
    }

    /// Indices of the best `limit` foods, best first.
    func search(_ query: String, limit: Int) -> [Int] {
        guard limit > 0, let words = queryWords(query) else { return [] }
        var hits: [(score: Int32, length: Int, index: Int)] = []
        for (index, food) in foods.enumerated() {
            if let score = score(food, words) { hits.append((score, food.descriptionLength, index)) }
        }
        // Foods are stored in NDB-number order, so the index is the final tie-break.
        hits.sort { lhs, rhs in
            if lhs.score != rhs.score { return lhs.score > rhs.score }
            if lhs.length != rhs.length { return lhs.length < rhs.length }
            return lhs.index < rhs.index
        }
        return hits.prefix(limit).map(\.index)
    }
}
