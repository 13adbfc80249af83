// The HTML-to-text reducer: what survives, what is dropped, and that hostile markup is bounded.
import Research
import Testing

@Suite("HTMLReducer")
struct HTMLReducerTests {
    @Test func structureSurvivesAndChromeIsDropped() {
        let r = HTMLReducer.reduce("""
            <!DOCTYPE html><html><head><title> Chipotle
             Nutrition </title><meta charset="utf-8"><style>body{color:red}</style></head>
            <body><nav><ul><li>Menu</li><li><nav>inner</nav>Catering</li></ul></nav>
            <!-- a comment <p>not text</p> -->
            <h2>Burrito Bowl</h2><p>A bowl with <b>rice</b>,&nbsp;beans &amp; salsa.</p>
            <ol><li>Rice <em>210</em> kcal</li><li>Beans</li></ol>
            <table><thead><tr><th>Nutrient</th><th>Amount</th></tr></thead><tr><td>Protein</td><td>32 g</td></tr></table>
            <script type="text/javascript">var s = "<p>fake</p>";</script>
            <footer>© 2026</footer><p>1 &lt; 2 &#x2014; &#8364;5</p></body></html>
            """)
        #expect(r.title == "Chipotle Nutrition")
        #expect(r.text == """
            ## Burrito Bowl

            A bowl with rice, beans & salsa.

            - Rice 210 kcal
            - Beans

            Nutrient | Amount
            Protein | 32 g

            1 < 2 — €5
            """)
        #expect(!r.truncated)
    }

    @Test func theBudgetCutsOnACharacterBoundary() {
        let r = HTMLReducer.reduce("<p>" + String(repeating: "é", count: 500) + "</p>", budget: 100)
        #expect(r.truncated)
        #expect(r.text == String(repeating: "é", count: 100))
    }

    @Test func invalidUTF8CountsAgainstTheBudget() {
        // Found by the htmlreduce fuzz target: stray continuation bytes each become U+FFFD.
        let bytes = Array("<title>".utf8) + [UInt8](repeating: 0x98, count: 400) + Array("</title><p>".utf8)
            + [UInt8](repeating: 0x98, count: 400)
        let r = HTMLReducer.reduce(bytes, budget: 100)
        #expect(r.title.count == 300)
        #expect(r.text.count == 100)
        #expect(r.truncated)
    }

    @Test func anUnlimitedBudgetWorks() {
        #expect(HTMLReducer.reduce("<p>all</p>", budget: Int.max).text == "all")
    }

    @Test func hostileMarkupIsBounded() {
        // 100,000 nested tags, unclosed dropped elements, unterminated comments, attributes and entities.
        let deep = String(repeating: "<div>", count: 100_000) + "x" + String(repeating: "</div>", count: 100_000)
        #expect(HTMLReducer.reduce(deep).text == "x")
        let deepNav = String(repeating: "<nav>", count: 100_000) + "hidden" + String(repeating: "</nav>", count: 100_000) + "shown"
        #expect(HTMLReducer.reduce(deepNav).text == "shown")
        #expect(HTMLReducer.reduce("<p>a<!-- never closed <p>b").text == "a")
        #expect(HTMLReducer.reduce("<p title=\"never closed>text").text == "")
        let odd = HTMLReducer.reduce("a < b && c &#xFFFFFFFF; &#0; &bogus; &").text
        #expect(odd.hasPrefix("a < b && c ") && odd.hasSuffix("&bogus; &") && !odd.contains("\u{0}"))
        #expect(HTMLReducer.reduce("<script>never closed").text == "")
        #expect(HTMLReducer.reduce([0xFF, 0x3C, 0x70, 0x3E, 0xC3]).text == "\u{FFFD}\n\n\u{FFFD}")
        #expect(HTMLReducer.reduce("").text == "")
        #expect(HTMLReducer.reduce("<").text == "")
    }
}
