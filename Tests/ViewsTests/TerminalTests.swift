// Safe text, colour that switches itself off, and word wrapping: what every view relies on.
import Testing
import Views

@Suite struct TerminalTests {
    @Test func sanitizeStripsEscapesAndControls() {
        #expect(Terminal.sanitize("Oat\u{1B}[31mmeal\u{1B}[0m") == "Oatmeal")
        #expect(Terminal.sanitize("a\u{1B}]0;evil title\u{07}b") == "ab")
        #expect(Terminal.sanitize("x\u{08}\u{07}\u{00}y\r\nz") == "xy\nz")
        #expect(Terminal.sanitize("line\nbreak", keepNewlines: false) == "line break")
        #expect(Terminal.sanitize("Crème brûlée 🍮") == "Crème brûlée 🍮")
        #expect(Terminal.sanitize("\u{9B}31mred") == "red") // C1 CSI dropped with its sequence
    }

    @Test func styleIsPlainWithoutTerminalOrWithNoColor() {
        #expect(Style(enabled: false).red("x") == "x")
        #expect(Style(enabled: true).red("x") == "\u{1B}[31mx\u{1B}[0m")
        // Tests do not run on a terminal, so detection must say no colour either way.
        #expect(!Style.detect(environment: [:], fd: -1).enabled)
        #expect(!Style.detect(environment: ["NO_COLOR": "1"]).enabled)
    }

    @Test func wrapsAtWidthKeepingBreaks() {
        #expect(wrapText("aaa bbb ccc ddd", width: 11) == "aaa bbb ccc\nddd")
        #expect(wrapText("one\ntwo three", width: 20) == "one\ntwo three")
        #expect(wrapText("tiny", width: 5) == "tiny") // width too small: unchanged
    }
}
