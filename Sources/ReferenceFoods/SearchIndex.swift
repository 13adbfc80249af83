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
// - a few spellings people use map to USDA's (yoghurt → yogurt, ketchup → catsup, skim →
//   nonfat), "2 percent"/"2 %" read as "2%", and two typed words also match USDA's joined
//   word ("soy milk" → "Soymilk", "low fat" → "lowfat"), scoring as two matched words.
// Ties fall back to the shorter description, then the lower NDB number.

struct SearchIndex: Sendable {
    /// Sorted, unique stemmed terms; a term id is its position, so prefix matches form a range.
    let vocabulary: [String]
    /// Every food's tokens back to back (one flat array keeps the search loop free of
    /// reference counting); food i owns tokens[tokenStart[i]..<tokenStart[i + 1]].
    let tokens: [Token]
    let tokenStart: [Int32]
    let foods: [IndexedFood]

    struct Token: Sendable {
        let term: Int32
        let weight: Int32
        let countsAsExtra: Bool
    }

    struct IndexedFood: Sendable {
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
    static let negations: Set<String> = ["not", "without", "no", "non"]
    /// Leading segments that name a category rather than the food ("Fish, salmon").
    static let categoryPrefixes: Set<String> = ["fish", "nuts", "seeds", "cereals", "cereals ready-to-eat", "beverages", "spices",
                                                "babyfood", "candies", "snacks", "crustaceans", "mollusks", "game meat",
                                                "alcoholic beverage", "fast foods", "restaurant", "vegetables", "fruit",
                                                "salad dressing"]
    /// Words that mark the plain, default form of a food.
    static let plainWords: [String: Int32] = ["raw": 40, "fresh": 30, "whole": 30, "plain": 30, "unprepared": 30, "white": 15,
                                              "regular": 10, "skinless": 15, "boneless": 15, "all": 10, "variety": 10,
                                              "commercial": 10, "smooth": 10, "original": 10, "average": 30]
    /// Words that mark a processed, prepared or stand-in form.
    static let processedWords: [String: Int32] = ["substitute": 100, "imitation": 100, "meatless": 100, "mix": 50, "evaporated": 50, "condensed": 50,
                                                  "breaded": 40, "prepared": 30, "recipe": 30, "flavored": 30, "sliced": 30, "deli": 30,
                                                  "solution": 30, "fortified": 20, "reduced": 20, "canned": 20, "sweetened": 20,
                                                  "dehydrated": 20, "powder": 20, "cooked": 20, "roasted": 20, "fried": 20,
                                                  "grilled": 20, "baked": 20, "stewed": 20, "braised": 20, "broiled": 20,
                                                  "microwaved": 20, "heated": 20, "frozen": 10, "dry": 10, "dried": 10]
    static let groupPenalties: [String: Int32] = ["Baby Foods": 200, "Fast Foods": 150, "Restaurant Foods": 150,
                                                  "Sausages and Luncheon Meats": 60, "Meals, Entrees, and Side Dishes": 100,
                                                  "American Indian/Alaska Native Foods": 100, "Soups, Sauces, and Gravies": 50,
                                                  "Sweets": 50, "Snacks": 50]
    /// Upper-case words that are abbreviations, not brands.
    static let notBrands: Set<String> = ["USDA", "DHA", "ARA", "NFSMI", "WIC", "BBQ", "NS", "NFS"]
    /// How people type a food that USDA names differently; each query term also matches these.
    static let synonyms: [String: [String]] = ["yoghurt": ["yogurt"], "skim": ["nonfat"], "ketchup": ["catsup"],
                                               "hotdog": ["frankfurter"], "fry": ["fried"], "soda": ["carbonated"],
                                               "garbanzo": ["chickpea"], "chickpea": ["garbanzo"]]

    // MARK: - Building

    /// One word of a description or common name before term ids are final.
    private struct RawToken {
        var term: Int32          // provisional id (first-seen order)
        var weight: Int32
        var inParentheses: Bool
        var isDetail: Bool       // in a "with added vitamin …" segment
        var isCategory: Bool     // in a leading "Fish," / "Nuts," segment
        var isHead: Bool
        var negated: Bool        // follows "not" / "without" / "no"
        var isCommonName: Bool
    }

    /// Provisional term ids in first-seen order.
    private struct Interner {
        var ids: [String: Int32] = [:]
        var terms: [String] = []

        mutating func intern(_ term: String) -> Int32 {
            if let id = ids[term] { return id }
            let id = Int32(terms.count)
            ids[term] = id
            terms.append(term)
            return id
        }
    }

    init(foods: [ReferenceFood]) {
        // Stop words and negations are interned first so they can be recognised by id alone.
        var interner = Interner()
        interner.ids.reserveCapacity(16_384)
        for word in SearchIndex.stopWords.sorted() { _ = interner.intern(word) }
        let stopCount = Int32(interner.terms.count)  // ids below this are stop words
        let negationIDs = SearchIndex.negations.sorted().map { interner.intern($0) }
        let withAdded = Array("with added".utf8)
        let withoutAdded = Array("without added".utf8)

        // Every food's raw tokens back to back; food i owns rawTokens[rawStart[i]..<rawStart[i + 1]].
        var tokens: [RawToken] = []
        tokens.reserveCapacity(foods.count * 16)
        var rawStart: [Int] = [0]
        rawStart.reserveCapacity(foods.count + 1)
        var commonSegments: [[[Int32]]] = []
        commonSegments.reserveCapacity(foods.count)
        var words: [String] = []
        words.reserveCapacity(32)
        for food in foods {
            let bytes = SearchText.fold(food.description)
            let segments = SearchText.segmentRanges(bytes)
            let skipsCategory = segments.count > 1
                && SearchIndex.categoryPrefixes.contains(String(decoding: bytes[segments[0]], as: UTF8.self))
            let headEnd = skipsCategory ? 2 : 1
            for (index, segment) in segments.enumerated() {
                let weight = index < headEnd ? SearchIndex.headWeight
                    : (index == headEnd ? SearchIndex.nextSegmentWeight : SearchIndex.laterSegmentWeight)
                // "with added vitamin A and vitamin D" only says how a food is fortified; but "with
                // added solution" (injected brine) is a different product, so it stays a real word.
                let isDetail = (bytes[segment].starts(with: withAdded) || bytes[segment].starts(with: withoutAdded))
                    && !String(decoding: bytes[segment], as: UTF8.self).contains("solution")
                let isCategory = skipsCategory && index == 0
                var depth = 0
                var partStart = segment.lowerBound
                var position = segment.lowerBound
                while partStart <= segment.upperBound {
                    // A part ends at a parenthesis or at the end of the segment.
                    while position < segment.upperBound && bytes[position] != UInt8(ascii: "(") && bytes[position] != UInt8(ascii: ")") {
                        position += 1
                    }
                    let inParentheses = depth > 0
                    var negated = false
                    SearchText.stemmedWords(bytes, partStart..<position, into: &words)
                    for word in words {
                        let term = interner.intern(word)
                        tokens.append(RawToken(term: term, weight: inParentheses ? SearchIndex.parentheticalWeight : weight,
                                               inParentheses: inParentheses, isDetail: isDetail, isCategory: isCategory,
                                               isHead: index < headEnd && !isCategory && !inParentheses,
                                               negated: negated, isCommonName: false))
                        negated = negationIDs.contains(term)
                    }
                    if position < segment.upperBound {
                        depth = bytes[position] == UInt8(ascii: "(") ? depth + 1 : max(0, depth - 1)
                    }
                    position += 1
                    partStart = position
                }
            }
            var common: [[Int32]] = []
            if let name = food.commonName {
                let nameBytes = SearchText.fold(name)
                for segment in SearchText.segmentRanges(nameBytes) {
                    var meaningful: [Int32] = []
                    SearchText.stemmedWords(nameBytes, segment, into: &words)
                    for word in words {
                        let term = interner.intern(word)
                        tokens.append(RawToken(term: term, weight: SearchIndex.commonNameWeight, inParentheses: false, isDetail: false,
                                               isCategory: false, isHead: false, negated: false, isCommonName: true))
                        if term >= stopCount { meaningful.append(term) }
                    }
                    if !meaningful.isEmpty { common.append(meaningful) }
                }
            }
            rawStart.append(tokens.count)
            commonSegments.append(common)
        }

        // Final ids: position in the sorted vocabulary, so a prefix's matches are one id range.
        let terms = interner.terms
        let order = terms.indices.sorted { terms[$0] < terms[$1] }
        var finalID = [Int32](repeating: 0, count: terms.count)
        for (position, provisionalID) in order.enumerated() { finalID[provisionalID] = Int32(position) }
        vocabulary = order.map { terms[$0] }
        var plainPoints = [Int32](repeating: 0, count: terms.count)
        for (word, points) in SearchIndex.plainWords { if let id = interner.ids[word] { plainPoints[Int(id)] += points } }
        for (word, points) in SearchIndex.processedWords { if let id = interner.ids[word] { plainPoints[Int(id)] -= points } }
        let startsWithDigit = terms.map { $0.utf8.first.map(SearchText.isDigit) ?? false }

        var indexed: [IndexedFood] = []
        indexed.reserveCapacity(foods.count)
        var quality: [Int32] = []
        var allTokens: [Token] = []
        allTokens.reserveCapacity(tokens.count)
        var tokenStart: [Int32] = [0]
        tokenStart.reserveCapacity(foods.count + 1)
        for (foodIndex, food) in foods.enumerated() {
            var head: [Int32] = []
            quality.removeAll(keepingCapacity: true)
            var extraCount: Int32 = 0
            for token in tokens[rawStart[foodIndex]..<rawStart[foodIndex + 1]] {
                let isStop = token.term < stopCount
                let extra = !token.isCommonName && !token.isDetail && !token.inParentheses && !isStop
                    && !startsWithDigit[Int(token.term)] && !token.isCategory
                if extra { extraCount += 1 }
                allTokens.append(Token(term: finalID[Int(token.term)], weight: token.weight, countsAsExtra: extra))
                if token.isHead && !isStop { head.append(finalID[Int(token.term)]) }
                if !token.isCommonName && !token.negated && !token.isDetail && !token.inParentheses && !quality.contains(token.term) {
                    quality.append(token.term)
                }
            }
            var prior: Int32 = quality.reduce(0) { $0 + plainPoints[Int($1)] }
            prior -= SearchIndex.groupPenalties[food.group] ?? 0
            if SearchIndex.looksBranded(food.description) { prior -= SearchIndex.brandPenalty }
            prior += SearchIndex.portionBonus * Int32(min(food.portions.count, SearchIndex.portionBonusCap))
            tokenStart.append(Int32(allTokens.count))
            indexed.append(IndexedFood(headTerms: head,
                                       commonNameSegments: commonSegments[foodIndex].map { $0.map { finalID[Int($0)] } },
                                       prior: prior, extraCount: extraCount, descriptionLength: food.description.utf8.count))
        }
        self.foods = indexed
        self.tokens = allTokens
        self.tokenStart = tokenStart
    }

    /// True when the description has an all-capitals word of 3+ letters that is not a known
    /// abbreviation ("CHEERIOS", "KELLOGG'S"): USDA writes brand names that way.
    static func looksBranded(_ description: String) -> Bool {
        let bytes = Array(description.utf8)
        var index = 0
        while index < bytes.count {
            let start = index
            var letters = 0
            var allUpper = true
            while index < bytes.count {
                let byte = bytes[index]
                let upper = byte >= 0x41 && byte <= 0x5A
                let lower = byte >= 0x61 && byte <= 0x7A
                guard upper || lower || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "-") else { break }
                if upper || lower { letters += 1 }
                if lower { allUpper = false }
                index += 1
            }
            if index > start {
                let first = bytes[start]
                if allUpper, letters >= 3, first >= 0x41 && first <= 0x5A,
                   !notBrands.contains(String(decoding: bytes[start..<index], as: UTF8.self)) {
                    return true
                }
            } else {
                index += 1
            }
        }
        return false
    }

    // MARK: - Querying

    /// One way a query word may match: the exact term id (if the vocabulary has it) and the id
    /// range of terms it is a prefix of.
    struct Alternative {
        let exact: Int32
        let prefixRange: Range<Int32>
        /// How many typed words this stands for: 2 for "soymilk" read from "soy milk", so the
        /// joined reading scores like two matched words.
        var span: Int32 = 1
    }

    /// Normalised query terms: folded, stemmed, "2 percent" → "2%", stop words dropped (unless
    /// the query is nothing else), duplicates dropped. Nil when there is no usable word or too many.
    func queryTerms(_ query: String) -> [String]? {
        var terms: [String] = []
        for term in SearchText.terms(query) {
            if term == "percent", let last = terms.last, last.utf8.allSatisfy(SearchText.isDigit) {
                terms[terms.count - 1] = last + "%"
            } else {
                terms.append(term)
            }
        }
        let meaningful = terms.filter { !SearchIndex.stopWords.contains($0) }
        if !meaningful.isEmpty { terms = meaningful }
        var seen = Set<String>()
        terms = terms.filter { seen.insert($0).inserted }
        guard !terms.isEmpty, terms.count <= SearchIndex.maximumQueryTerms else { return nil }
        return terms
    }

    /// The ways to read the query: as typed, and with two adjacent words joined when USDA writes
    /// them as one ("soy milk" → "soymilk", "hot dog" → "hotdog", "oat meal" → "oatmeal").
    func queryVariants(_ query: String) -> [[[Alternative]]]? {
        guard let terms = queryTerms(query) else { return nil }
        func words(_ terms: [String]) -> [[Alternative]] {
            terms.map { term in ([term] + (SearchIndex.synonyms[term] ?? [])).map(alternative) }
        }
        var variants = [words(terms)]
        for index in terms.indices.dropLast() {
            let joined = SearchText.stem(Array((terms[index] + terms[index + 1]).utf8))
            guard alternative(joined).exact >= 0 else { continue }
            var merged = terms
            merged.replaceSubrange(index...index + 1, with: [joined])
            var variant = words(merged)
            for position in variant[index].indices { variant[index][position].span = 2 }
            variants.append(variant)
        }
        return variants
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

    /// Indices of the best `limit` foods, best first.
    func search(_ query: String, limit: Int) -> [Int] {
        guard limit > 0, let variants = queryVariants(query) else { return [] }
        var best = [Int32](repeating: .min, count: foods.count)
        for words in variants { score(words, into: &best) }
        var hits: [(score: Int32, length: Int, index: Int)] = []
        for (index, score) in best.enumerated() where score != .min {
            hits.append((score, foods[index].descriptionLength, index))
        }
        // Foods are stored in NDB-number order, so the index is the final tie-break.
        hits.sort { lhs, rhs in
            if lhs.score != rhs.score { return lhs.score > rhs.score }
            if lhs.length != rhs.length { return lhs.length < rhs.length }
            return lhs.index < rhs.index
        }
        return hits.prefix(limit).map(\.index)
    }

    /// Scores every food that matches all `words`, keeping the higher score in `best`.
    private func score(_ words: [[Alternative]], into best: inout [Int32]) {
        // Alternatives flattened: word w owns alternatives[wordStart[w]..<wordStart[w + 1]].
        let alternatives = words.flatMap { $0 }
        var wordStart = [0]
        for word in words { wordStart.append(wordStart[wordStart.count - 1] + word.count) }
        let queryTerms = alternatives.map(\.exact).filter { $0 >= 0 }
        var matched = [Int32](repeating: -1, count: words.count)
        tokens.withUnsafeBufferPointer { tokens in
            alternatives.withUnsafeBufferPointer { alternatives in
                for foodIndex in 0..<foods.count {
                    let range = Int(tokenStart[foodIndex])..<Int(tokenStart[foodIndex + 1])
                    var total: Int32 = 0
                    var allMatched = true
                    for word in 0..<words.count {
                        var bestPoints: Int32 = 0
                        var bestTerm: Int32 = -1
                        for position in range {
                            let token = tokens[position]
                            for alternativeIndex in wordStart[word]..<wordStart[word + 1] {
                                let alternative = alternatives[alternativeIndex]
                                let points: Int32
                                if token.term == alternative.exact {
                                    points = token.weight * alternative.span
                                } else if alternative.prefixRange.contains(token.term) {
                                    points = token.weight * alternative.span * SearchIndex.prefixPercent / 100
                                } else {
                                    continue
                                }
                                if points > bestPoints {
                                    bestPoints = points
                                    bestTerm = token.term
                                }
                            }
                        }
                        if bestPoints == 0 {
                            allMatched = false
                            break
                        }
                        total += bestPoints
                        matched[word] = bestTerm
                    }
                    guard allMatched else { continue }
                    let food = foods[foodIndex]
                    // The food's main noun (or one of its common names) is exactly the query.
                    let headIsQuery = !food.headTerms.isEmpty && food.headTerms.allSatisfy(queryTerms.contains)
                    if headIsQuery || food.commonNameSegments.contains(where: { $0.allSatisfy(queryTerms.contains) }) {
                        total += SearchIndex.pureHeadBonus
                    }
                    var unmatchedExtras = food.extraCount
                    for position in range where tokens[position].countsAsExtra && matched.contains(tokens[position].term) {
                        unmatchedExtras -= 1
                    }
                    total -= SearchIndex.extraWordPenalty * unmatchedExtras
                    best[foodIndex] = max(best[foodIndex], total + food.prior)
                }
            }
        }
    }
}
