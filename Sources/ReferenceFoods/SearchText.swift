// Text normalisation shared by the index and queries: case and accent folding, words, plural stems.
// Works on ASCII bytes so indexing 8,800 descriptions stays fast.
import Foundation

enum SearchText {
    /// Lower-case ASCII bytes with accents removed ("Jalapeño" → "jalapeno"); characters with
    /// no ASCII base become spaces. Curly apostrophes become straight ones.
    static func fold(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8)
        let isASCII = bytes.withUnsafeMutableBufferPointer { buffer -> Bool in
            for index in buffer.indices {
                let byte = buffer[index]
                if byte >= 0x80 { return false }
                if byte >= 0x41 && byte <= 0x5A { buffer[index] = byte + 0x20 }
            }
            return true
        }
        if isASCII { return bytes }
        let straightened = text.replacingOccurrences(of: "\u{2019}", with: "'")
        let folded = straightened.folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil)
        return folded.utf8.map { byte in
            if byte >= 0x80 { return 0x20 }
            return byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
        }
    }

    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    @inline(__always) static func isWordByte(_ byte: UInt8) -> Bool { (byte >= 0x61 && byte <= 0x7A) || isDigit(byte) }

    /// Calls `body` with each word of folded bytes in `range`: runs of letters and digits.
    /// Apostrophes inside a word are dropped ("kellogg's" → "kelloggs"); a "%" right after a
    /// number, even after spaces, joins it ("2%", "2 %" → "2%"). Not stemmed.
    static func scanWords(_ bytes: [UInt8], _ range: Range<Int>, _ body: ([UInt8]) -> Void) {
        var current: [UInt8] = []
        var pending: [UInt8] = []  // the last finished word, held back in case a "%" follows
        current.reserveCapacity(24)
        pending.reserveCapacity(24)
        func finishCurrent() {
            guard !current.isEmpty else { return }
            if !pending.isEmpty { body(pending) }
            swap(&pending, &current)  // swapping keeps both buffers unique, so no copy per word
            current.removeAll(keepingCapacity: true)
        }
        for index in range {
            let byte = bytes[index]
            if isWordByte(byte) {
                if current.isEmpty && !pending.isEmpty {
                    body(pending)
                    pending.removeAll(keepingCapacity: true)
                }
                current.append(byte)
            } else if byte == 0x27 && !current.isEmpty {
                continue
            } else if byte == 0x25 {  // %
                finishCurrent()
                if let last = pending.last, isDigit(last) {
                    pending.append(byte)
                    body(pending)
                    pending.removeAll(keepingCapacity: true)
                }
            } else if byte == 0x20 {
                finishCurrent()  // keep the pending word: "2 %" still joins
            } else {
                finishCurrent()
                if !pending.isEmpty {
                    body(pending)
                    pending.removeAll(keepingCapacity: true)
                }
            }
        }
        finishCurrent()
        if !pending.isEmpty { body(pending) }
    }

    /// Stemmed words of folded bytes in `range`, written into `result` (reused to save allocations).
    static func stemmedWords(_ bytes: [UInt8], _ range: Range<Int>, into result: inout [String]) {
        result.removeAll(keepingCapacity: true)
        scanWords(bytes, range) { result.append(stem($0)) }
    }

    /// Words of already folded text, not stemmed.
    static func words(folded bytes: [UInt8]) -> [String] {
        var result: [String] = []
        scanWords(bytes, 0..<bytes.count) { result.append(String(decoding: $0, as: UTF8.self)) }
        return result
    }

    /// Reduces English plurals so "eggs" matches "egg", "berries" "berry", "potatoes" "potato",
    /// "peaches" "peach". Applied to both the index and the query, so it only has to be consistent.
    static func stem(_ word: [UInt8]) -> String {
        let count = word.count
        func ends(_ suffix: StaticString) -> Bool {
            let length = suffix.utf8CodeUnitCount
            guard count >= length else { return false }
            return suffix.withUTF8Buffer { suffixBytes in
                var index = 0
                while index < length {
                    if word[count - length + index] != suffixBytes[index] { return false }
                    index += 1
                }
                return true
            }
        }
        func keep(_ length: Int, plus tail: String = "") -> String {
            String(decoding: word[0..<length], as: UTF8.self) + tail
        }
        if count > 4 && ends("ies") { return keep(count - 3, plus: "y") }
        if count > 4 && ends("oes") { return keep(count - 2) }
        if (count > 5 && (ends("ches") || ends("shes") || ends("sses"))) || (count > 4 && ends("xes")) {
            return keep(count - 2)
        }
        if count > 3 && word[count - 1] == UInt8(ascii: "s") {
            let before = word[count - 2]
            if before != UInt8(ascii: "s") && before != UInt8(ascii: "u") && before != UInt8(ascii: "i") {
                return keep(count - 1)
            }
        }
        return String(decoding: word, as: UTF8.self)
    }

    static func stem(_ word: String) -> String { stem(Array(word.utf8)) }

    /// Stemmed words of raw text.
    static func terms(_ text: String) -> [String] {
        let bytes = fold(text)
        var result: [String] = []
        scanWords(bytes, 0..<bytes.count) { result.append(stem($0)) }
        return result
    }

    /// Ranges of the comma-separated segments of folded bytes, ignoring commas inside
    /// parentheses and trimming spaces: "fruit salad, (pineapple, papaya), tropical" has three.
    static func segmentRanges(_ bytes: [UInt8]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var depth = 0
        var start = 0
        func add(_ end: Int) {
            var low = start
            var high = end
            while low < high && bytes[low] == 0x20 { low += 1 }
            while high > low && bytes[high - 1] == 0x20 { high -= 1 }
            if low < high { result.append(low..<high) }
        }
        for (index, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: "(") {
                depth += 1
            } else if byte == UInt8(ascii: ")") {
                depth = max(0, depth - 1)
            } else if byte == UInt8(ascii: ",") && depth == 0 {
                add(index)
                start = index + 1
            }
        }
        add(bytes.count)
        return result
    }

    /// The segments of raw text (folded), for tests and tools.
    static func segments(_ text: String) -> [String] {
        let bytes = fold(text)
        return segmentRanges(bytes).map { String(decoding: bytes[$0], as: UTF8.self) }
    }
}
