// Text normalisation shared by the index and queries: case and accent folding, words, plural stems.
import Foundation

enum SearchText {
    /// Lower-case ASCII bytes with accents removed ("Jalapeño" → "jalapeno"); characters with
    /// no ASCII base become spaces. Curly apostrophes become straight ones.
    static func fold(_ text: String) -> [UInt8] {
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }
        }
        let straightened = text.replacingOccurrences(of: "\u{2019}", with: "'")
        let folded = straightened.folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil)
        return folded.utf8.map { byte in
            if byte >= 0x80 { return 0x20 }
            return byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
        }
    }

    /// Words of already folded text: runs of letters and digits. Apostrophes inside a word are
    /// dropped ("kellogg's" → "kelloggs"); a "%" right after a number stays on it ("2%", also
    /// from "2 %"). Not stemmed.
    static func words(folded bytes: [UInt8]) -> [String] {
        var result: [String] = []
        var current: [UInt8] = []
        var lastWasNumber = false
        func flush() {
            if !current.isEmpty {
                result.append(String(decoding: current, as: UTF8.self))
                lastWasNumber = current.last.map { $0 >= 0x30 && $0 <= 0x39 } ?? false
                current.removeAll(keepingCapacity: true)
            }
        }
        for byte in bytes {
            let isLetter = byte >= 0x61 && byte <= 0x7A
            let isDigit = byte >= 0x30 && byte <= 0x39
            if isLetter || isDigit {
                if current.isEmpty { lastWasNumber = false }
                current.append(byte)
            } else if byte == 0x27 && !current.isEmpty {
                continue  // apostrophe inside a word
            } else if byte == 0x25 {  // %
                if !current.isEmpty, let last = current.last, last >= 0x30 && last <= 0x39 {
                    current.append(byte)
                    flush()
                    lastWasNumber = false
                } else if current.isEmpty, lastWasNumber, let previous = result.last {
                    result[result.count - 1] = previous + "%"
                    lastWasNumber = false
                } else {
                    flush()
                    lastWasNumber = false
                }
            } else if byte == 0x20 {
                flush()  // a space keeps lastWasNumber so "2 %" still joins
            } else {
                flush()
                lastWasNumber = false
            }
        }
        flush()
        return result
    }

    /// Reduces English plurals so "eggs" matches "egg", "berries" "berry", "potatoes" "potato",
    /// "peaches" "peach". Applied to both the index and the query, so it only has to be consistent.
    static func stem(_ word: String) -> String {
        let count = word.utf8.count
        if count > 4 && word.hasSuffix("ies") { return String(word.dropLast(3)) + "y" }
        if count > 4 && word.hasSuffix("oes") { return String(word.dropLast(2)) }
        for suffix in ["ches", "shes", "sses", "xes"] where count > suffix.utf8.count + 1 && word.hasSuffix(suffix) {
            return String(word.dropLast(2))
        }
        if count > 3 && word.hasSuffix("s") {
            let beforeLast = word.utf8[word.utf8.index(word.utf8.endIndex, offsetBy: -2)]
            if beforeLast != UInt8(ascii: "s") && beforeLast != UInt8(ascii: "u") && beforeLast != UInt8(ascii: "i") {
                return String(word.dropLast(1))
            }
        }
        return word
    }

    /// Stemmed words of raw text.
    static func terms(_ text: String) -> [String] {
        words(folded: fold(text)).map(stem)
    }

    /// Splits at commas outside parentheses: "Fruit salad, (pineapple and papaya), tropical" has three parts.
    static func segments(_ text: String) -> [Substring] {
        var result: [Substring] = []
        var depth = 0
        var start = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "(" {
                depth += 1
            } else if character == ")" {
                depth = max(0, depth - 1)
            } else if character == "," && depth == 0 {
                result.append(text[start..<index])
                start = text.index(after: index)
            }
            index = text.index(after: index)
        }
        result.append(text[start..<text.endIndex])
        return result.map { $0.trimmingCharacters(in: .whitespaces)[...] }.filter { !$0.isEmpty }
    }
}
