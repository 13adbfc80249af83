// The one sanitiser: every class of escape sequence and control, in one piece and split across
// stream chunks, and legitimate Unicode left alone.
import OutputSafety
import Testing

@Suite struct TerminalTextTests {
    let esc = "\u{1B}"

    // MARK: - Every class of sequence

    @Test func csiSequencesAreRemovedWhole() {
        #expect(TerminalText.sanitize("Oat\(esc)[31mmeal\(esc)[0m") == "Oatmeal")
        #expect(TerminalText.sanitize("a\(esc)[2Jb\(esc)[Hc") == "abc")                 // screen clear, cursor home
        #expect(TerminalText.sanitize("a\(esc)[38;5;196;1mb") == "ab")                 // 256 colours
        #expect(TerminalText.sanitize("a\(esc)[?1049hb\(esc)[?25lc") == "abc")          // alternate screen, hide cursor
        #expect(TerminalText.sanitize("a\(esc)[1 qb") == "ab")                          // intermediate byte
        #expect(TerminalText.sanitize("a\(esc)[6nb") == "ab")                           // device status report
    }

    @Test func oscSequencesAreRemovedWholeWithEitherTerminator() {
        #expect(TerminalText.sanitize("a\(esc)]0;evil title\u{07}b") == "ab")                    // title, BEL
        #expect(TerminalText.sanitize("a\(esc)]2;evil title\(esc)\\b") == "ab")                  // title, ST
        #expect(TerminalText.sanitize("a\(esc)]52;c;ZWNobyBwd25lZA==\u{07}b") == "ab")           // OSC 52 clipboard
        #expect(TerminalText.sanitize("\(esc)]8;;https://evil.example\(esc)\\click\(esc)]8;;\(esc)\\") == "click") // hyperlink
        #expect(TerminalText.sanitize("a\(esc)]52;c;ZXZpbA==\u{9C}b") == "ab")                    // 8-bit ST
    }

    @Test func otherControlStringsAreRemovedWhole() {
        #expect(TerminalText.sanitize("a\(esc)P1$qm\(esc)\\b") == "ab")      // DCS (DECRQSS)
        #expect(TerminalText.sanitize("a\(esc)_apc payload\(esc)\\b") == "ab") // APC
        #expect(TerminalText.sanitize("a\(esc)^pm\(esc)\\b") == "ab")          // PM
        #expect(TerminalText.sanitize("a\(esc)Xsos\(esc)\\b") == "ab")         // SOS
    }

    @Test func shortEscapeSequencesAreRemovedWhole() {
        #expect(TerminalText.sanitize("a\(esc)cb") == "ab")        // RIS: full reset
        #expect(TerminalText.sanitize("a\(esc)7b\(esc)8c") == "abc") // save/restore cursor
        #expect(TerminalText.sanitize("a\(esc)(0b\(esc)(Bc") == "abc") // character sets (DEC graphics)
        #expect(TerminalText.sanitize("a\(esc)#8b") == "ab")        // DECALN screen fill
        #expect(TerminalText.sanitize("a\(esc)") == "a")            // a lone ESC at the end
        #expect(TerminalText.sanitize("a\(esc)é") == "aé")          // ESC before text: only the ESC goes
    }

    @Test func c1ControlsInUTF8FormAreRemovedWithTheirSequences() {
        #expect(TerminalText.sanitize("a\u{9B}31mb") == "ab")                   // 8-bit CSI
        #expect(TerminalText.sanitize("a\u{9D}0;title\u{07}b") == "ab")          // 8-bit OSC
        #expect(TerminalText.sanitize("a\u{90}q\u{9C}b") == "ab")                // 8-bit DCS … ST
        #expect(TerminalText.sanitize("a\u{85}\u{8D}\u{84}b") == "ab")           // NEL, RI, IND
        for v in 0x80...0x9F where ![0x90, 0x98, 0x9B, 0x9D, 0x9E, 0x9F].contains(v) {
            let s = "x" + String(Character(Unicode.Scalar(UInt32(v))!)) + "y"
            #expect(TerminalText.sanitize(s) == "xy", "U+\(String(v, radix: 16))")
        }
    }

    @Test func c0ControlsAreRemovedButLayoutIsKeptWhereAsked() {
        #expect(TerminalText.sanitize("x\u{08}\u{07}\u{00}y\r\nz") == "xy\nz")
        #expect(TerminalText.sanitize("a\tb\nc") == "a\tb\nc")
        #expect(TerminalText.sanitize("a\tb\nc", keepNewlines: false) == "a b c")
        #expect(TerminalText.sanitize("a\rb") == "ab")           // carriage return overwrites a line: dropped
        #expect(TerminalText.sanitize("a\u{7F}b") == "ab")
        for v in 0x00...0x1F where v != 0x0A && v != 0x09 && v != 0x1B {
            let s = "x" + String(Character(Unicode.Scalar(UInt32(v))!)) + "y"
            #expect(TerminalText.sanitize(s) == "xy", "U+\(String(v, radix: 16))")
        }
    }

    @Test func bidiOverridesAndIsolatesAreRemoved() {
        // "Trojan Source": U+202E would show "txt.exe" as "exe.txt".
        #expect(TerminalText.sanitize("file\u{202E}txt.exe") == "filetxt.exe")
        for v in Array(0x202A...0x202E) + Array(0x2066...0x2069) {
            let s = "a" + String(Character(Unicode.Scalar(UInt32(v))!)) + "b"
            #expect(TerminalText.sanitize(s) == "ab", "U+\(String(v, radix: 16))")
        }
    }

    @Test func legitimateUnicodeIsUntouched() {
        let texts = ["Crème brûlée 🍮", "寿司 と 味噌汁", "김치찌개", "e\u{301}", "👩‍👩‍👧‍👦 family", "🇫🇷 🏳️‍🌈",
                     "שקשוקה", "حمص بالطحينة", "फ़ालूदा", "ñandú", "Zürich — “quotes” ‘single’ …", "0.5 × 2 ≥ 1 ½ cup"]
        for t in texts {
            #expect(TerminalText.sanitize(t) == t)
            #expect(TerminalText.sanitize(t, keepNewlines: false) == t)
        }
    }

    // MARK: - Streaming

    @Test func everySequenceIsRemovedWhateverTheChunkBoundaries() {
        let hostile = "Here\(esc)]52;c;ZXZpbA==\u{07} is \(esc)[2J\(esc)[31mred\(esc)[0m, \u{9B}1;1H\(esc)]0;t\(esc)\\a \u{202E}plan\(esc)(B.\n"
        let expected = "Here is red, a plan.\n"
        #expect(TerminalText.sanitize(hostile) == expected)
        let scalars = Array(hostile.unicodeScalars)
        // Every split into two pieces, and every piece size from 1 to 7.
        for cut in 0...scalars.count {
            var f = TerminalText.StreamFilter()
            let out = f.feed(String(String.UnicodeScalarView(scalars[..<cut]))) + f.feed(String(String.UnicodeScalarView(scalars[cut...])))
            #expect(out == expected, "cut at \(cut)")
        }
        for size in 1...7 {
            var f = TerminalText.StreamFilter()
            var out = ""
            var i = 0
            while i < scalars.count {
                out += f.feed(String(String.UnicodeScalarView(scalars[i..<min(i + size, scalars.count)])))
                i += size
            }
            #expect(out == expected, "pieces of \(size)")
        }
    }

    @Test func resetEndsASequenceLeftOpen() {
        var f = TerminalText.StreamFilter()
        #expect(f.feed("answer\(esc)]0;never ended") == "answer")
        #expect(f.isInsideSequence)
        #expect(f.feed(" still inside") == "")
        f.reset()
        #expect(!f.isInsideSequence)
        #expect(f.feed("next answer") == "next answer")
    }

    @Test func aLongStreamIsFilteredInLinearTime() {
        // 1 MB in pieces of about 4.5 kB: each piece costs its own length, whatever came before.
        let piece = String(repeating: "word \(esc)[1m", count: 512)
        var f = TerminalText.StreamFilter()
        var total = 0
        let start = ContinuousClock.now
        for _ in 0..<(1_000_000 / piece.utf8.count) { total += f.feed(piece).utf8.count }
        #expect(total > 0)
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    // MARK: - JSON

    @Test func jsonIsEscapedForTheTerminalWithoutChangingItsValue() throws {
        let json = "{\"name\":\"a\u{202E}b\u{9B}c\u{85}\\\\\u{2028}\"}"
        let escaped = TerminalText.escapingJSON(json)
        #expect(escaped == "{\"name\":\"a\\u202eb\\u009bc\\u0085\\\\\\u2028\"}")
        #expect(TerminalText.escapingJSON("{\n  \"a\": 1\n}") == "{\n  \"a\": 1\n}")
        #expect(TerminalText.escapingJSON("{\"a\":\"🍮 寿司\"}") == "{\"a\":\"🍮 寿司\"}")
    }
}

@Suite struct URLCredentialsTests {
    @Test func userInformationAndKeyQueryValuesAreHidden() {
        #expect(URLCredentials.redact("https://user:pass@host.example/v1?key=AIzaSECRET&alt=sse")
            == "https://***@host.example/v1?key=***&alt=sse")
        #expect(URLCredentials.redact("model m at https://x.openai.azure.com/openai/v1?api-key=S3CR3T, fast deadlines")
            == "model m at https://x.openai.azure.com/openai/v1?api-key=***, fast deadlines")
        #expect(URLCredentials.redact("libsql://db-org.turso.io?authToken=eyJhbGci.x.y and http://a:b@h:8080/")
            == "libsql://db-org.turso.io?authToken=*** and http://***@h:8080/")
        #expect(URLCredentials.redact("https://h/p?api_key=1&token=2&access_token=3&sig=4&X-Amz-Signature=5&q=oats#frag")
            == "https://h/p?api_key=***&token=***&access_token=***&sig=***&X-Amz-Signature=***&q=oats#frag")
        #expect(URLCredentials.redact("http://127.0.0.1:11434/v1, patient deadlines") == "http://127.0.0.1:11434/v1, patient deadlines")
        #expect(URLCredentials.redact("no url here: key=abc") == "no url here: key=abc")
        #expect(URLCredentials.redact("'https://u@h/x'") == "'https://***@h/x'")
    }
}
