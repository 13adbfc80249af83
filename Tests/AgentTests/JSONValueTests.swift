import Testing
@testable import Agent

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

    @Test func deepNestingIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 10_000)
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(deep) }
    }
}
