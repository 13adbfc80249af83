// FullTextQuery: what a person types becomes quoted word prefixes, never FTS5 syntax.
import Testing
@testable import SQLiteKit

@Suite struct FullTextQueryTests {
    @Test func wordsAreLowercasedQuotedPrefixes() throws {
        let q = try #require(FullTextQuery("Greek YOGURT, 2%"))
        #expect(q.words == ["greek", "yogurt", "2"])
        #expect(q.matchExpression == "\"greek\"* \"yogurt\"* \"2\"*")
    }

    @Test func syntaxCharactersSeparateWordsAndOperatorsAreWords() throws {
        #expect(FullTextQuery("\"*:^()-+") == nil)
        #expect(FullTextQuery("   ") == nil)
        let q = try #require(FullTextQuery("oat* OR name:milk NEAR(\"x\")"))
        #expect(q.words == ["oat", "or", "name", "milk", "near", "x"])
        #expect(FullTextQuery("crème brûlée")?.words == ["crème", "brûlée"])  // the tokenizer folds accents
        #expect(FullTextQuery(String(repeating: "a ", count: 40))?.words.count == FullTextQuery.maxWords)
    }

    @Test func everyExpressionIsAcceptedByFTS5() throws {
        let db = try Database(path: ":memory:")
        try db.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize = '\(FullTextQuery.tokenizer)')")
        try db.execute("INSERT INTO t (body) VALUES ('Oat milk (barista) NEAR edition'), ('Crème brûlée')")
        for text in ["oat\"", "\"oat", "oat*", "NEAR(oat milk)", "body:oat", "^oat", "(barista", "oat -milk", "* AND *",
                     "edition NOT", "creme", "BRÛLÉE", "a\u{0}b", "😀 oat"] {
            guard let q = FullTextQuery(text) else { continue }
            _ = try db.rows("SELECT rowid FROM t WHERE t MATCH ?", [q.matchExpression])  // never a syntax error
        }
        #expect(try db.rows("SELECT rowid FROM t WHERE t MATCH ?", [FullTextQuery("creme")!.matchExpression]).count == 1)
        #expect(try db.rows("SELECT rowid FROM t WHERE t MATCH ?", [FullTextQuery("bar ed")!.matchExpression]).count == 1)
    }
}
