import Foundation
import Testing
import TestSupport
@testable import Agent

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
                guard let r = ref[key] else { Issue.record("missing key \(key)", sourceLocation: sourceLocation); continue }
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
            Self.expectSame(document.root, v)
            Self.expectSame(try JSONDocument(bytes: Array(text.utf8)).root, v)
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
        for text in cases { Self.expectSame(try JSONDocument(parsing: text).root, try JSONValue.parse(text)) }
        #expect(try JSONDocument(parsing: #"{"a":1,"a":2}"#).root["a"]?.intValue == 2)
        #expect(try JSONDocument(parsing: #"{"k\u0065y":3}"#).root["key"]?.intValue == 3)
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
                Self.expectSame(document.root, expected)
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
