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
//   more household measures (a sign of everyday use) get a small bonus (up to 8 measures);
// - a negated word ("Chicken, canned, no broth") does not match; a word the food only comes with
//   ("…, with broth") weighs little, and when it is the query's last word (its head noun:
//   "chicken broth") the food's head does not count as the query;
// - in sausages and luncheon meats a turkey or chicken version is the stand-in; a grain or
//   legume rich in fat (peanuts) is a nut, not a dry staple;
// - a head naming two foods ("Jams and preserves") also names the first on its own; a drink
//   powder "prepared with …" is the drink, so its powder words cost nothing;
// - words after "made from" only detail the food ("Soy sauce made from soy and wheat (shoyu)"
//   has the head "Soy sauce"); a head ending in "butter" after another word ("sunflower seed
//   butter") is a processed form, as are flour and immature (fresh-shelled) beans;
// - processing words in a segment starting with a number ("94% fat free") still count, though
//   the segment's words are not extras;
// - words offered as alternatives ("red or green") are one extra word; soups, like drinks, are
//   had prepared, so a dry soup's powder words cost more;
// - English puts the noun last: a head word before the head's last word ("Parmesan cheese
//   topping") only modifies it and weighs 200, given back when the query names the whole head;
// - "unsweetened" marks the plain form; "self-rising" (leavening added) a processed one;
// - a few spellings people use map to USDA's (yoghurt → yogurt, ketchup → catsup, skim →
//   nonfat, venison → deer), "2 percent"/"2 %" read as "2%", and two typed words also match USDA's joined
//   word ("soy milk" → "Soymilk", "low fat" → "lowfat"), scoring as two matched words.
// - a food whose name (first two segments, "Cream, sour") is exactly the query words gets the
//   name bonus as well; a "with …" segment (other than salt, skin or added nutrients) marks a
//   combination and costs a little; a segment starting with a number ("2% milkfat", "8 grams
//   protein per 8 ounce") only details the composition;
// - a word the query asked for is never penalised ("canned tuna", "fried egg"); a cooking word in
//   the query ("scrambled", "baked") also asks for "cooked";
// - grains and legumes are eaten cooked: in those groups a form with little water (dry beans,
//   dry pasta, raw rice) gets no "raw" bonus and costs a little, and cooked / canned forms are
//   not penalised; beverages are drunk as prepared, so powders, concentrates and instant forms
//   cost more and "prepared" / "brewed" cost nothing;
// - when no food has every query word, the best foods missing one word are returned, and a
//   joined word people type ("cornflakes") also matches USDA's two words ("Corn Flakes").
// Ties fall back to the shorter description, then the lower NDB number.

struct SearchIndex: Sendable {
    /// Sorted, unique stemmed terms; a term id is its position, so prefix matches form a range.
    let vocabulary: [String]
    /// Every food's tokens back to back (one flat array keeps the search loop free of
    /// reference counting); food i owns tokens[tokenStart[i]..<tokenStart[i + 1]].
    let tokens: [Token]
    let tokenStart: [Int32]
    let foods: [IndexedFood]
    /// How many foods use each term (by term id): a typo is read as the most used nearby word.
    let termFoodCounts: [Int32]

    struct Token: Sendable {
        let term: Int32
        let weight: Int32
        let countsAsExtra: Bool
    }

    struct IndexedFood: Sendable {
        let headTerms: [Int32]
        /// The first of the foods a head names ("Jams" of "Jams and preserves"); empty when one.
        let firstHeadTerms: [Int32]
        /// What the head's modifiers lost, given back when the query names the whole head ("turkey bacon").
        let modifierRefund: Int32
        let commonNameSegments: [[Int32]]
        let prior: Int32
        /// The penalty of a dish group (already in `prior`), given back when the food's head is the query.
        let groupPenalty: Int32
        let extraCount: Int32
        /// The name: head and next segment terms (no stop words); a query equal to it earns the name bonus.
        let nameTerms: [Int32]
        /// Penalised words of the description with their (positive) penalty, for the add-back
        /// when the query asks for the word.
        let penalties: [(term: Int32, points: Int32)]
        let descriptionLength: Int
    }

    // MARK: - Tunables (points)

    static let headWeight: Int32 = 300
    static let nextSegmentWeight: Int32 = 200
    static let laterSegmentWeight: Int32 = 150
    static let parentheticalWeight: Int32 = 100
    static let withSegmentWeight: Int32 = 50
    static let modifierWeight: Int32 = 200
    static let commonNameWeight: Int32 = 300
    static let prefixPercent: Int32 = 40
    static let pureHeadBonus: Int32 = 150
    static let extraWordPenalty: Int32 = 8
    static let brandPenalty: Int32 = 100
    static let portionBonus: Int32 = 4
    static let portionBonusCap = 8
    static let maximumQueryTerms = 24
    static let namePairBonus: Int32 = 150
    static let combinationPenalty: Int32 = 30
    static let dryStaplePenalty: Int32 = 40
    static let missingWordPenalty: Int32 = 200
    /// Longer words are not split or corrected (the work grows with the word; no food word is this long).
    static let longestCorrectedWord = 30
    /// Groups of dishes: their penalty keeps them below ingredients, unless the dish is asked for by name.
    static let dishGroups: Set<String> = ["Soups, Sauces, and Gravies", "Sweets", "Snacks"]
    /// Groups whose foods are eaten cooked, so a dry form is not the default.
    static let cookedStapleGroups: Set<String> = ["Legumes and Legume Products", "Cereal Grains and Pasta"]
    /// Below this water content (g per 100 g) a grain or legume is the dry form.
    static let dryWaterLimit = 20.0
    /// Above this fat content (g per 100 g) a dry legume is a nut (peanuts), eaten as it is.
    static let nutFatLimit = 30.0
    /// A food made into a butter ("Seeds, sunflower seed butter") is not the food itself.
    static let spreadPenalty: Int32 = 20
    /// In sausages and luncheon meats, a poultry version is the stand-in ("Bologna, turkey").
    static let poultryStandInPenalty: Int32 = 20
    /// Words that say a food was cooked; a query with one also asks for "cooked".
    static let cookingWords: Set<String> = ["cooked", "scrambled", "fried", "boiled", "baked", "roasted", "grilled", "poached",
                                            "mashed", "steamed", "broiled", "toasted", "brewed"]
    /// "with …" segments that are not a combination with another food.
    static let plainWithWords: Set<String> = ["salt", "skin", "added", "bone", "seeds", "peel", "iron"]

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
                                              "commercial": 10, "smooth": 10, "original": 10, "average": 30,
                                              "enriched": 15, "granulated": 15, "brewed": 30, "unsweetened": 30]
    /// Words that mark a processed, prepared or stand-in form.
    static let processedWords: [String: Int32] = ["substitute": 200, "imitation": 200, "meatless": 200, "mix": 50, "evaporated": 50, "condensed": 30,
                                                  "breaded": 40, "prepared": 30, "recipe": 30, "flavored": 30, "sliced": 30, "deli": 30,
                                                  "solution": 30, "fortified": 20, "reduced": 20, "canned": 20, "sweetened": 20,
                                                  "dehydrated": 20, "powder": 30, "cooked": 20, "roasted": 20, "fried": 20,
                                                  "grilled": 20, "baked": 20, "stewed": 20, "braised": 20, "broiled": 20,
                                                  "microwaved": 20, "heated": 20, "frozen": 10, "dry": 10, "dried": 10,
                                                  "instant": 40, "concentrate": 40, "fermented": 40, "refrigerated": 30,
                                                  "dough": 40, "free": 30, "light": 20, "lite": 20, "low": 15, "topping": 30,
                                                  "mixture": 30, "sprouted": 80, "sodium": 25, "baby": 60, "minced": 40, "chopped": 30,
                                                  "blend": 30, "reheated": 20, "glazed": 30, "toasted": 20,
                                                  "chocolate": 20, "flour": 20, "immature": 30, "cake": 20, "flavor": 30, "rising": 30]
    static let groupPenalties: [String: Int32] = ["Baby Foods": 200, "Fast Foods": 150, "Restaurant Foods": 150,
                                                  "Sausages and Luncheon Meats": 60, "Meals, Entrees, and Side Dishes": 100,
                                                  "American Indian/Alaska Native Foods": 100, "Soups, Sauces, and Gravies": 50,
                                                  "Sweets": 50, "Snacks": 50]
    /// Upper-case words that are abbreviations, not brands.
    static let notBrands: Set<String> = ["USDA", "DHA", "ARA", "NFSMI", "WIC", "BBQ", "NS", "NFS"]
    /// How people type a food that USDA names differently; each query term also matches these.
    static let synonyms: [String: [String]] = ["yoghurt": ["yogurt"], "skim": ["nonfat"], "ketchup": ["catsup"],
                                               "hotdog": ["frankfurter"], "fry": ["fried"], "soda": ["carbonated"],
                                               "garbanzo": ["chickpea"], "chickpea": ["garbanzo"], "kiwi": ["kiwifruit"], "venison": ["deer"]]

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
        var segment: Int = 0
        var numbered = false     // in a segment starting with a number ("94% fat free")
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
        let headAndID = interner.intern("and"), headOrID = interner.intern("or")
        let withAdded = Array("with added".utf8)
        let withoutAdded = Array("without added".utf8)

        // Every food's raw tokens back to back; food i owns rawTokens[rawStart[i]..<rawStart[i + 1]].
        var tokens: [RawToken] = []
        tokens.reserveCapacity(foods.count * 16)
        var rawStart: [Int] = [0]
        rawStart.reserveCapacity(foods.count + 1)
        var commonSegments: [[[Int32]]] = []
        var combinations: [Bool] = []
        var qualifiedHeads: [Bool] = []
        var modifierRefunds: [Int32] = []
        combinations.reserveCapacity(foods.count)
        commonSegments.reserveCapacity(foods.count)
        var words: [String] = []
        words.reserveCapacity(32)
        for food in foods {
            let bytes = SearchText.fold(food.description)
            let segments = SearchText.segmentRanges(bytes)
            let skipsCategory = segments.count > 1
                && SearchIndex.categoryPrefixes.contains(String(decoding: bytes[segments[0]], as: UTF8.self))
            let headEnd = skipsCategory ? 2 : 1
            var isCombination = false
            var modifierRefund: Int32 = 0
            // "Alcoholic beverage, rice (sake)": a head with a parenthetical is qualified, so it is
            // not the plain food the head word names.
            // A parenthetical after "made from" ("Soy sauce made from soy (tamari)") details the making, not the head.
            var headIsQualified = false
            for (index, segment) in segments.enumerated() {
                let weight = index < headEnd ? SearchIndex.headWeight
                    : (index == headEnd ? SearchIndex.nextSegmentWeight : SearchIndex.laterSegmentWeight)
                // "with added vitamin A and vitamin D" only says how a food is fortified; but "with
                // added solution" (injected brine) is a different product, so it stays a real word.
                let segmentText = String(decoding: bytes[segment], as: UTF8.self)
                let startsWithNumber = bytes[segment].first.map(SearchText.isDigit) ?? false
                let isDetail = ((bytes[segment].starts(with: withAdded) || bytes[segment].starts(with: withoutAdded))
                    && !segmentText.contains("solution")) || (index > 0 && startsWithNumber)
                var isWithSegment = false
                if index > 0, segmentText.hasPrefix("with "),
                   let second = segmentText.split(separator: " ").dropFirst().first,
                   !SearchIndex.plainWithWords.contains(SearchText.stem(String(second))) {
                    isCombination = true
                    isWithSegment = true
                }
                let isCategory = skipsCategory && index == 0
                var depth = 0
                var madeFrom = false
                let segmentTokenStart = tokens.count
                var partStart = segment.lowerBound
                var position = segment.lowerBound
                while partStart <= segment.upperBound {
                    // A part ends at a parenthesis or at the end of the segment.
                    while position < segment.upperBound && bytes[position] != UInt8(ascii: "(") && bytes[position] != UInt8(ascii: ")") {
                        position += 1
                    }
                    let inParentheses = depth > 0
                    if inParentheses && index == headEnd - 1 && !madeFrom { headIsQualified = true }
                    var negated = false
                    SearchText.stemmedWords(bytes, partStart..<position, into: &words)
                    for (wordIndex, word) in words.enumerated() {
                        let term = interner.intern(word)
                        // "Soy sauce made from soy and wheat": what it is made from only details it.
                        if word == "from", wordIndex > 0, words[wordIndex - 1] == "made", !madeFrom {
                            madeFrom = true
                            tokens[tokens.count - 1].isDetail = true
                            tokens[tokens.count - 1].isHead = false
                        }
                        // "whole-wheat", "whole grain" name a flour, not the whole (plain) food.
                        if (word == "wheat" || word == "grain"), wordIndex > 0, words[wordIndex - 1] == "whole" {
                            tokens[tokens.count - 1].negated = true
                        }
                        // A negated word ("no broth", "without salt") does not match.
                        // "Chicken, canned, with broth" is chicken, not broth: the food it comes with barely names it.
                        let wordWeight = isWithSegment ? SearchIndex.withSegmentWeight : (inParentheses ? SearchIndex.parentheticalWeight : weight)
                        tokens.append(RawToken(term: term, weight: negated ? 0 : wordWeight,
                                               inParentheses: inParentheses, isDetail: isDetail || madeFrom, isCategory: isCategory,
                                               isHead: index < headEnd && !isCategory && !inParentheses && !madeFrom,
                                               negated: negated, isCommonName: false, segment: index,
                                               numbered: index > 0 && startsWithNumber))
                        negated = negationIDs.contains(term)
                    }
                    if position < segment.upperBound {
                        depth = bytes[position] == UInt8(ascii: "(") ? depth + 1 : max(0, depth - 1)
                    }
                    position += 1
                    partStart = position
                }
                // English puts the noun last: in "Parmesan cheese topping" parmesan only modifies
                // the head, so it weighs as a refinement. The last word, and a word before "and" /
                // "or" ("Jams and preserves"), is a noun.
                if index == headEnd - 1 && !isCategory {
                    let heads = (segmentTokenStart..<tokens.count).filter { tokens[$0].isHead }
                    for (order, position) in heads.enumerated() where tokens[position].term >= stopCount && tokens[position].weight > 0 {
                        let next = order + 1 < heads.count ? tokens[heads[order + 1]].term : -1
                        if order + 1 < heads.count && next != headAndID && next != headOrID {
                            tokens[position].weight = SearchIndex.modifierWeight
                            modifierRefund += SearchIndex.headWeight - SearchIndex.modifierWeight
                        }
                    }
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
                                               isCategory: false, isHead: false, negated: false, isCommonName: true, segment: -1))
                        if term >= stopCount { meaningful.append(term) }
                    }
                    if !meaningful.isEmpty { common.append(meaningful) }
                }
            }
            rawStart.append(tokens.count)
            commonSegments.append(common)
            combinations.append(isCombination)
            qualifiedHeads.append(headIsQualified)
            modifierRefunds.append(modifierRefund)
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
        // Words whose meaning depends on the group: raw grains and legumes are the dry form; a
        // drink is had prepared.
        func ids(_ words: [String]) -> Set<Int32> { Set(words.compactMap { interner.ids[$0] }) }
        let rawWords = ids(["raw", "uncooked", "dry", "unprepared"])
        let cookedForms = ids(["cooked", "boiled", "canned", "prepared"])
        let preparedDrink = ids(["prepared", "brewed", "ready", "drink"])
        let powderedDrink = ids(["powder", "instant", "concentrate", "mix", "dry"])
        let poultry = ids(["turkey", "chicken"])
        let readyID = interner.ids["ready"] ?? -1
        let butterID = interner.ids["butter"] ?? -1
        let andID = interner.ids["and"] ?? -1, orID = interner.ids["or"] ?? -1
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
            var name: [Int32] = []
            quality.removeAll(keepingCapacity: true)
            var extraCount: Int32 = 0
            var headCut = false
            var firstHead: [Int32] = []
            var madeIntoButter = false
            var previousTerm: Int32 = -1
            for token in tokens[rawStart[foodIndex]..<rawStart[foodIndex + 1]] {
                let isStop = token.term < stopCount
                // "red or green": words offered as alternatives are one extra word, not two.
                let extra = !token.isCommonName && !token.isDetail && !token.inParentheses && !isStop
                    && !startsWithDigit[Int(token.term)] && !token.isCategory && previousTerm != orID
                previousTerm = token.term
                if extra { extraCount += 1 }
                allTokens.append(Token(term: finalID[Int(token.term)], weight: token.weight, countsAsExtra: extra))
                // "Jams and preserves": the first of two foods a head names is also a head.
                if token.isHead && (token.term == andID || token.term == orID) && !head.isEmpty && !headCut {
                    headCut = true
                    firstHead = head
                }
                // "Sunflower seed butter": a butter made of another food is a processed form of it.
                if token.isHead && token.term == butterID && !head.isEmpty { madeIntoButter = true }
                if token.isHead && !isStop { head.append(finalID[Int(token.term)]) }
                let nameEnd = rawStart[foodIndex] < rawStart[foodIndex + 1] && tokens[rawStart[foodIndex]].isCategory ? 2 : 1
                if !isStop && !token.isCommonName && !token.inParentheses && !token.isCategory && !token.isDetail
                    && token.segment >= 0 && token.segment <= nameEnd {
                    name.append(finalID[Int(token.term)])
                }
                // "94% fat free" details the composition, but "free" still marks a processed form.
                if !token.isCommonName && !token.negated && (!token.isDetail || token.numbered) && !token.inParentheses
                    && !quality.contains(token.term) {
                    quality.append(token.term)
                }
            }
            // Only a plain pair of one-word foods ("Jams and preserves"; not "Bacon and beef sticks"
            // or "Salad dressing, bacon and tomato") names its first food on its own.
            let startsWithCategory = rawStart[foodIndex] < rawStart[foodIndex + 1] && tokens[rawStart[foodIndex]].isCategory
            if startsWithCategory || head.count - firstHead.count != 1 { firstHead = [] }
            // Peanuts are legumes but are eaten as nuts: a fatty seed is not a dry staple.
            let isDryStaple = SearchIndex.cookedStapleGroups.contains(food.group)
                && (food.per100g("water_g") ?? 100) < SearchIndex.dryWaterLimit
                && (food.per100g("fat_g") ?? 0) < SearchIndex.nutFatLimit
            let isCookedStaple = SearchIndex.cookedStapleGroups.contains(food.group) && !isDryStaple
            let isDrink = food.group == "Beverages"
            let isSausage = food.group == "Sausages and Luncheon Meats"
            // "Cocoa mix, powder, prepared with water" is the drink, not the powder.
            // Soups too are had prepared: "Soup, chicken broth or bouillon, dry" is a powder.
            let isDrinkOrSoup = isDrink || food.description.hasPrefix("Soup,")
            let isPreparedDrink = isDrinkOrSoup && quality.contains { preparedDrink.contains($0) && $0 != readyID }
            var prior: Int32 = 0
            var penalties: [(term: Int32, points: Int32)] = []
            for term in quality {
                var points = plainPoints[Int(term)]
                if isDryStaple && rawWords.contains(term) { points = min(points, 0) }
                if isCookedStaple && cookedForms.contains(term) { points = max(points, 0) }
                if isDrink && preparedDrink.contains(term) { points = max(points, 0) }
                if isDrinkOrSoup && powderedDrink.contains(term) && !isPreparedDrink { points -= SearchIndex.dryStaplePenalty }
                if isSausage && poultry.contains(term) { points -= SearchIndex.poultryStandInPenalty }
                if points < 0 { penalties.append((finalID[Int(term)], -points)) }
                prior += points
            }
            if madeIntoButter {
                prior -= SearchIndex.spreadPenalty
                penalties.append((finalID[Int(butterID)], SearchIndex.spreadPenalty))
            }
            if isDryStaple { prior -= SearchIndex.dryStaplePenalty }
            if combinations[foodIndex] { prior -= SearchIndex.combinationPenalty }
            prior -= SearchIndex.groupPenalties[food.group] ?? 0
            if SearchIndex.looksBranded(food.description) { prior -= SearchIndex.brandPenalty }
            prior += SearchIndex.portionBonus * Int32(min(food.portions.count, SearchIndex.portionBonusCap))
            tokenStart.append(Int32(allTokens.count))
            indexed.append(IndexedFood(headTerms: qualifiedHeads[foodIndex] ? [] : head,
                                       firstHeadTerms: qualifiedHeads[foodIndex] ? [] : firstHead,
                                       modifierRefund: modifierRefunds[foodIndex],
                                       commonNameSegments: commonSegments[foodIndex].map { $0.map { finalID[Int($0)] } },
                                       prior: prior,
                                       groupPenalty: SearchIndex.dishGroups.contains(food.group) ? SearchIndex.groupPenalties[food.group] ?? 0 : 0,
                                       extraCount: extraCount, nameTerms: name, penalties: penalties,
                                       descriptionLength: food.description.utf8.count))
        }
        self.foods = indexed
        self.tokens = allTokens
        self.tokenStart = tokenStart
        var counts = [Int32](repeating: 0, count: terms.count)
        var seenIn = [Int32](repeating: -1, count: terms.count)
        for foodIndex in foods.indices {
            for position in Int(tokenStart[foodIndex])..<Int(tokenStart[foodIndex + 1]) {
                let term = Int(allTokens[position].term)
                if seenIn[term] != Int32(foodIndex) {
                    seenIn[term] = Int32(foodIndex)
                    counts[term] += 1
                }
            }
        }
        termFoodCounts = counts
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
        guard var terms = queryTerms(query) else { return nil }
        // A word no food has, not even as a prefix, is read as the nearest word foods use ("egs").
        for (index, term) in terms.enumerated() where alternative(term).prefixRange.isEmpty && SearchIndex.synonyms[term] == nil {
            if let fixed = nearestTerm(term) { terms[index] = fixed }
        }
        func words(_ terms: [String]) -> [[Alternative]] {
            terms.map { term in ([term] + (SearchIndex.synonyms[term] ?? [])).map(alternative) }
        }
        var variants = [words(terms)]
        // A joined word USDA writes as two ("cornflakes" → "corn flakes").
        for (index, term) in terms.enumerated() where (6...SearchIndex.longestCorrectedWord).contains(term.utf8.count) && alternative(term).exact < 0 {
            let characters = Array(term)
            for cut in 3...(characters.count - 3) {
                let left = String(characters[..<cut]), right = SearchText.stem(String(characters[cut...]))
                guard alternative(left).exact >= 0, alternative(right).exact >= 0 else { continue }
                var split = terms
                split.replaceSubrange(index...index, with: [left, right])
                variants.append(words(split))
                break
            }
        }
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

    /// The vocabulary word within edit distance 1 (words of up to 4 letters) or 2 of `term`,
    /// the one most foods use; nil when there is none.
    func nearestTerm(_ term: String) -> String? {
        let typed = Array(term.utf8)
        guard (3...SearchIndex.longestCorrectedWord).contains(typed.count), typed.allSatisfy({ $0 >= 0x61 && $0 <= 0x7A }) else { return nil }
        let limit = typed.count <= 4 ? 1 : 2
        var best: (id: Int, distance: Int)?
        var row = [Int](repeating: 0, count: 64)
        var previous = [Int](repeating: 0, count: 64)
        for (id, word) in vocabulary.enumerated() {
            let candidate = Array(word.utf8)
            guard abs(candidate.count - typed.count) <= limit, candidate.count < 63, candidate.first == typed.first || limit > 1 else { continue }
            // Levenshtein with an early exit once a whole row is past the limit.
            for j in 0...candidate.count { previous[j] = j }
            var within = true
            for i in 1...typed.count {
                row[0] = i
                var rowMin = i
                for j in stride(from: 1, through: candidate.count, by: 1) {
                    row[j] = Swift.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (typed[i - 1] == candidate[j - 1] ? 0 : 1))
                    rowMin = Swift.min(rowMin, row[j])
                }
                if rowMin > limit { within = false; break }
                swap(&row, &previous)
            }
            guard within else { continue }
            let distance = previous[candidate.count]
            guard distance <= limit else { continue }
            if let b = best, b.distance < distance || (b.distance == distance && termFoodCounts[b.id] >= termFoodCounts[id]) { continue }
            best = (id, distance)
        }
        return best.map { vocabulary[$0.id] }
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
        scoredSearch(query, limit: limit).map(\.index)
    }

    /// The best `limit` foods with their scores, best first.
    func scoredSearch(_ query: String, limit: Int) -> [(index: Int, score: Int32)] {
        guard limit > 0, let variants = queryVariants(query) else { return [] }
        var best = [Int32](repeating: .min, count: foods.count)
        for words in variants { score(words, into: &best) }
        if !best.contains(where: { $0 != .min }), let typed = variants.first, typed.count >= 2 {
            // No food has every word ("black coffee", "bell pepper"): the best missing one word.
            var partial = [Int32](repeating: .min, count: foods.count)
            // Only a word foods do use is dropped: "egg xyzzy" still finds nothing.
            for dropped in typed.indices where typed[dropped].contains(where: { !$0.prefixRange.isEmpty }) {
                var words = typed
                words.remove(at: dropped)
                score(words, into: &partial)
            }
            for index in partial.indices where partial[index] != .min {
                best[index] = partial[index] - SearchIndex.missingWordPenalty
            }
        }
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
        return hits.prefix(limit).map { ($0.index, $0.score) }
    }

    /// Whether a food's token other than a "with …" word matches one of the alternatives.
    private func matchesOutsideWith(_ range: Range<Int>, _ alternatives: UnsafeBufferPointer<Alternative>.SubSequence,
                                    _ tokens: UnsafeBufferPointer<Token>) -> Bool {
        for position in range where tokens[position].weight > 0 && tokens[position].weight != SearchIndex.withSegmentWeight {
            let term = tokens[position].term
            if alternatives.contains(where: { term == $0.exact || $0.prefixRange.contains(term) }) { return true }
        }
        return false
    }

    /// Scores every food that matches all `words`, keeping the higher score in `best`.
    private func score(_ words: [[Alternative]], into best: inout [Int32]) {
        // Alternatives flattened: word w owns alternatives[wordStart[w]..<wordStart[w + 1]].
        let alternatives = words.flatMap { $0 }
        var wordStart = [0]
        for word in words { wordStart.append(wordStart[wordStart.count - 1] + word.count) }
        let queryTerms = alternatives.map(\.exact).filter { $0 >= 0 }
        var askedTerms = queryTerms
        let lastTerm = words.last?.first.map(\.exact).flatMap { $0 >= 0 ? $0 : nil }
        if queryTerms.contains(where: { SearchIndex.cookingWords.contains(vocabulary[Int($0)]) }) {
            let cooked = lowerBound("cooked")
            if cooked < vocabulary.count && vocabulary[cooked] == "cooked" { askedTerms.append(Int32(cooked)) }
        }
        var matched = [Int32](repeating: -1, count: words.count)
        tokens.withUnsafeBufferPointer { tokens in
            alternatives.withUnsafeBufferPointer { alternatives in
                for foodIndex in 0..<foods.count {
                    let range = Int(tokenStart[foodIndex])..<Int(tokenStart[foodIndex + 1])
                    var total: Int32 = 0
                    var allMatched = true
                    var lastWordOnlyComesWith = false
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
                        // "chicken broth": broth only in "Chicken, canned, with broth" is not what the food is.
                        if word == words.count - 1 && words.count > 1 {
                            lastWordOnlyComesWith = bestPoints <= SearchIndex.withSegmentWeight * 2
                                && !matchesOutsideWith(range, alternatives[wordStart[word]..<wordStart[word + 1]], tokens)
                        }
                    }
                    guard allMatched else { continue }
                    let food = foods[foodIndex]
                    // The food's main noun (or one of its common names) is exactly the query.
                    let headIsQuery = (!food.headTerms.isEmpty && food.headTerms.allSatisfy(queryTerms.contains))
                        || (!food.firstHeadTerms.isEmpty && food.firstHeadTerms.allSatisfy(queryTerms.contains)
                            && queryTerms.allSatisfy(food.firstHeadTerms.contains))
                    if !lastWordOnlyComesWith,
                       headIsQuery || food.commonNameSegments.contains(where: { $0.allSatisfy(queryTerms.contains) }) {
                        total += SearchIndex.pureHeadBonus
                    }
                    // "Ice creams, vanilla" for "ice cream": a sweet asked for by name is not held back by its group.
                    if headIsQuery && queryTerms.allSatisfy(food.headTerms.contains) { total += food.groupPenalty }
                    if !food.headTerms.isEmpty && food.headTerms.allSatisfy(queryTerms.contains) { total += food.modifierRefund }
                    // "Cream, sour" for "sour cream": the name is the query, word for word.
                    // English puts the main noun last, so the query's last word must be the head
                    // ("milk chocolate" is not "Milk, chocolate").
                    if !food.headTerms.isEmpty, food.nameTerms.count > food.headTerms.count, food.nameTerms.allSatisfy(queryTerms.contains),
                       queryTerms.allSatisfy(food.nameTerms.contains), let last = lastTerm, food.headTerms.contains(last) {
                        total += SearchIndex.namePairBonus
                    }
                    // A word the query asked for is not held against the food.
                    for penalty in food.penalties where askedTerms.contains(penalty.term) { total += penalty.points }
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
