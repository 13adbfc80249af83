// Issue 17, REPL 2 and 3: streamed Markdown wrapped to the terminal width, line by line.
import Foundation
import Testing
@testable import REPL
import Views

@Suite struct MarkdownStreamTests {
    static let answer = """
        ## Your day so far
        You had **2 eggs** for breakfast and *a large* latte with `oat milk`, which comes to about 420 kcal and 25 g of protein; that leaves plenty of room for lunch.

        - Protein: 25 g of your 50 g goal, so half-way there before noon
        - Fibre: low so far; an apple or some oatmeal would help
        1. Log lunch when you have it
        2. Check /week on Sunday

        | Food | kcal | Protein |
        |------|-----:|---------|
        | Eggs | 143 | 12.6 g |
        | 抹茶ラテ (matcha latte, large, oat milk) | 277 | 12.4 g |
        | Banana 🍌 | 105 | 1.3 g |

        ```
        ofj day --json | jq .totals
        ```
        > Tip: *ask* "what did I eat yesterday".

        """

    static func render(_ text: String, width: Int, styled: Bool = false, chunk: Int? = nil) -> String {
        var md = MarkdownStream(style: Style(enabled: styled), width: { width })
        var out = ""
        if let chunk {
            var rest = Substring(text)
            while !rest.isEmpty {
                out += md.feed(String(rest.prefix(chunk)))
                rest = rest.dropFirst(chunk)
            }
        } else {
            out += md.feed(text)
        }
        return out + md.finish()
    }

    static let golden40 = """
        Your day so far
        You had 2 eggs for breakfast and a large
        latte with oat milk, which comes to
        about 420 kcal and 25 g of protein; that
        leaves plenty of room for lunch.

        • Protein: 25 g of your 50 g goal, so
          half-way there before noon
        • Fibre: low so far; an apple or some
          oatmeal would help
        1. Log lunch when you have it
        2. Check /week on Sunday

        Food                    │ kcal │ Protein
        ────────────────────────┼──────┼────────
        Eggs                    │  143 │ 12.6 g
        抹茶ラテ (matcha latte, │  277 │ 12.4 g
        large, oat milk)        │      │
        Banana 🍌               │  105 │ 1.3 g

          ofj day --json | jq .totals
        │ Tip: ask "what did I eat yesterday".

        """

    static let golden80 = """
        Your day so far
        You had 2 eggs for breakfast and a large latte with oat milk, which comes to
        about 420 kcal and 25 g of protein; that leaves plenty of room for lunch.

        • Protein: 25 g of your 50 g goal, so half-way there before noon
        • Fibre: low so far; an apple or some oatmeal would help
        1. Log lunch when you have it
        2. Check /week on Sunday

        Food                                     │ kcal │ Protein
        ─────────────────────────────────────────┼──────┼────────
        Eggs                                     │  143 │ 12.6 g
        抹茶ラテ (matcha latte, large, oat milk) │  277 │ 12.4 g
        Banana 🍌                                │  105 │ 1.3 g

          ofj day --json | jq .totals
        │ Tip: ask "what did I eat yesterday".

        """

    static let golden120 = """
        Your day so far
        You had 2 eggs for breakfast and a large latte with oat milk, which comes to about 420 kcal and 25 g of protein; that
        leaves plenty of room for lunch.

        • Protein: 25 g of your 50 g goal, so half-way there before noon
        • Fibre: low so far; an apple or some oatmeal would help
        1. Log lunch when you have it
        2. Check /week on Sunday

        Food                                     │ kcal │ Protein
        ─────────────────────────────────────────┼──────┼────────
        Eggs                                     │  143 │ 12.6 g
        抹茶ラテ (matcha latte, large, oat milk) │  277 │ 12.4 g
        Banana 🍌                                │  105 │ 1.3 g

          ofj day --json | jq .totals
        │ Tip: ask "what did I eat yesterday".

        """

    @Test(arguments: [(40, golden40), (80, golden80), (120, golden120)])
    func goldenAtWidth(width: Int, golden: String) {
        let out = Self.render(Self.answer, width: width)
        #expect(out == golden, "\n\(out)")
        for line in out.split(separator: "\n") {
            #expect(TerminalTextWidth.columns(String(line)) <= width, "\(line)")
        }
    }

    /// However the text is cut into deltas, the screen is the same (no re-flow).
    @Test(arguments: [1, 2, 3, 7, 16])
    func deltasOfAnySizeGiveTheSameScreen(chunk: Int) {
        for width in [40, 80] {
            #expect(Self.render(Self.answer, width: width, chunk: chunk) == Self.render(Self.answer, width: width))
            #expect(Self.render(Self.answer, width: width, styled: true, chunk: chunk) == Self.render(Self.answer, width: width, styled: true))
        }
    }

    /// A line is written once it is complete; a long paragraph one visual line at a time.
    @Test func writesOnlyCompleteLines() {
        var md = MarkdownStream(style: Style(enabled: false), width: { 40 })
        #expect(md.feed("Hello wor") == "")
        #expect(md.feed("ld\n") == "Hello world\n")
        let long = "one two three four five six seven eight nine ten eleven twelve"
        let partial = md.feed(long)
        #expect(partial == "one two three four five six seven eight\n")
        #expect(md.feed("\n") == "nine ten eleven twelve\n")
        // A table waits for its last row, to align it.
        #expect(md.feed("| a | b |\n") == "")
        #expect(md.feed("| long cell | c |\n") == "")
        #expect(md.finish() == "a         │ b\nlong cell │ c\n")
    }

    @Test func stylesInlineMarkupOnATerminal() {
        let out = Self.render("**bold**, *italic*, `x * y` and 5 * 3 and snake_case_name\n", width: 80, styled: true)
        #expect(out.contains("\u{1B}[1mbold\u{1B}[0m"))
        #expect(out.contains("\u{1B}[3mitalic\u{1B}[0m"))
        #expect(out.contains("\u{1B}[36mx * y\u{1B}[0m"))
        #expect(out.contains("5 * 3 and snake_case_name"))
        let heading = Self.render("# Title\n", width: 80, styled: true)
        #expect(heading == "\u{1B}[1;4mTitle\u{1B}[0m\n")
    }

    @Test func wideCharactersCountTwoColumns() {
        #expect(TerminalTextWidth.columns("abc") == 3)
        #expect(TerminalTextWidth.columns("抹茶") == 4)
        #expect(TerminalTextWidth.columns("🍌") == 2)
        #expect(TerminalTextWidth.columns("e\u{301}") == 1)
    }
}
