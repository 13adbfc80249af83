import Foundation
import Testing
import TestSupport
@testable import Base

/// JSONDocument must accept exactly what JSONValue.parse accepts and read the same values.
@Suite struct JSONDocumentTests {
    /// Every JSON payload in the recorded provider streams (chunk files and cassette SSE bodies).
    static func recordedPayloads() throws -> [String] {
        let dir = try #require(ProviderFixtures.directory(), "../shared/fixtures/providers beside the repository")
        var out: [String] = []
        let files = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for url in files {
            let name = url.lastPathComponent
            if name.hasSuffix(".chunks.txt") {
                let text = try String(contentsOf: url, encoding: .utf8)
                out += text.split(separator: "\n").map(String.init).filter { !$0.allSatisfy(\.isWhitespace) }
            } else if name.hasSuffix(".cassette.json") {
                for interaction in try ProviderFixtures.cassette(url.path.replacingOccurrences(of: dir.path + "/", with: "")) {
                    for line in interaction.responseBody.split(separator: "\n") where line.hasPrefix("data: ") && line != "data: [DONE]" {
                        out.append(String(line.dropFirst(6)))
                    }
                    if !interaction.requestBody.isEmpty { out.append(interaction.requestBody) }
                }
            }
        }
        return out
    }

    /// Compares every accessor of `ref` with the JSONValue `v`, recursively.
    static func expectSame(_ ref: JSONRef, _ v: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(ref.value == v, sourceLocation: sourceLocation)
        #expect(ref.stringValue == v.stringValue, sourceLocation: sourceLocation)
        #expect(ref.doubleValue == v.doubleValue, sourceLocation: sourceLocation)
        #expect(ref.intValue == v.intValue, sourceLocation: sourceLocation)
        #expect(ref.boolValue == v.boolValue, sourceLocation: sourceLocation)
        #expect(ref.isNull == v.isNull, sourceLocation: sourceLocation)
        #expect(ref.serialized == v.serialized, sourceLocation: sourceLocation)
        if let items = v.arrayValue {
            #expect(ref.arrayValue?.count == items.count, sourceLocation: sourceLocation)
            for (i, item) in items.enumerated() {
                guard let r = ref[i] else { Issue.record("missing element \(i)", sourceLocation: sourceLocation); continue }
                expectSame(r, item, sourceLocation: sourceLocation)
            }
            #expect(ref[items.count] == nil, sourceLocation: sourceLocation)
        } else {
            #expect(ref.arrayValue == nil && ref[0] == nil, sourceLocation: sourceLocation)
        }
        if let members = v.objectValue {
            #expect(ref.objectValue == members, sourceLocation: sourceLocation)
            for (key, member) in members {
                guard let r = ref.member(key) else { Issue.record("missing key \(key)", sourceLocation: sourceLocation); continue }
                expectSame(r, member, sourceLocation: sourceLocation)
            }
            #expect(ref["no such key \u{1F600}"] == nil, sourceLocation: sourceLocation)
        } else {
            #expect(ref.objectValue == nil && ref["type"] == nil, sourceLocation: sourceLocation)
        }
    }

    @Test func readsRecordedProviderEventsAsJSONValueDoes() throws {
        let payloads = try Self.recordedPayloads()
        #expect(payloads.count > 100)
        var parsed = 0
        for text in payloads {
            let v = try? JSONValue.parse(text)
            let document = try? JSONDocument(parsing: text)
            #expect((v == nil) == (document == nil))
            guard let v, let document else { continue }
            document.withRoot { Self.expectSame($0, v) }
            try JSONDocument(bytes: Array(text.utf8)).withRoot { Self.expectSame($0, v) }
            parsed += 1
        }
        #expect(parsed > 100)
    }

    @Test func handMadeCases() throws {
        let cases = [
            #"{"a":1,"a":2}"#,                           // a repeated key: the last one wins
            #"{"k\u0065y":"v\n\"q\"","key2":[]}"#,       // escaped key and value
            #"{"é😀":"ünï","":""}"#,                      // non-ASCII and empty keys
            #"[1,-0,2.5e-3,1e22,123456789012345678901,true,false,null,{}]"#,
            #"  "top-level string"  "#, "0", "-12", "null", "true", #"[[[[[]]]]]"#,
            #"{"long":"abcdefghijklmnopqrstuvwxyz0123456789 abcdefghijklmnopqrstuvwxyz","x":{"y":{"z":[1,{"w":"\ud83d\ude00"}]}}}"#,
        ]
        for text in cases {
            let v = try JSONValue.parse(text)
            try JSONDocument(parsing: text).withRoot { Self.expectSame($0, v) }
        }
        #expect(try JSONDocument(parsing: #"{"a":1,"a":2}"#).withRoot { $0["a"]?.intValue } == 2)
        #expect(try JSONDocument(parsing: #"{"k\u0065y":3}"#).withRoot { $0["key"]?.intValue } == 3)
        #expect(try JSONDocument(parsing: #"{"k\u0065y":3}"#).withRoot { $0.member("key")?.intValue } == 3)
    }

    @Test func integersAreReadAsJSONValueReadsThem() throws {
        let numbers = ["0", "-0", "7", "-12", "1.0", "1.5", "2e3", "-2E+3", "999999999999999", "-999999999999999",
                       "9000000000000001", "123456789012345678901", "0.1e1"]
        for text in numbers {
            let v = try JSONValue.parse(text)
            #expect(try JSONDocument(parsing: text).withRoot { $0.intValue } == v.intValue, "\(text)")
        }
    }

    @Test func comparesStringsInPlace() throws {
        let document = try JSONDocument(parsing: #"{"type":"content_block_delta","n":1,"esc":"a\u0062c","long":"abcdefghijklmnopq"}"#)
        document.withRoot { root in
            #expect(root["type"]?.isString("content_block_delta") == true)
            #expect(root["type"]?.isString("content_block_delt") == false)
            #expect(root["type"]?.isString("content_block_deltb") == false)
            #expect(root["n"]?.isString("1") == false)
            #expect(root["esc"]?.isString("abc") == true)       // escapes are decoded before comparing
            #expect(root["long"]?.isString("abcdefghijklmnopq") == true)
            #expect(root["long"]?.isString("abcdefghXjklmnopq") == false)
            #expect(root["type"]?.isStringValue == true && root["n"]?.isStringValue == false)
            #expect(root["type"]?.isString("") == false)
        }
        try JSONDocument(parsing: #"{"e":""}"#).withRoot { root in
            #expect(root["e"]?.isString("") == true)
            #expect(root["e"]?.isString("x") == false)
        }
    }

    /// A decoder parses every event of a stream into one document: each parse must read only its
    /// own content, whatever the sizes before it, and a failed parse must not leave stale values.
    @Test func oneDocumentReusedAcrossManyParses() throws {
        let payloads = try Self.recordedPayloads()
        let document = JSONDocument()
        var rng = SeededGenerator(seed: 0xD0C)
        var checked = 0
        for text in payloads.shuffled(using: &rng) + payloads.reversed() {
            var bytes = Array(text.utf8)
            guard let v = try? JSONValue.parse(bytes: bytes) else { continue }
            try bytes.withUnsafeBufferPointer { try document.parse($0) }
            document.withRoot { Self.expectSame($0, v) }
            checked += 1
            bytes.append(UInt8(ascii: "}")) // now invalid
            #expect(throws: JSONValue.ParseError.self) { try bytes.withUnsafeBufferPointer { try document.parse($0) } }
        }
        #expect(checked > 200)
    }

    /// The generation check: a value smuggled out of `withRoot` and read after the next parse
    /// stops the process instead of reading the new content as if it were the old.
    @Test func aValueReadAfterTheNextParseTraps() async {
        await #expect(processExitsWith: .failure) {
            let document = try JSONDocument(parsing: #"{"a":1}"#)
            // The document stays alive to the end: the trap must be the generation check, not a
            // read of freed memory.
            withExtendedLifetime(document) {
                let kept = document.withRoot { $0 }
                var next = Array(#"{"a":2}"#.utf8)
                try? next.withUnsafeMutableBufferPointer { try document.parse(UnsafeBufferPointer($0)) }
                _ = kept["a"]
            }
        }
    }

    /// Mutated recorded events (flipped, inserted and dropped bytes, truncations): both parsers
    /// accept the same inputs and, where they accept, read the same values.
    @Test func agreesWithJSONValueOnMutatedInput() throws {
        var rng = SeededGenerator(seed: 0x5EED_D0C)
        let payloads = try Self.recordedPayloads()
        let interesting: [UInt8] = Array(#"{}[]",:"\ u0123456789eE.-+tfnlr"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xE2, 0xED, 0xF0, 0xF4, 0xFF]
        var accepted = 0, rejected = 0
        for _ in 0..<4_000 {
            var bytes = Array(payloads[Int.random(in: 0..<payloads.count, using: &rng)].utf8)
            for _ in 0..<Int.random(in: 1...3, using: &rng) where !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: bytes[at] = interesting.randomElement(using: &rng)!
                case 1: bytes.insert(interesting.randomElement(using: &rng)!, at: at)
                case 2: bytes.remove(at: at)
                default: bytes.removeSubrange(at...)
                }
            }
            let expected = try? JSONValue.parse(bytes: bytes)
            let document = try? JSONDocument(bytes: bytes)
            #expect((expected == nil) == (document == nil), "disagree on \(String(decoding: bytes, as: UTF8.self))")
            if let expected, let document {
                document.withRoot { Self.expectSame($0, expected) }
                accepted += 1
            } else {
                rejected += 1
            }
        }
        #expect(accepted > 100 && rejected > 100) // the mutations exercise both sides
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\":}", "01", "1.", "\"\u{01}\"", "nul", "{} x", "1e999", "\"\\x\"", "{\"a\" 1}", "[1 2]"])
    func rejectsInvalid(_ text: String) {
        #expect(throws: JSONValue.ParseError.self) { try JSONDocument(parsing: text) }
    }

    @Test func rejectsInvalidUTF8AndDeepNesting() {
        #expect(throws: JSONValue.ParseError.self) { try JSONDocument(bytes: [0x22, 0xFF, 0x22]) }
        #expect(throws: JSONValue.ParseError.self) { try JSONDocument(bytes: Array("\"abcdefghij\u{1}\"".utf8)) }
        #expect(throws: JSONValue.ParseError.self) { try JSONDocument(parsing: String(repeating: "[", count: 10_000)) }
    }
}

/// The parser's own UTF-8 check must agree with the standard library's validation.
@Suite struct UTF8CheckTests {
    @Test func agreesWithTheStandardLibrary() {
        var rng = SeededGenerator(seed: 0xC0DE)
        let lead: [UInt8] = [0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF,
                             0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF, 0x8F, 0x90, 0x9F, 0xA0]
        for _ in 0..<50_000 {
            let bytes = (0..<Int.random(in: 0...6, using: &rng)).map { _ in
                Bool.random(using: &rng) ? lead.randomElement(using: &rng)! : UInt8.random(in: 0...255, using: &rng)
            }
            let mine = bytes.withUnsafeBufferPointer { UTF8Check.isValid($0) }
            #expect(mine == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
        }
    }
}
