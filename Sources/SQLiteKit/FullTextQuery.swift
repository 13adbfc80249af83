// Turning what a person typed into an FTS5 MATCH expression that can never be a syntax error.

/// A full-text query built from free text: every word must appear, each as the start of a word
/// (prefix match), so "yog" finds "Yogurt". Words are quoted, so FTS5 syntax in the text
/// (`"`, `*`, `:`, `^`, parentheses, `AND`/`OR`/`NOT`/`NEAR`, column filters) is searched for as
/// text, never interpreted.
public struct FullTextQuery: Sendable, Hashable {
    /// The words searched for, lowercased, at most `maxWords`.
    public let words: [String]

    /// The tokenizer of every ofj FTS5 table: case- and accent-insensitive words.
    public static let tokenizer = "unicode61 remove_diacritics 2"
    public static let maxWords = 16

    /// Nil when the text holds no letter or digit (nothing to search for).
    public init?(_ text: String) {
        var words: [String] = []
        var current = ""
        func flush() {
            if !current.isEmpty, words.count < Self.maxWords { words.append(current.lowercased()) }
            current = ""
        }
        // Split the way unicode61 does: letters and digits make words, everything else separates.
        for scalar in text.unicodeScalars {
            let p = scalar.properties
            if p.isAlphabetic || p.numericType != nil || p.generalCategory == .nonspacingMark {
                current.unicodeScalars.append(scalar)
            } else {
                flush()
            }
        }
        flush()
        guard !words.isEmpty else { return nil }
        self.words = words
    }

    /// The MATCH expression: `"w1"* "w2"*` (implicit AND). A `"` inside a word is doubled, as
    /// FTS5 strings require; the split above leaves none, this is the second line of defence.
    public var matchExpression: String {
        words.map { word in "\"" + word.map { $0 == "\"" ? "\"\"" : String($0) }.joined() + "\"*" }.joined(separator: " ")
    }
}
