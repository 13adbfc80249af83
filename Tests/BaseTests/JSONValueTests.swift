import Testing
@testable import Base

@Suite struct JSONValueTests {
    @Test func parsesAndSerializesDeterministically() throws {
        let v = try JSONValue.parse(#" {"b": [1, 2.5, true, null], "a": "x\"y\u00e9\ud83d\ude00"} "#)
        #expect(v["a"] == .string("x\"yé😀"))
        #expect(v["b"]?[1] == .number(2.5))
        #expect(v.serialized == #"{"a":"x\"yé😀","b":[1,2.5,true,null]}"#)
        #expect(try JSONValue.parse(v.serialized) == v)
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\":}", "01", "1.", "\"\u{01}\"", "nul", "{} x", "1e999", "\"\\x\""])
    func rejectsInvalid(_ text: String) {
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(text) }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(bytes: [0x22, 0xFF, 0x22]) }
    }

    @Test func escapesControlCharacters() {
        #expect(JSONValue.string("a\u{1B}[31m\n").serialized == #""a\u001b[31m\n""#)
    }

    /// The runs without escapes are appended whole: the same output as escaping scalar by scalar,
    /// with the escapes at the start, in the middle, at the end and next to other 0xE2 characters.
    @Test(arguments: ["", "plain words", "é and 😀 and — dash", "ends with a quote\"", "\\ first", "tab\there", "a\u{7F}b",
                      "line\u{2028}separator", "para\u{2029}", "€ uses 0xE2 but needs no escape", "—\u{2028}—\u{2029}…",
                      "\u{1B}[31m\nred\r\n", "\u{08}\u{0C}\u{00}\u{1F}", "a\"b\\c\"", "\u{E2}\u{80}"])
    func stringsAreWrittenTheSameByEitherPath(text: String) throws {
        var out = ""
        JSONValue.writeString(text, to: &out)
        var slow = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": slow += "\\\""
            case "\\": slow += "\\\\"
            case "\t": slow += "\\t"
            case "\n": slow += "\\n"
            case "\r": slow += "\\r"
            case "\u{08}": slow += "\\b"
            case "\u{0C}": slow += "\\f"
            case "\u{00}": slow += "\\u0000"
            case "\u{1B}": slow += "\\u001b"
            case "\u{1F}": slow += "\\u001f"
            case "\u{7F}": slow += "\\u007f"
            case "\u{2028}": slow += "\\u2028"
            case "\u{2029}": slow += "\\u2029"
            default: slow.unicodeScalars.append(scalar)
            }
        }
        slow += "\""
        #expect(out == slow)
        #expect(try JSONValue.parse(out) == .string(text))
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 10_000)
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(deep) }
    }
}

@Suite struct JSONNumberTests {
    /// The fast path must agree with the standard library's correctly rounded conversion.
    @Test func numbersMatchTheStandardLibrary() throws {
        var g = SystemRandomNumberGenerator()
        var samples = ["0", "-0", "1", "-1", "0.1", "0.000123", "123456789012345", "1234567890123456789012", "1e22", "1e23",
                       "2.5e-3", "9007199254740993", "0.30000000000000004", "1.7976931348623157e308", "5e-324", "12.5E+2"]
        for _ in 0..<2_000 {
            let mantissa = UInt64.random(in: 0...999_999_999_999_999, using: &g)
            let scale = Int.random(in: 0...18, using: &g)
            var text = String(mantissa)
            if scale > 0 && scale < text.count { text.insert(".", at: text.index(text.endIndex, offsetBy: -scale)) }
            if Bool.random(using: &g) { text = "-" + text }
            if Int.random(in: 0...3, using: &g) == 0 { text += "e\(Int.random(in: -30...30, using: &g))" }
            samples.append(text)
        }
        for text in samples {
            let expected = try #require(Double(text))
            #expect(try JSONValue.parse(text) == .number(expected), "\(text)")
        }
    }
}
